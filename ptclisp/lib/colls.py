"""Collection builtins: conversion, aggregation and collection predicates.

Owns docs/spec/functions.md §1.13 (`seq`, `keyword`), §1.14 (`count`, `reduce`,
`sum`, `avg`, the `-by` aggregates, `min-key`/`max-key`, `group-by`,
`frequencies`; `reduce-kv` lives with the maps) and §1.15 (`empty?`,
`not-empty`, `distinct?`). The related families are modules of their own:
maps (§1.17, colls_maps), function combinators (§1.18, colls_fns), sets and
constructors (§4, sets) and clojure.walk (walk).
Imports values, errors, meter, lib.arguments, lib.numbers, registry.
"""
from __future__ import annotations

import re
from collections import Counter, defaultdict

from ..errors import PtcError
from ..runtime.meter import current, map_cost, seq_cost
from ..values import Keyword, Map, Set, Vector, compare, hk, sorted_members, type_name
from .arguments import (LazyPattern, charge, count_str, entries, graphemes, key_values, keyfn, keyfn_and_items, need_fn,
                     out_vec, seq_items)
from .numbers import add as _num_add
from ..registry.builtins import builtin, hot

_NO = object()


# ------------------------------------------------------------------ conversion (§1.13)

@builtin("seq", "(seq coll)", groups=("core",), category="conversion")
def seq_(coll):
    """A vector view of a collection, or nil when it is empty: strings give their characters, maps their [key
    value] entries in key order, sets their members.

    (seq "hi") ;=> ["h" "i"]
    (seq {:b 2 :a 1}) ;=> [[:a 1] [:b 2]]
    (seq []) ;=> nil
    """
    t = type(coll)
    if t is Vector:
        return coll if len(coll) else None
    if coll is None:
        return None
    if t is str:
        return out_vec(graphemes(coll)) if coll else None
    if t is Map:
        return out_vec(entries(coll)) if len(coll) else None
    if t is Set:
        return out_vec(sorted_members(coll)) if len(coll) else None
    raise PtcError("type_error", f"seq: expected a collection, got {type_name(coll)}")


_KW_NAME = LazyPattern(r"[A-Za-z][A-Za-z0-9_?!\-]*", re.ASCII)


_NO_NS = object()


@builtin("keyword", "(keyword name)", "(keyword ns name)", groups=("core",), category="conversion")
def keyword_(name, name2=_NO_NS):
    """The keyword with the given name; a keyword is returned unchanged and nil gives nil. Names must start with
    a letter and use only letters, digits and _ ? ! -; anything else is an error. With two arguments the
    namespace must be nil: (keyword nil "a") is :a; namespaced keywords do not exist here.

    (keyword "foo") ;=> :foo
    (keyword nil) ;=> nil
    (keyword nil "foo") ;=> :foo
    """
    if name2 is not _NO_NS:
        return _keyword2(name, name2)
    t = type(name)
    if t is Keyword or name is None:
        return name
    if t is not str:
        raise PtcError("type_error", f"keyword: expected a string, got {type_name(name)}")
    if not _KW_NAME.fullmatch(name):
        shown = name if len(name) <= 40 else name[:40] + "..."
        raise PtcError("runtime_error", f"keyword: invalid keyword name {shown!r}")
    return Keyword(name)


def _keyword2(ns, name):
    """Clojure's (keyword ns name) (GAP-S34): both strings, ns may be nil. A namespace is refused:
    there are no namespaced keywords (DIV-13)."""
    if type(name) is not str:
        raise PtcError("type_error", f"keyword: the name must be a string, got {type_name(name)}")
    if ns is None:
        return keyword_(name)
    if type(ns) is not str:
        raise PtcError("type_error", f"keyword: the namespace must be a string or nil, got {type_name(ns)}")
    raise PtcError("runtime_error", "keyword: namespaced keywords (:ns/name) are not supported; "
                                    "use (keyword name), or a string key such as (str ns \"/\" name)")


# ------------------------------------------------------------------ aggregation (§1.14)

_INT_ONLY = frozenset((int,))


def _python_equality_is_exact(distinct, values) -> bool:
    """Whether grouping `values` by Python equality (which gave the keys `distinct`) is the same as
    grouping them by storage identity `hk`: yes unless floats or booleans take part (Python merges
    1, 1.0 and true; hk keeps them apart). Type checks only, at C speed."""
    kinds = set(map(type, distinct))
    if float in kinds or bool in kinds:
        return False
    if int in kinds:  # an int key may hide an equal float or boolean that came later
        kinds = set(map(type, values))
        return float not in kinds and bool not in kinds
    return True


@builtin("count", "(count coll)", groups=("core",), category="aggregation")
def count_(coll):
    """The number of items: characters of a string, entries of a map, members of a set; nil counts 0.

    (count [1 2 3]) ;=> 3
    (count "héllo") ;=> 5
    (count nil) ;=> 0
    """
    t = type(coll)
    if t is Vector or t is Map or t is Set:
        return len(coll)
    if t is str:
        return len(coll) if coll.isascii() else count_str(coll)
    if coll is None:
        return 0
    raise PtcError("type_error", f"count: not supported on {type_name(coll)}")


def _count_each(items: list):
    """`[(count x) for x in items]` at C speed when every item is ASCII text, or every item a
    collection; None otherwise (the caller then counts one by one)."""
    if _TEXT.issuperset(map(type, items)):
        return list(map(len, items)) if all(map(str.isascii, items)) else None
    if _COLLECTIONS.issuperset(map(type, items)):
        return list(map(len, items))
    return None


_TEXT = frozenset((str,))
_COLLECTIONS = frozenset((Vector, Map, Set))
count_.ptc_each = _count_each  # (map count coll): see seqs._mapper


@builtin("reduce", "(reduce f coll)", "(reduce f init coll)", groups=("core",), category="aggregation")
def reduce_(f, a, b=_NO):
    """Left fold: (f acc item) for each item, starting from init, or from the first item when no init is given.
    Without init an empty collection gives (f) and a single item is returned as is.

    (reduce + 0 [1 2 3]) ;=> 6
    (reduce - 10 [1 2 3]) ;=> 4
    (reduce + []) ;=> 0
    """
    f = need_fn(f, "reduce")
    if b is _NO:
        items = seq_items(a, "reduce")
        if not items:
            return f()
        acc = items[0]
        rest = items[1:] if len(items) > 1 else ()
    else:
        acc = a
        rest = b.lst() if type(b) is Vector else seq_items(b, "reduce")
    if f is _num_add and type(acc) is int and _INT_ONLY.issuperset(map(type, rest)):
        return sum(rest, acc)  # the same left fold over exact integers, without a call per item
    f = hot(f, len(rest), 2)
    # Hand the accumulator over instead of keeping a reference to it here: `pop` moves the
    # box's reference into the call, so a map that only the running fold holds can be
    # extended in place by an (assoc acc ...) at its last read (lib.colls_maps.assoc_owned).
    box = [acc]
    del acc
    put, take = box.append, box.pop
    for x in rest:
        put(f(take(), x))
    return take()


@builtin("reductions", "(reductions f coll)", "(reductions f init coll)", groups=("core",), category="aggregation")
def reductions(f, a, b=_NO):
    """A vector of the accumulators reduce goes through: init (or the first item), then (f acc item) after each
    item. An empty coll without init gives [(f)].

    (reductions + [1 2 3]) ;=> [1 3 6]
    (reductions conj [] [1 2]) ;=> [[] [1] [1 2]]
    """
    f = need_fn(f, "reductions")
    if b is _NO:
        items = seq_items(a, "reductions")
        if not items:
            return out_vec([f()])
        acc, rest = items[0], items[1:]
    else:
        acc, rest = a, seq_items(b, "reductions")
    current().alloc(seq_cost(len(rest) + 1))
    f = hot(f, len(rest), 2)
    out = [acc]
    for x in rest:
        acc = f(acc, x)
        out.append(acc)
    return Vector(out)


def _add(acc, x, who):
    t = type(x)
    if t is int or t is float:
        try:
            return acc + x
        except OverflowError:
            raise PtcError("arithmetic_error", f"{who}: result too large for a float") from None
    raise PtcError("arithmetic_error", f"{who}: cannot add a {type_name(x)}")


def _total(values, who):
    """(sum, count) of the non-nil values; non-numbers are arithmetic errors."""
    s = 0
    n = 0
    for x in values:
        if x is None:
            continue
        s = _add(s, x, who)
        n += 1
    return s, n


def _mean(s, n, who):
    if n == 0:
        return None
    try:
        return float(s / n)
    except OverflowError:
        raise PtcError("arithmetic_error", f"{who}: mean too large for a float") from None


@builtin("sum", "(sum coll)", category="aggregation")
def sum_(coll):
    """The sum of the numbers in coll, skipping nils; an empty collection sums to 0.

    (sum [1 2 3 4 5]) ;=> 15
    (sum []) ;=> 0
    (sum [1 nil 2.5]) ;=> 3.5
    """
    return _total(seq_items(coll, "sum"), "sum")[0]


@builtin("avg", "(avg coll)", category="aggregation")
def avg_(coll):
    """The mean (a float) of the numbers in coll, skipping nils; nil when there are none.

    (avg [1 2 3 4 5]) ;=> 3.0
    (avg []) ;=> nil
    """
    s, n = _total(seq_items(coll, "avg"), "avg")
    return _mean(s, n, "avg")


@builtin("sum-by", "(sum-by k coll)", category="aggregation")
def sum_by(k, coll):
    """The sum of (k item) over coll, where k is a keyword or string key, a vector path or a function; nil and
    missing values are skipped.

    (sum-by :amount [{:amount 10} {:amount nil} {:other 5}]) ;=> 10
    (sum-by "amount" [{:amount 2} {"amount" 3}]) ;=> 5
    """
    kf, items = keyfn_and_items(k, coll, "sum-by")
    return _total((kf(x) for x in items), "sum-by")[0]


@builtin("avg-by", "(avg-by k coll)", category="aggregation")
def avg_by(k, coll):
    """The mean (a float) of (k item) over coll, skipping nil and missing values; nil when none remain.

    (avg-by :amount [{:amount 10} {:amount nil} {:amount 20}]) ;=> 15.0
    """
    kf, items = keyfn_and_items(k, coll, "avg-by")
    s, n = _total((kf(x) for x in items), "avg-by")
    return _mean(s, n, "avg-by")


def _extreme_by(who, sign, k, rest):
    kf = keyfn(k, who)
    if len(rest) == 1:
        items = seq_items(rest[0], who)
    else:
        items = rest
    best = _NO
    best_key = None
    for x in items:
        kx = kf(x)
        if kx is None:
            continue
        if best is _NO or compare(kx, best_key) * sign < 0:
            best, best_key = x, kx
    return None if best is _NO else best


@builtin("min-by", "(min-by k coll)", "(min-by k x y & more)", category="aggregation")
def min_by(k, coll, *more):
    """The item whose key (k item) is least in natural order; items whose key is nil are skipped, ties keep the
    first, and an empty collection gives nil.

    (min-by :price [{:price nil} {:price 10} {:price 5}]) ;=> {:price 5}
    (min-by first [["b" 2] ["a" 1]]) ;=> ["a" 1]
    """
    return _extreme_by("min-by", 1, k, (coll, *more))


@builtin("max-by", "(max-by k coll)", "(max-by k x y & more)", category="aggregation")
def max_by(k, coll, *more):
    """The item whose key (k item) is greatest in natural order; items whose key is nil are skipped, ties keep
    the first, and an empty collection gives nil.

    (max-by :price [{:price 3} {:price 10}]) ;=> {:price 10}
    """
    return _extreme_by("max-by", -1, k, (coll, *more))


def _num_key(v, who):
    t = type(v)
    if t is not int and t is not float:
        raise PtcError("type_error", f"{who}: key function must return numbers, got {type_name(v)}")
    return v


@builtin("max-key", "(max-key f x & more)", groups=("core",), category="aggregation")
def max_key(f, x, *more):
    """The argument whose (f x) is numerically greatest; on a tie the later argument wins. A single argument is
    returned without calling f.

    (max-key count "a" "abc" "ab") ;=> "abc"
    """
    return _pick_key("max-key", f, x, more, lambda a, b: a > b, lambda a, b: a >= b)


@builtin("min-key", "(min-key f x & more)", groups=("core",), category="aggregation")
def min_key(f, x, *more):
    """The argument whose (f x) is numerically least; on a tie the later argument wins. A single argument is
    returned without calling f.

    (min-key count "abc" "a" "ab") ;=> "a"
    """
    return _pick_key("min-key", f, x, more, lambda a, b: a < b, lambda a, b: a <= b)


def _pick_key(who, f, x, more, strict, loose):
    """Clojure's min-key/max-key: x vs y is strict (y wins unless x is better), then ties go to later items."""
    f = need_fn(f, who)
    if not more:
        return x
    y = more[0]
    kx, ky = _num_key(f(x), who), _num_key(f(y), who)
    best, bk = (x, kx) if strict(kx, ky) else (y, ky)
    for w in more[1:]:
        kw = _num_key(f(w), who)
        if loose(kw, bk):
            best, bk = w, kw
    return best


@builtin("group-by", "(group-by k coll)", groups=("core",), category="aggregation")
def group_by(k, coll):
    """A map from each key (k item) to the vector of items with that key, in input order. k is a keyword or
    string key, a vector path or a function.

    (group-by first [["a" 1] ["a" 2] ["b" 3]]) ;=> {"a" [["a" 1] ["a" 2]] "b" [["b" 3]]}
    (group-by :type [{:type :x} {:type :y} {:type :x}]) ;=> {:x [{:type :x} {:type :x}] :y [{:type :y}]}
    """
    kf, items = keyfn_and_items(k, coll, "group-by")
    keys = key_values(kf, items)
    groups = _grouped(items, keys, False)
    if not _python_equality_is_exact(groups, keys):
        groups = _grouped(items, keys, True)
    return Map({hkey: Vector(g) for hkey, g in groups.items()})


_CHUNK = 1 << 15   # items grouped or counted between two charges (what is built before it is paid for)


def _grouped(items: list, keys: list, by_hk: bool) -> dict:
    """{key: [items]} in first-seen order (keys by `hk` when `by_hk`), charged as it grows: in all
    map_cost(groups) + 8 per item + 56 per group, paid chunk by chunk, never after the whole is built."""
    groups = defaultdict(list)  # in first-seen order, like a dict
    charged = 0
    for i in range(0, len(items), _CHUNK):
        part = keys[i:i + _CHUNK]
        for x, key in zip(items[i:i + _CHUNK], map(hk, part) if by_hk else part):
            groups[key].append(x)
        n = len(groups)
        cost = map_cost(n) + 8 * min(len(items), i + _CHUNK) + 56 * n
        charge(cost - charged)
        charged = cost
    if not items:
        charge(map_cost(0))
    return groups


@builtin("frequencies", "(frequencies coll)", groups=("core",), category="aggregation")
def frequencies(coll):
    """A map from each distinct item to how many times it occurs (1 and 1.0 are different items).

    (frequencies [:a :b :a]) ;=> {:a 2 :b 1}
    (frequencies "hello") ;=> {"e" 1 "h" 1 "l" 2 "o" 1}
    """
    items = seq_items(coll, "frequencies")
    d = _counted(items, False)
    d = dict(d) if _python_equality_is_exact(d, items) else dict(_counted(items, True))
    return Map(d)


def _counted(items: list, by_hk: bool) -> Counter:
    """Counter of `items` (by `hk` when `by_hk`), charged map_cost(distinct) as it grows, chunk by chunk."""
    d: Counter = Counter()
    charged = 0
    for i in range(0, len(items), _CHUNK):
        part = items[i:i + _CHUNK]
        d.update(map(hk, part) if by_hk else part)
        cost = map_cost(len(d))
        charge(cost - charged)
        charged = cost
    if not items:
        charge(map_cost(0))
    return d


# ------------------------------------------------------------------ collection predicates (§1.15)

def _size(coll, who):
    t = type(coll)
    if t is Vector or t is Map or t is Set:
        return len(coll)
    if t is str:
        return len(coll)
    if coll is None:
        return 0
    raise PtcError("type_error", f"{who}: expected a collection, got {type_name(coll)}")


@builtin("empty?", "(empty? coll)", returns_bool=True, groups=("core",), category="collection predicates")
def empty_p(coll):
    """True when coll has no items: nil, "", [], {} or #{}.

    (empty? []) ;=> true
    (empty? nil) ;=> true
    (empty? "a") ;=> false
    """
    return _size(coll, "empty?") == 0


@builtin("not-empty", "(not-empty coll)", groups=("core",), category="collection predicates")
def not_empty(coll):
    """coll itself when it has items, otherwise nil.

    (not-empty [1 2]) ;=> [1 2]
    (not-empty []) ;=> nil
    """
    return coll if _size(coll, "not-empty") else None


@builtin("distinct?", "(distinct? x & more)", groups=("core",), category="collection predicates")
def distinct_p(x, *more):
    """True when no two arguments are the same value (compared as map keys are: 1 and 1.0 differ).

    (distinct? 1 2 3) ;=> true
    (distinct? 1 2 1) ;=> false
    """
    seen = set()
    for y in (x, *more):
        if type(y) is float and y != y:
            continue  # NaN is never the same value as anything
        h = hk(y)
        if h in seen:
            return False
        seen.add(h)
    return True

