"""How firmly an evaluation is held to its limits: in-thread guards and the process option.

Two levels (docs/security.md explains the trade-off):

* ``isolation="thread"`` (the default): the evaluation runs on the caller's
  thread. Limits are metered cooperatively (meter.py): compiled code checks
  the deadline flag at every function entry and loop back-edge, builtins
  charge their allocations before building. `guard()` adds two backstops:

  - a **hard stop**: a program still running a grace period after its
    deadline (say, stuck inside a builtin that loops without checking the
    clock) gets a `HardStop` exception raised asynchronously in its thread
    and in its parallel workers. It is only delivered while the thread is
    executing PTC code or builtins (generated code, interp.py, ptclisp/lib),
    never inside host tool code, the value model or the evaluator's own
    bookkeeping, so no shared state is left half-updated.
  - a **recursion budget**: `Limits.recursion_limit` Python frames above the
    point where the evaluation starts. CPython's recursion limit is
    process-wide, so while evaluations overlap in several threads the
    interpreter limit is the largest any of them needs.

* ``isolation="process"``: `run_in_process` evaluates in a child process
  (from a fork server that has ptclisp loaded) under OS limits: RLIMIT_AS
  bounds its address space and RLIMIT_CPU its CPU time, and the parent kills
  it when the wall-clock budget is gone. Tools keep running in the host
  process; the child reaches them through a pipe.

Imports meter, errors (and, lazily, the evaluator side of ptclisp).
"""
from __future__ import annotations

import ctypes
import os
import sys
import threading
import time

from .errors import PtcError

# ------------------------------------------------------------------ hard stop


class HardStop(BaseException):
    """Raised asynchronously into a thread whose evaluation overran its deadline.

    A BaseException so that host-style `except Exception` blocks inside
    builtins do not swallow it; the evaluator turns it into `timeout`.
    """


_PKG = os.path.dirname(os.path.abspath(__file__))
_LIB = os.path.join(_PKG, "lib") + os.sep
_INTERP = os.path.join(_PKG, "interp.py")
_GENERATED = "<ptc>"

_set_async_exc = ctypes.pythonapi.PyThreadState_SetAsyncExc
_set_async_exc.argtypes = (ctypes.c_ulong, ctypes.py_object)
_set_async_exc.restype = ctypes.c_int


def _interruptible(frame) -> bool:
    """May an exception be raised in the thread whose innermost frame is `frame`?

    Only PTC code and builtins qualify; they keep no shared state that an
    exception between two statements could leave inconsistent.
    """
    if frame is None:
        return False
    fn = frame.f_code.co_filename
    return fn == _GENERATED or fn.startswith(_LIB) or fn == _INTERP


class _Entry:
    __slots__ = ("meter", "overdue_at", "delivered")

    def __init__(self, meter):
        self.meter = meter
        self.overdue_at = None
        self.delivered = False


def _grace_s(meter) -> float:
    ms = meter.limits.timeout_ms or 1000
    return min(0.5, max(0.02, ms / 4000.0))


class _Enforcer:
    """Registry of threads running evaluations, and the thread that hard-stops overdue ones."""

    POLL_S = 0.05

    def __init__(self):
        self._cond = threading.Condition()
        self._armed: dict[int, _Entry] = {}
        self._thread = None
        self.delivered = 0  # how many hard stops were raised (tests, reports)

    def arm(self, tid: int, meter):
        with self._cond:
            self._armed.setdefault(tid, []).append(_Entry(meter))  # a stack: evaluations may nest
            if self._thread is None:
                self._thread = threading.Thread(target=self._run, name="ptclisp-hardstop", daemon=True)
                self._thread.start()
            elif len(self._armed) == 1:
                self._cond.notify()

    def disarm(self, tid: int):
        with self._cond:
            stack = self._armed.get(tid)
            if not stack:
                return
            e = stack.pop()
            if not stack:
                del self._armed[tid]
            if e.delivered:
                _set_async_exc(tid, ctypes.py_object())  # clear it if it is still pending

    def _run(self):
        with self._cond:
            while True:
                if not self._armed:
                    self._cond.wait()
                    continue
                now = time.monotonic()
                wait = self.POLL_S
                frames = None
                for tid, e in [(t, e) for t, st in self._armed.items() for e in st]:
                    m = e.meter
                    if e.delivered:
                        continue
                    if not m.expired:
                        if m.deadline is not None:
                            wait = min(wait, max(0.001, m.deadline + _grace_s(m) - now))
                        continue
                    if e.overdue_at is None:
                        e.overdue_at = min(now, m.deadline) if m.deadline is not None else now
                    if now - e.overdue_at < _grace_s(m):
                        wait = min(wait, e.overdue_at + _grace_s(m) - now)
                        continue
                    if frames is None:
                        frames = sys._current_frames()
                    if _interruptible(frames.get(tid)):
                        if _set_async_exc(tid, HardStop) == 1:
                            for other in self._armed.get(tid, ()):
                                other.delivered = True  # one exception unwinds every level
                            self.delivered += 1
                    else:
                        wait = 0.001  # try again in a moment
                frames = None
                self._cond.wait(max(0.001, wait))


ENFORCER = _Enforcer()


# ------------------------------------------------------------------ recursion budget

BASE_RECURSION_LIMIT = max(sys.getrecursionlimit(), 6000)
MAX_RECURSION_LIMIT = 30_000  # frames; keeps C-level recursion far from the end of an 8 MB thread stack


class _Depth:
    """The process-wide interpreter recursion limit, as the largest need of the running evaluations."""

    def __init__(self):
        self._lock = threading.Lock()
        self._needs: dict[int, list] = {}

    def enter(self, tid: int, frames: int) -> int:
        need = _depth_here() + min(max(frames, 50), MAX_RECURSION_LIMIT)
        with self._lock:
            self._needs.setdefault(tid, []).append(need)
            self._apply()
        return need

    def exit(self, tid: int):
        with self._lock:
            stack = self._needs.get(tid)
            if stack:
                stack.pop()
                if not stack:
                    del self._needs[tid]
            self._apply()

    def _apply(self):
        needs = [n for st in self._needs.values() for n in st]
        limit = max(needs) if needs else BASE_RECURSION_LIMIT
        try:
            sys.setrecursionlimit(limit)
        except RecursionError:  # this thread is already deeper than that: keep the current limit
            pass


def _depth_here() -> int:
    f = sys._getframe(1)
    n = 0
    while f is not None:
        n += 1
        f = f.f_back
    return n


DEPTH = _Depth()


class guard:
    """Context manager around running an evaluation's code on this thread: hard stop + recursion budget."""

    __slots__ = ("meter", "tid", "depth")

    def __init__(self, meter, depth: bool = True):
        self.meter = meter
        self.tid = threading.get_ident()
        self.depth = depth

    def __enter__(self):
        if self.depth:
            DEPTH.enter(self.tid, self.meter.limits.recursion_limit)
        ENFORCER.arm(self.tid, self.meter)
        return self

    def __exit__(self, *exc):
        try:
            ENFORCER.disarm(self.tid)
        except HardStop:  # delivered just as the code finished: it is consumed now
            ENFORCER.disarm(self.tid)
        if self.depth:
            DEPTH.exit(self.tid)
        return False


def hard_stop_error(meter=None) -> PtcError:
    ms = meter.limits.timeout_ms if meter is not None else None
    return PtcError("timeout", f"evaluation exceeded its time limit{f' of {ms} ms' if ms else ''} "
                               f"and was stopped", details={"timeout_ms": ms, "phase": "eval", "hard_stop": True})


# ------------------------------------------------------------------ result size

def result_bytes(value, cap: int) -> int:
    """About how many bytes the printed form of `value` takes; stops counting once past `cap`."""
    from .values import Keyword, Map, Set, Vector
    total = 0
    stack = [value]
    while stack:
        x = stack.pop()
        t = type(x)
        if x is None or t is bool:
            total += 5
        elif t is int:
            total += x.bit_length() * 30103 // 100000 + 2
        elif t is float:
            total += 20
        elif t is str:
            total += len(x) + 2
        elif t is Keyword:
            total += len(x.name) + 1
        elif t is Vector:
            items = x.lst()
            total += 2 + len(items)
            stack.extend(items)
        elif t is Map:
            d = x.d()
            total += 2 + 2 * len(d)
            for k, v in x.items():
                stack.append(k)
                stack.append(v)
        elif t is Set:
            members = x.members()
            total += 3 + len(members)
            stack.extend(members)
        else:
            total += 16
        if total > cap:
            return total
    return total


def check_result_size(value, limits):
    """Raise `runtime_limit_exceeded` when the value an evaluation returns is larger than `max_result_bytes`."""
    cap = limits.max_result_bytes
    if cap is None:
        return
    size = result_bytes(value, cap)
    if size > cap:
        raise PtcError("runtime_limit_exceeded", f"the result is larger than the limit of {cap} bytes "
                                                 f"(max_result_bytes); return a summary or a smaller slice",
                       details={"limit": "max_result_bytes", "value": cap})
