"""PTC errors and source spans.

Owns the one exception type that crosses every layer (`PtcError`, carrying a
machine-readable `kind` from docs/spec/runtime.md §12), the `Span` of source text it
points at, the terminal-outcome signals `ReturnSignal` / `FailSignal`, and
`PTC_FILENAME`, the file name generated code runs under (error positions
are recovered from its traceback frames). Turning any other exception into
a PtcError is ptclisp.runtime.failures. Also `logger`, how every module gets
its logger. Imports nothing from ptclisp.
"""
from __future__ import annotations

#: The file name of code generated from a PTC program: its traceback frames carry PTC positions.
PTC_FILENAME = "<ptc>"

_NULL_HANDLER_ADDED = False


def logger(name: str = "ptclisp"):
    """The logger `name` ("ptclisp" or a child of it), importing `logging` on first use.

    The "ptclisp" logger gets a NullHandler before any of ours is handed out, so no record of
    ours reaches the host's streams unless the host configures logging; a program that never
    logs does not import `logging` at all.
    """
    global _NULL_HANDLER_ADDED
    import logging
    if not _NULL_HANDLER_ADDED:
        top = logging.getLogger("ptclisp")
        if not any(type(h) is logging.NullHandler for h in top.handlers):
            top.addHandler(logging.NullHandler())
        _NULL_HANDLER_ADDED = True
    return logging.getLogger(name)


class Span:
    """A position in PTC source: 1-based line and column (end optional). Treat as immutable."""

    __slots__ = ("line", "col", "end_line", "end_col")

    def __init__(self, line: int, col: int, end_line: int | None = None, end_col: int | None = None):
        self.line = line
        self.col = col
        self.end_line = end_line
        self.end_col = end_col

    def __eq__(self, other):
        return type(other) is Span and (self.line, self.col, self.end_line, self.end_col) == \
            (other.line, other.col, other.end_line, other.end_col)

    def __hash__(self):
        return hash((self.line, self.col, self.end_line, self.end_col))

    def __repr__(self) -> str:
        return f"Span(line={self.line}, col={self.col}, end_line={self.end_line}, end_col={self.end_col})"

    def __str__(self) -> str:
        return f"line {self.line}, column {self.col}"


class PtcError(Exception):
    """An evaluation failure with a reason atom (`kind`) and a bounded message."""

    def __init__(self, kind: str, message: str, span: Span | None = None, details: dict | None = None):
        super().__init__(message)
        self.kind = kind
        self.message = message
        self.span = span
        self.details = details or {}

    def located(self, span: Span | None) -> "PtcError":
        """Attach `span` unless the error already knows where it happened."""
        if self.span is None and span is not None:
            self.span = span
        return self

    def __repr__(self) -> str:
        where = f" at {self.span}" if self.span else ""
        return f"PtcError({self.kind}: {self.message}{where})"

    def __str__(self) -> str:
        return f"{self.kind}: {self.message}"


class ReadError(PtcError):
    """The reader could not turn text into forms (`parse_error`)."""

    def __init__(self, message: str, span: Span | None = None, incomplete: bool = False):
        super().__init__("parse_error", message, span)
        self.incomplete = incomplete


class TerminalSignal(Exception):
    """Base of `return` / `fail`: unwinds the whole evaluation with a value."""

    def __init__(self, value):
        super().__init__()
        self.value = value


class ReturnSignal(TerminalSignal):
    pass


class FailSignal(TerminalSignal):
    pass


def brief_int(n: int) -> str:
    """An integer for an error message: in full when small, else its size (messages stay short, and
    `str` of a huge int would hit the interpreter's digit limit)."""
    if -(1 << 64) < n < (1 << 64):
        return str(n)
    return f"{'-' if n < 0 else ''}<an integer of {n.bit_length()} bits>"
