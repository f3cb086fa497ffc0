"""Properties of sort and sort-by on their documented domains (functions.md §1.9, language.md §3.6).

Within one kind (numbers, strings, keywords, booleans, vectors of numbers,
with nil allowed anywhere) natural order is total: `sort` never raises and
its result is ordered by `compare`. Both sorts are stable: items whose keys
compare equal keep their input order.
"""
from hypothesis import given, settings, strategies as st

import ptclisp
from ptclisp import lib
from ptclisp.registry import BUILTINS
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
