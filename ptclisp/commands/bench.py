"""`ptclisp bench lang`: time the interpreter benchmarks' workloads against plain Python.

Owns the command's flags (`add_arguments`), `main(argv, extra_columns, isolated)` (what
`ptclisp bench lang` and the repository's `python -m benchmarks` call), `run_cli(args, ...)` (a
run from parsed options) and the columns measured in a child process of their own
(`run_isolated`, `merge_isolated`). The workloads, the timing loop and the report are the
library ptclisp.bench (core, workloads, runner).
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile

from ..bench import runner
from ..bench.harness import FRESH, PROGRAM_CACHE
from ..bench.workloads import _TMP, WORKLOADS
from ..fastpaths import general_path

FASTPATHS_OFF = [False]   # run_cli is inside general_path() (--general-path)


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
    p.add_argument("--fresh", action="store_true",
                   help="independent runs: every sample of a ptclisp program is one ptclisp.run(text, "
                        "context=...) (fresh namespace; reading, analysis, compilation and converting the "
                        "context all count), as a host running one model-written program does")
    p.add_argument("--gc", action="store_true",
                   help="also report the time each column spends in Python's cyclic garbage collector "
                        "of the measuring process (a table after the main one, and gc_median/gc_share in "
                        "--json); work a column does in other processes (monty's workers, row k's) is "
                        "not seen")
    p.add_argument("--general-path", action="store_true",
                   help="time the general path: every fast path of the back ends off "
                        "(ptclisp.general_path(); docs/architecture.md)")
    p.add_argument("--in-process", action="store_true", help=argparse.SUPPRESS)


def run_isolated(name: str, cmd: list, args) -> dict:
    """Measure one column in a child process (`cmd` + our options); {workload key: row}."""
    fd, path = tempfile.mkstemp(prefix="ptclisp-bench-", suffix=".json")
    os.close(fd)
    argv = cmd + ["--in-process", "--columns", name, "--reps", str(args.reps), "--max-seconds",
                  str(args.max_seconds), "--json", path]
    argv += ["--only", args.only] if args.only else []
    argv += ["--quick"] if args.quick else []
    argv += ["--fresh"] if getattr(args, "fresh", False) else []
    argv += ["--no-program-cache"] if getattr(args, "no_program_cache", False) else []
    argv += ["--gc"] if getattr(args, "gc", False) else []
    argv += ["--general-path"] if getattr(args, "general_path", False) else []
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
    if getattr(args, "general_path", False) and not FASTPATHS_OFF[0]:
        FASTPATHS_OFF[0] = True
        try:
            with general_path():
                return run_cli(args, extra_columns, isolated)
        finally:
            FASTPATHS_OFF[0] = False
    extra_columns = extra_columns or {}
    isolated = {} if getattr(args, "in_process", False) else (isolated or {})
    PROGRAM_CACHE[0] = not getattr(args, "no_program_cache", False)
    FRESH[0] = bool(getattr(args, "fresh", False))
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
            runner.profile(wl, args.quick, args.top)
            return 0
        columns = ["python", "ptclisp", *extra_columns]
        if args.columns:
            columns = ["python"] + [c for c in args.columns.split(",") if c and c != "python"]
        local = [c for c in columns if c not in isolated]
        if getattr(args, "gc", False):
            runner.COLLECTOR[0] = runner.CollectorClock()
            runner.COLLECTOR[0].install()
        try:
            rows = runner.measure(wl, local, args.reps, args.quick, extra_columns, args.max_seconds,
                           log=lambda m: print(m, file=sys.stderr, flush=True))
        finally:
            if runner.COLLECTOR[0] is not None:
                runner.COLLECTOR[0].remove()
                runner.COLLECTOR[0] = None
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
    print(runner.table(rows, columns, judge=not args.quick))
    if args.baseline:
        with open(args.baseline, encoding="utf-8") as fh:
            base = json.load(fh)
        bmeta = base.get("meta", {}) if isinstance(base, dict) else {}
        if not isinstance(base, dict):
            print("\nthe baseline is not a --json record; not compared", file=sys.stderr)
        elif bool(bmeta.get("quick")) != bool(args.quick):
            print("\nbaseline and this run differ in --quick; not compared", file=sys.stderr)
        else:
            if bool(bmeta.get("fresh")) != FRESH[0]:
                print("\nnote: baseline and this run differ in --fresh", file=sys.stderr)
            print("\n" + runner.compare(rows, base))
    if args.json:
        rec = {"meta": runner.meta(reps, args.quick, fresh=FRESH[0], program_cache=PROGRAM_CACHE[0]), "columns": columns, "workloads": rows, "growth": runner.growth(rows)}
        with open(args.json, "w", encoding="utf-8") as fh:
            json.dump(rec, fh, indent=1)
    return 1 if any(c["error"] for r in rows for c in r["columns"].values()) else 0


def main(argv=None, extra_columns: dict | None = None, isolated: dict | None = None) -> int:
    p = argparse.ArgumentParser(prog="ptclisp bench lang", description="Time PTC-Lisp workloads against plain Python.")
    add_arguments(p)
    return run_cli(p.parse_args(argv), extra_columns, isolated)
