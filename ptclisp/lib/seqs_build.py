"""Sequence builtins: combining and constructing, `combinations` and
`tree-seq`, and `range` (docs/spec/functions.md §1.11, §1.12, §1.16; `walk`, `prewalk`
and `postwalk` live in walk.py).

Adding to an existing vector or set (`conj`, `into`) goes through the
value-stealing `Vector.conj_all` / `Set.conj`, so the agent idiom of growing
a collection inside `reduce` stays linear (maps: see colls_maps.assoc_owned);
the meter is charged only for the slots added. Builders whose output size depends on
their arguments (`range`, `combinations`) charge before building.
Imports values, errors, meter and the lib helpers (common, seqs_common, registry).
"""
from __future__ import annotations

import itertools
import math

from ..errors import PtcError
from ..runtime.meter import SLOT, current, map_cost, seq_cost
from ..values import SORTED, Map, Set, Vector, hk, is_list, make_list, type_name
from .lazy import endless_range
from .arguments import need_count, need_fn, need_vector, out_vec, positional_items, seq_items
from ..registry.builtins import builtin, provides
from .seqs_common import NO, charge_slots, charge_vecs

_ENTRY_COST = 40


# ------------------------------------------------------------------ map entries

def _entry_error(who: str, e) -> PtcError:
    return PtcError("type_error", f"{who}: a map takes [key value] entries, got {type_name(e)}"
                    + (f" of {len(e)} items" if type(e) is Vector else ""))


def _put_entries(d: dict, xs, who: str):
    """Store [k v] vectors (and whole maps; nil is skipped) into a backing dict."""
    for e in xs:
        t = type(e)
        if t is Vector:
            kv = e.lst()
            if len(kv) != 2:
                raise _entry_error(who, e)
            d[hk(kv[0])] = kv[1]
        elif t is Map:
            d.update(e.d())
        elif e is not None:
            raise _entry_error(who, e)


def _add_entries(m: Map, xs: list, who: str) -> Map:
    """A new map: `m` with the entries `xs` added (one copy, then stores)."""
    current().alloc(_ENTRY_COST * len(xs))
    out = Map(m)
    _put_entries(out, xs, who)
    return out


def _add_members(s: Set, xs: list) -> Set:
    charge_slots(len(xs))
    if len(xs) > 8 and len(xs) >= len(s):
        d = dict(s.d())
        for x in xs:
            d[hk(x)] = x
        return Set(d, SORTED if s._owner is SORTED else None)
    for x in xs:
        s = s.conj(x)
    return s


# ------------------------------------------------------------------ combining (§1.11)

@builtin("cons", "(cons x coll)", groups=("core",), category="sequences")
def cons(x, coll):
    """A vector with x in front of the items of coll (a map gives its entries, a string its characters).

    (cons 0 [1 2]) ;=> [0 1 2]
    (cons 1 nil) ;=> [1]
    """
    items = seq_items(coll, "cons")
    return out_vec([x, *items])


@builtin("conj", "(conj)", "(conj coll)", "(conj coll x & xs)", groups=("core",), category="sequences",
         owned="conj_owned", owned_arity=(2, 2))
def conj(*args):
    """Adds items to a collection: appended to a vector, added to a set, or, for a map, [k v] entries (or whole
    maps) merged in. nil starts a new vector. (conj) is [].

    (conj [1] 2 3) ;=> [1 2 3]
    (conj {:a 1} [:b 2]) ;=> {:a 1 :b 2}
    (conj nil :x) ;=> [:x]
    """
    if not args:
        return Vector([])
    coll = args[0]
    xs = args[1:]
    if not xs:
        return coll
    t = type(coll)
    if t is Vector:
        current().alloc(SLOT * len(xs))
        return coll.conj(xs[0]) if len(xs) == 1 else coll.conj_all(xs)
    if coll is None:
        return out_vec(list(xs))
    if t is Set:
        return _add_members(coll, list(xs))
    if t is Map:
        if len(xs) == 1 and type(xs[0]) is Vector and len(xs[0]) == 2:
            current().alloc(_ENTRY_COST)
            k, v = xs[0].lst()
            return coll.assoc(k, v)
        return _add_entries(coll, list(xs), "conj")
    raise PtcError("type_error", f"conj: expected a vector, map, set or nil, got {type_name(coll)}")


@builtin("concat", "(concat & colls)", groups=("core",), category="sequences")
def concat(*colls):
    """One vector with the items of every collection in turn; nil adds nothing, a string adds its characters.

    (concat [1] [2 3] nil) ;=> [1 2 3]
    """
    out: list = []
    for c in colls:
        out.extend(seq_items(c, "concat"))
    return out_vec(out)


@builtin("into", "(into)", "(into to)", "(into to from)", groups=("core",), category="sequences")
def into(to=NO, frm=NO):
    """Pours the items of from into to: appended to a vector, added to a set, or merged into a map (from must
    then hold [k v] entries or be a map). A map poured into a vector gives its [k v] entries. nil as to gives a
    vector.

    (into [] #{1}) ;=> [1]
    (into {} [[:a 1]]) ;=> {:a 1}
    (into [0] {:a 1}) ;=> [0 [:a 1]]
    """
    if to is NO:
        return Vector([])
    if frm is NO:
        return to
    t = type(to)
    if t is Map:
        if type(frm) is Map:
            src = frm.d()
            current().alloc(_ENTRY_COST * len(src))
            out = Map(to)
            out.update(src)
            return out
        return _add_entries(to, seq_items(frm, "into"), "into")
    items = seq_items(frm, "into")
    if t is Vector:
        charge_slots(len(items))
        return to.conj_all(items)
    if to is None:
        return out_vec(list(items))
    if t is Set:
        return _add_members(to, items)
    raise PtcError("type_error", f"into: expected a vector, map, set or nil to pour into, got {type_name(to)}")


@builtin("flatten", "(flatten x)", groups=("core",), category="sequences")
def flatten(x):
    """All non-vector values inside nested vectors, depth first, as one flat vector. Maps, sets and strings are
    kept whole; anything that is not a vector gives [].

    (flatten [1 [2 [3]] {:a 4}]) ;=> [1 2 3 {:a 4}]
    """
    if type(x) is not Vector:
        return out_vec([])
    out = []
    app = out.append
    items = x.lst()
    charge_slots(len(items))   # each vector entered is charged as it is entered (output at most its slots):
    stack = [iter(items)]      # a vector shared a million times inside x is paid for a million times
    while stack:
        for y in stack[-1]:
            if type(y) is Vector:
                items = y.lst()
                charge_slots(len(items))
                stack.append(iter(items))
                break
            app(y)
        else:
            stack.pop()
    return out_vec(out)


@builtin("interleave", "(interleave & colls)", groups=("core",), category="sequences")
def interleave(*colls):
    """The first item of each collection, then the second of each, and so on, stopping when the shortest runs
    out.

    (interleave [1 2] [:a :b]) ;=> [1 :a 2 :b]
    """
    lists = [positional_items(c, "interleave") for c in colls]
    if not lists:
        return out_vec([])
    n = min(len(xs) for xs in lists)
    return out_vec([xs[i] for i in range(n) for xs in lists])


@builtin("interpose", "(interpose sep coll)", groups=("core",), category="sequences")
def interpose(sep, coll):
    """The items of coll with sep placed between each pair of neighbours.

    (interpose 0 [1 2 3]) ;=> [1 0 2 0 3]
    """
    items = positional_items(coll, "interpose")
    out = []
    for i, x in enumerate(items):
        if i:
            out.append(sep)
        out.append(x)
    return out_vec(out)


@builtin("zip", "(zip v1 v2)", category="sequences")
def zip_(a, b):
    """Pairs up two vectors position by position into [a b] vectors, stopping at the shorter one.

    (zip [1 2 3] [:a :b]) ;=> [[1 :a] [2 :b]]
    """
    for v in (a, b):
        if type(v) is not Vector and v is not None:
            raise PtcError("type_error", f"zip: expected vectors, got {type_name(v)}")
    xs = a.lst() if a is not None else []
    ys = b.lst() if b is not None else []
    n = min(len(xs), len(ys))
    charge_vecs(n, 2)
    return Vector([Vector([x, y]) for x, y in zip(xs, ys)])


@builtin("zipmap", "(zipmap keys vals)", groups=("core",), category="sequences")
def zipmap(ks, vs):
    """A map pairing each key with the value at the same position; extra keys or values are ignored and a
    repeated key keeps its last value.

    (zipmap [:a :b] [1 2]) ;=> {:a 1 :b 2}
    """
    keys = seq_items(ks, "zipmap")
    vals = seq_items(vs, "zipmap")
    current().alloc(map_cost(min(len(keys), len(vals))))
    return Map({hk(k): v for k, v in zip(keys, vals)})


@builtin("empty", "(empty coll)", groups=("core",), category="sequences")
def empty(coll):
    """An empty collection of the same kind: [] for a vector, {} for a map, #{} for a set; nil for anything
    else.

    (empty [1 2]) ;=> []
    (empty {:a 1}) ;=> {}
    """
    t = type(coll)
    if t is Vector:
        return Vector([])
    if t is Map:
        return Map({})
    if t is Set:
        return Set({})
    return None


@builtin("peek", "(peek v)", groups=("core",), category="sequences")
def peek(v):
    """The last item of a vector, the first of a list; nil for an empty one or nil.

    (peek [1 2 3]) ;=> 3
    (peek '(1 2 3)) ;=> 1
    """
    if v is None:
        return None
    items = need_vector(v, "peek").lst()
    if not items:
        return None
    return items[0] if is_list(v) else items[-1]


@builtin("pop", "(pop v)", groups=("core",), category="sequences")
def pop(v):
    """The vector without its last item, the list without its first; nil for an empty one or nil.

    (pop [1 2 3]) ;=> [1 2]
    (pop '(1 2 3)) ;=> (2 3)
    (pop []) ;=> nil
    """
    if v is None:
        return None
    items = need_vector(v, "pop").lst()
    if not items:
        return None
    if is_list(v):
        charge_slots(len(items) - 1)
        return make_list(items[1:])
    return out_vec(items[:-1])


@builtin("subvec", "(subvec v start)", "(subvec v start end)", groups=("core",), category="sequences")
def subvec(v, start, end=NO):
    """The items of vector v from index start up to (not including) end, default the end. Indexes are clamped to
    the vector, so this never fails on range.

    (subvec [0 1 2 3] 1 3) ;=> [1 2]
    (subvec [0 1] 1 9) ;=> [1]
    """
    items = need_vector(v, "subvec").lst()
    n = len(items)
    s = min(max(need_count(start, "subvec"), 0), n)
    e = n if end is NO else min(max(need_count(end, "subvec"), s), n)
    return out_vec(items[s:e])


@builtin("list", "(list & items)", groups=("core",), category="sequences")
def list_(*xs):
    """A list of the arguments: like a vector, but conj and into add at the front, peek and pop work at the
    front, and it prints as (a b).

    (list 1 2) ;=> (1 2)
    (conj (list 1 2) 0) ;=> (0 1 2)
    """
    charge_slots(len(xs))
    return make_list(list(xs))


def _map_of(who: str):
    def build(*kvs):
        if len(kvs) % 2:
            raise PtcError("arity_error", f"{who}: expects key/value pairs, got an odd number of arguments ({len(kvs)})")
        current().alloc(map_cost(len(kvs) // 2))
        return Map({hk(kvs[i]): kvs[i + 1] for i in range(0, len(kvs), 2)})
    build.__name__ = who.replace("-", "_")
    return build


builtin("hash-map", "(hash-map & keyvals)", groups=("core",), category="sequences",
        doc="A map of the key/value arguments; a repeated key keeps its last value.",
        examples=("(hash-map :a 1 :b 2) ;=> {:a 1 :b 2}",),
        )(_map_of("hash-map"))
builtin("sorted-map", "(sorted-map & keyvals)", groups=("core",), category="sequences",
        doc="Same as hash-map: every map already walks (seq, keys, vals, first) and prints in key order.",
        examples=("(first (sorted-map :b 2 :a 1)) ;=> [:a 1]",),
        )(_map_of("sorted-map"))
builtin("array-map", "(array-map & keyvals)", groups=("core",), category="sequences",
        doc="Same as hash-map.",
        examples=("(array-map :a 1) ;=> {:a 1}",),
        )(_map_of("array-map"))


# ------------------------------------------------------------------ combinations and tree-seq (§1.12)

@builtin("combinations", "(combinations coll n)", category="sequences")
def combinations(coll, n):
    """Every way of choosing n items from coll, each choice a vector keeping the input order. n = 0 gives [[]];
    n larger than the collection gives [].

    (combinations [1 2 3] 2) ;=> [[1 2] [1 3] [2 3]]
    """
    k = need_count(n, "combinations")
    items = seq_items(coll, "combinations")
    if k < 0 or k > len(items):
        return out_vec([])
    charge_vecs(math.comb(len(items), k), k)
    return Vector([Vector(list(c)) for c in itertools.combinations(items, k)])


@builtin("tree-seq", "(tree-seq branch? children root)", groups=("core",), category="sequences")
def tree_seq(branch, children, root):
    """Every node of a tree in depth-first pre-order: a node is listed, and when (branch? node) is truthy the
    nodes of (children node) follow it. branch? and children may be keywords.

    (map :id (tree-seq :kids :kids {:id 1 :kids [{:id 2}]})) ;=> [1 2]
    """
    br = need_fn(branch, "tree-seq")
    ch = need_fn(children, "tree-seq")
    meter = current()
    out = []
    charged = 0
    stack = [iter((root,))]
    while stack:
        for node in stack[-1]:
            out.append(node)
            if len(out) - charged >= 1024:
                meter.alloc(SLOT * 1024)
                charged += 1024
            r = br(node)
            if r is None or r is False:
                continue
            kids = seq_items(ch(node), "tree-seq")
            # a one-character string whose children are itself is a leaf, as a
            # character is in Clojure (GAP-S77): otherwise this never ends
            if type(node) is str and len(kids) == 1 and kids[0] == node:
                continue
            if kids:
                stack.append(iter(kids))
                break
        else:
            stack.pop()
    meter.alloc(seq_cost(len(out)) - SLOT * charged)
    return Vector(out)


# ------------------------------------------------------------------ range (§1.16)

def _range_num(x, what: str):
    t = type(x)
    if t is not int and t is not float:
        raise PtcError("type_error", f"range: {what} must be a number, got {type_name(x)}")
    return x


def range_count(start, end, step) -> float:
    """How many items (range start end step) holds (inf when unbounded); step != 0."""
    if type(start) is int and type(end) is int and type(step) is int:
        if step > 0:
            return max(0, (end - start + step - 1) // step)
        return max(0, (start - end - step - 1) // -step)
    if start != start or end != end or step != step:
        return 0
    if (step > 0 and start >= end) or (step < 0 and start <= end):
        return 0
    try:
        n = math.ceil((end - start) / step)
    except (OverflowError, ValueError):
        return math.inf
    return n


@builtin("range", "(range)", "(range end)", "(range start end)", "(range start end step)", groups=("core",),
         category="sequences")
def range_(a=NO, b=NO, c=NO):
    """A vector of numbers from start (default 0) up to but not including end, counting by step (default 1; may
    be negative or fractional). (range) with no end is the endless 0, 1, 2, ... for take and friends; step 0 is
    only allowed in the shape (take n (range a b 0)).

    (range 4) ;=> [0 1 2 3]
    (range 10 0 -3) ;=> [10 7 4 1]
    (range 0 1 0.25) ;=> [0 0.25 0.5 0.75]
    (take 3 (range)) ;=> [0 1 2]
    """
    if a is NO:
        return endless_range()
    if b is NO:
        start, end, step = 0, _range_num(a, "end"), 1
    else:
        start, end = _range_num(a, "start"), _range_num(b, "end")
        step = 1 if c is NO else _range_num(c, "step")
    if step == 0:
        if start == end:
            return out_vec([])
        raise PtcError("type_error", "range: a step of 0 never reaches the end; only (take n (range a b 0)) may use it")
    n = range_count(start, end, step)
    meter = current()
    if n == math.inf or n > (1 << 56):
        meter.alloc(1 << 62)
    meter.alloc(seq_cost(n))
    if type(start) is int and type(end) is int and type(step) is int:
        return Vector(list(range(start, end, step)))
    out = []
    x = start
    limit = n + 2
    if step > 0:
        while x < end and len(out) < limit:
            out.append(x)
            nx = x + step
            if nx == x:
                raise PtcError("type_error", "range: the step is too small to advance past the start")
            x = nx
    else:
        while x > end and len(out) < limit:
            out.append(x)
            nx = x + step
            if nx == x:
                raise PtcError("type_error", "range: the step is too small to advance past the start")
            x = nx
    return Vector(out)


@provides("take_zero_step_range")
def take_zero_step_range(n, start, end):
    """(take n (range start end 0)): n copies of start (none when start = end).

    Not a builtin: the analyzer may route that exact call shape here, since a
    zero step alone never terminates (docs/spec/functions.md §1.16, GAP-S45).
    """
    k = need_count(n, "take")
    _range_num(start, "start")
    _range_num(end, "end")
    if k <= 0 or start == end:
        return out_vec([])
    current().alloc(seq_cost(k))
    return Vector([start] * k)
