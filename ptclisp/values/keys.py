"""The storage identity of map keys and set members.

Python's dict treats 1, 1.0 and True as one key; PTC does not. Keys and set
members are therefore stored under `hk(x)`, which wraps floats and booleans
(`unhk` undoes it). Also the `MISSING` marker lookups use for "no entry".
Imports nothing from ptclisp.
"""
from __future__ import annotations

MISSING = object()   # "no such entry" (a map may hold nil)


class _FloatKey:
    __slots__ = ("v",)

    def __init__(self, v: float):
        self.v = v

    def __eq__(self, other):
        if type(other) is not _FloatKey:
            return False
        a, b = self.v, other.v
        return a == b or (a != a and b != b)

    def __hash__(self):
        v = self.v
        return hash(("f", 0.0 if v != v else v))


class _BoolKey:
    __slots__ = ("v",)

    def __init__(self, v: bool):
        self.v = v

    def __eq__(self, other):
        return type(other) is _BoolKey and other.v is self.v

    def __hash__(self):
        return hash(("b", self.v))


_TRUE_KEY = _BoolKey(True)
_FALSE_KEY = _BoolKey(False)


def hk(x):
    """The storage identity of a key/member: floats and booleans are wrapped."""
    t = type(x)
    if t is float:
        return _FloatKey(x)
    if t is bool:
        return _TRUE_KEY if x else _FALSE_KEY
    return x


def unhk(k):
    """The key or member stored under `k` (the inverse of `hk`)."""
    t = type(k)
    if t is _FloatKey or t is _BoolKey:
        return k.v
    return k
