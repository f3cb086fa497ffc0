"""The PTC-Lisp data model.

Owns how every PTC value is represented in Python, equality (`=`), storage
identity of map keys and set members, and natural ordering (`compare`).

Representation:
    nil -> None, booleans -> bool, integers -> int, floats -> float,
    strings (and characters) -> str, keywords -> `Keyword` (interned),
    vectors -> `Vector`, maps -> `Map`, sets -> `Set`, regexes -> `Regex`,
    functions -> Python callables, quoted symbols -> `SymbolRef`,
    `#'name` displays -> `VarRef`.

Collections are immutable to programs. To keep the common agent idiom of
growing a collection one element at a time linear:

* `Vector.conj` and `Set.conj` may *steal* the backing list/dict of the value
  they extend when that value was itself built by the same evaluation. The
  old value then turns into a cheap "stale" view that rebuilds its own copy
  on first access, so every version stays correct; only the cost moves. A
  vector's list is stolen only while nothing else holds it (its reference
  count, `_LIST_REFS` below): code walking the items, such as a `reduce` or
  `for` over the vector whose body extends it, must not see them grow.
* A `Map` is a dict subclass with no wrapper (building many small maps is the
  hot path of data work), so it cannot go stale. It is extended in place only
  when nobody else can see it: the compiler hands over a variable's last read
  (analyzer/lastuse.py) and the reference count proves there is no other
  holder (lib/colls_maps.assoc_owned); `OWNED_REFS` below is that count,
  measured on the running interpreter.

Python's dict treats 1, 1.0 and True as one key; PTC does not. Keys and set
members are therefore stored under `hk(x)`, which wraps floats and booleans.
Imports only ptclisp.errors.
"""
from __future__ import annotations

import threading
import weakref
from _weakref import _remove_dead_weakref
from sys import getrefcount as _getrefcount
from typing import Iterable

from .errors import PtcError

_lock = threading.RLock()

# The switch for every in-place growth scheme above, for differential tests
# (tests/test_differential.py): with False, evaluations run without an owner token (no
# vector or set steals) and the compiler never hands a map over (no `assoc_owned` and kin),
# so every extension copies. Process-wide; set it before building programs (a program or
# function already compiled keeps what it was built with). Read when a token is installed
# and when a program is compiled, never per operation.
IN_PLACE_GROWTH = True


class _OwnerLocal(threading.local):
    tok = None


_owner_local = _OwnerLocal()


class OwnerToken:
    """The identity of one evaluation (or parallel worker task) as the owner of the collections it
    builds. Bare on purpose: a collection keeps its owner's token alive, never the evaluation's meter
    (with its prints and tool ledger)."""

    __slots__ = ()


def owner_token():
    """The token of the running evaluation (or parallel worker task) on this thread; None outside one.

    A collection built under a token may be extended in place only under the
    same token, so values shared between tasks or evaluations are never
    mutated behind a reader's back.
    """
    return _owner_local.tok


def set_owner_token(tok):
    """Install `tok` as this thread's owner token (None when IN_PLACE_GROWTH is off); returns the previous one."""
    prev = _owner_local.tok
    _owner_local.tok = tok if IN_PLACE_GROWTH else None
    return prev


# --------------------------------------------------------------------------- atoms

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


class SymbolRef:
    """An inert quoted symbol (`'name`, `'ns/name`)."""

    __slots__ = ("ns", "name")

    def __init__(self, ns: str | None, name: str):
        self.ns = ns
        self.name = name

    @property
    def full(self) -> str:
        return f"{self.ns}/{self.name}" if self.ns else self.name

    def __eq__(self, other):
        return type(other) is SymbolRef and other.ns == self.ns and other.name == self.name

    def __hash__(self):
        return hash(("sym", self.ns, self.name))

    def __repr__(self):
        return "'" + self.full


class VarRef:
    """What `def`/`defn` return: displays as `#'name`; inert."""

    __slots__ = ("name",)

    def __init__(self, name: str):
        self.name = name

    def __eq__(self, other):
        return type(other) is VarRef and other.name == self.name

    def __hash__(self):
        return hash(("var", self.name))

    def __repr__(self):
        return "#'" + self.name


class Regex:
    """A compiled regular expression with its PTC source text."""

    __slots__ = ("source", "compiled")

    def __init__(self, source: str, compiled):
        self.source = source
        self.compiled = compiled

    def __repr__(self):
        return '#"' + self.source + '"'


class JavaObject:
    """Base of the bounded Java-interop wrappers (LocalDate, Instant, ...)."""

    __slots__ = ()
    java_class = "java.lang.Object"

    def sort_key(self):  # pragma: no cover - overridden
        raise PtcError("type_error", f"cannot compare {self.java_class}")


# ------------------------------------------------------------------ key identity

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
    t = type(k)
    if t is _FloatKey or t is _BoolKey:
        return k.v
    return k


# ------------------------------------------------------------------- collections

class Vector:
    """An immutable vector. Use `.lst()` to read the elements as a list."""

    # `_src`/`_n` are set (and read) only once the vector is stale (`_items` is None): `_src` is the
    # version that took the list over, whose own items (or, stale too, its `_src`'s) start with ours
    __slots__ = ("_items", "_src", "_n", "_owner", "__weakref__")

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
            raise PtcError("type_error", _vector_call_hint(self, i))
        raise PtcError("arity_error", f"a vector called with {len(args)} arguments (expects 1: an index)")

    # copies and pickles are values of their own, owned by nobody
    def __reduce__(self):
        return (Vector, (list(self.lst()),))

    def __copy__(self):
        return Vector(list(self.lst()))

    def __deepcopy__(self, memo):
        from .convert import detach
        return detach(self)

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
        items = list(self.lst())
        items.extend(xs)
        return Vector(items, me)

    # identity as a key
    def __eq__(self, other):
        if type(other) is not Vector:
            return False
        a, b = self.lst(), other.lst()
        if len(a) != len(b):
            return False
        return all(hk(x) == hk(y) for x, y in zip(a, b))

    def __hash__(self):
        return hash(("vec",) + tuple(hk(x) for x in self.lst()))

    def __repr__(self):
        from .printer import pr_str
        return pr_str(self)


def _vector_call_hint(v: Vector, arg) -> str:
    """Why `(v arg)` failed for a non-integer arg, and what was probably meant."""
    from .printer import preview
    msg = f"a vector called as a function takes an integer index, got {type_name(arg)}"
    items = v.lst()
    if len(items) == 1 and type(items[0]) is Keyword:
        return f"{msg}; to read a field use {preview(items[0])} instead of [{preview(items[0])}]"
    if len(items) == 1:
        return f"{msg}; to read a field use #(get % {preview(items[0])})"
    return f"{msg}; to follow a path use #(get-in % path)"


_MISSING = object()


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
    # changes the original (docs/security.md, "Results never alias session state").
    def __copy__(self):
        return Map(self)

    def __deepcopy__(self, memo):
        from .convert import detach
        return detach(self)

    def get_exact(self, key, default=None):
        return self.get(hk(key), default)

    def contains_exact(self, key) -> bool:
        return hk(key) in self

    def lookup(self, key, default=None):
        """Flexible key access (language.md §3.5)."""
        d = self
        t = type(key)
        if t is Keyword:
            v = d.get(key, _MISSING)
            if v is not _MISSING:
                return v
            name = key.name
            v = d.get(name, _MISSING)
            if v is not _MISSING:
                return v
            if "-" in name:
                alt = name.replace("-", "_")
                v = d.get(Keyword(alt), _MISSING)
                if v is not _MISSING:
                    return v
                v = d.get(alt, _MISSING)
                if v is not _MISSING:
                    return v
            return default
        if t is str:
            v = d.get(key, _MISSING)
            if v is not _MISSING:
                return v
            ref = _KEYWORDS.get(key)
            k2 = ref() if ref is not None else None
            if k2 is not None:
                v = d.get(k2, _MISSING)
                if v is not _MISSING:
                    return v
            if "-" in key:
                alt = key.replace("-", "_")
                v = d.get(alt, _MISSING)
                if v is not _MISSING:
                    return v
                ref = _KEYWORDS.get(alt)
                k2 = ref() if ref is not None else None
                if k2 is not None:
                    v = d.get(k2, _MISSING)
                    if v is not _MISSING:
                        return v
            return default
        return d.get(hk(key), default)

    def find_key(self, key):
        """The stored key that flexible lookup of `key` lands on, or _MISSING."""
        d = self
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
            if c in d:
                return c
        return _MISSING

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

    # identity as a key
    def __eq__(self, other):
        if type(other) is not Map:
            return False
        if len(self) != len(other):
            return False
        get = other.get
        for k, v in dict.items(self):
            w = get(k, _MISSING)
            if w is _MISSING or hk(v) != hk(w):
                return False
        return True

    def __ne__(self, other):
        return not self.__eq__(other)

    def __hash__(self):
        h = 0
        for k, v in dict.items(self):
            h ^= hash((k, hk(v)))
        return hash(("map", h))

    def __repr__(self):
        from .printer import pr_str
        return pr_str(self)


# --------------------------------------------------------------- in-place growth of uniquely held maps

def _refs_of_a_handed_over_local() -> int:
    """What sys.getrefcount reports, inside a callee, for an object whose only other
    holder is the caller's local variable (measured, not assumed, on this interpreter)."""
    def callee(m):
        return _getrefcount(m)

    def caller():
        m = {}
        return callee(m)
    return caller()


_MEASURED_REFS = _refs_of_a_handed_over_local()


def _callee_probe(m):
    return _getrefcount(m) == _MEASURED_REFS


def _check_probe() -> bool:
    """Self-test: a map also held elsewhere must not look handed over."""
    def caller_unique():
        m = {}
        return _callee_probe(m)

    def caller_shared():
        m = {}
        keep = [m]
        r = _callee_probe(m)
        return r and keep

    return caller_unique() is True and not caller_shared()


OWNED_GROWTH = _check_probe()
# The count `assoc_owned` and kin compare with; a count no object can have when the self-test
# failed, so that every map is then copied (one comparison on the hot path either way).
OWNED_REFS = _MEASURED_REFS if OWNED_GROWTH else -1


class Set:
    """An immutable set. Members are stored as {hk(x): x}."""

    # `_parent`/`_undo` are set (and read) only once the set is stale (`_d` is None)
    __slots__ = ("_d", "_parent", "_undo", "_owner", "__weakref__")

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
        return (Set, (dict(self.d()),))

    def __copy__(self):
        return Set(dict(self.d()))

    def __deepcopy__(self, memo):
        from .convert import detach
        return detach(self)

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
        return Set(d, me)

    def disj(self, x) -> "Set":
        k = hk(x)
        d0 = self.d()
        if k not in d0:
            return self
        d = dict(d0)
        del d[k]
        return Set(d, _owner_local.tok)

    def __eq__(self, other):
        if type(other) is not Set:
            return False
        a, b = self.d(), other.d()
        return len(a) == len(b) and all(k in b for k in a)

    def __hash__(self):
        h = 0
        for k in self.d():
            h ^= hash(k)
        return hash(("set", h))

    def __repr__(self):
        from .printer import pr_str
        return pr_str(self)


def _kw_name_ok(s: str) -> bool:
    return bool(s) and all(c.isascii() and (c.isalnum() or c in "+-*<>=?!_") for c in s)


# ------------------------------------------------------------------ classification

def is_number(x) -> bool:
    t = type(x)
    return t is int or t is float


def is_fn(x) -> bool:
    """A callable function value: closures, builtins, combinators, tool/Java callables."""
    t = type(x)
    if t is Keyword or t is Map or t is Set or t is Vector:
        return False
    return callable(x) and not isinstance(x, type)


def value_kind(x) -> str:
    """The kind of a value, telling integers from floats: the one table that
    `type_name` and the diagnostic vocabularies of contracts and agents build on."""
    if x is None:
        return "nil"
    t = type(x)
    if t is bool:
        return "boolean"
    if t is int:
        return "integer"
    if t is float:
        return "float"
    if t is str:
        return "string"
    if t is Keyword:
        return "keyword"
    if t is Vector:
        return "vector"
    if t is Map:
        return "map"
    if t is Set:
        return "set"
    if t is Regex:
        return "regex"
    if t is SymbolRef:
        return "symbol"
    if t is VarRef:
        return "var"
    if isinstance(x, JavaObject):
        return x.java_class
    if callable(x):
        return "function"
    return "unknown"


def type_name(x) -> str:
    """The human name of a value's kind, for error messages (integers and floats are numbers)."""
    k = value_kind(x)
    return "number" if k == "integer" or k == "float" else k


# ------------------------------------------------------------------------ equality

def equal(a, b, nan_equal: bool = False) -> bool:
    """PTC `=`: structural; numbers by value across int/float; NaN never equal (unless nan_equal)."""
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
    if ta is Vector:
        xs, ys = a.lst(), b.lst()
        if len(xs) != len(ys):
            return False
        for x, y in zip(xs, ys):
            if not equal(x, y, nan_equal):
                return False
        return True
    if ta is Map:
        if len(a) != len(b):
            return False
        get = b.get
        for k, v in dict.items(a):
            w = get(k, _MISSING)
            if w is _MISSING or not equal(v, w, nan_equal):
                return False
        return True
    if ta is Set:
        da, db = a.d(), b.d()
        return len(da) == len(db) and all(k in db for k in da)
    return a == b


# ------------------------------------------------------------------------ ordering

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


def utf16_key(s: str):
    """Java string order: compare by UTF-16 code units."""
    if s.isascii() or all(ord(c) < 0x10000 for c in s):
        return s
    return s.encode("utf-16-be")


def compare(a, b) -> int:
    """Natural order (language.md §3.6): -1, 0 or 1; `type_error` for kinds that have no order
    between them. NaN compares 0 with every number (Clojure's compare)."""
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
        for x, y in zip(xs, ys):
            c = compare(x, y)
            if c:
                return c
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


def total_order_key(x):
    """A total order over mixed kinds for map/set views (kind rank, then natural)."""
    r = _kind_rank(x)
    if r is None:
        from .printer import pr_str
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
        from .printer import pr_str
        return sorted(items, key=lambda kv: (str(type(kv[0])), pr_str(kv[0])))


def sorted_members(s: Set) -> list:
    xs = s.members()
    if len(xs) < 2:
        return xs
    try:
        return sorted(xs, key=total_order_key)
    except TypeError:
        from .printer import pr_str
        return sorted(xs, key=lambda x: (str(type(x)), pr_str(x)))


def truthy(x) -> bool:
    return x is not None and x is not False
