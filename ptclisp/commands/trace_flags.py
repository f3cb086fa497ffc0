"""The observability flags of the agent-running commands (`agent`, `run FILE --model`, `bench agent`).

Owns `add_trace_flags(parser)` (--trace-dir DIR, --inspect, --price
ALIAS=IN,OUT), `writer_from_args(args, command)` (a TraceWriter or None),
`prices_from_args(args, project_prices=None)` (a PriceBook: the package
table, then the project file's prices, then --price) and
`print_summary(prog, usage, writer)` (the one-line usage summary on stderr
at the end of a run).  Errors are ValueErrors with the message to show (the
commands turn them into usage errors).  Imports trace.writer, trace.prices,
trace.usage.
"""
from __future__ import annotations

import os
import sys

from typing import TYPE_CHECKING

from ..trace.prices import PriceBook, price_book
from ..trace.usage import summary_line

if TYPE_CHECKING:  # the writer (and the providers' redaction it uses) loads only when a run is traced
    from ..trace.writer import TraceWriter


def add_trace_flags(parser, *, price: bool = True) -> None:
    """Add --trace-dir, --inspect and (with `price`) --price to an argparse parser or group."""
    parser.add_argument("--trace-dir", metavar="DIR",
                        help="write each run to DIR/<run id>/ as it goes: a content-free public event log "
                             "(timings, sizes, token counts, error kinds); open it with 'ptclisp view DIR'")
    parser.add_argument("--inspect", action="store_true",
                        help="with --trace-dir: also keep private evidence (prompts, responses, programs, "
                             "observations, tool arguments and results) in owner-only files")
    if price:
        parser.add_argument("--price", action="append", default=[], metavar="ALIAS=IN,OUT",
                            help="price of a model alias in USD per million input and output tokens "
                                 "(optionally ,CACHED); overrides the built-in table (repeatable)")


def writer_from_args(args, command: str, *, env=None) -> TraceWriter | None:
    """The TraceWriter that --trace-dir asks for (None without it); ValueError for a bad combination.

    `env` is where the credentials to redact are looked up (default os.environ; a command with
    --env-file passes the environment its providers see)."""
    directory = getattr(args, "trace_dir", None)
    if getattr(args, "inspect", False) and not directory:
        raise ValueError("--inspect needs --trace-dir DIR (private evidence is kept beside the trace)")
    if not directory:
        return None
    try:
        from ..trace.writer import TraceWriter
        return TraceWriter(directory, inspect=bool(getattr(args, "inspect", False)), env=env,
                           meta={"command": command})
    except OSError as e:
        raise ValueError(f"cannot write --trace-dir {directory}: {e.strerror or e}") from None


def prices_from_args(args, project_prices: dict | None = None) -> PriceBook:
    """The package table, overridden by `project_prices` ({alias: {input, output, ...}}), then --price."""
    return price_book(project_prices, getattr(args, "price", None) or ())


def print_summary(prog: str, usage: dict, writer: TraceWriter | None = None, stream=None) -> None:
    """`prog: <calls, tokens, cost>[; trace DIR/<run id>]` on stderr."""
    line = f"{prog}: {summary_line(usage)}"
    run = writer.last_run if writer is not None else None
    if run is not None:
        rel = os.path.relpath(run.path)
        line += f"; trace {run.path if rel.startswith('..') else rel}"
    print(line, file=stream or sys.stderr)
