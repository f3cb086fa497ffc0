"""Warm worker processes for `isolation="process"`: a fork server and a bounded pool of its children.

A fork server (`ForkServer`: a fresh, single-threaded interpreter with
ptclisp loaded) is started once; the pool (`WorkerPool`) asks it for
workers, each a fork of it that serves one isolated run after another
over its own socket. What a worker runs is named when the server starts
(`module:function`, called with the socket's descriptor and the idle time
after which the worker ends by itself; the module's `prepare_server()`, if
any, runs in the server first); ptclisp.isolation.process supplies it.

The pool hands a worker to one run at a time. A run that ended cleanly
gives its worker back (`release`); any other end (a limit hit, a crash, a
kill by the clock, anything the worker or the host found abnormal) has the
worker killed and reaped (`discard`), and a fresh one is forked at once so
the next run finds a warm worker. At most `max_workers` worker processes
exist at a time (a run waits for one to come back); workers idle longer
than `idle_s` are stopped when the pool is next used, and a worker idle
30 s longer than that ends by itself (the server reaps it). Nothing is left at exit: the pool closes every
worker's socket and the server, which kills and reaps the workers it still
has before it ends. After `os.fork()` in the host the child forgets the
parent's server and workers (fresh locks, a process id check) and starts
its own when it first needs one.

Sits between ptclisp.isolation.process (which runs programs on the workers) and the
session layer; imports nothing of ptclisp but the package location.
"""
from __future__ import annotations

import atexit
import math
import os
import pickle
import select
import signal
import socket
import struct
import sys
import threading
import time
import weakref

_PKG = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))  # the ptclisp package


def _recv_exact(sock, n: int) -> bytes:
    buf = b""
    while len(buf) < n:
        chunk = sock.recv(n - len(buf))
        if not chunk:
            raise OSError("the ptclisp fork server went away")
        buf += chunk
    return buf


def _int8(value: int) -> bytes:
    return value.to_bytes(8, "big", signed=True)


_HEADER = struct.Struct("!Q")
_NOSIGNAL = getattr(socket, "MSG_NOSIGNAL", 0)   # a gone peer is an error, not SIGPIPE
_CHUNK = 1 << 16


class Channel:
    """Pickled messages over one end of a stream socket: each message is a single length-prefixed
    frame, written with one `sendall` under `send_lock` (several threads may send) and read by one
    thread at a time (`recv`), with no acknowledgements and no helper threads. Small frames are read
    with one system call (plus one `poll` when a timeout is given); large ones straight into a buffer
    of their exact size."""

    __slots__ = ("sock", "send_lock", "_buf", "_poll")

    def __init__(self, sock):
        self.sock = sock
        self.send_lock = threading.Lock()
        self._buf = bytearray()
        self._poll = select.poll()
        self._poll.register(sock.fileno(), select.POLLIN)

    @staticmethod
    def dumps(obj) -> bytes:
        return pickle.dumps(obj, protocol=pickle.HIGHEST_PROTOCOL)

    def send(self, obj):
        self.send_bytes(self.dumps(obj))

    def send_bytes(self, data: bytes):
        """Send one frame (OSError once the channel is closed or the peer has gone)."""
        with self.send_lock:
            if len(data) < _CHUNK:
                self.sock.sendall(_HEADER.pack(len(data)) + data, _NOSIGNAL)
            else:
                self.sock.sendall(_HEADER.pack(len(data)), _NOSIGNAL)
                self.sock.sendall(data, _NOSIGNAL)

    def recv(self, timeout: float | None = None):
        """The next message. EOFError when the peer closed its end (or the frame is cut short),
        TimeoutError when `timeout` seconds pass before the whole frame arrived."""
        deadline = None if timeout is None else time.monotonic() + timeout
        buf = self._buf
        while len(buf) < 8:
            self._fill(deadline)
        n = _HEADER.unpack_from(buf)[0]
        if len(buf) - 8 >= n:
            data = bytes(buf[8:8 + n])
            del buf[:8 + n]
        else:
            data = bytearray(n)
            have = len(buf) - 8
            data[:have] = buf[8:]
            buf.clear()
            view = memoryview(data)[have:]
            while view:
                self._wait(deadline)
                k = self.sock.recv_into(view)
                if not k:
                    raise EOFError("the peer closed the channel")
                view = view[k:]
        return pickle.loads(data)

    def _fill(self, deadline):
        self._wait(deadline)
        chunk = self.sock.recv(_CHUNK)
        if not chunk:
            raise EOFError("the peer closed the channel")
        self._buf += chunk

    def _wait(self, deadline):
        if deadline is None:
            return
        left = deadline - time.monotonic()
        if left <= 0 or not self._poll.poll(math.ceil(left * 1000)):
            raise TimeoutError("no message in time")

    def pending(self) -> bool:
        """Whether anything (a message, or the end of the stream) is there to read."""
        if self._buf:
            return True
        try:
            return bool(self._poll.poll(0))
        except (OSError, ValueError):
            return True

    def close(self):
        """Close this end; a thread sending at the same time finishes its frame first."""
        with self.send_lock:
            self.sock.close()

    def forget(self):
        """Close this end in a forked child, without the lock (the parent's thread that held it at
        the fork does not exist here)."""
        self.sock.close()


class ForkServer:
    """A single-threaded helper process with ptclisp loaded that forks workers on request.

    Forking the host itself is unsafe (its other threads' locks would stay
    held in the child) and a fresh interpreter per worker costs ~0.3 s, so a
    pristine server is started once (`python -c ...`) and forks on request.
    The host hands it one end of a socket pair per worker (SCM_RIGHTS); that
    socket is the worker's only link to the host. The server is the workers'
    parent: it kills and reaps them on request (`kill`), so a process id is
    never signalled after it could have been reused.
    """

    def __init__(self, entry: str):
        self._entry = entry   # "module:function" the workers run
        self._reset()

    def _reset(self):
        self._lock = threading.Lock()
        self._ctrl = None
        self._proc = None
        self._pid = os.getpid()

    def after_fork_in_child(self):
        """In a forked host: forget the parent's server (its socket closed here, never waited for)."""
        ctrl, proc = self._ctrl, self._proc
        self._reset()
        if ctrl is not None:
            ctrl.close()
        if proc is not None:
            proc.returncode = -1   # the parent's child, not ours to wait for

    def _ensure(self):
        import socket
        import subprocess
        if self._pid != os.getpid():
            self.after_fork_in_child()
        if self._proc is not None and self._proc.poll() is None:
            return
        self._drop()   # a server that went away: its socket is closed, its process reaped
        host, srv = socket.socketpair()
        code = ("import sys; sys.path.insert(0, sys.argv[2]); "
                "from ptclisp.isolation.pool import _server_main; _server_main(int(sys.argv[1]), sys.argv[3])")
        where = os.path.dirname(_PKG)  # the directory holding this ptclisp package
        self._proc = subprocess.Popen([sys.executable, "-c", code, str(srv.fileno()), where, self._entry],
                                      pass_fds=[srv.fileno()], stdin=subprocess.DEVNULL, close_fds=True)
        srv.close()
        self._ctrl = host

    def close(self):
        """Stop the server (it kills and reaps its workers, then returns when its control socket
        closes) and reap it. A run still talking to the server (a daemon thread at exit) keeps it
        locked: nothing waits for that run beyond a second."""
        if self._pid != os.getpid():
            self.after_fork_in_child()
            return
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
                proc.wait(timeout=3.0)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()

    def fork(self, idle_s: float):
        """Start a worker that ends by itself after `idle_s` without work; returns (pid, Channel)."""
        import socket
        a, b = socket.socketpair()
        try:
            with self._lock:
                self._ensure()
                socket.send_fds(self._ctrl, [b"F" + _int8(int(idle_s * 1000))], [b.fileno()])
                pid = int.from_bytes(_recv_exact(self._ctrl, 8), "big", signed=True)
        except BaseException:
            a.close()
            raise
        finally:
            b.close()
        return pid, Channel(a)

    def kill(self, pid: int) -> int | None:
        """Kill worker `pid` unless it has already ended, and reap it; its wait status (None when the
        server is gone: it reaped its workers as it ended)."""
        try:
            with self._lock:
                if self._ctrl is None or self._pid != os.getpid():
                    return None
                self._ctrl.sendall(b"K" + _int8(pid))
                return int.from_bytes(_recv_exact(self._ctrl, 8), "big", signed=True)
        except OSError:
            return None

    def pid(self) -> int | None:
        """The server's process id while it runs (for tests and diagnostics)."""
        proc = self._proc
        return proc.pid if proc is not None and self._pid == os.getpid() else None


def _server_main(fd: int, entry: str):
    """The fork server's loop (runs in its own interpreter, single-threaded)."""
    import importlib
    import socket
    module_name, _, name = entry.partition(":")
    # import the workers' code and let it load what it needs now rather than in each worker: they
    # inherit it (the module's optional `prepare_server()`)
    module = importlib.import_module(module_name)
    if hasattr(module, "prepare_server"):
        module.prepare_server()
    target = getattr(module, name)
    ctrl = socket.socket(fileno=fd)
    ctrl.settimeout(5.0)
    children: set = set()   # forked, not reaped
    ended: dict = {}        # pid -> wait status of a worker reaped before anyone asked
    try:
        while True:
            try:
                msg, fds, _flags, _addr = socket.recv_fds(ctrl, 9, 1)
            except TimeoutError:
                _reap_ended(children, ended)
                continue
            except OSError:
                return
            if not msg:
                return
            if len(msg) < 9:
                msg += _recv_exact(ctrl, 9 - len(msg))
            arg = int.from_bytes(msg[1:9], "big", signed=True)
            if msg[:1] == b"F" and fds:
                pid = _fork_worker(ctrl, target, fds[0], arg / 1000.0)
                children.add(pid)
                ctrl.sendall(_int8(pid))
            elif msg[:1] == b"K":
                ctrl.sendall(_int8(_kill_child(arg, children, ended)))
            for extra in fds[1:]:
                os.close(extra)
            _reap_ended(children, ended)
    finally:
        for pid in list(children):   # the host has gone or closed us: no worker outlives the server
            _kill_child(pid, children, ended)


def _fork_worker(ctrl, target, fd: int, idle_s: float) -> int:
    pid = os.fork()
    if pid == 0:
        code = 0
        try:
            ctrl.close()
            target(fd, idle_s)
        except BaseException:  # noqa: BLE001 - nothing may unwind into the server loop
            code = 70
        finally:
            os._exit(code)
    os.close(fd)
    return pid


def _kill_child(pid: int, children: set, ended: dict) -> int:
    if pid in ended:
        return ended.pop(pid)
    if pid not in children:
        return -1
    children.discard(pid)
    try:
        os.kill(pid, signal.SIGKILL)   # a zombie ignores it: its status stays the one it died with
    except ProcessLookupError:
        pass
    try:
        return os.waitpid(pid, 0)[1]
    except ChildProcessError:
        return -1


def _reap_ended(children: set, ended: dict):
    """Reap workers that ended by themselves (idle, or dead), keeping their status until asked."""
    while children:
        try:
            pid, status = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return
        children.discard(pid)
        ended[pid] = status
        while len(ended) > 256:   # never asked for (the host forgot them): drop the oldest
            ended.pop(next(iter(ended)))


class Worker:
    """One worker process as the host sees it: its id, its socket, when it was last given back."""

    __slots__ = ("pid", "conn", "last_used", "runs")

    def __init__(self, pid: int, conn):
        self.pid = pid
        self.conn = conn
        self.last_used = time.monotonic()
        self.runs = 0


def default_max_workers() -> int:
    """The default bound on worker processes: the CPU count, at least 2 and at most 8."""
    return min(8, max(2, os.cpu_count() or 2))


class WorkerPool:
    """A bounded pool of warm workers of one `ForkServer`, safe to use from several threads."""

    def __init__(self, server: ForkServer, max_workers: int | None = None, idle_s: float = 60.0):
        self._server = server
        self.max_workers = max_workers or default_max_workers()
        self.idle_s = idle_s
        self._atexit = False
        self._reset()
        ref = weakref.ref(self)
        os.register_at_fork(after_in_child=lambda: (p := ref()) is not None and p._after_fork_in_child())

    def _reset(self):
        self._cond = threading.Condition(threading.Lock())
        self._idle: list[Worker] = []   # most recently given back last
        self._busy: set[Worker] = set()
        self._forking = 0               # slots held while a fork is under way
        self._closed = False
        self._exiting = False
        self._pid = os.getpid()

    def _after_fork_in_child(self):
        """In a forked host: fresh locks, and the parent's workers forgotten (their sockets closed here
        only; the parent keeps using them)."""
        workers = list(self._idle) + list(self._busy)
        self._reset()
        for w in workers:
            w.conn.forget()
        self._server.after_fork_in_child()

    def configure(self, max_workers: int | None = None, idle_s: float | None = None):
        """Change the bound on worker processes (at least 1) and the idle time after which a worker is
        stopped (seconds, > 0). Workers beyond a lowered bound are stopped as they come back."""
        if max_workers is not None:
            if not isinstance(max_workers, int) or isinstance(max_workers, bool) or max_workers < 1:
                raise ValueError(f"max_workers must be a whole number >= 1, got {max_workers!r}")
        if idle_s is not None and not (isinstance(idle_s, (int, float)) and not isinstance(idle_s, bool)
                                       and 0 < idle_s < 1e9):
            raise ValueError(f"idle_s must be a number of seconds > 0, got {idle_s!r}")
        with self._cond:
            if max_workers is not None:
                self.max_workers = max_workers
            if idle_s is not None:
                self.idle_s = float(idle_s)
            stale = self._trim_locked(time.monotonic())
        self._stop(stale)

    def pids(self) -> dict:
        """The worker processes: {"idle": [...], "busy": [...]} (for tests and diagnostics)."""
        with self._cond:
            return {"idle": [w.pid for w in self._idle], "busy": sorted(w.pid for w in self._busy)}

    def acquire(self) -> Worker:
        """A warm worker for one run (forked when none is idle and the bound allows; otherwise waits
        for one to come back). Raises OSError when no worker can be started."""
        if self._pid != os.getpid():   # forked without the at-fork hook having run
            self._after_fork_in_child()
        stale: list = []
        try:
            with self._cond:
                if not self._atexit:
                    atexit.register(self._at_exit)
                    self._atexit = True
                if self._exiting:
                    raise OSError("the interpreter is exiting")
                self._closed = False
                while True:
                    stale += self._trim_locked(time.monotonic())
                    while self._idle:
                        w = self._idle.pop()
                        if w.conn.pending():   # an idle worker has nothing to say: it ended (EOF)
                            stale.append(w)
                            continue
                        self._busy.add(w)
                        return w
                    if self._live_locked() < self.max_workers:
                        self._forking += 1
                        break
                    self._cond.wait()
        finally:
            self._stop(stale)
        return self._fork(busy=True)

    def release(self, worker: Worker):
        """Give back a worker whose run ended cleanly; it serves the next run."""
        with self._cond:
            if worker in self._busy and not self._closed and self._pid == os.getpid():
                self._busy.discard(worker)
                worker.last_used = time.monotonic()
                worker.runs += 1
                self._idle.append(worker)
                stale = self._trim_locked(worker.last_used)
                self._cond.notify()
            else:
                self._busy.discard(worker)
                stale = [worker]
                self._cond.notify()
        self._stop(stale)

    def discard(self, worker: Worker) -> int | None:
        """Kill and reap a worker that must not serve again; fork a warm replacement when no worker is
        idle. Returns the worker's wait status (None when unknown)."""
        with self._cond:
            self._busy.discard(worker)
            self._cond.notify()
        worker.conn.close()
        status = self._server.kill(worker.pid) if self._pid == os.getpid() else None
        with self._cond:
            spare = (not self._closed and not self._idle and self._pid == os.getpid()
                     and self._live_locked() < self.max_workers)
            if spare:
                self._forking += 1
        if spare:
            try:
                self._fork(busy=False)
            except OSError:
                pass   # the next run forks (or reports) instead
        return status

    def _at_exit(self):
        self.close(exiting=True)

    def close(self, exiting: bool = False):
        """Stop every idle worker and the server; a later run starts them again, except once the
        interpreter is exiting (the atexit hook), when it is refused. After a fork, only forgets."""
        if self._pid != os.getpid():
            self._after_fork_in_child()
            return
        with self._cond:
            self._closed = True
            self._exiting = self._exiting or exiting
            idle, self._idle = self._idle, []
            self._cond.notify_all()
        for w in idle:
            w.conn.close()   # it ends at EOF; the server kills and reaps whatever is left as it stops
        self._server.close()

    def _live_locked(self) -> int:
        return len(self._idle) + len(self._busy) + self._forking

    def _trim_locked(self, now: float) -> list:
        """Take out the idle workers past their idle time or beyond the bound (to stop, unlocked)."""
        keep = [w for w in self._idle if now - w.last_used < self.idle_s]
        stale = [w for w in self._idle if now - w.last_used >= self.idle_s]
        while keep and len(keep) + len(self._busy) + self._forking > self.max_workers:
            stale.append(keep.pop(0))
        self._idle = keep
        return stale

    def _stop(self, workers):
        for w in workers:
            w.conn.close()
            self._server.kill(w.pid)

    def _fork(self, busy: bool) -> Worker:
        """Fork a worker into a slot already counted in `_forking`."""
        try:
            pid, conn = self._server.fork(self.idle_s + 30.0)
        except BaseException:
            with self._cond:
                self._forking -= 1
                self._cond.notify()
            raise
        w = Worker(pid, conn)
        with self._cond:
            self._forking -= 1
            if busy:
                self._busy.add(w)
            elif not self._closed:
                self._idle.append(w)
            else:
                busy = None
            self._cond.notify()
        if busy is None:
            self._stop([w])
        return w
