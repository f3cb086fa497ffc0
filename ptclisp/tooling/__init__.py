"""Tools over PTC-Lisp source text that never run it: formatting, static checking, lexing.

    formatter.py   `ptclisp fmt`: the canonical layout, and the REPL's auto-indent (`indent_after`)
    check.py       `ptclisp check`: static analysis of every top-level form of programs and preludes
    tokens.py      the comment-preserving token stream (the reader's own grammar) both of them use,
                   and the REPL's completion

Imports the reader, the analyzer, errors and (for `check`) the prelude
compiler; never the REPL or the command line, which import it.
"""
