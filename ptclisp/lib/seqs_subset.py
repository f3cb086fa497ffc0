"""Sequence builtins: subsetting (docs/spec/functions.md §1.10).

Positional accessors (`first`, `rest`, `nth`, ...) refuse maps and sets, which
have no position (DIV-29); counting slicers (`take`, `drop`, `partition`, ...)
accept every seqable. Out-of-range positions give nil or a clamped slice,
never an error (DIV-26). Counts follow Clojure: a negative count takes
nothing / drops nothing (GAP-S32), a finite float count is truncated (GAP-S79).
Imports values, errors and the lib helpers (common, seqs_common, registry).
"""
from __future__ import annotations

from ..errors import PtcError, brief_int
from ..values import Map, Set, Vector, equal, type_name
from .arguments import graphemes, need_count, need_fn, out_vec, positional_items, seq_items
from ..registry.builtins import builtin
from .seqs_common import NO, charge_vecs, leading_run
from .lazy import Endless, nth_endless, take_endless

_ABSENT = object()


def _pos_items(coll, who: str) -> list:
    if type(coll) is Vector:
        return coll.lst()
    return positional_items(coll, who)


def _first(coll, who: str):
    t = type(coll)
    if t is Vector:
        items = coll.lst()
        return items[0] if items else None
    if coll is None:
        return None
    if t is str:
        if not coll:
            return None
        c0 = coll[0]
        if c0.isascii() and (len(coll) == 1 or coll[1].isascii()):
            return c0
        return graphemes(coll)[0]
    if t is Endless:
        return nth_endless(coll, 0)
    items = positional_items(coll, who)
    return items[0] if items else None


def _next(coll, who: str):
    items = _pos_items(coll, who)
    return Vector(items[1:]) if len(items) > 1 else None


@builtin("first", "(first coll)", prim="first", groups=("core",), category="sequences")
def first(coll):
    """The first item of a vector or the first character of a string; nil when empty or nil. Maps and sets have
    no first item: take a view such as (seq m) first.

    (first [1 2]) ;=> 1
    (first []) ;=> nil
    """
    return _first(coll, "first")


@builtin("second", "(second coll)", groups=("core",), category="sequences")
def second(coll):
    """The second item (or character), or nil when there is none.

    (second [1 2 3]) ;=> 2
    """
    if type(coll) is Endless:
        return nth_endless(coll, 1)
    items = _pos_items(coll, "second")
    return items[1] if len(items) > 1 else None


@builtin("last", "(last coll)", groups=("core",), category="sequences")
def last(coll):
    """The last item (or character), or nil when empty.

    (last [1 2 3]) ;=> 3
    """
    items = _pos_items(coll, "last")
    return items[-1] if items else None


@builtin("nth", "(nth coll index)", "(nth coll index not-found)", groups=("core",), category="sequences")
def nth(coll, index, not_found=NO):
    """The item at a zero-based index of a vector or string (by character). A negative or too large index gives
    not-found, or nil without it, instead of an error.

    (nth [10 20 30] 1) ;=> 20
    (nth [10] 5 :none) ;=> :none
    """
    if type(coll) is Vector and type(index) is int:  # the common case, checked once
        items = coll._items
        if items is None:
            items = coll.lst()
        if 0 <= index < len(items):
            return items[index]
        return None if not_found is NO else not_found
    i = need_count(index, "nth")
    default = None if not_found is NO else not_found
    if coll is None:
        return default
    t = type(coll)
    if t is Endless:
        return nth_endless(coll, i)
    if t is not Vector and t is not str:   # (a sorted set too: Clojure's nth refuses it)
        if t is Map or t is Set:
            positional_items(coll, "nth")
        raise PtcError("type_error", f"nth: expected a vector or string, got {type_name(coll)}")
    items = _pos_items(coll, "nth")
    if 0 <= i < len(items):
        return items[i]
    return default


@builtin("rest", "(rest coll)", groups=("core",), category="sequences")
def rest(coll):
    """Everything after the first item, as a vector; [] when there is nothing left.

    (rest [1 2 3]) ;=> [2 3]
    (rest []) ;=> []
    """
    return out_vec(_pos_items(coll, "rest")[1:])


@builtin("next", "(next coll)", groups=("core",), category="sequences")
def next_(coll):
    """Everything after the first item, or nil when that would be empty.

    (next [1 2]) ;=> [2]
    (next [1]) ;=> nil
    """
    return _next(coll, "next")


@builtin("butlast", "(butlast coll)", groups=("core",), category="sequences")
def butlast(coll):
    """Everything except the last item, or nil when that would be empty.

    (butlast [1 2 3]) ;=> [1 2]
    (butlast [1]) ;=> nil
    """
    items = _pos_items(coll, "butlast")
    return out_vec(items[:-1]) if len(items) > 1 else None


@builtin("ffirst", "(ffirst coll)", groups=("core",), category="sequences")
def ffirst(coll):
    """(first (first coll)).

    (ffirst [[1 2] [3]]) ;=> 1
    """
    return _first(_first(coll, "ffirst"), "ffirst")


@builtin("fnext", "(fnext coll)", groups=("core",), category="sequences")
def fnext(coll):
    """(first (next coll)), i.e. the second item.

    (fnext [1 2 3]) ;=> 2
    """
    return _first(_next(coll, "fnext"), "fnext")


@builtin("nfirst", "(nfirst coll)", groups=("core",), category="sequences")
def nfirst(coll):
    """(next (first coll)).

    (nfirst [[1 2] [3]]) ;=> [2]
    """
    return _next(_first(coll, "nfirst"), "nfirst")


@builtin("nnext", "(nnext coll)", groups=("core",), category="sequences")
def nnext(coll):
    """(next (next coll)): everything after the second item, or nil.

    (nnext [1 2 3 4]) ;=> [3 4]
    """
    return _next(_next(coll, "nnext"), "nnext")


@builtin("take", "(take n coll)", groups=("core",), category="sequences")
def take(n, coll):
    """The first n items of coll (all of them when there are fewer; none when n <= 0). A map gives [k v]
    entries, a string characters.

    (take 2 [1 2 3]) ;=> [1 2]
    (take 2 "hey") ;=> ["h" "e"]
    """
    if type(coll) is Endless:
        return take_endless(n, coll)
    n = need_count(n, "take")
    items = seq_items(coll, "take")
    return out_vec(items[:n] if n > 0 else [])


@builtin("drop", "(drop n coll)", groups=("core",), category="sequences")
def drop(n, coll):
    """coll without its first n items (all of coll when n <= 0).

    (drop 2 [1 2 3]) ;=> [3]
    """
    if type(coll) is Endless:
        return coll.dropped(need_count(n, "drop"))
    return out_vec(_without_first("drop", n, coll))


def _without_first(who: str, n, coll) -> list:
    """A new list of coll's items without the first n (all of them when n <= 0): drop, nthrest, nthnext."""
    n = need_count(n, who)
    items = seq_items(coll, who)
    return items[n:] if n > 0 else list(items)


@builtin("nthrest", "(nthrest coll n)", groups=("core",), category="sequences")
def nthrest(coll, n):
    """coll without its first n items, like drop but with the collection first.

    (nthrest [1 2 3] 2) ;=> [3]
    """
    return out_vec(_without_first("nthrest", n, coll))


@builtin("nthnext", "(nthnext coll n)", groups=("core",), category="sequences")
def nthnext(coll, n):
    """coll without its first n items, or nil when nothing is left.

    (nthnext [1 2 3] 1) ;=> [2 3]
    (nthnext [1 2 3] 3) ;=> nil
    """
    rest = _without_first("nthnext", n, coll)
    return out_vec(rest) if rest else None


@builtin("take-last", "(take-last n coll)", groups=("core",), category="sequences")
def take_last(n, coll):
    """The last n items of coll, or nil when that is empty (including n <= 0).

    (take-last 2 [1 2 3]) ;=> [2 3]
    (take-last 2 []) ;=> nil
    """
    n = need_count(n, "take-last")
    items = seq_items(coll, "take-last")
    if n <= 0 or not items:
        return None
    return out_vec(items[-n:])


@builtin("drop-last", "(drop-last coll)", "(drop-last n coll)", groups=("core",), category="sequences")
def drop_last(a, b=NO):
    """coll without its last item, or without its last n items (all of coll when n <= 0).

    (drop-last [1 2 3]) ;=> [1 2]
    (drop-last 2 [1 2 3]) ;=> [1]
    """
    if b is NO:
        n, coll = 1, a
    else:
        n, coll = need_count(a, "drop-last"), b
    items = seq_items(coll, "drop-last")
    if n <= 0:
        return out_vec(list(items))
    return out_vec(items[:-n] if n < len(items) else [])


@builtin("split-at", "(split-at n coll)", groups=("core",), category="sequences")
def split_at(n, coll):
    """[(take n coll) (drop n coll)]: coll cut in two after n items.

    (split-at 1 [1 2 3]) ;=> [[1] [2 3]]
    """
    n = max(0, need_count(n, "split-at"))
    items = seq_items(coll, "split-at")
    charge_vecs(2, 0)
    return out_vec([Vector(items[:n]), Vector(items[n:])])


@builtin("split-with", "(split-with pred coll)", groups=("core",), category="sequences")
def split_with(pred, coll):
    """[(take-while pred coll) (drop-while pred coll)]: coll cut at the first item for which pred is falsy.

    (split-with odd? [1 3 4 5]) ;=> [[1 3] [4 5]]
    """
    f = need_fn(pred, "split-with")
    items = seq_items(coll, "split-with")
    n = leading_run(f, items)
    charge_vecs(2, 0)
    return out_vec([Vector(items[:n]), Vector(items[n:])])


def _positive(x, who: str, what: str) -> int:
    n = need_count(x, who)
    if n <= 0:
        raise PtcError("type_error", f"{who}: {what} must be a positive integer, got {brief_int(n)}")
    return n


@builtin("partition", "(partition n coll)", "(partition n step coll)", "(partition n step pad coll)",
         groups=("core",), category="sequences")
def partition(n, a, b=NO, c=NO):
    """Chunks of n items, starting every step items (default n). Only full chunks are kept, except that with pad
    the first short chunk is filled up from pad (and may stay short).

    (partition 2 [1 2 3 4 5]) ;=> [[1 2] [3 4]]
    (partition 2 1 [1 2 3]) ;=> [[1 2] [2 3]]
    (partition 2 2 [:x] [1 2 3]) ;=> [[1 2] [3 :x]]
    """
    if b is NO:
        step, pad, coll = NO, NO, a
    elif c is NO:
        step, pad, coll = a, NO, b
    else:
        step, pad, coll = a, b, c
    size = need_count(n, "partition")
    if size < 0:
        seq_items(coll, "partition")
        return out_vec([])
    if size == 0:
        raise PtcError("type_error", "partition: n must be a positive integer, got 0")
    step = size if step is NO else _positive(step, "partition", "step")
    items = seq_items(coll, "partition")
    pad_items = [] if pad is NO or pad is None else seq_items(pad, "partition")
    total = len(items)
    full = (total - size) // step + 1 if total >= size else 0
    charge_vecs(full + 1, min(size, total))
    out = [Vector(items[i:i + size]) for i in range(0, full * step, step)]
    i = full * step
    if pad is not NO and i < total:
        chunk = items[i:i + size]
        out.append(Vector(chunk + pad_items[:size - len(chunk)]))
    return out_vec(out)


@builtin("partition-all", "(partition-all n coll)", "(partition-all n step coll)", groups=("core",),
         category="sequences")
def partition_all(n, a, b=NO):
    """Like partition, but the short chunks at the end are kept.

    (partition-all 2 [1 2 3]) ;=> [[1 2] [3]]
    """
    step, coll = (NO, a) if b is NO else (a, b)
    size = _positive(n, "partition-all", "n")
    step = size if step is NO else _positive(step, "partition-all", "step")
    items = seq_items(coll, "partition-all")
    starts = range(0, len(items), step)
    charge_vecs(len(starts), min(size, len(items)))
    return out_vec([Vector(items[i:i + size]) for i in starts])


@builtin("partition-by", "(partition-by f coll)", groups=("core",), category="sequences")
def partition_by(f, coll):
    """Splits coll into runs: a new chunk starts whenever (f item) differs (by =) from the previous item's.

    (partition-by odd? [1 3 2 4 5]) ;=> [[1 3] [2 4] [5]]
    """
    f = need_fn(f, "partition-by")
    out = []
    chunk: list = []
    prev = _ABSENT
    for x in seq_items(coll, "partition-by"):
        k = f(x)
        if prev is not _ABSENT and not equal(k, prev):
            out.append(Vector(chunk))
            chunk = []
        chunk.append(x)
        prev = k
    if chunk:
        out.append(Vector(chunk))
    charge_vecs(len(out), 0)
    return out_vec(out)
