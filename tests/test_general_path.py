"""The general path (`ptclisp.general_path()`) and the fast paths held to it.

Regression tests for the seven classes of issue #25 (each compared with the general path and
with the answer itself), the switch, and a fixed-seed sample of the differential generator
(benchmarks/differential.py; CI runs 20,000 of its programs, `.ci/run`).
"""
from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import ptclisp
from benchmarks.differential import CONFIGS, REFERENCE, Case, CaseGen, case, check, outcomes, same_failure, shrink
from ptclisp.backends import bytecode as compiler
from ptclisp.backends import closures as interp
from ptclisp import pipeline, values
from ptclisp.backends.bytecode import scan

ALL = list(CONFIGS)


def every_config(src: str, limits=None, runs=1) -> tuple:
    """The outcome of `src` (its last run) under every configuration, asserting they agree."""
    c = Case([(src, runs)], limits or {})
    outs = {name: outcomes(c, name) for name in ALL}
    for name in ALL:
        assert outs[name] == outs[REFERENCE], (name, src, outs[name], outs[REFERENCE])
    return outs[REFERENCE][-1]


# ------------------------------------------------------------------ 1. quot of a known-int local

@pytest.mark.parametrize("src, value", [
    ("(defn sum-digits [n] (if (< n 10) n (+ (mod n 10) (sum-digits (quot n 10))))) (sum-digits 4268)", "20"),
    ("(loop [i 100 j 0] (if (< i 5) j (recur (dec i) (+ j (quot i 3)))))", "1648"),
    ("(loop [i 9 j 0] (if (< i -9) j (recur (dec i) (+ j (quot i 2) (quot 7 i)))))", None),
])
def test_quot_of_an_int_local(src, value):
    o = every_config(src)
    if value is not None:
        assert o[:2] == ("ok", value)
    else:
        assert o[2] == "arithmetic_error" and o[3] == "quot: division by zero"


# ------------------------------------------------------------------ 2, 3. products over 64 bits are sized

def test_a_big_constant_product_is_charged():
    o = every_config("(loop [] (* 4611686018427387903 1000))", {"memory_bytes": 1})
    assert o[2] == "memory_exceeded" and o[4] == (1, 10)


def test_a_product_just_within_64_bits_is_not_charged():
    # 2**53 has 54 bits and 1000 has 10: 64 in all, computed directly
    o = every_config("(loop [x 9007199254740992] (* x 1000))", {"memory_bytes": 1})
    assert o[:2] == ("ok", "9007199254740992000")


BIG = "(* (reduce * (map (fn [_] " + "9" * 100 + ") (range 789))) 1048576)"   # about 262,121 bits


def test_mod_of_a_product_keeps_its_size_bound():
    src = f"(let [x {BIG}] (loop [i 0] (mod (* x 2147483647) 7)))"
    o = every_config(src, {"memory_bytes": 10 ** 9})
    assert o[2] == "memory_exceeded" and o[3].startswith("*: integer result would need about 262152 bits")


# ------------------------------------------------------------------ 4. evaluation order

@pytest.mark.parametrize("src, message, prints", [
    ('(loop [x "a"] (+ (inc x) (abs x)))', "inc: expected a number, got string", ()),
    ('(loop [x nil] (+ (inc x) (count (println "hi"))))', "inc: expected a number, got nil", ()),
    ('(loop [x nil] (< (dec x) (count (println "hi"))))', "dec: expected a number, got nil", ()),
    ('(loop [x nil] (= (- x 1) (do (println "hi") 1)))', "-: expected a number, got nil", ()),
    ('(defn f [x] (>= (+ x 1) (abs (str x)))) (mapv f [1 2 "a"])', None, ()),
])
def test_the_left_operand_runs_first(src, message, prints):
    o = every_config(src)
    assert o[0] == "error" and o[5] == prints
    if message is not None:
        assert o[3] == message


@pytest.mark.parametrize("config", ALL)
def test_a_pmap_function_keeps_the_order(config):
    # one worker: no race, so the message and the prints are compared too
    backend, ctx = CONFIGS[config]
    with ctx():
        s = ptclisp.Session()
        r = pipeline.evaluate(s.env, '(vec (pmap (fn [x] (+ (inc x) (count (println "hi")))) [nil]))', s.limits,
                             backend=backend)
    assert r.error.kind == "pmap_error" and "inc: expected a number, got nil" in r.error.message
    assert r.prints == []


def test_a_hot_copy_keeps_the_order():
    src = '(defn f [x] (+ (inc x) (count (println "r")))) (mapv f (conj (vec (range 30)) nil))'
    o = every_config(src)
    assert o[2] == "type_error" and o[5] == ("r",) * 30


# ------------------------------------------------------------------ 5. positions across evaluations

def test_a_fn_compiled_by_an_earlier_evaluation_fails_at_its_own_position():
    c = Case([("(defn h [x] (quot 10 x))", 1), ("(mapv h (range 30 -1 -1))", 1)], {})
    outs = {name: outcomes(c, name) for name in ALL}
    assert all(o == outs[REFERENCE] for o in outs.values()), outs
    assert outs[REFERENCE][1][2:5] == ("arithmetic_error", "quot: division by zero", (1, 13))


def test_a_loop_in_an_earlier_fn_fails_at_its_own_position():
    c = Case([("(defn g [n] (loop [i n] (if (< i 3) (recur (inc i)) (quot 1 (- i 3)))))", 1),
              ("(g 0)", 3), ("(mapv g (range 30))", 1)], {})
    outs = {name: outcomes(c, name) for name in ALL}
    assert all(o == outs[REFERENCE] for o in outs.values()), outs
    assert {o[4] for o in outs[REFERENCE][1:]} == {(1, 53)}


def test_a_self_call_with_the_wrong_arity_is_located_inside():
    c = Case([("(defn f1 [p] (f1))", 1), ("(f1 0)", 1)], {})
    outs = {name: outcomes(c, name) for name in ALL}
    assert all(o == outs[REFERENCE] for o in outs.values()), outs
    assert outs[REFERENCE][1][3:5] == ("wrong number of arguments to f1: expects 1, got 0", (1, 14))


# ------------------------------------------------------------------ 6. for's memory cap

@pytest.mark.parametrize("items, budget", [(300, 4000), (700, 8000)])   # closures; past interp.FOR_ISLAND_ITEMS
def test_for_has_one_cap_on_every_tier(items, budget):
    # the cap: the items the budget left at entry could hold, checked per item, located at the for
    o = every_config(f"(count (for [x (range {items})] x))", {"memory_bytes": budget})
    assert o[2] == "memory_exceeded" and o[3].startswith("for produced more than ") and o[4] == (1, 8)


def test_a_for_whose_items_allocate_fails_alike_on_every_tier():
    o = every_config('(count (for [x (range 700)] (str x "abcdefghijabcdefghij")))', {"memory_bytes": 9000})
    assert o[2] == "memory_exceeded"


def test_the_loop_limit_stops_growth_at_the_same_point():
    o = every_config("(loop [i 0 m {}] (recur 0 (assoc m 0 0)))", {"loop_limit": 30})
    assert o[2] == "loop_limit_exceeded" and o[6] == 30 * 40


# ------------------------------------------------------------------ 7. arity errors of hot fns

@pytest.mark.parametrize("src, message", [
    ("(defn my-fn [a b] (+ a b)) (mapv my-fn (range 30) (range 30)) (my-fn 1)",
     "wrong number of arguments to my-fn: expects 2, got 1"),
    ("(defn my-fn [a b] (+ a b)) (mapv my-fn (range 30) (range 30)) (my-fn 1 2 3)",
     "wrong number of arguments to my-fn: expects 2, got 3"),
    ("(defn g! [a & r] a) (mapv g! (range 30)) (g!)", "wrong number of arguments to g!: expects at least 1, got 0"),
    ("(mapv (fn a-b.c? [a b] a) (range 30))", "wrong number of arguments to a-b.c?: expects 2, got 1"),
])
def test_arity_errors_read_the_same_on_every_tier(src, message):
    o = every_config(src)
    assert (o[2], o[3]) == ("arity_mismatch", message)


# ------------------------------------------------------------------ the switch

def _emitted_names(src: str) -> set:
    node, host_refs = pipeline.analyze(src, ptclisp.Session().env.analyzer_env(), ptclisp.Limits())
    code, _consts, _meta = compiler.compile_node(node, host_refs)
    stack, out = [code], set()
    while stack:
        co = stack.pop()
        out.update(co.co_names)
        stack.extend(c for c in co.co_consts if hasattr(c, "co_code"))
    return out


def test_the_switch_turns_every_fast_path_off_and_back_on():
    before = {(m.__name__, n): getattr(m, n) for m, n, _ in ptclisp.fastpaths.SWITCHES}
    with ptclisp.general_path():
        assert (scan.INLINE_CALLS, scan.INLINE_HOFS, scan.INT_VARS) == (False, False, False)
        assert (values.IN_PLACE_GROWTH, values.INLINE_GROWTH, pipeline.PROGRAM_CACHE) == (False, False, False)
        assert min(interp.HOT_CALLS, interp.ISLAND_ITEMS, interp.FOR_ISLAND_ITEMS) > 10 ** 9
        with ptclisp.general_path():
            pass
        assert scan.INLINE_CALLS is False   # nested: the inner one restores the outer's settings
    assert {(m.__name__, n): getattr(m, n) for m, n, _ in ptclisp.fastpaths.SWITCHES} == before


def test_on_the_general_path_builtins_are_plain_calls():
    src = "(loop [i 0 m {}] (if (< i 9) (recur (inc i) (assoc m i (quot (* i 37) 5))) (get m 3)))"
    assert "_p_add" not in _emitted_names(src)          # (inc i) inlined
    with ptclisp.general_path():
        names = _emitted_names(src)
    assert {"_p_lt", "_p_inc", "_p_mul"} <= names and "_assoc_owned" not in names


def test_the_general_path_keeps_no_program():
    s = ptclisp.Session()
    with ptclisp.general_path():
        for _ in range(3):
            s.eval("(+ 1 2)")
    assert not s.env.programs.entries


# ------------------------------------------------------------------ the generator

@pytest.mark.parametrize("seed", range(40))
def test_generated_cases_agree_with_the_general_path(seed):
    c = case(10_000 + seed)
    assert check(c) == [], c.text()


@settings(max_examples=15, deadline=None, derandomize=True, suppress_health_check=list(HealthCheck))
@given(st.randoms(use_true_random=False))
def test_cases_drawn_by_hypothesis_agree_with_the_general_path(rng):
    c = CaseGen(rng).case()
    assert check(c) == [], c.text()


def test_generated_single_programs_agree_with_the_general_path():
    bad = [i for i in range(100) if check(case(20_000 + i, single=True))]
    assert bad == []


def test_the_generator_reaches_values_errors_prints_and_charges():
    outs = [o for i in range(120) for o in outcomes(case(30_000 + i), "default")]
    kinds = {o[2] for o in outs}
    assert sum(o[0] == "ok" for o in outs) > len(outs) // 3
    assert {"arithmetic_error", "type_error", None} <= kinds
    assert any(o[5] for o in outs) and any(o[6] for o in outs)


def test_a_difference_is_found_and_shrunk(monkeypatch):
    # a fast path made wrong on purpose: (inc x) on ints adds 2 outside the general path
    from ptclisp.backends.bytecode import inline
    real = inline.Inliner._inline_int

    def wrong(self, a, b, pyop, slow, node, unary=False):
        if unary and scan.INLINE_CALLS:
            b = inline.A.Constant(2) if type(pyop).__name__ == "Add" else b
        return real(self, a, b, pyop, slow, node, unary)
    monkeypatch.setattr(inline.Inliner, "_inline_int", wrong)
    c = Case([("(defn f [x] (* 2 x)) (f 4)", 1),
              ("(let [y (f 3)] (loop [i y] (if (< i 9) (recur (inc i)) i)))", 3)], {})
    diffs = check(c, ["default"])
    assert diffs and diffs[0][0] == "default"
    small = shrink(c, same_failure(diffs[0]))
    assert len(small.text()) < len(c.text()) and check(small, ["default"])


# ------------------------------------------------------------------ literals refused by the budget, at the literal
# (found by the campaign after the literal charges of issue 24 landed: compiled code had no position)

@pytest.mark.parametrize("src, budget, at", [
    ("(filterv (fn [x] {0 0 :c {0 0}}) [0])", 1, (1, 18)),
    ("(remove (fn [x4] {0 x4}) [0])", 1, (1, 18)),
    ("(mapv (fn [x] [x x]) [0])", 1, (1, 15)),
    ("(mapv (fn [x] #{x 1}) [0])", 1, (1, 15)),
    ("(for [x2 (range 5)] {0 0 :c {0 0}})", 200, (1, 21)),
    ("(for [x11 (range 4) :when {0 0 :c {0 0}}] 0)", 200, (1, 27)),
    ("(loop [i 0 a []] (if (< i 50) (recur (inc i) [i a]) a))", 300, (1, 46)),
])
def test_a_literal_the_budget_refuses_fails_at_the_literal_on_every_tier(src, budget, at):
    o = every_config(src, {"memory_bytes": budget})
    assert o[2] == "memory_exceeded" and o[4] == at, o
