"""ptclisp.pipeline: compiling a program (size gate, read, symbol budget, analyze, build, the program
cache) and running it as a transaction; and that it is the one place outside the analyzer that makes
an Analyzer."""
from __future__ import annotations

import os
import re
import threading

import pytest

import ptclisp
from ptclisp import pipeline
from ptclisp.analyzer import Env
from ptclisp.errors import PtcError
from ptclisp.runtime.meter import Limits
from ptclisp.session import Environment

PKG = os.path.dirname(os.path.abspath(ptclisp.__file__))


def test_read_program_gates_size_and_symbols():
    with pytest.raises(PtcError) as e:
        pipeline.read_program("(+ 1 2)", Limits(max_program_bytes=3))
    assert e.value.kind == "program_too_large"
    with pytest.raises(PtcError) as e:
        pipeline.read_program("[a b c d e f]", Limits(max_symbols=5))
    assert e.value.kind == "symbol_limit_exceeded" and "6 distinct symbols" in e.value.message
    forms, may_define = pipeline.read_program("(defn f [] 1)", Limits(), defining=True)
    assert len(forms) == 1 and may_define is True
    assert pipeline.read_program("(+ 1 2)", Limits(), defining=True)[1] is False


def test_a_read_error_keeps_its_position():
    with pytest.raises(PtcError) as e:
        pipeline.read_program("(+ 1\n  [2", Limits())
    assert e.value.kind == "parse_error" and e.value.span is not None and e.value.span.line == 2


def test_check_program_analyzes_without_running():
    env = Environment()
    # analysed (an unbound name is found) but never run (the division by zero is not)
    with pytest.raises(PtcError) as e:
        pipeline.check_program("(nope 1)", env.analyzer_env())
    assert e.value.kind == "unbound_var"
    assert len(pipeline.check_program("(/ 1 0)", env.analyzer_env())) == 1
    seen = []
    pipeline.check_program("(+ 1 2) 3", Env(), Limits(), seen.append)
    assert len(seen) == 1 and len(seen[0]) == 2


def test_check_program_applies_the_symbol_budget():
    with pytest.raises(PtcError) as e:
        pipeline.check_program("[a b c d e f]", Env(), Limits(max_symbols=5))
    assert e.value.kind == "symbol_limit_exceeded"


@pytest.mark.parametrize("backend", pipeline.BACKENDS)
def test_analyze_and_build_run_in_an_environment(backend):
    env = Environment()
    node, refs = pipeline.analyze("(let [x 20] (+ x 22))", env.analyzer_env(), Limits())
    meter = pipeline.Meter(Limits())
    env.globals["_m"] = meter
    assert pipeline.build(node, refs, env.globals, backend)() == 42


def test_defined_names_follows_the_analyzer():
    forms = pipeline.read_program("(def a 1) (defn b [] 2) (let [c 3] c)", Limits())
    assert pipeline.defined_names(forms) == {"a", "b"}


def test_program_cache_keeps_a_program_the_second_time_its_text_comes():
    env = Environment()
    for _ in range(2):
        assert pipeline.evaluate(env, "(+ 1 2)").value == 3
    assert len(env.programs.entries) == 1
    main = next(iter(env.programs.entries.values()))
    pipeline.evaluate(env, "(+ 1 2)")
    assert next(iter(env.programs.entries.values())) is main


def test_an_environment_without_a_cache_shares_the_disabled_one():
    env = Environment(program_cache=False)
    assert env.programs is pipeline.NO_PROGRAMS and not env.programs.enabled
    for _ in range(3):
        assert pipeline.evaluate(env, "(+ 1 2)").value == 3
    assert not pipeline.NO_PROGRAMS.entries and not pipeline.NO_PROGRAMS.seen


def test_transact_commits_on_success_and_rolls_back_on_failure():
    env = Environment()
    assert pipeline.transact(env, "(def a 1) a", Limits()).value == 1
    r = pipeline.transact(env, "(def a 2) (def b 3) (+ {} 1)", Limits())
    assert r.status == "error" and r.error.kind == "type_error"
    assert dict(zip(env.ns.keys(), env.ns.values())) == {"a": 1} and env.history == [1]


def test_admit_may_refuse_a_commit():
    env = Environment()

    def admit(status, value):
        raise PtcError("memory_exceeded", "refused")
    r = pipeline.transact(env, "(def a 1) a", Limits(), admit=admit)
    assert (r.status, r.error.kind, r.error.message) == ("error", "memory_exceeded", "refused")
    assert not list(env.ns.keys()) and env.history == []


def test_evaluate_refuses_a_second_evaluation_of_a_busy_environment():
    env = Environment()
    env.busy.acquire()
    try:
        r = pipeline.evaluate(env, "(+ 1 2)")
    finally:
        env.busy.release()
    assert r.status == "error" and r.error.kind == "runtime_error" and r.error.details == {"reason": "session_busy"}
    assert r.error.message == pipeline.BUSY_MESSAGE


def test_the_compile_budget_is_cleared_once_the_program_is_built():
    env = Environment()
    meter = pipeline.Meter(Limits(compile_timeout_ms=5000))
    pipeline.program(env, "(+ 1 2)", meter.limits, meter, "tiered")
    assert meter.compiling is None


def test_one_module_outside_the_analyzer_constructs_an_analyzer():
    makers = set()
    for root, _, files in os.walk(PKG):
        rel_root = os.path.relpath(root, PKG)
        if rel_root.split(os.sep)[0] == "analyzer":
            continue
        for f in files:
            if f.endswith(".py"):
                path = os.path.join(root, f)
                with open(path, encoding="utf-8") as fh:
                    if re.search(r"(?<![\w.])Analyzer\(", fh.read()):
                        makers.add(os.path.relpath(path, PKG))
    assert makers == {"pipeline.py"}


def test_sessions_runs_and_missions_all_compile_through_the_pipeline(monkeypatch):
    from ptclisp.agent import AgentLimits, Mission, MissionSession
    calls = []
    real = pipeline.read_program
    monkeypatch.setattr(pipeline, "read_program", lambda *a, **k: calls.append(a[0]) or real(*a, **k))
    ptclisp.run("(+ 1 1)")
    ptclisp.Session(program_cache=False).eval("(+ 1 2)")
    MissionSession("m", Mission(), AgentLimits(), lambda: {}).eval("(+ 1 3)")
    assert calls == ["(+ 1 1)", "(+ 1 2)", "(+ 1 3)"]


def test_a_one_shot_run_is_not_held_back_by_another_thread():
    # a one-shot run has the only handle on its environment: runs on two threads never see each other busy
    out = []
    ts = [threading.Thread(target=lambda: out.append(ptclisp.run("(reduce + (range 1000))").value)) for _ in range(4)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    assert out == [499500] * 4
