"""Fast paths of builtins an agent turn calls per item agree with their general paths.

`subs` and `parse-long` on short ASCII text, `get` of a keyword or string in a map and `fnil`
with one default skip work the general path does; each property below compares the fast path
with the general one (reached through arguments the fast path does not take, or rebuilt here
from the general code) on the same inputs: the same values and the same errors.
"""
from __future__ import annotations

import re

import pytest
from hypothesis import given, settings, strategies as st

import ptclisp
from ptclisp import lib
from ptclisp.errors import PtcError
from ptclisp.lib.colls_maps import get_, step_get
from ptclisp.registry.builtins import BUILTINS
from ptclisp.values import Keyword, Map

lib.load()   # every builtin family registers itself

subs = BUILTINS["subs"].fn
parse_long = BUILTINS["parse-long"].fn


def outcome(f, *args):
    try:
        return ("ok", f(*args))
    except PtcError as e:
        return ("error", e.kind, e.message)


texts = st.one_of(st.text(alphabet="ab-01", max_size=12), st.text(max_size=8), st.text(alphabet="aé\U0001F600", max_size=6))


@settings(max_examples=500, deadline=None)
@given(texts, st.integers(-3, 300), st.integers(-3, 300))
def test_subs_fast_path_is_the_general_one(s, a, b):
    # a float index is truncated to the same int and takes the general path
    assert outcome(subs, s, a, b) == outcome(subs, s, float(a), float(b))


def _parse_long_general(s):
    if type(s) is not str or len(s) > 21 or not re.fullmatch(r"[+-]?[0-9]+", s):
        return None
    n = int(s)
    return n if -(1 << 63) <= n <= (1 << 63) - 1 else None


@settings(max_examples=500, deadline=None)
@given(st.one_of(st.text(alphabet="0123456789+- ", max_size=22), st.text(max_size=5),
                 st.sampled_from(["٣", "²", "0" * 18, "9" * 18, "9" * 19, "9223372036854775808", ""])))
def test_parse_long_fast_path_is_the_general_one(s):
    assert parse_long(s) == _parse_long_general(s)


keys = st.one_of(st.sampled_from(["a", "b", "x-y", "x_y"]), st.sampled_from(["a", "b", "x-y", "x_y", "c"]).map(Keyword))
maps = st.lists(st.tuples(keys, st.integers()), max_size=4).map(lambda kvs: Map.from_pairs(kvs))


@settings(max_examples=500, deadline=None)
@given(maps, keys, st.one_of(st.none(), st.integers()))
def test_get_fast_path_is_step_get(m, k, default):
    assert get_(m, k, default) == step_get(m, k, default)
    assert get_(m, k) == step_get(m, k)


@pytest.mark.parametrize("src,expected", [
    ("((fnil + 0) nil 5)", 5), ("((fnil + 0))", 0), ("((fnil + 0 1) nil nil)", 1), ("((fnil + 0 1) 5)", 5),
    ("((fnil :a {}) nil)", None), ("((fnil (fn [a b] [a b]) 1 2 3) nil nil)", [1, 2]),
    ("(map (fnil inc 0) [1 nil 3])", [2, 1, 4]), ("(reduce (fn [m k] (update m k (fnil inc 0))) {} [:a :b :a])",
                                                   {"a": 2, "b": 1}),
])
def test_fnil_values(src, expected):
    r = ptclisp.run(src)
    assert r.ok, r.error
    assert ptclisp.to_python(r.value) == expected


@pytest.mark.parametrize("src,message,end", [
    ("((fnil nil 0) nil 5)", "cannot call a nil as a function", 21),
    ("((fnil 3 0 1) nil)", "cannot call a number as a function", 19),
    ('((fnil "s" 1))', "cannot call a string as a function", 15),
])
def test_fnil_of_a_value_that_cannot_be_called_fails_when_called(src, message, end):
    r = ptclisp.run(src)
    assert r.error is not None and r.error.kind == "not_callable"
    assert r.error.message == message
    assert (r.error.span.line, r.error.span.col, r.error.span.end_col) == (1, 1, end)


def test_fnil_is_built_without_calling():
    r = ptclisp.run("(do (fnil nil 0) 1)")   # building it with nil is fine: only a call fails
    assert r.ok and r.value == 1


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet="ab$\\{}1 ", max_size=6))
def test_a_replacement_without_dollar_or_backslash_is_its_own_text(repl):
    # `replace` with a regex skips parsing such a replacement: this is what the parser gives it
    from ptclisp.lib.regex_replace import java_replacement
    from ptclisp.patterns.engine import compile_regex
    rxv = compile_regex("(a)b", "runtime_error", "replace")
    if "$" not in repl and "\\" not in repl:
        assert java_replacement(repl, rxv, "replace") == ([repl] if repl else [])


@pytest.mark.parametrize("src,expected", [
    ('(str/replace "a-b c" #"[^a-z]" "")', "abc"), ('(str/replace "a-b" #"-" "x")', "axb"),
    ('(str/replace "a-b" #"-" "$0$0")', "a--b"), ('(str/replace "a-b" #"-" "\\\\$")', "a$b"),
])
def test_regex_replace_values(src, expected):
    r = ptclisp.run(src)
    assert r.ok, r.error
    assert r.value == expected


members = st.one_of(st.integers(-3, 3), st.sampled_from(["a", "b"]), st.sampled_from(["a", "b"]).map(Keyword),
                    st.booleans(), st.sampled_from([1.0, 2.5, -0.0]), st.none())


@settings(max_examples=300, deadline=None)
@given(st.lists(members, max_size=6), members)
def test_contains_of_a_set_is_set_contains(xs, k):
    from ptclisp.values import Set
    s = Set.of(xs)
    assert BUILTINS["contains?"].fn(s, k) is s.contains(k)
