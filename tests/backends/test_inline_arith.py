"""Inlined integer arithmetic and `nth` in compiled code agree with the builtins, whatever the operand types.

The closure tier evaluates a run-once expression by calling the builtins; the compiled back end
inlines `+ - * mod quot inc dec < > nth` with type guards, folding nested guards together
(`(mod (* i 37) 101)`). Random expressions over variables bound to ints (small, large, beyond
64 bits), floats, nil, strings and vectors must give the same value or the same error kind both ways.
"""
from hypothesis import given, settings, strategies as st

import ptclisp
from ptclisp.pipeline import evaluate

VALUES = st.one_of(
    st.integers(-5, 5), st.integers(-(2 ** 70), 2 ** 70), st.sampled_from([2 ** 62, -(2 ** 62), 2 ** 62 - 1]),
    st.floats(-1e6, 1e6, allow_nan=False), st.sampled_from(["nil", '"s"', "[1 2 3]", "true"]),
)
CONSTS = st.sampled_from(["0", "1", "2", "5", "37", "101", "-3", "2147483647"])


def exprs(depth):
    leaf = st.one_of(st.sampled_from(["a", "b"]), CONSTS)
    if depth == 0:
        return leaf
    sub = exprs(depth - 1)
    return st.one_of(
        leaf,
        st.tuples(st.sampled_from(["+", "-", "*", "mod", "quot", "<", ">", "="]), sub, sub).map(lambda t: f"({t[0]} {t[1]} {t[2]})"),
        st.tuples(st.sampled_from(["*", "mod", "quot"]), sub, CONSTS).map(lambda t: f"({t[0]} {t[1]} {t[2]})"),
        st.tuples(st.sampled_from(["inc", "dec"]), sub).map(lambda t: f"({t[0]} {t[1]})"),
        st.tuples(sub, sub, leaf, st.one_of(st.just(""), leaf)).map(lambda t: f"(+ {t[0]} {t[1]} {t[2]} {t[3]})"),
        sub.map(lambda e: f"(nth [10 20 30 40 50] {e})"),
        sub.map(lambda e: f"(nth [10 20 30 40 50] {e} :none)"),
    )


def _lit(v):
    if isinstance(v, str):
        return v
    return repr(v) if isinstance(v, float) else str(v)


def outcome(src, backend):
    s = ptclisp.Session()
    r = evaluate(s.env, src, s.limits, backend=backend)
    if r.error is not None:
        return ("error", r.error.kind)
    return ("ok", ptclisp.pr_str(r.value))


@settings(max_examples=300, deadline=None)
@given(a=VALUES, b=VALUES, e=exprs(3))
def test_compiled_arithmetic_agrees_with_the_builtins(a, b, e):
    # a fn body is compiled code in both back ends once hot; call it once through `compiled`
    # and compare with the closure tier's run-once evaluation of the same expression
    src = f"(let [a {_lit(a)} b {_lit(b)}] {e})"
    assert outcome(src, "compiled") == outcome(src, "tiered"), src


STRS = st.sampled_from(['"s"', '""', '"a b"', '"1"'])


@settings(max_examples=300, deadline=None)
@given(a=st.one_of(VALUES, STRS, st.sampled_from([":s", "[\"s\"]", "{:a 1}", "#{\"s\"}"])),
       b=st.one_of(VALUES, STRS), lit=STRS, e=exprs(2), lit_first=st.booleans())
def test_equality_with_a_string_literal_agrees_with_the_builtin(a, b, lit, e, lit_first):
    # `(= x "s")` compiles to `x == "s"` for a string x, the primitive for anything else; the
    # operand may be a variable or an expression (evaluated once), on either side
    for x in ("a", e, "(str a)"):
        test = f"(= {lit} {x})" if lit_first else f"(= {x} {lit})"
        src = f"(let [a {_lit(a)} b {_lit(b)}] [{test} (if {test} 1 2)])"
        assert outcome(src, "compiled") == outcome(src, "tiered"), src


@settings(max_examples=300, deadline=None)
@given(a=VALUES, b=VALUES, e1=exprs(2), e2=exprs(2))
def test_products_of_expressions_agree_with_the_builtin(a, b, e1, e2):
    # `(* e1 e2)` of two expressions: int operands of at most 32 bits multiply in place
    src = f"(let [a {_lit(a)} b {_lit(b)}] [(* {e1} {e2}) (* a {e2}) (* {e1} b) (* a b)])"
    assert outcome(src, "compiled") == outcome(src, "tiered"), src


def test_quot_inlined_errors_keep_their_message_and_position():
    for src, kind, msg in [("(quot a 0)", "arithmetic_error", "quot: division by zero"),
                           ("(quot a b)", "arithmetic_error", "quot: division by zero"),
                           ("(quot (inc a) nil)", "type_error", None), ('(quot "s" a)', "type_error", None)]:
        prog = f"(let [f (fn [a b] (do\n  {src}))] (f 7 0))"
        got = []
        for backend in ("compiled", "tiered"):
            s = ptclisp.Session()
            r = evaluate(s.env, f"(loop [i 0] (if (< i 30) (recur (inc i)) {prog}))", s.limits, backend=backend)
            assert r.error is not None and r.error.kind == kind, (src, backend, r)
            got.append((r.error.message, r.error.span.line, r.error.span.col))
        assert got[0] == got[1] and got[0][1:] == (2, 3), (src, got)
        if msg:
            assert got[0][0] == msg


def test_quot_inlined_values():
    src = "(mapv (fn [[a b]] (quot a b)) [[7 2] [-7 2] [7 -2] [-7 -2] [0 5] [7.5 2] [10 3] [2147483647 7] [1 2.0]])"
    for backend in ("compiled", "tiered"):
        assert outcome(src, backend) == ("ok", "[3 -3 -3 3 0 3 3 306783378 0]"), backend


def test_sums_of_more_operands_inlined_keep_errors_and_positions():
    for src, msg in [("(+ a b nil)", "+: expected a number, got nil"), ('(+ a "s" b)', "+: expected a number, got string"),
                     ("(+ (* a b) 1 c)", "+: expected a number, got string"), ("(+ a b 1 2.5)", None)]:
        prog = f'(let [f (fn [a b c] (do\n  {src}))] (f 7 0 "x"))'
        got = []
        for backend in ("compiled", "tiered"):
            s = ptclisp.Session()
            r = evaluate(s.env, f"(loop [i 0] (if (< i 30) (recur (inc i)) {prog}))", s.limits, backend=backend)
            got.append(("ok", ptclisp.pr_str(r.value)) if r.error is None
                       else (r.error.kind, r.error.message, r.error.span.line, r.error.span.col))
        assert got[0] == got[1], (src, got)
        if msg:
            assert got[0] == ("type_error", msg, 2, 3), (src, got)
        else:
            assert got[0] == ("ok", "10.5")
