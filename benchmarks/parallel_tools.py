"""Do I/O-bound tools called from pmap/pcalls really overlap?

Each tool call sleeps (stands in for a network request). With a worker
budget of 8, eight calls through `pmap` should take about as long as one
call, while `map` takes eight times as long. Prints one row per case with the
wall time of the whole evaluation and the speed-up over sequential `map`.

    .venv/bin/python benchmarks/parallel_tools.py [--sleep-ms 100] [--repeat 5]
"""
from __future__ import annotations

import argparse
import statistics
import time

import ptclisp


def make_tool(sleep_s: float):
    def slow_lookup(args):
        time.sleep(sleep_s)
        return {"id": args.get("id"), "ok": True}
    return slow_lookup


# (label, source, tool calls, ideal wall time in units of one call)
CASES = [
    ("map (sequential), 8 calls", "(map #(tool/lookup {:id %}) (range 8))", 8, 8),
    ("pmap, 8 calls", "(pmap #(tool/lookup {:id %}) (range 8))", 8, 1),
    ("pcalls, 8 thunks", "(pcalls " + " ".join(f"#(tool/lookup {{:id {i}}})" for i in range(8)) + ")", 8, 1),
    ("pmap, 16 calls (2 batches of 8)", "(pmap #(tool/lookup {:id %}) (range 16))", 16, 2),
    # the two outer workers hold 2 of the 8 slots, so the inner pmaps share 6: 4 + 2 then 2 more
    ("pmap of pmap, 2 x 4 calls", "(pmap (fn [xs] (pmap #(tool/lookup {:id %}) xs)) [[0 1 2 3] [4 5 6 7]])", 8, 2),
]


def measure(src: str, sleep_s: float, repeat: int) -> tuple[float, ptclisp.Result]:
    tools = {"lookup": make_tool(sleep_s)}
    limits = ptclisp.Limits(timeout_ms=60_000, pmap_timeout_ms=60_000)
    times = []
    r = None
    for _ in range(repeat):
        t0 = time.perf_counter()
        r = ptclisp.run(src, tools=tools, limits=limits)
        times.append((time.perf_counter() - t0) * 1000)
        if r.status != "ok":
            raise SystemExit(f"{src}: {r.error}")
    return statistics.median(times), r


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sleep-ms", type=float, default=100.0, help="how long each tool call sleeps")
    ap.add_argument("--repeat", type=int, default=5, help="runs per case (the median is reported)")
    a = ap.parse_args(argv)
    sleep_s = a.sleep_ms / 1000.0
    base = None
    print(f"each tool call sleeps {a.sleep_ms:.0f} ms; median of {a.repeat} runs")
    print(f"{'case':38} {'calls':>5} {'wall ms':>9} {'ideal ms':>9} {'vs map':>7}")
    for label, src, calls, units in CASES:
        ms, r = measure(src, sleep_s, a.repeat)
        assert len(r.tool_calls) == calls, (label, len(r.tool_calls))
        base = base or ms
        ideal = units * a.sleep_ms
        print(f"{label:38} {calls:>5} {ms:>9.1f} {ideal:>9.0f} {base / ms:>6.1f}x")


if __name__ == "__main__":
    main()
