"""Parallel workers for `pmap` / `pcalls` (docs/spec/runtime.md §9).

Owns the worker budget of one evaluation, the shared deadline of a parallel
operation, the thread pool workers run on, and the merge of worker effects.

How one operation runs (`run_parallel`):

* The caller's meter decides the budget. The *root* meter (the evaluation's)
  holds one counter of live workers for every nesting level; a slot is taken
  with a non-blocking try-acquire. An operation that cannot get a single slot
  fails at once with `parallel_capacity_exceeded`: it never waits for a slot
  held by someone else and never falls back to running sequentially. A slot
  it holds is reused for its own next item when a worker of it finishes.
* The outermost operation sets one deadline (`pmap_timeout_ms`, never later
  than the evaluation's own); nested operations inherit it.
* Each worker installs a `WorkerMeter`: a view of the root meter that shares
  its clock, stop flag, tool-call budget and lock, but has its own allocation
  budget and its own buffers for printed lines and tool-call records. The
  budget is a fixed share of what the caller had left (`worker_share`), so the
  workers running at once hold at most that together, and a worker runs out
  of memory or not by its own work alone. The buffers are merged into the
  caller's meter in input order, so the effects do not depend on timing.
* A worker's `def` is discarded (`backends.runtime.rt_def` asks `current().in_worker`):
  the user namespace is shared with the waiting parent thread, so workers see
  it read-only.
* Finished workers are taken in input order, so the failure an operation
  reports is that of the lowest-index worker that failed (as `mapv` would
  report it), and the lines kept are those of the workers up to it; a later
  worker's tool records are kept too (its calls did happen). Since PTC-Lisp
  has no `try`, a failed parallel operation ends the evaluation; the root
  meter is stopped with that error so the remaining workers unwind at their
  next deadline check (compiled code tests the same flag at every function
  entry and every 256th loop back-edge), and the hard stop (guards.py) ends
  those that do not.
* What a worker hands back leaves its thread: `disown` gives up in-place
  extension of the result's collections and prices it, and the caller pays
  that price (and for the lines its workers printed) on its own budget.

Imports meter, errors, values, guards, runtime.failures, and lib.parallel to install itself as its engine.
"""
from __future__ import annotations

import queue
import threading
import time

import attrs

from .runtime import meter as M
from .errors import FailSignal, PtcError, ReturnSignal
from .runtime.failures import to_error_info
from .runtime.guards import ENFORCER, grace_s, guard
from .runtime.meter import Meter, map_cost, merge_worker_caches, seq_cost, str_cost
from .values import LIST, Keyword, OwnerToken, Set, Vector
from .lib import parallel as _builtins

# kinds a worker failure keeps as they are; anything else is wrapped in pmap_error / pcalls_error
PASS_THROUGH = frozenset({
    "timeout", "memory_exceeded", "parallel_capacity_exceeded", "tool_call_limit_exceeded",
    "runtime_limit_exceeded", "prelude_contract_error", "pmap_error", "pcalls_error",
})

STACK_BYTES = 16 << 20  # room for deep recursion (Limits.recursion_limit) whatever the platform default
_STACK_LOCK = threading.Lock()
_GRACE_S = 0.05     # how long a failed operation lets its stopped workers unwind before returning
_POLL_S = 0.05      # the waiting parent re-reads the stop flag this often


# ------------------------------------------------------------------ the worker's meter

class WorkerMeter(Meter):
    """The meter a parallel worker installs: a view of the evaluation's root meter.

    Shared with the root: deadline and stop flag (`expired`, `cancelled`, the
    stop error), tool-call count and `parallel_lock`, live-worker count,
    environment and limits. Own: allocation budget, printed lines, tool-call
    records.
    """

    __slots__ = ("root", "pdeadline", "index")
    in_worker = True

    def __init__(self, root: Meter, pdeadline: float, index: int, share: int):
        for name in Meter.__slots__:
            if not name.startswith("__") and name not in _SHARED:
                try:
                    object.__setattr__(self, name, getattr(root, name))
                except AttributeError:
                    pass
        self.root = root
        self.pdeadline = pdeadline
        self.index = index
        self.allocated = 0
        # a fixed share of what the caller had left (`worker_share`): the workers running at once
        # cannot hold more than the caller's budget together, and whether one of them runs out
        # depends on its own work only, never on the order in which the others ran
        self.budget = share
        self.prints = []
        self.print_chars = 0
        self.line_open = False
        self.tool_calls = []
        self._wd_id = None
        self.token = OwnerToken()  # a task of its own: it never extends in place what another task built

    expired = property(lambda self: self.root.expired, lambda self, v: setattr(self.root, "expired", v))
    cancelled = property(lambda self: self.root.cancelled, lambda self, v: setattr(self.root, "cancelled", v))
    tool_count = property(lambda self: self.root.tool_count,
                          lambda self, v: setattr(self.root, "tool_count", v))
    parallel_live = property(lambda self: self.root.parallel_live,
                             lambda self, v: setattr(self.root, "parallel_live", v))
    stop_error = property(lambda self: self.root.stop_error, lambda self, v: setattr(self.root, "stop_error", v))

    def over_budget(self, nbytes: int) -> PtcError:
        """A worker's share is used up (`Meter.alloc` charges it): the error names the evaluation's
        budget and the share."""
        limit = self.root.budget
        return PtcError("memory_exceeded",
                        f"evaluation exceeded its memory budget of {limit} bytes (shared by its parallel "
                        f"workers: each may use {self.budget} bytes)",
                        details={"limit_bytes": limit, "requested_bytes": nbytes, "share_bytes": self.budget})

    def start(self):  # the root's watchdog already covers the clock
        pass

    def stop(self):
        pass

    def raise_expired(self):
        self.root.raise_expired()


_SHARED = frozenset({"expired", "cancelled", "tool_count", "parallel_live", "stop_error"})


def worker_share(caller: Meter, n: int) -> int:
    """The memory budget of each of an operation's `n` workers: an equal part of what `caller` has left.

    At most `min(n, max_parallel_workers)` of them run at once, so together they never hold more than
    the caller had left; the share depends only on the caller's own charges and `n`, so whether a
    worker runs out of memory does not depend on how the workers were scheduled.
    """
    room = caller.budget - caller.allocated
    return max(0, room // max(1, min(n, caller.limits.max_parallel_workers)))


def halt(root: Meter, err: PtcError):
    """Stop every worker of the evaluation owning `root`: the evaluation is failing with `err`."""
    if root is M._UNBOUNDED:  # outside an evaluation there is nothing to stop (and nothing to poison)
        return
    if root.stop_error is None:
        root.stop_error = err
    root.expired = True
    ENFORCER.poke()


# ------------------------------------------------------------------ slots

def try_acquire(root: Meter) -> bool:
    with root.parallel_lock:
        if root.parallel_live < root.limits.max_parallel_workers:
            root.parallel_live += 1
            return True
        return False


def release(root: Meter, n: int):
    if n:
        with root.parallel_lock:
            root.parallel_live -= n


# ------------------------------------------------------------------ the thread pool

class ThreadPool:
    """Daemon threads with deep stacks (`STACK_BYTES`), reused; a new one starts whenever none is idle.

    The pool never queues work: its users bound how many tasks they hand it
    (the slot budget of parallel workers, the one waiting caller of a tool
    call), so a task handed to the pool always starts at once. Idle threads
    exit after `idle_s`. Threads are named `<name>-<n>`; `size()` counts the
    idle ones. Used for parallel workers (`POOL`) and tool calls (tool_runner.py).
    """

    def __init__(self, name: str, idle_s: float = 30.0):
        self.name = name
        self.idle_s = idle_s
        self._idle: list = []
        self._lock = threading.Lock()
        self._ids = 0

    def submit(self, fn, *args):
        """Run `fn(*args)` on an idle thread or a new one; RuntimeError when the OS gives no thread."""
        with self._lock:
            box = self._idle.pop() if self._idle else None
            if box is None:
                self._ids += 1
                n = self._ids
        if box is None:
            box = queue.SimpleQueue()
            t = threading.Thread(target=self._loop, args=(box,), name=f"{self.name}-{n}", daemon=True)
            box.put((fn, args))
            with _STACK_LOCK:  # the size is process-wide; set it just for our own threads
                old = threading.stack_size(STACK_BYTES)
                try:
                    t.start()
                finally:
                    threading.stack_size(old)
        else:
            box.put((fn, args))

    def _loop(self, box):
        while True:
            try:
                fn, args = box.get(timeout=self.idle_s)
            except queue.Empty:
                with self._lock:
                    if box in self._idle:
                        self._idle.remove(box)
                        return
                continue  # someone took this thread just now: its task is on the way
            try:
                fn(*args)
            except BaseException:  # noqa: BLE001 - tasks report their own errors; keep the thread alive
                pass
            fn = args = None
            with self._lock:
                self._idle.append(box)

    def size(self) -> int:
        with self._lock:
            return len(self._idle)

    def owns(self, thread: threading.Thread) -> bool:
        """Whether `thread` is one of this pool's (by its name)."""
        return thread.name.startswith(self.name + "-")


POOL = ThreadPool("ptclisp-parallel")


# ------------------------------------------------------------------ handing values across threads

def disown(value) -> int:
    """Clear the builder-thread ownership of every collection reachable from a worker's result.

    Vectors, maps and sets built by a thread may later be extended in place by
    that same thread (values/vectors.py, values/sets.py). Pool threads are reused,
    so a result built by one worker could be extended in place by a later
    worker on the same thread while other workers still read it. A result
    leaving its worker therefore gives up ownership: the next extension
    copies. Closure cells are followed, since a returned fn may carry values.

    Returns the meter's estimate of the bytes the result keeps alive (shared
    parts counted once): the caller pays for what its workers hand back.
    """
    from itertools import chain
    from .values.walk import walk
    cost = 0

    def vector(v, depth):
        nonlocal cost
        if v._owner is not LIST:
            v._owner = None
        items = v.lst()
        cost += seq_cost(len(items))
        return iter(items)

    def table(c, depth):  # a map's or a set's backing dict: stored keys and values
        nonlocal cost
        if type(c) is Set:  # a map is extended in place only when nobody else holds it
            c._owner = None
        d = c.d()
        cost += map_cost(len(d))
        return chain.from_iterable(dict.items(d))

    def other(x, t, depth):
        nonlocal cost
        if t is str:
            cost += str_cost(len(x))
        elif t is int:
            if not -5 <= x <= 256:
                cost += 28 + (x.bit_length() >> 3)
        elif t is list or t is tuple:  # reached through a closure (the tree back end keeps captures in lists)
            return iter(x)
        elif callable(x):
            return _captured(x)
        return None

    walk(value, vector=vector, map=table, set=table, other=other, once=True, skip=_SMALL)
    return cost


_SMALL = frozenset({type(None), bool, float, Keyword})   # values that own nothing (so do ints in -5..256)


def _captured(f):
    """What a function keeps alive: its closure cells' contents and its default values."""
    for cell in getattr(f, "__closure__", None) or ():
        try:
            yield cell.cell_contents
        except ValueError:  # an empty cell
            pass
    yield from getattr(f, "__defaults__", None) or ()


# ------------------------------------------------------------------ one operation

class _Done:
    __slots__ = ("index", "ok", "value", "meter", "cost")

    def __init__(self, index, ok, value, meter, cost=0):
        self.index, self.ok, self.value, self.meter, self.cost = index, ok, value, meter, cost


def _work(out: queue.SimpleQueue, wm: WorkerMeter, who: str, fn, args):
    prev = M.install(wm)
    try:
        if wm.expired:
            wm.raise_expired()
        with guard(wm, depth=False):
            value = fn(*args)
        done = _Done(wm.index, True, value, wm, disown(value))
    except ReturnSignal:
        done = _Done(wm.index, False, PtcError(f"{who}_error", f"return called inside {who}",
                                               details={"index": wm.index}), wm)
    except FailSignal:
        done = _Done(wm.index, False, PtcError(f"{who}_error", f"fail called inside {who}",
                                               details={"index": wm.index}), wm)
    except BaseException as exc:  # noqa: BLE001 - every failure travels back to the waiting parent
        done = _Done(wm.index, False, exc, wm)
    finally:
        M.install(prev)
    out.put(done)


def worker_error(who: str, index: int, exc: BaseException) -> PtcError:
    """The error a failed worker surfaces as: limits pass through, the rest becomes `<who>_error`."""
    info = to_error_info(exc)
    if info.kind in PASS_THROUGH:
        return PtcError(info.kind, info.message, info.span, dict(info.details))
    label = "thunk" if who == "pcalls" else "worker"
    return PtcError(f"{who}_error", f"{who} {label} {index} failed: {info.kind}: {info.message}", info.span,
                    details={"reason": info.kind, "index": index, "message": info.message,
                             "details": dict(info.details)})


def _deadline_for(m: Meter) -> tuple[Meter, float | None]:
    if type(m) is WorkerMeter:
        return m.root, m.pdeadline
    ms = m.limits.pmap_timeout_ms
    d = None if ms is None else time.monotonic() + ms / 1000.0
    if m.deadline is not None:
        d = m.deadline if d is None else min(d, m.deadline)
    return m, d


@attrs.define
class ParallelRecord:
    """One `pmap`/`pcalls` operation, for `Result.pmap_calls` (docs/spec/runtime.md §2.2)."""

    type: str               # "pmap" or "pcalls"
    count: int              # applications asked for
    success_count: int = 0  # applications that returned a value
    error_count: int = 0    # applications that failed (those the failure then stopped are neither)
    timestamp: float = 0.0  # wall-clock start (seconds since the epoch)
    duration_ms: float = 0.0


def run_parallel(who: str, calls) -> Vector:
    """Run `fn(*args)` for every `(fn, args)` of `calls` on parallel workers; values in input order."""
    n = len(calls)
    caller = M.current()
    if n == 0:
        return Vector([])
    root, deadline = _deadline_for(caller)
    if root.expired:
        root.raise_expired()
    record = ParallelRecord(who, n, timestamp=time.time())
    started = time.perf_counter()
    try:
        return _run_parallel(who, calls, n, caller, root, deadline, record)
    finally:
        record.duration_ms = (time.perf_counter() - started) * 1000
        root.pmap_calls.append(record)  # list.append is atomic; nested operations append from workers


def _run_parallel(who, calls, n, caller, root, deadline, record) -> Vector:
    caller.alloc(seq_cost(n))  # the result vector
    share = worker_share(caller, n)
    out: queue.SimpleQueue = queue.SimpleQueue()
    results = [None] * n
    effects: dict = {}  # index -> worker meter, for workers that printed or called tools
    arrived: dict = {}  # index -> _Done: finished, not yet taken in input order
    held = idle = inflight = nxt = kept = taken = 0
    failed = n  # the lowest index of a worker known to have failed
    try:
        while taken < n:
            done = arrived.pop(taken, None)
            if done is not None:  # workers are taken in input order: the first failure is the lowest index's
                _keep_effects(caller, effects, done)
                if not done.ok:
                    if isinstance(done.value, (KeyboardInterrupt, SystemExit)):  # the host's (from a tool)
                        raise done.value
                    raise worker_error(who, done.index, done.value)
                results[done.index] = done.value
                kept += done.cost
                taken += 1
                continue
            while nxt < n and nxt < failed:  # past a failed worker nothing is kept: start no more
                if idle:
                    idle -= 1
                elif try_acquire(root):
                    held += 1
                else:
                    break
                fn, args = calls[nxt]
                try:
                    POOL.submit(_work, out, WorkerMeter(root, deadline, nxt, share), who, fn, args)
                except RuntimeError:  # the OS would not give us another thread
                    raise PtcError("parallel_capacity_exceeded", "no thread could be started for a parallel worker",
                                   details={"reason": "thread_start_failed"}) from None
                inflight += 1
                nxt += 1
            if not inflight:
                limit = root.limits.max_parallel_workers
                raise PtcError("parallel_capacity_exceeded",
                               f"{who}: no parallel worker is free (all {limit} are busy, e.g. in an enclosing "
                               f"pmap); run fewer nested parallel operations",
                               details={"max_parallel_workers": limit})
            done = _next_done(out, root, deadline, who)
            inflight -= 1
            idle += 1
            arrived[done.index] = done
            if done.ok:
                record.success_count += 1
            else:
                record.error_count += 1
                failed = min(failed, done.index)
        caller.alloc(kept)
        _merge(caller, effects)
        if effects:
            merge_worker_caches(caller, [effects[i] for i in sorted(effects)])
        return Vector(results)
    except BaseException as exc:
        err = exc if isinstance(exc, PtcError) else PtcError("timeout", "evaluation interrupted")
        halt(root, err)
        # workers after the one whose failure this is keep their tool records (those calls did happen),
        # not their printed lines: what is printed does not depend on which of them happened to finish
        for done in arrived.values():
            _keep_effects(caller, effects, done, charge=False, lines=False)
        _drain(caller, out, inflight, effects, record)
        _merge(caller, effects)
        raise
    finally:
        release(root, held)


def _keep_effects(caller: Meter, effects: dict, done: _Done, charge: bool = True, lines: bool = True):
    """Hold a finished worker's printed lines and tool records until the merge.

    The lines are charged to the caller as the workers are taken in input
    order (a worker's own budget ends with it), and count against the
    caller's line limit. `lines=False` keeps the tool records only.
    """
    wm = done.meter
    if not lines:
        wm.prints = []
    if not (wm.prints or wm.tool_calls):
        return
    effects[done.index] = wm
    if charge and wm.prints:
        held = sum(len(w.prints) for w in effects.values())
        if len(caller.prints) + held > caller.limits.max_prints:
            raise PtcError("memory_exceeded", f"too many printed lines (limit {caller.limits.max_prints})")
        caller.alloc(sum(str_cost(len(p)) for p in wm.prints))


def _next_done(out: queue.SimpleQueue, root: Meter, deadline: float | None, who: str) -> _Done:
    while True:
        wait = _POLL_S
        if deadline is not None:
            left = deadline - time.monotonic()
            if left <= 0:
                if root.expired:
                    root.raise_expired()
                if root.deadline is not None and deadline >= root.deadline:  # the evaluation's own clock
                    root.expired = True
                    root.raise_expired()
                ms = root.limits.pmap_timeout_ms
                raise PtcError("timeout", f"{who} did not finish within its parallel deadline of {ms} ms",
                               details={"timeout_ms": ms, "phase": "parallel"})
            wait = min(wait, left)
        try:
            return out.get(timeout=wait)
        except queue.Empty:
            if root.expired:
                # a result may have arrived together with the stop; prefer the worker's own report
                try:
                    return out.get_nowait()
                except queue.Empty:
                    root.raise_expired()


def _drain(caller: Meter, out: queue.SimpleQueue, inflight: int, effects: dict, record=None):
    """Give stopped workers a moment to unwind, so few outlive the failed evaluation.

    Workers finishing meanwhile keep their effects (their tool calls did happen). A worker waiting
    for a tool call gives it the grace period before abandoning it (tool_runner.py), so the wait
    covers that too: the abandoned calls reach the ledger.
    """
    end = time.monotonic() + _GRACE_S + (grace_s(caller) if inflight else 0.0)
    while inflight > 0:
        left = end - time.monotonic()
        if left <= 0:
            return
        try:
            done = out.get(timeout=left)
        except queue.Empty:
            return
        _keep_effects(caller, effects, done, charge=False, lines=False)
        if record is not None and done.ok:  # a worker the stop interrupted did not fail on its own
            record.success_count += 1
        inflight -= 1


def _merge(caller: Meter, effects: dict):
    """Append the printed lines and tool-call records of workers to `caller`, in input order."""
    for i in sorted(effects):
        wm = effects[i]
        if wm.prints:
            caller.prints.extend(wm.prints)
        if wm.tool_calls:
            caller.tool_calls.extend(wm.tool_calls)


# the pmap and pcalls builtins (lib.parallel, a layer below) run their calls here
_builtins.install_engine(run_parallel)
