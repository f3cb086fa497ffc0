"""Map builtins (docs/spec/functions.md §1.17): lookup, nested update, merging, views.

Lookup rules (docs/spec/language.md §3.5): `get`, `get-in`, `contains?` on maps,
`select-keys`, the intermediate steps of `assoc-in`/`update-in` and the
old-value read of `update-in` use flexible keyword/string lookup. `keys` and
`vals` give the stored keys. A key *written* (`assoc`, `assoc-in`, `update`,
`update-in`, `dissoc`, the keys `select-keys` keeps, `merge`/`merge-with`
combining by key) is the key the map already holds under one of the spellings
flexible lookup tries (`write_key`, through `Map.find_key`): an exact match
wins, and a key with no spelling in the map is written as given. So
`(update e :salary inc)` on JSON data with a "salary" key updates "salary".

Memory: results are charged for the entries they add, not for the entries
they share with their input (the accounting a persistent map would give),
so growing a map one `assoc` at a time stays linear in budget.
Imports values, errors, meter, lib.arguments, registry, lib.seqs_build.
"""
from __future__ import annotations


from ..errors import PtcError, brief_int
from ..runtime.meter import SLOT, _local as _meter_slot, current, map_cost, seq_cost
from sys import getrefcount as _getrefcount

from ..values import LIST, LIST_REFS, OWNED_REFS, Keyword, Map, Set, Vector, hk, sorted_items, type_name
from ..registry.builtins import builtin, in_place, provides
from .arguments import charge, entries, graphemes, need_fn, need_map, out_vec, seq_items
from .seqs_build import conj as _conj

_NO = object()        # "argument not given"
_ABSENT = object()    # "key not present"
ENTRY = 40            # charged bytes per map entry added


# ------------------------------------------------------------------ lookup steps

@provides("step_get")
def step_get(coll, k, missing=None):
    """One lookup step: flexible map key, vector/string index, set membership."""
    t = type(coll)
    if t is Map:
        tk = type(k)
        if tk is Keyword or tk is str:   # Map.lookup's first probes, without its call
            v = coll.get(k, _ABSENT)
            if v is not _ABSENT:
                return v
            if tk is Keyword:
                v = coll.get(k.name, _ABSENT)
                if v is not _ABSENT:
                    return v
        return coll.lookup(k, missing)
    if t is Vector:
        if type(k) is int:
            items = coll.lst()
            if 0 <= k < len(items):
                return items[k]
        return missing
    if t is str:
        if type(k) is int and k >= 0:
            gs = graphemes(coll)
            if k < len(gs):
                return gs[k]
        return missing
    if t is Set:
        return k if coll.contains(k) else missing
    return missing


def path_get(root, path: list, missing=None):
    """Follow `path` with `step_get`; `missing` as soon as a step is absent."""
    x = root
    for k in path:
        x = step_get(x, k, _ABSENT)
        if x is _ABSENT:
            return missing
    return x


def _path_items(ks, who: str) -> list:
    if ks is None:
        return []
    if type(ks) is Vector:
        return ks.lst()
    return seq_items(ks, who)


def contains_key(coll, k) -> bool:
    """`contains?` for maps: flexible key presence; a vector key is a path."""
    if type(k) is Vector:
        return path_get(coll, k.lst(), _ABSENT) is not _ABSENT
    return coll.lookup(k, _ABSENT) is not _ABSENT


# ------------------------------------------------------------------ writing steps

write_key = Map.write_key   # (m, k) -> the key a write of k into m acts on

def assoc1(coll, k, v, who: str):
    """Associate one key in a map, vector (index <= count) or nil (new map)."""
    t = type(coll)
    if t is Map:
        charge(ENTRY)
        return coll.assoc(write_key(coll, k), v)
    if coll is None:
        charge(map_cost(1))
        return Map({hk(k): v})
    if t is Vector:
        if type(k) is not int:
            raise PtcError("type_error", f"{who}: a vector index must be an integer, got {type_name(k)}")
        n = len(coll)
        if k == n:
            charge(8)
            return coll.conj(v)
        if k < 0 or k > n:
            raise PtcError("runtime_error", f"{who}: index {brief_int(k)} out of bounds for a vector of {n} items")
        items = list(coll.lst())
        items[k] = v
        return out_vec(items)
    raise PtcError("type_error", f"{who}: expected a map or vector, got {type_name(coll)}")


@builtin("get", "(get m k)", "(get m k default)", groups=("core",), category="maps")
def get_(m, k, default=None):
    """Looks up key k in a map (flexible keyword/string matching), an index in a vector or string, or a member
    of a set; gives default (or nil) when absent. A vector k is followed as a path.

    (get {:a 1} :a) ;=> 1
    (get {:a 1} :b "default") ;=> "default"
    (get {:a {:b 2}} [:a :b]) ;=> 2
    """
    tk = type(k)
    if type(m) is Map and (tk is Keyword or tk is str):   # step_get's first probes, without its call
        v = m.get(k, _ABSENT)
        if v is not _ABSENT:
            return v
        if tk is Keyword:
            v = m.get(k.name, _ABSENT)
            if v is not _ABSENT:
                return v
        return m.lookup(k, default)
    if tk is Vector and type(m) in (Map, Vector):
        return path_get(m, k.lst(), default)
    return step_get(m, k, default)


@builtin("get-in", "(get-in m ks)", "(get-in m ks default)", groups=("core",), category="maps")
def get_in(m, ks, default=None):
    """Follows the keys in ks through nested maps, vectors, strings and sets; gives default (or nil) when a step
    is missing. An empty path gives m itself.

    (get-in {:user {:name "A"}} [:user :name]) ;=> "A"
    (get-in [[1 2] [3 4]] [1 0]) ;=> 3
    (get-in {:a nil} [:a] :missing) ;=> nil
    """
    return path_get(m, ks.lst() if type(ks) is Vector else _path_items(ks, "get-in"), default)


@builtin("assoc", "(assoc m k v & kvs)", owned="assoc_owned", owned_arity=(3, 3), groups=("core",), category="maps")
def assoc(m, k, v, *kvs):
    """Returns m with each key set to its value. Maps keep the key spelling given; a vector index may replace an
    item or append at the end; nil starts a new map.

    (assoc {:a 1} :b 2) ;=> {:a 1 :b 2}
    (assoc [1 2 3] 1 5) ;=> [1 5 3]
    (assoc nil :a 1) ;=> {:a 1}
    """
    if not kvs and type(m) is Map:  # the common case, without the dispatch of assoc1
        current().alloc(ENTRY)
        return m.assoc(write_key(m, k), v)
    if len(kvs) % 2:
        raise PtcError("arity_error", "assoc: expects key/value pairs after the collection (got an odd count)")
    m = assoc1(m, k, v, "assoc")
    for i in range(0, len(kvs), 2):
        m = assoc1(m, kvs[i], kvs[i + 1], "assoc")
    return m


def _assoc_path(m, path: list, leaf_fn, who: str):
    """Rebuild `m` with the value at `path` replaced by `leaf_fn(old)`; missing levels become maps.

    Intermediate levels are read with flexible lookup; keys are written as given.
    An empty path means the single key nil.
    """
    if not path:
        path = [None]
    levels = [m]
    x = m
    for k in path[:-1]:
        x = step_get(x, k, None) if type(x) in (Map, Vector) else _descend_error(x, who)
        levels.append(x)
    last = levels[-1]
    if last is not None and type(last) not in (Map, Vector):
        _descend_error(last, who)
    old = step_get(last, path[-1], None)
    val = leaf_fn(old)
    for i in range(len(path) - 1, -1, -1):
        val = assoc1(levels[i], path[i], val, who)
    return val


def _descend_error(x, who):
    if x is None:
        return None
    raise PtcError("type_error", f"{who}: cannot step into a {type_name(x)}; expected a map or vector")


@builtin("assoc-in", "(assoc-in m ks v)", groups=("core",), category="maps")
def assoc_in(m, ks, v):
    """Sets the value at the nested key path ks, creating maps for levels that do not exist yet.

    (assoc-in {} [:user :name] "Bob") ;=> {:user {:name "Bob"}}
    (assoc-in [[1 2] [3 4]] [0 1] 99) ;=> [[1 99] [3 4]]
    """
    return _assoc_path(m, list(_path_items(ks, "assoc-in")), lambda _old: v, "assoc-in")


@builtin("update", "(update m k f & args)", owned="update_owned", owned_arity=(3, 8), groups=("core",),
         category="maps")
def update(m, k, f, *args):
    """Replaces the value under k with (f old & args); on a map that holds k under another spelling ("salary"
    for :salary) that key is the one updated. nil is treated as an empty map and a vector index equal to the
    count appends.

    (update {:n 1} :n inc) ;=> {:n 2}
    (update {:n 1} :n + 5) ;=> {:n 6}
    (update {:n nil} :n (fnil inc 0)) ;=> {:n 1}
    """
    f = need_fn(f, "update")
    t = type(m)
    if t is Map:
        k = write_key(m, k)
        old = m.get_exact(k)
    elif m is None:
        old = None
    elif t is Vector:
        if type(k) is not int:
            raise PtcError("type_error", f"update: a vector index must be an integer, got {type_name(k)}")
        old = step_get(m, k, None)
    else:
        raise PtcError("type_error", f"update: expected a map or vector, got {type_name(m)}")
    return assoc1(m, k, f(old, *args), "update")


@builtin("update-in", "(update-in m ks f & args)", groups=("core",), category="maps")
def update_in(m, ks, f, *args):
    """Nested update: applies (f old & args) to the value at the key path ks, creating missing levels.

    (update-in {:a {:b 1}} [:a :b] + 10) ;=> {:a {:b 11}}
    (update-in [1 2 3] [1] inc) ;=> [1 3 3]
    """
    f = need_fn(f, "update-in")
    return _assoc_path(m, list(_path_items(ks, "update-in")), lambda old: f(old, *args), "update-in")


@builtin("dissoc", "(dissoc m & ks)", owned="dissoc_owned", owned_arity=(2, 2), groups=("core",), category="maps")
def dissoc(m, *ks):
    """Returns the map without the given keys (a key the map holds under another spelling, "address" for
    :address, is removed too; an exact match wins). nil stays nil.

    (dissoc {:a 1 :b 2 :c 3} :a :b) ;=> {:c 3}
    """
    if m is None:
        return None
    m = need_map(m, "dissoc")
    for k in ks:
        m = m.dissoc(write_key(m, k))
    return m


# ------------------------------------------------------------------ in-place growth

# The compiler calls these instead of assoc/dissoc/conj when the map argument is
# the last read of a local variable (analyzer/lastuse.py). If the reference count
# then shows no other holder, the map is extended in place: nobody can observe
# the change, and growing a map one entry at a time in a loop stays linear.
# Each must be called directly from compiled code: the count assumes exactly the
# caller's dead local besides this frame's own reference. For assoc and conj the compiler
# writes the common case (one store, one append) out in the generated code itself, under the
# same tests and charge (compiler/inline.py, `_inline_owned`), and calls these for the rest.

@in_place("assoc_owned", grows="map", charge=ENTRY)
def assoc_owned(m, k, v):
    if type(m) is Map and _getrefcount(m) == OWNED_REFS:
        meter = _meter_slot.meter   # charge(ENTRY), its usual case written out: this runs per iteration
        if meter is None or (a := meter.allocated + ENTRY) > meter.budget or meter.expired:
            charge(ENTRY)
        else:
            meter.allocated = a
        t = type(k)
        m[write_key(m, k) if t is Keyword or t is str else (hk(k) if t is float or t is bool else k)] = v
        return m
    return assoc(m, k, v)


@in_place("dissoc_owned")
def dissoc_owned(m, k):
    if type(m) is Map and _getrefcount(m) == OWNED_REFS:
        m.pop(hk(write_key(m, k)), None)
        return m
    return dissoc(m, k)


@in_place("conj_owned", grows="vector", charge=SLOT)
def conj_owned(m, x):
    """(conj m x) at the last read of a local. A vector that nothing else holds (no other reference,
    no stale version reading through it) and whose item list nothing else holds (no loop walking
    it) gets x appended to that list and is returned itself, as a map is extended in place; any
    other vector goes to `Vector.conj`, as conj sends it."""
    t = type(m)
    if t is Vector:
        meter = _meter_slot.meter   # charge(SLOT), as in assoc_owned
        if meter is None or (a := meter.allocated + SLOT) > meter.budget or meter.expired:
            charge(SLOT)
        else:
            meter.allocated = a
        if _getrefcount(m) == OWNED_REFS and m._owner is not LIST:
            it = m._items
            if it is not None and _getrefcount(it) == LIST_REFS:
                it.append(x)
                return m
        return m.conj(x)
    if t is Map and type(x) is Vector and len(x) == 2 and _getrefcount(m) == OWNED_REFS:
        charge(ENTRY)
        k, v = x.lst()
        m[hk(k)] = v
        return m
    return _conj(m, x)


@in_place("update_owned")
def update_owned(m, k, f, *args):
    if type(m) is Map and _getrefcount(m) == OWNED_REFS:
        t = type(k)
        key = write_key(m, k) if t is not float and t is not bool else hk(k)
        new = need_fn(f, "update")(m.get(key), *args)
        meter = _meter_slot.meter   # charge(ENTRY) written out, as in assoc_owned
        if meter is None or (a := meter.allocated + ENTRY) > meter.budget or meter.expired:
            charge(ENTRY)
        else:
            meter.allocated = a
        m[key] = new
        return m
    return update(m, k, f, *args)


# ------------------------------------------------------------------ merging

def _conj_into_map(out: Map, x, who: str):
    """Store the entries of x (a map or a [k v] pair) into `out`, a map this builtin owns."""
    t = type(x)
    if t is Map:
        charge(ENTRY * len(x))
        if not out:
            out.update(x)
            return
        for k, v in dict.items(x):   # (stored keys: keywords and strings are their own)
            out[k if k in out else write_key(out, k)] = v
        return
    if t is Vector and len(x) == 2:
        k, v = x.lst()
        charge(ENTRY)
        out[hk(write_key(out, k))] = v
        return
    raise PtcError("type_error", f"{who}: cannot merge a {type_name(x)} into a map")


@builtin("merge", "(merge & maps)", groups=("core",), category="maps")
def merge(*maps):
    """Combines maps left to right; on a shared key the later value wins. nil arguments are skipped; with no map
    at all the result is nil.

    (merge {:a 1} {:b 2} {:a 3}) ;=> {:a 3 :b 2}
    (merge {:a 1} nil) ;=> {:a 1}
    """
    acc = _NO
    owned = False   # acc is a copy this call made (and may fill in place)
    for x in maps:
        if x is None or x is False:
            continue
        if acc is _NO:
            if type(x) not in (Map, Vector):
                raise PtcError("type_error", f"merge: expected maps, got {type_name(x)}")
            acc = x
        elif type(acc) is Vector:
            charge(8)
            acc = acc.conj(x)
        else:
            if not owned:
                acc = Map(acc)
                owned = True
            _conj_into_map(acc, x, "merge")
    return None if acc is _NO else acc


@builtin("merge-with", "(merge-with f & maps)", groups=("core",), category="maps")
def merge_with(f, *maps):
    """Like merge, but when a key is already present the two values are combined with (f old new).

    (merge-with + {:a 1 :b 2} {:a 3 :c 4}) ;=> {:a 4 :b 2 :c 4}
    (merge-with + {:a 1} {:a 2} {:a 3}) ;=> {:a 6}
    """
    f = need_fn(f, "merge-with")
    acc = _NO
    for x in maps:
        if x is None or x is False:
            continue
        if type(x) is not Map:
            raise PtcError("type_error", f"merge-with: expected maps, got {type_name(x)}")
        if acc is _NO:
            acc = x
            continue
        charge(ENTRY * len(x))
        acc = Map(acc)
        for k, v in sorted_items(x):
            key = hk(write_key(acc, k))
            old = acc.get(key, _ABSENT)
            acc[key] = v if old is _ABSENT else f(old, v)
    return None if acc is _NO else acc


# ------------------------------------------------------------------ selection and views

@builtin("select-keys", "(select-keys m keyseq)", groups=("core",), category="maps")
def select_keys(m, keyseq):
    """A map of just the keys in keyseq that m has (flexible matching; the result keeps the spelling m has). On
    a vector the keys are indexes.

    (select-keys {:a 1 :b 2 :c 3} [:a :c]) ;=> {:a 1 :c 3}
    (select-keys {:a 1 :b 2} ["a"]) ;=> {:a 1}
    """
    ks = seq_items(keyseq, "select-keys")
    t = type(m)
    if m is not None and t is not Map and t is not Vector:
        raise PtcError("type_error", f"select-keys: expected a map, got {type_name(m)}")
    charge(map_cost(min(len(ks), len(m) if m is not None else 0)))
    d = {}
    if m is not None:
        for k in ks:
            v = step_get(m, k, _ABSENT)
            if v is not _ABSENT:
                d[hk(write_key(m, k) if t is Map else k)] = v
    return Map(d)


@builtin("keys", "(keys m)", groups=("core",), category="maps")
def keys_(m):
    """The keys of a map as a vector, in key order. nil and an empty map give nil (as Clojure's empty seq), so
    (if (keys m) ...) tests for an empty map.

    (keys {:b 2 :a 1}) ;=> [:a :b]
    (keys {}) ;=> nil
    """
    if m is None or not need_map(m, "keys"):
        return None
    return out_vec([k for k, _ in sorted_items(m)])


@builtin("vals", "(vals m)", groups=("core",), category="maps")
def vals_(m):
    """The values of a map as a vector, ordered by their keys. nil and an empty map give nil.

    (vals {:b 2 :a 1}) ;=> [1 2]
    (vals {}) ;=> nil
    """
    if m is None or not need_map(m, "vals"):
        return None
    return out_vec([v for _, v in sorted_items(m)])


@builtin("entries", "(entries m)", category="maps")
def entries_(m):
    """The [key value] pairs of a map as a vector, in key order.

    (entries {:b 2 :a 1}) ;=> [[:a 1] [:b 2]]
    """
    if m is None:
        return out_vec([])
    m = need_map(m, "entries")
    charge(seq_cost(2) * len(m))
    return out_vec(entries(m))


def _pair(e, who: str) -> list:
    if type(e) is not Vector or len(e) != 2:
        raise PtcError("type_error", f"{who}: expected a [key value] pair, got {type_name(e)}")
    return e.lst()


@builtin("key", "(key e)", groups=("core",), category="maps")
def key_(e):
    """The key (first item) of a [key value] entry.

    (key [:a 1]) ;=> :a
    """
    return _pair(e, "key")[0]


@builtin("val", "(val e)", groups=("core",), category="maps")
def val_(e):
    """The value (second item) of a [key value] entry.

    (val [:a 1]) ;=> 1
    """
    return _pair(e, "val")[1]


def _kv_pairs(m, who: str):
    """The (key, value) pairs of a map in key order, or (index, item) of a vector; a type_error
    "expected a map" for anything else."""
    if type(m) is Vector:
        return enumerate(m.lst())
    return sorted_items(need_map(m, who))


@builtin("update-vals", "(update-vals m f)", groups=("core",), category="maps")
def update_vals(m, f):
    """A map with the same keys whose values are (f v). On a vector, f is applied to every item; nil gives {}.

    (update-vals {:a 1 :b 2} inc) ;=> {:a 2 :b 3}
    """
    f = need_fn(f, "update-vals")
    if m is None:
        return Map({})
    if type(m) is Vector:
        return out_vec([f(x) for x in m.lst()])
    m = need_map(m, "update-vals")
    charge(map_cost(len(m)))
    return Map({hk(k): f(v) for k, v in sorted_items(m)})


@builtin("update-keys", "(update-keys m f)", groups=("core",), category="maps")
def update_keys(m, f):
    """A map whose keys are (f k) with the values kept; if two new keys coincide one value survives. On a vector
    the keys are the indexes; nil gives {}.

    (update-keys {:a 1 :b 2} str) ;=> {":a" 1 ":b" 2}
    """
    f = need_fn(f, "update-keys")
    if m is None:
        return Map({})
    pairs = _kv_pairs(m, "update-keys")
    charge(map_cost(len(m)))
    return Map({hk(f(k)): v for k, v in pairs})


@builtin("reduce-kv", "(reduce-kv f init m)", groups=("core",), category="aggregation")
def reduce_kv(f, init, m):
    """Folds over a map calling (f acc k v) for each entry in key order, starting from init. Vectors fold over
    (index, item); nil gives init.

    (reduce-kv (fn [acc k v] (+ acc v)) 0 {:a 1 :b 2 :c 3}) ;=> 6
    """
    f = need_fn(f, "reduce-kv")
    if m is None:
        return init
    acc = init
    for k, v in _kv_pairs(m, "reduce-kv"):
        acc = f(acc, k, v)
    return acc

