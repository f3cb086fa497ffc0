"""Columns for pydantic-monty (a Rust interpreter of a Python subset that runs programs in pooled
worker processes), used only when it is installed: `monty`, and `monty-fresh` for row k.

Never a project dependency: install it into the separate benchmark venv (docs/performance.md).
The workloads are written in monty's Python subset, the way its users would write them (the plain
Python idiom: `str.split` for d and d2, dicts and lists), and each answer must equal plain
Python's. The API used is the client's documented one: `Monty()` is a pool of worker processes,
`pool.checkout()` a REPL session on one worker, `session.feed_run(code, inputs=..., external_lookup=...)`
one program (host functions are the tools).

As for the ptclisp column, the default mode binds the input data in a session prepared outside
the timing and each sample is one `feed_run` of the program text; with `--fresh` every sample
checks a session out of the pool and feeds the program with its data (`inputs`), so converting
the data and starting the session count. Row k runs f's small programs: `monty` checks a warm
worker out of the pool for each program; `monty-fresh` uses a pool that retires a worker after
one checkout (`max_checkouts_per_worker=1`), so each program waits for a new worker process.
"""
from __future__ import annotations

import atexit
import importlib.util
import itertools

from ptclisp import bench as B
from ptclisp.bench import BenchError, Impl, size
from ptclisp.bench.agent_turn import SEQUENTIAL_PMAP, TURN_PY, turn_data
from ptclisp.bench.agent_turn_data import TOOLS
from ptclisp.bench.workloads import k_runs

_POOLS: dict = {}


def available() -> bool:
    return importlib.util.find_spec("pydantic_monty") is not None


def pool(fresh_workers: bool = False):
    """The pool of this process (entered once, closed at exit); `fresh_workers`: one run per worker."""
    key = "fresh" if fresh_workers else "warm"
    if key not in _POOLS:
        from pydantic_monty import Monty
        p = Monty(max_checkouts_per_worker=1) if fresh_workers else Monty()
        p.__enter__()
        atexit.register(p.__exit__, None, None, None)
        _POOLS[key] = p
    return _POOLS[key]


def _program(code: str, data: dict | None = None, tools: dict | None = None, setup: str = "") -> Impl:
    """One monty program as a column: `setup` (definitions) and `data` bound outside the timing,
    `code` fed every sample; with --fresh, a session per sample fed everything."""
    if B.FRESH[0]:
        def go():
            with pool().checkout() as s:
                return s.feed_run(setup + code, inputs=data, external_lookup=tools)
        return Impl(go)
    session = pool().checkout()
    session.__enter__()
    try:
        if data or setup:
            session.feed_run(setup + "\nNone", inputs=data, external_lookup=tools)
    except BaseException:
        session.__exit__(None, None, None)  # the worker goes back to the pool
        raise
    return Impl(lambda: session.feed_run(code, external_lookup=tools),
                close=lambda: session.__exit__(None, None, None))


FIB = "def fib(n):\n    return n if n < 2 else fib(n - 1) + fib(n - 2)\n"

MAPS = """
from collections import defaultdict
items = [{"id": i, "price": (i * 37) % 101, "cat": cats[i % 5]} for i in range(n)]
groups = defaultdict(list)
for it in items:
    if it["price"] > 20:
        groups[it["cat"]].append(it)
{cat: {"count": len(vs), "total": sum(it["price"] for it in vs)} for cat, vs in groups.items()}
"""

STRINGS = """
from collections import Counter
words = [w for line in lines for w in line.upper().split(" ")]
joined = ["-".join(line.split(" ")) for line in lines]
{"lines": len(joined), "chars": sum(len(j) for j in joined), "freq": dict(Counter(words))}
"""


def small_program(i: int) -> str:
    """f's i-th small program (ptclisp.bench.small_program) in Python."""
    return f"sum(x * x for x in [{i}, {i + 1}, {i + 2}, {i + 3}] if x % 2 == 1) + {i}"


def _many_programs(n: int, fresh_workers: bool = False, checkout_each: bool = True) -> Impl:
    """n distinct small programs per sample: a session checked out for each (k, f with --fresh),
    or all fed to one session (f)."""
    salt = itertools.count()

    def go():
        base = next(salt) * n
        total = 0
        if checkout_each:
            for i in range(base, base + n):
                with pool(fresh_workers).checkout() as s:
                    total += s.feed_run(small_program(i))
            return total
        with pool().checkout() as s:
            for i in range(base, base + n):
                total += s.feed_run(small_program(i))
        return total
    return Impl(go)


def _session_turns(n: int) -> Impl:
    """h: the plain-Python turns fed one by one to a session checked out for each sample."""
    _, turns = B.session_programs(n)

    def go():
        with pool().checkout() as s:
            for t in turns:
                s.feed_run(t)
            return s.feed_run("result")
    return Impl(go)


def monty_column(key: str, quick: bool) -> Impl | None:
    if key == "a":
        return _program(f"fib({size(quick, 25, 15)})", setup=FIB)
    if key == "b":
        n = size(quick, 1_000_000, 10_000)
        return _program(f"acc = 0\nfor i in range(1, {n} + 1):\n    acc += i\nacc")
    if key == "c":
        return _program(MAPS, {"cats": B.CATS, "n": size(quick, 10_000, 500)})
    if key in ("d", "d2"):
        return _program(STRINGS, {"lines": B.lines_data(size(quick, 10_000, 500))})
    if key == "e":
        return _program('sorted(rows, key=lambda r: r["score"])[:10]', {"rows": B.rows_data(size(quick, 50_000, 1000))})
    if key == "f":
        return _many_programs(size(quick, 1000, 50), checkout_each=B.FRESH[0])
    if key in ("g20", "g80"):
        k = B.grow_size(20_000 if key == "g20" else 80_000, quick)
        return _program(f"m = {{}}\nv = []\nfor i in range({k}):\n    m[i] = 2 * i\n    v.append(i)\n[len(m), len(v)]")
    if key == "h":
        return _session_turns(size(quick, 200, 20))
    if key == "i":
        exe = B.script("monty")
        return B.process_impl([exe, "-c", "print(1 + 2)"]) if exe else None
    if key == "k":
        return _many_programs(k_runs(quick))
    if key == "t":
        return _program("turn(data)", {"data": turn_data(quick)}, TOOLS, setup=SEQUENTIAL_PMAP + TURN_PY)
    if key == "j":
        return None
    raise BenchError(f"no monty version of workload {key}")


def monty_fresh_column(key: str, quick: bool) -> Impl | None:
    """Row k with a new worker process for every program."""
    if key == "k":
        return _many_programs(k_runs(quick), fresh_workers=True)
    return None
