"""The warm worker processes behind `isolation="process"` (ptclisp.isolation.pool), with real processes.

Each test gets a pool of its own (its own fork server), installed where `ptclisp.run` finds it, so
the process ids it sees are its own; the pool is closed afterwards.
"""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time

import pytest

import ptclisp
from ptclisp.isolation import process
from ptclisp import Limits
from ptclisp.isolation.pool import Channel, ForkServer, WorkerPool

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the pool's OS limits are Linux's")


@pytest.fixture
def pool(monkeypatch):
    p = WorkerPool(ForkServer("ptclisp.isolation.process:_worker_main"), max_workers=2)
    monkeypatch.setattr(process, "POOL", p)
    yield p
    p.close()


def iso(src, **kw):
    return ptclisp.run(src, isolation="process", **kw)


def alive(pid: int) -> bool:
    """Whether `pid` is a process that has not ended (a zombie has ended)."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            if f.read().rsplit(")", 1)[1].split()[0] != "Z":
                return True
        # a killed process's first thread may be a zombie while its other threads still exit (and
        # hold its files open): it has ended once no other thread is left
        return len(os.listdir(f"/proc/{pid}/task")) > 1
    except FileNotFoundError:
        return False


def idle_pid(pool) -> int:
    pids = pool.pids()
    assert pids["busy"] == [] and len(pids["idle"]) == 1, pids
    return pids["idle"][0]


# ------------------------------------------------------------------ reuse

def test_a_worker_serves_one_run_after_another(pool):
    assert iso("(+ 1 2)").value == 3
    first = idle_pid(pool)
    assert ptclisp.to_python(iso("(mapv inc data/xs)", context={"xs": [1, 2]}).value) == [2, 3]
    assert idle_pid(pool) == first
    # an ordinary program error is a clean end too
    assert iso("(+ 1 :a)").error.kind == "type_error"
    assert idle_pid(pool) == first


def test_an_input_that_cannot_be_sent_leaves_the_worker_in_service(pool):
    iso("1")
    first = idle_pid(pool)
    r = iso("data/f", context={"f": lambda: 1})
    assert r.error.kind == "type_error" and "cannot be sent to an isolated evaluation" in r.error.message
    assert iso("(+ 1 2)").value == 3 and idle_pid(pool) == first


def test_large_inputs_and_results_cross_in_one_run(pool):
    # frames far larger than one read, both ways, and tool traffic in between
    text = "ab" * 300_000
    r = iso("(str (tool/echo {:s data/s}) (count data/s))", context={"s": text},
            tools={"echo": lambda a: a["s"][:10]})
    assert r.value == "ababababab600000", r.error
    r = iso("(apply str (map (fn [_] \"xyz\") (range 200000)))", limits=Limits(memory_bytes=10**8))
    assert r.value == "xyz" * 200_000, r.error
    assert iso("(+ 1 2)").value == 3


# ------------------------------------------------------------------ the channel

@pytest.fixture
def channels():
    import socket
    a, b = socket.socketpair()
    ca, cb = Channel(a), Channel(b)
    yield ca, cb
    ca.close()
    cb.close()


def test_a_channel_delivers_messages_of_any_size_in_order(channels):
    ca, cb = channels
    big = bytes(range(256)) * 20_000   # 5 MB: many reads
    sender = threading.Thread(target=lambda: [ca.send(m) for m in ("one", big, ("t", 2), {"k": [1.5]})])
    sender.start()
    assert [cb.recv(10) for _ in range(4)] == ["one", big, ("t", 2), {"k": [1.5]}]
    sender.join()
    assert not cb.pending()
    ca.send_bytes(Channel.dumps("pre-pickled"))
    assert cb.recv() == "pre-pickled"


def test_a_channel_reports_a_timeout_and_a_closed_peer(channels):
    import socket
    ca, cb = channels
    t0 = time.monotonic()
    with pytest.raises(TimeoutError):
        cb.recv(0.05)
    assert time.monotonic() - t0 >= 0.05
    ca.sock.sendall(Channel.dumps("x")[:3])   # not even a whole header: a peer cut off mid-frame
    with pytest.raises(TimeoutError):
        cb.recv(0.05)
    ca.close()
    assert cb.pending()
    with pytest.raises(EOFError):
        cb.recv(1)
    with pytest.raises(OSError):   # sending on a closed channel is an error, not a write to a reused fd
        ca.send("late")
    a, b = socket.socketpair()
    c = Channel(a)
    b.close()
    with pytest.raises(OSError):   # the peer is gone: an error, never SIGPIPE
        c.send("nobody")
    c.close()


# ------------------------------------------------------------------ nothing carries over

def test_nothing_of_a_run_is_visible_to_the_next(pool):
    r = iso("(def secret data/x) (defn f [] secret) (tool/t {}) (f)", context={"x": 42}, tools={"t": lambda a: 7})
    assert r.value == 42
    first = idle_pid(pool)
    r = iso("secret")
    assert (r.error.kind, r.error.span.line, r.error.span.col) == ("unbound_var", 1, 1)
    assert iso("(f)").error.kind == "unbound_var"
    assert iso("data/x").value is None
    assert iso("(tool/t {})").error.kind == "unknown_tool"
    assert idle_pid(pool) == first   # the same worker answered every run


def test_each_run_has_the_limits_it_was_given(pool):
    # the worker keeps the last limits it unpickled: a run with other limits must not get those
    loop = "(loop [i 0] (if (< i 500) (recur (inc i)) i))"
    assert iso(loop, limits=Limits(loop_limit=1000)).value == 500
    first = idle_pid(pool)
    assert iso(loop, limits=Limits(loop_limit=2000)).value == 500
    assert iso("(+ 1 2)", limits=Limits(loop_limit=1000)).value == 3
    assert idle_pid(pool) == first
    r = iso(loop, limits=Limits(loop_limit=100))
    assert (r.error.kind, r.error.span.line, r.error.span.col) == ("loop_limit_exceeded", 1, 27)
    assert iso(loop, limits=Limits(loop_limit=1000)).value == 500


def test_memory_a_run_used_does_not_count_against_the_next(pool):
    # each run needs most of its address-space budget; three in a row in one worker all fit
    lim = Limits(memory_bytes=10**12, timeout_ms=30_000, process_memory_bytes=200 << 20)
    pids = set()
    for _ in range(3):
        r = iso("(count (vec (range 3000000)))", limits=lim)
        assert r.value == 3_000_000, r.error
        pids.add(idle_pid(pool))
    assert len(pids) == 1
    # and the budget still holds for a run that needs more
    r = iso("(count (vec (range 30000000)))", limits=lim)
    assert r.error.kind == "memory_exceeded"


# ------------------------------------------------------------------ replacement

def replaced_after(pool, src, kind, **kw):
    """Run `src` on a warm worker; it must fail with `kind` and its worker be gone, replaced by a warm one
    that answers the next run correctly."""
    iso("1")
    first = idle_pid(pool)
    r = iso(src, **kw)
    assert r.error.kind == kind, r.error
    assert not alive(first)
    second = idle_pid(pool)   # forked at once, before the next run asks
    assert second != first
    assert iso("(reduce + [1 2 3])").value == 6
    assert idle_pid(pool) == second
    return r


def test_a_worker_whose_run_timed_out_is_replaced(pool):
    replaced_after(pool, "(loop [i 0] (recur (inc i)))", "timeout",
                   limits=Limits(timeout_ms=100, loop_limit=10**12))


def test_a_worker_whose_run_hit_a_budget_is_replaced(pool):
    replaced_after(pool, "(loop [] (recur))", "loop_limit_exceeded")


def test_a_worker_whose_pmap_branch_hit_a_budget_is_replaced(pool):
    r = replaced_after(pool, "(pmap (fn [x] (loop [] (recur))) [1 2])", "pmap_error")
    assert r.error.details["reason"] == "loop_limit_exceeded"


def test_a_worker_whose_regex_ran_out_of_time_is_replaced(pool):
    src = '(re-find #"(a|aa)+$" (apply str (conj (mapv (fn [_] "a") (range 3000)) "b")))'
    r = replaced_after(pool, src, "type_error", limits=Limits(regex_timeout_ms=1))
    assert "regex complexity limit exceeded" in r.error.message


def test_a_worker_out_of_address_space_is_replaced(pool):
    replaced_after(pool, "(count (vec (range 30000000)))", "memory_exceeded",
                   limits=Limits(memory_bytes=10**12, timeout_ms=30_000, process_memory_bytes=100 << 20))


def test_a_worker_killed_by_the_hosts_clock_is_replaced(pool):
    # the worker is frozen mid-run (SIGSTOP from the host's tool): only the host's clock (twice the
    # budget) ends the run
    def freeze(args):
        os.kill(pool.pids()["busy"][0], signal.SIGSTOP)
        return 1
    r = replaced_after(pool, "(tool/freeze {}) (tool/freeze {})", "timeout", tools={"freeze": freeze},
                       limits=Limits(timeout_ms=150))
    assert "its process was stopped" in r.error.message


def test_a_worker_waiting_on_a_blocking_tool_ends_at_its_deadline_and_is_replaced(pool):
    # the worker stops waiting for the host's tool at its own deadline (plus the grace period), long
    # before the host's clock; the tool call is abandoned, and the worker is not reused
    r = replaced_after(pool, "(tool/stall {})", "timeout", tools={"stall": lambda a: time.sleep(1.5)},
                       limits=Limits(timeout_ms=150))
    assert r.duration_ms < 1400   # the evaluation ended before the tool returned
    assert "its process was stopped" not in r.error.message
    assert [(c.name, c.abandoned) for c in r.tool_calls] == [("stall", True)]


def test_a_worker_that_crashed_is_replaced(pool):
    # the worker dies mid-run as under the kernel's out-of-memory killer: SIGKILL from outside
    def crash(args):
        os.kill(pool.pids()["busy"][0], signal.SIGKILL)
        time.sleep(0.2)
        return 1
    r = replaced_after(pool, "(tool/note {:n 1}) (tool/crash {:n 2})", "memory_exceeded",
                       tools={"crash": crash, "note": lambda a: a})
    assert r.error.details["signal"] == signal.SIGKILL
    assert [(c.name, c.args) for c in r.tool_calls][:1] == [("note", {"n": 1})]   # the calls it made are kept


def test_a_worker_left_waiting_on_a_tool_is_not_reused(pool):
    # pmap stops at the first failing branch while another still waits for the host's tool: that
    # answer would reach the worker's next run, so the worker is replaced
    entered, release = threading.Event(), threading.Event()

    def slow(args):
        entered.set()
        release.wait(10)
        return 1
    tools = {"slow": slow, "gate": lambda a: entered.wait(10)}
    src = "(pmap (fn [x] (if (= x 1) (do (tool/gate {}) (/ 1 0)) (tool/slow {}))) [1 2])"
    try:
        replaced_after(pool, src, "pmap_error", tools=tools)
    finally:
        release.set()


def test_a_worker_that_died_while_idle_is_replaced_before_a_run_reaches_it(pool):
    iso("1")
    first = idle_pid(pool)
    os.kill(first, signal.SIGKILL)
    deadline = time.monotonic() + 10
    while alive(first) and time.monotonic() < deadline:
        time.sleep(0.01)
    assert iso("(+ 40 2)").value == 42
    assert idle_pid(pool) != first


def test_an_idle_worker_is_stopped_after_its_idle_time(pool):
    pool.configure(idle_s=0.2)
    iso("1")
    first = idle_pid(pool)
    time.sleep(0.4)
    assert iso("2").value == 2
    assert idle_pid(pool) != first and not alive(first)


def test_configure_checks_its_arguments(pool):
    for bad in (0, -1, 1.5, True, "2"):
        with pytest.raises(ValueError, match="max_workers must be a whole number >= 1"):
            pool.configure(max_workers=bad)
    for bad in (0, -2.0, "1", True, float("nan"), float("inf")):
        with pytest.raises(ValueError, match="idle_s must be a number of seconds > 0"):
            pool.configure(idle_s=bad)


# ------------------------------------------------------------------ bound, threads

def test_the_bound_holds_under_concurrent_runs(pool):
    seen = []
    lock = threading.Lock()

    def look(args):
        pids = pool.pids()
        with lock:
            seen.append(len(pids["idle"]) + len(pids["busy"]))
        time.sleep(0.05)
        return args["i"]
    results = {}

    def one(i):
        results[i] = iso("(* 10 (tool/look {:i data/i}))", context={"i": i}, tools={"look": look})
    threads = [threading.Thread(target=one, args=(i,)) for i in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert {i: r.value for i, r in results.items()} == {i: 10 * i for i in range(8)}
    assert len(seen) == 8 and max(seen) <= 2
    pids = pool.pids()
    assert pids["busy"] == [] and 1 <= len(pids["idle"]) <= 2


def test_a_lowered_bound_stops_the_extra_workers(pool):
    threads = [threading.Thread(target=iso, args=("(tool/w {})",), kwargs={"tools": {"w": lambda a: time.sleep(0.2)}})
               for _ in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    workers = pool.pids()["idle"]
    assert len(workers) == 2
    pool.configure(max_workers=1)
    assert len(pool.pids()["idle"]) == 1
    assert iso("(+ 1 1)").value == 2 and len(pool.pids()["idle"]) == 1


# ------------------------------------------------------------------ fork, exit (in a fresh host)

FORKING_HOST = r'''
import json, os, sys, threading, warnings
# Python 3.12+ warns that forking a process with threads may deadlock: the point of this host
warnings.filterwarnings("ignore", category=DeprecationWarning, message=".*fork")
import ptclisp
from ptclisp.isolation import process

def iso(src):
    return ptclisp.run(src, isolation="process")

assert iso("(+ 1 2)").value == 3
before = process.POOL.pids()["idle"]
server = process.SERVER.pid()
stop = threading.Event()
def busy():  # another thread keeps using the pool while the host forks
    while not stop.is_set():
        assert iso("(+ 2 2)").value == 4
t = threading.Thread(target=busy)
t.start()
r, w = os.pipe()
pid = os.fork()
if pid == 0:
    os.close(r)
    out = {"value": iso("(* 6 7)").value, "workers": process.POOL.pids()["idle"], "server": process.SERVER.pid()}
    process.POOL.close()
    os.write(w, json.dumps(out).encode())
    os._exit(0)
os.close(w)
stop.set()
t.join()
child = json.loads(os.read(r, 10000).decode())
os.waitpid(pid, 0)
print(json.dumps({"before": before, "server": server, "child": child,
                  "after": iso("(+ 1 2)").value, "server_after": process.SERVER.pid()}))
'''


def host(code: str, *args: str, timeout: float = 120) -> dict:
    proc = subprocess.run([sys.executable, "-c", code, *args], capture_output=True, text=True, timeout=timeout)
    assert proc.returncode == 0 and proc.stderr == "", proc.stderr
    return json.loads(proc.stdout)


def test_a_forked_host_gets_workers_of_its_own():
    out = host(FORKING_HOST)
    child = out["child"]
    assert child["value"] == 42
    assert child["server"] != out["server"] and not set(child["workers"]) & set(out["before"])
    assert out["after"] == 3 and out["server_after"] == out["server"]


LOCKED_FORK_HOST = r'''
import json, os, sys
import ptclisp
from ptclisp.isolation import process
assert ptclisp.run("1", isolation="process").value == 1
lock = process.POOL._idle[0].conn.send_lock
lock.acquire()   # as a thread of the host in the middle of a send at the moment of the fork
pid = os.fork()
if pid == 0:
    value = ptclisp.run("(+ 1 2)", isolation="process").value
    process.POOL.close()
    os._exit(0 if value == 3 else 1)
lock.release()
_, status = os.waitpid(pid, 0)
print(json.dumps({"child": os.waitstatus_to_exitcode(status), "parent": ptclisp.run("4", isolation="process").value}))
'''


def test_a_host_forked_during_a_send_does_not_wait_for_the_parents_lock():
    assert host(LOCKED_FORK_HOST, timeout=30) == {"child": 0, "parent": 4}


STATM_HOST = r'''
import json, os
from ptclisp.isolation import process
process._vm_bytes()   # opens /proc/self/statm here, in the parent
r, w = os.pipe()
pid = os.fork()
if pid == 0:
    grown = bytearray(300 << 20)   # the child's address space grows, the parent's does not
    with open("/proc/self/statm") as f:
        own = int(f.read().split()[0]) * os.sysconf("SC_PAGE_SIZE")
    os.write(w, json.dumps([own, process._vm_bytes()]).encode())
    os._exit(0)
os.close(w)
print(os.read(r, 1000).decode())
os.waitpid(pid, 0)
'''


def test_a_forked_process_measures_its_own_address_space():
    own, measured = host(STATM_HOST, timeout=60)
    assert own > 300 << 20 and abs(measured - own) < 16 << 20


EXITING_HOST = r'''
import json, os, sys, threading
import ptclisp
from ptclisp.isolation import process
ts = [threading.Thread(target=ptclisp.run, args=("(tool/w {})",),
                       kwargs={"tools": {"w": lambda a: __import__("time").sleep(0.2)}, "isolation": "process"})
      for _ in range(2)]
for t in ts: t.start()
for t in ts: t.join()
print(json.dumps({"server": process.SERVER.pid(), "workers": process.POOL.pids()["idle"]}), flush=True)
if sys.argv[1] == "abrupt":
    os._exit(0)   # no atexit hook runs: the server sees its socket close and takes the workers with it
'''


@pytest.mark.parametrize("how", ["normal", "abrupt"])
def test_nothing_is_left_running_after_the_host_exits(how):
    out = host(EXITING_HOST, how)
    pids = [out["server"], *out["workers"]]
    assert len(pids) == 3 and None not in pids
    deadline = time.monotonic() + 10
    while any(alive(p) for p in pids) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not any(alive(p) for p in pids)
