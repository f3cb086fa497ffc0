"""Observability of agent runs: trace directories, usage and cost, and reading them back.

    from ptclisp.trace import TraceWriter, price_book
    host = AgentHost(models, trace=TraceWriter("traces", inspect=True),
                     prices=price_book({"main": {"input": 0.15, "output": 0.6}}))

Modules:
    writer.py    TraceWriter / RunTrace: DIR/<run id>/events.jsonl (public, content-free) and, with
                 inspect, DIR/<run id>/private/evidence.jsonl (owner-only)
    usage.py     UsageMeter: calls and tokens per alias and per resolved model, cost; summary_line
    prices.py    PRICES (common models, USD per million tokens), PriceBook, parse_price, price_book
    reader.py    load_runs / load_run / summary / turns: a trace directory read back (view, analysis)
    analysis.py  the read-only tools behind the `analysis` prelude (`ptclisp repl --runs DIR`)
    transcript.py  one run's conversation as text (`ptclisp transcript`)

The --trace-dir / --inspect / --price flags are ptclisp/commands/trace_flags.py. The view (`ptclisp view`) is the package ptclisp.view.  This package imports
providers.redact, jsonout and values (those through trace.plain_data).
"""
from . import prices
from .prices import PRICES, Price, PriceBook, parse_price, price_book
from .usage import UsageMeter, empty_usage, summary_line


def __getattr__(name: str):
    """TraceWriter and RunTrace load writer.py (and the providers' redaction it uses) on first use, so the
    commands that only declare the trace flags start without it."""
    if name in ("TraceWriter", "RunTrace"):
        from . import writer
        return getattr(writer, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")

__all__ = ["TraceWriter", "RunTrace", "UsageMeter", "empty_usage", "summary_line", "prices", "PRICES", "Price",
           "PriceBook", "parse_price", "price_book"]
