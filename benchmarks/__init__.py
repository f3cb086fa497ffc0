"""The repository's benchmark entry point: `python -m benchmarks [options]`.

The workloads, the timing loop and the report live in `ptclisp.bench`, the command in
`ptclisp.commands.bench` (so that `ptclisp bench lang` also works from an installed wheel); this package adds the
columns for other Lisps on Python (hy, basilisp: lisps.py) and for pydantic-monty
(monty, monty-fresh: monty.py) when they are installed, and keeps recorded results
under `benchmarks/results/`. See docs/performance.md.

basilisp is measured in a child process of its own: with its runtime loaded,
the plain-Python column of the string workload ran about twice as slowly, so
sharing a process would skew every other column.
"""
from __future__ import annotations

import sys

from ptclisp.commands import bench as bench_command

from . import monty
from .lisps import available_columns

ISOLATED = ("basilisp",)


def main(argv=None) -> int:
    """Run the suite with every available column; same options as `ptclisp bench lang`."""
    cols = available_columns()
    if monty.available():
        cols.update({"monty": monty.monty_column, "monty-fresh": monty.monty_fresh_column})
    isolated = {name: [sys.executable, "-m", "benchmarks"] for name in ISOLATED if name in cols}
    return bench_command.main(argv, extra_columns=cols, isolated=isolated)


__all__ = ["main"]
