"""`ptclisp.host.tools.time_left` / `check_stop`: how a tool that waits stays within the evaluation's limits."""
import time

import ptclisp
from ptclisp import Limits
from ptclisp.host.tools import check_stop, time_left


def test_outside_an_evaluation_nothing_bounds_a_call():
    assert time_left() is None
    check_stop()  # does not raise


def test_time_left_is_the_evaluations_deadline():
    seen = []
    r = ptclisp.run("(tool/t {})", tools={"t": lambda a: seen.append(time_left()) or 1},
                    limits=Limits(timeout_ms=2000))
    assert r.status == "ok", r.error
    assert 0 < seen[0] <= 2.0


def test_time_left_without_a_timeout_is_none():
    seen = []
    r = ptclisp.run("(tool/t {})", tools={"t": lambda a: seen.append(time_left()) or 1},
                    limits=Limits(timeout_ms=None))
    assert r.status == "ok", r.error
    assert seen == [None]


def test_a_pmap_worker_sees_the_earlier_parallel_deadline():
    seen = []
    r = ptclisp.run("(pmap #(tool/t {:x %}) [1 2])", tools={"t": lambda a: seen.append(time_left()) or 1},
                    limits=Limits(timeout_ms=20_000, pmap_timeout_ms=500))
    assert r.status == "ok", r.error
    assert len(seen) == 2 and all(0 < s <= 0.5 for s in seen)


def _waiter(args):
    while True:  # a tool that waits in slices and asks whether to go on
        check_stop()
        time.sleep(0.005)


def test_check_stop_raises_the_timeout_once_the_deadline_passed():
    r = ptclisp.run("(do (tool/wait {}) 1)", tools={"wait": _waiter}, limits=Limits(timeout_ms=150))
    assert r.status == "error"
    assert r.error.kind == "timeout"
    assert (r.error.span.line, r.error.span.col) == (1, 5)


def _boom(args):
    raise ptclisp.PtcError("tool_error", "boom")


def test_check_stop_raises_when_a_sibling_worker_failed():
    r = ptclisp.run("(pmap (fn [i] (if (= i 0) (tool/boom {}) (tool/wait {}))) [0 1])",
                    tools={"wait": _waiter, "boom": _boom}, limits=Limits(timeout_ms=20_000))
    assert r.status == "error"
    assert r.error.kind == "pmap_error"
    assert "boom" in r.error.message
