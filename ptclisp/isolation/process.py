"""The process option: `isolation="process"` evaluates in a worker process under OS limits.

`run_in_process` hands the program (source, context, the tools' specs,
limits) to a warm worker of the pool in ptclisp.isolation.pool: a process
forked from a fork server that has ptclisp loaded (forking the host itself
is unsafe, a fresh interpreter per run is slow). RLIMIT_AS bounds the
worker's address space and RLIMIT_CPU its CPU time for the run, and the
host kills it when twice the wall-clock budget is gone. Tools keep running
in the host process; the worker reaches them through its socket. Each run
gets a fresh Session in the worker; a worker serves another run only when
this one ended cleanly, otherwise it is killed and replaced.
docs/security.md explains the trade-off against the in-thread guards
(ptclisp.runtime.guards).

Sits at the top beside the API (`ptclisp.run` calls it); the worker runs the
program with `session.run_once` (the inputs were checked in the host). Imports process_pool, session, tools,
meter, interchange.python, the reader, errors and runtime.failures.
"""
from __future__ import annotations

import ctypes
import operator
import os
import pickle
import signal
import threading
import time

import attrs

from ..interchange.python import detach
from ..runtime.failures import ErrorInfo
from ..errors import PtcError
from ..runtime.meter import Limits
from ..reader.parser import read_string
from .pool import Channel, ForkServer, WorkerPool
from ..session import Result, load_builtins, run_once
from ..host.tools import Tool, ToolCallRecord, ToolSet


SERVER = ForkServer("ptclisp.isolation.process:_worker_main")
POOL = WorkerPool(SERVER)


def prepare_server():
    """Runs once in the fork server: load every builtin family and build the reader's tables now
    rather than in each worker (they inherit them)."""
    load_builtins()
    read_string("[1]")


class _HostToolError(Exception):
    """A host tool raised in the parent process; its message travels to the child."""


def run_in_process(source, context=None, tools=None, limits=None, preludes=None, strict_data=False) -> Result:
    """`ptclisp.run` in a worker process under OS limits; returns the worker's `Result`.

    The worker's address space may grow by `Limits.process_memory_bytes`
    (RLIMIT_AS; default 64 x `memory_bytes`, at least 512 MB) over its size
    when the run starts, its CPU time by the wall-clock budget rounded up
    plus one second (RLIMIT_CPU), and the host kills it when twice the
    wall-clock budget has passed. A worker that dies reports `timeout`
    (killed by the clock or the CPU limit) or `memory_exceeded` (killed by
    anything else, typically failing allocations); its prints are then lost,
    tool calls are kept (they ran here). A worker serves the next run only
    when this one ended cleanly (`_reusable`); otherwise it is killed.
    """
    limits = limits or Limits()
    t0 = time.perf_counter()
    try:
        toolset = tools if isinstance(tools, ToolSet) else ToolSet(tools)
    except (TypeError, ValueError) as exc:
        return Result("error", error=ErrorInfo("type_error", str(exc)))
    specs = [{f.name: getattr(t, f.name) for f in _SPEC_FIELDS} for t in toolset.tools.values()]
    request = ("run", source, context, specs, _limits_payload(limits), preludes, strict_data)
    try:
        payload = Channel.dumps(request)   # once; no worker is taken for input that cannot go
    except Exception as exc:  # noqa: BLE001 - e.g. a context that does not pickle
        return Result("error", error=ErrorInfo("type_error", f"the input cannot be sent to an isolated "
                                                             f"evaluation: {type(exc).__name__}: {exc}"[:300]))
    worker = _hand_over(payload)
    if isinstance(worker, Result):
        return worker
    run = _HostRun(worker.conn, toolset)
    end = None
    try:
        end = _serve_child(run, limits)
    finally:
        if end is not None and end[0] == "done" and end[2] and run.settled():
            POOL.release(worker)
            status = None
        else:
            worker.conn.close()   # under its send lock: a tool thread still answering finishes first
            status = POOL.discard(worker)
    if end[0] == "done":
        return end[1]
    ledger = list(run.ledger)   # as it is now: a tool call still running here is not added later
    return _death_result(status, end[0] == "late", limits, ledger, (time.perf_counter() - t0) * 1000)


def _hand_over(payload: bytes):
    """Send a pickled request to a warm worker; the worker, or an error Result. A worker found gone
    as the request is written (it died idle) is replaced once."""
    problem = None
    for _ in range(2):
        try:
            worker = POOL.acquire()
        except OSError as exc:
            problem = exc
            break
        try:
            worker.conn.send_bytes(payload)
            return worker
        except OSError as exc:
            problem = exc
            POOL.discard(worker)
    return Result("error", error=ErrorInfo("runtime_error", f"could not start an isolated evaluation: {problem}"))


_SPEC_FIELDS = tuple(f for f in attrs.fields(Tool) if f.init and f.name != "fn")

_limits_values = operator.attrgetter(*(f.name for f in attrs.fields(Limits)))
_LIMITS_PICKLED: dict = {}   # (Limits type, its field values) -> the pickled copy the worker runs under


def _limits_payload(limits) -> bytes:
    """The worker's limits (`limits` with isolation="thread"), pickled; the same bytes for equal
    limits, remembered for the last few distinct ones (every field is a plain int, str or None)."""
    key = (type(limits), _limits_values(limits))
    try:
        data = _LIMITS_PICKLED.get(key)
    except TypeError:   # a field set to something unhashable: not remembered
        return Channel.dumps(attrs.evolve(limits, isolation="thread"))
    if data is None:
        data = Channel.dumps(attrs.evolve(limits, isolation="thread"))
        if len(_LIMITS_PICKLED) >= 32:
            _LIMITS_PICKLED.clear()
        _LIMITS_PICKLED[key] = data
    return data


class _HostRun:
    """The host's side of one isolated run: the worker's socket, the tools, the ledger of calls,
    and how many tool calls are still running here."""

    def __init__(self, conn, toolset):
        self.conn = conn
        self.toolset = toolset
        self.ledger: list = []
        self._count_lock = threading.Lock()
        self.running = 0

    def started(self):
        with self._count_lock:
            self.running += 1

    def finished(self):
        with self._count_lock:
            self.running -= 1

    def settled(self) -> bool:
        """No tool call of this run is still running (its answer would reach the worker's next run)."""
        with self._count_lock:
            return self.running == 0


def _serve_child(run: _HostRun, limits):
    """Answer the worker's tool calls until it sends its result, goes away, or outlives twice its
    wall-clock budget: ("done", Result, reusable), ("gone", None) or ("late", None)."""
    wall = (limits.timeout_ms or 3_600_000) / 1000.0
    kill_at = time.monotonic() + 2 * wall + 0.5
    conn = run.conn
    while True:
        left = kill_at - time.monotonic()
        if left <= 0:
            return ("late", None)
        try:
            msg = conn.recv(left)
        except TimeoutError:
            return ("late", None)
        except (EOFError, OSError):
            return ("gone", None)
        if msg[0] == "tool":
            run.started()
            threading.Thread(target=_serve_tool, args=(run, msg), name="ptclisp-isolated-tool", daemon=True).start()
        elif msg[0] == "done":
            result = Result(*msg[1])
            return ("done", result, msg[2] and _reusable(result))
        else:
            return ("gone", None)


# an error kind (or the reason a pmap/pcalls error gives for its branch) with one of these is a limit hit
_LIMIT_MARKS = ("limit", "exceeded", "timeout", "too_large", "internal")


def _reusable(result: Result) -> bool:
    """Whether a worker may serve again after a run that ended with `result`: not after a limit was
    hit (time, memory, loops, tool calls, sizes, a regex's time; also inside a pmap or pcalls branch)
    or an internal error."""
    err = result.error
    if err is None:
        return True
    if "limit exceeded" in (err.message or ""):   # e.g. a regex out of time, reported as type_error
        return False
    kind, details = err.kind, err.details
    for _ in range(64):
        if any(mark in kind for mark in _LIMIT_MARKS):
            return False
        if not isinstance(details, dict) or not isinstance(details.get("reason"), str):
            return True
        kind, details = details["reason"], details.get("details")
    return False


def _death_result(status: int | None, late: bool, limits, ledger: list, elapsed_ms: float) -> Result:
    """The error for a worker that ended without a result: stopped by the clock or its CPU limit
    (`timeout`), else most likely out of memory."""
    sig = os.WTERMSIG(status) if status is not None and status >= 0 and os.WIFSIGNALED(status) else None
    if late or sig == signal.SIGXCPU:
        err = ErrorInfo("timeout", f"the isolated evaluation exceeded its time limit of {limits.timeout_ms} ms "
                                   f"and its process was stopped",
                        details={"timeout_ms": limits.timeout_ms, "phase": "eval", "signal": sig})
    else:
        err = ErrorInfo("memory_exceeded", "the isolated evaluation's process died, most likely out of memory",
                        details={"wait_status": status, "signal": sig})
    return Result("error", error=err, tool_calls=ledger, duration_ms=elapsed_ms)


def _serve_tool(run: _HostRun, msg):
    """Run one tool call for the worker (on its own thread, so calls from pmap workers overlap)."""
    answered = False
    try:
        _, rid, name, payload = msg
        tool = run.toolset.tools.get(name)
        t0 = time.perf_counter()
        try:
            reply = ("ok", tool.fn(payload))
        except PtcError as exc:
            reply = ("ptc", exc.kind, exc.message, dict(exc.details or {}))
        except BaseException as exc:  # noqa: BLE001 - reported to the worker as a failing tool
            reply = ("raise", f"{type(exc).__name__}: {exc}"[:500])
        run.ledger.append(ToolCallRecord(name, payload, reply[1] if reply[0] == "ok" else None,
                                         None if reply[0] == "ok" else reply[-1] if reply[0] == "raise" else reply[2],
                                         (time.perf_counter() - t0) * 1000))
        # counted out before the answer leaves: the worker reports its run only after the answer
        # arrived, and a worker left waiting for an answer reports itself unclean
        run.finished()
        answered = True
        try:
            run.conn.send((rid, reply))
        except Exception:  # noqa: BLE001 - the worker is gone or the value cannot be sent
            try:
                run.conn.send((rid, ("raise", "tool result could not be sent to the isolated evaluation")))
            except Exception:  # noqa: BLE001
                pass
    finally:
        if not answered:
            run.finished()


# ---------------------------------------------------------------- the worker process

# a worker whose address space grew this much over its size at birth is not reused
_WORKER_GROWTH_BYTES = 256 << 20


class _WorkerState:
    """What a worker keeps between runs besides its socket: nothing of a run, only its own facts (the
    /proc/self/statm descriptor, its hard limits) and the last limits it received (a Limits is
    configuration no run changes; the same bytes give the same object, as one Limits passed to
    many in-process runs)."""

    statm = -1                 # an open /proc/self/statm (-1: not there)
    statm_pid = 0              # the process that opened it (/proc/self is resolved when opened)
    page = 4096
    hard: dict = {}            # RLIMIT_* -> this worker's hard limit (fixed: it is never raised)
    limits_bytes = b""
    limits = None


def _vm_bytes() -> int:
    """This process's address-space size (0 where /proc is not there to tell): one pread of a kept
    descriptor (opening the file for each run cost ~10 us)."""
    st = _WorkerState
    try:
        if st.statm_pid != os.getpid():   # never one inherited from the process we were forked from
            st.statm, st.statm_pid = -1, os.getpid()
            st.statm = os.open("/proc/self/statm", os.O_RDONLY | getattr(os, "O_CLOEXEC", 0))
            st.page = os.sysconf("SC_PAGE_SIZE")
        return int(os.pread(st.statm, 128, 0).split()[0]) * st.page
    except (OSError, ValueError, IndexError):
        return 0


def _worker_limits(data: bytes):
    """The Limits a request's pickled limits stand for (unpickled only when they changed)."""
    st = _WorkerState
    if data != st.limits_bytes:
        st.limits = pickle.loads(data)
        st.limits_bytes = data
    return st.limits


def _set_os_limits(limits, vm_now: int):
    """This run's OS limits: soft limits only, so that `_lift_os_limits` can take them off again for
    the next request (the program cannot reach setrlimit); CPU time counts from what the worker has
    used so far, the address space from its size now."""
    import resource
    cpu = int((limits.timeout_ms or 3_600_000) / 1000.0) + 1
    used = resource.getrusage(resource.RUSAGE_SELF)
    cpu += int(used.ru_utime + used.ru_stime)
    room = limits.process_memory_bytes
    if room is None:
        room = max(512 << 20, 64 * (limits.memory_bytes or 0))
    for which, soft in ((resource.RLIMIT_CPU, cpu), (resource.RLIMIT_AS, vm_now + room)):
        hard = _hard_limit(which)
        resource.setrlimit(which, (soft if hard == resource.RLIM_INFINITY else min(soft, hard), hard))


def _hard_limit(which: int) -> int:
    hard = _WorkerState.hard.get(which)
    if hard is None:
        import resource
        hard = _WorkerState.hard[which] = resource.getrlimit(which)[1]
    return hard


def _lift_os_limits():
    """Between runs: back to the worker's own limits, so the next request is received (and its
    context unpickled) as before a first run."""
    try:
        import resource
        for which in (resource.RLIMIT_CPU, resource.RLIMIT_AS):
            hard = _hard_limit(which)
            resource.setrlimit(which, (hard, hard))
    except (OSError, ValueError, ImportError):
        pass


def _worker_main(fd: int, idle_s: float):
    """A worker: one isolated run after another, each with a fresh Session, until the host closes the
    socket, `idle_s` pass without a request, or a run did not end cleanly."""
    import socket
    try:  # fewer malloc arenas: each reserves 64 MB of address space per thread (glibc)
        ctypes.CDLL(None).mallopt(-8, 2)  # M_ARENA_MAX
    except (OSError, AttributeError):
        pass
    conn = Channel(socket.socket(fileno=fd))
    born = vm = _vm_bytes()
    while True:
        try:
            msg = conn.recv(idle_s)
        except (EOFError, OSError):   # the host closed the socket, or idle_s passed (TimeoutError)
            return
        if not (isinstance(msg, tuple) and msg[:1] == ("run",)):
            return
        clean, vm = _child_run(conn, msg[1:], vm, born)
        del msg
        if not clean:
            return
        _lift_os_limits()


# threads of ptclisp that outlive a run by design: the deadline watchers, and the idle threads of the
# parallel engine's and the tool calls' pools
_SERVICE_THREADS = ("ptclisp-hardstop", "ptclisp-watchdog")


def _threads_settled() -> bool:
    """No thread is still busy with the run that just ended (a parallel worker a stopped pmap left
    running, a tool call it abandoned); waits a moment for threads that are just going back to their pool."""
    from ..parallel import POOL as parallel_threads   # loaded in every worker already (the fork server loads them)
    from ..host.tool_threads import THREADS as tool_threads
    pools = (parallel_threads, tool_threads)
    main = threading.main_thread()
    for _ in range(50):
        busy = [0, 0]
        for t in threading.enumerate():
            if t is main or t.name in _SERVICE_THREADS:
                continue
            for i, pool in enumerate(pools):
                if pool.owns(t):
                    busy[i] += 1
                    break
            else:
                return False
        if all(n <= pool.size() for n, pool in zip(busy, pools)):
            return True
        time.sleep(0.001)
    return False


class _HostLink:
    """The worker's side of tool calls: send a request, wait for its answer. Whichever waiting thread
    finds no one reading reads the socket and hands answers to the others (no reader thread)."""

    def __init__(self, conn):
        self.conn = conn
        self._cond = threading.Condition()
        self._reading = False
        self._answers: dict = {}
        self._waiting = 0
        self._gone = False
        self._ids = iter(range(1 << 62))

    def call(self, name, payload):
        with self._cond:
            rid = next(self._ids)
            self._waiting += 1
        try:
            self.conn.send(("tool", rid, name, payload))
            return self._answer(rid)
        finally:
            with self._cond:
                self._waiting -= 1

    def _answer(self, rid):
        with self._cond:
            while rid not in self._answers:
                if self._gone:
                    return ("raise", "the host went away")
                if not self._reading:
                    self._reading = True
                    break
                self._cond.wait()
            else:
                return self._answers.pop(rid)
        try:
            while True:
                try:
                    got, reply = self.conn.recv()
                except (EOFError, OSError, ValueError, TypeError, pickle.UnpicklingError):
                    with self._cond:
                        self._gone = True
                    return ("raise", "the host went away")
                with self._cond:
                    if got == rid:
                        return reply
                    self._answers[got] = reply
                    self._cond.notify_all()
        finally:
            with self._cond:
                self._reading = False
                self._cond.notify_all()

    def settled(self) -> bool:
        """No call is waiting and no answer is left over."""
        with self._cond:
            return self._waiting == 0 and not self._answers and not self._gone


def _child_run(conn, request, vm_now: int, vm_born: int) -> tuple[bool, int]:
    """One isolated run in this worker: OS limits, proxies for the host's tools, then an ordinary run
    with a fresh Session; sends ("done", Result, clean) and returns (clean, the size it ended at).
    Clean: no limit hit, no tool call left waiting, no thread still busy, the process not grown past
    its bound."""
    source, context, specs, limits, preludes, strict_data = request
    limits = _worker_limits(limits)
    try:
        _set_os_limits(limits, vm_now)
    except (OSError, ValueError, ImportError):
        pass  # not on Linux: the cooperative limits still hold
    link = _HostLink(conn) if specs else None

    def proxy_for(name):
        def call_host(payload):
            reply = link.call(name, payload)
            if reply[0] == "ok":
                return reply[1]
            if reply[0] == "ptc":
                raise PtcError(reply[1], reply[2], details=reply[3])
            raise _HostToolError(reply[1])
        return call_host

    tools = [Tool(fn=proxy_for(s["name"]), **s) for s in specs]
    r = run_once(source, context, tools, limits, preludes, strict_data)
    try:
        r.value = portable(r.value)
    except PtcError:
        pass  # nested too deeply to copy: left as it is; sending it fails below and is reported
    vm_now = _vm_bytes()
    clean = (_reusable(r) and (link is None or link.settled()) and vm_now - vm_born <= _WORKER_GROWTH_BYTES
             and _threads_settled())
    try:
        conn.send(("done", _fields(r), clean))
    except Exception as exc:  # noqa: BLE001 - something in the result does not pickle
        bad = Result("error", error=ErrorInfo("runtime_error", f"the result could not leave the isolated "
                                                               f"process: {type(exc).__name__}"[:300]),
                     prints=list(r.prints), duration_ms=r.duration_ms)
        clean = False
        conn.send(("done", _fields(bad), False))
    return clean, vm_now


_RESULT_FIELDS = tuple(f.name for f in attrs.fields(Result))


def _fields(result: Result) -> tuple:
    """A Result as the tuple of its fields (in order), cheaper to pickle than the object."""
    return tuple(getattr(result, name) for name in _RESULT_FIELDS)


def portable(value):
    """`value` with functions replaced by their display labels (`#fn[x]`), so it can leave the process
    (the copy of convert.detach: iterative, shared parts stay shared)."""
    return detach(value, label_functions=True)

