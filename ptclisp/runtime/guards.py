"""Guards that hold an in-thread evaluation to its limits, and the size estimates used at boundaries.

Limits are metered cooperatively (meter.py): compiled code checks the
deadline flag at every function entry and every 256th loop back-edge, builtins charge
their allocations before building. `guard()` adds two backstops
(docs/security.md explains the trade-off):

- a **hard stop**: a program still running a grace period after its
  deadline (say, stuck inside a builtin that loops without checking the
  clock) gets a `HardStop` exception raised asynchronously in its thread
  and in its parallel workers. It is only delivered while the thread is
  executing PTC code or builtins (generated code, backends/closures.py, ptclisp/lib,
  the read-only part of ptclisp.values (text.py and preview.py print), a few pure stdlib
  modules) and no in-place extension of a value is on the stack: never
  inside host tool code or the guards' own bookkeeping, so no shared state
  is left half-updated (`_interruptible`).
- a **recursion budget**: `Limits.recursion_limit` Python frames above the
  point where the evaluation starts. CPython's recursion limit is
  process-wide, so while evaluations overlap in several threads the
  interpreter limit is the largest any of them needs; when none runs it
  is the host's own value again.

Also here: the size estimates used at boundaries (`result_bytes` for
`max_result_bytes`, `retained_bytes` for tool results). The process option
(`isolation="process"`) is ptclisp.isolation.process, at the top beside the API.
Imports errors, values and meter.
"""
from __future__ import annotations

import ctypes
import gc as _gc
import os
import sys
import threading
import time
from threading import get_ident as _get_ident

from .. import values as _values_module
from ..errors import PTC_FILENAME, PtcError

# ------------------------------------------------------------------ hard stop


class HardStop(BaseException):
    """Raised asynchronously into a thread whose evaluation overran its deadline.

    A BaseException so that host-style `except Exception` blocks inside
    builtins do not swallow it; `runtime.failures.to_ptc_error` turns it into `timeout`.
    """


def _source_prefixes(module) -> tuple[str, ...]:
    """What the code objects of `module` give as their file: its file, or (a package) its directory."""
    if hasattr(module, "__path__"):
        return tuple(os.path.join(os.path.abspath(p), "") for p in module.__path__)
    return (os.path.abspath(module.__file__),)


_PKG = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))  # the ptclisp package


def package_file(*parts: str) -> str:
    """The path of a file or folder of the ptclisp package that some code recognises by file (the
    hard stop here, the error translator in runtime.failures); a module that moved fails at import,
    since a stale path would silently change which frames count as what."""
    path = os.path.join(_PKG, *parts)
    if not os.path.exists(path):
        raise ImportError(f"ptclisp: no module {os.path.join(*parts)} in {_PKG}")
    return path


_LIB = package_file("lib") + os.sep
_INTERP = package_file("backends", "closures.py")
_VALUES = _source_prefixes(_values_module)
# rendering only reads: the values modules that print and preview
_PRINTER = (package_file("values", "text.py"), package_file("values", "preview.py"))
# a tool call in progress; the guards themselves; the process runner (an isolated child is held by its
# OS limits and the parent's clock)
_NEVER_UNDER = (package_file("host", "tools.py"), package_file("runtime", "guards.py"),
                package_file("isolation", "process.py"))
# functions of ptclisp.values that only read (or build new objects), by qualified name: the in-place
# extensions (Vector.conj, Map.assoc, ...) and the lazy rebuild of stale views are left out
_VALUES_SAFE = frozenset({
    "hk", "unhk", "equal", "compare", "_kind_rank", "_kw_name_ok", "is_fn", "is_number", "type_name", "truthy",
    "utf16_key", "total_order_key", "sorted_items", "sorted_members",
    "Keyword.__new__", "Keyword.__call__", "JavaObject.sort_key", "Regex.__init__",
    "SymbolRef.__init__", "SymbolRef.__eq__", "SymbolRef.__hash__",
    "VarRef.__init__", "VarRef.__eq__", "VarRef.__hash__",
    "_FloatKey.__init__", "_FloatKey.__eq__", "_FloatKey.__hash__",
    "_BoolKey.__init__", "_BoolKey.__eq__", "_BoolKey.__hash__",
    "SortKey.__init__", "SortKey.__lt__",
    "Vector.__init__", "Vector.lst", "Vector.__len__", "Vector.__iter__", "Vector.__getitem__", "Vector.__call__",
    "Vector.__eq__", "Vector.__hash__",
    "Map.from_pairs", "Map.d", "Map.items", "Map.keys", "Map.values", "Map.get_exact",
    "Map.lookup", "Map.find_key", "Map.__call__", "Map.__eq__", "Map.__ne__", "Map.__hash__", "_map_hash",
    "Set.__init__", "Set.of", "Set.d", "Set.__len__", "Set.__iter__", "Set.members", "Set.contains", "Set.__call__",
    "Set.__eq__", "Set.__hash__",
})


def _check_values_safe():
    """Every name in `_VALUES_SAFE` must be a function of ptclisp.values: a renamed one fails here, at import,
    rather than silently making its frames unsafe."""
    found = set()
    for name, mod in list(sys.modules.items()):
        if name != _values_module.__name__ and not name.startswith(_values_module.__name__ + "."):
            continue
        for obj in list(vars(mod).values()):
            members = vars(obj).values() if isinstance(obj, type) else (obj,)
            for m in members:
                code = getattr(getattr(m, "__func__", m), "__code__", None)
                if code is not None and code.co_filename.startswith(_VALUES):
                    found.add(code.co_qualname)
    missing = _VALUES_SAFE - found
    if missing:
        raise ImportError(f"guards: not functions of ptclisp.values: {', '.join(sorted(missing))}")


_check_values_safe()
# standard-library modules builtins call into that work only on the objects they are given
_STDLIB = os.path.dirname(os.__file__) + os.sep
_STDLIB_SAFE = tuple(_STDLIB + m for m in (
    "collections" + os.sep + "__init__.py", "functools.py", "statistics.py", "bisect.py", "heapq.py",
    "fractions.py", "string.py", "textwrap.py", "json" + os.sep,
))

_set_async_exc = ctypes.pythonapi.PyThreadState_SetAsyncExc
_NO_EXC = ctypes.py_object()  # what clears a pending asynchronous exception (made once: no call in disarm)
_set_async_exc.argtypes = (ctypes.c_ulong, ctypes.py_object)
_set_async_exc.restype = ctypes.c_int


def _interruptible(frame) -> bool:
    """May an exception be raised in the thread whose innermost frame is `frame`?

    Only PTC code, builtins and what they call that keeps no shared state an
    exception between two statements could leave inconsistent.
    """
    if frame is None:
        return False
    code = frame.f_code
    fn = code.co_filename
    if fn in _PRINTER:
        ok = True
    elif fn.startswith(_VALUES):
        ok = code.co_qualname in _VALUES_SAFE
    else:
        ok = fn == PTC_FILENAME or fn.startswith(_LIB) or fn == _INTERP or fn.startswith(_STDLIB_SAFE)
    if not ok:
        return False
    f = frame.f_back  # nothing below may be halfway through extending a value, or inside a tool call
    while f is not None:
        c = f.f_code
        if (c.co_filename.startswith(_VALUES) and c.co_filename not in _PRINTER and c.co_qualname not in _VALUES_SAFE) \
                or c.co_filename in _NEVER_UNDER:
            return False
        f = f.f_back
    return True


class _frames_held:
    """Context manager around reading other threads' frames (`sys._current_frames`, `f_back`).

    Reading another thread's frame makes a frame object for it. On CPython 3.11 making any object can
    run a garbage collection on the spot, and a collection can run finalizers that let the other
    thread go on: it may return from that very frame and free the memory it lived in, which the
    reader then uses (a segmentation fault; 3.12 moved collections to the interpreter's own check
    points). So on 3.11 the collector is paused while frames are read, when it was enabled, and
    enabled again after: a few microseconds per look, and only at an overdue evaluation.
    """

    __slots__ = ("paused",)

    def __enter__(self):
        self.paused = _PAUSE_COLLECTOR and _gc.isenabled()
        if self.paused:
            _gc.disable()
        return self

    def __exit__(self, *exc):
        if self.paused:
            _gc.enable()
        return False


_PAUSE_COLLECTOR = sys.version_info < (3, 12)


#: How far past its deadline plus grace period an evaluation may end and still count as stopped in time
#: (the hard stop looks at an overdue thread every few milliseconds, at most `_Enforcer.POLL_S` apart).
LATE_TOLERANCE_S = 0.1


def late_ms(meter, now: float) -> int | None:
    """How many milliseconds after its deadline plus grace period an evaluation that ends at `now`
    ended, when that is more than LATE_TOLERANCE_S: it could not be stopped in time (stuck in an
    operation that cannot be interrupted); None otherwise."""
    d = meter.deadline
    if d is None:
        return None
    late = now - d - grace_s(meter)
    return round(late * 1000) if late > LATE_TOLERANCE_S else None


# an armed evaluation: [meter, when it was found overdue (or None), whether a hard stop was delivered]
_METER, _OVERDUE_AT, _DELIVERED = 0, 1, 2


def grace_s(meter) -> float:
    """How long past its deadline an evaluation may run before it is stopped from outside: a quarter
    of its budget, between 20 ms and 500 ms (the hard stop here; an abandoned tool call, tool_runner.py)."""
    ms = meter.limits.timeout_ms or 1000
    return min(0.5, max(0.02, ms / 4000.0))


class _Enforcer:
    """Registry of threads running evaluations, and the thread that hard-stops overdue ones.

    Arming is a dictionary update (no lock, no wake-up): the enforcer thread
    polls, every `POLL_S` while something is armed and every `IDLE_S`
    otherwise, so an evaluation costs about a microsecond here. Disarming
    and delivering share one lock, so an exception is never raised into a
    thread that has already left its evaluation.
    """

    POLL_S = 0.05
    IDLE_S = 0.1

    def __init__(self):
        self._lock = threading.Lock()
        self._wake = threading.Event()
        self._armed: dict[int, list] = {}
        self._thread = None
        self.delivered = 0  # how many hard stops were raised (tests, reports)

    def arm(self, tid: int, meter):
        stack = self._armed.get(tid)
        if stack is None:
            self._armed[tid] = [[meter, None, False]]
        else:
            stack.append([meter, None, False])  # a stack: evaluations may nest
        if self._thread is None:
            self._start()

    def _start(self):
        with self._lock:
            if self._thread is None:
                t = threading.Thread(target=self._run, name="ptclisp-hardstop", daemon=True)
                try:
                    t.start()
                except RuntimeError:  # no thread to be had: the cooperative limits still hold
                    return
                self._thread = t

    def poke(self):
        """An evaluation was stopped: look at the armed threads now."""
        self._wake.set()

    def disarm(self, tid: int):
        # A hard stop may be pending for this thread (delivered just as its evaluation finished): it
        # fires at the next check of the interpreter, which can come right after a C call returns. So
        # the lock is taken with `with` (whose cleanup covers every instruction after the acquire: a
        # bare acquire() followed by `try` leaks the lock when it fires in between, and every later
        # evaluation of the process then waits for it for ever), the pending exception is cleared
        # before anything is changed, and the entry is popped only after that: if it fires before
        # the clear, nothing has changed yet and exit_guard's second disarm does the work.
        with self._lock:
            stack = self._armed.get(tid)
            if not stack:
                return
            if stack[-1][_DELIVERED]:
                _set_async_exc(tid, _NO_EXC)  # (nothing can be delivered while the lock is held)
            stack.pop()
            if not stack:
                del self._armed[tid]

    def _run(self):
        try:
            while True:
                try:
                    wait = self._sweep()
                except Exception:  # noqa: BLE001 - one bad sweep must not end the hard stop for everyone
                    wait = self.POLL_S
                self._wake.wait(wait)
                self._wake.clear()
        finally:
            self._thread = None  # ended after all (interpreter shutdown): the next arm starts another

    def _sweep(self) -> float:
        with self._lock:
            if not self._armed:
                return self.IDLE_S
            now = time.monotonic()
            wait = self.POLL_S
            frames = None
            for tid, stack in list(self._armed.items()):
                for e in list(stack):
                    m = e[_METER]
                    if e[_DELIVERED]:
                        continue
                    if not m.expired:
                        d = m.deadline  # the watchdog (meter.py) expires it; this is the second line
                        if d is None or now < d:
                            continue
                        m.expired = True
                        e[_OVERDUE_AT] = now  # the program learns of it only now: its grace starts now
                    if e[_OVERDUE_AT] is None:
                        e[_OVERDUE_AT] = min(now, m.deadline) if m.deadline is not None else now
                    overdue_at = e[_OVERDUE_AT]
                    grace = 0.0 if m.stop_error is not None else grace_s(m)  # already failed: no grace
                    if now - overdue_at < grace:
                        wait = min(wait, overdue_at + grace - now)
                        continue
                    with _frames_held():
                        if frames is None:
                            frames = sys._current_frames()
                        safe = _interruptible(frames.get(tid))
                    if safe:
                        if _set_async_exc(tid, HardStop) == 1:
                            for other in stack:
                                other[_DELIVERED] = True  # one exception unwinds every level
                            self.delivered += 1
                        break
                    wait = 0.001  # not at a safe point: look again in a moment
                    break
            return max(0.001, wait)


ENFORCER = _Enforcer()


# ------------------------------------------------------------------ recursion budget

MAX_RECURSION_LIMIT = 30_000  # frames; keeps C-level recursion far from the end of an 8 MB thread stack


_SKIP_FRAMES = 7   # about the frames of ptclisp's own entry path (Session.eval, run) below `_stack_depth`
_last_total = 0    # the frames `_stack_depth` counted last time, itself included (any thread's: a guess)


def _stack_depth() -> int:
    """The number of Python frames below `_Depth.enter`'s caller's caller, its caller included:
    what walking `f_back` from `sys._getframe(2)` to the bottom counts.

    A host usually evaluates from the same depth again and again, so the count found last time
    is checked first, exactly, with one `sys._getframe` (it counts frames in C): the stack has
    that many frames when the frame at that position is the bottom one. Otherwise the first
    frames are skipped with one `sys._getframe` and the rest walked (walking `f_back` would
    create a frame object for each of the short-lived frames on every evaluation)."""
    global _last_total
    n = _last_total
    if n > 2:
        try:
            if sys._getframe(n - 1).f_back is None:
                return n - 2
        except ValueError:  # a shallower stack than last time
            pass
    try:
        f = sys._getframe(_SKIP_FRAMES)
        n = _SKIP_FRAMES   # frames 0 .. _SKIP_FRAMES - 1
    except ValueError:  # a shallower stack
        f = sys._getframe(2)
        n = 2
    while f is not None:
        n += 1
        f = f.f_back
    _last_total = n
    return n - 2


class _Depth:
    """The process-wide interpreter recursion limit while evaluations run, and the host's between them.

    While evaluations run the limit is the largest need among them; when the
    last one ends it goes back to what the host had set. A host that changes
    the limit while an evaluation runs (from another thread) keeps its new
    value: the change is noticed and becomes the value restored.
    """

    def __init__(self):
        self._lock = threading.Lock()
        self._needs: list = []  # (tid, need) of every running evaluation, innermost last
        self._host = None       # the host's limit, while evaluations run
        self._applied = None    # the limit this object last set

    def enter(self, tid: int, frames: int) -> int:
        # (comparisons rather than min/max: this runs at every evaluation)
        need = _stack_depth() + (frames if 50 <= frames <= MAX_RECURSION_LIMIT
                                 else 50 if frames < 50 else MAX_RECURSION_LIMIT)
        with self._lock:  # (not acquire() + try: a hard stop firing in between would leak the lock)
            needs = self._needs
            current = sys.getrecursionlimit()
            if not needs:
                self._host = current  # the host's own setting
                limit = need
            else:
                if current != self._applied:
                    self._host = current  # changed by the host meanwhile
                limit = max(need, max(n for _, n in needs))
            needs.append((tid, need))
            self._apply(limit, current)
        return need

    def exit(self, tid: int):
        with self._lock:
            needs = self._needs
            current = sys.getrecursionlimit()
            if current != self._applied:
                self._host = current  # changed by the host meanwhile: the value to restore
            if len(needs) == 1 and needs[0][0] == tid:  # the last one: the host's limit again
                needs.clear()
                host = self._host
                if host != current:
                    try:
                        sys.setrecursionlimit(host)
                    except RecursionError:  # (as in _apply: the current limit stays)
                        pass
                self._host = self._applied = None
                return
            for i in range(len(needs) - 1, -1, -1):
                if needs[i][0] == tid:
                    del needs[i]
                    break
            if needs:
                self._apply(max(n for _, n in needs), current)
            else:
                self._apply(self._host, current)
                self._host = self._applied = None

    def _apply(self, limit: int, current: int):
        if limit != current:
            try:
                sys.setrecursionlimit(limit)
            except RecursionError:  # this thread is already deeper than that: keep the current limit
                limit = current
        self._applied = limit


DEPTH = _Depth()


class recursion_budget:
    """Context manager: `frames` Python frames of room above this point on this thread (see `_Depth`)."""

    __slots__ = ("frames", "tid")

    def __init__(self, frames: int):
        self.frames = frames

    def __enter__(self):
        self.tid = threading.get_ident()
        DEPTH.enter(self.tid, self.frames)
        return self

    def __exit__(self, *exc):
        DEPTH.exit(self.tid)
        return False


def enter_guard(meter, depth: bool = True) -> int:
    """What entering `guard(meter, depth)` does, as a function (`pipeline.transact` calls it with
    `exit_guard` in try/finally, sparing an object and two method calls per evaluation); returns
    this thread's id, for `exit_guard`."""
    tid = _get_ident()
    if depth:
        DEPTH.enter(tid, meter.limits.recursion_limit)
    ENFORCER.arm(tid, meter)
    return tid


def exit_guard(tid: int, depth: bool = True):
    """What leaving `guard` does: disarm the hard stop (consuming one delivered just as the code
    finished), then give back the recursion budget."""
    try:
        ENFORCER.disarm(tid)
    except HardStop:  # delivered just as the code finished: it is consumed now
        ENFORCER.disarm(tid)
    if depth:
        DEPTH.exit(tid)


class guard:
    """Context manager around an evaluation on this thread: its recursion budget (unless `depth=False`,
    as in parallel workers) and the hard stop, which acts only once the meter's clock has run out."""

    __slots__ = ("meter", "tid", "depth")

    def __init__(self, meter, depth: bool = True):
        self.meter = meter
        self.depth = depth

    def __enter__(self):
        self.tid = enter_guard(self.meter, self.depth)
        return self

    def __exit__(self, *exc):
        exit_guard(self.tid, self.depth)
        return False


def hard_stop_error(meter=None) -> PtcError:
    ms = meter.limits.timeout_ms if meter is not None else None
    return PtcError("timeout", f"evaluation exceeded its time limit{f' of {ms} ms' if ms else ''} "
                               f"and was stopped", details={"timeout_ms": ms, "phase": "eval", "hard_stop": True})


# ------------------------------------------------------------------ result size

def result_bytes(value, cap: int) -> int:
    """About how many bytes the printed form of `value` takes; stops counting once past `cap`."""
    from itertools import chain
    from ..values import Keyword
    from ..values.walk import Stop, walk
    total = 0

    def add(n: int):
        nonlocal total
        total += n
        if total > cap:
            raise Stop

    def vector(v, depth):
        items = v.lst()
        add(2 + len(items))
        return iter(items)

    def entries(m, depth):
        add(2 + 2 * len(m))
        return chain.from_iterable(m.items())

    def members(s, depth):
        xs = s.members()
        add(3 + len(xs))
        return iter(xs)

    def atom(x, t, depth):
        nonlocal total
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
        else:
            total += 16
        if total > cap:
            raise Stop

    walk(value, vector=vector, map=entries, set=members, other=atom)
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


def retained_bytes(value) -> int:
    """The meter's cost-model estimate of the memory `value` keeps alive (shared parts counted once)."""
    from itertools import chain
    from .meter import map_cost, seq_cost, str_cost
    from ..values import Keyword
    from ..values.walk import walk
    cost = 0

    def vector(v, depth):
        nonlocal cost
        items = v.lst()
        cost += seq_cost(len(items))
        return iter(items)

    def table(c, depth):  # a map's or a set's backing dict: its stored keys, then its values
        nonlocal cost
        d = c.d()
        cost += map_cost(len(d))
        return chain(dict.keys(d), dict.values(d))

    def atom(x, t, depth):
        nonlocal cost
        if t is str:
            cost += str_cost(len(x))
        elif t is int:
            cost += 28 + (x.bit_length() >> 3)

    walk(value, vector=vector, map=table, set=table, other=atom, once=True,
         skip=(type(None), bool, float, Keyword))  # what costs nothing beyond its slot
    return cost
