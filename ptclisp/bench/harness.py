"""The pieces every benchmark workload shares: columns (`Impl`), workloads (`Workload`), the limits
and the evaluation modes of the ptclisp column, and running a command as a timed process.

Imports the public API only (api, convert, meter).
"""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
from typing import Callable

import attrs

from ..api import Session, run
from ..interchange.python import to_python
from ..runtime.meter import Limits

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
    close: Callable[[], None] | None = None  # called once the workload's samples are taken


@attrs.define
class Workload:
    key: str
    name: str
    build: Callable[[bool], dict]          # quick -> {column: Impl}
    target: float | None = None            # max ratio to plain Python (min over min)
    unit: str = "ms"                       # "ms" or "MB"
    target_ms: float | None = None         # absolute target for the ptclisp column (checked when no ratio target)
    about_ms: float | None = None          # the absolute time a ratio target stands for (shown, not checked)
    max_reps: int | None = None            # cap for slow, deterministic measurements
    per_sample: Callable[[bool], int] | None = None  # quick -> runs in one sample (times are shown per run)


PROGRAM_CACHE = [True]   # --no-program-cache: every evaluation reads, analyzes and compiles again
FRESH = [False]          # --fresh: every sample is one `ptclisp.run` (fresh namespace, context converted)


def ptc_program(src: str, context=None, tools=None) -> Impl:
    """A PTC-Lisp program as one column.

    By default it is evaluated in a Session prepared outside the timing (the context converted
    once); with `--fresh` every sample is `ptclisp.run(src, context=..., tools=...)`, so reading,
    analysis, compilation, converting the context and setting up the namespace all count."""
    if FRESH[0]:
        def go():
            r = run(src, context=context, tools=tools, limits=BIG)
            if not r.ok:
                raise BenchError(str(r.error))
            return r.value
        return Impl(go, to_python)
    s = Session(context=context, tools=tools, limits=BIG, program_cache=PROGRAM_CACHE[0])

    def go():
        r = s.eval(src)
        if not r.ok:
            raise BenchError(str(r.error))
        return r.value
    return Impl(go, to_python)


_ptc = ptc_program


def size(quick: bool, full: int, small: int) -> int:
    return small if quick else full


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

