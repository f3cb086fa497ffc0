"""Helpers shared by the command modules of ptclisp/commands/ (main, agent, bench_agent, mcp, project).

Owns `load_data` (the `--data FILE.json` object: a regular file within a size
bound, at the API's depth rule, ptclisp/interchange/json_in.py), `load_tools` (the
`--tools module:attr` objects), `lenient_output` (streams that can write
any text, for the duration of a command) and the one definition of the
per-evaluation limit flags (`add_limit_flags`, `limits_from_args`: `--memory-bytes`,
`--loop-limit`, ... one per `ptclisp.Limits` field) that eval, run, repl and
`mcp serve` share. It re-exports `UsageError` and `RefusedDocument` (ptclisp/exit_codes.py:
bad arguments or unusable input, one line on stderr, exit 2 or 3) and `read_text` (a named
file, regular and size-bounded, or `-` for stdin, as UTF-8: ptclisp/interchange/documents.py),
which the libraries a command calls raise and use too.

Only command modules import this one. Imports `ptclisp.host.tools` (lazily, for
`load_tools`), `ptclisp.runtime.meter` (Limits, for the limit flags), the file readers and
`ptclisp.interchange.json_in` (lazily, for `load_data`) and the standard library.
"""
from __future__ import annotations

import contextlib
import importlib
import os
import sys

from ..exit_codes import RefusedDocument, UsageError  # noqa: F401 - the commands raise them from here too
from ..interchange.documents import read_text


#: The largest --data file read (bytes): far above any data a program is handed, far below what
#: would exhaust the machine once parsed.
MAX_DATA_BYTES = 100_000_000


def load_data(path: str | None):
    """The --data file: a JSON object whose keys become data/<name>.

    A regular file of at most MAX_DATA_BYTES (a FIFO or a device is refused at once, never waited
    on: exit 3), parsed with the host API's depth rule (json_data: up to convert.MAX_DEPTH levels);
    every failure is a UsageError of one line."""
    if not path:
        return None
    from ..interchange.json_in import JsonTooDeep, parse
    text = read_text(path, "--data ", MAX_DATA_BYTES)
    try:
        data = parse(text)
    except JsonTooDeep as exc:
        raise UsageError(f"--data {path}: {exc}") from None
    except ValueError as exc:
        raise UsageError(f"--data {path} is not valid JSON: {exc}") from None
    if not isinstance(data, dict):
        raise UsageError(f"--data {path} must hold a JSON object (its keys become data/<name>), "
                         f"not a JSON {type(data).__name__}")
    return data


def load_tools(specs: list[str] | None):
    """Import each `module:attr` (a dict name -> callable or Tool, or a list of Tool) and merge them."""
    if not specs:
        return None
    merged: dict = {}
    for spec in specs:
        _merge_tools(merged, spec, _import_spec(spec))
    return merged


def _import_spec(spec: str):
    """The object a `module:attr` spec names (the current directory is importable)."""
    mod_name, sep, attr = spec.partition(":")
    if not sep or not mod_name or not attr:
        raise UsageError(f"--tools {spec}: expected module:attr, e.g. my_tools:TOOLS")
    if os.getcwd() not in sys.path and "" not in sys.path:
        sys.path.insert(0, os.getcwd())
    try:
        obj = importlib.import_module(mod_name)
    except ModuleNotFoundError as exc:
        if exc.name and (mod_name == exc.name or mod_name.startswith(exc.name + ".")):
            raise UsageError(f"--tools {spec}: no module named {mod_name!r} "
                             f"(run from the directory that holds it, or set PYTHONPATH)") from None
        raise UsageError(f"--tools {spec}: importing {mod_name} failed: {exc}") from None
    except (Exception, SystemExit) as exc:  # noqa: BLE001 - the user's module raised while importing
        raise UsageError(f"--tools {spec}: importing {mod_name} failed: {type(exc).__name__}: {exc}") from None
    for part in attr.split("."):
        if not hasattr(obj, part):
            raise UsageError(f"--tools {spec}: {mod_name} has no attribute {attr!r}")
        obj = getattr(obj, part)
    return obj


def _merge_tools(merged: dict, spec: str, obj) -> None:
    from ..host.tools import Tool
    if isinstance(obj, dict):
        for name, fn in obj.items():
            if not isinstance(name, str) or not (isinstance(fn, Tool) or callable(fn)):
                raise UsageError(f"--tools {spec}: entry {name!r} must map a name to a callable or ptclisp.Tool")
            merged[name] = fn
    elif isinstance(obj, (list, tuple)):
        for t in obj:
            if not isinstance(t, Tool):
                raise UsageError(f"--tools {spec}: a list of tools must hold ptclisp.Tool objects, "
                                 f"found {type(t).__name__}")
            merged[t.name] = t
    else:
        raise UsageError(f"--tools {spec}: expected a dict of tools or a list of ptclisp.Tool, "
                         f"found {type(obj).__name__}")


@contextlib.contextmanager
def lenient_output():
    """Let the command's stdout and stderr write any text.

    A character the stream's encoding cannot hold (`PYTHONIOENCODING=ascii`,
    a C locale, a lone surrogate) is written as a backslash escape instead of
    failing. Only the command-line entry points use this; the previous error
    handlers are restored on exit, so a program that calls `main()` keeps its
    streams as they were, and importing ptclisp changes no stream.
    """
    changed = []
    for stream in (sys.stdout, sys.stderr):
        errors = getattr(stream, "errors", None)
        if errors in ("strict", "surrogateescape") and hasattr(stream, "reconfigure"):
            try:
                stream.reconfigure(errors="backslashreplace")
            except (ValueError, OSError):
                continue
            changed.append((stream, errors))
    try:
        yield
    finally:
        for stream, errors in changed:
            try:
                stream.reconfigure(errors=errors)
            except (ValueError, OSError):
                pass


# ---------------------------------------------------------------------- the limit flags

#: Limits fields that are not given as limit flags: --timeout-ms is each command's own (its default and
#: meaning differ), and isolation / process_memory_bytes choose how an evaluation runs, not a budget.
_NOT_LIMIT_FLAGS = ("timeout_ms", "isolation", "process_memory_bytes")

_LIMIT_HELP = {
    "memory_bytes": "allocation budget per evaluation",
    "loop_limit": "iterations of one loop/recur (and of each lazy walk), per evaluation",
    "max_tool_calls": "tool calls per evaluation, or 'none' for no limit",
    "max_print_chars": "characters of printed output per evaluation",
    "max_prints": "println/print calls per evaluation",
    "max_program_bytes": "largest program text",
    "max_symbols": "distinct symbols and keywords one program may create",
    "max_depth": "nesting depth of values and of the program's forms",
    "max_parallel_workers": "pmap/pcalls workers at once",
    "pmap_timeout_ms": "wall-clock limit of one pmap/pcalls, or 'none' for no limit",
    "max_result_bytes": "largest value returned, about N bytes printed, or 'none' for no limit",
    "recursion_limit": "frames of nested calls (at most 30000)",
    "regex_timeout_ms": "wall-clock limit of one regex match",
    "compile_timeout_ms": "reading, analysing and compiling one program, or 'none' for no limit",
}


def limit_fields() -> list:
    """The attrs fields of `ptclisp.Limits` that have a limit flag, in field order."""
    import attrs

    from ..runtime.meter import Limits
    return [f for f in attrs.fields(Limits) if f.name not in _NOT_LIMIT_FLAGS]


NO_LIMIT = "none"   # what a limit flag's parsed value is for 'none' (None means the flag was not given)


def _limit_type(name: str):
    """An argparse type for the Limits field `name`: a whole number (or 'none' where that means no limit),
    checked by Limits' own validator so the flag accepts exactly what the API does."""
    import argparse

    from ..runtime.meter import Limits

    def parse(text: str):
        given = text.strip().lower()
        try:
            value = None if given == "none" else int(given)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected a whole number, got {text[:40]!r}") from None
        try:
            Limits(**{name: value})
        except (TypeError, ValueError) as exc:
            reason = str(exc).replace(f"Limits.{name}", "it")
            raise argparse.ArgumentTypeError(reason if value is not None else "this limit cannot be 'none'") \
                from None
        return NO_LIMIT if value is None else value
    parse.__name__ = name.replace("_", "-")   # argparse names the type in its message
    return parse


def add_limit_flags(parser, defaults: dict | None = None, title: str = "limits of each evaluation") -> None:
    """Add `--memory-bytes N`, `--loop-limit N`, ... (one per `limit_fields()`) as an argument group.

    Each flag defaults to None (not given: the command's limits stand); `defaults` overrides the
    default shown in the help (the command's own base Limits)."""
    from ..runtime.meter import Limits
    base = Limits()
    group = parser.add_argument_group(title, "raise or lower one limit of ptclisp.Limits "
                                             "(docs/security.md lists each with its failure reason)")
    for f in limit_fields():
        shown = (defaults or {}).get(f.name, getattr(base, f.name))
        shown = "none" if shown is None else shown
        group.add_argument("--" + f.name.replace("_", "-"), dest=f.name, type=_limit_type(f.name), default=None,
                           metavar="N", help=f"{_LIMIT_HELP.get(f.name, f.name)} (default {shown})")


def limit_flags_given(args) -> list[str]:
    """The limit flags given on the command line, as `--flag-name`s."""
    return ["--" + f.name.replace("_", "-") for f in limit_fields() if getattr(args, f.name, None) is not None]


def limits_from_args(args, base):
    """`base` (a ptclisp.Limits) with every limit flag that was given applied."""
    import attrs
    given = {}
    for f in limit_fields():
        value = getattr(args, f.name, None)
        if value is not None:
            given[f.name] = None if value == NO_LIMIT else value
    return attrs.evolve(base, **given) if given else base
