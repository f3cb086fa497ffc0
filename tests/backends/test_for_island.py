"""for/doseq in the closure tier: a form that has seen `interp.FOR_ISLAND_ITEMS` items runs as a
compiled loop (interp.Builder.b_for). The switch must change nothing a program can see: values,
prints, errors and their positions, how often the first collection is evaluated, the locals the
body reads, and runs of the same form before and after it is compiled."""
from __future__ import annotations

import pytest

import ptclisp
from ptclisp.backends import closures as interp

LIMITS = ptclisp.Limits(timeout_ms=10_000, memory_bytes=200_000_000)


def outcome(src: str, threshold: int, monkeypatch, **kw):
    with monkeypatch.context() as mp:
        mp.setattr(interp, "FOR_ISLAND_ITEMS", threshold)
        r = ptclisp.run(src, limits=LIMITS, **kw)
    err = r.error
    return (r.status, None if err else ptclisp.pr_str(r.value), err and (err.kind, err.message,
            (err.span.line, err.span.col)), tuple(r.prints), tuple(c.name for c in r.tool_calls))


PROGRAMS = [
    "(count (for [x (range 3000) :let [y (* x x)] :when (odd? y)] {:x x :y y}))",
    "(let [k 5 m {:a 1}] (vec (for [x (range 1000) y [k (:a m)] :while (< y 4)] (+ x y k))))",
    "(defn rows [n] (for [i (range n) j (range 3)] [i j]))\n[(count (rows 10)) (count (rows 600)) (last (rows 700))]",
    "(doseq [x (range 900)] (when (zero? (mod x 300)) (println x)))",
    "(for [[k v] (zipmap (range 800) (range 800)) :when (> k 797)] (+ k v))",
    "(for [c \"hello world\" :when (not= c \\\\o)] c)",
    "(for [x (range 700)] (quot 10 (- x 650)))",
    "(reduce + (for [x (vec (range 2000)) :let [s (str x)]] (count s)))",
]


@pytest.mark.parametrize("src", PROGRAMS)
def test_compiled_and_closure_for_agree(src, monkeypatch):
    closures = outcome(src, 10**9, monkeypatch)
    assert closures[2] is None or closures[2][0] != "internal_error", closures
    assert outcome(src, 0, monkeypatch) == closures
    assert outcome(src, interp.FOR_ISLAND_ITEMS, monkeypatch) == closures


def test_the_first_collection_is_evaluated_once_per_run_on_either_side_of_the_switch(monkeypatch):
    calls = []

    def items(args):
        calls.append(args)
        return list(range(400))

    src = "(defn f [] (count (for [x (tool/items {}) :when (odd? x)] x)))\n[(f) (f) (f)]"
    got = outcome(src, interp.FOR_ISLAND_ITEMS, monkeypatch, tools={"items": items})
    assert got[1] == "[200 200 200]" and got[4] == ("items",) * 3
    assert len(calls) == 3


def test_a_form_is_compiled_once_it_has_seen_enough_items(monkeypatch):
    # 400 items, then 400 more: the second run of the form crosses the threshold of 512
    s = ptclisp.Session(limits=LIMITS)
    assert s.eval("(defn f [n] (vec (for [x (range n)] (* 2 x))))").ok
    assert s.eval("(count (f 400))").value == 400
    codes_before = len(s.env.globals)
    assert s.eval("[(count (f 400)) (last (f 600)) (f 3)]").value == ptclisp.read_string("[400 1198 [0 2 4]]")
    assert codes_before <= len(s.env.globals)


def test_a_timeout_inside_a_compiled_for_is_a_timeout(monkeypatch):
    with monkeypatch.context() as mp:
        mp.setattr(interp, "FOR_ISLAND_ITEMS", 0)
        r = ptclisp.run("(doseq [x (range 1000000) y [1 2 3]] y)",
                        limits={"timeout_ms": 100, "memory_bytes": 10**9})
    assert r.error is not None and r.error.kind == "timeout"


def test_a_for_too_big_for_memory_is_refused_when_compiled(monkeypatch):
    with monkeypatch.context() as mp:
        mp.setattr(interp, "FOR_ISLAND_ITEMS", 0)
        r = ptclisp.run("(count (for [x (range 10000000)] x))", limits={"memory_bytes": 1_000_000})
    assert r.error is not None and r.error.kind == "memory_exceeded"
