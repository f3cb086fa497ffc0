"""Vectors, and how they grow in place: by stealing the backing list of the version they extend.

`Vector.conj` / `conj_all` may take over the list of the vector they extend
when that vector was built under the same owner token (values/ownership.py)
and nothing else holds the list (its reference count, `_LIST_REFS`: code
walking the items, such as a `reduce` or `for` over the vector whose body
extends it, must not see them grow). The old vector then turns into a cheap
"stale" view that rebuilds its own copy on first access, so every version
stays correct; only the cost moves.

Imports ptclisp.errors and values.keys, values.ownership.
"""
from __future__ import annotations

from sys import getrefcount as _getrefcount
from typing import Iterable

from ..errors import PtcError
from .keys import WALKING as _walking
from .keys import hk
from .ownership import LOCK as _lock
from .ownership import OWNER as _owner_local


class _ListMark:
    """The owner of every quoted list (`'(1 2 3)`) and of the lists conj/into make from one: never an
    evaluation's owner token, so a list is never extended in place, and `conj` puts items in front."""

    __slots__ = ()

    def __repr__(self):
        return "LIST"

    def __reduce__(self):
        return "LIST"   # one mark: a pickled list comes back a list


LIST = _ListMark()


def make_list(items: list) -> "Vector":
    """A list: a vector that conj/into/peek/pop work on at the front and that prints as (a b c)."""
    return Vector(items, LIST)


def is_list(x) -> bool:
    return type(x) is Vector and x._owner is LIST


class Vector:
    """An immutable vector. Use `.lst()` to read the elements as a list.

    Its text (`__repr__`), its deep copy and the message of a call with a
    non-integer argument are attached by values/__init__: they need modules
    that know the vector type.
    """

    # `_src`/`_n` are set (and read) only once the vector is stale (`_items` is None): `_src` is the
    # version that took the list over, whose own items (or, stale too, its `_src`'s) start with ours
    # `_h`: (length, hash) once hashed; a vector only ever grows in place (an append), so a cached
    # hash is good while the length is the same
    __slots__ = ("_items", "_src", "_n", "_owner", "_h", "__weakref__")

    def __init__(self, items: list | None = None, owner=None):
        self._items = items if items is not None else []
        self._owner = owner

    # reading
    def lst(self) -> list:
        """The elements. The caller must not mutate the returned list."""
        it = self._items
        if it is None:
            with _lock:
                it = self._items
                if it is None:
                    src = self._src
                    while src._items is None:
                        src = src._src
                    it = self._items = src._items[: self._n]
                    self._src = None
        return it

    def __len__(self):
        it = self._items
        return len(it) if it is not None else self._n

    def __iter__(self):
        return iter(self.lst())

    def __getitem__(self, i):
        return self.lst()[i]

    def __call__(self, *args):
        """`(v i)`: the item at integer index i, as Clojure (GAP-S13); out of range gives nil,
        like `nth` (DIV-26). Any other argument is a `type_error` naming the idiom meant."""
        if len(args) == 1:
            i = args[0]
            if type(i) is int:
                items = self.lst()
                return items[i] if 0 <= i < len(items) else None
            raise PtcError("type_error", self._call_hint(i))
        raise PtcError("arity_error", f"a vector called with {len(args)} arguments (expects 1: an index)")

    # copies and pickles are values of their own, owned by nobody
    def __reduce__(self):
        return (Vector, (list(self.lst()),)) if self._owner is not LIST else (Vector, (list(self.lst()), LIST))

    def __copy__(self):
        return Vector(list(self.lst()), LIST if self._owner is LIST else None)

    # building
    def conj(self, x) -> "Vector":
        me = _owner_local.tok
        if me is not None and self._owner is me:
            with _lock:
                it = self._items
                if it is not None and self._owner is me and _getrefcount(it) == _LIST_REFS:
                    it.append(x)
                    new = Vector(it, me)
                    self._src = new
                    self._n = len(it) - 1
                    self._items = None
                    self._owner = None
                    return new
        if self._owner is LIST:
            return Vector([x, *self.lst()], LIST)
        items = list(self.lst())
        items.append(x)
        return Vector(items, me)

    def conj_all(self, xs: Iterable) -> "Vector":
        me = _owner_local.tok
        if me is not None and self._owner is me:
            with _lock:
                it = self._items
                if it is not None and self._owner is me and _getrefcount(it) == _LIST_REFS:
                    n = len(it)
                    it.extend(xs)
                    new = Vector(it, me)
                    self._src = new
                    self._n = n
                    self._items = None
                    self._owner = None
                    return new
        if self._owner is LIST:
            front = list(xs)
            front.reverse()
            return Vector(front + self.lst(), LIST)
        items = list(self.lst())
        items.extend(xs)
        return Vector(items, me)

    # identity as a key (values/keys.WALKING: shared parts are compared and hashed once per call)
    def __eq__(self, other):
        if self is other:
            return True
        if type(other) is not Vector:
            return False
        a, b = self.lst(), other.lst()
        if len(a) != len(b):
            return False
        h1, h2 = getattr(self, "_h", None), getattr(other, "_h", None)
        if h1 is not None and h2 is not None and h1[0] == h2[0] == len(a) and h1[1] != h2[1]:
            return False
        w = _walking
        pairs = w.pairs
        key = (id(self), id(other))
        if pairs is not None:
            if key in pairs:
                return True
            outer = False
        else:
            pairs = w.pairs = {}
            outer = True
        try:
            for x, y in zip(a, b):
                if x is not y and hk(x) != hk(y):
                    return False
            pairs[key] = True
            return True
        finally:
            if outer:
                w.pairs = None

    def __hash__(self):
        items = self.lst()
        c = getattr(self, "_h", None)
        if c is not None and c[0] == len(items):
            return c[1]
        w = _walking
        if w.memo is not None:
            h = hash(("vec",) + tuple([hk(x) for x in items]))
        else:
            w.memo = {}
            try:
                h = hash(("vec",) + tuple([hk(x) for x in items]))
            finally:
                w.memo = None
        self._h = (len(items), h)
        return h


def _refs_of_an_unshared_list() -> int:
    """What sys.getrefcount reports, in `Vector.conj`, for a list held by nothing but the
    vector (and conj's own local); -1 (no count matches: never steal) if a list that is also
    being iterated would give the same count on this interpreter."""
    v = Vector([])
    it = v._items
    alone = _getrefcount(it)
    walking = iter(v._items)
    it = v._items
    shared = _getrefcount(it)
    del walking
    return alone if shared != alone else -1


_LIST_REFS = _refs_of_an_unshared_list()
LIST_REFS = _LIST_REFS   # for lib.colls_maps.conj_owned, which probes a list the same way
