"""The shape of a document: its symbols (top-level definitions), folding ranges (top-level forms
over several lines) and formatting edits (the `ptclisp fmt` formatter).

`format_edits(text)` gives the edits that turn the text into `format_source(text)`, as line ranges
(difflib's opcodes over lines, so an edit touches only lines that change); `format_range_edits`
formats the top-level forms that overlap a range, each as the whole-file formatter lays it out
(a top-level form starts at column 0, so formatting it alone gives the same text).
Imports forms, the formatter of ptclisp.tooling and source.
"""
from __future__ import annotations

import difflib

import attrs

from ..reader.forms import List, Sym
from ..tooling.formatter import FormatError, format_source
from .source import Text, end_of, start_of


@attrs.define
class Symbol:
    name: str
    kind: str              # "function" | "variable" | "namespace"
    start: tuple           # the whole form
    end: tuple
    name_start: tuple
    name_end: tuple
    detail: str | None = None


_KINDS = {"defn": "function", "defn-": "function", "def": "variable", "defonce": "variable", "ns": "namespace"}


def symbols(forms) -> list[Symbol]:
    out = []
    for f in forms:
        if type(f) is not List or len(f.items) < 2 or type(f.items[0]) is not Sym or f.span is None:
            continue
        head, name = f.items[0], f.items[1]
        kind = _KINDS.get(head.name) if head.ns is None else None
        if kind is None or type(name) is not Sym or name.span is None:
            continue
        if kind == "variable" and len(f.items) > 2 and type(f.items[-1]) is List and f.items[-1].items and \
                type(f.items[-1].items[0]) is Sym and f.items[-1].items[0].name == "fn":
            kind = "function"
        params = None
        if head.name in ("defn", "defn-"):
            from .source import fn_parts
            params = fn_parts(f)[2]
        out.append(Symbol(name.full, kind, start_of(f.span), end_of(f.span), start_of(name.span),
                          end_of(name.span), detail=repr(params) if params is not None else head.name))
    return out


def folding_ranges(forms) -> list[tuple[int, int]]:
    """(first line, last line), 0-based, of each top-level form spanning more than one line."""
    out = []
    for f in forms:
        if f.span is None:
            continue
        s, e = start_of(f.span), end_of(f.span)
        if e[0] > s[0]:
            out.append((s[0], e[0]))
    return out


@attrs.define
class Edit:
    start: tuple           # 0-based (line, col)
    end: tuple
    text: str


def format_edits(text: str) -> list[Edit]:
    """Edits turning `text` into its canonical layout; FormatError when it does not read."""
    out = format_source(text)
    if out == text:
        return []
    old, new = text.splitlines(True), out.splitlines(True)
    edits = []
    sm = difflib.SequenceMatcher(None, old, new, autojunk=False)
    for tag, i1, i2, j1, j2 in sm.get_opcodes():
        if tag == "equal":
            continue
        edits.append(Edit((i1, 0), (i2, 0), "".join(new[j1:j2])))
    if edits and not text.endswith("\n") and edits[-1].end[0] == len(old):
        # the last line has no newline: end the edit at that line's end, not past the text
        last = len(old) - 1
        e = edits[-1]
        edits[-1] = Edit(e.start, (last, len(old[last])), e.text)
    return edits


def format_range_edits(text: str, forms, start: tuple, end: tuple) -> list[Edit]:
    """Edits formatting the top-level forms that overlap [start, end)."""
    doc = Text(text)
    out = []
    for f in forms:
        if f.span is None:
            continue
        s, e = start_of(f.span), end_of(f.span)
        if e <= start or s >= end:
            continue
        if s[1] != 0:
            continue          # a form sharing its line with another: formatted only with the whole file
        old = text[doc.offset(*s):doc.offset(*e)]
        try:
            new = format_source(old).rstrip("\n")
        except FormatError:
            continue
        if new != old:
            out.append(Edit(s, e, new))
    return out
