"""The text of values (`pr-str`, `str`; docs/spec/runtime.md §11) and the order map and set views list entries in.

The two are one definition: printing a map lists its entries in view order,
and the view order ranks kinds that have no natural order between them (maps,
sets, regexes, functions, ...) by their printed text. The layers above import
`pr_str` and `str_of` from here (and the bounded previews from values/preview.py).
Rendering is iterative, so hostile data (deeply nested JSON) cannot exhaust
the Python stack.
Imports values.atoms, values.maps, values.vectors, values.sets.
"""
from __future__ import annotations

import math
import weakref

from .intstr import int_text
from .atoms import JavaObject, Regex, SymbolRef, VarRef
from .maps import Keyword, Map
from .sets import Set
from .vectors import LIST, Vector

# ------------------------------------------------------------------------ view order


def _kind_rank(x):
    if x is None:
        return 0
    t = type(x)
    if t is bool:
        return 1
    if t is int or t is float:
        return 2
    if t is str:
        return 3
    if t is Keyword:
        return 4
    if t is Vector:
        return 5
    if isinstance(x, JavaObject):
        return 6
    return None


def total_order_key(x):
    """A total order over mixed kinds for map/set views (kind rank, then natural; kinds with no
    natural order rank last, by their printed text)."""
    r = _kind_rank(x)
    if r is None:
        return (9, pr_str(x))
    if r == 2 and x != x:
        return (r, (1, 0.0))
    if r == 2:
        return (r, (0, x))
    if r == 3:
        return (r, x)
    if r == 4:
        return (r, x.name)
    if r == 5:
        return (r, (len(x), tuple(total_order_key(y) for y in x.lst())))
    if r == 6:
        return (r, x.sort_key())
    return (r, x)


def sorted_items(m: Map) -> list:
    """Map entries (key, value) sorted by key: the order of every map view."""
    items = list(m.items())
    if len(items) < 2:
        return items
    try:
        return sorted(items, key=lambda kv: total_order_key(kv[0]))
    except TypeError:
        return sorted(items, key=lambda kv: (str(type(kv[0])), pr_str(kv[0])))


def sorted_members(s: Set) -> list:
    """Set members in view order (as `sorted_items` orders map keys)."""
    xs = s.members()
    if len(xs) < 2:
        return xs
    try:
        return sorted(xs, key=total_order_key)
    except TypeError:
        return sorted(xs, key=lambda x: (str(type(x)), pr_str(x)))


# ------------------------------------------------------------------------ text

_ESC = {'"': '\\"', "\\": "\\\\", "\n": "\\n", "\t": "\\t", "\r": "\\r", "\b": "\\b", "\f": "\\f"}


def quote(s: str) -> str:
    """A string's readable text: in double quotes, with `"`, `\\`, newline, tab and return escaped."""
    if not any(c in s for c in _ESC):
        return '"' + s + '"'
    return '"' + "".join(_ESC.get(c, c) for c in s) + '"'


def _nonfinite_name(x: float, nan: str, inf: str, minus_inf: str) -> str:
    """The spelling of a float that is NaN or an infinity, among the three given."""
    if x != x:
        return nan
    return inf if x > 0 else minus_inf


def float_readable(x: float) -> str:
    """pr-str of a float: the shortest decimal that reads back as the same double, without an exponent
    where it fits in 10 fractional digits of fixed notation."""
    if x - x != 0:   # NaN or an infinity (x - x is NaN for those, 0.0 for every finite x)
        return _nonfinite_name(x, "##NaN", "##Inf", "##-Inf")
    r = repr(x)
    if "e" not in r:   # the shortest digits that read back as x (Clojure's, as Java's Double.toString)
        return r
    if x != 0 and abs(x) < 1e-4:
        # fixed notation would collapse small magnitudes to 0.0: the shortest exact digits, spelt as
        # Clojure (Java's Double.toString) spells them: 1.0E-7, 1.5E-10
        mantissa, _, exp = r.partition("e")
        if "." not in mantissa:
            mantissa += ".0"
        return f"{mantissa}E{int(exp)}"
    s = format(x, ".10f").rstrip("0")
    if s.endswith("."):
        s += "0"
    if s == "-0.0" and x == 0:
        return "-0.0" if math.copysign(1, x) < 0 else "0.0"
    return s


def float_display(x: float) -> str:
    """str of a float: shortest round-trip text, integral values keep `.0`."""
    if x - x != 0:
        return _nonfinite_name(x, "NaN", "Infinity", "-Infinity")
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
        return quote(x) if readable else x
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
    text = getattr(t, "ptc_text", None)   # a library value kind's own text (lib/cells.py: atom)
    return text(x, readable) if text is not None else "#<unknown>"


def pr_str(x, readable: bool = True, plain: bool = False) -> str:
    """Readable text of any value. Collections nest iteratively. `plain` (`print`, `print-str`):
    strings inside collections are written as they are, everything else readably."""
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
        a = _atom(item, True) if not plain or type(item) is not str else item
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
        lst = c._owner is LIST
        yield _Lit("(" if lst else "[")
        first = True
        for v in c.lst():
            if not first:
                yield _SP
            first = False
            yield v
        yield _Lit(")" if lst else "]")
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
