"""Table-driven tests of the language core: each case is (source, expected value as PTC text)."""
import pytest

import ptclisp
from helpers import run

CASES = [
    ("(+ 1 2)", "3"),
    ("(defn fib [n] (if (< n 2) n (+ (fib (- n 1)) (fib (- n 2))))) (fib 15)", "610"),
    ("(loop [i 0 acc 0] (if (< i 5) (recur (inc i) (+ acc i)) acc))", "10"),
    ("(let [[a b & r] [1 2 3 4] {:keys [x] :or {x 9}} {}] [a b r x])", "[1 2 [3 4] 9]"),
    ("(for [x [1 2 3] :when (odd? x)] (* x 10))", "[10 30]"),
    ("(for [x [1 2] y [10 20 30] :while (< y 25)] [x y])", "[[1 10] [1 20] [2 10] [2 20]]"),
    ("(-> 5 inc (* 2))", "12"),
    ("(cond false 1 :else 2)", "2"),
    ("(case 1.0 1 :one :other)", ":one"),
    ("(#(+ %1 %2) 1 2)", "3"),
    ("(or undefined-thing 5)", "5"),
    ("(if-some [x false] x :nope)", "false"),
    ("((fn fact [n] (if (< n 2) 1 (* n (fact (dec n))))) 5)", "120"),
    ("(let [fs (loop [i 0 acc []] (if (< i 3) (recur (inc i) (conj acc (fn [] i))) acc))] (map (fn [f] (f)) fs))", "[0 1 2]"),
    ("(reduce (fn [m x] (assoc m x (* x x))) {} (range 5))", "{0 0 1 1 2 4 3 9 4 16}"),
    ("(let [v [1 2] a (conj v 3) b (conj v 4)] [v a b])", "[[1 2] [1 2 3] [1 2 4]]"),
    ("(let [m {:a 1} a (assoc m :b 2) b (assoc m :c 3)] [m a b])", "[{:a 1} {:a 1 :b 2} {:a 1 :c 3}]"),
    ("(+ (do (def x 1) x) (let [y 2] y))", "3"),
    ("(let [f (fn [x] (* x 2))] (mapv f (range 100)))", "[" + " ".join(str(2 * i) for i in range(100)) + "]"),
    ("(let [k 3 f (fn [x] (+ x k))] (reduce + (map f (range 50))))", "1375"),
    ("(for [x [1 2 3] :let [y (* x 2)] :when (> y 2) z [y (inc y)]] z)", "[4 5 6 7]"),
    ("(for [x [1 2 3] y [1 2 3] :while (< y x)] [x y])", "[[2 1] [3 1] [3 2]]"),
    ("(defn add3 [a b c] (+ a b c)) (add3 1 2 3)", "6"),
    ("((fn [& xs] (count xs)) 1 2 3)", "3"),
    ("([1 2] 0)", "1"),
]


@pytest.mark.parametrize("src,expected", CASES)
def test_values(src, expected, backend):
    r = run(src, backend)
    assert r.status == "ok", r.error
    assert ptclisp.equal(r.value, ptclisp.read_string(expected)), ptclisp.pr_str(r.value)


ERRORS = [
    ("(loop [x 0] (recur (inc x)))", "loop_limit_exceeded"),
    ("(loop [x 0] (+ 1 (recur x)))", "invalid_form"),
    ("(loop [x 0] (recur))", "arity_mismatch"),
    ("(/ 1 0)", "arithmetic_error"),
    ("(+ 1 nil)", "type_error"),
    ("(foo 1)", "unbound_var"),
    ("((fn [x] x))", "arity_mismatch"),
    ("{:a 1 :a 2}", "duplicate_key"),
    ("#{1 1}", "duplicate_key"),
    ("(count (range 1000000000))", "memory_exceeded"),
    ("(apply str (map (fn [_] \"x\") (range 100000000)))", "memory_exceeded"),
    ("(defn f [n] (+ 1 (f n))) (f 1)", "memory_exceeded"),
    ("(if 1 2 3 4)", "invalid_arity"),
    ("(", "parse_error"),
    ("(nil 1)", "not_callable"),
    ("([1 2] :a)", "type_error"),
    ("%", "invalid_placeholder"),
    ("#(#(%))", "invalid_form"),
    ("(def)", "invalid_arity"),
    ("(let [x] x)", "invalid_form"),
    ("(cond 1)", "invalid_cond_form"),
    ("(->)", "invalid_thread_form"),
]


@pytest.mark.parametrize("src,kind", ERRORS)
def test_errors(src, kind, backend):
    r = run(src, backend)
    assert r.status == "error"
    assert r.error.kind == kind, r.error


def test_error_span_points_at_the_failing_call(backend):
    r = run("(let [x 1]\n  (+ x nil))", backend)
    assert r.error.kind == "type_error"
    assert (r.error.span.line, r.error.span.col) == (2, 3)


def test_return_and_fail_outcomes():
    assert ptclisp.run("(do (return 5) 6)").status == "returned"
    r = ptclisp.run("(fail {:x 1})")
    assert r.status == "failed" and ptclisp.to_python(r.value) == {"x": 1}


def test_prints_are_captured():
    r = ptclisp.run('(doseq [x [1 2]] (println "n" x))')
    assert r.prints == ["n 1", "n 2"]


def test_session_transactions():
    s = ptclisp.Session()
    assert s.eval("(def x 1)").ok
    assert s.eval("(def x 2) (/ 1 0)").status == "error"
    assert s.eval("x").value == 1
    assert s.eval("(def y 5) (fail :no)").status == "failed"
    assert s.eval("y").status == "error"
    assert s.eval("(+ x 1)").value == 2
    assert s.eval("(inc *1)").value == 3


def test_data_context_flexible_keys():
    r = ptclisp.run("(count data/user-ids)", context={"user_ids": [1, 2, 3]})
    assert r.value == 3
