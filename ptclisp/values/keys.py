"""The storage identity of map keys and set members.

Python's dict treats 1, 1.0 and True as one key; PTC does not. Keys and set
members are therefore stored under `hk(x)`, which wraps floats and booleans
(`unhk` undoes it). Also the `MISSING` marker lookups use for "no entry", and
`WALKING`, the per-thread memo that makes hashing and key comparison of
collections cost what they hold rather than what they stand for.
Imports nothing from ptclisp.
"""
from __future__ import annotations

import threading

MISSING = object()   # "no such entry" (a map may hold nil)


class _Walking(threading.local):
    """What the outermost hash or key comparison under way on this thread has already worked out, so
    that a value shared many times inside another costs once, not once per path to it (a vector of
    1,000 references to one vector of 1,000 references stands for 10^6 leaves but holds 2,000 slots).
    `memo` maps id(map) -> its hash; `pairs` holds (id(a), id(b)) of collections found equal as keys.
    Both live only while that outermost call runs (everything they name is reachable from its
    arguments, so no id is reused meanwhile); vectors and sets also cache their own hash."""

    memo = None
    pairs = None


WALKING = _Walking()


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
