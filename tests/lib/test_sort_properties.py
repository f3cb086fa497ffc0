"""Properties of sort and sort-by on their documented domains (docs/spec/functions.md §1.9, docs/spec/language.md §3.6).

Within one kind (numbers, strings, keywords, booleans, vectors of numbers,
with nil allowed anywhere) natural order is total: `sort` never raises and
its result is ordered by `compare`. Both sorts are stable: items whose keys
compare equal keep their input order.
"""
from hypothesis import given, settings, strategies as st

import ptclisp
from ptclisp import lib
from ptclisp.registry.builtins import BUILTINS
from ptclisp.values import Keyword, Map, Vector, compare

lib.load()   # every builtin family registers itself

sort = BUILTINS["sort"].fn
sort_by = BUILTINS["sort-by"].fn

numbers = st.one_of(st.integers(-10**6, 10**6), st.floats(allow_nan=False, min_value=-1e6, max_value=1e6))
domains = st.one_of(
    st.lists(st.one_of(numbers, st.none()), max_size=30),
    st.lists(st.one_of(st.text(max_size=5), st.none()), max_size=30),
    st.lists(st.from_regex(r"[a-z]{1,4}", fullmatch=True).map(Keyword), max_size=30),
    st.lists(st.booleans(), max_size=30),
    st.lists(st.lists(st.integers(-5, 5), max_size=3).map(Vector), max_size=20),
)


@settings(max_examples=300, deadline=None)
@given(domains)
def test_sort_is_total_and_ordered(xs):
    out = sort(Vector(list(xs))).lst()
    assert len(out) == len(xs)
    for a, b in zip(out, out[1:]):
        assert compare(a, b) <= 0


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 4), st.integers()), max_size=40))
def test_sort_by_is_stable(pairs):
    items = [Map.from_pairs([(Keyword("k"), k), (Keyword("i"), i)]) for i, (k, _) in enumerate(pairs)]
    out = sort_by(Keyword("k"), Vector(items)).lst()
    keys = [(m.lookup(Keyword("k")), m.lookup(Keyword("i"))) for m in out]
    assert keys == sorted(keys)  # by key, then by original position


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 4), st.integers()), max_size=40))
def test_sort_by_desc_is_stable(pairs):
    items = [Vector([k, i]) for i, (k, _) in enumerate(pairs)]
    out = sort_by(BUILTINS["first"].fn, Keyword("desc"), Vector(items)).lst()
    keys = [(v.lst()[0], v.lst()[1]) for v in out]
    assert keys == sorted(keys, key=lambda kv: (-kv[0], kv[1]))


@settings(max_examples=200, deadline=None)
@given(st.lists(st.integers(-100, 100), max_size=40))
def test_sort_agrees_with_the_language(xs):
    src = "(sort [" + " ".join(map(str, xs)) + "])"
    assert ptclisp.to_python(ptclisp.run(src).value) == sorted(xs)


# ---------------------------------------------------------------- vector keys as tuples

def _general_order(keys, desc=False):
    """Natural order the general way (every key wrapped in SortKey): positions, or the error kind."""
    from ptclisp.errors import PtcError
    from ptclisp.values import SortKey
    try:
        return sorted(range(len(keys)), key=lambda i: SortKey(keys[i]), reverse=desc)
    except PtcError as e:
        return e.kind


def _fast_order(keys, desc=False):
    from ptclisp.errors import PtcError
    from ptclisp.lib.seqs_common import natural_order
    try:
        return natural_order(keys, desc)
    except PtcError as e:
        return e.kind


atoms = st.one_of(st.none(), st.booleans(), st.integers(-3, 3), st.floats(allow_nan=False, min_value=-3, max_value=3),
                  st.sampled_from(["", "a", "b", "ab", "é", "\U0001F600", "\uFFFD"]),
                  st.sampled_from(["a", "b", "x-y"]).map(Keyword))
vector_keys = st.recursive(atoms, lambda inner: st.lists(inner, max_size=3).map(Vector), max_leaves=6)
# columns of one kind (the fast path's domain) and anything at all (its fallback)
one_kind_rows = st.integers(0, 3).flatmap(lambda n: st.lists(
    st.tuples(*[st.one_of(st.none(), st.integers(-3, 3)), st.one_of(st.none(), st.sampled_from(["a", "b", "c"])),
                st.booleans(), st.sampled_from(["a", "b"]).map(Keyword)][:n]).map(lambda t: Vector(list(t))),
    max_size=25))


@settings(max_examples=400, deadline=None)
@given(st.one_of(one_kind_rows, st.lists(vector_keys.filter(lambda v: type(v) is Vector), max_size=12)),
       st.booleans())
def test_vector_keys_order_as_compare_does(keys, desc):
    assert _fast_order(keys, desc) == _general_order(keys, desc)


def test_vector_keys_of_mixed_kinds_still_refused():
    from ptclisp.values import Vector as V
    keys = [V([1, "a"]), V([1, 2])]   # the second column mixes strings and numbers
    assert _fast_order(keys) == "type_error" == _general_order(keys)
    keys = [V([1, "a"]), V([2, 2])]   # decided by the first column: no comparison of the second
    assert _fast_order(keys) == [0, 1] == _general_order(keys)


def test_vector_keys_of_one_kind_per_position_are_plain():
    from ptclisp.lib.seqs_common import natural_keys
    keys = [Vector([-5, "b"]), Vector([-7, "a"]), Vector([None, "c"])]
    sk, plain = natural_keys(keys)
    assert plain and sk == [((1, -5), "b"), ((1, -7), "a"), ((0, 0), "c")]
    assert natural_keys([Vector([1]), Vector([1, 2])])[1] is False   # lengths differ: compared by length first
