"""Rendering values as text: `pr-str` (readable), `str` (display), bounded previews.

Owns runtime.md §11. Every renderer here is iterative or depth-bounded so
hostile data (deeply nested JSON) cannot exhaust the Python stack.
Imports values and errors.
"""
from __future__ import annotations

import math
import weakref

from .intstr import int_text
from .values import (
    JavaObject, Keyword, Map, Regex, Set, SymbolRef, VarRef, Vector,
    sorted_items, sorted_members,
)

_ESC = {'"': '\\"', "\\": "\\\\", "\n": "\\n", "\t": "\\t", "\r": "\\r"}


def _quote(s: str) -> str:
    if not any(c in s for c in _ESC):
        return '"' + s + '"'
    return '"' + "".join(_ESC.get(c, c) for c in s) + '"'


def float_readable(x: float) -> str:
    """pr-str of a float: compact decimal, <= 10 fractional digits, no exponent."""
    if x != x:
        return "##NaN"
    if x == math.inf:
        return "##Inf"
    if x == -math.inf:
        return "##-Inf"
    r = repr(x)
    if "e" not in r and "." in r and len(r.split(".")[1]) <= 10:
        return r
    if x != 0 and abs(x) < 1e-4:
        # fixed notation would collapse small magnitudes to 0.0: keep the shortest exact text
        return r
    s = format(x, ".10f").rstrip("0")
    if s.endswith("."):
        s += "0"
    if s == "-0.0" and x == 0:
        return "-0.0" if math.copysign(1, x) < 0 else "0.0"
    return s


def float_display(x: float) -> str:
    """str of a float: shortest round-trip text, integral values keep `.0`."""
    if x != x:
        return "NaN"
    if x == math.inf:
        return "Infinity"
    if x == -math.inf:
        return "-Infinity"
    r = repr(x)
    if "e" in r and "." not in r.split("e")[0]:
        m, e = r.split("e")
        r = m + ".0e" + e
    return r


# closure code object -> parameter names (filled by the compiler)
FN_META: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()


def fn_label(f) -> str:
    """The printed text of a callable: `#fn[x y]` for closures (their parameter names),
    `#<builtin name>` for builtins, Java members and granted tools, `#fn[...]` otherwise."""
    params = getattr(f, "ptc_params", None)
    if params is None:
        code = getattr(f, "__code__", None)
        params = FN_META.get(code) if code is not None else None
    if params is not None:
        return "#fn[" + " ".join(params) + "]"
    name = getattr(f, "ptc_builtin", None)
    if name is not None:
        return f"#<builtin {name}>" if type(name) is str and name else "#<builtin>"
    return "#fn[...]"


def _atom(x, readable: bool) -> str | None:
    """Text of a non-collection value, or None for collections."""
    if x is None:
        return "nil" if readable else ""
    t = type(x)
    if t is bool:
        return "true" if x else "false"
    if t is int:
        return int_text(x)  # any size, whatever the interpreter's digit limit
    if t is float:
        return float_readable(x) if readable else float_display(x)
    if t is str:
        return _quote(x) if readable else x
    if t is Keyword:
        return ":" + x.name
    if t is Vector or t is Map or t is Set:
        return None
    if t is Regex:
        return '#"' + x.source + '"'
    if t is SymbolRef:
        return "'" + x.full
    if t is VarRef:
        return "#'" + x.name
    if isinstance(x, JavaObject):
        return x.to_text() if not readable else f"#java[{x.java_class} {x.to_text()}]"
    if callable(x):
        return fn_label(x)
    return "#<unknown>"


def pr_str(x, readable: bool = True) -> str:
    """Readable text of any value. Collections nest iteratively."""
    a = _atom(x, readable)
    if a is not None:
        return a
    out: list[str] = []
    # stack of iterators producing text pieces or values
    stack = [iter([x])]
    while stack:
        try:
            item = next(stack[-1])
        except StopIteration:
            stack.pop()
            continue
        if type(item) is _Lit:
            out.append(item.s)
            continue
        a = _atom(item, True)
        if a is not None:
            out.append(a)
            continue
        stack.append(_pieces(item))
    return "".join(out)


class _Lit:
    __slots__ = ("s",)

    def __init__(self, s):
        self.s = s


_SP = _Lit(" ")


def _pieces(c):
    t = type(c)
    if t is Vector:
        yield _Lit("[")
        first = True
        for v in c.lst():
            if not first:
                yield _SP
            first = False
            yield v
        yield _Lit("]")
    elif t is Map:
        yield _Lit("{")
        first = True
        for k, v in sorted_items(c):
            if not first:
                yield _SP
            first = False
            yield k
            yield _SP
            yield v
        yield _Lit("}")
    else:
        yield _Lit("#{")
        first = True
        for v in sorted_members(c):
            if not first:
                yield _SP
            first = False
            yield v
        yield _Lit("}")


def str_of(x) -> str:
    """`str` of one value: display text (nil -> "", strings raw)."""
    t = type(x)
    if t is str:
        return x
    if x is None:
        return ""
    return pr_str(x, readable=(t is Vector or t is Map or t is Set))


# ---------------------------------------------------------------- bounded preview

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
    """A bounded structural preview (runtime.md §11.3); never materialises huge text."""
    caps = caps or PreviewCaps()
    try:
        hit: set[str] = set()
        out: list[str] = []
        budget = [caps.chars, caps.nodes]
        _preview_into(x, caps, 0, out, hit, budget)
        text = "".join(out)
        if len(text) > caps.chars:
            text = text[: caps.chars] + " ..."
            hit.add("output")
        if hit:
            text += " #<preview truncated: " + ",".join(sorted(hit)) + ">"
        return text
    except Exception:  # noqa: BLE001 - previews never fail an evaluation
        return "#<preview unavailable>"


def _preview_into(x, caps, depth, out, hit, budget):
    budget[1] -= 1
    if budget[0] <= 0 or budget[1] < 0:
        hit.add("output" if budget[0] <= 0 else "nodes")
        out.append("...")
        return
    t = type(x)
    if t is str or t is Keyword:
        s = x if t is str else x.name
        cut = len(s) > caps.string
        if cut:
            hit.add("string")
            s = s[: caps.string]
        text = (_quote(s)[:-1] + "…\"") if (cut and t is str) else (_quote(s) if t is str else ":" + s + ("…" if cut else ""))
        out.append(text)
        budget[0] -= len(text)
        return
    if t is int and abs(x) > 10 ** 100:
        out.append("#<large-integer>")
        return
    if t is Vector or t is Map or t is Set:
        opener, closer = ("[", "]") if t is Vector else (("{", "}") if t is Map else ("#{", "}"))
        if depth >= caps.depth:
            hit.add("depth")
            out.append(opener + "...}" if t is not Vector else "[...]")
            return
        out.append(opener)
        if t is Vector:
            elems = x.lst()
            n = len(elems)
            seq = elems[: caps.items]
        elif t is Map:
            n = len(x)
            seq = sorted_items(x)[: caps.items] if n <= 4096 else list(x.items())[: caps.items]
        else:
            n = len(x)
            seq = sorted_members(x)[: caps.items] if n <= 4096 else x.members()[: caps.items]
        for i, e in enumerate(seq):
            if i:
                out.append(" ")
            if t is Map:
                _preview_into(e[0], caps, depth + 1, out, hit, budget)
                out.append(" ")
                _preview_into(e[1], caps, depth + 1, out, hit, budget)
            else:
                _preview_into(e, caps, depth + 1, out, hit, budget)
            if budget[0] <= 0 or budget[1] < 0:
                break
        if n > len(seq) or budget[0] <= 0 or budget[1] < 0:
            if n > len(seq):
                hit.add("items")
            out.append(" ...")
        out.append(closer)
        return
    text = pr_str(x)
    out.append(text)
    budget[0] -= len(text)
