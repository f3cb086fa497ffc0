"""Set operations and the basic constructors (docs/spec/functions.md §4).

`set`, `hash-set`, `set?`, `vec`, `vector`, `contains?`, `disj`, `union`,
`intersection`, `difference`; all reachable as `clojure.set/…` and `set/…`.
Membership is exact (docs/spec/language.md §3.4: 1 and 1.0 are different members);
`contains?` on a map uses flexible key lookup and on a vector tests element
membership (DIV-27).
Imports values, errors, meter, lib.arguments, registry, lib.colls_maps, lib.seqs_build.
"""
from __future__ import annotations


from ..errors import PtcError
from ..runtime.meter import map_cost
from ..values import SORTED, Keyword, Map, Set, Vector, hk, type_name
from .colls_maps import contains_key
from .arguments import charge, count_str, out_vec, seq_items
from ..registry.builtins import builtin

from ..values import owner_token as _owner_token


def _fresh_set(d: dict) -> Set:
    return Set(d, _owner_token())


def _members_dict(items) -> dict:
    d = {}
    for x in items:
        d[hk(x)] = x
    return d


@builtin("set", "(set coll)", groups=("core", "set"), category="sets")
def set_(coll):
    """A set of the items of coll (a vector, set, string of characters, map of entries, or nil).

    (set [1 2 2 3]) ;=> #{1 2 3}
    (set nil) ;=> #{}
    """
    if type(coll) is Set:
        return coll
    items = seq_items(coll, "set")
    charge(map_cost(len(items)))
    return _fresh_set(_members_dict(items))


@builtin("hash-set", "(hash-set & xs)", groups=("core", "set"), category="sets")
def hash_set(*xs):
    """A set of the arguments.

    (hash-set 1 1 2) ;=> #{1 2}
    """
    charge(map_cost(len(xs)))
    return _fresh_set(_members_dict(xs))


@builtin("sorted-set", "(sorted-set & xs)", groups=("core", "set"), category="sets")
def sorted_set(*xs):
    """A set of the arguments that keeps its members in natural order: first, nth, seq and the other positional
    reads see them sorted (a hash set refuses them); conj and disj keep it sorted.

    (first (sorted-set 3 1 2)) ;=> 1
    (vec (sorted-set 3 1 2)) ;=> [1 2 3]
    """
    charge(map_cost(len(xs)))
    return Set({hk(x): x for x in xs}, SORTED)


@builtin("set?", "(set? x)", returns_bool=True, groups=("core", "set"), category="sets")
def set_p(x):
    """True when x is a set.

    (set? #{1}) ;=> true
    (set? [1]) ;=> false
    """
    return type(x) is Set


@builtin("vec", "(vec coll)", groups=("core", "set"), category="sets")
def vec_(coll):
    """A vector of the items of coll: characters of a string, [key value] entries of a map in key order, members
    of a set; nil gives [].

    (vec #{1}) ;=> [1]
    (vec {:a 1}) ;=> [[:a 1]]
    (vec nil) ;=> []
    """
    if type(coll) is Vector:
        return coll
    return out_vec(list(seq_items(coll, "vec")))


@builtin("vector", "(vector & xs)", groups=("core", "set"), category="sets")
def vector_(*xs):
    """A vector of the arguments.

    (vector 1 2 3) ;=> [1 2 3]
    (vector) ;=> []
    """
    return out_vec(list(xs))


@builtin("contains?", "(contains? coll k)", returns_bool=True, groups=("core", "set"), category="sets")
def contains_p(coll, k):
    """Map: whether key k is present (flexible keyword/string matching; a vector k is a path). Set: whether k is
    a member. Vector: whether k is one of its items. String: whether k is a valid character index. nil: false.

    (contains? {:a 1} :a) ;=> true
    (contains? ["a" "b"] "b") ;=> true
    (contains? [10 20] 1) ;=> false
    (contains? nil :a) ;=> false
    """
    t = type(coll)
    if t is Map:
        return contains_key(coll, k)
    if t is Set:
        tk = type(k)
        if tk is str or tk is int or tk is Keyword:   # `Set.contains`: hk(k) is k itself for these
            return k in coll.d()
        return coll.contains(k)
    if t is Vector:
        hkk = hk(k)
        return any(hk(x) == hkk for x in coll.lst())
    if coll is None:
        return False
    if t is str:
        return type(k) is int and 0 <= k < count_str(coll)
    raise PtcError("type_error", f"contains?: not supported on {type_name(coll)}")


@builtin("disj", "(disj s & xs)", groups=("core", "set"), category="sets")
def disj(s, *xs):
    """The set without the given members. nil stays nil.

    (disj #{1 2 3} 2 3) ;=> #{1}
    """
    if s is None:
        return None
    if type(s) is not Set:
        raise PtcError("type_error", f"disj: expected a set, got {type_name(s)}")
    for x in xs:
        s = s.disj(x)
    return s


# ------------------------------------------------------------------ clojure.set operations
# Sets take the direct path below. Any other argument follows clojure.set's own definitions
# over conj, disj, contains? and count (GAP-S30): union conjs the smaller argument onto the
# larger (so two vectors give a vector), intersection and difference remove members from
# their first argument with disj (a set, or nil that stays nil). contains? is this
# language's (DIV-27: membership for a vector), so a vector argument is read as its items.

def _count(x, who: str) -> int:
    t = type(x)
    if t is Set or t is Vector or t is Map:
        return len(x)
    if x is None:
        return 0
    if t is str:
        return count_str(x)
    raise PtcError("type_error", f"{who}: expected a set or a collection, got {type_name(x)}")


def _all_sets(xs) -> bool:
    return all(type(x) is Set for x in xs)


def _disj(s, x, who: str):
    if type(s) is Set:
        return s.disj(x)
    if s is None:
        return None
    raise PtcError("type_error", f"{who}: members can only be removed from a set, got {type_name(s)}; "
                                 f"make it a set first: (set coll)")


def _conj_all(target, items: list, who: str):
    if not items:
        return target
    t = type(target)
    if t is not Set and t is not Vector and t is not Map:
        raise PtcError("type_error", f"{who}: cannot add members to a {type_name(target)}; "
                                     f"make it a set first: (set coll)")
    from .seqs_build import conj
    return conj(target, *items)


def _union2(a, b):
    if _count(a, "union") < _count(b, "union"):
        a, b = b, a
    return _conj_all(a, seq_items(b, "union"), "union")


def _set_union(sets) -> Set:
    ds = [s.d() for s in sets]
    big = max(range(len(ds)), key=lambda i: len(ds[i]))
    if all(len(d) == 0 or i == big for i, d in enumerate(ds)):
        return sets[big]
    out = dict(ds[big])
    for i, d in enumerate(ds):
        if i != big:
            out.update(d)
    charge(map_cost(len(out)))
    return _fresh_set(out)


def _bubble(xs: list, key) -> list:
    """clojure.set's bubble-max-key: the item with the greatest key (the last one on a tie) first,
    then the others in order (the chosen object removed wherever it occurs)."""
    best = xs[0]
    bk = key(best)
    for x in xs[1:]:
        k = key(x)
        if k >= bk:
            best, bk = x, k
    return [best] + [x for x in xs if x is not best]


@builtin("union", "(union & sets)", groups=("set",), category="sets")
def union(*sets):
    """The set of members found in any of the sets. (union) is #{}. Other collections follow clojure.set: the
    smaller argument's items are conj'ed onto the larger one.

    (clojure.set/union #{1 2} #{2 3}) ;=> #{1 2 3}
    (clojure.set/union #{1} [2 3]) ;=> [2 3 1]
    """
    if not sets:
        return _fresh_set({})
    if _all_sets(sets):
        return _set_union(sets)
    if len(sets) == 1:
        return sets[0]
    if len(sets) == 2:
        return _union2(*sets)
    first, *rest = _bubble(list(sets), lambda x: _count(x, "union"))
    for x in rest:
        first = _conj_all(first, seq_items(x, "union"), "union")
    return first


def _narrowed(a: Set, kept: dict):
    """Set `a` cut down to the entries `kept` (some of its own): `a` itself when none was dropped."""
    if len(kept) == len(a.d()):
        return a
    charge(map_cost(len(kept)))
    return _fresh_set(kept)


def _without_members_of(a, b, in_b: bool, who: str):
    """`a` after `_disj` of each of its items that `b` contains (with `in_b`) or lacks (without)."""
    result = a
    for x in seq_items(a, who):
        if bool(contains_p(b, x)) is in_b:
            result = _disj(result, x, who)
    return result


def _intersection2(a, b):
    if _count(b, "intersection") < _count(a, "intersection"):
        a, b = b, a
    if type(a) is Set and type(b) is Set:
        big = b.d()
        return _narrowed(a, {k: v for k, v in a.d().items() if k in big})
    return _without_members_of(a, b, False, "intersection")


@builtin("intersection", "(intersection s & sets)", groups=("set",), category="sets")
def intersection(s, *sets):
    """The set of members found in every one of the sets. Other collections follow clojure.set: the smallest
    argument loses the items missing from the others (it must then be a set).

    (clojure.set/intersection #{1 2 3} #{2 3 4}) ;=> #{2 3}
    (clojure.set/intersection #{1 2 3} [2 3 4]) ;=> #{2 3}
    """
    if not sets:
        return s
    if len(sets) == 1:
        return _intersection2(s, sets[0])
    first, *rest = _bubble([s, *sets], lambda x: -_count(x, "intersection"))
    for x in rest:
        first = _intersection2(first, x)
    return first


def _difference2(a, b):
    if type(a) is Set and type(b) is Set:
        db = b.d()
        return _narrowed(a, {k: v for k, v in a.d().items() if k not in db})
    if _count(a, "difference") < _count(b, "difference"):
        return _without_members_of(a, b, True, "difference")
    for x in seq_items(b, "difference"):
        a = _disj(a, x, "difference")
    return a


@builtin("difference", "(difference s & sets)", groups=("set",), category="sets")
def difference(s, *sets):
    """The members of the first set that are in none of the others. The others may be any collection (a vector's
    items, a map's entries); the first must be a set (or nil) to lose members.

    (clojure.set/difference #{1 2 3} #{2}) ;=> #{1 3}
    (clojure.set/difference #{1 2 3} [2 5]) ;=> #{1 3}
    """
    for x in sets:
        s = _difference2(s, x)
    return s
