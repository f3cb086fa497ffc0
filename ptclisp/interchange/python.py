"""Python data <-> PTC values at the host boundary.

Owns the walks host data takes into the language and values take out of it:

* `from_python` (host data -> fresh PTC values): the context of a run or
  Session, tool results (`strict=True`), agent mission data. Dicts keep their
  key types, so JSON objects stay string-keyed; PTC collections are copied
  too, so the host keeps no handle on what a program holds.
* `detach` (PTC value -> an independent copy, values/copies.py, re-exported
  here): what `Session.eval`, its history and its definitions hand to the
  host, so a host cannot change a session's values or a cached program's
  constants through a result.
* `to_python` (PTC values -> plain lists, dicts, sets and strings; keys that
  Python would merge are an error). JSON output is `ptclisp.interchange.json_out`
  (docs/json.md).

Both run on the one walk over values (values/walk.py): iterative, so deep data
cannot exhaust the Python stack. JSON-shaped host data (exact dicts, lists,
tuples and sets of atoms, at most 200 levels deep) first takes a recursion of
its own (`_fast`, about twice as fast) that gives the walk's values, sharing
and errors; anything else starts over with the walk. `from_python` remembers every container it
has converted that anything else may hold (shared parts are converted once and
stay shared, so the work is linear in the distinct objects; an exact list or
dict that only its parent holds, by its reference count, cannot be met twice
and is not remembered) and bounds nesting at `MAX_DEPTH`: a
container that holds itself, data nested deeper than that and objects the
language cannot hold raise `HostDataError` at once, so no host data can hang
the walk or grow memory without bound.
Imports errors and values.
"""
from __future__ import annotations

import sys
from itertools import chain
from sys import getrefcount as _getrefcount

from ..errors import PtcError
from ..values import JavaObject, Keyword, Map, Regex, Set, SymbolRef, VarRef, Vector, detach, detach_all, hk, \
    pr_str, unhk
from ..values.keys import _BoolKey, _FloatKey
from ..values.walk import IN_PROGRESS, ExpansionBudget, walk

MAX_DEPTH = 10_000
_TICK = 1024   # containers converted between two deadline checks (with a meter)


class HostDataError(PtcError):
    """Host data the language cannot hold. `reason` says why in a few words
    (a cycle, nesting deeper than MAX_DEPTH, or the name of a foreign type)."""

    def __init__(self, kind: str, message: str, reason: str):
        super().__init__(kind, message, details={"reason": reason})
        self.reason = reason


_ATOMS = frozenset({type(None), bool, int, float, str, Keyword})
_INERT = frozenset({SymbolRef, VarRef, Regex, _FloatKey, _BoolKey})   # immutable values kept as they are


def from_python(x, *, strict: bool = False, max_depth: int = MAX_DEPTH, meter=None):
    """Convert host data into fresh PTC values.

    Accepts None, booleans, numbers, strings, keywords, dicts, lists, tuples,
    sets, frozensets (subclasses become the base type) and PTC values, which
    are copied. Without `strict`, host functions and Java wrappers are kept
    as they are; with `strict` (tool results) they are refused. Raises
    `HostDataError` for a cycle, nesting deeper than `max_depth` and objects
    the language cannot hold. With a `meter`, its deadline is checked as the
    walk goes.
    """
    if type(x) in _ATOMS:
        return x
    if type(x) is dict and not x:  # the usual context of a run: nothing to walk
        return Map()
    alone = _alone()
    if type(x) in _FAST_ROOTS:
        try:
            return _fast(x, _HostData(strict, max_depth, meter), *(_FAST_ALONE if alone > 0 else _UNMEASURED))
        except (_Unusual, RecursionError):
            pass   # the general walk below starts over and gives what it always gave
    return _general(x, strict, max_depth, meter, alone)


def _general(x, strict: bool, max_depth: int | None, meter, alone: int):
    """`from_python` by the one walk (values/walk.py): any host data, any depth."""
    h = _HostData(strict, max_depth, meter)
    try:
        return walk(x, vector=h.vector, map=h.map, set=h.set, other=h.other, leaf=h.leaf, leave=h.build,
                    again=_again, once=True, remember=_reachable_elsewhere if alone > 0 else None,
                    build=True, skip=_ATOMS)
    except RecursionError:  # hashing a deeply nested set member or map key
        raise HostDataError("memory_exceeded", "host data nested too deeply to convert",
                            "nested too deeply") from None


class _HostData:
    """The hooks of one `from_python` walk: which containers to open, what a leaf becomes."""

    def __init__(self, strict: bool, max_depth: int | None, meter):
        self.strict, self.max_depth, self.meter = strict, max_depth, meter
        self.opened = 0
        self.keys: list = []   # (id, keys) of each string-keyed dict being walked, innermost last

    def _enter(self, depth: int):
        if self.max_depth is not None and depth >= self.max_depth:
            raise HostDataError("memory_exceeded", f"host data nested deeper than {self.max_depth} levels",
                                f"nested deeper than {self.max_depth} levels")
        self.opened += 1
        if self.meter is not None and not self.opened % _TICK:
            self.meter.check()

    def vector(self, v, depth):
        self._enter(depth)
        return iter(v.lst())

    def map(self, m, depth):   # a PTC map's parts: its stored keys (storage keys already) and values
        self._enter(depth)
        return chain.from_iterable(dict.items(m))

    def set(self, s, depth):
        self._enter(depth)
        return iter(s.d().values())

    def other(self, x, t, depth):
        if t is list or t is tuple:
            parts = iter(x)
        elif t is dict and _STR.issuperset(map(type, x)):
            # a JSON object: its keys stay as they are, so only its values are walked (and no part
            # of the walk holds a value but the dict: see `_reachable_elsewhere`)
            self._enter(depth)
            self.keys.append((id(x), tuple(x)))
            return iter(x.values())
        elif t is dict or isinstance(x, dict):
            parts = chain.from_iterable(x.items())
        elif isinstance(x, (list, tuple, set, frozenset)):
            parts = iter(x)
        else:
            return None
        self._enter(depth)
        return parts

    def build(self, src, parts: list):
        """The PTC collection of a converted container's parts."""
        keys = self.keys
        if keys and type(src) is dict and keys[-1][0] == id(src):   # a string-keyed dict's values
            return Map(zip(keys.pop()[1], parts))
        return _build(src, parts)

    def leaf(self, x, t):
        """A value that is neither a plain atom nor a container, as host data."""
        if t in _INERT:
            if not self.strict or t is _FloatKey or t is _BoolKey:
                return x
        elif isinstance(x, bool):
            return bool(x)
        elif isinstance(x, int):
            return int(x)
        elif isinstance(x, float):
            return float(x)
        elif isinstance(x, str):
            return str(x)
        elif isinstance(x, JavaObject) or callable(x):
            if not self.strict:
                return x
        name = type(x).__name__
        if self.strict:
            raise HostDataError("type_error", f"a host {name} cannot be held by PTC-Lisp", name)
        raise HostDataError("type_error", f"cannot pass a host {name} into PTC-Lisp", name)


def _build(src, parts: list):
    """The PTC collection of a converted container's parts."""
    if isinstance(src, dict):
        return Map(zip(map(hk, parts[0::2]), parts[1::2]))
    if isinstance(src, (Set, set, frozenset)):
        return Set({hk(v): v for v in parts})
    return Vector(parts)


def _again(x, done):
    if done is IN_PROGRESS:
        raise HostDataError("type_error", "host data contains a cycle (a container that holds "
                                          "itself); pass tree-shaped data", "a cycle")
    return done


_STR = frozenset((str,))
_NO = object()


# ------------------------------------------------------------------ the fast path: JSON-shaped data

_FAST_DEPTH = 200   # containers the fast path nests (Python frames): deeper data takes the general walk
_FAST_ROOTS = frozenset({dict, list, tuple})
_UNUSUAL = (dict, list, tuple, set, frozenset, Vector, Set)   # containers only the general walk opens


_DICT = frozenset((dict,))
_UNMEASURED = (-1, -1)
_RECORDS = 8   # items from which a list of records is looked at in one pass (shorter: each record alone)


def _records(x: list) -> bool:
    """Whether x holds dicts alone, with string keys and atoms for values (one pass per question)."""
    return (_DICT.issuperset(map(type, x)) and _ATOMS.issuperset(map(type, chain.from_iterable(map(dict.values, x))))
            and _STR.issuperset(map(type, chain.from_iterable(x))))


class _Unusual(Exception):
    """The fast path met what only the general walk converts; `from_python` starts over with it."""


def _fast(root, h: _HostData, alone, record_alone):
    """`from_python` of exact dicts, lists, tuples, sets and frozensets of atoms (JSON-shaped data) by
    a recursion at most `_FAST_DEPTH` deep that meets values in the walk's order: the same values,
    sharing, errors and deadline checks. On anything else (other types, PTC values, subclasses, deeper
    data) it raises `_Unusual` and the general walk converts the whole. `alone`, `record_alone`:
    `_FAST_ALONE`, the reference counts of an exact list or dict that one part of its parent alone
    holds, as `conv` sees it and as a list of records (`_records`) sees an item (-1: remember every
    container). Other containers are remembered by id: converted once, a cycle if met while converted."""
    memo: dict = {}
    atoms, getrc, meter, leaf = _ATOMS, _getrefcount, h.meter, h.leaf
    limit = _FAST_DEPTH if h.max_depth is None else min(_FAST_DEPTH, h.max_depth)
    opened = 0

    def conv(x, depth):
        nonlocal opened
        t = type(x)
        if t is dict or t is list:
            kept = getrc(x) > alone or not depth
        elif t is tuple or t is set or t is frozenset:
            kept = True
        elif isinstance(x, _UNUSUAL):
            raise _Unusual
        else:
            return leaf(x, t)
        if kept:
            done = memo.get(id(x), _NO)
            if done is not _NO:
                return _again(x, done)
        if depth >= limit:
            raise _Unusual
        opened += 1
        if meter is not None and not opened % _TICK:
            meter.check()
        if kept:
            memo[id(x)] = IN_PROGRESS
        d = depth + 1
        # parts' types are looked at by plain loops (faster than `map` on small containers); a loop
        # variable holding a container is cleared before it is converted (`alone` counts)
        if t is dict:
            for k in x:
                if type(k) is not str:   # keys converted too, each before its value
                    k = None
                    parts = [p if type(p) in atoms else conv(p, d) for p in chain.from_iterable(x.items())]
                    out = Map(zip(map(hk, parts[0::2]), parts[1::2]))
                    break
            else:
                for v in x.values():
                    if type(v) not in atoms:
                        v = None
                        out = Map(zip(x, [v if type(v) in atoms else conv(v, d) for v in x.values()]))
                        break
                else:
                    out = Map(x)
        else:
            for v in x:
                if type(v) not in atoms:
                    v = None
                    if t is list and len(x) >= _RECORDS and _records(x):
                        if d >= limit:
                            raise _Unusual
                        if meter is not None:   # the records count here (one held twice also in conv)
                            for _ in range((opened + len(x)) // _TICK - opened // _TICK):
                                meter.check()
                        opened += len(x)
                        out = Vector([conv(v, d) if getrc(v) > record_alone else Map(v) for v in x])
                        break
                    parts = [v if type(v) in atoms else conv(v, d) for v in x]
                    out = Vector(parts) if t is list or t is tuple else Set({hk(v): v for v in parts})
                    break
            else:
                out = Vector(list(x)) if t is list or t is tuple else Set({hk(v): v for v in x})
        if kept:
            memo[id(x)] = out
        return out

    try:
        return conv(root, 0)
    finally:
        conv = None   # the closure holds itself: leave no reference cycle for the collector


def _reachable_elsewhere(x) -> bool:
    """Whether the walk must remember `x` (just opened): whether anything but the one part of its
    parent the walk came through may hold it. An exact list or dict held by that part alone
    (the reference count the walk's own references give, `_ALONE`, see `_alone`) cannot be
    met again, as a shared part or on a cycle, so leaving it out of the memo changes nothing but
    the memo's size (a third of the peak memory of converting JSON data)."""
    t = type(x)
    if t is list or t is dict:
        return _getrefcount(x) > _ALONE
    return True


def _counts_seen(data) -> list:
    """The reference counts `_reachable_elsewhere` would see for each container opened in `data`."""
    seen = []

    def record(x):
        seen.append(_getrefcount(x))
        return True
    h = _HostData(False, MAX_DEPTH, None)
    walk(data, vector=h.vector, map=h.map, set=h.set, other=h.other, leaf=h.leaf, leave=h.build,
         again=_again, once=True, remember=record, build=True, skip=_ATOMS)
    return seen


def _tree():    # every part held once: the root, then [0], {"a": [0]}, [0], [{1: 2}], {1: 2}
    return [[0], {"a": [0]}, [{1: 2}]]


def _dag():     # the root, s (a list held twice), {"a": d, "b": d}, d (a dict held twice)
    s, d = [0], {"x": 0}
    return [s, s, {"a": d, "b": d}]


def _measure_alone() -> int:
    """The count an exact list or dict held by one part of its parent shows (an item of a list, a
    value of a string-keyed dict); -1 (remember everything) unless a self-test on this interpreter
    shows the same count for each such part and a higher one for every part held twice."""
    tree, dag = _counts_seen(_tree()), _counts_seen(_dag())
    if len(tree) != 6 or len(dag) != 4:
        return -1
    alone = tree[1]
    if any(n != alone for n in tree[1:]) or dag[2] != alone or dag[1] <= alone or dag[3] <= alone:
        return -1
    return alone


class _Counts:
    """Stands for `alone` while `_fast` is measured: `getrc(x) > alone` asks `alone < n` (n is not
    comparable to it), which records n and answers True (remember x)."""

    def __init__(self):
        self.seen: list = []

    def __lt__(self, n):
        self.seen.append(n)
        return True


def _measure_fast_alone() -> tuple:
    """`_measure_alone` for the fast path: (the count `_fast` sees for a list or dict held by one part
    (an item of a list, a value of a string-keyed dict), the same for a record held by its list), or
    `_UNMEASURED` unless the same self-test holds. `_fast` counts every exact list or dict it meets,
    a part met again too: the dag gives the root, s, s, the dict, d, d; records are counted apart."""
    counts, records = _Counts(), _Counts()
    seen = []
    for data in (_tree(), _dag(), [[{"r": i} for i in range(_RECORDS)]], _records_dag()):
        counts.seen, records.seen = [], []
        _fast(data, _HostData(False, MAX_DEPTH, None), counts, records)
        seen += [counts.seen, records.seen]
    tree, no_records, dag, none_either, rtree, rtree_records, rdag, rdag_records = seen
    if len(tree) != 6 or len(dag) != 6 or no_records or none_either or len(rtree_records) != _RECORDS:
        return _UNMEASURED
    alone, record_alone = tree[1], rtree_records[0]
    if any(n != alone for n in tree[1:]) or dag[3] != alone or min(dag[1], dag[2], dag[4], dag[5]) <= alone:
        return _UNMEASURED
    if any(n != record_alone for n in rtree_records) or len(rdag_records) != _RECORDS \
            or any(n != record_alone for n in rdag_records[2:]) or min(rdag_records[:2]) <= record_alone:
        return _UNMEASURED
    return alone, record_alone


def _records_dag():   # the root, a list of records: r (held twice), r, then records held once
    r = {"r": 1}
    return [[r, r] + [{"s": i} for i in range(_RECORDS - 2)]]


_ALONE = None
_FAST_ALONE = _UNMEASURED


def _alone() -> int:
    """`_ALONE`, measured on first use, and `_FAST_ALONE` with it. Never while this thread runs a
    trace or profile function: one that reads a frame's locals holds extra references, and a count
    measured that high would later take a part held twice for one held once. Until then (-1) every
    container is remembered; a tracer active later only raises the counts seen, which remembers more."""
    global _ALONE, _FAST_ALONE
    if _ALONE is None:
        if sys.gettrace() is not None or sys.getprofile() is not None:
            return -1
        _ALONE, _FAST_ALONE = _measure_alone(), _measure_fast_alone()
    return _ALONE


# ------------------------------------------------------------------ out to Python

_PLAIN = frozenset({type(None), bool, int, float, str})


def to_python(x, *, keyword_names: bool = True):
    """Plain Python data: vectors -> list, maps -> dict, sets -> set, keywords -> their name.

    Map keys and set members convert like any value and stay Python keys of
    their own type (1 stays the int 1, nil stays None); keys that are
    collections become tuples / frozensets so they stay hashable. Where two
    distinct PTC keys or members become one Python key (`:a` and "a" with
    keyword names; 1, 1.0 and true, which Python dicts merge) a PtcError
    `public_projection_collision` is raised instead of losing an entry.
    NaN and infinite floats are kept as Python floats; data nested deeper
    than `MAX_DEPTH` is a `memory_exceeded` error. For JSON use
    `ptclisp.interchange.json_out.to_json` (string keys, no NaN; docs/json.md).
    """
    if type(x) in _PLAIN:
        return x
    kn = keyword_names
    budget = ExpansionBudget(x)

    def counted(n, depth):   # n more values to convert, at nesting `depth`: within the budgets?
        if not budget.add(n):
            raise _too_large(budget)
        _deep(depth)

    def items(v, depth):
        xs = v.lst()
        counted(len(xs), depth)
        return iter(xs)

    def entries(m, depth):   # original keys (the Python side sees 1.0, not its storage key)
        counted(2 * len(m), depth)
        return chain.from_iterable(m.items())

    def members(s, depth):
        xs = s.members()
        counted(len(xs), depth)
        return iter(xs)

    def leaf(v, t):
        if t is Keyword:
            return v.name if kn else v
        if t is SymbolRef:
            return v.full
        if t is VarRef:
            return "#'" + v.name
        if isinstance(v, JavaObject):
            return v.to_text()
        return v

    def leave(src, parts: list):
        t = type(src)
        if t is Vector:
            return parts
        if t is Map:
            out = {_hashable(k): v for k, v in zip(parts[0::2], parts[1::2])}
            if len(out) != len(src):
                raise _merged("map keys", src.keys(), kn)
            return out
        out = {_hashable(v) for v in parts}
        if len(out) != len(parts):
            raise _merged("set members", src.members(), kn)
        return out

    return walk(x, vector=items, map=entries, set=members, leaf=leaf, leave=leave, build=True, skip=_PLAIN)


def _deep(depth: int):
    if depth >= MAX_DEPTH:
        raise PtcError("memory_exceeded", "value nested too deeply to convert")


def _too_large(budget) -> PtcError:
    return PtcError("memory_exceeded", f"the value shares its parts so widely that a copy of it would have more "
                                       f"than {budget.limit} cells (twice what it holds, at least "
                                       f"{budget.FLOOR}); convert a summary of it",
                    details={"limit": "conversion_cells", "value": budget.limit})


def _merged(kind: str, originals, kn) -> PtcError:
    seen = {}
    for k in originals:
        key = _hashable(to_python(k, keyword_names=kn))
        if key in seen:
            a, b = pr_str(seen[key])[:40], pr_str(k)[:40]
            return PtcError("public_projection_collision",
                            f"{kind} {a} and {b} become one Python {'key' if kind == 'map keys' else 'value'} "
                            f"({key!r:.40}); Python cannot keep them apart")
        seen[key] = k
    return PtcError("public_projection_collision", f"two {kind} become one Python value")


def _hashable(v):
    if isinstance(v, list):
        return tuple(_hashable(i) for i in v)
    if isinstance(v, dict):
        return tuple(sorted(((_hashable(k), _hashable(val)) for k, val in v.items()), key=repr))
    if isinstance(v, set):
        return frozenset(v)
    return v


__all__ = ["HostDataError", "MAX_DEPTH", "detach", "detach_all", "from_python", "to_python", "unhk"]
