"""A comment-preserving token stream over PTC-Lisp source.

The reader drops comments and whitespace; the formatter (and through it the
REPL's auto-indent) and the REPL's completion need them. This module lexes
with the reader's own grammar (`grammar/ptclisp.lark`, lark's basic lexer
with nothing ignored), so a token here is exactly a token the reader sees,
plus COMMENT and WS.

Owns `Tok`, `lex(text)` (whole, valid text) and `lex_prefix(text)` (text
being typed: stops quietly at the first character it cannot lex).
Imports the reader's grammar text only.
"""
from __future__ import annotations

import threading

import attrs
from lark import Lark
from lark.exceptions import UnexpectedCharacters

from ..reader.parser import _grammar_text

OPENERS = {"LPAR": "(", "LSQB": "[", "LBRACE": "{", "HASH_LBRACE": "#{", "HASH_LPAR": "#("}
CLOSERS = {"RPAR", "RSQB", "RBRACE"}
PREFIXES = {"HASH_QUOTE", "QUOTE", "AT"}   # `#'`, `'` and `@` glue onto the form that follows


@attrs.frozen(slots=True)
class Tok:
    type: str
    text: str
    line: int      # 1-based, as the reader reports
    col: int       # 1-based


_lock = threading.Lock()
_lexer: Lark | None = None


def _lark() -> Lark:
    global _lexer
    with _lock:
        if _lexer is None:
            _lexer = Lark(_grammar_text(), parser="lalr", lexer="basic")
        return _lexer


def lex(text: str) -> list[Tok]:
    """All tokens of `text`, WS and COMMENT included. Raises lark's UnexpectedCharacters on bad text."""
    return [Tok(t.type, t.value, t.line, t.column) for t in _lark().lex(text, dont_ignore=True)]


def lex_prefix(text: str) -> tuple[list[Tok], bool]:
    """Tokens of text that may be unfinished.

    Returns (tokens, in_string): lexing stops at the first character that
    does not lex; `in_string` is true when that character opens a string or
    regex that is still unclosed (so a new line there belongs to the string).
    """
    out: list[Tok] = []
    try:
        for t in _lark().lex(text, dont_ignore=True):
            out.append(Tok(t.type, t.value, t.line, t.column))
    except UnexpectedCharacters as exc:
        pos = exc.pos_in_stream
        return out, text[pos:pos + 1] == '"' or text[pos:pos + 2] == '#"'
    return out, False
