"""The analyzer's short paths for plain builtin calls and builtin names give what the general
path gives: the same core AST, the same errors (kind, message, span), and locals or
definitions still shadow builtins."""
import pytest
from hypothesis import given, settings, strategies as st

import ptclisp
from ptclisp.analyzer import Analyzer, Env
from ptclisp.analyzer import resolve as R_
from ptclisp.errors import PtcError
from ptclisp.reader.parser import read
from ptclisp.registry.builtins import BUILTINS

from helpers import run


def analyzed(src: str):
    """repr of the program's core AST, or the analysis error (kind, message, span)."""
    try:
        return repr(Analyzer(Env()).analyze_program(read(src)))
    except PtcError as e:
        return ("error", e.kind, e.message, e.span)


NAMES = ["+", "inc", "count", "str", "get", "map", "filter", "odd?", "first", "conj", "not", "nil?", "=", "<"]
ATOMS = st.sampled_from(["1", "2.5", '"s"', ":k", "nil", "[1 2]", "{:a 1}", "x"] + NAMES)


def calls(inner):
    return st.builds(lambda h, args: "(" + " ".join([h] + args) + ")", st.sampled_from(NAMES),
                     st.lists(inner, max_size=4))


FORMS = st.recursive(ATOMS, calls, max_leaves=12)


@settings(max_examples=300, deadline=None)
@given(FORMS, st.booleans())
def test_short_path_matches_general_path(form, shadow):
    src = f"(let [x 1 {'inc dec' if shadow else ''}] {form})"
    fast = analyzed(src)
    saved = R_._CHECKED_CALLS
    R_._CHECKED_CALLS = frozenset(BUILTINS)   # every builtin call through builtin_call_node
    try:
        general = analyzed(src)
    finally:
        R_._CHECKED_CALLS = saved
    assert fast == general


@pytest.mark.parametrize("src,expected", [
    ("(let [+ -] (+ 5 2))", 3),
    ("(defn inc [x] (* 10 x)) (inc 2)", 20),
    ("(def odd? even?) (filter odd? [1 2])", [2]),
    ("(let [odd? even?] (filter odd? [1 2]))", [2]),
    ("(defn f [] (g 1)) (defn g [x] x) (f)", 1),
    ("(take 2 (range 0 10 0))", [0, 0]),
    ("(let [f inc] (f 1))", 2),
])
def test_shadowing_and_special_calls(src, expected, backend):
    r = run(src, backend)
    assert r.status == "ok", r.error
    assert ptclisp.to_python(r.value) == expected


def test_session_definition_shadows_builtin():
    s = ptclisp.Session()
    assert s.eval("(defn inc [x] (* 10 x))").ok
    assert s.eval("(map inc [1 2])").value == ptclisp.read_string("[10 20]")
    assert s.eval("(inc 3)").value == 30


@pytest.mark.parametrize("src,kind,message,span", [
    ("(inc 1\n  2)", "arity_error", "inc called with 2 arguments (expects 1)", (1, 1, 2, 5)),
    ("(apply +)", "invalid_arity", "apply needs a function and at least one argument: (apply f args)", (1, 1, 1, 10)),
    ("(% 1)", "invalid_placeholder", "% can only be used inside #(...)", (1, 2, 1, 3)),
    ("(foo 1)", "unbound_var", None, (1, 2, 1, 5)),
])
def test_errors_keep_kind_message_span(src, kind, message, span, backend):
    r = run(src, backend)
    assert r.status == "error"
    e = r.error
    assert e.kind == kind
    if message is not None:
        assert e.message == message
    assert (e.span.line, e.span.col, e.span.end_line, e.span.end_col) == span
