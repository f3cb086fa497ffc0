"""Keywords and maps, defined together: calling a keyword looks it up in a map, and a map's
flexible lookup tries a key's keyword and string spellings (docs/spec/language.md §3.5).

* `Keyword`: interned, so equality is identity and dict lookups by keyword
  never run Python code. The intern table holds keywords weakly.
* `Map`: a dict {hk(key): value} that programs never mutate, with no wrapper
  (building many small maps is the hot path of data work). It grows in place
  only when its last holder hands it over (lib/colls_maps.assoc_owned, with
  the count `OWNED_REFS` of values/ownership.py); it never goes stale.

Imports ptclisp.errors and values.keys.
"""
from __future__ import annotations

import threading
import weakref
from _weakref import _remove_dead_weakref
from typing import Iterable

from ..errors import PtcError
from .keys import MISSING, WALKING, hk, unhk

_MISSING = MISSING


class _KeywordRef(weakref.ref):
    """The intern table's weak reference to a keyword; knows its name so the entry can be dropped."""

    __slots__ = ("name",)


def _keyword_gone(ref: _KeywordRef):
    # drops the entry only while it still holds this dead reference (atomic, C-level): a keyword
    # interned again under the same name in the meantime keeps its entry
    _remove_dead_weakref(_KEYWORDS, ref.name)


_KEYWORDS: dict[str, _KeywordRef] = {}   # name -> weak reference to the one live keyword of that name
_KEYWORDS_LOCK = threading.Lock()


class Keyword:
    """An interned keyword. `Keyword('a') is Keyword('a')`.

    Interning makes equality identity, so keywords use the default (C-level)
    identity hash and equality: dict lookups by keyword never call Python code.
    The intern table holds keywords weakly: a keyword nobody refers to any
    more is freed (and made again, as the one instance, when next named), so
    programs that make many keywords (`(keyword (str ...))`) do not retain
    them for the life of the process.
    """

    __slots__ = ("name", "__weakref__")

    def __new__(cls, name: str):
        ref = _KEYWORDS.get(name)
        if ref is not None:
            kw = ref()
            if kw is not None:
                return kw
        with _KEYWORDS_LOCK:
            ref = _KEYWORDS.get(name)
            kw = ref() if ref is not None else None
            if kw is None:
                kw = object.__new__(cls)
                kw.name = name
                ref = _KeywordRef(kw, _keyword_gone)
                ref.name = name
                _KEYWORDS[name] = ref
        return kw

    def __repr__(self):
        return ":" + self.name

    def __reduce__(self):
        return (Keyword, (self.name,))

    def __call__(self, m=None, *rest):
        # (:k m) / (:k m default)
        if type(m) is Map and not rest:
            v = m.get(self, _MISSING)
            if v is not _MISSING:
                return v
            return m.lookup(self, None)
        if len(rest) > 1:
            raise PtcError("arity_error", f"keyword :{self.name} called with {1 + len(rest)} arguments (expects 1 or 2)")
        default = rest[0] if rest else None
        if type(m) is Map:
            return m.lookup(self, default)
        return default


def _kw_name_ok(s: str) -> bool:
    return bool(s) and all(c.isascii() and (c.isalnum() or c in "+-*<>=?!_") for c in s)


def _held_under(d: dict, name: str, keyword_first: bool):
    """What map storage `d` holds under the keyword or the string `name`, the keyword tried first
    with `keyword_first`, else the string; MISSING when neither. (Only a live keyword can be a key.)"""
    ref = _KEYWORDS.get(name)
    kw = ref() if ref is not None else None
    for k in ((kw, name) if keyword_first else (name, kw)):
        if k is not None:
            v = d.get(k, _MISSING)
            if v is not _MISSING:
                return v
    return _MISSING


class Map(dict):
    """An immutable map: a dict {hk(key): value} that programs never mutate.

    A `Map` *is* its backing dict (one object per map, no wrapper), so building
    many small maps costs little more than building Python dicts. `.items()`
    yields (key, value) with original keys, in insertion order (printing sorts
    separately); plain dict access (`get`, `in`, `len`) works on stored keys.

    Growth stays linear without a wrapper: `lib.colls_maps.assoc_owned` and kin
    extend the map in place when the caller hands over its last reference (the
    compiler proves the variable is dead, the reference count proves nobody
    else holds the map); otherwise they copy. Nothing else mutates a map once
    the builder that made it has returned it.
    """

    __slots__ = ()

    @staticmethod
    def from_pairs(pairs: Iterable) -> "Map":
        m = Map()
        for k, v in pairs:
            m[hk(k)] = v
        return m

    def d(self) -> dict:
        """The backing dict {hk(key): value}: the map itself (kept for readability at call sites)."""
        return self

    def items(self):
        for k, v in dict.items(self):
            yield unhk(k), v

    def keys(self):
        return [unhk(k) for k in dict.keys(self)]

    def values(self):
        return list(dict.values(self))

    def __reduce__(self):
        return (Map, (dict(self),))  # the stored keys, copied back by the dict constructor

    # A copy is a value of its own: changing it (or, for a deep copy, anything inside it) never
    # changes the original (docs/security.md, "Results never alias session state"). The deep
    # copy (`__deepcopy__`) is values.copies.detach, attached by values/__init__.
    def __copy__(self):
        return Map(self)

    def get_exact(self, key, default=None):
        return self.get(hk(key), default)

    def lookup(self, key, default=None):
        """Flexible key access (docs/spec/language.md §3.5): the key itself, then its other spelling
        (a keyword's name as a string, a string's keyword), then both spellings with `-` read as `_`."""
        d = self
        t = type(key)
        if t is Keyword:
            v = d.get(key, _MISSING)
            if v is not _MISSING:
                return v
            name = other = key.name
        elif t is str:
            v = d.get(key, _MISSING)
            if v is not _MISSING:
                return v
            name = key
            ref = _KEYWORDS.get(key)
            other = ref() if ref is not None else None
        else:
            return d.get(hk(key), default)
        if other is not None:
            v = d.get(other, _MISSING)
            if v is not _MISSING:
                return v
        if "-" in name:
            v = _held_under(d, name.replace("-", "_"), t is Keyword)
            if v is not _MISSING:
                return v
        return default

    def find_key(self, key):
        """The stored key that flexible lookup of `key` lands on, or MISSING."""
        t = type(key)
        if t is Keyword:
            cands = [key, key.name]
            if "-" in key.name:
                alt = key.name.replace("-", "_")
                cands += [Keyword(alt), alt]
        elif t is str:
            cands = [key, Keyword(key)] if _kw_name_ok(key) else [key]
            if "-" in key:
                alt = key.replace("-", "_")
                cands.append(alt)
                if _kw_name_ok(alt):
                    cands.append(Keyword(alt))
        else:
            cands = [hk(key)]
        for c in cands:
            if c in self:
                return c
        return _MISSING

    def write_key(self, k):
        """The key a write of k acts on (assoc, update, dissoc, merge...): k itself when the map holds
        k exactly or holds no other spelling of it; else the spelling it holds that flexible lookup
        of k finds (keyword <-> string, `-` -> `_`: `find_key`). Other kinds of keys are exact."""
        t = type(k)
        if (t is not Keyword and t is not str) or k in self:
            return k
        found = self.find_key(k)
        return k if found is _MISSING else found

    def __call__(self, key=_MISSING, *rest):
        if key is _MISSING or len(rest) > 1:
            n = (0 if key is _MISSING else 1) + len(rest)
            raise PtcError("arity_error", f"a map called with {n} arguments (expects 1 or 2)")
        return self.lookup(key, rest[0] if rest else None)

    # building: always a new map (see assoc_owned for the in-place path)
    def assoc(self, key, value) -> "Map":
        m = Map(self)
        m[hk(key)] = value
        return m

    def dissoc(self, key) -> "Map":
        k = hk(key)
        if k not in self:
            return self
        m = Map(self)
        del m[k]
        return m

    # identity as a key (values/keys.WALKING: shared parts are compared and hashed once per call)
    def __eq__(self, other):
        if self is other:
            return True
        if type(other) is not Map:
            return False
        if len(self) != len(other):
            return False
        w = WALKING
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
            get = other.get
            for k, v in dict.items(self):
                u = get(k, _MISSING)
                if u is _MISSING or (u is not v and hk(v) != hk(u)):
                    return False
            pairs[key] = True
            return True
        finally:
            if outer:
                w.pairs = None

    def __ne__(self, other):
        return not self.__eq__(other)

    def __hash__(self):
        w = WALKING
        memo = w.memo
        if memo is not None:
            h = memo.get(id(self))
            if h is None:
                h = memo[id(self)] = _map_hash(self)
            return h
        w.memo = {}
        try:
            return _map_hash(self)
        finally:
            w.memo = None


def _map_hash(m) -> int:
    h = 0
    for k, v in dict.items(m):
        h ^= hash((k, hk(v)))
    return hash(("map", h))
