"""Reader forms: what the reader produces and the analyzer consumes.

Owns the syntax-tree classes (every form carries its `Span`). Atoms that
are already values (numbers, strings, keywords, nil, booleans) are wrapped
in `Lit` so they too carry a position. Imports errors and values.
"""
from __future__ import annotations

from ..errors import Span


class Form:
    __slots__ = ("span",)


class Lit(Form):
    """A self-evaluating literal: number, string, character, keyword, nil, boolean."""

    __slots__ = ("value",)

    def __init__(self, value, span: Span | None = None):
        self.value = value
        self.span = span

    def __repr__(self):
        from ..values.text import pr_str
        return pr_str(self.value)


class Sym(Form):
    """A symbol: `name` or `ns/name`."""

    __slots__ = ("ns", "name")

    def __init__(self, ns: str | None, name: str, span: Span | None = None):
        self.ns = ns
        self.name = name
        self.span = span

    @property
    def full(self) -> str:
        return f"{self.ns}/{self.name}" if self.ns else self.name

    def __repr__(self):
        return self.full


class Seq(Form):
    """Base of bracketed forms: `items` is a Python list of forms."""

    __slots__ = ("items",)
    open = close = ""

    def __init__(self, items: list, span: Span | None = None):
        self.items = items
        self.span = span

    def __repr__(self):
        return self.open + " ".join(map(repr, self.items)) + self.close


class List(Seq):
    __slots__ = ()
    open, close = "(", ")"


class VecForm(Seq):
    __slots__ = ()
    open, close = "[", "]"


class MapForm(Seq):
    """`{k v ...}`: items is the flat key/value list (even length)."""

    __slots__ = ()
    open, close = "{", "}"


class SetForm(Seq):
    __slots__ = ()
    open, close = "#{", "}"


class ShortFn(Seq):
    __slots__ = ()
    open, close = "#(", ")"


class _SymbolMark(Form):
    """A symbol behind a reader mark (`prefix`): `sym` is the `Sym`."""

    __slots__ = ("sym",)
    prefix = ""

    def __init__(self, sym: Sym, span: Span | None = None):
        self.sym = sym
        self.span = span

    def __repr__(self):
        return self.prefix + self.sym.full


class Quote(_SymbolMark):
    """`'name` or `(quote name)`: an inert symbol reference."""

    __slots__ = ()
    prefix = "'"


class VarQuote(_SymbolMark):
    """`#'name`: evaluates exactly like the symbol."""

    __slots__ = ()
    prefix = "#'"


class RegexLit(Form):
    """`#"..."`: `source` is the pattern after string-escape decoding."""

    __slots__ = ("source",)

    def __init__(self, source: str, span: Span | None = None):
        self.source = source
        self.span = span

    def __repr__(self):
        return '#"' + self.source + '"'


def split_symbol(text: str) -> tuple[str | None, str]:
    """Split at the first `/` when both sides are non-empty (`/` alone is a name)."""
    i = text.find("/")
    if i > 0 and i < len(text) - 1:
        return text[:i], text[i + 1:]
    return None, text
