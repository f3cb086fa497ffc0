"""Resource limits and the per-evaluation meter.

Owns `Limits` (the knobs of runtime.md §7, reference defaults) and `Meter`
(one per evaluation: deadline, allocation budget, loop cap, tool-call budget,
print budget). The deadline is enforced cooperatively: a single watchdog
thread flips `meter.expired` when a deadline passes, and compiled code checks
that flag at every function entry and loop back-edge, which costs one
attribute read. Builtins that build collections or strings call
`meter.alloc(nbytes)` *before* building, so `(range 1e9)` fails at once.

The meter of the running evaluation is found with `current()` (thread-local;
parallel workers install their parent's meter). Imports errors only.
"""
from __future__ import annotations

import heapq
import itertools
import threading
import time

import attrs

from .errors import PtcError
from .values import OwnerToken, set_owner_token


@attrs.define(slots=True)
class Limits:
    """Per-evaluation limits. Trusted callers may raise any of them without a ceiling.

    (Except `recursion_limit`, clamped at 30,000 frames to keep the C stack
    safe.) docs/security.md lists each limit with its failure reason.
    """

    timeout_ms: int = 1000
    memory_bytes: int = 10_000_000
    loop_limit: int = 1000
    max_tool_calls: int | None = None
    max_print_chars: int = 2000
    max_prints: int = 10_000
    max_program_bytes: int = 1_000_000
    max_symbols: int = 10_000
    max_depth: int = 64
    max_parallel_workers: int = 8
    pmap_timeout_ms: int = 5000
    max_result_bytes: int | None = None
    recursion_limit: int = 6000  # Python frames above the evaluation's start (isolation.py)
    regex_timeout_ms: int = 250
    compile_timeout_ms: int | None = 5000  # reading, analysing and compiling one program (compile_timeout)
    isolation: str = "thread"  # or "process": evaluate in a child process under OS limits (isolation.py)
    process_memory_bytes: int | None = None  # address space a "process" evaluation may add (None: derived)


# cost model (bytes) used by builtins when charging their output
SLOT = 8
OBJ = 56


def seq_cost(n: int) -> int:
    return OBJ + SLOT * n


def map_cost(n: int) -> int:
    return 64 + 40 * n


def str_cost(n: int) -> int:
    return 49 + n


class Meter:
    """The resource meter of one evaluation."""

    __slots__ = (
        "limits", "deadline", "expired", "cancelled", "allocated", "budget",
        "prints", "print_chars", "tool_calls", "pmap_calls", "tool_count", "parallel_live",
        "parallel_lock", "_wd_id", "env", "loop_limit", "stop_error", "token", "__weakref__",
    )
    in_worker = False  # parallel.WorkerMeter: True (a worker's `def`s are discarded)

    def __init__(self, limits: Limits | None = None):
        self.limits = limits or Limits()
        self.deadline = None
        self.expired = False
        self.cancelled = False
        self.allocated = 0
        self.budget = self.limits.memory_bytes
        self.prints: list[str] = []
        self.print_chars = 0
        self.tool_calls: list = []
        self.pmap_calls: list = []   # one ParallelRecord per pmap/pcalls (workers append to the root's list)
        self.tool_count = 0
        self.parallel_live = 0
        self.parallel_lock = threading.Lock()
        self._wd_id = None
        self.env = None  # the evaluation environment (session namespace, tools, data)
        self.loop_limit = self.limits.loop_limit
        self.stop_error = None  # set when a failing parallel operation stops the whole evaluation
        self.token = OwnerToken()  # owner of the collections built under this meter (values.py)

    # -- time
    def start(self):
        ms = self.limits.timeout_ms
        if ms is not None:
            self.deadline = time.monotonic() + ms / 1000.0
            self._wd_id = _WATCHDOG.watch(self, self.deadline)

    def stop(self):
        if self._wd_id is not None:
            _WATCHDOG.forget(self._wd_id)
            self._wd_id = None

    def check(self):
        """Raise when the deadline has passed (called from hot paths)."""
        if self.expired:
            self.raise_expired()

    def raise_expired(self):
        e = self.stop_error
        if e is not None:
            raise PtcError(e.kind, e.message, e.span, dict(e.details))
        if self.cancelled:
            raise PtcError("timeout", "evaluation cancelled", details={"cancelled": True})
        raise PtcError("timeout", f"evaluation exceeded its time limit of {self.limits.timeout_ms} ms",
                       details={"timeout_ms": self.limits.timeout_ms, "phase": "eval"})

    def remaining_s(self) -> float | None:
        if self.deadline is None:
            return None
        return max(0.0, self.deadline - time.monotonic())

    # -- memory
    def alloc(self, nbytes: int):
        """Charge `nbytes` against the allocation budget before building."""
        a = self.allocated + nbytes
        self.allocated = a
        if a > self.budget:
            raise PtcError(
                "memory_exceeded",
                f"evaluation exceeded its memory budget of {self.budget} bytes",
                details={"limit_bytes": self.budget, "requested_bytes": nbytes},
            )
        if self.expired:
            self.raise_expired()

    # -- output
    def print_line(self, text: str):
        cap = self.limits.max_print_chars
        if len(text) > cap:
            text = text[:cap] + f"... ({cap}/{len(text)} chars)"
        if len(self.prints) >= self.limits.max_prints:
            raise PtcError("memory_exceeded", f"too many printed lines (limit {self.limits.max_prints})")
        self.alloc(str_cost(len(text)))
        self.prints.append(text)


class _Watchdog:
    """One daemon thread that flips `expired` on meters whose deadline passed."""

    def __init__(self):
        self._heap: list = []
        self._live: dict = {}
        self._cond = threading.Condition()
        self._ids = itertools.count()
        self._thread = None

    def watch(self, meter: Meter, deadline: float) -> int:
        wid = next(self._ids)
        with self._cond:
            self._live[wid] = meter
            heapq.heappush(self._heap, (deadline, wid))
            if self._thread is None:
                self._thread = threading.Thread(target=self._run, name="ptclisp-watchdog", daemon=True)
                self._thread.start()
            if self._heap[0][1] == wid:
                self._cond.notify()
        return wid

    def forget(self, wid: int):
        with self._cond:
            self._live.pop(wid, None)

    def _run(self):
        with self._cond:
            while True:
                while self._heap and self._heap[0][1] not in self._live:
                    heapq.heappop(self._heap)
                if not self._heap:
                    self._cond.wait()
                    continue
                deadline, wid = self._heap[0]
                delay = deadline - time.monotonic()
                if delay > 0:
                    self._cond.wait(delay)
                    continue
                heapq.heappop(self._heap)
                meter = self._live.pop(wid, None)
                if meter is not None:
                    meter.expired = True


_WATCHDOG = _Watchdog()

class _Local(threading.local):
    meter = None


_local = _Local()
_UNBOUNDED = None


# ------------------------------------------------------------------ compile budget

class _CompileClock(threading.local):
    deadline: float | None = None
    limit_ms: int | None = None


_COMPILE = _CompileClock()


class compile_budget:
    """Context manager: reading, analysing and building a program on this thread must finish
    within `ms` milliseconds, or `compile_tick` raises `compile_timeout` (runtime.md §1)."""

    __slots__ = ("ms", "prev")

    def __init__(self, ms: int | None):
        self.ms = ms

    def __enter__(self):
        c = _COMPILE
        self.prev = (c.deadline, c.limit_ms)
        if self.ms is not None:
            c.deadline = time.monotonic() + self.ms / 1000.0
            c.limit_ms = self.ms
        return self

    def __exit__(self, *exc):
        _COMPILE.deadline, _COMPILE.limit_ms = self.prev
        return False


def compile_tick():
    """Called by the reader, analyzer and code generators every so many units of work.

    Inside `compile_budget` it checks that budget; otherwise (a loop compiled while
    the program runs) it checks the running evaluation's deadline flag."""
    c = _COMPILE
    d = c.deadline
    if d is not None:
        if time.monotonic() > d:
            ms = c.limit_ms
            raise PtcError("compile_timeout", f"reading and analysing the program took longer than {ms} ms",
                           details={"compile_timeout_ms": ms, "phase": "compile"})
        return
    m = _local.meter
    if m is not None and m.expired:
        m.raise_expired()


def current() -> Meter:
    """The meter of the evaluation running on this thread (an unbounded one outside evaluations)."""
    m = _local.meter
    if m is None:
        global _UNBOUNDED
        if _UNBOUNDED is None:
            _UNBOUNDED = Meter(Limits(timeout_ms=None, memory_bytes=1 << 62, loop_limit=1 << 62))
        return _UNBOUNDED
    return m


def charge(nbytes: int):
    """`current().alloc(nbytes)` in one Python call: the path every charging builtin takes.

    Within budget and before the deadline it only adds to the running total; anything
    else is handed to `Meter.alloc`, which raises exactly as it always does.
    """
    m = _local.meter
    if m is None:
        m = current()
    a = m.allocated + nbytes
    if a > m.budget or m.expired:
        m.alloc(nbytes)
    m.allocated = a


def install(meter: Meter | None):
    """Make `meter` the current one on this thread; returns the previous one."""
    prev = _local.meter
    _local.meter = meter
    # collections built under this meter may be extended in place only under it (values.py)
    set_owner_token(None if meter is None else meter.token)
    return prev
