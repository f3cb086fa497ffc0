"""Bounded previews of values (docs/spec/runtime.md §11.3): what the REPL, traces and error messages show.

A preview never materialises huge text: it stops at a character budget, a
number of values visited, a number of items per collection, a nesting depth
and a length per string, and says which bounds it hit
(`#<preview truncated: items,string>`). Runs on the one walk (values/walk.py).
Imports values.maps, values.text, values.vectors (the list mark), values.walk.
"""
from __future__ import annotations

from .maps import Keyword
from .text import pr_str, quote, sorted_items, sorted_members
from .vectors import LIST
from .walk import walk


class PreviewCaps:
    """The bounds of one preview: total characters, items shown per collection, nesting depth,
    values visited and characters per string.

    Caps left unset grow with the character budget, so a larger budget shows more of a value:
    items `max(16, chars // 128)`, nodes and string length `max(256, chars // 8)` (at the default
    2,048 characters: 16 items, 256 nodes, 256 characters per string).
    """

    def __init__(self, chars=2048, items=None, depth=4, nodes=None, string=None):
        self.chars, self.depth = chars, depth
        self.items = max(16, chars // 128) if items is None else items
        self.nodes = max(256, chars // 8) if nodes is None else nodes
        self.string = max(256, chars // 8) if string is None else string


def preview(x, caps: PreviewCaps | None = None) -> str:
    """A bounded structural preview (docs/spec/runtime.md §11.3); never materialises huge text."""
    caps = caps or PreviewCaps()
    try:
        p = _Preview(caps)
        walk(x, vector=p.vector, map=p.map, set=p.set, other=p.other)
        text = "".join(p.out)
        if len(text) > caps.chars:
            text = text[: caps.chars] + " ..."
            p.hit.add("output")
        if p.hit:
            text += " #<preview truncated: " + ",".join(sorted(p.hit)) + ">"
        return text
    except Exception:  # noqa: BLE001 - previews never fail an evaluation
        return "#<preview unavailable>"


class _Lit:
    """Text the walk writes as it is: separators, closing brackets, the `...` of cut collections."""

    __slots__ = ("s",)

    def __init__(self, s):
        self.s = s


_SP, _MORE = _Lit(" "), _Lit(" ...")
_CLOSE = {"]": _Lit("]"), "}": _Lit("}"), ")": _Lit(")")}


class _Preview:
    """The walk's hooks for one preview: the text so far, the bounds hit, the budgets left."""

    def __init__(self, caps: PreviewCaps):
        self.caps = caps
        self.out: list[str] = []
        self.hit: set[str] = set()
        self.chars = caps.chars
        self.nodes = caps.nodes

    def _spent(self) -> bool:
        return self.chars <= 0 or self.nodes < 0

    def _visit(self) -> bool:
        """Count one value against the budget; False (with `...` written) when a budget is spent."""
        self.nodes -= 1
        if self._spent():
            self.hit.add("output" if self.chars <= 0 else "nodes")
            self.out.append("...")
            return False
        return True

    def _open(self, depth: int, opener: str, closer: str) -> bool:
        if not self._visit():
            return False
        if depth >= self.caps.depth:
            self.hit.add("depth")
            self.out.append(opener + "..." + closer)
            return False
        self.out.append(opener)
        return True

    def _parts(self, seq: list, n: int, closer: str, pairs: bool):
        for i, e in enumerate(seq):
            if i:
                yield _SP
            if pairs:
                yield e[0]
                yield _SP
                yield e[1]
            else:
                yield e
            if self._spent():
                break
        if n > len(seq) or self._spent():
            if n > len(seq):
                self.hit.add("items")
            yield _MORE
        yield _CLOSE[closer]

    def vector(self, v, depth):
        opener, closer = ("(", ")") if v._owner is LIST else ("[", "]")   # a list prints as one
        if not self._open(depth, opener, closer):
            return None
        items = v.lst()
        return self._parts(items[: self.caps.items], len(items), closer, False)

    def map(self, m, depth):
        if not self._open(depth, "{", "}"):
            return None
        n, k = len(m), self.caps.items
        return self._parts(sorted_items(m)[:k] if n <= 4096 else list(m.items())[:k], n, "}", True)

    def set(self, s, depth):
        if not self._open(depth, "#{", "}"):
            return None
        n, k = len(s), self.caps.items
        return self._parts(sorted_members(s)[:k] if n <= 4096 else s.members()[:k], n, "}", False)

    def other(self, x, t, depth):
        if t is _Lit:
            self.out.append(x.s)
            return None
        if not self._visit():
            return None
        if t is str or t is Keyword:
            self._write(self._cut(x, t))
        elif t is int and abs(x) > 10 ** 100:
            self.out.append("#<large-integer>")
        else:
            self._write(pr_str(x))
        return None

    def _cut(self, x, t) -> str:
        s = x if t is str else x.name
        cut = len(s) > self.caps.string
        if cut:
            self.hit.add("string")
            s = s[: self.caps.string]
        if t is str:
            return quote(s)[:-1] + "…\"" if cut else quote(s)
        return ":" + s + ("…" if cut else "")

    def _write(self, text: str):
        self.out.append(text)
        self.chars -= len(text)
