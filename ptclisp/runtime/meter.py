"""Resource limits and the per-evaluation meter.

Owns `Limits` (the knobs of docs/spec/runtime.md §7, reference defaults) and `Meter`
(one per evaluation: deadline, allocation budget, loop cap, tool-call budget,
print budget). The deadline is enforced cooperatively: a single watchdog
thread flips `meter.expired` when a deadline passes, and compiled code checks
that flag at every function entry (one attribute read) and every 256 loop
back-edges (the first included). Builtins that build collections or strings call
`meter.alloc(nbytes)` *before* building, so `(range 1e9)` fails at once.

The meter of the running evaluation is found with `current()` (thread-local;
parallel workers install their parent's meter). Also here: the per-evaluation
cache of `cache=True` tool results (`tool_cache`), which parallel workers
fold back into their evaluation's. Imports errors and values.
"""
from __future__ import annotations

import itertools
import math
import threading
import time
import weakref

import attrs

from ..errors import PtcError
from ..values import OwnerToken, set_owner_token


MAX_TIME_MS = 365 * 24 * 3600 * 1000  # one year: the largest time limit `Limits` accepts
MAX_AMOUNT = 1 << 62                   # the largest count or byte limit `Limits` accepts


def _show(value) -> str:
    """A short description of a rejected limit value (never the digits of a huge integer)."""
    if type(value) is int and value.bit_length() > 64:
        return f"an integer of {value.bit_length()} bits"
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def time_ms_validator(none_means: str | None = "no limit", minimum: int = 1):
    """Validator of a time limit in milliseconds: a finite number in [minimum, MAX_TIME_MS] (or None)."""
    def check(inst, attr, value):
        if value is None:
            if none_means is not None:
                return
            raise TypeError(f"{type(inst).__name__}.{attr.name} must be a number of milliseconds, got None")
        if type(value) is bool or not isinstance(value, (int, float)):
            raise TypeError(f"{type(inst).__name__}.{attr.name} must be a number of milliseconds, got "
                            f"{type(value).__name__} {_show(value)}")
        if not (minimum <= value <= MAX_TIME_MS):  # also false for NaN
            tail = f", or None for {none_means}" if none_means else ""
            raise ValueError(f"{type(inst).__name__}.{attr.name} must be between {minimum} and {MAX_TIME_MS:,} ms "
                             f"(one year){tail}; got {_show(value)}")
    return check


def amount_validator(minimum: int = 1, none_means: str | None = None):
    """Validator of a count or byte limit: an int in [minimum, MAX_AMOUNT] (or None where that means no limit)."""
    def check(inst, attr, value):
        if value is None and none_means is not None:
            return
        if type(value) is not int:
            raise TypeError(f"{type(inst).__name__}.{attr.name} must be an int, got {type(value).__name__} "
                            f"{_show(value)}")
        if not (minimum <= value <= MAX_AMOUNT):
            tail = f", or None for {none_means}" if none_means else ""
            raise ValueError(f"{type(inst).__name__}.{attr.name} must be between {minimum} and 2**62{tail}; "
                             f"got {_show(value)}")
    return check


def _isolation(inst, attr, value):
    if value not in ("thread", "process"):
        raise ValueError(f"{type(inst).__name__}.isolation must be 'thread' or 'process', got {_show(value)}")


@attrs.define(slots=True)
class Limits:
    """Per-evaluation limits, checked when set: a wrong type is a TypeError, a value out of range a ValueError.

    Time limits are milliseconds between 1 and `MAX_TIME_MS` (one year);
    counts and byte sizes are ints up to 2**62 (`loop_limit`, `max_tool_calls`,
    `max_prints` and `max_parallel_workers` may be 0: none allowed). `None`
    means "no limit" for `timeout_ms`, `compile_timeout_ms`, `pmap_timeout_ms`,
    `max_tool_calls` and `max_result_bytes`; for `process_memory_bytes` it
    means "derived from memory_bytes" and for `regex_timeout_ms` the default
    250 ms. Within those bounds a trusted caller may raise any limit (except
    `recursion_limit`, clamped at 30,000 frames to keep the C stack safe).
    docs/security.md lists each limit with its failure reason.
    """

    timeout_ms: int | None = attrs.field(default=1000, validator=time_ms_validator())
    memory_bytes: int = attrs.field(default=10_000_000, validator=amount_validator())
    loop_limit: int = attrs.field(default=1000, validator=amount_validator(0))
    max_tool_calls: int | None = attrs.field(default=None, validator=amount_validator(0, "no limit"))
    max_print_chars: int = attrs.field(default=2000, validator=amount_validator())
    max_prints: int = attrs.field(default=10_000, validator=amount_validator(0))
    max_program_bytes: int = attrs.field(default=1_000_000, validator=amount_validator())
    max_symbols: int = attrs.field(default=10_000, validator=amount_validator())
    max_depth: int = attrs.field(default=64, validator=amount_validator())
    max_parallel_workers: int = attrs.field(default=8, validator=amount_validator(0))
    pmap_timeout_ms: int | None = attrs.field(default=5000, validator=time_ms_validator())
    max_result_bytes: int | None = attrs.field(default=None, validator=amount_validator(1, "no limit"))
    # Python frames above the evaluation's start (guards.py)
    recursion_limit: int = attrs.field(default=6000, validator=amount_validator())
    regex_timeout_ms: int | None = attrs.field(default=250, validator=time_ms_validator("the 250 ms default"))
    # reading, analysing and compiling one program (compile_timeout)
    compile_timeout_ms: int | None = attrs.field(default=5000, validator=time_ms_validator())
    # or "process": evaluate in a child process under OS limits (process.py)
    isolation: str = attrs.field(default="thread", validator=_isolation)
    # address space a "process" evaluation may add (None: derived)
    process_memory_bytes: int | None = attrs.field(default=None, validator=amount_validator(1, "a size derived from memory_bytes"))


_FIELD_NAMES = tuple(a.name for a in attrs.fields(Limits))
# the slot descriptors' setters: they fill a Limits without its validating __setattr__
_SETTERS = tuple(Limits.__dict__[name].__set__ for name in _FIELD_NAMES)
_DEFAULT_VALUES: tuple | None = None


def limits_values(lim: Limits) -> tuple:
    """Every field of `lim`, in field order (what `limits_of` takes)."""
    return tuple(getattr(lim, name) for name in _FIELD_NAMES)


def limits_of(values: tuple) -> Limits:
    """A fresh Limits holding `values` (in field order), filled without running the validators:
    only for values taken from a Limits that was validated (`limits_values`)."""
    inst = object.__new__(Limits)
    for setter, value in zip(_SETTERS, values):
        setter(inst, value)
    return inst


def default_limits() -> Limits:
    """A fresh `Limits()` at a fraction of its cost: the defaults were validated once, so the instance is
    filled without running the validators again (every run and Session without limits makes one)."""
    global _DEFAULT_VALUES
    if _DEFAULT_VALUES is None:
        _DEFAULT_VALUES = limits_values(Limits())
    return limits_of(_DEFAULT_VALUES)


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
        "parallel_lock", "_wd_id", "env", "loop_limit", "stop_error", "token", "compiling", "line_open",
        "__weakref__",
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
        self.line_open = False   # the last printed line has no end yet (`print`, `printf`)
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
        self.compiling = None  # (deadline, ms) while the program is read, analysed and built (compile_tick)

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
            raise self.over_budget(nbytes)
        if self.expired:
            self.raise_expired()

    def over_budget(self, nbytes: int) -> PtcError:
        """The error of a charge of `nbytes` that went past the budget."""
        return PtcError("memory_exceeded", f"evaluation exceeded its memory budget of {self.budget} bytes",
                        details={"limit_bytes": self.budget, "requested_bytes": nbytes})

    # -- output
    def print_line(self, text: str):
        if self.line_open:   # println after print: the open line ends with this text
            self.line_open = False
            if self.prints:
                text = self.prints.pop() + text
        cap = self.limits.max_print_chars
        if len(text) > cap:
            text = text[:cap] + f"... ({cap}/{len(text)} chars)"
        if len(self.prints) >= self.limits.max_prints:
            raise PtcError("memory_exceeded", f"too many printed lines (limit {self.limits.max_prints})")
        self.alloc(str_cost(len(text)))
        self.prints.append(text)

    def print_text(self, text: str):
        """`print`: text that ends a line only where it holds a newline; what follows its last
        newline stays open, continued by the next print (lines as print_line keeps them)."""
        pieces = text.split("\n")
        for piece in pieces[:-1]:
            self.print_line(piece)
        if pieces[-1]:
            self.print_line(pieces[-1])
            self.line_open = True


class _Watchdog:
    """One daemon thread that flips `expired` on meters whose deadline passed.

    `watch` registers a running evaluation's meter and deadline (a dict store,
    no lock, unless that deadline is earlier than the one the thread is
    waiting for, or the thread is not waiting: then it is woken); `forget`
    takes it out again (a dict pop). Only running evaluations are registered,
    so the thread scans them all each time it wakes (at the earliest
    registered deadline, or when woken) and nothing accumulates between runs.

    Shared by every evaluation in the process, so nothing one evaluation
    brings may stop it: each wait is capped at `MAX_WAIT_S` (a far deadline is
    waited for in steps, never handed whole to the OS), an exception inside
    the loop is contained there (a deadline that is not a time counts as
    passed), and a thread that ended anyway is started again by the next
    `watch`. The hard-stop thread (guards.py) also expires overdue meters
    it watches, as a second line.
    """

    MAX_WAIT_S = 60.0

    def __init__(self):
        self._live: dict = {}   # wid -> (deadline, meter), for the evaluations running now
        # a plain lock (nothing here re-enters it) under the thread's condition
        self._lock = threading.Lock()
        self._cond = threading.Condition(self._lock)
        self._ids = itertools.count()
        self._thread = None
        self._started = False
        # the deadline the thread is waiting for (inf: none); None while it is not waiting, when
        # a registration wakes it (it may have scanned the registrations already)
        self._until = None
        self.restarts = 0  # threads started after the first (tests, reports)

    def watch(self, meter: Meter, deadline: float) -> int:
        wid = next(self._ids)
        self._live[wid] = (deadline, meter)
        until = self._until
        if until is None or not deadline >= until:  # (`not >=`: a deadline that is not a time wakes it too)
            with self._lock:
                if self._thread is None:
                    self._start()
                self._cond.notify()
        return wid

    def _start(self):
        t = threading.Thread(target=self._run, name="ptclisp-watchdog", daemon=True)
        try:
            t.start()
        except RuntimeError:  # no thread to be had now: the next watch tries again, the hard-stop thread covers
            return
        if self._started:
            self.restarts += 1
        self._started = True
        self._thread = t

    def forget(self, wid: int):
        self._live.pop(wid, None)

    def _run(self):
        try:
            with self._cond:
                while True:
                    try:
                        self._step()
                    except Exception:  # noqa: BLE001 - contained: the loop goes on (after a short pause)
                        self._until = None
                        self._cond.wait(0.01)
        finally:
            self._until = None
            self._thread = None  # ended after all (interpreter shutdown): the next watch starts another

    def _step(self):
        """Expire what is due, then wait for the next deadline (at most MAX_WAIT_S). Holds the lock."""
        self._until = None
        live = self._live
        now = time.monotonic()
        nearest = math.inf
        for wid, (deadline, meter) in list(live.items()):
            try:
                due = not deadline > now
            except Exception:  # noqa: BLE001 - not a time: treat it as passed (the safe side)
                due = True
            if not due:
                if deadline < nearest:
                    nearest = deadline
            elif live.pop(wid, None) is not None:  # (not forgotten meanwhile)
                try:
                    meter.expired = True
                except Exception:  # noqa: BLE001 - a meter that cannot be expired affects only its own evaluation
                    pass
        self._until = nearest
        self._cond.wait(None if nearest == math.inf else min(nearest - now, self.MAX_WAIT_S))


_WATCHDOG = _Watchdog()

class _Local(threading.local):
    meter = None


_local = _Local()
_UNBOUNDED = None


# ------------------------------------------------------------------ compile budget

class compile_budget:
    """Context manager: reading, analysing and building a program under the meter installed on
    this thread must finish within `ms` milliseconds, or `compile_tick` raises `compile_timeout`
    (docs/spec/runtime.md §1). It sets the meter's `compiling` (what `pipeline.program` sets directly)."""

    __slots__ = ("ms", "meter", "prev")

    def __init__(self, ms: int | None):
        self.ms = ms

    def __enter__(self):
        m = self.meter = _local.meter
        if m is None:
            raise RuntimeError("compile_budget needs the meter of an evaluation installed on this thread")
        self.prev = m.compiling
        if self.ms is not None:
            m.compiling = (time.monotonic() + self.ms / 1000.0, self.ms)
        return self

    def __exit__(self, *exc):
        self.meter.compiling = self.prev
        return False


def compile_tick():
    """Called by the reader, analyzer and code generators every so many units of work.

    While the installed meter has a compile budget (`Meter.compiling`) it checks that
    budget; otherwise (a loop compiled while the program runs) it checks the running
    evaluation's deadline flag."""
    m = _local.meter
    if m is None:
        return
    c = m.compiling
    if c is not None:
        if time.monotonic() > c[0]:
            ms = c[1]
            raise PtcError("compile_timeout", f"reading and analysing the program took longer than {ms} ms",
                           details={"compile_timeout_ms": ms, "phase": "compile"})
        return
    if m.expired:
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


def install_view(meter: Meter | None):
    """Make `meter` the one `current()` gives on this thread, without its owner token; returns the
    previous one. A tool call's thread (tool_runner.py) does this, so that `time_left()` and
    `check_stop()` see the calling evaluation, while nothing built there can be extended in place by it."""
    prev = _local.meter
    _local.meter = meter
    return prev


# ------------------------------------------------------------------ the per-evaluation tool cache

_TOOL_CACHES: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()
_TOOL_CACHE_LOCK = threading.Lock()


def tool_cache(meter) -> dict:
    """The cache of `cache=True` tool results (tools.py) of the evaluation `meter` belongs to
    (created on first use).

    A parallel worker's meter (one with a `root`) gets a cache of its own;
    lookups fall back to the root's cache as it was when the operation
    started, so workers do not see each other's entries (`merge_worker_caches`
    folds them back afterwards).
    """
    c = _TOOL_CACHES.get(meter)
    if c is None:
        with _TOOL_CACHE_LOCK:
            c = _TOOL_CACHES.setdefault(meter, {})
    return c


def tool_cache_lookup(meter, key, default):
    """The cached entry under `key` for `meter`'s evaluation (a worker also sees its root's), else `default`."""
    hit = tool_cache(meter).get(key, default)
    if hit is default:
        root = getattr(meter, "root", None)
        if root is not None and root in _TOOL_CACHES:
            hit = _TOOL_CACHES[root].get(key, default)
    return hit


def merge_worker_caches(root, workers) -> None:
    """Fold the cache entries of parallel worker meters into the root's, in the order given (input order)."""
    target = tool_cache(root)
    for w in workers:
        for k, v in _TOOL_CACHES.get(w, {}).items():
            target.setdefault(k, v)
