"""The recursion budget counts the stack as walking every frame would (`guards._stack_depth`,
which skips the first frames in one step)."""
import sys
import threading

import pytest

import ptclisp
from ptclisp.runtime import guards


def _walked():
    """What `_Depth.enter` used to count when called from here: frames from our caller down."""
    f = sys._getframe(1)
    depth = 0
    while f is not None:
        depth += 1
        f = f.f_back
    return depth


def _enter_like():
    # the same distance from `_stack_depth` as `_Depth.enter`'s caller
    return _enter_inner()


def _enter_inner():
    return guards._stack_depth(), _walked_from_caller_of_enter()


def _walked_from_caller_of_enter():
    f = sys._getframe(2)   # _enter_like, as `_stack_depth` sees enter's caller
    depth = 0
    while f is not None:
        depth += 1
        f = f.f_back
    return depth


def _at(n, fn):
    return fn() if n == 0 else _at(n - 1, fn)


@pytest.mark.parametrize("extra", [0, 1, 2, 5, 6, 7, 8, 20, 100])
def test_stack_depth_matches_walk(extra):
    got, walked = _at(extra, _enter_like)
    assert got == walked


def test_stack_depth_on_a_shallow_thread_stack():
    out = []
    t = threading.Thread(target=lambda: out.append(_enter_like()))
    t.start()
    t.join()
    got, walked = out[0]
    assert got == walked


def test_deep_host_stack_keeps_the_budget():
    # a host calling from deep in its own stack: the evaluation still gets its frames of room
    def deep(n):
        return ptclisp.run("(defn f [n] (if (= n 0) 0 (inc (f (dec n))))) (f 800)") if n == 0 else deep(n - 1)
    limit = sys.getrecursionlimit()
    r = deep(300)
    assert r.ok and r.value == 800
    assert sys.getrecursionlimit() == limit


def test_stack_depth_matches_walk_when_called_again_from_the_same_or_another_depth():
    # the count found last time is checked first: it must be taken only when it is still exact
    for extra in [3, 3, 3, 10, 10, 2, 2, 40, 0, 0, 40, 9, 8, 9]:
        got, walked = _at(extra, _enter_like)
        assert got == walked, extra
    out = []

    def worker():
        for extra in [5, 5, 1, 30, 30]:
            out.append(_at(extra, _enter_like))
    threads = [threading.Thread(target=worker) for _ in range(3)]
    for t in threads:
        t.start()
    for extra in [5, 30, 1, 1]:
        out.append(_at(extra, _enter_like))
    for t in threads:
        t.join()
    assert all(got == walked for got, walked in out)
