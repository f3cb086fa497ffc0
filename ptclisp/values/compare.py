"""How two values relate: `equal` (PTC `=`) and natural order (`compare`, docs/spec/language.md §3.6).

The total order of map and set views, which also ranks kinds that have no
natural order between them, is values/text.py's: it falls back on the text.
Imports ptclisp.errors and values.atoms, values.keys, values.maps, values.vectors, values.sets, values.kinds.
"""
from __future__ import annotations

from ..errors import PtcError
from .atoms import JavaObject
from .keys import MISSING as _MISSING
from .kinds import type_name
from .maps import Keyword, Map
from .sets import Set
from .vectors import Vector


def equal(a, b, nan_equal: bool = False, _pairs: dict | None = None) -> bool:
    """PTC `=`: structural; numbers by value across int/float; NaN never equal (unless nan_equal).

    `_pairs` (internal) holds (id(x), id(y)) of the collections already found equal during this
    call, so a part shared many times inside both values is compared once, not once per path to it."""
    ta, tb = type(a), type(b)
    if ta is int or ta is float:
        if tb is int or tb is float:
            return a == b or (nan_equal and a != a and b != b)
        return False
    if a is b:
        return True
    if ta is not tb:
        return False
    if ta is str or ta is bool:
        return a == b
    if ta is Vector or ta is Map:   # a pair already found equal in this call is not compared again
        xs, ys = (a.lst(), b.lst()) if ta is Vector else (a, b)
        if len(xs) != len(ys):
            return False
        if _pairs is None:
            _pairs = {}
        elif (id(a), id(b)) in _pairs:
            return True
        if ta is Vector:
            for x, y in zip(xs, ys):
                if not equal(x, y, nan_equal, _pairs):
                    return False
        else:
            get = b.get
            for k, v in dict.items(a):
                w = get(k, _MISSING)
                if w is _MISSING or not equal(v, w, nan_equal, _pairs):
                    return False
        _pairs[(id(a), id(b))] = True
        return True
    if ta is Set:
        da, db = a.d(), b.d()
        return len(da) == len(db) and all(k in db for k in da)
    return a == b


def utf16_key(s: str):
    """Java string order: compare by UTF-16 code units."""
    if s.isascii() or all(ord(c) < 0x10000 for c in s):
        return s
    return s.encode("utf-16-be")


def compare(a, b, _pairs: dict | None = None) -> int:
    """Natural order (docs/spec/language.md §3.6): -1, 0 or 1; `type_error` for kinds that have no order
    between them. NaN compares 0 with every number (Clojure's compare). `_pairs` (internal):
    the vectors already found to compare 0 during this call (shared parts are compared once)."""
    if a is None:
        return 0 if b is None else -1
    if b is None:
        return 1
    ta, tb = type(a), type(b)
    if (ta is int or ta is float) and (tb is int or tb is float):
        # NaN is neither less nor greater than anything, so it compares 0 (as Clojure's compare, DIV-33)
        return -1 if a < b else (1 if a > b else 0)
    if ta is str and tb is str:
        if a == b:
            return 0
        ka, kb = utf16_key(a), utf16_key(b)
        if type(ka) is not type(kb):
            ka, kb = a.encode("utf-16-be"), b.encode("utf-16-be")
        return -1 if ka < kb else 1
    if ta is Keyword and tb is Keyword:
        return compare(a.name, b.name)
    if ta is bool and tb is bool:
        return (a > b) - (a < b)
    if ta is Vector and tb is Vector:
        xs, ys = a.lst(), b.lst()
        if len(xs) != len(ys):
            return -1 if len(xs) < len(ys) else 1
        if _pairs is None:
            _pairs = {}
        elif (id(a), id(b)) in _pairs:
            return 0
        for x, y in zip(xs, ys):
            c = compare(x, y, _pairs)
            if c:
                return c
        _pairs[(id(a), id(b))] = True
        return 0
    if isinstance(a, JavaObject) and isinstance(b, JavaObject) and type(a) is type(b):
        ka, kb = a.sort_key(), b.sort_key()
        return -1 if ka < kb else (1 if ka > kb else 0)
    raise PtcError("type_error", f"cannot compare {type_name(a)} with {type_name(b)}")


class SortKey:
    """Wraps a value so Python's sort uses PTC natural order."""

    __slots__ = ("v",)

    def __init__(self, v):
        self.v = v

    def __lt__(self, other):
        return compare(self.v, other.v) < 0
