"""Where `ptclisp.run` evaluates: the `isolation` argument and `Limits.isolation` are one setting,
decided once in api.run; an explicit argument wins over the limits' when both are given."""
from __future__ import annotations

import pytest

import ptclisp
from ptclisp import api
from ptclisp.isolation import process
from ptclisp.runtime.meter import Limits

THREAD, PROCESS = "thread", "process"


@pytest.fixture
def where(monkeypatch):
    """Record which runner each run is handed to (both still run the program)."""
    seen = []
    real_thread, real_process = api.run_once, process.run_in_process

    def on_thread(*a):
        seen.append(THREAD)
        return real_thread(*a)

    def in_process(*a):
        seen.append(PROCESS)
        return real_thread(*a)   # (the decision is under test here; real process runs are below)
    monkeypatch.setattr(api, "run_once", on_thread)
    monkeypatch.setattr(process, "run_in_process", in_process)
    return seen


@pytest.mark.parametrize("argument", [None, THREAD, PROCESS])
@pytest.mark.parametrize("limits", [None, Limits(), Limits(isolation=THREAD), Limits(isolation=PROCESS),
                                    {"isolation": PROCESS}, {"isolation": THREAD}])
def test_every_combination_is_decided_one_way(where, argument, limits):
    r = ptclisp.run("(+ 1 2)", limits=limits, isolation=argument)
    assert (r.status, r.value, r.error) == ("ok", 3, None)
    from_limits = (limits.isolation if isinstance(limits, Limits) else (limits or {}).get("isolation")) or THREAD
    assert where == [argument or from_limits]


@pytest.mark.parametrize("limits", [None, Limits(isolation=PROCESS)])
def test_an_unknown_isolation_is_a_type_error(where, limits):
    r = ptclisp.run("(+ 1 2)", limits=limits, isolation="fiber")
    assert (r.status, r.error.kind, r.error.message) == \
        ("error", "type_error", "isolation must be 'thread' or 'process', got 'fiber'")
    assert where == []


def test_an_unknown_isolation_in_limits_is_a_type_error():
    r = ptclisp.run("(+ 1 2)", limits={"isolation": "fiber"})
    assert r.status == "error" and r.error.kind == "type_error" and "isolation must be 'thread' or 'process'" \
        in r.error.message


def test_the_argument_thread_wins_over_process_limits_for_real():
    # (this answered a type_error saying isolation='process' is available for ptclisp.run)
    r = ptclisp.run("(+ 1 2)", isolation=THREAD, limits=Limits(isolation=PROCESS))
    assert (r.status, r.value) == ("ok", 3)


def test_the_argument_process_wins_over_thread_limits_for_real():
    r = ptclisp.run("(count (str (range 10)))", isolation=PROCESS, limits=Limits(isolation=THREAD))
    assert (r.status, r.value) == ("ok", 21)


def test_a_session_still_refuses_process_limits():
    s = ptclisp.Session()
    r = s.eval("(+ 1 2)", limits=Limits(isolation=PROCESS))
    assert (r.status, r.error.kind) == ("error", "type_error")
    assert r.error.message == "a Session evaluates in this process; isolation='process' is available for ptclisp.run"
