"""The REPL fed from a pipe or file: forms in, results out, no prompt-toolkit.

Lines are gathered until the brackets balance, then evaluated form by form
exactly as typed input would be. Values and printed lines go to stdout,
errors (with their caret lines) to stderr. The exit status is 2 when any
form ended in an error or `fail`, else 0.
"""
from __future__ import annotations

from .core import Repl, is_complete, is_meta


def run_piped(repl: Repl, stdin, stdout, stderr, name: str = "<stdin>") -> int:
    pending = ""
    start = 1        # line number where `pending` begins
    lineno = 0
    for line in stdin:
        lineno += 1
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
    return 2 if repl.had_error else 0


def _write(lines, stdout, stderr):
    for style, text in lines:
        stream = stderr if style in ("error", "error-detail", "caret", "fail") else stdout
        stream.write(text + "\n")
        stream.flush()
