"""Scenarios A39-A42: phased runs and terminal-only phases."""
from __future__ import annotations

import pytest

from ptclisp.agent import Mission

from agent_helpers import calls, run_entry, tool_messages

EXPLORE_PRELUDE = '(ns debug.explore "Exploration helpers.") (defn evidence "The evidence." [] 42)'


def two_missions():
    return {"explore": Mission(preludes=[EXPLORE_PRELUDE]), "synthesize": Mission()}


def test_a39_phase_transition():
    cfg = {"phases": [{"mission": "explore", "max_turns": 1},
                      {"mission": "synthesize", "max_turns": 1, "instruction": "Synthesize the answer now."}]}
    out, provider, _ = run_entry("run-phased-result-value", calls("(debug.explore/evidence)", "(return 42)"), cfg,
                                 missions=two_missions())
    assert out.ok and out.value == 42
    r1, r2 = provider.requests
    assert "debug.explore/evidence" in r1["system"]
    assert "debug.explore/evidence" not in r2["system"]
    roles = [m["role"] for m in r2["messages"]]
    assert roles == ["user", "assistant", "tool", "user"]
    assert r2["messages"][2]["tool_call_id"] == "c1" and "user=> 42" in r2["messages"][2]["content"]
    assert "PHASE BUDGET" not in r2["messages"][2]["content"] and "TURN BUDGET" not in r2["messages"][2]["content"]
    last = r2["messages"][3]["content"]
    assert last.startswith("PHASE TRANSITION") and "Synthesize the answer now." in last and '"synthesize"' in last
    assert "TURN BUDGET: 1 turn remains" in last
    assert out.annotations() == [
        {"turn": 0, "phase": 0, "phase_turn": 0, "mission": "explore", "kind": "tool-call"},
        {"turn": 1, "phase": 1, "phase_turn": 0, "mission": "synthesize", "kind": "tool-call"}]


def test_a39_missions_do_not_share_state():
    cfg = {"phases": [{"mission": "explore", "max_turns": 1}, {"mission": "synthesize", "max_turns": 1}]}
    out, provider, _ = run_entry("run-phased-result-value", calls("(def found 1)", "(return found)"), cfg,
                                 missions=two_missions())
    assert not out.ok
    assert out.error.details["limit_reason"] == "evaluation_error"


def test_a40_return_in_an_earlier_phase_moves_on():
    cfg = {"phases": [{"mission": "explore", "max_turns": 2}, {"mission": "synthesize", "max_turns": 1}]}
    out, provider, _ = run_entry("run-phased-result-value", calls("(return 41)", "(return 42)"), cfg,
                                 missions=two_missions())
    assert out.value == 42
    assert len(provider.requests) == 2
    assert "user=> 41" in tool_messages(provider.requests[1])[-1]


def test_a41_phase_budget_notices():
    missions = {n: Mission() for n in ("one", "two", "three")}
    cfg = {"phases": [{"mission": n, "max_turns": 1} for n in ("one", "two", "three")]}
    out, provider, _ = run_entry("run-phased-result-value", calls("(return 1)", "(return 2)", "(return 3)"), cfg,
                                 missions=missions)
    assert out.value == 3
    middle, last = provider.requests[1]["messages"][-1]["content"], provider.requests[2]["messages"][-1]["content"]
    assert "FINAL PHASE TURN" in middle and "FINAL TURN:" not in middle and "PHASE BUDGET" in middle
    assert "FINAL TURN:" in last
    assert "PHASE BUDGET" in provider.requests[0]["messages"][0]["content"]


def test_a42_terminal_only_rejects_before_evaluation():
    cfg = {"phases": [{"mission": "default", "max_turns": 2, "terminal_only": True,
                       "instruction": "Answer in one form."}]}
    out, provider, _ = run_entry("run-phased-result-value",
                                 calls('(doc "helper that would (return 42)")', "(return 42)"), cfg)
    assert out.value == 42
    assert out.usage["subordinate_evaluations"] == 1
    first = provider.requests[0]
    assert "Answer in one form." in first["messages"][0]["content"]
    assert "terminal-only" in first["system"]
    feedback = tool_messages(provider.requests[1])[-1]
    assert "terminal-only" in feedback and "rejected" in feedback and "diagnostic=" in feedback


def test_a42_terminal_only_exhaustion():
    cfg = {"phases": [{"mission": "default", "max_turns": 2, "terminal_only": True}]}
    out, _, _ = run_entry("run-phased-result-value", calls("(+ 1 2)", "(def x 1) (return x)"), cfg)
    assert out.error.reason == "runtime_limit_exceeded"
    assert out.error.details["limit_reason"] == "terminal_source_required"
    assert out.usage["subordinate_evaluations"] == 0


@pytest.mark.parametrize("phases", [
    [{"mission": "default", "max_turns": 1, "terminal_only": True}, {"mission": "default", "max_turns": 1}],
    [],
    [{"mission": "", "max_turns": 1}],
    [{"mission": "default", "max_turns": 100}, {"mission": "default", "max_turns": 29}],
    [{"mission": "default", "max_turns": 1, "instruction": " "}],
    [{"mission": "default", "max_turns": 1}] * 9,
])
def test_a42_invalid_phases(phases):
    out, provider, _ = run_entry("run-phased-result-value", calls("(return 1)"), {"phases": phases})
    assert out.error.details == {"failure_kind": "invalid-agent-config", "failure_reason": "invalid-phases"}
    assert provider.requests == []
