"""Generated code compiles without a warning, whatever literals a program puts where.

CPython's compile() warns (SyntaxWarning; an error under `python -W error`) when an `is` test has a
literal operand (`"s" is None`) or a literal is called (`"s"(1)`), also after its own constant
folding (`(3 + 4) is None`). A program's literals reach the generated code's operands directly
(`(nil? "s")`) or through forms that emit a constant (`(do 5)`, `(+ 3 4)`), so the compiler folds
those tests and keeps literals out of call position. Each program runs under warnings-as-errors
through the whole-program compiler and through the closure tier (whose loops are compiled), and
both must agree with the builtins.
"""
import warnings

import pytest
from hypothesis import given, settings, strategies as st

import ptclisp
from ptclisp.pipeline import evaluate

LOOP = "(loop [i 0] (if (< i 2) (recur (inc i)) {}))"  # a loop: the tiered back end compiles it


def outcome(src: str, backend: str):
    s = ptclisp.Session()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        r = evaluate(s.env, src, s.limits, backend=backend)
    if r.error is not None:
        return ("error", r.error.kind)
    return ("ok", ptclisp.pr_str(r.value))


@pytest.mark.parametrize("backend", ["compiled", "tiered"])
@pytest.mark.parametrize("expr,value", [
    ('(nil? "s")', "false"), ("(some? 5)", "true"), ("(nil? nil)", "true"), ("(some? nil)", "false"),
    ("(nil? 1.5)", "false"), ("(some? false)", "true"), ("(nil? ##NaN)", "false"), ('(not "s")', "false"),
    ('(nil? (do "s"))', "false"), ("(some? (let [x 1] 5))", "true"), ("(nil? (do 1 2))", "false"),
    ("(nil? (+ 3 4))", "false"), ("(some? (mod 7 2))", "true"), ("(nil? (inc 3))", "false"),
    ("(some? (- 3 4))", "true"), ("(nil? (* 3 4))", "false"), ("(nil? (when false 1))", "true"),
])
def test_nil_checks_of_literals_fold(backend, expr, value):
    assert outcome(LOOP.format(expr), backend) == ("ok", value)


@pytest.mark.parametrize("backend", ["compiled", "tiered"])
@pytest.mark.parametrize("expr", ['((do "s") 1)', "((let [x 1] 5) 1)", "((do nil) 1)", "((+ 1 2) 3)",
                                  "((do 1.5))"])
def test_calling_a_literal_is_a_typed_error(backend, expr):
    s = ptclisp.Session()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        r = evaluate(s.env, "\n  " + LOOP.format(expr), s.limits, backend=backend)
    assert r.error is not None and r.error.kind == "not_callable", r.error
    assert (r.error.span.line, r.error.span.col) == (2, 3 + LOOP.index("{}"))


# ---------------------------------------------------------------- random literals everywhere

LITERALS = st.sampled_from([
    "nil", "true", "false", "0", "1", "-7", "37", "2147483647", "4611686018427387904", "123456789012345678901234",
    "1.5", "-0.0", "##NaN", "##Inf", "##-Inf", '""', '"s"', '"日本"', "\\a", ":k", "'sym", "[]", "[1 2]", "{}",
    "{:a 1}", "#{}", "#{1}",
])
INTS = st.sampled_from(["0", "1", "-3", "7", "101", "2147483647", "4611686018427387904"])


def constant_exprs():
    """Forms whose generated code is a Python constant, or folds to one in CPython's optimizer."""
    return st.one_of(
        LITERALS,
        LITERALS.map(lambda x: f"(do {x})"),
        LITERALS.map(lambda x: f"(do 0 {x})"),
        LITERALS.map(lambda x: f"(let [x 1] {x})"),
        st.tuples(st.sampled_from(["+", "-", "*", "mod", "<", ">", "="]), INTS, INTS).map(lambda t: f"({t[0]} {t[1]} {t[2]})"),
        st.tuples(st.sampled_from(["inc", "dec", "-"]), INTS).map(lambda t: f"({t[0]} {t[1]})"),
    )


UNARY = ["nil?", "some?", "not", "true?", "false?", "zero?", "pos?", "neg?", "even?", "odd?", "empty?",
         "string?", "number?", "keyword?", "map?", "vector?", "set?", "coll?", "int?", "float?", "boolean?",
         "fn?", "inc", "dec", "first", "count", "str", "identity", "-", ":a"]
BINARY = ["=", "not=", "<", ">", "<=", ">=", "+", "-", "*", "mod", "quot", "nth", "get", "contains?", "conj",
          "and", "or", "if", "when", "str"]


def uses():
    x = constant_exprs()
    return st.one_of(
        st.tuples(st.sampled_from(UNARY), x).map(lambda t: f"({t[0]} {t[1]})"),
        st.tuples(st.sampled_from(BINARY), x, x).map(lambda t: f"({t[0]} {t[1]} {t[2]})"),
        st.tuples(x, x).map(lambda t: f"({t[0]} {t[1]})"),                     # a literal called
        st.tuples(x, x).map(lambda t: f"(if (nil? {t[0]}) {t[1]} :else)"),
        st.tuples(x, x).map(lambda t: f"(cond {t[0]} 1 (some? {t[1]}) 2 :else 3)"),
        st.tuples(x, x).map(lambda t: f"(mapv (fn [_] (nil? {t[0]})) [{t[1]}])"),
    )


@settings(max_examples=400, deadline=None)
@given(expr=uses())
def test_any_literal_operand_compiles_without_a_warning(expr):
    """Under warnings-as-errors nothing is an internal error, and compiled code agrees with the builtins."""
    src = LOOP.format(expr)
    compiled = outcome(src, "compiled")
    assert compiled != ("error", "internal_error"), src
    assert compiled == outcome(src, "tiered") == outcome(expr, "tiered"), src
