"""Sequence builtins: filtering, transforming and ordering (docs/spec/functions.md §1.7-1.9).

Every builtin takes "seqables" (vector, string as graphemes, map as key-sorted
`[k v]` entries, set, nil) and returns a fresh vector; nothing is lazy.
Subsetting lives in seqs_subset.py; constructing, tree walking and `range` in
seqs_build.py.
Imports values, errors and the lib helpers (common, seqs_common, registry).
"""
from __future__ import annotations

from ..errors import PtcError
from ..values import Keyword, Map, Set, Vector, equal, hk, type_name, unhk
from .arguments import (fn_and_items, graphemes, key_getter, key_values, keyfn_and_items, kw_values, need_fn,
                     out_vec, path_lookup, positional_items, seq_items)
from ..registry.builtins import builtin, hot, provides
from .seqs_common import NO, leading_run, sort_by_keys, sort_values
from .lazy import Endless, take_while_endless

_ABSENT = object()


# ------------------------------------------------------------------ filtering (§1.7)

def _selector(who: str, keep: bool):
    def select(pred, coll):
        f, items = fn_and_items(pred, coll, who)
        out = []
        app = out.append
        if keep:
            for x in items:
                r = f(x)
                if r is not None and r is not False:
                    app(x)
        else:
            for x in items:
                r = f(x)
                if r is None or r is False:
                    app(x)
        return out_vec(out)
    select.__name__ = who.replace("-", "_")
    return select


builtin("filter", "(filter pred coll)", inline_hof=True, groups=("core",), category="sequences",
        doc="A vector of the items of coll for which (pred item) is truthy, in order. "
            "pred may be a function, a keyword (field lookup) or a set (membership); "
            "a map is walked as [k v] entries and a string as characters.",
        examples=("(filter even? [1 2 3 4]) ;=> [2 4]", "(filter :ok [{:ok true} {:ok false}]) ;=> [{:ok true}]"),
        )(_selector("filter", True))
builtin("filterv", "(filterv pred coll)", inline_hof=True, groups=("core",), category="sequences",
        doc="Same as filter: keeps the items for which (pred item) is truthy, as a vector.",
        examples=("(filterv odd? [1 2 3]) ;=> [1 3]",),
        )(_selector("filterv", True))
builtin("remove", "(remove pred coll)", inline_hof=True, groups=("core",), category="sequences",
        doc="The complement of filter: a vector of the items for which (pred item) is nil or false.",
        examples=("(remove nil? [1 nil 2]) ;=> [1 2]",),
        )(_selector("remove", False))


@builtin("keep", "(keep f coll)", groups=("core",), category="sequences")
def keep(f, coll):
    """Calls f on every item and collects the results that are not nil (false is kept). f may be a keyword to
    pluck a field where present.

    (keep :email [{:email "a@x"} {}]) ;=> ["a@x"]
    """
    f, items = fn_and_items(f, coll, "keep")
    out = []
    app = out.append
    for x in items:
        r = f(x)
        if r is not None:
            app(r)
    return out_vec(out)


@builtin("keep-indexed", "(keep-indexed f coll)", groups=("core",), category="sequences")
def keep_indexed(f, coll):
    """Calls (f index item) for every item and collects the non-nil results.

    (keep-indexed (fn [i x] (when (even? i) x)) [:a :b :c]) ;=> [:a :c]
    """
    f, items = fn_and_items(f, coll, "keep-indexed", 2)
    out = []
    for i, x in enumerate(items):
        r = f(i, x)
        if r is not None:
            out.append(r)
    return out_vec(out)


@builtin("dedupe", "(dedupe coll)", groups=("core",), category="sequences")
def dedupe(coll):
    """Drops each item that is = to the one right before it, so runs of repeats collapse to one.

    (dedupe [1 1 2 1]) ;=> [1 2 1]
    """
    out = []
    prev = _ABSENT
    for x in seq_items(coll, "dedupe"):
        if prev is _ABSENT or not equal(x, prev):
            out.append(x)
        prev = x
    return out_vec(out)


@builtin("find", "(find coll key)", groups=("core",), category="sequences")
def find(coll, key):
    """The entry for key as a [key value] vector, or nil when absent. On a map the key is matched flexibly
    (keyword/string) and a vector key is a path; on a vector key is an index. A present nil value still gives an
    entry. This is a key lookup, not a search.

    (find {:a 1} :a) ;=> [:a 1]
    (find [10 20] 1) ;=> [1 20]
    """
    if coll is None:
        return None
    t = type(coll)
    if t is Map:
        if type(key) is Vector:
            v = path_lookup(coll, key.lst(), _ABSENT)
            return None if v is _ABSENT else Vector([key, v])
        d = coll.d()
        sk = coll.find_key(key)
        v = d.get(sk, _ABSENT)
        return None if v is _ABSENT else Vector([unhk(sk), v])
    if t is Vector:
        items = coll.lst()
        if type(key) is int and 0 <= key < len(items):
            return Vector([key, items[key]])
        return None
    raise PtcError("type_error", f"find: expected a map or vector, got {type_name(coll)} "
                   "(find looks up a key; use some or filter to search)")


@builtin("some", "(some pred coll)", groups=("core",), category="sequences")
def some(pred, coll):
    """The first truthy value of (pred item) over coll (the result, not the item), or nil. With a keyword it
    returns the first truthy field; with a set, the first member found.

    (some #{3} [1 3 5]) ;=> 3
    (some even? [1 3]) ;=> nil
    """
    return _first_truthy(pred, coll, "some")


@builtin("every?", "(every? pred coll)", returns_bool=True, groups=("core",), category="sequences")
def every_p(pred, coll):
    """true when (pred item) is truthy for every item (and for an empty coll), else false.

    (every? pos? [1 2]) ;=> true
    (every? pos? []) ;=> true
    """
    return not _some_falsy(pred, coll, "every?")


@builtin("not-any?", "(not-any? pred coll)", returns_bool=True, groups=("core",), category="sequences")
def not_any_p(pred, coll):
    """true when (pred item) is truthy for no item (true for an empty coll).

    (not-any? neg? [1 2]) ;=> true
    """
    return _first_truthy(pred, coll, "not-any?") is None


@builtin("not-every?", "(not-every? pred coll)", returns_bool=True, groups=("core",), category="sequences")
def not_every_p(pred, coll):
    """true when (pred item) is falsy for at least one item (false for an empty coll).

    (not-every? even? [2 3]) ;=> true
    """
    return _some_falsy(pred, coll, "not-every?")


def _first_truthy(pred, coll, who: str):
    """The first truthy (pred item) over coll, or None (`some`, `not-any?`)."""
    f = need_fn(pred, who)
    for x in seq_items(coll, who):
        r = f(x)
        if r is not None and r is not False:
            return r
    return None


def _some_falsy(pred, coll, who: str) -> bool:
    """True when (pred item) is falsy for some item of coll (`every?`, `not-every?`)."""
    f = need_fn(pred, who)
    for x in seq_items(coll, who):
        r = f(x)
        if r is None or r is False:
            return True
    return False


@builtin("take-while", "(take-while pred coll)", groups=("core",), category="sequences")
def take_while(pred, coll):
    """The items from the start of coll up to (not including) the first one for which pred is falsy.

    (take-while pos? [2 1 0 3]) ;=> [2 1]
    """
    f = need_fn(pred, "take-while")
    if type(coll) is Endless:
        return take_while_endless(f, coll)
    items = seq_items(coll, "take-while")
    return out_vec(items[:leading_run(f, items)])


@builtin("drop-while", "(drop-while pred coll)", groups=("core",), category="sequences")
def drop_while(pred, coll):
    """What is left of coll after skipping the leading items for which pred is truthy.

    (drop-while pos? [2 1 0 3]) ;=> [0 3]
    """
    f = need_fn(pred, "drop-while")
    items = seq_items(coll, "drop-while")
    return out_vec(items[leading_run(f, items):])


def _unique(items: list, keys: list) -> list:
    seen = set()
    out = []
    for x, k in zip(items, keys):
        t = type(k)
        if t is int or t is str or t is Keyword:
            h = k
        elif t is float:
            if k != k:  # NaN is never a repeat of anything
                out.append(x)
                continue
            h = ("f", k)
        else:
            h = hk(k)
        if h not in seen:
            seen.add(h)
            out.append(x)
    return out


@builtin("distinct", "(distinct coll)", groups=("core",), category="sequences")
def distinct(coll):
    """The items of coll without repeats, first occurrence first. Items are compared by exact identity, so 1 and
    1.0 both stay. A map must be turned into a view first (seq, keys, vals).

    (distinct [1 2 1 3]) ;=> [1 2 3]
    """
    if type(coll) is Map:
        positional_items(coll, "distinct")
    items = seq_items(coll, "distinct")
    return out_vec(_unique(items, items))


@builtin("distinct-by", "(distinct-by keyfn coll)", category="sequences")
def distinct_by(k, coll):
    """Keeps the first item for each distinct (keyfn item). keyfn may be a keyword or string (flexible field
    lookup), a vector path, or a function.

    (distinct-by :id [{:id 1 :v :a} {:id 1 :v :b}]) ;=> [{:id 1 :v :a}]
    """
    f, items = keyfn_and_items(k, coll, "distinct-by")
    return out_vec(_unique(items, [f(x) for x in items]))


# ------------------------------------------------------------------ transforming (§1.8)

def _mapper(who: str):
    def mapping(f, c1, c2=NO, c3=NO):
        f = need_fn(f, who)
        if c2 is NO:
            if type(f) is Keyword:
                return out_vec(kw_values(f, seq_items(c1, who)))
            items = c1.lst() if type(c1) is Vector else seq_items(c1, who)
            each = getattr(f, "ptc_each", None)  # a builtin with an all-at-once form
            if each is not None:
                out = each(items)
                if out is not None:
                    return out_vec(out)
            if getattr(f, "ptc_promote", None) is not None:   # a closure of the tree back end: see `hot`
                f = hot(f, len(items))
            return out_vec(list(map(f, items)))   # f on each item in order, the loop at C speed
        a = seq_items(c1, who)
        b = seq_items(c2, who)
        if c3 is NO:
            return out_vec(list(map(f, a, b)))   # map stops at the shortest, as zip does
        c = seq_items(c3, who)
        return out_vec(list(map(f, a, b, c)))
    mapping.__name__ = who
    return mapping


builtin("map", "(map f coll)", "(map f c1 c2)", "(map f c1 c2 c3)", groups=("core",), category="sequences",
        inline_hof=True,
        doc="A vector of (f item) for every item. With two or three collections f receives one item "
            "from each, walking them in step and stopping at the shortest. f may be a keyword.",
        examples=("(map inc [1 2]) ;=> [2 3]", "(map + [1 2] [10 20 30]) ;=> [11 22]"),
        )(_mapper("map"))
builtin("mapv", "(mapv f coll)", "(mapv f c1 c2)", "(mapv f c1 c2 c3)", groups=("core",), category="sequences",
        inline_hof=True,
        doc="Same as map (every sequence result is already a vector).",
        examples=("(mapv :id [{:id 1} {:id 2}]) ;=> [1 2]",),
        )(_mapper("mapv"))


@provides("splice_into")
def _splice_into(out: list, r, who: str):
    """The items of `r` (a collection, or nil for none) onto `out`, as mapcat splices its fn's values."""
    t = type(r)
    if t is Vector:
        out.extend(r.lst())
    elif r is None:
        return
    elif t is str:
        out.extend(graphemes(r))
    elif t is Map or t is Set:
        out.extend(seq_items(r, who))
    else:
        raise PtcError("type_error", f"{who}: the function must return a collection, got {type_name(r)}")


@builtin("mapcat", "(mapcat f coll)", "(mapcat f c1 c2)", "(mapcat f c1 c2 c3)", groups=("core",),
         category="sequences", inline_hof=True)
def mapcat(f, c1, c2=NO, c3=NO):
    """Calls f like map and concatenates the collections it returns (nil adds nothing). With a keyword, a vector
    field is spliced in, any other non-nil field is added as one item, and a missing field adds nothing.

    (mapcat (fn [x] [x x]) [1 2]) ;=> [1 1 2 2]
    (mapcat :tags [{:tags [:a]} {:tags :b}]) ;=> [:a :b]
    """
    out: list = []
    if c2 is NO and type(f) is Keyword:
        for x in seq_items(c1, "mapcat"):
            r = f(x)
            if type(r) is Vector:
                out.extend(r.lst())
            elif r is not None:
                out.append(r)
        return out_vec(out)
    f = need_fn(f, "mapcat")
    if c2 is NO:
        items = seq_items(c1, "mapcat")
        f = hot(f, len(items))
        ext = out.extend
        for x in items:
            r = f(x)
            if type(r) is Vector:
                it = r._items
                ext(it if it is not None else r.lst())
            else:
                _splice_into(out, r, "mapcat")
    elif c3 is NO:
        for x, y in zip(seq_items(c1, "mapcat"), seq_items(c2, "mapcat")):
            _splice_into(out, f(x, y), "mapcat")
    else:
        for x, y, z in zip(seq_items(c1, "mapcat"), seq_items(c2, "mapcat"), seq_items(c3, "mapcat")):
            _splice_into(out, f(x, y, z), "mapcat")
    return out_vec(out)


@builtin("map-indexed", "(map-indexed f coll)", groups=("core",), category="sequences")
def map_indexed(f, coll):
    """A vector of (f index item) for every item, indexes counting from 0.

    (map-indexed vector [:a :b]) ;=> [[0 :a] [1 :b]]
    """
    f, items = fn_and_items(f, coll, "map-indexed", 2)
    return out_vec([f(i, x) for i, x in enumerate(items)])


# ------------------------------------------------------------------ ordering (§1.9)

def _sort_items(coll, who: str, allow_map: bool) -> list:
    t = type(coll)
    if t is Map and not allow_map:
        raise PtcError("type_error", f"{who}: with a comparator the collection cannot be a map; sort (seq m) instead")
    return seq_items(coll, who)


@builtin("sort", "(sort coll)", "(sort cmp coll)", groups=("core",), category="sequences")
def sort(a, b=NO):
    """The items of coll in ascending natural order (stable). cmp may be :asc, :desc, a function returning a
    number (negative: first argument goes first) or a boolean (true: first argument goes first). Values of
    different kinds cannot be sorted together. A map sorts its [k v] entries, a set its members.

    (sort [3 1 2]) ;=> [1 2 3]
    (sort :desc [1 3 2]) ;=> [3 2 1]
    (sort > [1 3 2]) ;=> [3 2 1]
    """
    if b is NO:
        return out_vec(sort_values(_sort_items(a, "sort", True), NO, "sort"))
    return out_vec(sort_values(_sort_items(b, "sort", False), a, "sort"))


@builtin("sort-by", "(sort-by keyfn coll)", "(sort-by keyfn cmp coll)", groups=("core",), category="sequences")
def sort_by(k, a, b=NO):
    """The items of coll ordered by (keyfn item), stable. keyfn may be a keyword or string (flexible field
    lookup), a vector path or a function; cmp is optional as in sort. Maps are sorted as [k v] entries, sets as
    their members.

    (sort-by :age [{:age 3} {:age 1}]) ;=> [{:age 1} {:age 3}]
    (sort-by count :desc ["a" "abc"]) ;=> ["abc" "a"]
    """
    if b is NO:
        cmp, coll = NO, a
    else:
        cmp, coll = a, b
    f, items = keyfn_and_items(k, coll, "sort-by")
    get = key_getter(f, items)
    if get is not None:
        try:
            keys = list(map(get, items))
        except KeyError:  # some map lacks the field: the general lookup
            get = None
    if get is None:
        keys = key_values(f, items)
    return out_vec(sort_by_keys(items, keys, cmp, "sort-by", get))


@builtin("reverse", "(reverse coll)", groups=("core",), category="sequences")
def reverse(coll):
    """The items of coll in reverse order, as a vector (a string gives its characters reversed).

    (reverse [1 2 3]) ;=> [3 2 1]
    (reverse "ab") ;=> ["b" "a"]
    """
    return out_vec(positional_items(coll, "reverse")[::-1])

