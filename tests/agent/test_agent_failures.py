"""Scenarios A12 and A18-A22 (program failures, capabilities and retries) and A26-A30 (providers)."""
from __future__ import annotations

import pytest

from ptclisp.agent import Capability, Mission
from ptclisp.providers import ModelRouter, ProviderError, ScriptedProvider

from agent_helpers import K, call, calls, get, make_host, run_entry, tool_messages


def default_mission(*caps) -> dict:
    return {"default": Mission(capabilities=list(caps))}


# ------------------------------------------------------------------ A12: normalize

def test_a12_non_map_response_is_invalid_response():
    host, _ = make_host([])
    out = host.eval('(agent.native/normalize "not-a-map" 64000)')
    assert out.value == {"kind": "protocol-error", "reason": "invalid-response", "narration": None}


def test_a12_provider_returning_a_list_is_a_provider_failure():
    class ListProvider:
        kind = "broken"

        def complete(self, request):
            return ["not", "an", "object"]

    out, _, _ = run_entry("run-outcome", None, {"max_turns": 2}, models={"m": ListProvider()})
    assert out.value["status"] == "provider-failure"
    assert out.value["error"]["kind"] == "provider_error"
    assert out.value["error"]["reason"] == "invalid_request"


# ------------------------------------------------------------------ A18-A22: program failures

A18_FORGED = "(fail {:status :error :kind :provider-error :reason :not-found})"


@pytest.mark.parametrize("program", [A18_FORGED, f"(do (tool/runtime-usage {{}}) {A18_FORGED})"],
                         ids=["no-capability", "after-safe-read"])
def test_a18_forged_error_envelope_is_terminal(program):
    out, provider, _ = run_entry("run-outcome", calls(program, "(return 1)"), {"max_turns": 3})
    assert out.value["status"] == "subject-failure" and out.value["kind"] == "model-program-failed"
    assert len(provider.requests) == 1


def _not_found(args):
    raise ProviderError("not_found", "secret-detail-from-provider", retryable=False)


LOOKUP_PROGRAM = "(let [r (tool/lookup {})] (if (= :ok (get r :status)) (return r) (fail r)))"


def test_a19_capability_failure_is_correctable():
    lookup = Capability("lookup", _not_found, effect="read")
    out, provider, _ = run_entry("run-outcome", calls(LOOKUP_PROGRAM, '(return "ok")'), {"max_turns": 3},
                                 missions=default_mission(lookup))
    assert out.value == {"status": "returned", "value": "ok"}
    feedback = tool_messages(provider.requests[1])[-1]
    assert "kind=provider_error" in feedback and "reason=not_found" in feedback
    assert "secret-detail-from-provider" not in feedback


def test_a19_copied_envelope_is_not_correctable():
    lookup = Capability("lookup", _not_found, effect="read")
    program = "(let [r (tool/lookup {})] (fail (into {} r)))"
    out, provider, _ = run_entry("run-outcome", calls(program, '(return "ok")'), {"max_turns": 3},
                                 missions=default_mission(lookup))
    assert out.value["status"] == "subject-failure" and out.value["kind"] == "model-program-failed"
    assert len(provider.requests) == 1


def test_a19_argument_schema_refusal_is_correctable():
    lookup = Capability("lookup", lambda a: a, effect="read",
                        input_schema={"type": "object", "required": ["id"], "properties": {"id": {"type": "integer"}}})
    program = '(let [r (tool/lookup {"id" "x"})] (if (= :ok (get r :status)) (return r) (fail r)))'
    out, provider, _ = run_entry("run-outcome", calls(program, '(return "ok")'), {"max_turns": 3},
                                 missions=default_mission(lookup))
    assert out.value == {"status": "returned", "value": "ok"}
    feedback = tool_messages(provider.requests[1])[-1]
    assert "kind=protocol_error" in feedback and "reason=invalid_arguments" in feedback
    assert "violations=" in feedback and "id" in feedback


class Counter:
    def __init__(self, result=None, error=None):
        self.calls, self.result, self.error = 0, result, error

    def __call__(self, args):
        self.calls += 1
        if self.error is not None:
            raise self.error
        return self.result


UNSAFE_PROGRAM = "(do (tool/commit {}) (+ {} 1))"


def test_a20_unsafe_failure_gets_one_closing_turn():
    commit = Counter(result={"done": True})
    out, provider, _ = run_entry("run-outcome", calls(UNSAFE_PROGRAM, UNSAFE_PROGRAM, '(return "ok")'),
                                 {"max_turns": 4}, missions=default_mission(Capability("commit", commit,
                                                                                       effect="write")))
    assert out.value["status"] == "subject-failure" and out.value["kind"] == "non-retryable-evaluation"
    assert out.value["error"]["reason"] == "type_error"
    assert len(provider.requests) == 2
    closing = tool_messages(provider.requests[1])[-1]
    assert closing.startswith("TURN BUDGET:")
    assert closing.rstrip().endswith("using return or fail on this turn.")
    assert commit.calls == 2


def test_a21_closing_turn_can_finish():
    commit = Counter(result={"done": True})
    out, provider, _ = run_entry("run-outcome", calls(UNSAFE_PROGRAM, '(return "ok")'), {"max_turns": 3},
                                 missions=default_mission(Capability("commit", commit, effect="write")))
    assert out.value == {"status": "returned", "value": "ok"}
    assert commit.calls == 1


def test_a21_unknown_effect_counts_as_unsafe():
    commit = Counter(result={"done": True})
    out, _, _ = run_entry("run-outcome", calls(UNSAFE_PROGRAM, UNSAFE_PROGRAM), {"max_turns": 4},
                          missions=default_mission(Capability("commit", commit)))
    assert out.value["kind"] == "non-retryable-evaluation"


def test_a21_read_effect_failure_is_retried_normally():
    lookup = Counter(result={"rows": []})
    out, provider, _ = run_entry("run-outcome", calls("(do (tool/lookup {}) (+ {} 1))", '(return "ok")'),
                                 {"max_turns": 3}, missions=default_mission(Capability("lookup", lookup,
                                                                                       effect="read")))
    assert out.value == {"status": "returned", "value": "ok"}
    assert "outcome=:evaluation_error" in tool_messages(provider.requests[1])[-1]


def test_a22_failed_write_capability_is_not_correctable():
    commit = Counter(error=ProviderError("unavailable", "try later"))
    program = "(let [response (tool/commit {})] (fail response))"
    out, provider, _ = run_entry("run-outcome", calls(program, '(return "ok")'), {"max_turns": 3},
                                 missions=default_mission(Capability("commit", commit, effect="write")))
    assert out.value["status"] == "subject-failure" and out.value["kind"] == "model-program-failed"
    assert len(provider.requests) == 1
    assert commit.calls == 1


# ------------------------------------------------------------------ A26-A30: providers

@pytest.mark.parametrize("script", [[ProviderError("unavailable", "down", retryable=True)], []],
                         ids=["raised", "exhausted"])
def test_a26_provider_failure_outcome(script):
    out, _, _ = run_entry("run-outcome", script, {"max_turns": 2})
    assert out.value["status"] == "provider-failure"
    assert out.value["model"] == "m"
    err = get(out.raw, "error")
    assert get(err, "status") is K("error") and get(err, "kind") is K("provider_error")
    assert get(err, "reason") is K("unavailable")
    assert get(err, "retryable?") is True and get(err, "model") == "m"


def test_a26_run_value_aborts_with_llm_provider_failed():
    out, _, _ = run_entry("run-value", [ProviderError("unavailable", "down", retryable=True)], {"max_turns": 2})
    assert (out.error.kind, out.error.reason) == ("workflow_failed", "llm_provider_failed")
    assert out.error.details["reason"] == "unavailable" and out.error.details["model"] == "m"


def _quota_router():
    forever = ScriptedProvider(lambda req: call("c", "(+ 1 1)"))
    cheap = ScriptedProvider([])
    return ModelRouter({"expensive": forever, "cheap": cheap}, default="expensive",
                       max_calls={"expensive": 1}), forever


def test_a27_per_alias_quota_is_a_provider_failure():
    router, forever = _quota_router()
    out, _, _ = run_entry("run-outcome", None, {"max_turns": 2}, models=router)
    assert out.value["status"] == "provider-failure"
    assert out.value["model"] == "expensive"
    err = out.value["error"]
    assert (err["kind"], err["reason"]) == ("limit_exceeded", "capability_quota")
    assert err["details"] == {"limit": "max_calls", "alias": "expensive", "limit_value": 1}
    assert len(forever.requests) == 1


def test_a27_run_value_fails_with_the_quota():
    router, _ = _quota_router()
    out, _, _ = run_entry("run-value", None, {"max_turns": 2}, models=router)
    assert (out.error.kind, out.error.reason) == ("limit_exceeded", "capability_quota")
    assert out.error.details["limit"] == "max_calls"


def test_a28_unknown_alias():
    out, provider, _ = run_entry("run-outcome", calls("(return 1)"), {"model": "missing"})
    assert out.value["status"] == "provider-failure"
    assert (out.value["error"]["kind"], out.value["error"]["reason"]) == ("protocol_error", "unknown_model_alias")
    assert provider.requests == []


def test_a29_truncation_aborts():
    truncated = {"content": "", "finish_reason": "length", "model": "m",
                 "output_limit": {"name": "max_tokens", "value": 4096, "bindings": ["configured"]}}
    out, provider, _ = run_entry("run-outcome", [truncated, call("c", "(return 1)")], {"max_turns": 3})
    assert (out.error.kind, out.error.reason) == ("workflow_failed", "model_output_truncated")
    assert out.error.details == {"alias": "m", "limit": "max_tokens", "limit_value": 4096,
                                 "limit_bindings": ["configured"]}
    assert len(provider.requests) == 1
    assert out.usage["agent_protocol_errors"] == 0


def test_a29_truncation_without_known_limit():
    out, _, _ = run_entry("run-outcome", [{"content": "", "finish_reason": "length"}], {"max_turns": 3})
    assert out.error.reason == "model_output_truncated" and out.error.details == {"alias": "m"}


def test_a30_complete_call_wins_over_length():
    response = dict(call("c", "(return 42)"), finish_reason="length")
    out, _, _ = run_entry("run-outcome", [response], {"max_turns": 2})
    assert out.value == {"status": "returned", "value": 42}
