"""Loop variables known to hold ints, and the loop's back-edge checks.

The compiler drops the type guards of integer operations on a `loop` variable whose initial
value and every `recur` value are int-valued (compiler/scan.py `int_loop_locals`). Random loops
whose variables start and continue as ints, floats, nil, strings or big ints must give the
same value, or the same error kind and position, with the inference on and off. The back-edge
reads the deadline flag every `Compiler.CHECK_EVERY` iterations; the iteration limit stays exact.
"""
import pytest
from hypothesis import given, settings, strategies as st

import ptclisp
from ptclisp.backends.bytecode import scan
from ptclisp.backends.bytecode.emit import Compiler
from ptclisp.pipeline import evaluate

INITS = st.sampled_from(["0", "1", "-3", "7", "1.5", "nil", '"s"', "true", "4611686018427387904",
                         "(+ 1 2)", "(* 3 4)", "(mod 9 4)", "(inc 5)"])
CONSTS = st.sampled_from(["0", "1", "2", "3", "37", "-1", "0.5"])


def exprs(depth):
    leaf = st.one_of(st.sampled_from(["i", "a", "b"]), CONSTS)
    if depth == 0:
        return leaf
    sub = exprs(depth - 1)
    return st.one_of(
        leaf,
        st.tuples(st.sampled_from(["+", "-", "*"]), sub, sub).map(lambda t: f"({t[0]} {t[1]} {t[2]})"),
        st.tuples(st.sampled_from(["*", "mod"]), sub, CONSTS).map(lambda t: f"({t[0]} {t[1]} {t[2]})"),
        st.tuples(st.sampled_from(["inc", "dec"]), sub).map(lambda t: f"({t[0]} {t[1]})"),
        sub.map(lambda e: f"(nth [10 20 30 40 50] {e} :none)"),
        sub.map(lambda e: f"(str {e})"),
    )


def outcome(src, backend="tiered"):
    s = ptclisp.Session(limits={"loop_limit": 100, "timeout_ms": 60_000})
    r = evaluate(s.env, src, s.limits, backend=backend)
    if r.error is not None:
        return ("error", r.error.kind, r.error.span and (r.error.span.line, r.error.span.col))
    return ("ok", ptclisp.pr_str(r.value))


def both_ways(src, backend):
    scan.INT_VARS = False
    try:
        off = outcome(src, backend)
    finally:
        scan.INT_VARS = True
    return off, outcome(src, backend)


@settings(max_examples=300, deadline=None)
@given(a=INITS, b=INITS, ea=exprs(2), eb=exprs(2), stop=st.sampled_from(["3", "10", "i"]),
       backend=st.sampled_from(["tiered", "compiled"]))
def test_int_loop_variables_change_no_outcome(a, b, ea, eb, stop, backend):
    src = (f"(loop [i 0 a {a}\n      b {b}]\n  (if (< i {stop})\n    (recur (inc i)\n      {ea}\n      {eb})\n"
           f"    [i a b]))")
    off, on = both_ways(src, backend)
    assert on == off, src

def nodes_of(src: str, node_type) -> list:
    """The nodes of type `node_type` in the analysed `src`, outermost first."""
    from ptclisp.analyzer import nodes as N
    from ptclisp.runtime.meter import default_limits
    from ptclisp.pipeline import analyze as analyze_source
    from ptclisp.session import Environment
    node, _ = analyze_source(src, Environment().analyzer_env(), default_limits())
    found = []

    def walk(n):
        if type(n) is node_type:
            found.append(n)
        for c in N.children(n):
            walk(c)
    walk(node)
    return found


@pytest.mark.parametrize("src, ints", [
    ("(loop [i 1 acc 0] (if (> i 9) acc (recur (inc i) (+ acc i))))", {"i", "acc"}),
    ("(loop [i 0 x 1.5] (if (> i 9) x (recur (inc i) (+ x i))))", {"i"}),
    ("(loop [i 0 x 0] (if (> i 9) x (recur (inc i) (if (odd? i) x nil))))", {"i"}),
    ("(loop [i 0 j i] (if (> i 9) j (recur (inc i) (* j 2))))", {"i", "j"}),
    ("(loop [i 0 j 0] (if (> i 9) j (recur j (inc i))))", {"i", "j"}),
    ("(loop [i 0 j 0.0] (if (> i 9) j (recur j (inc i))))", set()),
    ("(fn [n] (loop [k n] (if (> k 9) k (recur (inc k)))))", set()),
])
def test_which_loop_variables_are_ints(src, ints):
    from ptclisp.analyzer import nodes as N
    found = scan.int_loop_locals(nodes_of(src, N.Loop)[0], set())
    assert {py.split("_", 1)[1] for py in found} == ints


@pytest.mark.parametrize("limit", [0, 1, 2, Compiler.CHECK_EVERY - 1, Compiler.CHECK_EVERY,
                                   Compiler.CHECK_EVERY + 1, 3 * Compiler.CHECK_EVERY + 7])
@pytest.mark.parametrize("backend", ["tiered", "compiled"])
@pytest.mark.parametrize("shape", ["loop", "fn"])
def test_the_iteration_limit_stays_exact(limit, backend, shape):
    def src(n):
        if shape == "loop":
            return f"(loop [i 0]\n  (if (< i {n}) (recur (inc i)) i))"
        return f"(defn f [i]\n  (if (< i {n}) (recur (inc i)) i))\n(f 0)"
    s = ptclisp.Session(limits={"loop_limit": limit})
    ok = evaluate(s.env, src(limit), s.limits, backend=backend)
    assert ok.ok and ok.value == limit
    text = src(limit + 1)
    over = evaluate(s.env, text, s.limits, backend=backend)
    assert over.error.kind == "loop_limit_exceeded"
    line2 = text.split("\n")[1]
    assert (over.error.span.line, over.error.span.col) == (2, line2.index("(recur") + 1)


@pytest.mark.parametrize("backend", ["tiered", "compiled"])
def test_a_loop_still_stops_at_its_deadline(backend):
    s = ptclisp.Session(limits={"loop_limit": 10 ** 15, "timeout_ms": 50})
    for src in ["(loop [i 0] (recur (inc i)))", "(loop [i 0 s 0.5] (recur (inc i) (+ s 1)))",
                "(defn f [i] (recur (inc i))) (f 0)"]:
        r = evaluate(s.env, src, s.limits, backend=backend)
        assert r.error.kind == "timeout" and r.error.details["phase"] == "eval"


def test_an_expired_deadline_is_seen_on_the_first_back_edge():
    # the flag is read at the first back-edge and every CHECK_EVERY after it: a loop that starts
    # after the deadline passed stops after one iteration, not CHECK_EVERY
    src = "(loop [i 0] (if (< i 100000) (recur (inc i)) i))"
    from ptclisp.runtime import meter as M
    from ptclisp.pipeline import analyze as analyze_source, build as build_main
    from ptclisp.session import Environment
    env = Environment()
    node, refs = analyze_source(src, env.analyzer_env(), M.default_limits())
    main = build_main(node, refs, env.globals, "compiled")
    m = M.Meter(M.Limits(loop_limit=10 ** 6))
    m.expired = True
    env.globals["_m"] = m
    with pytest.raises(ptclisp.PtcError) as e:
        main()
    assert e.value.kind == "timeout"


ARGS = st.sampled_from(["0", "1", "-3", "7", "1.5", "nil", '"s"', "true", "4611686018427387904", "[1 2]"])


@settings(max_examples=300, deadline=None)
@given(x=ARGS, y=ARGS, e=exprs(3), test=exprs(1), backend=st.sampled_from(["tiered", "compiled"]))
def test_int_argument_bodies_change_no_outcome(x, y, e, test, backend):
    # a named fn is compiled at once when it calls itself; the body is emitted once for int
    # arguments (no guards on them) and once in general
    src = (f"(defn f [i a b]\n  (if (or (> i 0) (nil? {test}))\n    {e}\n    (f (inc i) a b)))\n"
           f"[(f 0 {x} {y}) (f 0 {y} {x})]")
    off, on = both_ways(src, backend)
    assert on == off, src


def test_which_parameters_get_an_int_body():
    from ptclisp.analyzer import nodes as N

    def fn_of(src):
        return nodes_of(src, N.Fn)[0]

    def names(src):
        return [py.split("_", 1)[1] for py in scan.int_params(fn_of(src))]
    assert names("(fn [n s] (if (< n 2) n (+ (count s) (- n 1))))") == ["n"]
    assert names("(fn [a b] (* a (inc b)))") == ["a", "b"]
    assert names("(fn [a b] (str a b))") == []
    assert names("(fn [n] (map (fn [x] (+ x n)) [1]))") == []     # a closure inside: emitted once
    assert names("(fn [n & more] (+ n 1))") == []                 # rest arguments: emitted once
    assert names("(fn [n] (if (> n 0) (recur (dec n)) n))") == []  # recur rebinds the parameters


@settings(max_examples=300, deadline=None)
@given(items=st.lists(ARGS, min_size=1, max_size=5), e=exprs(3), test=exprs(1),
       hof=st.sampled_from(["mapv", "map", "filter", "remove", "mapcat"]), backend=st.sampled_from(["tiered", "compiled"]))
def test_int_item_bodies_of_inline_loops_change_no_outcome(items, e, test, hof, backend):
    # the whole-program back end inlines the loop; its body is emitted once for an int item
    # (no guards on it) and once in general; mixed items take both
    body = {"filter": f"(nil? {test})", "remove": f"(nil? {test})", "mapcat": f"[{e}]"}.get(hof, e)
    src = f"(let [a 2 b 3]\n  ({hof} (fn [i]\n    {body}) [{' '.join(items)}]))"
    off, on = both_ways(src, backend)
    assert on == off, src
