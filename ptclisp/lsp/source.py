"""Positions in a document and the forms around a position.

Positions here are 0-based (line, column) pairs counted in characters of the text, as the
reader counts them (its spans are 1-based); server.py converts them to the client's encoding.

Owns `Text` (a document's text with its line starts), `Spot` (a 0-based position) and the
queries the features share: `path_at` (the forms enclosing a position, outermost first),
`prefix_at` and `word_at` (the symbol being typed, the one under the cursor), `read_prefix` (the text up to a position, closed so it
reads: what completion and signature help see in a half-typed file) and `locals_at` (the
names bound by the enclosing `let`, `fn`, `loop`, `for` ... forms).
Imports the reader, forms and the token stream of ptclisp.tooling.
"""
from __future__ import annotations

import bisect

from ..errors import PtcError, Span
from ..reader.forms import Form, List, Lit, MapForm, Seq, Sym, VecForm
from ..reader.parser import read
from ..values import Keyword

#: characters that end a symbol (everything else a symbol or keyword may contain)
_STOP = set(" \t\r\n,()[]{}\"';`~^@\\")

#: binding forms whose second item is a vector of pattern/value pairs
PAIR_BINDERS = frozenset({"let", "loop", "if-let", "when-let", "if-some", "when-some", "when-first"})
#: comprehension forms: pairs, plus :let [pairs], :when and :while modifiers
COMPREHENSIONS = frozenset({"for", "doseq"})
FN_HEADS = frozenset({"fn", "defn", "defn-"})
DEF_HEADS = frozenset({"def", "defonce", "defn", "defn-"})


class Text:
    """A document's text and where each line starts."""

    __slots__ = ("text", "starts")

    def __init__(self, text: str):
        self.text = text
        starts = [0]
        i = text.find("\n")
        while i >= 0:
            starts.append(i + 1)
            i = text.find("\n", i + 1)
        self.starts = starts

    @property
    def lines(self) -> int:
        return len(self.starts)

    def offset(self, line: int, col: int) -> int:
        """The offset of a 0-based (line, col), clamped to the text."""
        if line >= len(self.starts):
            return len(self.text)
        start = self.starts[max(line, 0)]
        end = self.starts[line + 1] - 1 if line + 1 < len(self.starts) else len(self.text)
        return min(start + max(col, 0), end)

    def spot(self, offset: int) -> tuple[int, int]:
        """The 0-based (line, col) of an offset."""
        line = bisect.bisect_right(self.starts, offset) - 1
        return line, offset - self.starts[line]

    def line_text(self, line: int) -> str:
        if line >= len(self.starts):
            return ""
        end = self.starts[line + 1] - 1 if line + 1 < len(self.starts) else len(self.text)
        return self.text[self.starts[line]:end]


def start_of(span: Span) -> tuple[int, int]:
    return span.line - 1, span.col - 1


def end_of(span: Span) -> tuple[int, int]:
    """The 0-based end of a span (exclusive); a span without an end covers one character."""
    if span.end_line is None or span.end_col is None:
        return span.line - 1, span.col
    return span.end_line - 1, span.end_col - 1


def contains(span: Span | None, pos: tuple[int, int], *, inclusive_end: bool = False) -> bool:
    if span is None:
        return False
    s, e = start_of(span), end_of(span)
    return s <= pos < e or (inclusive_end and pos == e)


def children(form: Form) -> list:
    if isinstance(form, Seq):
        return form.items
    sym = getattr(form, "sym", None)
    return [sym] if sym is not None else []


def path_at(forms: list, pos: tuple[int, int], *, inclusive_end: bool = True) -> list:
    """The forms that contain `pos`, outermost first (a symbol's end counts as inside it)."""
    out: list = []
    level = forms
    while True:
        for f in level:
            if contains(f.span, pos, inclusive_end=inclusive_end and not isinstance(f, Seq)):
                out.append(f)
                level = children(f)
                break
        else:
            return out


def prefix_at(text: Text, pos: tuple[int, int]) -> tuple[str, int]:
    """The symbol text typed just before `pos` and the column it starts at."""
    line = text.line_text(pos[0])[:pos[1]]
    i = len(line)
    while i > 0 and line[i - 1] not in _STOP:
        i -= 1
    return line[i:], i


def word_at(text: Text, pos: tuple[int, int]) -> tuple[str, int, int]:
    """The whole symbol text around `pos` and its 0-based start and end columns."""
    line = text.line_text(pos[0])
    i = j = min(pos[1], len(line))
    while i > 0 and line[i - 1] not in _STOP:
        i -= 1
    while j < len(line) and line[j] not in _STOP:
        j += 1
    return line[i:j], i, j


# ------------------------------------------------------------------ half-typed text

_CLOSE = {"LPAR": ")", "LSQB": "]", "LBRACE": "}", "HASH_LBRACE": "}", "HASH_LPAR": ")"}


def top_start(text: Text, line: int) -> int:
    """The line where the top-level form around `line` starts, as far as the text shows: the nearest
    line at or above it that starts with an opening bracket (the formatter puts every top-level form
    in column 0 and indents everything inside one). Reading from there keeps a query on a long file
    as cheap as on its last form."""
    t, starts = text.text, text.starts
    for ln in range(min(line, len(starts) - 1), 0, -1):
        if t[starts[ln]:starts[ln] + 1] in ("(", "[", "{", "#"):
            return ln
    return 0


def _lex_tail(text: Text, pos, drop: int, line0: int | None):
    """(line0, the text from line0 to pos, its tokens, whether pos is inside a string). A guessed start
    that leaves pos inside a string may be inside a string itself (a line of a multi-line string that
    starts with a bracket): then the text is lexed from the top."""
    from ..tooling.tokens import lex_prefix
    guessed = line0 is None
    line0 = top_start(text, pos[0]) if guessed else line0
    head = text.text[text.starts[line0]:text.offset(*pos) - drop]
    toks, in_string = lex_prefix(head)
    if in_string and guessed and line0:
        return _lex_tail(text, pos, drop, 0)
    return line0, head, toks, in_string


def in_code(text: Text, pos: tuple[int, int]) -> bool:
    """Is `pos` in code (not inside a string, a regex literal or a comment)?"""
    _, head, toks, in_string = _lex_tail(text, pos, 0, None)
    if in_string:
        return False
    return not (toks and toks[-1].type == "COMMENT" and sum(len(t.text) for t in toks) == len(head))


class Prefix:
    """Forms read from line `line0` up to a position; their spans count lines from `line0`."""

    __slots__ = ("forms", "line0")

    def __init__(self, forms: list, line0: int):
        self.forms = forms
        self.line0 = line0

    def rel(self, pos) -> tuple[int, int]:
        return pos[0] - self.line0, pos[1]

    def span(self, span: Span | None) -> Span | None:
        """`span` in the document's lines."""
        if span is None or not self.line0:
            return span
        return Span(span.line + self.line0, span.col,
                    None if span.end_line is None else span.end_line + self.line0, span.end_col)


def read_prefix(text: Text, pos: tuple[int, int], drop: int = 0, line0: int | None = None) -> Prefix | None:
    """The forms of the text before `pos` (less `drop` characters, the word being typed), from the
    start of its top-level form (`top_start`, or `line0`), with the brackets still open there closed,
    so the forms enclosing `pos` can be found in a file that does not read yet. None inside a string
    or comment, or when even that does not read."""
    line0, head, toks, in_string = _lex_tail(text, pos, drop, line0)
    if in_string:
        return None
    consumed = sum(len(t.text) for t in toks)
    if consumed < len(head) and head[consumed:].strip():
        return None                       # stopped at something that does not lex
    if toks and toks[-1].type == "COMMENT" and consumed == len(head):
        return None
    stack = []
    for t in toks:
        if t.type in _CLOSE:
            stack.append(_CLOSE[t.type])
        elif t.type in ("RPAR", "RSQB", "RBRACE") and stack:
            stack.pop()
    try:
        return Prefix(read(head + " " + "".join(reversed(stack))), line0)
    except PtcError:
        if line0:                         # the guess of the form's start was wrong: read it all
            return read_prefix(text, pos, drop, 0)
        return None


# ------------------------------------------------------------------ locals

def pattern_names(pattern) -> list:
    """The symbols a binding pattern binds (vectors with `&`, maps with :keys/:strs/:syms/:as/:or)."""
    out: list = []
    stack = [pattern]
    while stack:
        p = stack.pop()
        t = type(p)
        if t is Sym:
            if p.ns is None and p.name != "&":
                out.append(p)
        elif t is VecForm:
            stack.extend(reversed(p.items))
        elif t is MapForm:
            it = p.items
            for k, v in zip(it[0::2], it[1::2]):
                if type(k) is Lit and type(k.value) is Keyword:
                    if k.value.name in ("keys", "strs", "syms") and type(v) is VecForm:
                        out.extend(s if s.ns is None else Sym(None, s.name, s.span) for s in v.items
                                   if type(s) is Sym)
                    elif k.value.name == "as" and type(v) is Sym:
                        out.append(v)
                else:
                    stack.append(k)       # {name :key}: the key side is the pattern
    return out


def _pairs_before(vec: VecForm, pos, comprehension: bool) -> list:
    """Names bound by a binding vector's pairs that are complete before `pos` (all of them when
    `pos` is past the vector)."""
    out: list = []
    inside = contains(vec.span, pos)
    items = vec.items
    i = 0
    while i + 1 < len(items):
        pat, val = items[i], items[i + 1]
        if inside and not (end_of(val.span) <= pos if val.span else False):
            break
        if comprehension and type(pat) is Lit and type(pat.value) is Keyword:
            if pat.value.name == "let" and type(val) is VecForm:
                out.extend(_pairs_before(val, pos, False))
        else:
            out.extend(pattern_names(pat))
        i += 2
    return out


def fn_parts(form: List):
    """(name symbol or None, docstring or None, params vector or None, body forms) of a fn/defn form."""
    items = form.items[1:]
    name = doc = None
    if items and type(items[0]) is Sym:
        name, items = items[0], items[1:]
    if items and type(items[0]) is Lit and type(items[0].value) is str and len(items) > 1:
        doc, items = items[0].value, items[1:]
    if items and type(items[0]) is MapForm:
        items = items[1:]
    if items and type(items[0]) is VecForm:
        return name, doc, items[0], items[1:]
    return name, doc, None, items


def binders(form, pos) -> list:
    """The local names `form` (one enclosing `pos`) makes visible at `pos`."""
    if type(form) is not List or not form.items or type(form.items[0]) is not Sym:
        return []
    head = form.items[0].name
    items = form.items
    if head in PAIR_BINDERS or head in COMPREHENSIONS:
        if len(items) > 1 and type(items[1]) is VecForm:
            return _pairs_before(items[1], pos, head in COMPREHENSIONS)
        return []
    if head in FN_HEADS:
        name, _, params, _ = fn_parts(form)
        out = [name] if name is not None and head == "fn" else []
        if params is not None and not contains(params.span, pos):
            out += pattern_names(params)
        return out
    if head == "as->" and len(items) > 2 and type(items[2]) is Sym:
        return [items[2]] if not contains(items[2].span, pos, inclusive_end=True) else []
    return []


def locals_at(path: list, pos) -> dict:
    """name -> the binding symbol, for the locals in scope at `pos` (inner bindings win)."""
    out: dict = {}
    for form in path:
        for sym in binders(form, pos):
            out[sym.name] = sym
    return out
