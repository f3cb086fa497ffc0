"""`ptclisp mcp serve --http` under 8 concurrent hostile calls (issue 24): each ends typed within a bound,
and afterwards the server's threads and CPU are back to idle.

The server runs as a child process with its defaults (`--isolation process`) and a 1 s timeout; the
programs are hostile whatever else is fixed: a time-consuming recursion, deep recursion, a tool that
blocks its thread for 3 s (directly and from pmap workers), a huge allocation, widely shared
structure put in a set (which an in-process evaluation could not be stopped in), a loop, a flood of
prints. The thread count and CPU time are read from /proc (Linux).
"""
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

pytest.importorskip("mcp")

import anyio  # noqa: E402  - installed with mcp
from mcp import Client  # noqa: E402

from mcp_client_helpers import free_port, stop_process, wait_until  # noqa: E402

HERE = Path(__file__).resolve().parent
BOUND_S = 5.0   # per call: the worker's deadline plus grace, or the host's kill at twice the budget, plus HTTP
HOSTILE = {
    "(defn f [n] (if (= n 0) 0 (+ (f (dec n)) (f (dec n))))) (f 60)": "timeout",
    "(defn g [n] (if (= n 0) 0 (inc (g (dec n))))) (g 1000000)": "memory_exceeded",
    "(tool/slow {:s 3})": "timeout",
    "(pmap (fn [i] (tool/slow {:s 3})) (range 4))": "timeout",
    "(vec (range 2000000))": "memory_exceeded",
    # widely shared structure: hashing costs what it holds now (issue 24), sorting it still runs to the deadline
    "(let [a (vec (range 1000)) b (mapv (fn [_] a) a) c (mapv (fn [_] b) a)] (sort [c c c]))": "timeout",
    "(loop [i 0] (recur (inc i)))": "loop_limit_exceeded",
    '(doseq [i (range 100000)] (println "abcdefghijklmnopqrstuvwxyz abcdefghijklmnopqrstuvwxyz"))': "memory_exceeded",
}


def threads_of(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("Threads:"):
            return int(line.split()[1])
    raise AssertionError("no thread count")


def cpu_s(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


@pytest.fixture
def server():
    if not Path("/proc/self/status").exists():
        pytest.skip("reads thread counts from /proc")
    port = free_port()
    proc = subprocess.Popen([sys.executable, "-m", "ptclisp", "mcp", "serve", "--http", f"127.0.0.1:{port}",
                             "--tools", "hostile_tools:TOOLS", "--timeout-ms", "1000", "--max-concurrent", "8"],
                            cwd=str(HERE), stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)

    def up():
        import socket
        assert proc.poll() is None, "the server exited"
        with socket.socket() as s:
            return s.connect_ex(("127.0.0.1", port)) == 0
    try:
        wait_until(up, 30.0, "the server accepting connections")
        yield proc, f"http://127.0.0.1:{port}/mcp"
    finally:
        stop_process(proc)


def calls(url: str, programs: list[str]) -> list[tuple[float, dict]]:
    """Each program as one run_ptc_lisp call, all at once, each on its own connection: (seconds, result)."""
    out: list = [None] * len(programs)

    async def one(i, program):
        async with Client(url) as client:
            t0 = time.monotonic()
            r = await client.call_tool("run_ptc_lisp", {"program": program})
            out[i] = (time.monotonic() - t0, r.structured_content)

    async def go():
        async with anyio.create_task_group() as tg:
            for i, p in enumerate(programs):
                tg.start_soon(one, i, p)

    anyio.run(go)
    return out


def test_eight_concurrent_hostile_calls_end_typed_and_leave_the_server_idle(server):
    proc, url = server
    warm = calls(url, ["(+ 1 2)"] * 8)   # the workers and the server's own threads, as at rest
    assert all(r["value"] == 3 for _, r in warm)
    time.sleep(1.0)
    idle = threads_of(proc.pid)

    results = calls(url, list(HOSTILE))
    for (program, kind), (seconds, r) in zip(HOSTILE.items(), results):
        assert r["status"] == "error" and r["error"]["kind"] == kind, (program, r["error"])
        assert seconds < BOUND_S, (program, seconds)
    ledger = {p: r["tool_calls"] for p, (_, r) in zip(HOSTILE, results) if "tool/slow" in p}
    assert [[c["tool"], c.get("abandoned")] for c in ledger["(tool/slow {:s 3})"]] == [["slow", True]]
    assert [c.get("abandoned") for c in ledger["(pmap (fn [i] (tool/slow {:s 3})) (range 4))"]] == [True] * 4

    # the abandoned tool calls return after their 3 s; nothing else of the calls is left running
    wait_until(lambda: threads_of(proc.pid) <= idle, 20.0, f"the server back at {idle} threads")
    c0 = cpu_s(proc.pid)
    time.sleep(1.0)
    assert cpu_s(proc.pid) - c0 < 0.3   # idle, not spinning
    assert proc.poll() is None
    assert calls(url, ["(* 6 7)"])[0][1]["value"] == 42
