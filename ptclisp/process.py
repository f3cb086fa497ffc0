"""The process option: `isolation="process"` evaluates in a child process under OS limits.

`run_in_process` hands the program to a child forked from a fork server
that has ptclisp loaded (forking the host itself is unsafe, a fresh
interpreter per run is slow). RLIMIT_AS bounds the child's address space
and RLIMIT_CPU its CPU time, and the parent kills it when twice the
wall-clock budget is gone. Tools keep running in the host process; the
child reaches them through a socket. docs/security.md explains the
trade-off against the in-thread guards (ptclisp.guards).

Sits at the top beside the API (`ptclisp.run` calls it); the child runs the
program with `session.run_in_thread`. Imports session, tools, meter,
convert, reader, errors and error_translation.
"""
from __future__ import annotations

import ctypes
import os
import signal
import sys
import threading
import time

import attrs

from .convert import detach
from .error_translation import ErrorInfo
from .errors import PtcError
from .meter import Limits
from .reader import read_string
from .session import Result, load_builtins, run_in_thread
from .tools import Tool, ToolCallRecord, ToolSet

_PKG = os.path.dirname(os.path.abspath(__file__))


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
                "from ptclisp.process import _server_main; _server_main(int(sys.argv[1]))")
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
    # load every builtin family and build the reader's tables now rather than in each child:
    # the children inherit them
    load_builtins()
    read_string("[1]")
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


def run_in_process(source, context=None, tools=None, limits=None, preludes=None, strict_data=False) -> Result:
    """`ptclisp.run` in a child process under OS limits; returns the child's `Result`.

    The child's address space is capped by RLIMIT_AS (`Limits.process_memory_bytes`,
    default 64 x `memory_bytes`, at least 512 MB, above the size it starts at),
    its CPU time by RLIMIT_CPU (the wall-clock budget, rounded up, plus one
    second), and the host kills it when twice the wall-clock budget has
    passed. A child that dies reports `timeout` (killed by the clock or CPU
    limit) or `memory_exceeded` (killed by anything else, typically failing
    allocations); its prints are then lost, tool calls are kept (they ran here).
    """
    limits = limits or Limits()
    t0 = time.perf_counter()
    try:
        toolset = tools if isinstance(tools, ToolSet) else ToolSet(tools)
    except (TypeError, ValueError) as exc:
        return Result("error", error=ErrorInfo("type_error", str(exc)))
    specs = [{f.name: getattr(t, f.name) for f in attrs.fields(Tool) if f.init and f.name != "fn"}
             for t in toolset.tools.values()]
    request = (source, context, specs, attrs.evolve(limits, isolation="thread"), preludes, strict_data)
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
        result = _serve_child(conn, send_lock, toolset, ledger, limits)
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
    return _death_result(status, killed, limits, ledger, (time.perf_counter() - t0) * 1000)


def _serve_child(conn, send_lock, toolset, ledger: list, limits) -> Result | None:
    """Answer the child's tool calls until it sends its result (returned) or goes away, or until
    twice its wall-clock budget has passed (None)."""
    wall = (limits.timeout_ms or 3_600_000) / 1000.0
    kill_at = time.monotonic() + 2 * wall + 0.5
    while True:
        left = kill_at - time.monotonic()
        if left <= 0:
            return None
        try:
            if not conn.poll(min(left, 0.25)):
                continue
            msg = conn.recv()
        except (EOFError, OSError):
            return None
        if msg[0] == "tool":
            threading.Thread(target=_serve_tool, args=(conn, send_lock, toolset, msg, ledger),
                             name="ptclisp-isolated-tool", daemon=True).start()
        elif msg[0] == "done":
            return msg[1]


def _death_result(status: int | None, killed: bool, limits, ledger: list, elapsed_ms: float) -> Result:
    """The error for a child that ended without a result: stopped by the clock or its CPU limit
    (`timeout`), else most likely out of memory."""
    sig = os.WTERMSIG(status) if status is not None and status >= 0 and os.WIFSIGNALED(status) else None
    if sig in (signal.SIGXCPU, signal.SIGKILL) or killed:
        err = ErrorInfo("timeout", f"the isolated evaluation exceeded its time limit of {limits.timeout_ms} ms "
                                   f"and its process was stopped",
                        details={"timeout_ms": limits.timeout_ms, "phase": "eval", "signal": sig})
    else:
        err = ErrorInfo("memory_exceeded", "the isolated evaluation's process died, most likely out of memory",
                        details={"wait_status": status, "signal": sig})
    return Result("error", error=err, tool_calls=ledger, duration_ms=elapsed_ms)


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
    r = run_in_thread(source, context, tools, limits, preludes, strict_data)
    try:
        r.value = portable(r.value)
    except PtcError:
        pass  # nested too deeply to copy: left as it is; sending it fails below and is reported
    try:
        payload = ("done", r)
        with send_lock:
            conn.send(payload)
    except Exception as exc:  # noqa: BLE001 - something in the result does not pickle
        bad = Result("error", error=ErrorInfo("runtime_error", f"the result could not leave the isolated "
                                                               f"process: {type(exc).__name__}"[:300]),
                     prints=list(r.prints), duration_ms=r.duration_ms)
        with send_lock:
            conn.send(("done", bad))


def portable(value):
    """`value` with functions replaced by their display labels (`#fn[x]`), so it can leave the process
    (the copy of convert.detach: iterative, shared parts stay shared)."""
    return detach(value, label_functions=True)

