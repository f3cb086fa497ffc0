"""Host-side pieces checked directly: mission sessions, quotas, aborts, normalisation shapes."""
from __future__ import annotations

import pytest

from ptclisp.agent import AgentLimits, Capability, Mission, MissionSession, ResultContract
from ptclisp.agent.envelopes import NotJson, project
from ptclisp.values import Keyword, Map

from agent_helpers import call, calls, make_host, run_entry

K = Keyword


def session(mission=None, **limits) -> MissionSession:
    return MissionSession("default", mission or Mission(), AgentLimits(**limits), lambda: {})


def test_session_commits_and_rolls_back():
    s = session()
    assert s.eval("(def a 1) 10").outcome == "continued"
    ev = s.eval("(do (def b 2) (+ {} 1))")
    assert ev.outcome == "evaluation_error" and ev.kind == "type_error"
    assert s.definitions == {"a": 1} and s.history == [10]
    assert s.eval("(return a)").outcome == "returned"
    assert s.history == [10]                       # return does not advance history


def test_a_mission_session_holds_a_session_with_agent_limits():
    import ptclisp
    s = session(evaluation_timeout_ms=2000, max_print_chars=10)
    # it holds a Session over its environment rather than being one (its eval classifies, Session.eval does not)
    assert not isinstance(s, ptclisp.Session) and isinstance(s.session, ptclisp.Session)
    assert s.session.env is s.env and s.session.limits is s.limits and isinstance(s.limits, ptclisp.Limits)
    assert s.limits.timeout_ms == s.limits.evaluation_timeout_ms == 2000
    ev = s.eval('(println "0123456789abcdef") 1')  # every Limits field bounds a mission evaluation
    assert ev.prints == ["0123456789... (10/16 chars)"]


def test_agent_limits_are_checked_as_limits_are():
    with pytest.raises(ValueError, match="AgentLimits.subordinate_source_bytes must be between 1 and 2"):
        AgentLimits(subordinate_source_bytes=0)
    with pytest.raises(TypeError, match="AgentLimits.workflow_timeout_ms must be a number of milliseconds"):
        AgentLimits(workflow_timeout_ms="soon")
    with pytest.raises(ValueError, match="AgentLimits.timeout_ms must be between"):
        AgentLimits(evaluation_timeout_ms=10 ** 14)
    with pytest.raises(TypeError, match="evaluation_timeout_ms and timeout_ms are the same limit"):
        AgentLimits(evaluation_timeout_ms=5, timeout_ms=6)
    limits = AgentLimits()
    with pytest.raises(ValueError, match="AgentLimits.mission_capability_calls"):
        limits.mission_capability_calls = -1
    assert (limits.timeout_ms, limits.memory_bytes, limits.loop_limit) == (30_000, 10_000_000, 1000)
    assert type(limits.mission_eval_limits()).__name__ == "Limits"


def test_a_capability_calling_back_into_its_mission_session_finds_it_busy():
    inner = []

    def again(_args):
        inner.append(s.eval("(def nested 1) 2"))
        return "done"
    s = session(Mission(capabilities=[Capability("again", again, effect="write")]))
    ev = s.eval("(def outer (tool/again {})) 1")
    assert [(e.outcome, e.reason) for e in inner] == [("busy", "evaluation_in_progress")]
    assert ev.outcome == "continued" and ev.unsafe_activity   # the nested attempt left the activity record alone
    assert set(s.definitions) == {"outer"} and s.evaluations == 1


def test_a_refused_commit_rolls_back_through_the_transaction():
    s = session(evaluation_memory_bytes=300)
    s.eval("(def kept 1) 1")
    ev = s.eval('(def kept 2) (def big "' + "x" * 400 + '") 3')
    assert (ev.outcome, ev.reason, ev.continuation_effect) == ("memory_exceeded", "evaluation_memory_bytes",
                                                                "preserved")
    assert s.definitions == {"kept": 1} and s.history == [1]
    assert s.eval("kept").value == 1                # the namespace's undo log restored it


def test_session_history_ceiling():
    s = session(evaluation_history_bytes=200)
    ev = s.eval('"' + "y" * 500 + '"')
    assert (ev.outcome, ev.reason) == ("history_exceeded", "evaluation_history_bytes")
    assert ev.details["phase"] == "commit" and s.history == []


def test_terminal_result_ceiling():
    s = session(terminal_result_bytes=100)
    ev = s.eval('(return "' + "z" * 500 + '")')
    assert (ev.outcome, ev.reason) == ("result_exceeded", "terminal_result_bytes")


def test_source_size_ceiling():
    ev = session(subordinate_source_bytes=10).eval("(+ 1 2 3 4 5 6)")
    assert (ev.outcome, ev.reason) == ("result_exceeded", "subordinate_source_bytes")


def test_source_check_terminal_rule():
    s = session()
    assert s.check("(return 1)", require_terminal=True)["outcome"] == "valid"
    assert s.check("(return 1) (return 2)", require_terminal=True)["outcome"] == "invalid"
    assert s.check("(+ 1 2)", require_terminal=True)["outcome"] == "invalid"
    bad = s.check("(return (undefined-fn 1))", require_terminal=True)
    assert bad["outcome"] == "invalid" and bad["diagnostic"]["kind"]
    assert s.evaluations == 0                      # checking never runs anything


def test_capability_quota_is_an_envelope():
    cap = Capability("ping", lambda a: "pong", effect="read")
    s = session(Mission(capabilities=[cap]), mission_capability_calls_per_name=1)
    ev = s.eval("[(tool/ping {}) (tool/ping {})]")
    second = ev.value.lst()[1]
    assert second.lookup(K("status")) is K("error") and second.lookup(K("reason")) is K("capability_quota")


def test_capability_failure_identity_and_effects():
    def boom(args):
        from ptclisp.providers import ProviderError
        raise ProviderError("denied", "no")
    s = session(Mission(capabilities=[Capability("w", boom, effect="write"), Capability("r", boom, effect="read")]))
    ev = s.eval("(fail (tool/r {}))")
    assert ev.capability_failure and ev.retryable and not ev.unsafe_activity
    ev = s.eval("(fail (tool/w {}))")
    assert ev.capability_failure and ev.retryable is False
    ev = s.eval('(let [x (tool/r {})] (tool/runtime-usage {}) (fail x))')
    assert not ev.capability_failure               # the last capability result was another one


def test_subordinate_evaluation_quota_aborts():
    out, provider, _ = run_entry("run-outcome", calls("1", "2", "3"), {"max_turns": 3},
                                 limits=AgentLimits(subordinate_evaluations=2))
    assert (out.error.kind, out.error.reason) == ("workflow_failed", "runtime_limit_exceeded")
    assert out.error.details == {"limit": "subordinate_evaluations", "limit_value": 2}


def test_forged_quota_proof_is_refused():
    # only agent.core may name the private binding; through it, an unknown proof is a protocol error
    host, _ = make_host([])
    run, env = host._new_run()
    r = run.kernel_runtime_limit_failure(Map({"proof": "made-up"}))
    assert r.lookup(K("kind")) is K("protocol_error")
    r = run.kernel_runtime_limit_failure(Map({"agent_turns": 2, "reason": "made-up"}))
    assert r.lookup(K("kind")) is K("protocol_error") and run.abort is None


@pytest.mark.parametrize("response, kind", [
    ({"content": None, "tool_calls": [{"id": "x", "function": {"name": "run_ptc_lisp",
                                                                "arguments": '{"program": "(return 3)"}'}}]},
     "tool-call"),
    ({"content": None, "tool_calls": [{"id": "x", "name": "run_ptc_lisp", "args": {}, "args_error": "bad"}]},
     "protocol-error"),
    ({"status": "ok"}, "protocol-error"),
])
def test_normalize_shapes(response, kind):
    host, _ = make_host([])
    host_run, env = host._new_run()
    from ptclisp import from_python
    from ptclisp.pipeline import evaluate
    env.context = from_python({"r": response})
    res = evaluate(env, "(get (agent.native/normalize data/r 1000) :kind)", host.limits.workflow_limits())
    assert res.value is K(kind)


def test_events_reach_the_callback_and_a_failing_callback_is_harmless():
    seen = []
    host, _ = make_host(calls("(return 1)"), on_event=seen.append)
    assert host.eval('(agent.core/run-outcome "t" {"max_turns" 1})').ok
    assert {e["type"] for e in seen} >= {"llm_request", "agent-action", "evaluation"}

    def broken(event):
        raise RuntimeError("observer bug")
    host, _ = make_host(calls("(return 1)"), on_event=broken)
    assert host.eval('(agent.core/run-outcome "t" {"max_turns" 1})').ok


def test_projection_refuses_non_json():
    with pytest.raises(NotJson):
        project(Map({K("a"): float("nan")}))
    with pytest.raises(NotJson):
        project(Map({1: 2, "1": 3}))          # both keys would be "1"
    assert project(Map({K("a"): K("b")})) == {"a": "b"}
    assert project(Map({1: 2})) == {"1": 2}   # integer keys become their JSON text (docs/json.md)


def test_contract_paths_hide_undeclared_keys():
    c = ResultContract({"type": "object", "additionalProperties": {"type": "integer"}})
    res = c.check(Map({"secret-key": "x"}))
    assert not res["valid?"]
    assert res["details"]["violations"][0]["segments"] == ["*"]
    assert "secret-key" not in repr(res)


def test_protocol_error_at_end_of_non_final_phase_moves_on():
    missions = {"a": Mission(), "b": Mission()}
    cfg = {"phases": [{"mission": "a", "max_turns": 1}, {"mission": "b", "max_turns": 1}]}
    out, provider, _ = run_entry("run-phased-result-value", [{"content": "prose"}, call("c", "(return 9)")], cfg,
                                 missions=missions)
    assert out.value == 9
    roles = [m["role"] for m in provider.requests[1]["messages"]]
    assert roles == ["user", "assistant", "user", "user"]
    assert provider.requests[1]["messages"][-1]["content"].startswith("PHASE TRANSITION")
