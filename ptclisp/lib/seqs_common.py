"""Small helpers shared by the sequence builtins (seqs*.py).

The marker for an absent optional argument, the leading run a predicate keeps, charges for
nested vectors and appended slots, and the natural-order / comparator machinery used by `sort`
and `sort-by` (Java's TimSort when a comparator may be inconsistent).
Imports values, errors, meter, lib.arguments, lib.timsort.
"""
from __future__ import annotations

import math
from functools import cmp_to_key
from operator import ne

from ..errors import PtcError
from ..runtime.meter import SLOT, current, seq_cost
from ..values import Keyword, SortKey, Vector, compare, type_name, utf16_key
from .arguments import need_fn
from .timsort import java_sort

NO = object()
"""Marker for an optional positional argument that was not passed."""

ASC = Keyword("asc")
DESC = Keyword("desc")
_NUMBER_TYPES = frozenset((int, float))
_STR_TYPE = {str}
_VECTOR_TYPE = {Vector}


def leading_run(f, items) -> int:
    """How many items from the start of `items` have a truthy (f item): where take-while stops."""
    n = 0
    for x in items:
        r = f(x)
        if r is None or r is False:
            break
        n += 1
    return n


def charge_slots(n: int):
    """Charge for `n` new element slots (appends to an existing collection)."""
    current().alloc(SLOT * n)


def charge_vecs(count: int, each: int):
    """Charge for an outer vector of `count` inner vectors of `each` elements."""
    current().alloc(seq_cost(count) + count * seq_cost(each))


# ------------------------------------------------------------------ ordering

def _any_nan(numbers: list) -> bool:
    """Whether any of these ints and floats is NaN. Their sum is NaN when one is (NaN spreads
    through addition), so a sum that is not NaN answers at C speed; a NaN sum (also from
    inf + -inf) or one too large for a float is settled item by item."""
    try:
        s = sum(numbers)
    except OverflowError:
        s = math.nan
    return s != s and any(map(ne, numbers, numbers))


def natural_keys(keys: list) -> tuple[list, bool]:
    """Sort keys for `keys` in natural order.

    Returns (sort_keys, plain). When the non-nil keys are all real numbers,
    all booleans, or all strings/keywords inside the Basic Multilingual Plane,
    Python's own ordering agrees with natural order, so the keys are used as
    they are (plain=True; nil becomes a tuple that sorts first). Otherwise
    they are wrapped in `SortKey`, whose comparison raises `type_error` for
    unordered kinds (NaN compares equal to every number; see `natural_order`).
    """
    kinds = set(map(type, keys))
    if kinds <= _NUMBER_TYPES and not _any_nan(keys):
        return keys, True
    if kinds == _STR_TYPE and all(map(str.isascii, keys)):
        return keys, True
    if kinds == _VECTOR_TYPE:
        return _vector_keys(keys)
    kind = 0
    has_nil = False
    for k in keys:
        t = type(k)
        if t is int or t is float:
            if k != k:
                kind = -1
                break
            c = 1
        elif t is str:
            if utf16_key(k) is not k:
                kind = -1
                break
            c = 2
        elif t is Keyword:
            if utf16_key(k.name) is not k.name:
                kind = -1
                break
            c = 3
        elif k is None:
            has_nil = True
            continue
        elif t is bool:
            c = 4
        else:
            kind = -1
            break
        if kind != c:
            if kind:
                kind = -1
                break
            kind = c
    if kind == -1:
        return [SortKey(k) for k in keys], False
    if kind == 3:
        keys = [None if k is None else k.name for k in keys]
    if has_nil:
        return [(0, 0) if k is None else (1, k) for k in keys], True
    return keys, True


def _vector_keys(keys: list) -> tuple[list, bool]:
    """`natural_keys` of vectors. Vectors of one length compare item by item, so when each
    position holds plain keys (`natural_keys` of that column) the tuples of those keys order the
    vectors as natural order does, at C speed; otherwise each vector is wrapped in `SortKey`."""
    rows = [k.lst() for k in keys]
    if len(set(map(len, rows))) == 1:
        columns = []
        for column in zip(*rows):
            ck, plain = natural_keys(column)
            if not plain:
                break
            columns.append(ck)
        else:
            return list(zip(*columns)) if columns else [()] * len(keys), True
    return [SortKey(k) for k in keys], False


def comparator(cmp, who: str):
    """A Python key wrapper for a PTC comparator function.

    Like Clojure: a numeric result orders by its sign (floats truncated); a
    boolean result is read as "a goes before b", and when false the reverse
    call decides between "after" and "equal" so an always-false comparator
    keeps the input order.
    """
    f = need_fn(cmp, who)

    def cmp3(a, b):
        r = f(a, b)
        t = type(r)
        if t is bool:
            if r:
                return -1
            return 1 if f(b, a) is True else 0
        if t is int:
            return r
        if t is float:
            return int(r) if math.isfinite(r) else (0 if r != r else (1 if r > 0 else -1))
        raise PtcError("type_error", f"{who}: a comparator must return a number or a boolean, got {type_name(r)}")

    return cmp_to_key(cmp3)


def _has_nan(keys) -> bool:
    for k in keys:
        t = type(k)
        if t is float:
            if k != k:
                return True
        elif t is Vector and _has_nan(k.lst()):
            return True
    return False


def natural_order(keys: list, desc: bool = False, sk_plain=None) -> list[int]:
    """Positions 0..n-1 stably ordered by `keys` in natural order (descending when `desc`);
    `sk_plain` is `natural_keys(keys)` when the caller has it already.

    NaN compares equal to every number, which is not an order: there the result is the one
    Java's sort gives for Clojure's `compare` (DIV-33), computed by the same algorithm."""
    n = len(keys)
    sk, plain = sk_plain or natural_keys(keys)
    if plain or not _has_nan(keys):
        return sorted(range(n), key=sk.__getitem__, reverse=desc)
    if desc:
        def cmp(i, j):
            return compare(keys[j], keys[i])
    else:
        def cmp(i, j):
            return compare(keys[i], keys[j])
    order = list(range(n))
    try:
        java_sort(order, cmp)
    except PtcError as e:
        if e.kind != "runtime_error":
            raise
        raise PtcError("runtime_error", "sort: NaN compares equal to every number, which made this sort "
                                        "inconsistent (Java's sort gives up here too); drop NaN first, "
                                        "e.g. (remove NaN? xs)") from None
    return order


def _natural(cmp) -> bool:
    """Whether `cmp` asks for natural order: absent, nil, :asc, :desc or the compare builtin itself."""
    return cmp is NO or cmp is None or cmp is ASC or cmp is DESC or getattr(cmp, "ptc_builtin", None) == "compare"


def order_indexes(keys: list, cmp, who: str) -> list[int]:
    """Positions 0..n-1 stably ordered by `keys` under `cmp`.

    `cmp` is NO / nil (natural ascending), :asc, :desc or a comparator
    function. Anything else is a `type_error`.
    """
    if _natural(cmp):
        return natural_order(keys, cmp is DESC)
    if type(cmp) is Keyword:
        raise PtcError("type_error", f"{who}: expected :asc, :desc or a comparator function, got :{cmp.name}")
    wrap = comparator(cmp, who)
    wk = [wrap(k) for k in keys]
    return sorted(range(len(keys)), key=wk.__getitem__)


def sort_by_keys(items: list, keys: list, cmp, who: str, get=None) -> list:
    """`items` stably ordered by their `keys` under `cmp` (as `order_indexes`).

    `get`, when given, is a C-level getter with `get(items[i]) is keys[i]` for every i. When
    the keys are in plain natural order the items are sorted by `get` themselves: the same
    stable order, without gathering the items by position afterwards (which touches every
    item in random memory order, the slowest step of a large sort-by).
    """
    if get is not None and _natural(cmp):
        sk_plain = natural_keys(keys)
        if sk_plain[1] and sk_plain[0] is keys:
            return sorted(items, key=get, reverse=cmp is DESC)
        return [items[i] for i in natural_order(keys, cmp is DESC, sk_plain)]
    return [items[i] for i in order_indexes(keys, cmp, who)]


def sort_values(items: list, cmp, who: str) -> list:
    """`items` stably sorted (natural order, :asc/:desc or a comparator)."""
    if _natural(cmp):
        desc = cmp is DESC
        sk_plain = natural_keys(items)
        if sk_plain[1] and sk_plain[0] is items:
            return sorted(items, reverse=desc)
        return [items[i] for i in natural_order(items, desc, sk_plain)]
    if type(cmp) is Keyword:
        raise PtcError("type_error", f"{who}: expected :asc, :desc or a comparator function, got :{cmp.name}")
    return sorted(items, key=comparator(cmp, who))
