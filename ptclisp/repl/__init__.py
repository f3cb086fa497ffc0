"""The REPL: `ptclisp repl`, interactive on a terminal or fed from a pipe.

    headless.py    Repl: session, meta-commands, evaluation, rendering as (style, text) lines
    terminal.py    the interactive front end (prompt-toolkit)
    piped.py       the front end for piped input
    completion.py  names a session can resolve: completion and one-line descriptions
    highlight.py   the pygments lexer and the colour style

Owns `start(config)` (terminal or piped, by stdin). Imports the language
(api, reader, analyzer, values, meter, the builtin registry) and the source
tools of `ptclisp.tooling` (token stream, auto-indent); only the command
line (`ptclisp/commands/main.py`) imports this package.
"""
from __future__ import annotations

import sys

from .headless import Repl, ReplConfig, SetupError

__all__ = ["Repl", "ReplConfig", "SetupError", "start"]


def start(config: ReplConfig, stdin=None, stdout=None, stderr=None) -> int:
    """Run a REPL: interactive when stdin is a terminal, else over the piped forms."""
    stdin = stdin or sys.stdin
    repl = Repl(config)
    if stdin.isatty():
        from .terminal import run_terminal
        return run_terminal(repl)
    from .piped import run_piped
    return run_piped(repl, stdin, stdout or sys.stdout, stderr or sys.stderr)
