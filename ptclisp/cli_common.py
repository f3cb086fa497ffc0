"""Helpers shared by the command-line modules (`ptclisp/cli.py`, `agent/cli.py`, `bench_agent/cli.py`).

Owns `UsageError` (bad arguments or unusable input: one line on stderr,
exit 2), `read_text` (a named file or `-` for stdin, as UTF-8),
`load_data` (the `--data FILE.json` object: a regular file within a size
bound, ptclisp/files.py, at the API's depth rule, ptclisp/json_data.py), `load_tools` (the
`--tools module:attr` objects) and `lenient_output` (streams that can write
any text, for the duration of a command).

Only command-line modules import this one; the libraries (the agent host,
the benchmark runner) never do. Imports `ptclisp.tools` (lazily, for
`load_tools`), `ptclisp.files` and `ptclisp.json_data` (lazily, for `load_data`) and the standard library.
"""
from __future__ import annotations

import contextlib
import importlib
import os
import sys


class UsageError(Exception):
    """Bad arguments or unusable input files: one line on stderr, exit 2."""


def read_text(path: str, what: str = "") -> str:
    """The UTF-8 text of `path` (`-`: standard input); `what` prefixes the file in the error, e.g. "--data "."""
    if path == "-":
        return sys.stdin.read()
    try:
        with open(path, encoding="utf-8") as fh:
            return fh.read()
    except OSError as exc:
        raise UsageError(f"cannot read {what}{path}: {exc.strerror or exc}") from None
    except UnicodeDecodeError as exc:
        raise UsageError(f"cannot read {what}{path}: not UTF-8 text ({exc.reason} at byte {exc.start})") from None


def load_data(path: str | None):
    """The --data file: a JSON object whose keys become data/<name>.

    A regular file of at most `files.MAX_FILE_BYTES` (a FIFO or a device is refused, never waited
    on), parsed with the host API's depth rule (json_data: up to convert.MAX_DEPTH levels); every
    failure is a UsageError of one line."""
    if not path:
        return None
    from .files import FileRefused, read_text as read_file
    from .json_data import JsonTooDeep, parse
    try:
        text = sys.stdin.read() if path == "-" else read_file(path)
    except FileRefused as exc:
        raise UsageError(f"cannot read --data {path}: {exc.reason}") from None
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
    from .tools import Tool
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
