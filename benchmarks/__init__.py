"""The repository's benchmark entry point: `python -m benchmarks [options]`.

The workloads, the timing loop and the report live in `ptclisp.bench` (so that
`ptclisp bench lang` also works from an installed wheel); this package adds the
columns for other Lisps on Python (hy, basilisp) when they are installed, and
keeps recorded results under `benchmarks/results/`. See docs/performance.md.
"""
from __future__ import annotations

from ptclisp import bench

from .lisps import available_columns


def main(argv=None) -> int:
    """Run the suite with every available column; same options as `ptclisp bench lang`."""
    return bench.main(argv, extra_columns=available_columns())


__all__ = ["main"]
