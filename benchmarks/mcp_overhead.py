"""What does calling an MCP tool through ptclisp cost, and do pmap'd MCP calls overlap?

Two measurements against the in-repo fixture server (tests/mcp/fixture_server.py,
the SDK's MCPServer, a real child process over stdio):

1. One call of a tool that answers at once (`echo`): through ptclisp (one
   `Session.eval("(tool/fx.echo ...)")` with `MCPTools`) against the SDK's
   own client calling it directly (`await client.call_tool(...)`), both on
   an open connection to their own server process, alternating call by call. The difference is ptclisp's overhead per call
   (evaluation, argument check, hand-off to the client's event loop thread,
   result conversion).
2. Eight calls of a tool that sleeps (`slow`): `pmap` against `map`.

Also reports how long it takes to start the server and list its tools
(`MCPTools` entered), paid once per command.

    .venv/bin/python benchmarks/mcp_overhead.py [--calls 200] [--sleep-ms 100] [--repeat 5]

Needs the ptclisp[mcp] extra.
"""
from __future__ import annotations

import argparse
import asyncio
import concurrent.futures
import pathlib
import statistics
import sys
import tempfile
import threading
import time

import ptclisp

FIXTURE = pathlib.Path(__file__).resolve().parents[1] / "tests" / "mcp" / "fixture_server.py"


def _command(state: str) -> list[str]:
    return [sys.executable, str(FIXTURE), state]


class SdkDirect:
    """The SDK's own client on an open connection, on an event loop of its own (a background thread).

    `call(i)` returns the latency (ms) of `await client.call_tool("echo", ...)` measured inside the
    loop, so handing the request to the thread is not counted.
    """

    def __init__(self, state: str):
        self.loop = asyncio.new_event_loop()
        threading.Thread(target=self.loop.run_forever, daemon=True).start()
        self._stop = None
        self._opened = concurrent.futures.Future()
        self._ready = asyncio.run_coroutine_threadsafe(self._hold(state), self.loop)
        self._opened.result(timeout=60)

    async def _hold(self, state: str):
        from mcp import Client, StdioServerParameters
        cmd = _command(state)
        self._stop = asyncio.Event()
        async with Client(StdioServerParameters(command=cmd[0], args=cmd[1:]), cache=None) as client:
            await client.list_tools()
            self.client = client
            self._opened.set_result(True)
            await self._stop.wait()

    def call(self, i: int) -> float:
        async def one():
            t0 = time.perf_counter()
            await self.client.call_tool("echo", {"value": i})
            return (time.perf_counter() - t0) * 1000
        return asyncio.run_coroutine_threadsafe(one(), self.loop).result()

    def close(self):
        self.loop.call_soon_threadsafe(self._stop.set)
        self._ready.result(timeout=30)
        self.loop.call_soon_threadsafe(self.loop.stop)


def overhead(mcp, direct: SdkDirect, calls: int) -> tuple[list[float], list[float]]:
    """Per-call latencies (ms): the SDK directly, and one evaluation `(tool/fx.echo {:value i})` each.

    The two alternate call by call, so both see the same load on the machine.
    """
    session = ptclisp.Session(tools=mcp.tools, limits=ptclisp.Limits(timeout_ms=10_000))
    via, sdk = [], []
    for i in range(calls):
        sdk.append(direct.call(i))
        t0 = time.perf_counter()
        r = session.eval(f"(tool/fx.echo {{:value {i}}})")
        via.append((time.perf_counter() - t0) * 1000)
        if r.status != "ok":
            raise SystemExit(f"echo failed: {r.error}")
    return sdk, via


def parallel(mcp, sleep_s: float, repeat: int) -> list[tuple[str, float]]:
    limits = ptclisp.Limits(timeout_ms=60_000, pmap_timeout_ms=60_000)
    rows = []
    for label, fn in (("map, 8 slow calls", "map"), ("pmap, 8 slow calls", "pmap")):
        src = f"(vec ({fn} #(tool/fx.slow {{:seconds {sleep_s} :tag (str %)}}) (range 8)))"
        times = []
        for _ in range(repeat):
            t0 = time.perf_counter()
            r = ptclisp.run(src, tools=mcp.tools, limits=limits)
            times.append((time.perf_counter() - t0) * 1000)
            if r.status != "ok":
                raise SystemExit(f"{label}: {r.error}")
        rows.append((label, statistics.median(times)))
    return rows


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--calls", type=int, default=200, help="calls of the instant tool per side (default 200)")
    ap.add_argument("--sleep-ms", type=float, default=100.0, help="how long each slow call sleeps (default 100)")
    ap.add_argument("--repeat", type=int, default=5, help="runs of map and pmap (the median is reported)")
    a = ap.parse_args(argv)
    from ptclisp.mcp.client import MCPServerSpec, MCPTools
    with tempfile.TemporaryDirectory() as state:
        t0 = time.perf_counter()
        with MCPTools([MCPServerSpec("fx", command=_command(state))]) as mcp:
            start_ms = (time.perf_counter() - t0) * 1000
            sdk = SdkDirect(state)
            try:
                direct, via = overhead(mcp, sdk, a.calls)
            finally:
                sdk.close()
            rows = parallel(mcp, a.sleep_ms / 1000.0, a.repeat)
    d, v = statistics.median(direct), statistics.median(via)
    print(f"server start + tool listing (MCPTools entered): {start_ms:.0f} ms")
    print(f"one call, median of {a.calls}:")
    print(f"  {'SDK client directly':34} {d:8.3f} ms")
    print(f"  {'through ptclisp (one evaluation)':34} {v:8.3f} ms   overhead {v - d:+.3f} ms")
    print(f"8 calls sleeping {a.sleep_ms:.0f} ms each, median of {a.repeat} runs:")
    base = rows[0][1]
    for label, ms in rows:
        print(f"  {label:34} {ms:8.1f} ms   {base / ms:4.1f}x vs map")
    return 0


if __name__ == "__main__":
    sys.exit(main())
