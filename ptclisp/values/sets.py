"""Sets, and how they grow in place: by stealing the backing dict and leaving an undo step behind.

`Set.conj` may take over the dict {hk(x): x} of the set it extends when that
set was built under the same owner token (values/ownership.py). The old set
turns stale: it keeps a pointer to the set that took its dict and the one
change to undo, and rebuilds its own dict on first access.

Imports ptclisp.errors and values.keys, values.ownership.
"""
from __future__ import annotations

from typing import Iterable

from ..errors import PtcError
from .keys import MISSING as _MISSING
from .keys import WALKING as _walking
from .keys import hk
from .ownership import LOCK as _lock
from .ownership import OWNER as _owner_local


class _SortedMark:
    """The owner of every sorted set (`sorted-set`): never an evaluation's owner token, so such a set
    is never extended in place; conj and disj keep the mark, and positional reads (first, nth) are
    allowed on it, in its order."""

    __slots__ = ()

    def __repr__(self):
        return "SORTED"

    def __reduce__(self):
        return "SORTED"


SORTED = _SortedMark()


class Set:
    """An immutable set. Members are stored as {hk(x): x}.

    Its text (`__repr__`) and its deep copy are attached by values/__init__.
    """

    # `_parent`/`_undo` are set (and read) only once the set is stale (`_d` is None)
    # `_h`: its hash once computed (a set's members never change)
    __slots__ = ("_d", "_parent", "_undo", "_owner", "_h", "__weakref__")

    def __init__(self, d: dict | None = None, owner=None):
        self._d = d if d is not None else {}
        self._owner = owner

    @staticmethod
    def of(items: Iterable) -> "Set":
        return Set({hk(x): x for x in items})

    def d(self) -> dict:
        d = self._d
        if d is None:
            d = self._materialize()
        return d

    def _materialize(self) -> dict:
        with _lock:
            if self._d is not None:
                return self._d
            chain = []
            node = self
            while node._d is None:
                chain.append(node)
                node = node._parent
            d = dict(node._d)
            for stale in reversed(chain):
                k, old = stale._undo
                if old is _MISSING:
                    d.pop(k, None)
                else:
                    d[k] = old
            self._d = d
            self._parent = None
            self._undo = None
            return d

    def __len__(self):
        return len(self.d())

    def __iter__(self):
        return iter(list(self.d().values()))

    def members(self) -> list:
        return list(self.d().values())

    # copies and pickles are values of their own, owned by nobody
    def __reduce__(self):
        return (Set, (dict(self.d()),) if self._owner is not SORTED else (dict(self.d()), SORTED))

    def __copy__(self):
        return Set(dict(self.d()), SORTED if self._owner is SORTED else None)

    def contains(self, x) -> bool:
        return hk(x) in self.d()

    def __call__(self, *args):
        if len(args) != 1:
            raise PtcError("arity_error", f"a set called with {len(args)} arguments (expects 1)")
        x = args[0]
        return x if hk(x) in self.d() else None

    def conj(self, x) -> "Set":
        k = hk(x)
        d0 = self.d()
        if k in d0:
            return self
        me = _owner_local.tok
        if me is not None and self._owner is me:
            with _lock:
                d = self._d
                if d is not None and self._owner is me:
                    new = Set(d, me)
                    d[k] = x
                    self._d = None
                    self._owner = None
                    self._parent = new
                    self._undo = (k, _MISSING)
                    return new
        d = dict(d0)
        d[k] = x
        return Set(d, SORTED if self._owner is SORTED else me)

    def disj(self, x) -> "Set":
        k = hk(x)
        d0 = self.d()
        if k not in d0:
            return self
        d = dict(d0)
        del d[k]
        return Set(d, SORTED if self._owner is SORTED else _owner_local.tok)

    def __eq__(self, other):
        if self is other:
            return True
        if type(other) is not Set:
            return False
        h1, h2 = getattr(self, "_h", None), getattr(other, "_h", None)
        if h1 is not None and h2 is not None and h1 != h2:
            return False
        a, b = self.d(), other.d()
        return len(a) == len(b) and all(k in b for k in a)

    def __hash__(self):
        h = getattr(self, "_h", None)
        if h is not None:
            return h
        w = _walking
        outer = w.memo is None
        if outer:
            w.memo = {}
        try:
            h = 0
            for k in self.d():
                h ^= hash(k)
        finally:
            if outer:
                w.memo = None
        h = self._h = hash(("set", h))
        return h
