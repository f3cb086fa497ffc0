"""Completion, hover, signature help and go to definition over one document.

Each works on text that may not read yet: the document's forms are read as they are, or with the
brackets still open closed (`source.read_prefix`), and the name under the cursor is taken from the
text. A name resolves as the analyzer resolves it: a local in scope, then the file's definitions,
then a special form or a builtin; `ns/name` is data, a tool, a prelude export or a qualified
builtin. Results are plain records (`Item`, `Info`, `Signature`), converted to the protocol's
types by server.py. Imports the registry, the reader's forms, the context and describe.
"""
from __future__ import annotations

import attrs

from ..registry import builtins as R
from ..reader.forms import List, Sym, split_symbol
from . import describe as D
from .context import Context
from .source import Text, in_code, locals_at, path_at, prefix_at, read_prefix, word_at


@attrs.define
class Item:
    """A completion: the text it inserts and what it is."""

    label: str
    info: D.Info


@attrs.define
class Signature:
    label: str
    params: list            # (start, end) offsets of each parameter in label
    doc: str | None
    variadic: bool


class Document:
    """One document's text and forms, as the features see it."""

    def __init__(self, text: str, path: str | None, ctx: Context, forms=None):
        self.text = Text(text)
        self.path = path
        self.ctx = ctx
        if forms is None:
            whole = read_prefix(self.text, self.text.spot(len(text)), line0=0)
            forms = whole.forms if whole is not None else []
        self.forms = forms

    def defs(self) -> dict:
        out = {}
        for f in self.forms:
            if type(f) is List and f.items and type(f.items[0]) is Sym and f.items[0].name in \
                    ("def", "defonce", "defn", "defn-"):
                info = D.definition(f, self.path)
                if info is not None:
                    out[info.label] = info
        return out

    def locals(self, pos, drop: int = 0) -> dict:
        pre = read_prefix(self.text, pos, drop)
        if pre is None:
            return {}
        end = pre.rel((pos[0], pos[1] - drop))
        found = locals_at(path_at(pre.forms, end, inclusive_end=False), end)
        return {name: Sym(None, sym.name, pre.span(sym.span)) for name, sym in found.items()}

    def resolve(self, name: str, pos) -> D.Info | None:
        """What `name` written at `pos` refers to."""
        ns, n = split_symbol(name)
        if ns is not None:
            return self._qualified(ns, n)
        loc = self.locals(pos).get(name)
        if loc is not None:
            return D.local(loc, self.path)
        info = self.defs().get(name)
        if info is not None:
            return info
        return D.special(name) or D.builtin(name)

    def _qualified(self, ns: str, name: str) -> D.Info | None:
        ctx = self.ctx
        if ns == "data":
            d = (ctx.data or {}).get(name)
            return D.data(d, ctx.mission) if d is not None else None
        if ns == "tool":
            t = (ctx.tools or {}).get(name)
            if t is None and name.partition(".")[0] in ctx.mcp_servers and "." in name:
                return D.mcp_tool(name, ctx.mission)
            return D.tool(t, ctx.mission) if t is not None else None
        compiled = ctx.compiled.get(ns)
        if compiled is not None:
            from ..tooling.check import exports_of
            ex = exports_of({ns: compiled})[ns].get(name)
            return D.export(ex, compiled) if ex is not None else None
        spec = R.lookup_qualified(ns, name)
        return D.builtin(spec.name, spec) if spec is not None else None


# ------------------------------------------------------------------ completion

def complete(doc: Document, pos) -> tuple[list[Item], int]:
    """The completions at `pos` and the column where the text they replace starts."""
    prefix, start = prefix_at(doc.text, pos)
    if prefix.startswith(":") or prefix.startswith("\\") or prefix[:1].isdigit() or not in_code(doc.text, pos):
        return [], start
    items: list[Item] = []
    seen: set = set()

    def add(label, info):
        if label.startswith(prefix) and label not in seen:
            seen.add(label)
            items.append(Item(label, info))

    for name, sym in doc.locals(pos, len(prefix)).items():
        add(name, D.local(sym, doc.path))
    for name, info in doc.defs().items():
        add(name, info)
    for name in D.SPECIAL_FORMS:
        add(name, D.special(name))
    for name, spec in R.BUILTINS.items():
        if spec.plain:
            add(name, D.builtin(name, spec))
    for info in D.exports(doc.ctx) + D.context_names(doc.ctx):
        add(info.label, info)
    ns = prefix.partition("/")[0] if "/" in prefix else None
    if ns in R.QUALIFIERS:
        for member in R.members_of(ns):
            spec = R.lookup_qualified(ns, member)
            if spec is not None:
                add(f"{ns}/{member}", D.builtin(spec.name, spec))
    items.sort(key=lambda i: (_rank(i.info.kind), i.label))
    return items, start


_RANKS = {"local": 0, "function": 1, "value": 1, "data": 2, "tool": 2, "export": 3, "special": 4, "builtin": 5}


def _rank(kind: str) -> int:
    return _RANKS.get(kind, 9)


# ------------------------------------------------------------------ hover and definition

def name_at(doc: Document, pos):
    """(the symbol text at pos, its start column, its end column), or None for no symbol there."""
    word, start, end = word_at(doc.text, pos)
    if not word or word.startswith(":") or word[0].isdigit() or word[0] in "\\#":
        return None
    return word, start, end


def hover(doc: Document, pos):
    found = name_at(doc, pos)
    if found is None or not in_code(doc.text, (pos[0], found[1])):
        return None
    word, start, end = found
    info = doc.resolve(word, (pos[0], start))
    return (info, start, end) if info is not None else None


def definition(doc: Document, pos) -> D.Info | None:
    """Where the name at `pos` is defined (an Info with a path), or None."""
    found = name_at(doc, pos)
    if found is None:
        return None
    info = doc.resolve(found[0], (pos[0], found[1]))
    if info is None or info.path is None:
        return None
    return info


# ------------------------------------------------------------------ signature help

def signature_help(doc: Document, pos):
    """(signatures, active signature, active parameter) of the call around `pos`, or None."""
    pre = read_prefix(doc.text, pos)
    if pre is None:
        return None
    rel = pre.rel(pos)
    path = path_at(pre.forms, rel, inclusive_end=False)
    for i in range(len(path) - 1, -1, -1):
        f = path[i]
        if type(f) is not List or not f.items or type(f.items[0]) is not Sym:
            continue
        head = f.items[0]
        if head.span is not None and (head.span.end_line - 1, head.span.end_col - 1) >= rel:
            continue            # still typing the name
        at = pre.span(head.span)
        info = doc.resolve(head.full, (at.line - 1, at.col - 1))
        if info is None or not info.signatures:
            return None
        args = f.items[1:]
        before = doc.text.line_text(pos[0])[:pos[1]]
        touching = bool(args) and before[-1:] not in ("", " ", "\t", ",") and \
            (args[-1].span.end_line - 1, args[-1].span.end_col - 1) == rel
        active = max(len(args) - 1, 0) if touching else len(args)
        sigs = [signature_of(s, info.short_doc()) for s in info.signatures]
        which = _choose(sigs, active)
        return sigs, which, active
    return None


def signature_of(text: str, doc: str | None) -> Signature:
    """A call form "(name a [b c] & more)" with the offsets of each parameter."""
    params = []
    depth = 0
    i = text.find(" ")
    start = None
    variadic = False
    if i < 0:
        return Signature(text, [], doc, False)
    for j in range(i, len(text)):
        c = text[j]
        if c in "([{":
            depth += 1
        elif c in ")]}":
            depth -= 1
        if depth < 0 or (depth == 0 and c == " "):
            if start is not None:
                token = text[start:j]
                if token == "&":
                    variadic = True
                else:
                    params.append((start, j))
                start = None
            if depth < 0:
                break
        elif start is None:
            start = j
    return Signature(text, params, doc, variadic)


def _choose(sigs: list[Signature], active: int) -> int:
    for k, s in enumerate(sigs):
        if active < len(s.params):
            return k
    for k, s in enumerate(sigs):
        if s.variadic:
            return k
    return max(len(sigs) - 1, 0)
