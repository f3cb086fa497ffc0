"""Interpreter benchmarks: each workload as a PTC-Lisp program and as the same work in plain Python.

The command `ptclisp bench lang` is ptclisp/commands/bench.py (`main`); the repository's
`python -m benchmarks` adds columns for other interpreters (hy, basilisp, pydantic-monty) through `extra_columns`, and asks for columns whose
runtime would slow the others to be measured in a child process (`isolated`). This package
ships in the wheel so that `ptclisp bench lang` works from an install. Modules: `core` (columns,
workloads, the ptclisp column's evaluation modes), `workloads` (a-k), `agent_turn` (t), `runner`
(timing, report). Imports the public API only (api, convert, meter).
"""
from .harness import BIG, FRESH, PROGRAM_CACHE, BenchError, Impl, Workload, process_impl, ptc_program, script, size
from .runner import compare, measure, table, verdict
from .workloads import (CATS, SORT_SRC, SPLIT_RE_SRC, STRINGS_SRC, WORKLOADS, fib_src, grow_size, grow_src,
                        lines_data, loop_src, maps_src, rows_data, session_programs, small_program)

__all__ = ["BIG", "CATS", "FRESH", "PROGRAM_CACHE", "SORT_SRC", "SPLIT_RE_SRC", "STRINGS_SRC", "WORKLOADS",
           "BenchError", "Impl", "Workload", "compare", "fib_src", "grow_size", "grow_src", "lines_data",
           "loop_src", "maps_src", "measure", "process_impl", "ptc_program", "rows_data",
           "script", "session_programs", "size", "small_program", "table", "verdict"]
