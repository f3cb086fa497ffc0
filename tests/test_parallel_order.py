"""pmap / pcalls outcomes do not depend on how the workers were scheduled (docs/spec/runtime.md §9).

A worker's memory is a fixed share of what the caller had left, and finished workers are taken in input
order: the failure reported is the lowest-index worker's, and the lines kept are those of the workers up
to it. Each test repeats an operation whose workers finish in varying orders and asserts one outcome.
"""
from __future__ import annotations

import time

import pytest

import ptclisp
from ptclisp import Limits
from ptclisp import run as _run

SLOW = "(tool/wait {})"   # a worker that waits: the later workers finish before it


def wait(args):
    time.sleep(0.2)
    return 0


def run(src, **kw):
    tools = kw.pop("tools", {})
    return _run(src, tools={"wait": wait, **tools}, **kw)


def outcome(r):
    e = r.error
    return (r.status, None if e is None else (e.kind, e.message, repr(e.span)), tuple(r.prints),
            None if r.value is None else ptclisp.pr_str(r.value))


def test_the_lowest_index_failure_is_reported_though_a_later_one_finishes_first():
    src = f"(pmap (fn [i] (cond (= i 0) (do {SLOW} (/ 1 0)) (= i 3) (nth [] 5) :else i)) (range 6))"
    seen = {outcome(run(src)) for _ in range(8)}
    assert len(seen) == 1, seen
    (status, (kind, message, _span), prints, _value), = seen
    assert (status, kind) == ("error", "pmap_error")
    assert message.startswith("pmap worker 0 failed: ") and "division by zero" in message


def test_lines_are_kept_up_to_the_failing_worker_only():
    src = "(pmap (fn [i] (println \"w\" i) (when (= i 2) (/ 1 0)) i) (range 8))"
    for _ in range(8):
        r = run(src)
        assert r.error.kind == "pmap_error" and r.error.message.startswith("pmap worker 2 failed")
        assert r.prints == ["w 0", "w 1", "w 2"]


def test_pcalls_reports_its_lowest_failing_thunk():
    src = f"(pcalls #(do {SLOW} (fail \"first\")) #(+ 1 1) #(/ 1 0))"
    for _ in range(6):
        r = run(src)
        assert r.error.kind == "pcalls_error" and "called inside pcalls" in r.error.message, r.error


def test_later_workers_keep_their_tool_records_not_their_lines():
    calls = []

    def note(args):
        calls.append(args["i"])
        return args["i"]

    src = f"(pmap (fn [i] (if (= i 0) (do {SLOW} (/ 1 0)) (do (println \"t\" i) (tool/note {{:i i}})))) (range 4))"
    r = run(src, tools={"note": note})
    assert r.error.kind == "pmap_error" and r.error.message.startswith("pmap worker 0 failed")
    assert r.prints == []                        # no worker before the failing one printed
    ledger = sorted(c.args["i"] for c in r.tool_calls if c.name == "note")
    assert ledger == sorted(calls)               # every call that happened is on the ledger
    assert ledger                                # and some did happen before the failure was taken


def test_each_worker_has_a_fixed_share_of_what_the_caller_had_left():
    # 2 workers, ~1 MB left: a worker that needs 700 KB runs out whether or not the other has finished
    src = "(pmap (fn [n] (count (vec (range n)))) [10 70000])"
    seen = {outcome(run(src, limits=Limits(memory_bytes=1_000_000))) for _ in range(6)}
    assert len(seen) == 1, seen
    (status, (kind, message, _span), _, _), = seen
    assert kind == "memory_exceeded" and "shared by its parallel workers: each may use" in message
    # alone (one worker) the same work fits
    assert run("(pmap (fn [n] (count (vec (range n)))) [70000])", limits=Limits(memory_bytes=1_000_000)).status == "ok"


@pytest.mark.parametrize("src, memory", [
    # found by the differential campaign: whether the pmap or the mapv after it failed depended on which
    # worker leased the shared budget first
    ("(defn f1 [p2] (do (when (= p2 p2) (println \"at\" p2)) (+ (let [x3 p2] x3) (mod p2 -7)))) "
     "[(if (<= -10 0.5) \" x y \" \" x y \") (vec (pmap f1 [1 2 3])) (mapv f1 (range -2 24))]", 200),
    ("(defn g [n] (if (< n 1) 0 (do (println \"n\" n) (+ 1 (g (dec n)))))) (pmap g [30 5 12 40])", 2_000),
    ("(pcalls #(vec (range 40)) #(vec (range 3)) #(str (range 60)))", 1_500),
])
def test_small_budgets_give_one_outcome(src, memory):
    lim = Limits(memory_bytes=memory)
    seen = {outcome(run(src, limits=lim)) for _ in range(12)}
    assert len(seen) == 1, seen
