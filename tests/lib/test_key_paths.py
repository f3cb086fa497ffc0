"""The C-speed paths of the key-taking builtins give what the general path gives.

`kw_values` / `key_getter` read a keyword field with `itemgetter` when every item is a map
holding the field under one spelling (the keyword itself, or its name when no item holds the
keyword), and `sort-by` then sorts the items by that getter. Each is compared, on random
maps mixing keyword and string keys, dash and underscore spellings, missing fields, nil,
NaN and non-maps, with the same builtin given a plain function as the key (the general path).
"""
import math

import pytest
from hypothesis import given, settings, strategies as st

from ptclisp import lib
from ptclisp.errors import PtcError
from ptclisp.lib.arguments import kw_values
from ptclisp.lib.seqs_common import _any_nan
from ptclisp.registry.builtins import BUILTINS
from ptclisp.values import Keyword, Map, Vector

lib.load()

sort_by = BUILTINS["sort-by"].fn
group_by = BUILTINS["group-by"].fn

K = Keyword("my-key")
SPELLINGS = [K, "my-key", Keyword("my_key"), "my_key", Keyword("other")]
scalars = st.one_of(st.integers(-3, 3), st.floats(-3, 3), st.just(math.nan), st.none(),
                    st.sampled_from(["a", "b", "é"]), st.sampled_from([Keyword("x"), Keyword("y")]))
# most data is uniform: every map holds the field under the same spelling
uniform = st.builds(lambda sp, vals: [Map.from_pairs([(sp, v), ("id", i)]) for i, v in enumerate(vals)],
                    st.sampled_from(SPELLINGS[:2]), st.lists(st.one_of(st.integers(-5, 5), st.floats(-5, 5)),
                                                             max_size=30))
mixed = st.lists(st.one_of(
    st.dictionaries(st.sampled_from(SPELLINGS), scalars, max_size=4).map(lambda d: Map.from_pairs(d.items())),
    st.integers(0, 2), st.just(Vector([1]))), max_size=20)
items_st = st.one_of(uniform, mixed)


def general(k):
    return lambda x: k(x)   # a plain function: no field fast path


def same_items(a, b):
    return len(a) == len(b) and all(x is y for x, y in zip(a, b))


@settings(max_examples=400, deadline=None)
@given(items_st)
def test_kw_values_reads_what_the_keyword_reads(items):
    assert same_items(kw_values(K, items), [K(x) for x in items])


@settings(max_examples=400, deadline=None)
@given(items_st, st.sampled_from([(), (Keyword("desc"),), (Keyword("asc"),), (None,)]))
def test_sort_by_a_keyword_orders_like_sort_by_a_function(items, cmp):
    def attempt(key):
        try:
            return "ok", sort_by(key, *cmp, Vector(list(items))).lst()
        except PtcError as e:
            return "error", e.kind, str(e)
    fast, slow = attempt(K), attempt(general(K))
    assert fast[0] == slow[0]
    if fast[0] == "ok":
        assert same_items(fast[1], slow[1])
    else:
        assert fast == slow


@settings(max_examples=300, deadline=None)
@given(items_st)
def test_group_by_a_keyword_groups_like_group_by_a_function(items):
    fast, slow = group_by(K, Vector(list(items))), group_by(general(K), Vector(list(items)))
    assert list(dict.keys(fast)) == list(dict.keys(slow))
    for k in dict.keys(fast):
        assert same_items(dict.__getitem__(fast, k).lst(), dict.__getitem__(slow, k).lst())


def test_the_keyword_wins_over_its_name_in_any_item():
    # the first item holds only the name; a later one holds both: that one must give the keyword's value
    items = [Map.from_pairs([("my-key", 1)]), Map.from_pairs([("my-key", 2), (K, 0)])]
    assert kw_values(K, items) == [1, 0]
    assert [m.lookup("my-key") for m in sort_by(K, Vector(items)).lst()] == [2, 1]


@pytest.mark.parametrize("xs, nan", [
    ([1, 2.5, -3], False), ([math.inf, -math.inf], False), ([math.inf, -math.inf, math.nan], True),
    ([10**400, 1.5], False), ([10**400, math.nan], True), ([], False), ([math.nan], True), ([10**400, 7], False),
])
def test_any_nan(xs, nan):
    assert _any_nan(xs) is nan


@settings(max_examples=300, deadline=None)
@given(st.lists(st.one_of(st.integers(), st.floats()), max_size=20))
def test_any_nan_is_an_item_by_item_check(xs):
    assert _any_nan(xs) == any(x != x for x in xs)
