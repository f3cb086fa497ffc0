"""The REPL fed from a pipe or file: forms in, results out, no prompt-toolkit.

Lines are gathered until the brackets balance, then evaluated form by form
exactly as typed input would be. Values and printed lines go to stdout,
errors (with their caret lines) to stderr; an error names the line of the
input it is on. Input is read as bytes and decoded line by line, so a line
that is not UTF-8 is reported as such (with its line, column and byte) and
skipped. The exit status is 2 when any form ended in an error or `fail`, 6
when a session limit (--session-timeout-ms, --max-evaluations) ended the
session, else 0.
"""
from __future__ import annotations

from ..exit_codes import LIMIT_HIT
from .headless import Repl, is_complete, is_meta


def input_lines(stdin, name: str, on_bad_line):
    """The text lines of `stdin`: decoded from its bytes as UTF-8 when it has a binary buffer; a line
    that does not decode is given to `on_bad_line(message)` and skipped."""
    buffer = getattr(stdin, "buffer", None)
    if buffer is None:
        yield from stdin
        return
    for lineno, raw in enumerate(buffer, 1):
        try:
            yield raw.decode("utf-8")
        except UnicodeDecodeError as exc:
            col = len(raw[:exc.start].decode("utf-8", "replace")) + 1
            on_bad_line(f"{name}:{lineno}:{col}: Error (invalid_utf8): the input is not UTF-8 text: byte "
                        f"0x{raw[exc.start]:02x} at line {lineno}, column {col} ({exc.reason}); PTC-Lisp "
                        f"source is UTF-8")
            yield "\n"   # keeps the line count; whatever was pending before it is dropped below


def run_piped(repl: Repl, stdin, stdout, stderr, name: str = "<stdin>") -> int:
    pending = ""
    start = 1        # line number where `pending` begins
    lineno = 0
    bad: list[str] = []
    for line in input_lines(stdin, name, bad.append):
        lineno += 1
        if bad:
            repl.had_error = True
            _write([("error", bad.pop())], stdout, stderr)
            pending = ""
            continue
        if not pending and is_meta(line):
            _write(repl.handle(line), stdout, stderr)
        else:
            if not pending:
                start = lineno
            pending += line
            if not is_complete(pending):
                continue
            _write(repl.handle(pending, filename=name, first_line=start), stdout, stderr)
        pending = ""
        if repl.quit:
            break
    else:
        if pending.strip():
            _write(repl.handle(pending, filename=name, first_line=start), stdout, stderr)
    if repl.ended_by:
        return LIMIT_HIT
    return 2 if repl.had_error else 0


def _write(lines, stdout, stderr):
    for style, text in lines:
        stream = stderr if style in ("error", "error-detail", "caret", "fail") else stdout
        stream.write(text + "\n")
        stream.flush()
