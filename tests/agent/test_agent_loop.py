"""Scenarios A1-A11 and A13-A17: the core turn loop, the transcript and the turn limit."""
from __future__ import annotations

import pytest

from agent_helpers import K, call, calls, get, last_content, make_host, run_entry, tool_messages


def test_a1_single_return():
    out, provider, _ = run_entry("run-outcome", calls("(return 42)"), {"max_turns": 2})
    assert out.ok
    assert out.value == {"status": "returned", "value": 42}
    assert get(out.raw, "status") is K("returned")
    assert len(provider.requests) == 1
    assert out.annotations() == [{"turn": 0, "kind": "tool-call"}]
    assert out.usage["agent_protocol_errors"] == 0


@pytest.mark.parametrize("cfg, expected", [
    ({"max_turns": 2}, {"ok": True, "value": 42}),
    ({"max_turns": 2, "result_envelope": False}, 42),
])
def test_a2_run_returns_envelope_or_bare_value(cfg, expected):
    out, _, _ = run_entry("run", calls("(return 42)"), cfg)
    assert out.ok and out.value == expected
    assert out.result.status == "returned"


def test_a3_agent_main_returns_bare_value():
    host, _ = make_host(calls('(return {"answer" 42})'))
    out = host.run_entry("agent.main/run", {"task": "t", "agent": {"max_turns": 2}})
    assert out.ok and out.value == {"answer": 42}


def _a4():
    script = [call("d", "(defn add-one [x] (+ x 1))", content="I will define the helper first."),
              call("r", "(return (add-one 41))")]
    return run_entry("run-outcome", script, {"max_turns": 2})


def test_a4_definitions_persist_and_transcript_shape():
    out, provider, _ = _a4()
    assert out.value == {"status": "returned", "value": 42}
    assert out.usage["subordinate_evaluations"] == 2
    msgs = provider.requests[1]["messages"]
    assert [m["role"] for m in msgs] == ["user", "assistant", "tool"]
    assert msgs[0]["content"].startswith("t\n\n")
    assert "TURN BUDGET: 2 turns remain" in msgs[0]["content"]
    assert msgs[1]["content"] == "I will define the helper first."
    assert msgs[1]["tool_calls"] == [{"id": "d", "name": "run_ptc_lisp",
                                      "args": {"program": "(defn add-one [x] (+ x 1))"}}]
    tool = msgs[2]
    assert tool["tool_call_id"] == "d"
    body = tool["content"]
    assert '<untrusted_ptc_output source="evaluation">' in body
    assert "user=> #'add-one" in body
    assert "Definitions created" in body
    assert "TURN BUDGET: 1 turn remains" in body
    assert "FINAL TURN:" in body
    assert body.index("</untrusted_ptc_output>") < body.index("TURN BUDGET")


def test_a5_system_prompt_is_stable_and_tools_fixed():
    _, provider, _ = _a4()
    r1, r2 = provider.requests
    assert r1["system"] == r2["system"]
    assert r1["system"].startswith("PTC_AGENT_PROMPT_V1")
    assert "FINAL TURN:" not in r1["system"]
    for r in (r1, r2):
        assert len(r["tools"]) == 1
        fn = r["tools"][0]["function"]
        assert r["tools"][0]["type"] == "function"
        assert fn["name"] == "run_ptc_lisp"
        assert fn["parameters"] == {"type": "object", "additionalProperties": False, "required": ["program"],
                                    "properties": {"program": {"type": "string"}}}
        assert "model" not in r


def test_a6_history_values_flow_between_turns():
    out, provider, _ = run_entry("run-outcome", calls("40", "(+ *1 1)", "(return (+ *1 *2))"), {"max_turns": 3})
    assert out.value == {"status": "returned", "value": 81}
    assert len(provider.requests) == 3


def test_a7_failed_programs_roll_back():
    script = calls("(def retained 42)", "(do (def leaked 99) (+ {} 1))", "(return leaked)", "(return retained)")
    out, provider, host = run_entry("run-outcome", script, {"max_turns": 4})
    assert out.value == {"status": "returned", "value": 42}
    third, fourth = tool_messages(provider.requests[2])[-1], tool_messages(provider.requests[3])[-1]
    assert "type_error" in third
    assert "unbound" in fourth.lower()
    assert "leaked" not in out.missions["default"].definitions


def test_a8_prose_without_call_is_a_protocol_error():
    script = [{"content": "I will explain", "tool_calls": []}, call("ok", "(return 1)")]
    out, provider, _ = run_entry("run-outcome", script, {"max_turns": 2})
    assert out.value == {"status": "returned", "value": 1}
    msgs = provider.requests[1]["messages"]
    assert [m["role"] for m in msgs] == ["user", "assistant", "user"]
    assert msgs[1] == {"role": "assistant", "content": "I will explain"}
    assert msgs[2]["content"].startswith("Protocol error: :multiple-or-missing-tool-calls.")
    assert "run_ptc_lisp" in msgs[2]["content"] and "TURN BUDGET: 1 turn remains" in msgs[2]["content"]
    assert out.usage["agent_protocol_errors"] == 1


def test_a9_two_calls_are_refused_and_not_replayed():
    two = {"content": None, "tool_calls": [{"id": "a", "name": "run_ptc_lisp", "args": {"program": "(def a 1)"}},
                                           {"id": "b", "name": "run_ptc_lisp", "args": {"program": "(def b 2)"}}]}
    out, provider, _ = run_entry("run-outcome", [two, call("c", "(return 1)")], {"max_turns": 2})
    assert out.value == {"status": "returned", "value": 1}
    msgs = provider.requests[1]["messages"]
    assert all("tool_calls" not in m for m in msgs)
    assert ":multiple-or-missing-tool-calls" in last_content(provider.requests[1])
    assert out.usage["subordinate_evaluations"] == 1      # only the second turn ran a program
    assert not out.missions["default"].definitions


def _bad(**call_fields):
    base = {"id": "x", "name": "run_ptc_lisp", "args": {"program": "(return 1)"}}
    base.update(call_fields)
    return {"content": "narration", "tool_calls": [base]}


A10_CASES = [
    ("text-only", {"content": "just prose"}, ":assistant-text-without-tool-call", True),
    ("nothing", {}, ":missing-tool-call", False),
    ("wrong-name", _bad(name="other_tool"), ":wrong-tool-name", True),
    ("blank-id", _bad(id=""), ":invalid-tool-call-id", True),
    ("bad-json", _bad(args="{not json"), ":invalid-json-arguments", True),
    ("extra-arg", _bad(args={"program": "(return 1)", "x": 1}), ":extra-or-missing-arguments", True),
    ("program-not-string", _bad(args={"program": 1}), ":program-not-string", True),
    ("program-empty", _bad(args={"program": "  "}), ":program-empty", True),
]


@pytest.mark.parametrize("label, first, reason, narrated", A10_CASES, ids=[c[0] for c in A10_CASES])
def test_a10_protocol_error_reasons(label, first, reason, narrated):
    out, provider, _ = run_entry("run-outcome", [first, call("ok", "(return 7)")], {"max_turns": 2})
    assert out.value == {"status": "returned", "value": 7}
    msgs = provider.requests[1]["messages"]
    assert msgs[-1]["role"] == "user"
    assert msgs[-1]["content"].startswith(f"Protocol error: {reason}")
    assistants = [m for m in msgs if m["role"] == "assistant"]
    assert len(assistants) == (1 if narrated else 0)
    assert all("tool_calls" not in m for m in assistants)
    assert out.usage["agent_protocol_errors"] == 1


def test_a10_string_arguments_are_parsed():
    first = _bad(args='{"program": "(return 5)"}')
    out, _, _ = run_entry("run-outcome", [first], {"max_turns": 1})
    assert out.value == {"status": "returned", "value": 5}


def test_a11_oversize_program_keeps_the_call_pair():
    prog = "(return " + "1" * 41 + ")"
    assert len(prog) == 50
    script = [call("big", prog, content="too large"), call("ok", "(return 1)")]
    out, provider, _ = run_entry("run-outcome", script, {"max_turns": 2, "max_program_chars": 40})
    assert out.value == {"status": "returned", "value": 1}
    msgs = provider.requests[1]["messages"]
    assert [m["role"] for m in msgs] == ["user", "assistant", "tool"]
    assert msgs[1]["content"] == "too large" and msgs[1]["tool_calls"][0]["id"] == "big"
    assert msgs[2]["tool_call_id"] == "big"
    assert ":program-too-large" in msgs[2]["content"]
    assert "50" in msgs[2]["content"] and "40" in msgs[2]["content"]
    assert out.usage["subordinate_evaluations"] == 1


def test_a13_turn_limit_is_data_from_run_outcome():
    out, provider, _ = run_entry("run-outcome", [{"content": "prose only"}], {"max_turns": 1})
    assert out.ok
    assert out.value == {"status": "subject-failure", "kind": "turn-limit",
                         "error": {"ok": False, "kind": "turn-limit", "reason": "protocol-error",
                                   "limit": "agent_turns", "limit_value": 1}}
    assert get(out.raw, "error", "reason") is K("protocol-error")
    assert len(provider.requests) == 1


@pytest.mark.parametrize("script, reason", [
    ([{"content": "prose only"}], "protocol_error"),
    ([call("c", "(def committed 42)")], "intermediate_result"),
    ([call("c", "(missing/function)")], "evaluation_error"),
], ids=["a14-protocol", "a15-intermediate", "a16-evaluation-error"])
def test_a14_a16_turn_limit_from_run_value(script, reason):
    out, provider, _ = run_entry("run-value", script, {"max_turns": 1})
    assert not out.ok
    assert (out.error.kind, out.error.reason) == ("workflow_failed", "runtime_limit_exceeded")
    assert out.error.details == {"limit": "agent_turns", "limit_value": 1, "limit_reason": reason}
    assert len(provider.requests) == 1


def test_a15_intermediate_result_was_committed():
    out, _, _ = run_entry("run-value", [call("c", "(def committed 42)")], {"max_turns": 1})
    assert out.usage["subordinate_evaluations"] == 1
    assert out.missions["default"].definitions == {"committed": 42}


def test_a17_model_fail_is_terminal():
    script = calls('(fail "declined")', "(return 1)")
    out, provider, _ = run_entry("run-outcome", script, {"max_turns": 3})
    assert out.value["status"] == "subject-failure" and out.value["kind"] == "model-program-failed"
    assert out.value["error"] == {"ok": False, "kind": "model-program-failed", "reason": "declined"}
    assert len(provider.requests) == 1
    out, provider, _ = run_entry("run", calls('(fail "declined")', "(return 1)"), {"max_turns": 3})
    assert (out.error.kind, out.error.reason) == ("workflow_failed", "explicit_failure")
    assert out.error.details["failure_kind"] == "model-program-failed"
    assert "declined" not in str(out.error)
    assert len(provider.requests) == 1


def test_workflow_session_keeps_definitions_across_evaluations():
    host, _ = make_host(calls("(return 42)"))
    session = host.session()
    assert session.eval('(def cfg {"max_turns" 2})').ok
    out = session.eval('(agent.core/run-outcome "t" cfg)')
    assert out.value == {"status": "returned", "value": 42}
