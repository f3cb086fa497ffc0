"""Interpreter benchmarks: each workload as a PTC-Lisp program and as the same work in plain Python.

Owns the workloads (a-j of docs/performance.md), the timing loop and the report.
Columns of one workload are timed in the same run, alternating, over several
repetitions; the table shows the minimum of each column and the ratios of its
minimum and median to plain Python's. Every column's answer is checked against
plain Python's, so a fast wrong answer shows up as a mismatch, not a win.

This module ships in the wheel so that `ptclisp bench lang` works from an install;
the repository's `benchmarks/` package adds columns for other Lisps on Python
(hy, basilisp) through `extra_columns`, and asks for columns whose runtime would
slow the others to be measured in a child process (`isolated`). Tests never
assert timings.
Imports the public API only (api, convert, meter); `main(argv)` is the
`ptclisp bench lang` command, called by ptclisp/cli.py.
"""
from __future__ import annotations

import argparse
import gc
import itertools
import json
import os
import platform
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter, defaultdict
from typing import Callable

import attrs

from . import __version__
from .api import Session, run
from .convert import to_python
from .meter import Limits

# Benchmarks are trusted callers: a million-iteration loop needs raised limits.
BIG = Limits(loop_limit=10**7, timeout_ms=60_000, memory_bytes=10**9)


class BenchError(Exception):
    """A column failed to produce its answer."""


@attrs.define
class Impl:
    """One column of one workload: `run()` is one timed repetition, `plain` turns its answer into
    plain Python for the cross-check (untimed). With `measures=True`, `run()` returns the measured
    quantity itself (bytes, for the memory workload) instead of being timed."""

    run: Callable[[], object]
    plain: Callable[[object], object] = lambda v: v
    measures: bool = False
    detail: dict | None = None             # extra numbers for the JSON record


@attrs.define
class Workload:
    key: str
    name: str
    build: Callable[[bool], dict]          # quick -> {column: Impl}
    target: float | None = None            # max ratio to plain Python (min over min)
    unit: str = "ms"                       # "ms" or "MB"
    target_ms: float | None = None         # absolute target for the ptclisp column
    max_reps: int | None = None            # cap for slow, deterministic measurements


PROGRAM_CACHE = [True]   # --no-program-cache: every evaluation reads, analyzes and compiles again


def _ptc(src: str, context=None) -> Impl:
    """A PTC-Lisp program evaluated in a session prepared outside the timing."""
    s = Session(context=context, limits=BIG, program_cache=PROGRAM_CACHE[0])

    def go():
        r = s.eval(src)
        if not r.ok:
            raise BenchError(str(r.error))
        return r.value
    return Impl(go, to_python)


def size(quick: bool, full: int, small: int) -> int:
    return small if quick else full


# ------------------------------------------------------------------ a. recursion

def fib_src(n: int) -> str:
    return f"(defn fib [n] (if (< n 2) n (+ (fib (- n 1)) (fib (- n 2))))) (fib {n})"


def w_fib(quick):
    n = size(quick, 25, 15)

    def fib(k):
        return k if k < 2 else fib(k - 1) + fib(k - 2)
    return {"python": Impl(lambda: fib(n)), "ptclisp": _ptc(fib_src(n))}


# ------------------------------------------------------------------ b. loop/recur

def loop_src(n: int) -> str:
    return f"(loop [i 1 acc 0] (if (> i {n}) acc (recur (inc i) (+ acc i))))"


def w_loop(quick):
    n = size(quick, 1_000_000, 10_000)

    def total():
        acc = 0
        for i in range(1, n + 1):
            acc += i
        return acc
    return {"python": Impl(total), "ptclisp": _ptc(loop_src(n))}


# ------------------------------------------------------------------ c. maps: build, filter, group, aggregate

CATS = ["books", "games", "food", "tools", "toys"]


def maps_src(n: int) -> str:
    cats = " ".join(f'"{c}"' for c in CATS)
    return f"""
(let [cats [{cats}]
      items (mapv (fn [i] {{:id i :price (mod (* i 37) 101) :cat (nth cats (mod i 5))}}) (range {n}))]
  (->> items
       (filter #(> (:price %) 20))
       (group-by :cat)
       (map (fn [[cat vs]] [cat {{:count (count vs) :total (reduce + (map :price vs))}}]))
       (into {{}})))"""


def w_maps(quick):
    n = size(quick, 10_000, 500)

    def py():
        items = [{"id": i, "price": (i * 37) % 101, "cat": CATS[i % 5]} for i in range(n)]
        groups = defaultdict(list)
        for it in items:
            if it["price"] > 20:
                groups[it["cat"]].append(it)
        return {cat: {"count": len(vs), "total": sum(it["price"] for it in vs)} for cat, vs in groups.items()}
    return {"python": Impl(py), "ptclisp": _ptc(maps_src(n))}


# ------------------------------------------------------------------ d. strings

WORDS = ["alpha", "beta", "gamma", "delta", "epsilon", "zeta", "eta", "theta", "iota", "kappa", "lambda", "mu"]


def lines_data(n: int) -> list:
    rnd = random.Random(7)
    return [" ".join(rnd.choice(WORDS) for _ in range(8)) for _ in range(n)]


STRINGS_SRC = """
(let [words (mapcat (fn [line] (split (upper-case line) " ")) data/lines)
      joined (mapv (fn [line] (join "-" (split line " "))) data/lines)]
  {:lines (count joined) :chars (reduce + (map count joined)) :freq (frequencies words)})"""


def w_strings(quick):
    lines = lines_data(size(quick, 10_000, 500))

    def py():
        words = [w for line in lines for w in line.upper().split(" ")]
        joined = ["-".join(line.split(" ")) for line in lines]
        return {"lines": len(joined), "chars": sum(len(j) for j in joined), "freq": dict(Counter(words))}
    return {"python": Impl(py), "ptclisp": _ptc(STRINGS_SRC, {"lines": lines})}


# ------------------------------------------------------------------ e. sort-by + take

def rows_data(n: int) -> list:
    rnd = random.Random(11)
    return [{"id": i, "score": rnd.random(), "name": f"item-{i}"} for i in range(n)]


SORT_SRC = "(take 10 (sort-by :score data/rows))"


def w_sort(quick):
    rows = rows_data(size(quick, 50_000, 1000))
    return {"python": Impl(lambda: sorted(rows, key=lambda r: r["score"])[:10]),
            "ptclisp": _ptc(SORT_SRC, {"rows": rows})}


# ------------------------------------------------------------------ f. many small programs

def small_program(i: int) -> str:
    """The i-th of the many small, distinct programs of workload f."""
    return f"(let [xs [{i} {i + 1} {i + 2} {i + 3}]] (->> xs (filter odd?) (map (fn [x] (* x x))) (reduce + {i})))"


def w_programs(quick):
    n = size(quick, 1000, 50)
    # every repetition evaluates programs never seen before (one counter per column, so the
    # warm-up runs of both columns see the same programs and their answers can be compared)
    py_salt, ptc_salt = itertools.count(), itertools.count()

    def py_src(i):
        return f"sum((x * x for x in [{i}, {i + 1}, {i + 2}, {i + 3}] if x % 2 == 1), {i})"

    def py():
        base = next(py_salt) * n
        return sum(eval(py_src(base + k), {}) for k in range(n))  # noqa: S307 - our own text

    def ptc():
        base = next(ptc_salt) * n
        total = 0
        for k in range(n):
            r = run(small_program(base + k), limits=BIG)
            if not r.ok:
                raise BenchError(str(r.error))
            total += r.value
        return total
    return {"python": Impl(py), "ptclisp": Impl(ptc)}


# ------------------------------------------------------------------ g. persistent growth

def grow_src(k: int) -> str:
    return (f"(loop [i 0 m {{}} v []] (if (< i {k}) (recur (inc i) (assoc m i (* 2 i)) (conj v i)) "
            f"[(count m) (count v)]))")


def grow_size(n: int, quick: bool) -> int:
    return n // 10 if quick else n


def w_grow(n):
    def build(quick):
        k = grow_size(n, quick)

        def py():
            m, v = {}, []
            for i in range(k):
                m[i] = 2 * i
                v.append(i)
            return [len(m), len(v)]
        return {"python": Impl(py), "ptclisp": _ptc(grow_src(k))}
    return build


# ------------------------------------------------------------------ h. a session across turns

def session_programs(n: int) -> tuple[list, list]:
    """n small PTC programs that define and reuse values, and the same turns in Python."""
    ptc, py = ["(def total 0) (def items [])"], ["total = 0\nitems = []"]
    for i in range(1, n - 1):
        if i % 3 == 0:
            ptc.append(f"(def total (+ total {i}))")
            py.append(f"total = total + {i}")
        elif i % 3 == 1:
            ptc.append(f"(def items (conj items {i}))")
            py.append(f"items.append({i})")
        else:
            ptc.append(f"(defn f{i} [n] (+ n total (count items))) (f{i} {i})")
            py.append(f"def f{i}(n):\n    return n + total + len(items)\nf{i}({i})")
    ptc.append("[total (count items) (reduce + items)]")
    py.append("result = [total, len(items), sum(items)]")
    return ptc, py


def w_session(quick):
    ptc, py = session_programs(size(quick, 200, 20))

    def run_py():
        ns: dict = {}
        for src in py:
            exec(compile(src, "<turn>", "exec"), ns)  # noqa: S102 - our own text
        return ns["result"]

    def run_ptc():
        s = Session(limits=BIG)
        r = None
        for src in ptc:
            r = s.eval(src)
            if not r.ok:
                raise BenchError(str(r.error))
        return r.value
    return {"python": Impl(run_py), "ptclisp": Impl(run_ptc, to_python)}


# ------------------------------------------------------------------ i. cold start

def _child_env() -> dict:
    env = dict(os.environ)
    # an installed wheel has bytecode; let the warm-up run write it here too
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    return env


def script(name: str) -> str | None:
    """A console script installed next to this interpreter (or on PATH)."""
    here = os.path.join(os.path.dirname(sys.executable), name)
    return here if os.path.exists(here) else shutil.which(name)


def process_impl(cmd: list, expect: str = "3") -> Impl:
    env = _child_env()

    def go():
        out = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=120)
        if out.returncode != 0 or out.stdout.strip() != expect:
            raise BenchError(f"{cmd[0]} exited {out.returncode}: {(out.stderr or out.stdout).strip()[-300:]}")
        return out.stdout.strip()
    return Impl(go)


def w_startup(quick):
    exe = script("ptclisp")
    cmd = [exe] if exe else [sys.executable, "-m", "ptclisp.cli"]
    return {"python": process_impl([sys.executable, "-c", "print(1+2)"]),
            "ptclisp": process_impl(cmd + ["eval", "(+ 1 2)"])}


# ------------------------------------------------------------------ j. memory of a session holding JSON data

def json_records(target_bytes: int) -> list:
    rnd = random.Random(3)
    tags = ["red", "green", "blue", "urgent", "later", "internal", "public"]
    cities = ["Lund", "Oslo", "Turku", "Aarhus", "Tartu", "Riga"]
    out, size, i = [], 2, 0
    while size < target_bytes:
        rec = {"id": i, "name": f"user-{i}", "email": f"user{i}@example.com", "active": i % 3 == 0,
               "score": round(rnd.random() * 100, 3), "tags": rnd.sample(tags, 3),
               "address": {"city": rnd.choice(cities), "zip": f"{i % 100000:05d}"}}
        out.append(rec)
        size += len(json.dumps(rec)) + 2
        i += 1
    return out


_MEM_PY = """
import json, sys, tracemalloc
text = open(sys.argv[1], encoding="utf-8").read()
tracemalloc.start()
data = json.loads(text)
cur, peak = tracemalloc.get_traced_memory()
print(json.dumps({"peak": peak, "retained": cur, "n": len(data)}))
"""

_MEM_PTC = """
import json, sys, tracemalloc
import ptclisp
text = open(sys.argv[1], encoding="utf-8").read()
big = ptclisp.Limits(loop_limit=10**7, timeout_ms=60000, memory_bytes=10**9)
ptclisp.Session(context={"x": [1]}).eval("(count data/x)")  # lazily built tables are not data
tracemalloc.start()
s = ptclisp.Session(context={"rows": json.loads(text)}, limits=big)
r = s.eval("(count data/rows)")
cur, peak = tracemalloc.get_traced_memory()
print(json.dumps({"peak": peak, "retained": cur, "n": r.value}))
"""


def memory_impl(code: str, path: str, detail: dict, cmd: list | None = None) -> Impl:
    env = _child_env()

    def go():
        out = subprocess.run((cmd or [sys.executable, "-c", code]) + [path], capture_output=True, text=True,
                             env=env, timeout=300)
        if out.returncode != 0:
            raise BenchError(out.stderr.strip()[-300:])
        rec = json.loads(out.stdout.strip().splitlines()[-1])
        detail.update(rec)
        return rec["peak"]
    return Impl(go, measures=True, detail=detail)


_TMP: list = []


def json_file(quick: bool) -> str:
    mb = 0.2 if quick else 10
    fd, path = tempfile.mkstemp(prefix="ptclisp-bench-", suffix=".json")
    with os.fdopen(fd, "w", encoding="utf-8") as fh:
        json.dump(json_records(int(mb * 1_000_000)), fh)
    _TMP.append(path)
    return path


def w_memory(quick):
    path = json_file(quick)
    return {"python": memory_impl(_MEM_PY, path, {}), "ptclisp": memory_impl(_MEM_PTC, path, {})}


WORKLOADS = [
    Workload("a", "fib 25 (defn, recursion)", w_fib, target=15),
    Workload("b", "loop/recur sum 1..1e6", w_loop, target=15),
    Workload("c", "10k maps: filter, group-by, count+sum", w_maps, target=3),
    Workload("d", "10k strings: split, join, upper-case, frequencies", w_strings, target=3),
    Workload("e", "sort-by + take 10 on 50k maps", w_sort, target=3),
    Workload("f", "read+analyze+eval 1,000 small programs", w_programs, target=6),
    Workload("g20", "grow map+vector 20k (assoc/conj)", w_grow(20_000)),
    Workload("g80", "grow map+vector 80k (assoc/conj)", w_grow(80_000)),
    Workload("h", "Session: 200 successive def/reuse turns", w_session),
    Workload("i", "cold start `ptclisp eval '(+ 1 2)'`", w_startup, target_ms=150),
    Workload("j", "peak memory: Session holding 10 MB JSON", w_memory, target=3, unit="MB",
             max_reps=2),
]
GROWTH_LIMIT = 5.0  # 80k/20k time ratio; linear growth is ~4x


# ------------------------------------------------------------------ timing

def measure(workloads, columns, reps=5, quick=False, extra_columns=None, max_seconds=10.0, log=None):
    """Run every workload's columns alternately; return a JSON-able record."""
    extra_columns = extra_columns or {}
    rows = []
    for w in workloads:
        if log:
            log(f"[{w.key}] {w.name}")
        impls = {k: v for k, v in w.build(quick).items() if k in columns}
        for name, factory in extra_columns.items():
            if name in columns:
                try:
                    impl = factory(w.key, quick)
                except Exception as exc:  # noqa: BLE001 - a broken extra column is reported, not fatal
                    impl = exc
                if impl is not None:
                    impls[name] = impl
        n = 1 if quick else min(reps, w.max_reps or reps)
        rows.append(_measure_one(w, impls, n, max_seconds))
    return rows


def _measure_one(w: Workload, impls: dict, reps: int, max_seconds: float) -> dict:
    cols = {name: {"samples": [], "error": None} for name in impls}
    answers = {}
    for name, impl in impls.items():  # warm-up run, also the answer for the cross-check
        if isinstance(impl, Exception):
            cols[name]["error"] = f"setup failed: {impl}"
            continue
        try:
            val, secs = _sample(impl)
            answers[name] = impl.plain(val) if not impl.measures else None
            if impl.measures:
                cols[name]["samples"].append(val)
            elif secs > max_seconds or reps == 1:
                cols[name]["samples"].append(secs)
        except Exception as exc:  # noqa: BLE001
            cols[name]["error"] = f"{type(exc).__name__}: {exc}"
    order = [n for n in impls if cols[n]["error"] is None]
    for rep in range(reps):
        k = rep % max(1, len(order))
        for name in order[k:] + order[:k]:  # rotate who goes first
            c = cols[name]
            if len(c["samples"]) >= reps or (c["samples"] and not impls[name].measures
                                             and c["samples"][-1] > max_seconds):
                continue
            try:
                val, secs = _sample(impls[name])
            except Exception as exc:  # noqa: BLE001 - reported in the table, the run goes on
                c["error"] = f"{type(exc).__name__}: {exc}"
                order = [n for n in order if n != name]
                continue
            c["samples"].append(val if impls[name].measures else secs)
    ref = answers.get("python")
    for name, c in cols.items():
        s = c["samples"]
        if s:
            scale = 1e3 if w.unit == "ms" else 1e-6
            c["min"], c["median"] = min(s) * scale, statistics.median(s) * scale
        if c["error"] is None and name != "python" and name in answers and ref is not None \
                and answers[name] != ref:
            c["error"] = "answer differs from plain Python"
        detail = getattr(impls[name], "detail", None)
        if detail:
            c["detail"] = detail
    return {"key": w.key, "name": w.name, "unit": w.unit, "target": w.target, "target_ms": w.target_ms,
            "columns": cols, "ratios": _ratios(cols)}


def _sample(impl: Impl):
    gc.collect()
    t0 = time.perf_counter()
    val = impl.run()
    return val, time.perf_counter() - t0


def _ratios(cols: dict) -> dict:
    py = cols.get("python", {})
    out = {}
    for name, c in cols.items():
        if name != "python" and "min" in c and py.get("min"):
            out[name] = {"min": c["min"] / py["min"], "median": c["median"] / py["median"]}
    return out


def growth(rows: list) -> dict:
    """80k/20k time ratio of each column (linear growth is ~4x)."""
    by = {r["key"]: r for r in rows}
    if "g20" not in by or "g80" not in by:
        return {}
    out = {}
    for name, c in by["g80"]["columns"].items():
        small = by["g20"]["columns"].get(name, {})
        if c.get("min") and small.get("min"):
            out[name] = c["min"] / small["min"]
    return out


def verdict(row: dict) -> str:
    c = row["columns"].get("ptclisp")
    if c is None:
        return ""
    if c["error"]:
        return "ERROR"
    if row.get("target_ms") is not None and "min" in c:
        return "ok" if c["min"] <= row["target_ms"] else "MISS"
    r = row["ratios"].get("ptclisp")
    if row.get("target") is not None and r:
        return "ok" if r["min"] <= row["target"] else "MISS"
    return ""


# ------------------------------------------------------------------ report

def _fmt(c: dict, unit: str) -> str:
    if c.get("error"):
        return "error"
    if "min" not in c:
        return "-"
    v = c["min"]
    if unit == "MB":
        return f"{v:.1f} MB"
    return f"{v:.0f} ms" if v >= 100 else f"{v:.1f} ms" if v >= 1 else f"{v:.2f} ms"


def table(rows: list, columns: list, judge: bool = True) -> str:
    """A Markdown table: each column's minimum and, after it, its ratio (min; median) to plain Python.

    With judge=False (quick runs: reduced sizes) the targets are shown but not checked."""
    others = [c for c in columns if c != "python"]
    head = ["", "workload", "python"]
    for c in others:
        head += [c, f"{c}/py"]
    head += ["target", "met"]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for r in rows:
        cells = [r["key"], r["name"], _fmt(r["columns"].get("python", {}), r["unit"])]
        for c in others:
            col = r["columns"].get(c)
            rat = r["ratios"].get(c)
            cells += [_fmt(col, r["unit"]) if col else "n/a",
                      f"{rat['min']:.2f}x ({rat['median']:.2f}x)" if rat else ""]
        tgt = f"<= {r['target_ms']:.0f} ms" if r.get("target_ms") else f"<= {r['target']:g}x" if r.get("target") \
            else ""
        cells += [tgt, verdict(r) if judge else "-"]
        lines.append("| " + " | ".join(cells) + " |")
    g = growth(rows)
    if g:
        cells = ["g", "growth 80k/20k (linear = 4x)", f"{g['python']:.2f}x" if "python" in g else ""]
        for c in others:
            cells += [f"{g[c]:.2f}x" if c in g else "", ""]
        ok = "ptclisp" in g and g["ptclisp"] <= GROWTH_LIMIT
        cells += [f"<= {GROWTH_LIMIT:g}x", ("ok" if ok else "MISS") if "ptclisp" in g and judge else "-"]
        lines.append("| " + " | ".join(cells) + " |")
    apart = sorted({c for r in rows for c, col in r["columns"].items() if "python_ref" in col})
    if apart:
        lines += ["", f"{', '.join(apart)}: measured in a process of its own; the ratio is to the plain Python "
                      f"measured beside it there."]
    errors = [f"- {r['key']} {c}: {col['error']}" for r in rows for c, col in r["columns"].items() if col["error"]]
    if errors:
        lines += ["", "Errors:"] + errors
    return "\n".join(lines)


def meta(reps: int, quick: bool) -> dict:
    rev = None
    try:
        here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
        rev = subprocess.run(["git", "-C", here, "rev-parse", "--short", "HEAD"], capture_output=True,
                             text=True, timeout=10).stdout.strip() or None
    except (OSError, subprocess.SubprocessError):
        pass
    return {"ptclisp": __version__, "commit": rev, "python": platform.python_version(),
            "implementation": platform.python_implementation(), "machine": platform.machine(),
            "system": platform.system(), "cpus": os.cpu_count(), "reps": reps, "quick": quick,
            "loadavg": [round(x, 2) for x in os.getloadavg()] if hasattr(os, "getloadavg") else None,
            "date": time.strftime("%Y-%m-%d %H:%M:%S")}


def compare(rows: list, baseline: dict) -> str:
    """ptclisp's minimum now against a previous --json record."""
    old = {r["key"]: r for r in baseline.get("workloads", [])}
    lines = ["| | workload | before | now | change |", "|---|---|---|---|---|"]
    for r in rows:
        a = old.get(r["key"], {}).get("columns", {}).get("ptclisp", {})
        b = r["columns"].get("ptclisp", {})
        if a.get("min") and b.get("min"):
            lines.append(f"| {r['key']} | {r['name']} | {_fmt(a, r['unit'])} | {_fmt(b, r['unit'])} | "
                         f"{b['min'] / a['min']:.2f}x |")
    return "\n".join(lines)


# ------------------------------------------------------------------ profiling

def profile(workloads, quick: bool, top: int = 15, sort: str = "tottime", out=sys.stdout):
    """cProfile the ptclisp column of each workload (one warm-up, one profiled run).

    The cyclic collector is off while profiling: its pauses would be charged to
    whichever function happened to allocate, which hides the real hot spots."""
    import cProfile
    import pstats
    for w in workloads:
        impl = w.build(quick).get("ptclisp")
        if impl is None or impl.measures:
            continue
        impl.run()
        pr = cProfile.Profile()
        gc.collect()
        gc.disable()
        try:
            pr.enable()
            impl.run()
            pr.disable()
        finally:
            gc.enable()
        print(f"\n===== [{w.key}] {w.name}", file=out)
        pstats.Stats(pr, stream=out).strip_dirs().sort_stats(sort).print_stats(top)


# ------------------------------------------------------------------ command line

def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--quick", action="store_true", help="small sizes, one repetition (a smoke run)")
    p.add_argument("--reps", type=int, default=5, help="timed repetitions per column (default 5)")
    p.add_argument("--only", metavar="KEYS", help="comma-separated workload keys, e.g. a,c,g20,g80")
    p.add_argument("--columns", metavar="NAMES", help="comma-separated columns (default: all available)")
    p.add_argument("--json", metavar="FILE", help="write the results as JSON")
    p.add_argument("--baseline", metavar="FILE", help="compare ptclisp with a previous --json record")
    p.add_argument("--max-seconds", type=float, default=10.0,
                   help="stop repeating a column after a sample slower than this (default 10)")
    p.add_argument("--profile", action="store_true", help="cProfile the ptclisp column instead of timing")
    p.add_argument("--top", type=int, default=15, help="rows per profile (default 15)")
    p.add_argument("--no-program-cache", action="store_true",
                   help="re-read, re-analyze and re-compile the program at every repetition (the Session "
                        "would otherwise reuse the program it built for the same text)")
    p.add_argument("--in-process", action="store_true", help=argparse.SUPPRESS)


def run_isolated(name: str, cmd: list, args) -> dict:
    """Measure one column in a child process (`cmd` + our options); {workload key: row}."""
    fd, path = tempfile.mkstemp(prefix="ptclisp-bench-", suffix=".json")
    os.close(fd)
    argv = cmd + ["--in-process", "--columns", name, "--reps", str(args.reps), "--max-seconds",
                  str(args.max_seconds), "--json", path]
    argv += ["--only", args.only] if args.only else []
    argv += ["--quick"] if args.quick else []
    try:
        subprocess.run(argv, stdout=subprocess.DEVNULL, timeout=3600)
        with open(path, encoding="utf-8") as fh:
            return {r["key"]: r for r in json.load(fh)["workloads"]}
    except (OSError, ValueError, subprocess.SubprocessError) as exc:
        print(f"{name}: the child run failed: {exc}", file=sys.stderr)
        return {}
    finally:
        os.unlink(path)


def merge_isolated(rows: list, name: str, child: dict):
    """Put a column measured in its own process into the table; its ratio stays the one it had
    there (against the plain Python measured beside it), which is recorded as `python_ref`."""
    for r in rows:
        c = child.get(r["key"])
        if c is None:
            r["columns"][name] = {"samples": [], "error": "no result from the child run"}
            continue
        if name not in c["columns"]:
            continue
        col = dict(c["columns"][name])
        col["python_ref"] = c["columns"].get("python", {}).get("min")
        r["columns"][name] = col
        if name in c["ratios"]:
            r["ratios"][name] = c["ratios"][name]


def run_cli(args, extra_columns: dict | None = None, isolated: dict | None = None) -> int:
    """Run the suite from parsed options. Columns named in `isolated` ({name: command}) are
    measured in a child process running that command, so their libraries cannot slow the others."""
    extra_columns = extra_columns or {}
    isolated = {} if getattr(args, "in_process", False) else (isolated or {})
    PROGRAM_CACHE[0] = not getattr(args, "no_program_cache", False)
    wl = WORKLOADS
    if args.only:
        keys = {k.strip() for k in args.only.split(",") if k.strip()}
        unknown = keys - {w.key for w in WORKLOADS}
        if unknown:
            print(f"unknown workload(s): {', '.join(sorted(unknown))}; known: "
                  f"{', '.join(w.key for w in WORKLOADS)}", file=sys.stderr)
            return 2
        wl = [w for w in WORKLOADS if w.key in keys]
    try:
        if args.profile:
            profile(wl, args.quick, args.top)
            return 0
        columns = ["python", "ptclisp", *extra_columns]
        if args.columns:
            columns = ["python"] + [c for c in args.columns.split(",") if c and c != "python"]
        local = [c for c in columns if c not in isolated]
        rows = measure(wl, local, args.reps, args.quick, extra_columns, args.max_seconds,
                       log=lambda m: print(m, file=sys.stderr, flush=True))
        for name in columns:
            if name in isolated:
                print(f"[{name}] in its own process", file=sys.stderr, flush=True)
                merge_isolated(rows, name, run_isolated(name, isolated[name], args))
    finally:
        for path in _TMP:
            try:
                os.unlink(path)
            except OSError:
                pass
        _TMP.clear()
    reps = 1 if args.quick else args.reps
    if args.quick:
        print("quick run: reduced sizes, one repetition; the targets apply to full runs only\n")
    print(table(rows, columns, judge=not args.quick))
    if args.baseline:
        with open(args.baseline, encoding="utf-8") as fh:
            base = json.load(fh)
        if bool(base.get("meta", {}).get("quick")) != bool(args.quick):
            print("\nbaseline and this run differ in --quick; not compared", file=sys.stderr)
        else:
            print("\n" + compare(rows, base))
    if args.json:
        rec = {"meta": meta(reps, args.quick), "columns": columns, "workloads": rows, "growth": growth(rows)}
        with open(args.json, "w", encoding="utf-8") as fh:
            json.dump(rec, fh, indent=1)
    return 1 if any(c["error"] for r in rows for c in r["columns"].values()) else 0


def main(argv=None, extra_columns: dict | None = None, isolated: dict | None = None) -> int:
    p = argparse.ArgumentParser(prog="ptclisp bench lang", description="Time PTC-Lisp workloads against plain Python.")
    add_arguments(p)
    return run_cli(p.parse_args(argv), extra_columns, isolated)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
