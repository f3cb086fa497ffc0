"""The fast paths of the hot spots (docs/performance.md) give the same values, errors and limits
as the general paths they skip. Collections of 30 or more items make a higher-order builtin
compile its fn argument at once (`registry.hot`); named functions are compiled on first use, so
a builtin call inside `defn` runs the inlined forms of the compiler (`nth`, `(:k m)`, map
literals)."""
from __future__ import annotations

import pytest

import ptclisp
from ptclisp.runtime import meter
from ptclisp import Limits
from ptclisp.errors import PtcError
from helpers import expect, run
from ptclisp.lib import strings

R30 = "(range 30)"


VALUES = [
    # a fn literal handed to a builtin over a long collection (compiled up front)
    (f"(mapv (fn [i] {{:i i :c (nth [:a :b] (mod i 2))}}) {R30})",
     "[" + " ".join(f"{{:i {i} :c {':a' if i % 2 == 0 else ':b'}}}" for i in range(30)) + "]"),
    (f"(count (filter #(> (:p %) 10) (mapv (fn [i] {{:p i}}) {R30})))", "19"),
    (f"(count (remove (fn [x] (odd? x)) {R30}))", "15"),
    (f"(reduce (fn [a x] (+ a x)) 0 {R30})", "435"),
    (f"(count (mapcat (fn [x] [x x]) {R30}))", "60"),
    (f"(count (keep (fn [x] (when (even? x) x)) {R30}))", "15"),
    (f"(last (map-indexed (fn [i x] (* i x)) {R30}))", "841"),
    (f"(count (keep-indexed (fn [i x] (when (< i 3) x)) {R30}))", "3"),
    (f"(first (sort-by (fn [x] (- x)) {R30}))", "29"),
    (f"(count (group-by (fn [x] (mod x 3)) {R30}))", "3"),
    (f"(let [f (fn [x] (* 2 x))] (mapv f {R30}) [(f 21) (fn? f)])", "[42 true]"),
    # a closure created inside a compiled loop keeps its own captured value
    (f"(let [fs (mapv (fn [i] (fn [] i)) {R30})] [((first fs)) ((last fs))])", "[0 29]"),
    # (:k m) inlined: keyword key, string key, missing, non-maps, a stale version of a map
    ("(defn g [m] (:a m)) [(g {:a 1}) (g {\"a\" 2}) (g {:b 3}) (g nil) (g [1]) (g #{:a})]",
     "[1 2 nil nil nil nil]"),
    ("(defn g [m] (:a m)) (let [m (assoc {} :a 1) m2 (assoc m :a 2)] [(g m) (g m2)])", "[1 2]"),
    ("(defn g [m] (:a-b m)) [(g {:a_b 1}) (g {\"a_b\" 2})]", "[1 2]"),
    ("(defn g [m] (:a m :none)) [(g {:a 1}) (g {})]", "[1 :none]"),
    # nth inlined: in range, out of range, negative, float index, strings, nil, not-found
    ("(defn g [v i] (nth v i)) [(g [1 2 3] 1) (g [1 2 3] 3) (g [1 2 3] -1) (g [1 2 3] 1.0) (g \"abc\" 2) (g nil 0)]",
     "[2 nil nil 2 \"c\" nil]"),
    ("(defn g [v i] (nth v i :nf)) [(g [1] 0) (g [1] 5)]", "[1 :nf]"),
    ("(defn g [v] (nth v (count v))) (let [v (conj [1] 2) w (conj v 3)] [(g v) (g w) (nth v 1)])",
     "[nil nil 2]"),
    # map literals built in compiled code are ordinary maps: assoc/conj copy them
    ("(defn mk [x] {:a x}) (let [m (mk 1) m2 (assoc m :b 2)] [m m2])", "[{:a 1} {:a 1 :b 2}]"),
    ("(defn mk [x] {x 1 1.0 2 true 3}) (mk 1)", "{1 1 1.0 2 true 3}"),
    # keyword field of every map at once, and every fallback
    ("(map :a [{:a 1} {:a 2}])", "[1 2]"),
    ("(map :a [{:a 1} {:b 2} {\"a\" 3} nil #{:a} [1]])", "[1 nil 3 nil nil nil]"),
    ("(let [m (assoc {} :a 1) m2 (assoc m :a 2)] (map :a [m m2]))", "[1 2]"),
    ("(map :a [{\"a\" 1} {:a 2}])", "[1 2]"),
    ("(group-by :k [{:k 1} {:k 1.0} {:k true} {:k 1}])", "{1 [{:k 1} {:k 1}] 1.0 [{:k 1.0}] true [{:k true}]}"),
    ("(group-by :k [{:k \"x\"} {:k :x} {:k \"x\"} {}])", "{\"x\" [{:k \"x\"} {:k \"x\"}] :x [{:k :x}] nil [{}]}"),
    ("(group-by identity [1 2 1])", "{1 [1 1] 2 [2]}"),
    ("(group-by identity [2 2.0 false nil])", "{2 [2] 2.0 [2.0] false [false] nil [nil]}"),
    ("(group-by identity [##NaN 1.0])", "{##NaN [##NaN] 1.0 [1.0]}"),
    # frequencies: Python would merge 1, 1.0 and true; PTC keeps them apart
    ("(frequencies [1 1.0 true 1 \"a\" \"a\" :a nil])", "{1 2 1.0 1 true 1 \"a\" 2 :a 1 nil 1}"),
    ("(frequencies [\"b\" \"a\" \"b\"])", "{\"a\" 1 \"b\" 2}"),
    ("(frequencies [0 false 0.0])", "{0 1 false 1 0.0 1}"),
    ("(frequencies [[1] [1.0] [1]])", "{[1] 2 [1.0] 1}"),
    # (map count ...) all at once, or one by one
    ("(map count [\"ab\" \"\" \"héllo\"])", "[2 0 5]"),
    ("(map count [\"ab\" \"cd\"])", "[2 2]"),
    ("(map count [[1] #{1 2} {:a 1 :b 2}])", "[1 2 2]"),
    ("(map count [\"ab\" [1] nil])", "[2 1 0]"),
    ("(reduce + (map count [\"ab\" \"cde\"]))", "5"),
    ("(reduce + [1 2 3])", "6"),
    ("(reduce + 0.5 [1 2])", "3.5"),
    ("(reduce + [1 2.5])", "3.5"),
    # split / join / upper-case fast paths
    ("(split \"a b  c\" \" \")", "[\"a\" \"b\" \"\" \"c\"]"),
    ("(split \"a,b,,\" \",\")", "[\"a\" \"b\"]"),
    ("(split \",,,\" \",\")", "[]"),
    ("(split \"\" \",\")", "[\"\"]"),
    ("(split \"abc\" \",\")", "[\"abc\"]"),
    ("(split \"a,b,c\" \",\" 2)", "[\"a\" \"b,c\"]"),
    ("(split \"a,b,,\" \",\" -1)", "[\"a\" \"b\" \"\" \"\"]"),
    ("(split \"a,b\" \",\" 0.0)", "[\"a\" \"b\"]"),
    ("(join \"-\" [\"a\" \"b\"])", "\"a-b\""),
    ("(join \"-\" [1 :a nil \"x\"])", "\"1-:a--x\""),
    ("(join 0 [\"a\" \"b\"])", "\"a0b\""),
    ("(join [\"a\" \"b\"])", "\"ab\""),
    ("(join \"-\" \"abc\")", "\"a-b-c\""),
    ("(join \"-\" [])", "\"\""),
    ("(upper-case \"abc\")", "\"ABC\""),
    ("(lower-case \"ABC\")", "\"abc\""),
    ("(upper-case :a)", "\":A\""),  # GAP-S139: a keyword is read as its str text
    ("(lower-case 12)", "\"12\""),
]


@pytest.mark.parametrize("src,expected", VALUES)
def test_fast_paths_give_the_general_values(src, expected, backend):
    expect(src, expected, backend)


ERRORS = [
    # a fn that cannot take one argument keeps the closure's own arity error
    (f"(mapv (fn [a b] a) {R30})", "arity_mismatch", "wrong number of arguments to fn: expects 2, got 1"),
    (f"(filter (fn [] true) {R30})", "arity_mismatch", "wrong number of arguments to fn: expects 0, got 1"),
    ("(split 1 \" \")", "type_error", None),
    ("(split \"a b\" \"ab\")", "type_error", None),
    ("(split \"a b\" \" \" true)", "type_error", None),
    ("(upper-case nil)", "type_error", None),
    ("(upper-case [1])", "type_error", None),
    ("(join \"-\" 5)", "type_error", None),
    ("(map count [\"a\" 5])", "type_error", None),
    ("(defn g [v i] (nth v i)) (g {:a 1} 0)", "type_error", None),
    ("(defn g [v i] (nth v i)) (g [1] :x)", "type_error", None),
]


@pytest.mark.parametrize("src,kind,message", ERRORS)
def test_fast_paths_fail_like_the_general_ones(src, kind, message, backend):
    r = run(src, backend)
    assert r.status == "error"
    assert r.error.kind == kind
    if message is not None and backend == "tiered":  # whole-program bytecode words arity errors its own way
        assert r.error.message == message


@pytest.mark.parametrize("n", [3, 30])
def test_an_error_inside_a_fn_argument_points_at_the_failing_form(n):
    # whether the fn still runs as closures (3 items) or was compiled up front (30)
    r = run(f"(mapv (fn [x]\n  (/ 1 x)) (range {n}))", "tiered")
    assert r.error.kind == "arithmetic_error"
    assert (r.error.span.line, r.error.span.col) == (2, 3)


def test_a_compiled_fn_argument_still_checks_the_deadline():
    src = "(count (map (fn [x] (count (range 200))) (range 1000000)))"
    r = run(src, "tiered", Limits(timeout_ms=50, memory_bytes=10**12))
    assert r.error.kind == "timeout"


def _charged(fn, *args, budget=10**9):
    """Bytes `fn(*args)` charges to a fresh meter (or the PtcError it raises)."""
    m = meter.Meter(Limits(timeout_ms=None, memory_bytes=budget))
    prev = meter.install(m)
    try:
        fn(*args)
        return m.allocated
    except PtcError as e:
        return e
    finally:
        meter.install(prev)


def test_split_and_join_charge_what_they_build_before_building():
    s = "alpha beta gamma"
    n = 3
    assert _charged(strings.split, s, " ") == 98 * n + len(s) + meter.seq_cost(n)
    assert _charged(strings.join, "-", ptclisp.read_string('["ab" "cde"]')) == meter.str_cost(6)
    huge = "," * 1_000_000
    err = _charged(strings.split, huge, ",", budget=100_000)
    assert err.kind == "memory_exceeded" and err.details["requested_bytes"] > 100_000_000


def test_charge_is_alloc_in_one_call():
    m = meter.Meter(Limits(timeout_ms=None, memory_bytes=100))
    prev = meter.install(m)
    try:
        meter.charge(60)
        assert m.allocated == 60
        with pytest.raises(PtcError) as over:
            meter.charge(50)
        assert over.value.kind == "memory_exceeded" and over.value.details["requested_bytes"] == 50
        m.expired = True
        m.allocated = 0
        with pytest.raises(PtcError) as late:
            meter.charge(1)
        assert late.value.kind == "timeout"
    finally:
        meter.install(prev)
