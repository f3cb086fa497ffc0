"""Canonical layout of PTC-Lisp source (`ptclisp fmt`) and REPL auto-indent.

The formatter keeps what a person chose — where lines break, comments,
single blank lines, a comma written right after a form — and makes
everything else canonical:

* indentation follows the structure, in the usual Clojure style: bodies of
  special forms (`defn`, `let`, `if`, `cond`, ...) indent two columns; a
  call whose first argument shares the head's line aligns the following
  arguments with it, otherwise they align with the head; vectors, maps and
  sets align with their first item;
* one space between forms on a line, none inside brackets;
* closing brackets join the line they close (never after a comment);
* at most one blank line in a row, none right after an opening bracket,
  none at the start of the file; no trailing whitespace; one final newline.

It works on the comment-preserving token stream (tokens.py), so comments
survive, and `format_source` checks that the result reads back to the same
forms before handing it out. Formatting is idempotent: the output is a
fixed point because line breaks are kept and every other choice is made
from the structure alone.
"""
from __future__ import annotations

import attrs

from ..errors import PtcError
from ..reader.parser import read, strip_bom
from .tokens import CLOSERS, OPENERS, PREFIXES, Tok, lex, lex_prefix

# Heads whose remaining items are a body: they indent two columns, not under the first argument.
BLOCK_HEADS = frozenset({
    "def", "defonce", "defn", "defn-", "defmacro", "fn", "let", "letfn", "loop", "binding",
    "if", "if-not", "if-let", "if-some", "when", "when-not", "when-let", "when-some", "when-first",
    "do", "doseq", "dotimes", "for", "cond", "condp", "case", "cond->", "cond->>", "as->",
    "try", "catch", "finally", "comment", "ns",
})

_NON_FORM = {"WS", "COMMENT"}


@attrs.define(slots=True)
class _Frame:
    col: int                 # 0-based column of the opening bracket
    width: int               # length of the opening bracket text
    kind: str                # "(", "[", "{", "#{", "#("
    line: int                # line number the bracket is on
    items: int = 0           # forms seen so far inside
    head: str | None = None  # the first item's text when it is a symbol
    arg_col: int | None = None  # column of the first argument when it shares the opener's line


class Layout:
    """The open brackets at a point in the text, and the indent a new line there gets."""

    def __init__(self):
        self.stack: list[_Frame] = []

    def open(self, kind: str, col: int, line: int):
        self.stack.append(_Frame(col, len(kind), kind, line))

    def close(self):
        if self.stack:
            self.stack.pop()

    def item(self, tok_type: str, text: str, col: int, line: int):
        """Note a form starting at (line, col) inside the innermost bracket."""
        if not self.stack:
            return
        f = self.stack[-1]
        f.items += 1
        if f.items == 1 and tok_type == "SYMBOL":
            f.head = text
        elif f.items == 2 and line == f.line:
            f.arg_col = col

    def indent(self) -> int:
        if not self.stack:
            return 0
        f = self.stack[-1]
        inner = f.col + f.width
        if f.kind not in ("(", "#(") or f.items == 0:
            return inner
        if f.head is not None and _bare(f.head) in BLOCK_HEADS:
            return inner + 1
        if f.arg_col is not None:
            return f.arg_col
        return inner


def _bare(head: str) -> str:
    for q in ("clojure.core/", "core/"):
        if head.startswith(q):
            return head[len(q):]
    return head


# ---------------------------------------------------------------------- formatting

class FormatError(Exception):
    """The text cannot be formatted (it does not read); carries the reader's PtcError."""

    def __init__(self, error: PtcError):
        super().__init__(error.message)
        self.error = error


def format_source(text: str) -> str:
    """The canonical layout of `text`. Raises FormatError when `text` does not read.

    A leading byte-order mark is kept as it is (layout is not encoding) and the text after it
    is formatted.
    """
    body = strip_bom(text)
    try:
        before = read(body)
    except PtcError as exc:
        raise FormatError(exc) from None
    out = _layout(lex(body))
    after = read(out)
    if _shape(before) != _shape(after):  # pragma: no cover - a formatter bug must never change a program
        raise AssertionError("formatting changed the program; please report this input")
    return text[:len(text) - len(body)] + out


def _shape(forms) -> list[str]:
    return [repr(f) for f in forms]


def _significant(toks: list[Tok]):
    """(token, newlines before it, comma after it) for every token but whitespace."""
    out = []
    nl = 0
    for t in toks:
        if t.type == "WS":
            nl += t.text.count("\n")
            if "," in t.text and out and out[-1][0].type not in OPENERS and out[-1][0].type not in PREFIXES \
                    and out[-1][0].type != "COMMENT":
                out[-1][2] = True
            continue
        out.append([t, nl, False])
        nl = 0
    # a comma right before a closing bracket (comments aside) is dropped
    for i, entry in enumerate(out):
        if entry[2]:
            j = i + 1
            while j < len(out) and out[j][0].type == "COMMENT":
                j += 1
            if j == len(out) or out[j][0].type in CLOSERS:
                entry[2] = False
    return out


def _layout(toks: list[Tok]) -> str:
    out: list[str] = []
    col = 0                 # column where the next character goes
    line = 1
    layout = Layout()
    prev = None             # "open", "prefix", "form", "comment" or None at the start
    for tok, nl, comma in _significant(toks):
        t = tok.type
        if t in CLOSERS:
            if prev == "comment":
                ind = layout.indent()
                out.append("\n" + " " * ind)
                line += 1
                col = ind
            out.append(tok.text)
            col += len(tok.text)
            layout.close()
            prev = "form"
        else:
            if prev is not None and (nl > 0 or prev == "comment"):
                blank = nl >= 2 and prev != "open"
                ind = layout.indent()
                out.append("\n\n" if blank else "\n")
                line += 2 if blank else 1
                out.append(" " * ind)
                col = ind
            elif prev == "form" or (prev == "open" and t == "COMMENT"):
                out.append(" ")
                col += 1
            if t == "COMMENT":
                text = tok.text.rstrip()
                out.append(text)
                col += len(text)
                prev = "comment"
                continue
            if prev != "prefix":
                layout.item(t, tok.text, col, line)
            out.append(tok.text)
            if t in OPENERS:
                layout.open(OPENERS[t], col, line)
                prev = "open"
            elif t in PREFIXES:
                prev = "prefix"
            else:
                prev = "form"
            nls = tok.text.count("\n")
            if nls:
                line += nls
                col = len(tok.text) - tok.text.rfind("\n") - 1
            else:
                col += len(tok.text)
        if comma:
            out.append(",")
            col += 1
    text = "".join(out)
    return text + "\n" if text else ""


# ---------------------------------------------------------------------- auto-indent

def indent_after(text: str) -> int | None:
    """The indent for a new line typed at the end of `text` (None inside an unclosed string)."""
    toks, in_string = lex_prefix(text)
    if in_string:
        return None
    layout = Layout()
    prefix = False
    for tok in toks:
        t = tok.type
        if t in _NON_FORM:
            continue
        if t in CLOSERS:
            layout.close()
            prefix = False
            continue
        if not prefix:
            layout.item(t, tok.text, tok.col - 1, tok.line)
        prefix = t in PREFIXES
        if t in OPENERS:
            layout.open(OPENERS[t], tok.col - 1, tok.line)
    return layout.indent()
