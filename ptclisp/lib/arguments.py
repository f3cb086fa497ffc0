"""How the builtin families read their arguments: sequence views, argument checks, key functions.

Owns "seqable" (docs/spec/functions.md §0.1): how vectors, strings (graphemes),
maps (key-sorted `[k v]` entries), sets and nil are viewed as a sequence;
the argument checks every family uses (`need_<what>(x, who)`); output
wrapping that charges the meter; the key extractors of the key-taking
builtins (`keyfn`, `key_values`); and `LazyPattern`, the families' own `re`
patterns compiled on first use (loading the library compiles none).
Imports values, errors, meter, the regex engine, registry.
"""
from __future__ import annotations

import math
from itertools import repeat
from operator import contains, itemgetter

from ..errors import PtcError
from ..runtime.meter import charge, seq_cost
from ..values.text import str_of
from ..patterns.engine import compile_regex
from ..registry.builtins import as_fn, hot, provides
from ..values import SORTED, Keyword, Map, Regex, Set, Vector, sorted_items, sorted_members, type_name

class LazyPattern:
    """A `re` pattern compiled on its first use: `LazyPattern(r"...", flags)` stands for
    `re.compile(r"...", flags)` wherever only its methods and attributes are used (`.match(...)`,
    `.sub(...)`, ...). Each attribute is looked up on the compiled pattern once and kept on the
    instance, so later calls cost what they cost on the compiled pattern."""

    def __init__(self, pattern: str, flags: int = 0):
        self._source = (pattern, flags)

    def __getattr__(self, name: str):  # only while `name` is not kept yet
        if name.startswith("__"):
            raise AttributeError(name)
        import re
        value = getattr(re.compile(*self._source), name)
        setattr(self, name, value)
        return value


_GRAPHEME = None  # the compiled `\X` (the `regex` package is imported on the first non-ASCII string)


def _grapheme():
    global _GRAPHEME
    if _GRAPHEME is None:
        import regex
        _GRAPHEME = regex.compile(r"\X")
    return _GRAPHEME


@provides("graphemes")
def graphemes(s: str) -> list[str]:
    """The user-perceived characters of `s` (extended grapheme clusters)."""
    if s.isascii():
        return list(s)
    return _grapheme().findall(s)


def count_str(s: str) -> int:
    if s.isascii():
        return len(s)
    return len(_grapheme().findall(s))


def entries(m: Map) -> list:
    """Key-sorted `[k v]` entry vectors of a map."""
    return [Vector([k, v]) for k, v in sorted_items(m)]


@provides("seq_items")
def seq_items(x, who: str, *, maps: bool = True, sets: bool = True, strings: bool = True) -> list:
    """The elements of a seqable value as a Python list (do not mutate it)."""
    t = type(x)
    if t is Vector:
        return x.lst()
    if x is None:
        return []
    if t is str and strings:
        return graphemes(x)
    if t is Map and maps:
        return entries(x)
    if t is Set and sets:
        return sorted_members(x) if len(x) < 4096 or x._owner is SORTED else x.members()
    if getattr(t, "ptc_kind", None) == "endless sequence":   # lib/lazy.py
        raise PtcError("type_error", f"{who}: ({x.kind} ...) is endless; take a bounded part first, "
                                     f"e.g. (take 10 ({x.kind} ...)) or take-while")
    raise PtcError("type_error", f"{who}: expected a collection, got {type_name(x)}")


def positional_items(x, who: str) -> list:
    """Like seq_items but maps and sets are rejected (DIV-29 positional ops)."""
    t = type(x)
    if t is Map:
        raise PtcError("type_error", f"{who}: maps have no position; take a view first: (seq m), (keys m), (vals m)")
    if t is Set and x._owner is not SORTED:
        raise PtcError("type_error", f"{who}: sets have no position; use (sort s) or (vec s) first")
    return seq_items(x, who)


@provides("out_vec")
def out_vec(items: list) -> Vector:
    """Wrap a freshly built list as a vector, charging the meter for it."""
    charge(seq_cost(len(items)))
    return Vector(items)


# ------------------------------------------------------------------ argument checks
# One pattern for every builtin family: `need_<what>(x, who)` returns the argument as the builtin
# uses it, or raises `type_error` "who: expected <what>, got <type>". (The Java members' parameter
# checks, in java_text, follow it too: `need_java_<what>`.)

def need_fn(f, who: str):
    """A callable argument of a higher-order builtin: `registry.as_fn`, whose answer for a Python
    function (every builtin and PTC closure) is its compiled twin, or itself, given here at once."""
    if type(f) is _FunctionType:
        return getattr(f, "ptc_compiled", f)
    return as_fn(f, who)


_FunctionType = type(need_fn)


def fn_and_items(f, coll, who: str, nargs: int = 1):
    """`(f, items)` of a higher-order builtin about to call `f` once per item of `coll` with `nargs`
    arguments: `f` checked by `need_fn` (first) and handed through `hot`, the items from `seq_items`."""
    f = need_fn(f, who)
    items = seq_items(coll, who)
    return hot(f, len(items), nargs), items


def need_str(x, who: str) -> str:
    """A string argument; a number, boolean or keyword is refused with a hint to `(str x)`."""
    t = type(x)
    if t is not str:
        hint = "; (str x) gives its text" if t in (int, float, bool, Keyword) else ""
        raise PtcError("type_error", f"{who}: expected a string, got {type_name(x)}{hint}")
    return x


def need_text(x, who: str) -> str:
    """The text argument of a clojure.string helper that Clojure reads through `.toString`
    (GAP-S139): a string as it is; a number, boolean or keyword as its `str` form (a keyword
    keeps its colon). nil and collections stay a `type_error`."""
    t = type(x)
    if t is str:
        return x
    if t is int or t is float or t is bool or t is Keyword:
        return str_of(x)  # whole numbers of any size (intstr)
    raise PtcError("type_error", f"{who}: expected a string, got {type_name(x)}")


def need_count(x, who: str, what: str = "an integer") -> int:
    """An index or count argument: an integer; a finite float is truncated toward zero (GAP-S79,
    Clojure). `what` names it in the error ("an integer index")."""
    t = type(x)
    if t is int:
        return x
    if t is float and math.isfinite(x):
        return int(x)
    got = "a non-finite number" if t is float else type_name(x)
    raise PtcError("type_error", f"{who}: expected {what}, got {got}")


def need_vector(x, who: str) -> Vector:
    if type(x) is not Vector:
        raise PtcError("type_error", f"{who}: expected a vector, got {type_name(x)}")
    return x


def need_map(x, who: str) -> Map:
    if type(x) is not Map:
        raise PtcError("type_error", f"{who}: expected a map, got {type_name(x)}")
    return x


def need_regex(x, who: str) -> Regex:
    if type(x) is not Regex:
        raise PtcError("type_error", f"{who}: expected a regex, got {type_name(x)}")
    return x


def need_pattern(x, who: str) -> Regex:
    """A regex argument, or a pattern string compiled on the spot (an invalid one is a runtime_error)."""
    t = type(x)
    if t is Regex:
        return x
    if t is str:
        return compile_regex(x, "runtime_error", who)
    raise PtcError("type_error", f"{who}: expected a regex or pattern string, got {type_name(x)}")


# ------------------------------------------------------------------ key functions
# Shared by the key-taking helpers (sort-by, distinct-by, group-by, sum-by, ...).

_ABSENT = object()
_MAPS = frozenset((Map,))


def path_lookup(x, path: list, default=None):
    """Follow `path` through maps (flexible keys) and vectors (integer indexes).

    Returns `default` when a step is missing; a present nil at the end is nil.
    """
    for step in path:
        t = type(x)
        if t is Map:
            x = x.lookup(step, _ABSENT)
            if x is _ABSENT:
                return default
        elif t is Vector:
            if type(step) is not int:
                return default
            items = x.lst()
            if step < 0 or step >= len(items):
                return default
            x = items[step]
        else:
            return default
    return x


def kw_getter(k: Keyword, items: list):
    """A C-level getter that gives `(k x)` for every item, or None when there is none.

    Flexible lookup finds the keyword itself first, then its name. So when every
    item is a map holding `k` itself (maps a program built), `itemgetter(k)` reads
    the field; when no item holds `k` itself and the first holds its name
    (string-keyed JSON data), `itemgetter(name)` does. The getter still raises
    `KeyError` on an item that lacks the key it reads: callers fall back then.
    """
    if not items:
        return None
    first = items[0]
    if type(first) is not Map:
        return None
    if k in first:
        key = k
    elif k.name in first:
        key = k.name
    else:
        return None
    if not _MAPS.issuperset(map(type, items)):
        return None
    if key is not k and any(map(contains, items, repeat(k))):
        return None
    return itemgetter(key)


def kw_values(k: Keyword, items) -> list:
    """`[(k x) for x in items]` for a keyword k, without a call per item.

    Same flexible lookup as `(k x)`: the keyword itself, then its name; the rarer
    fallbacks (dash/underscore spellings) go through `Map.lookup`; non-maps give nil.
    """
    get = kw_getter(k, items)
    if get is not None:  # every item a map holding the field under one spelling: C speed
        try:
            return list(map(get, items))
        except KeyError:  # some map lacks it
            pass
    name = k.name
    out = []
    app = out.append
    for x in items:
        if type(x) is Map:
            v = x.get(k, _ABSENT)
            if v is _ABSENT:
                v = x.get(name, _ABSENT)
                if v is _ABSENT:
                    v = x.lookup(k)
            app(v)
        else:
            app(None)
    return out


def key_getter(kf, items: list):
    """For a key extractor made by `keyfn`: a C-level getter equal to `kf` on every item
    (see `kw_getter`), or None."""
    if type(kf) is Keyword:
        return kw_getter(kf, items)
    field = getattr(kf, "ptc_field", None)
    if field is not None and int not in set(map(type, items)):
        return kw_getter(field, items)
    return None


def key_values(kf, items) -> list:
    """The keys `(kf x)` of all items, for a key extractor made by `keyfn`."""
    if type(kf) is Keyword:
        return kw_values(kf, items)
    field = getattr(kf, "ptc_field", None)
    if field is not None and int not in set(map(type, items)):
        return kw_values(field, items)
    kf = hot(kf, len(items))
    return list(map(kf, items))   # kf on each item in order, the loop at C speed


def keyfn(k, who: str):
    """Turn a key argument into a one-argument Python key extractor.

    Accepts a keyword or string (flexible map lookup; nil for non-maps), a
    vector, a set (membership), a map (key lookup) or any function value; nil
    and other data raise `type_error`. A vector is a get-in style path (a PTC
    extension) into maps and vectors, and an index lookup `(v i)` for an
    integer item, as Clojure calls it; a path never finds anything in an
    integer, so the two readings do not overlap.
    """
    t = type(k)
    if t is Keyword:
        return k
    if t is str:
        def by_name(x, _k=k):
            return x.lookup(_k) if type(x) is Map else None
        return by_name
    if t is Vector:
        path = list(k.lst())
        if len(path) == 1:
            step = path[0]
            if type(step) is Keyword:
                def by_field(x, _k=step, _v=k):
                    return _k(x) if type(x) is not int else _v(x)
                by_field.ptc_field = step
                return by_field

        def by_path(x, _p=path, _v=k):
            return path_lookup(x, _p) if type(x) is not int else _v(x)
        return by_path
    return need_fn(k, who)


def keyfn_and_items(k, coll, who: str):
    """`(kf, items)` of a builtin taking a key argument and a collection: `keyfn(k)` (checked first)
    and the items from `seq_items`."""
    return keyfn(k, who), seq_items(coll, who)
