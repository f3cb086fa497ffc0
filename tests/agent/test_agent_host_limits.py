"""Host-owned limits: a replaced agent.core that skips every check still cannot pass one."""
from __future__ import annotations

import time

from ptclisp.agent import AgentHost, AgentLimits
from ptclisp.agent.compaction import request_chars
from ptclisp.providers import ModelRouter, ScriptedProvider

from agent_helpers import call

# a loop that checks nothing: it asks the model again and again with a growing transcript
RECKLESS = '''(ns agent.core "A loop that skips every check.")
(defn- go [task cfg]
  (loop [msgs [{"role" "user" "content" task}] n 0]
    (let [r (llm/request {"system" "s" "messages" msgs "tools" []})
          p (get-in r ["tool_calls" 0 "args" "program"])
          ev (when (string? p) (kernel/eval-source "default" p))]
      (if (= :returned (get-in ev [:value :outcome]))
        (get-in ev [:value :value])
        (recur (conj msgs {"role" "user" "content" (str "again " n " " (get cfg "pad"))}) (inc n))))))
(defn run-result-value [task cfg] (go task cfg))
(defn run-value [task cfg] (go task cfg))
(defn run-outcome [task cfg] {:status :returned :value (go task cfg)})
'''


def _forever(req):
    return call("c", "(+ 1 1)")


def _host(script=_forever, **kw):
    provider = ScriptedProvider(script)
    router = kw.pop("router", None) or {"m": provider}
    return AgentHost(models=router, replace={"agent.core": RECKLESS}, **kw), provider


def test_the_turn_budget_holds_without_the_loop_counting():
    host, provider = _host()
    out = host.run_entry("agent.main/run", {"task": "t", "agent": {"max_turns": 3}})
    assert (out.error.reason, out.error.details["limit"], out.error.details["limit_value"]) == \
        ("runtime_limit_exceeded", "agent_turns", 3)
    assert len(provider.requests) == 3


def test_the_transcript_budget_holds_without_check_transcript():
    host, provider = _host()
    cfg = {"max_turns": 50, "max_transcript_chars": 8000, "pad": "x" * 3000, "compaction": False}
    out = host.run_entry("agent.main/run", {"task": "t", "agent": cfg})
    assert out.error.reason == "runtime_limit_exceeded"
    assert out.error.details == {"limit": "max_transcript_chars", "limit_value": 8000}
    assert provider.requests and all(request_chars(r) <= 8000 for r in provider.requests)


def test_a_request_that_cannot_be_compacted_is_refused_before_it_is_sent():
    host, provider = _host()
    out = host.run_entry("agent.main/run", {"task": "y" * 9000, "agent": {"max_transcript_chars": 8000}})
    assert out.error.details == {"limit": "max_transcript_chars", "limit_value": 8000}
    assert provider.requests == []


def test_the_program_size_holds_without_the_loop_measuring():
    host, provider = _host(lambda req: call("c", "(return " + " " * 500 + "1)"))
    out = host.run_entry("agent.main/run", {"task": "t", "agent": {"max_program_chars": 100}})
    assert out.error.details == {"limit": "max_program_chars", "limit_value": 100}


def test_the_result_contract_holds_without_the_loop_validating():
    host, provider = _host(lambda req: call("c", '(return "not a number")'),
                           result_schema={"type": "integer"})
    out = host.run_entry("agent.main/run", {"task": "t", "agent": {"max_turns": 2}})
    assert not out.ok and out.error.reason == "result_contract_failed"
    host, provider = _host(lambda req: call("c", "(return 5)"), result_schema={"type": "integer"})
    assert host.run_entry("agent.main/run", {"task": "t"}).value == 5


def test_a_model_call_cap_holds_when_the_loop_ignores_the_refusal():
    provider = ScriptedProvider(_forever)
    router = ModelRouter({"m": provider}, max_calls={"m": 2})
    host = AgentHost(models=router, replace={"agent.core": RECKLESS})
    out = host.run_entry("agent.main/run", {"task": "t", "agent": {"max_turns": 6}})
    assert len(provider.requests) == 2 and not out.ok


def test_the_deadline_holds_when_the_loop_keeps_asking():
    def slow(req):
        time.sleep(0.15)
        return call("c", "(+ 1 1)")
    host, provider = _host(slow, limits=AgentLimits(workflow_timeout_ms=400))
    started = time.monotonic()
    out = host.run_entry("agent.main/run", {"task": "t", "agent": {"max_turns": 100}})
    assert not out.ok and time.monotonic() - started < 3
    assert out.error.reason in ("runtime_limit_exceeded", "timeout") and len(provider.requests) <= 5


def test_a_declared_option_may_lower_a_host_limit_never_raise_it():
    # a workflow evaluated directly is held to the host's own agent options
    host, provider = _host(agent_options={"max_turns": 3})
    out = host.eval('(agent.core/run-value "t" {"max_turns" 50})')
    assert out.error.details == {"limit": "agent_turns", "limit_value": 3, "limit_reason": "turn_limit_exceeded"}
    assert len(provider.requests) == 3
    # the shipped loop declares its options: a lower declared budget wins over the host's view
    from agent_helpers import calls, make_host
    host, provider = make_host(calls("(+ 1 1)", "(+ 1 1)", "(+ 1 1)"))
    out = host.run_entry("agent.main/run", {"task": "t", "agent": {"max_turns": 2}})
    assert out.error.details["limit"] == "agent_turns" and len(provider.requests) == 2


def test_invalid_compaction_options_are_agent_config_errors():
    from agent_helpers import calls, make_host
    host, provider = make_host(calls("(return 1)"))
    out = host.run_entry("agent.main/run", {"task": "t", "agent": {"compaction_at": 2}})
    assert (out.error.reason, out.error.details["option"]) == ("invalid_agent_config", "compaction_at")
    out = host.eval('(agent.core/run-value "t" {"compaction" "yes"})')
    assert (out.error.reason, out.error.details["option"]) == ("invalid_agent_config", "compaction")
    assert provider.requests == []


def test_model_calls_after_a_finished_loop_are_not_charged_to_its_turn_budget():
    from agent_helpers import calls, make_host
    host, provider = make_host(calls("(return 1)", "(return 2)", "(return 3)"))
    out = host.eval('(let [a (agent.core/run-value "t" {"max_turns" 1})'
                    '      b (llm/request {"system" "s" "messages" [{"role" "user" "content" "x"}] "tools" []})'
                    '      c (agent.core/run-value "t" {"max_turns" 1})]'
                    '  [a (get-in b ["tool_calls" 0 "args" "program"]) c])')
    assert out.value == [1, "(return 2)", 3] and len(provider.requests) == 3
