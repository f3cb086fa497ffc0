"""Mission programs compile through ptclisp.pipeline as every other program does (the size gate and
the symbol budget apply to evaluations and to source checks alike), and a value a mission program
ends with is projected to JSON once."""
from __future__ import annotations

import pytest

from ptclisp.agent import AgentLimits, Mission, MissionSession
from ptclisp.agent import mission as mission_module
from ptclisp.values import Keyword

WIDE = "[a b c d e f g]"   # seven distinct symbols


def session(**limits) -> MissionSession:
    return MissionSession("m", Mission(), AgentLimits(**limits), lambda: {})


def test_a_mission_evaluation_hits_the_symbol_budget():
    ev = session(max_symbols=5).eval(WIDE)
    assert (ev.outcome, ev.kind) == ("evaluation_error", "symbol_limit_exceeded")
    assert "7 distinct symbols" in ev.details["message"]


def test_a_mission_source_check_hits_the_symbol_budget():
    # (the check read and analyzed on its own and skipped the budget the evaluation applies)
    res = session(max_symbols=5).check(WIDE)
    assert res["outcome"] == "invalid" and res["diagnostic"]["kind"] == "symbol_limit_exceeded"
    assert session().check("(+ 1 2)")["outcome"] == "valid"


def test_a_mission_source_check_hits_the_size_gate():
    res = session(max_program_bytes=8).check("(+ 1 2 3 4)")
    assert res["outcome"] == "invalid" and res["diagnostic"]["kind"] == "program_too_large"


def test_the_terminal_requirement_is_checked_between_reading_and_analysis():
    s = session()
    res = s.check("(+ 1 2)", require_terminal=True)
    assert res["diagnostic"]["kind"] == "terminal_source_required"
    assert s.check("(return (nope))", require_terminal=True)["diagnostic"]["kind"] == "unbound_var"
    assert s.check("(return 1)", require_terminal=True)["outcome"] == "valid"


@pytest.mark.parametrize("source,outcome", [("(return {:a #{1}})", "returned"), ("(fail {:a #{1}})", "failed")])
def test_a_terminal_value_is_projected_to_json_once(monkeypatch, source, outcome):
    calls = []
    real = mission_module.try_project
    monkeypatch.setattr(mission_module, "try_project", lambda v: calls.append(v) or real(v))
    ev = session().eval(source)
    assert ev.outcome == outcome and len(calls) == 1
    # the evaluation carries the JSON form read back as Lisp data (keys are strings, sets vectors)
    lisp = ev.to_lisp()
    assert lisp.lookup(Keyword("value")).lookup("a").lst() == [1]


def test_a_returned_value_over_the_terminal_ceiling_is_refused_from_the_same_projection(monkeypatch):
    calls = []
    real = mission_module.try_project
    monkeypatch.setattr(mission_module, "try_project", lambda v: calls.append(v) or real(v))
    s = session(terminal_result_bytes=10)
    ev = s.eval('(def kept 1) (return (apply str (map (fn [_] "x") (range 20))))')
    assert (ev.outcome, ev.reason, ev.details["limit_value"]) == ("result_exceeded", "terminal_result_bytes", 10)
    assert len(calls) == 1 and s.definitions == {}
