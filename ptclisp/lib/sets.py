"""Set operations and the basic constructors (functions.md §4).

`set`, `hash-set`, `set?`, `vec`, `vector`, `contains?`, `disj`, `union`,
`intersection`, `difference`; all reachable as `clojure.set/…` and `set/…`.
Membership is exact (language.md §3.4: 1 and 1.0 are different members);
`contains?` on a map uses flexible key lookup and on a vector tests element
membership (DIV-27).
Imports values, errors, lib.common, lib.registry, lib.colls_maps.
"""
from __future__ import annotations


from ..errors import PtcError
from ..meter import map_cost
from ..values import Map, Set, Vector, hk, type_name
from .colls_maps import contains_key
from .common import charge, count_str, out_vec, seq_items
from .registry import builtin

from ..values import owner_token as _owner_token


def _fresh_set(d: dict) -> Set:
    return Set(d, _owner_token())


def _members_dict(items) -> dict:
    d = {}
    for x in items:
        d[hk(x)] = x
    return d


@builtin("set", "(set coll)", groups=("core", "set"), category="sets",
         doc="A set of the items of coll (a vector, set, string of characters, map of entries, or nil).",
         examples=("(set [1 2 2 3]) ;=> #{1 2 3}", "(set nil) ;=> #{}"))
def set_(coll):
    if type(coll) is Set:
        return coll
    items = seq_items(coll, "set")
    charge(map_cost(len(items)))
    return _fresh_set(_members_dict(items))


@builtin("hash-set", "(hash-set & xs)", groups=("core", "set"), category="sets",
         doc="A set of the arguments.", examples=("(hash-set 1 1 2) ;=> #{1 2}",))
def hash_set(*xs):
    charge(map_cost(len(xs)))
    return _fresh_set(_members_dict(xs))


@builtin("set?", "(set? x)", groups=("core", "set"), category="sets",
         doc="True when x is a set.", examples=("(set? #{1}) ;=> true", "(set? [1]) ;=> false"))
def set_p(x):
    return type(x) is Set


@builtin("vec", "(vec coll)", groups=("core", "set"), category="sets",
         doc="A vector of the items of coll: characters of a string, [key value] entries of a map in key "
             "order, members of a set; nil gives [].",
         examples=("(vec #{1}) ;=> [1]", "(vec {:a 1}) ;=> [[:a 1]]", "(vec nil) ;=> []"))
def vec_(coll):
    if type(coll) is Vector:
        return coll
    return out_vec(list(seq_items(coll, "vec")))


@builtin("vector", "(vector & xs)", groups=("core", "set"), category="sets",
         doc="A vector of the arguments.", examples=("(vector 1 2 3) ;=> [1 2 3]", "(vector) ;=> []"))
def vector_(*xs):
    return out_vec(list(xs))


@builtin("contains?", "(contains? coll k)", groups=("core", "set"), category="sets",
         doc="Map: whether key k is present (flexible keyword/string matching; a vector k is a path). "
             "Set: whether k is a member. Vector: whether k is one of its items. String: whether k is a "
             "valid character index. nil: false.",
         examples=("(contains? {:a 1} :a) ;=> true", "(contains? [\"a\" \"b\"] \"b\") ;=> true",
                   "(contains? [10 20] 1) ;=> false", "(contains? nil :a) ;=> false"))
def contains_p(coll, k):
    t = type(coll)
    if t is Map:
        return contains_key(coll, k)
    if t is Set:
        return coll.contains(k)
    if t is Vector:
        hkk = hk(k)
        return any(hk(x) == hkk for x in coll.lst())
    if coll is None:
        return False
    if t is str:
        return type(k) is int and 0 <= k < count_str(coll)
    raise PtcError("type_error", f"contains?: not supported on {type_name(coll)}")


@builtin("disj", "(disj s & xs)", groups=("core", "set"), category="sets",
         doc="The set without the given members. nil stays nil.",
         examples=("(disj #{1 2 3} 2 3) ;=> #{1}",))
def disj(s, *xs):
    if s is None:
        return None
    if type(s) is not Set:
        raise PtcError("type_error", f"disj: expected a set, got {type_name(s)}")
    for x in xs:
        s = s.disj(x)
    return s


def _need_set(s, who: str) -> dict:
    """The members dict of a set argument; nil counts as the empty set."""
    if type(s) is Set:
        return s.d()
    if s is None:
        return {}
    raise PtcError("type_error", f"{who}: expected a set, got {type_name(s)}")


@builtin("union", "(union & sets)", groups=("set",), category="sets",
         doc="The set of members found in any of the sets. (union) is #{}.",
         examples=("(clojure.set/union #{1 2} #{2 3}) ;=> #{1 2 3}",))
def union(*sets):
    ds = [_need_set(s, "union") for s in sets]
    if not ds:
        return _fresh_set({})
    big = max(range(len(ds)), key=lambda i: len(ds[i]))
    if all(len(d) == 0 or i == big for i, d in enumerate(ds)) and type(sets[big]) is Set:
        return sets[big]
    out = dict(ds[big])
    for i, d in enumerate(ds):
        if i != big:
            out.update(d)
    charge(map_cost(len(out)))
    return _fresh_set(out)


@builtin("intersection", "(intersection s & sets)", groups=("set",), category="sets",
         doc="The set of members found in every one of the sets.",
         examples=("(clojure.set/intersection #{1 2 3} #{2 3 4}) ;=> #{2 3}",))
def intersection(s, *sets):
    ds = [_need_set(x, "intersection") for x in (s, *sets)]
    ds.sort(key=len)
    out = {k: v for k, v in ds[0].items() if all(k in d for d in ds[1:])}
    charge(map_cost(len(out)))
    return _fresh_set(out)


@builtin("difference", "(difference s & sets)", groups=("set",), category="sets",
         doc="The members of the first set that are in none of the others.",
         examples=("(clojure.set/difference #{1 2 3} #{2}) ;=> #{1 3}",))
def difference(s, *sets):
    d0 = _need_set(s, "difference")
    rest = [_need_set(x, "difference") for x in sets]
    out = {k: v for k, v in d0.items() if not any(k in d for d in rest)}
    charge(map_cost(len(out)))
    return _fresh_set(out)
