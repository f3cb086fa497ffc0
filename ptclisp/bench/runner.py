"""The timing loop and the report of the interpreter benchmarks (the command is ptclisp/commands/bench.py).

Columns of one workload are timed in the same run, alternating, over several
repetitions; the table shows the minimum of each column and the ratios of its
minimum and median to plain Python's. Every column's answer is checked against
plain Python's, so a fast wrong answer shows up as a mismatch, not a win.
Tests never assert timings.
"""
from __future__ import annotations

import gc
import os
import platform
import statistics
import subprocess
import sys
import time

from .. import __version__
from .harness import Impl, Workload
from .workloads import GROWTH_LIMIT

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
        per = w.per_sample(quick) if w.per_sample else 1
        try:
            rows.append(_measure_one(w, impls, n, max_seconds, per))
        finally:
            for impl in impls.values():
                if isinstance(impl, Impl) and impl.close is not None:
                    impl.close()
    return rows


def _measure_one(w: Workload, impls: dict, reps: int, max_seconds: float, per: int = 1) -> dict:
    """Time one workload's columns (`per` runs in one sample: times are per run)."""
    cols = {name: {"samples": [], "error": None} for name in impls}
    answers = {}
    for name, impl in impls.items():  # warm-up run, also the answer for the cross-check
        if isinstance(impl, Exception):
            cols[name]["error"] = f"setup failed: {impl}"
            continue
        try:
            val, secs, in_gc = _sample(impl)
            answers[name] = impl.plain(val) if not impl.measures else None
            if impl.measures:
                cols[name]["samples"].append(val)
            elif secs > max_seconds or reps == 1:
                cols[name]["samples"].append(secs)
                if in_gc is not None:
                    cols[name]["gc_samples"] = [in_gc]
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
                val, secs, in_gc = _sample(impls[name])
            except Exception as exc:  # noqa: BLE001 - reported in the table, the run goes on
                c["error"] = f"{type(exc).__name__}: {exc}"
                order = [n for n in order if n != name]
                continue
            c["samples"].append(val if impls[name].measures else secs)
            if in_gc is not None and not impls[name].measures:
                c.setdefault("gc_samples", []).append(in_gc)
    ref = answers.get("python")
    for name, c in cols.items():
        s = c["samples"]
        if s:
            scale = 1e3 / per if w.unit == "ms" else 1e-6
            c["min"], c["median"] = min(s) * scale, statistics.median(s) * scale
        gcs = c.pop("gc_samples", None)
        if gcs and w.unit == "ms":
            c["gc_median"] = statistics.median(gcs) * 1e3 / per
            c["gc_share"] = statistics.median(g / t for g, t in zip(gcs, s) if t > 0) if any(s) else 0.0
        if c["error"] is None and name != "python" and name in answers and ref is not None \
                and answers[name] != ref:
            c["error"] = "answer differs from plain Python"
        detail = getattr(impls[name], "detail", None)
        if detail:
            c["detail"] = detail
    return {"key": w.key, "name": w.name, "unit": w.unit, "target": w.target, "target_ms": w.target_ms,
            "about_ms": w.about_ms, "per_sample": per, "columns": cols, "ratios": _ratios(cols)}


class CollectorClock:
    """Time this process spends in the cyclic garbage collector (`--gc`), through `gc.callbacks`.

    `seconds` grows by the length of every collection while the clock is installed; `_sample`
    reads it around each sample. (The benchmark's own process: no embedding host is touched.)"""

    def __init__(self):
        self.seconds = 0.0
        self._started = None

    def __call__(self, phase, info):
        if phase == "start":
            self._started = time.perf_counter()
        elif self._started is not None:
            self.seconds += time.perf_counter() - self._started
            self._started = None

    def install(self):
        gc.callbacks.append(self)

    def remove(self):
        if self in gc.callbacks:
            gc.callbacks.remove(self)


COLLECTOR = [None]   # the CollectorClock of a --gc run, else None


def _sample(impl: Impl):
    """(value, seconds, seconds in the collector or None without --gc) of one run of `impl`, after a
    full collection (so no column inherits another's garbage; that collection is not counted)."""
    gc.collect()
    clock = COLLECTOR[0]
    before = clock.seconds if clock is not None else 0.0
    t0 = time.perf_counter()
    val = impl.run()
    secs = time.perf_counter() - t0
    return val, secs, (clock.seconds - before if clock is not None else None)


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
    r = row["ratios"].get("ptclisp")
    if row.get("target") is not None and r:
        return "ok" if r["min"] <= row["target"] else "MISS"
    if row.get("target_ms") is not None and "min" in c:
        return "ok" if c["min"] <= row["target_ms"] else "MISS"
    return ""


def target_text(row: dict) -> str:
    """The target cell: a ratio (with the time it stands for, when given) or an absolute time."""
    if row.get("target") is not None:
        about = f" (~{row['about_ms']:g} ms)" if row.get("about_ms") else ""
        return f"<= {row['target']:g}x{about}"
    if row.get("target_ms") is not None:
        return f"<= {row['target_ms']:g} ms"
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
        cells += [target_text(r), verdict(r) if judge else "-"]
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
    collector = [r for r in rows if any("gc_median" in col for col in r["columns"].values())]
    if collector:
        lines += ["", "Time in the cyclic garbage collector per run (median over the samples, and its share of "
                      "the sample):", "", "| | " + " | ".join(c for c in columns) + " |",
                  "|---|" + "---|" * len(columns)]
        for r in collector:
            cells = []
            for c in columns:
                col = r["columns"].get(c, {})
                cells.append(f"{col['gc_median']:.2f} ms ({col['gc_share']:.0%})" if "gc_median" in col else "")
            lines.append(f"| {r['key']} | " + " | ".join(cells) + " |")
    errors = [f"- {r['key']} {c}: {col['error']}" for r in rows for c, col in r["columns"].items() if col["error"]]
    if errors:
        lines += ["", "Errors:"] + errors
    return "\n".join(lines)


def meta(reps: int, quick: bool, fresh: bool = False, program_cache: bool = True) -> dict:
    rev = None
    try:
        here = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
        rev = subprocess.run(["git", "-C", here, "rev-parse", "--short", "HEAD"], capture_output=True,
                             text=True, timeout=10).stdout.strip() or None
    except (OSError, subprocess.SubprocessError):
        pass
    return {"ptclisp": __version__, "commit": rev, "python": platform.python_version(),
            "implementation": platform.python_implementation(), "machine": platform.machine(),
            "system": platform.system(), "cpus": os.cpu_count(), "reps": reps, "quick": quick,
            "fresh": fresh, "program_cache": program_cache,
            "loadavg": [round(x, 2) for x in os.getloadavg()] if hasattr(os, "getloadavg") else None,
            "date": time.strftime("%Y-%m-%d %H:%M:%S")}


def compare(rows: list, baseline: dict) -> str:
    """ptclisp's minimum and its ratio to plain Python now against a previous --json record.

    A workload the record does not have (added since) shows as new; an unreadable row is skipped."""
    old = {r.get("key"): r for r in baseline.get("workloads", []) if isinstance(r, dict)}
    lines = ["| | workload | before | now | change | ratio before | ratio now |", "|---|---|---|---|---|---|---|"]
    for r in rows:
        b = r["columns"].get("ptclisp", {})
        if not b.get("min"):
            continue
        prev = old.get(r["key"])
        if prev is None:
            lines.append(f"| {r['key']} | {r['name']} | (new) | {_fmt(b, r['unit'])} |  |  | "
                         f"{_ratio_text(r)} |")
            continue
        a = (prev.get("columns") or {}).get("ptclisp") or {}
        if not a.get("min"):
            continue
        lines.append(f"| {r['key']} | {r['name']} | {_fmt(a, r['unit'])} | {_fmt(b, r['unit'])} | "
                     f"{b['min'] / a['min']:.2f}x | {_ratio_text(prev)} | {_ratio_text(r)} |")
    return "\n".join(lines)


def _ratio_text(row: dict) -> str:
    rat = (row.get("ratios") or {}).get("ptclisp") or {}
    return f"{rat['min']:.2f}x" if rat.get("min") else ""


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
