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
    executing PTC code or builtins (generated code, interp.py, ptclisp/lib,
    the read-only part of ptclisp/values, a few pure stdlib modules) and no
    in-place extension of a value is on the stack: never inside host tool
    code or the evaluator's own bookkeeping, so no shared state is left
    half-updated (`_interruptible`).
  - a **recursion budget**: `Limits.recursion_limit` Python frames above the
    point where the evaluation starts. CPython's recursion limit is
    process-wide, so while evaluations overlap in several threads the
    interpreter limit is the largest any of them needs; when none runs it
    is the host's own value again.

* ``isolation="process"``: `run_in_process` evaluates in a child process
  (from a fork server that has ptclisp loaded) under OS limits: RLIMIT_AS
  bounds its address space and RLIMIT_CPU its CPU time, and the parent kills
  it when twice the wall-clock budget is gone. Tools keep running in the
  host process; the child reaches them through a socket.

Also here: the size estimates used at boundaries (`result_bytes` for
`max_result_bytes`, `retained_bytes` for tool results).
Imports errors (and, lazily, meter, values and the evaluator side of ptclisp).
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
_VALUES = os.path.join(_PKG, "values") + os.sep   # the data model package: only its read-only functions
_PRINTER = (os.path.join(_VALUES, "text.py"), os.path.join(_VALUES, "preview.py"))   # rendering: reads only
_NEVER_UNDER = (os.path.join(_PKG, "tools.py"), os.path.abspath(__file__))  # a tool call in progress, this module
_GENERATED = "<ptc>"
# values/ functions that only read (or build new objects): the in-place extensions
# (conj, assoc, ...) and the lazy rebuild of stale views are left out
_VALUES_SAFE = frozenset({
    "_kind_rank", "_kw_name_ok", "compare", "__call__", "__eq__", "__getitem__", "__hash__", "__iter__",
    "__len__", "__lt__", "__init__", "__new__", "contains", "contains_exact", "find_key", "get_exact", "items",
    "keys", "lookup", "lst", "d", "members", "sort_key", "equal", "hk", "is_fn", "is_number", "sorted_items",
    "sorted_members", "total_order_key", "truthy", "type_name", "unhk", "utf16_key", "values", "from_pairs", "of",
    "kw", "vec",
})
# standard-library modules builtins call into that work only on the objects they are given
_STDLIB = os.path.dirname(os.__file__) + os.sep
_STDLIB_SAFE = tuple(_STDLIB + m for m in (
    "collections" + os.sep + "__init__.py", "functools.py", "statistics.py", "bisect.py", "heapq.py",
    "fractions.py", "string.py", "textwrap.py", "json" + os.sep,
))

_set_async_exc = ctypes.pythonapi.PyThreadState_SetAsyncExc
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
        ok = code.co_name in _VALUES_SAFE
    else:
        ok = fn == _GENERATED or fn.startswith(_LIB) or fn == _INTERP or fn.startswith(_STDLIB_SAFE)
    if not ok:
        return False
    f = frame.f_back  # nothing below may be halfway through extending a value, or inside a tool call
    while f is not None:
        c = f.f_code
        if (c.co_filename.startswith(_VALUES) and c.co_filename not in _PRINTER and c.co_name not in _VALUES_SAFE) \
                or c.co_filename in _NEVER_UNDER:
            return False
        f = f.f_back
    return True


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
            self._armed[tid] = [_Entry(meter)]
        else:
            stack.append(_Entry(meter))  # a stack: evaluations may nest
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
        with self._lock:
            stack = self._armed.get(tid)
            if not stack:
                return
            e = stack.pop()
            if not stack:
                del self._armed[tid]
            if e.delivered:
                _set_async_exc(tid, ctypes.py_object())  # clear it if it is still pending

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
                    m = e.meter
                    if e.delivered:
                        continue
                    if not m.expired:
                        d = m.deadline  # the watchdog (meter.py) expires it; this is the second line
                        if d is None or now < d:
                            continue
                        m.expired = True
                        e.overdue_at = now  # the program learns of it only now: its grace starts now
                    if e.overdue_at is None:
                        e.overdue_at = min(now, m.deadline) if m.deadline is not None else now
                    grace = 0.0 if m.stop_error is not None else _grace_s(m)  # already failed: no grace
                    if now - e.overdue_at < grace:
                        wait = min(wait, e.overdue_at + grace - now)
                        continue
                    if frames is None:
                        frames = sys._current_frames()
                    if _interruptible(frames.get(tid)):
                        if _set_async_exc(tid, HardStop) == 1:
                            for other in stack:
                                other.delivered = True  # one exception unwinds every level
                            self.delivered += 1
                        break
                    wait = 0.001  # not at a safe point: look again in a moment
                    break
            return max(0.001, wait)


ENFORCER = _Enforcer()


# ------------------------------------------------------------------ recursion budget

MAX_RECURSION_LIMIT = 30_000  # frames; keeps C-level recursion far from the end of an 8 MB thread stack


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
        f = sys._getframe(1)
        depth = 0
        while f is not None:
            depth += 1
            f = f.f_back
        need = depth + min(max(frames, 50), MAX_RECURSION_LIMIT)
        with self._lock:
            needs = self._needs
            current = sys.getrecursionlimit()
            if not needs or current != self._applied:
                self._host = current  # the host's own setting (now, or changed meanwhile)
            needs.append((tid, need))
            self._apply(need if len(needs) == 1 else max(n for _, n in needs), current)
        return need

    def exit(self, tid: int):
        with self._lock:
            needs = self._needs
            if len(needs) == 1 and needs[0][0] == tid:
                needs.clear()
            else:
                for i in range(len(needs) - 1, -1, -1):
                    if needs[i][0] == tid:
                        del needs[i]
                        break
            current = sys.getrecursionlimit()
            if current != self._applied:
                self._host = current
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


class guard:
    """Context manager around an evaluation on this thread: its recursion budget (unless `depth=False`,
    as in parallel workers) and the hard stop, which acts only once the meter's clock has run out."""

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
    from itertools import chain
    from .values import Keyword
    from .values.walk import Stop, walk
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


# ------------------------------------------------------------------ process isolation

PROCESS_STARTUP_S = 10.0   # allowance for starting the fork server (later children start in milliseconds)


class _ForkServer:
    """A single-threaded helper process with ptclisp loaded that forks one child per isolated run.

    Forking the host itself is unsafe (its other threads' locks would stay
    held in the child) and a fresh interpreter per run costs ~0.3 s, so a
    pristine server is started once (`python -c ...`) and forks on request.
    The host hands it one end of a socket pair per run (SCM_RIGHTS); that
    socket is the child's only link to the host.
    """

    def __init__(self):
        self._lock = threading.Lock()
        self._ctrl = None
        self._proc = None
        self._atexit = False

    def _ensure(self):
        import socket
        import subprocess
        if self._proc is not None and self._proc.poll() is None:
            return
        self._drop()   # a server that went away: its socket is closed, its process reaped
        if not self._atexit:
            import atexit
            atexit.register(self.close)
            self._atexit = True
        host, srv = socket.socketpair()
        code = ("import sys; sys.path.insert(0, sys.argv[2]); "
                "from ptclisp.isolation import _server_main; _server_main(int(sys.argv[1]))")
        where = os.path.dirname(_PKG)  # the directory holding this ptclisp package
        self._proc = subprocess.Popen([sys.executable, "-c", code, str(srv.fileno()), where],
                                      pass_fds=[srv.fileno()], stdin=subprocess.DEVNULL, close_fds=True)
        srv.close()
        self._ctrl = host

    def close(self):
        """Stop the server (it returns when its control socket closes) and reap it; runs at exit,
        so the host's interpreter ends with no socket or child process of ours left open. A run
        still talking to the server (a daemon thread at exit) keeps it: nothing waits for that run."""
        if self._lock.acquire(timeout=1.0):
            try:
                self._drop()
            finally:
                self._lock.release()

    def _drop(self):
        import subprocess
        ctrl, proc = self._ctrl, self._proc
        self._ctrl = self._proc = None
        if ctrl is not None:
            ctrl.close()
        if proc is not None:
            try:
                proc.wait(timeout=2.0)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()

    def fork(self):
        """Start a child; returns (pid, Connection to it)."""
        import socket
        from multiprocessing.connection import Connection
        a, b = socket.socketpair()
        try:
            with self._lock:
                self._ensure()
                socket.send_fds(self._ctrl, [b"F"], [b.fileno()])
                pid = int.from_bytes(_recv_exact(self._ctrl, 8), "big", signed=True)
        finally:
            b.close()
        return pid, Connection(a.detach())

    def status(self, pid: int) -> int | None:
        """Reap child `pid` (it must have exited or been killed); its wait status."""
        try:
            with self._lock:
                if self._ctrl is None:
                    return None   # closed (the host is exiting)
                self._ctrl.sendall(b"S" + pid.to_bytes(8, "big", signed=True))
                return int.from_bytes(_recv_exact(self._ctrl, 8), "big", signed=True)
        except OSError:
            return None


def _recv_exact(sock, n: int) -> bytes:
    buf = b""
    while len(buf) < n:
        chunk = sock.recv(n - len(buf))
        if not chunk:
            raise OSError("the ptclisp fork server went away")
        buf += chunk
    return buf


SERVER = _ForkServer()


def _server_main(fd: int):
    """The fork server's loop (runs in its own interpreter, single-threaded)."""
    import socket
    import ptclisp  # noqa: F401 - loaded once here, inherited by every child
    from . import lib  # noqa: F401
    ptclisp.read_string("[1]")  # builds the reader's tables now rather than in each child
    ctrl = socket.socket(fileno=fd)
    while True:
        try:
            msg, fds, _flags, _addr = socket.recv_fds(ctrl, 9, 1)
        except OSError:
            return
        if not msg:
            return
        if msg[:1] == b"F" and fds:
            pid = os.fork()
            if pid == 0:
                code = 0
                try:
                    ctrl.close()
                    _child_main(fds[0])
                except BaseException:  # noqa: BLE001 - nothing may unwind into the server loop
                    code = 70
                finally:
                    os._exit(code)
            os.close(fds[0])
            ctrl.sendall(pid.to_bytes(8, "big", signed=True))
        elif msg[:1] == b"S":
            while len(msg) < 9:
                more = ctrl.recv(9 - len(msg))
                if not more:
                    return
                msg += more
            pid = int.from_bytes(msg[1:9], "big", signed=True)
            try:
                _, status = os.waitpid(pid, 0)
            except ChildProcessError:
                status = -1
            ctrl.sendall(status.to_bytes(8, "big", signed=True))
        for extra in fds[1:]:
            os.close(extra)


class _HostToolError(Exception):
    """A host tool raised in the parent process; its message travels to the child."""


def run_in_process(source, context=None, tools=None, limits=None, preludes=None, strict_data=False):
    """`ptclisp.run` in a child process under OS limits; returns the child's `Result`.

    The child's address space is capped by RLIMIT_AS (`Limits.process_memory_bytes`,
    default 64 x `memory_bytes`, at least 512 MB, above the size it starts at),
    its CPU time by RLIMIT_CPU (the wall-clock budget, rounded up, plus one
    second), and the host kills it when twice the wall-clock budget has
    passed. A child that dies reports `timeout` (killed by the clock or CPU
    limit) or `memory_exceeded` (killed by anything else, typically failing
    allocations); its prints are then lost, tool calls are kept (they ran here).
    """
    import signal

    import attrs as _attrs

    from .evaluator import ErrorInfo, Result
    from .meter import Limits
    from .tools import Tool, ToolSet

    limits = limits or Limits()
    t0 = time.perf_counter()
    try:
        toolset = tools if isinstance(tools, ToolSet) else ToolSet(tools)
    except (TypeError, ValueError) as exc:
        return Result("error", error=ErrorInfo("type_error", str(exc)))
    specs = []
    for t in toolset.tools.values():
        specs.append({f.name: getattr(t, f.name) for f in _attrs.fields(Tool) if f.init and f.name != "fn"})
    request = (source, context, specs, _attrs.evolve(limits, isolation="thread"), preludes, strict_data)
    try:
        pid, conn = SERVER.fork()
    except OSError as exc:
        return Result("error", error=ErrorInfo("runtime_error", f"could not start an isolated evaluation: {exc}"))
    ledger: list = []
    send_lock = threading.Lock()
    result = None
    killed = False
    try:
        try:
            conn.send(request)
        except Exception as exc:  # noqa: BLE001 - e.g. a context that does not pickle
            return Result("error", error=ErrorInfo("type_error", f"the input cannot be sent to an isolated "
                                                                 f"evaluation: {type(exc).__name__}: {exc}"[:300]))
        wall = (limits.timeout_ms or 3_600_000) / 1000.0
        kill_at = time.monotonic() + 2 * wall + 0.5
        while result is None:
            left = kill_at - time.monotonic()
            if left <= 0:
                break
            try:
                if not conn.poll(min(left, 0.25)):
                    continue
                msg = conn.recv()
            except (EOFError, OSError):
                break
            if msg[0] == "tool":
                threading.Thread(target=_serve_tool, args=(conn, send_lock, toolset, msg, ledger),
                                 name="ptclisp-isolated-tool", daemon=True).start()
            elif msg[0] == "done":
                result = msg[1]
    finally:
        if result is None:
            try:
                os.kill(pid, signal.SIGKILL)
                killed = True
            except ProcessLookupError:
                pass
        with send_lock:
            conn.close()
        status = SERVER.status(pid)
    if result is not None:
        return result
    sig = os.WTERMSIG(status) if status is not None and status >= 0 and os.WIFSIGNALED(status) else None
    elapsed = (time.perf_counter() - t0) * 1000
    if sig in (signal.SIGXCPU, signal.SIGKILL) or killed:
        err = ErrorInfo("timeout", f"the isolated evaluation exceeded its time limit of {limits.timeout_ms} ms "
                                   f"and its process was stopped",
                        details={"timeout_ms": limits.timeout_ms, "phase": "eval", "signal": sig})
    else:
        err = ErrorInfo("memory_exceeded", "the isolated evaluation's process died, most likely out of memory",
                        details={"wait_status": status, "signal": sig})
    return Result("error", error=err, tool_calls=ledger, duration_ms=elapsed)


def _serve_tool(conn, send_lock, toolset, msg, ledger):
    """Run one tool call for the child (on its own thread, so calls from pmap workers overlap)."""
    _, rid, name, payload = msg
    tool = toolset.tools.get(name)
    t0 = time.perf_counter()
    try:
        reply = ("ok", tool.fn(payload))
    except PtcError as exc:
        reply = ("ptc", exc.kind, exc.message, dict(exc.details or {}))
    except BaseException as exc:  # noqa: BLE001 - reported to the child as a failing tool
        reply = ("raise", f"{type(exc).__name__}: {exc}"[:500])
    from .tools import ToolCallRecord
    ledger.append(ToolCallRecord(name, payload, reply[1] if reply[0] == "ok" else None,
                                 None if reply[0] == "ok" else reply[-1] if reply[0] == "raise" else reply[2],
                                 (time.perf_counter() - t0) * 1000))
    try:
        with send_lock:
            conn.send((rid, reply))
    except Exception:  # noqa: BLE001 - the child is gone or the value cannot be sent
        try:
            with send_lock:
                conn.send((rid, ("raise", "tool result could not be sent to the isolated evaluation")))
        except Exception:  # noqa: BLE001
            pass


def _set_os_limits(limits):
    import resource
    try:  # fewer malloc arenas: each reserves 64 MB of address space per thread (glibc)
        ctypes.CDLL(None).mallopt(-8, 2)  # M_ARENA_MAX
    except (OSError, AttributeError):
        pass
    cpu = int((limits.timeout_ms or 3_600_000) / 1000.0) + 1
    used = resource.getrusage(resource.RUSAGE_SELF)
    cpu += int(used.ru_utime + used.ru_stime)
    resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu + 1))
    room = limits.process_memory_bytes
    if room is None:
        room = max(512 << 20, 64 * (limits.memory_bytes or 0))
    with open("/proc/self/statm") as f:
        vm_now = int(f.read().split()[0]) * os.sysconf("SC_PAGE_SIZE")
    resource.setrlimit(resource.RLIMIT_AS, (vm_now + room, vm_now + room))


def _child_main(fd: int):
    """The isolated evaluation: OS limits, proxies for the host's tools, then an ordinary run."""
    from multiprocessing.connection import Connection

    from . import api
    from .tools import Tool
    conn = Connection(fd)
    source, context, specs, limits, preludes, strict_data = conn.recv()
    try:
        _set_os_limits(limits)
    except (OSError, ValueError, ImportError):
        pass  # not on Linux: the cooperative limits still hold
    send_lock = threading.Lock()
    pending: dict = {}
    ids = iter(range(1 << 62))

    def receive():
        while True:
            try:
                rid, reply = conn.recv()
            except (EOFError, OSError):
                for slot in list(pending.values()):
                    slot[1] = ("raise", "the host went away")
                    slot[0].set()
                return
            slot = pending.get(rid)
            if slot is not None:
                slot[1] = reply
                slot[0].set()

    threading.Thread(target=receive, name="ptclisp-isolated-recv", daemon=True).start()

    def proxy_for(name):
        def call_host(payload):
            rid = next(ids)
            slot = pending[rid] = [threading.Event(), None]
            with send_lock:
                conn.send(("tool", rid, name, payload))
            slot[0].wait()
            del pending[rid]
            reply = slot[1]
            if reply[0] == "ok":
                return reply[1]
            if reply[0] == "ptc":
                raise PtcError(reply[1], reply[2], details=reply[3])
            raise _HostToolError(reply[1])
        return call_host

    tools = [Tool(fn=proxy_for(s["name"]), **s) for s in specs]
    r = api.run(source, context=context, tools=tools, limits=limits, preludes=preludes, strict_data=strict_data)
    try:
        r.value = portable(r.value)
    except PtcError:
        pass  # nested too deeply to copy: left as it is; sending it fails below and is reported
    try:
        payload = ("done", r)
        with send_lock:
            conn.send(payload)
    except Exception as exc:  # noqa: BLE001 - something in the result does not pickle
        from .evaluator import ErrorInfo, Result
        bad = Result("error", error=ErrorInfo("runtime_error", f"the result could not leave the isolated "
                                                               f"process: {type(exc).__name__}"[:300]),
                     prints=list(r.prints), duration_ms=r.duration_ms)
        with send_lock:
            conn.send(("done", bad))


def portable(value):
    """`value` with functions replaced by their display labels (`#fn[x]`), so it can leave the process
    (the copy of convert.detach: iterative, shared parts stay shared)."""
    from .convert import detach
    return detach(value, label_functions=True)


def retained_bytes(value) -> int:
    """The meter's cost-model estimate of the memory `value` keeps alive (shared parts counted once)."""
    from itertools import chain
    from .meter import map_cost, seq_cost, str_cost
    from .values import Keyword
    from .values.walk import walk
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
