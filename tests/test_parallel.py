"""pmap / pcalls: values, order, effects, budgets and failures (docs/spec/runtime.md §9)."""
from __future__ import annotations

import threading
import time

import pytest

import ptclisp
from helpers import run_py as value
from ptclisp import Limits, run
from ptclisp.parallel import disown
from ptclisp.values import Vector


@pytest.mark.parametrize("src, expected", [
    ("(let [factor 10] (pmap #(* % factor) [1 2 3]))", [10, 20, 30]),
    ("(apply pmap [inc [1 2 3]])", [2, 3, 4]),
    ("((partial pmap inc) [1 2 3])", [2, 3, 4]),
    ("(map pmap [inc dec] [[1 2] [3 4]])", [[2, 3], [2, 3]]),
    ("(pmap inc nil)", []),
    ('(pmap str "ab")', ["a", "b"]),
    ("(pmap + [1 2 3] [10 20])", [11, 22]),
    ("(pmap vector [1 2] [3 4] [5 6] [7 8])", [[1, 3, 5, 7], [2, 4, 6, 8]]),
    ("(pmap :a [{:a 1} {:a 2}])", [1, 2]),
    ("(pmap inc #{1})", [2]),
    ("(pmap inc (range 100))", list(range(1, 101))),
    ("(pcalls #(+ 1 1) #(* 2 3) #(- 10 5))", [2, 6, 5]),
    ("(apply pcalls [#(+ 1 1) #(* 2 3)])", [2, 6]),
    ("(pcalls)", []),
    ("(pmap (fn [x] (pmap inc [x x])) [1 2])", [[2, 2], [3, 3]]),
])
def test_values(src, expected):
    assert value(src) == expected


def test_results_keep_input_order_whatever_finishes_first():
    def lookup(args):
        time.sleep(0.002 * (10 - args["i"]))  # later items finish first
        return args["i"] * 10
    assert value("(pmap #(tool/lookup {:i %}) (range 10))", tools={"lookup": lookup}) == [i * 10 for i in range(10)]


def test_prints_and_tool_records_merge_in_input_order():
    def echo(args):
        time.sleep(0.001 * (8 - args["i"]))
        return args["i"]
    r = run("(pmap (fn [i] (println \"item\" i) (tool/echo {:i i})) (range 8))", tools={"echo": echo})
    assert r.status == "ok"
    assert r.prints == [f"item {i}" for i in range(8)]
    assert [c.args["i"] for c in r.tool_calls] == list(range(8))


def test_prints_before_and_after_the_parallel_part_stay_around_it():
    r = run('(println "before") (pcalls #(println "a") #(println "b")) (println "after")')
    assert r.prints == ["before", "a", "b", "after"]


def test_defs_inside_workers_are_discarded():
    s = ptclisp.Session()
    r = s.eval("(def y 0) (pmap (fn [x] (def y x) x) [1 2 3])")
    assert r.status == "ok"
    assert ptclisp.to_python(s.eval("y").value) == 0


def test_workers_read_earlier_definitions():
    assert value("(def k 5) (defn f [x] (* x k)) (pmap f [1 2])") == [5, 10]


@pytest.mark.parametrize("src, kind, needle", [
    ("(pmap (fn [x] (return x)) [1])", "pmap_error", "return called inside pmap"),
    ("(pmap (fn [x] (fail x)) [1])", "pmap_error", "fail called inside pmap"),
    ("(pcalls #(return 1))", "pcalls_error", "return called inside pcalls"),
    ("(pcalls 1)", "pcalls_error", "argument 0"),
    ("(pcalls #(+ 1 1) (fn [x] x))", "pcalls_error", "argument 1"),
    ("(pcalls :a)", "pcalls_error", "argument 0"),
    ("(pmap :a {:a 1})", "type_error", "keyword"),
    ("(pmap 1 [1 2])", "type_error", "pmap"),
    ("(pmap inc 5)", "type_error", "pmap"),
])
def test_failures(src, kind, needle):
    r = run(src)
    assert r.status == "error"
    assert r.error.kind == kind
    assert needle in r.error.message


def test_a_worker_error_reaches_the_caller_with_its_reason():
    r = run("(pmap (fn [x] (/ 10 x)) [1 0 2])")
    assert r.error.kind == "pmap_error"
    assert r.error.details["reason"] == "arithmetic_error"
    assert r.error.details["index"] == 1
    r = run("(pcalls #(+ 1 1) #(inc nil))")
    assert r.error.kind == "pcalls_error"
    assert r.error.details["index"] == 1


def test_pcalls_checks_every_thunk_before_starting_any():
    calls = []
    r = run("(pcalls #(tool/t {}) 42)", tools={"t": lambda a: calls.append(1)})
    assert r.error.kind == "pcalls_error"
    assert calls == []


def test_no_free_slot_is_an_error_not_a_wait():
    r = run("(pmap (fn [x] (pmap inc [x])) (range 8))")
    assert r.error.kind == "parallel_capacity_exceeded"
    r = run("(pmap (fn [x] (pmap inc [x])) [1])", limits=Limits(max_parallel_workers=1))
    assert r.error.kind == "parallel_capacity_exceeded"


def test_nesting_fits_when_slots_remain():
    assert value("(pmap (fn [x] (pmap inc [x x])) [1 2])", limits=Limits(max_parallel_workers=6)) == [[2, 2], [3, 3]]


def test_a_wide_collection_runs_in_batches_of_the_slots_it_holds():
    seen = []
    lock = threading.Lock()
    live = [0]

    def probe(args):
        with lock:
            live[0] += 1
            seen.append(live[0])
        time.sleep(0.005)
        with lock:
            live[0] -= 1
        return args["i"]

    r = run("(pmap #(tool/probe {:i %}) (range 12))", tools={"probe": probe}, limits=Limits(max_parallel_workers=3))
    assert ptclisp.to_python(r.value) == list(range(12))
    assert max(seen) <= 3


def test_slots_are_released_after_each_operation():
    lim = Limits(max_parallel_workers=1)
    assert value("(pmap inc [1 2]) (pmap inc [3 4]) (pcalls #(+ 1 1))", limits=lim) == [2]
    r = run("(pmap (fn [x] (/ 1 x)) [0])", limits=lim)
    assert r.error.kind == "pmap_error"


def test_tool_budget_is_shared_with_workers():
    calls = []
    lock = threading.Lock()

    def t(args):
        with lock:
            calls.append(args)
        return 1
    r = run("(tool/t {}) (pmap (fn [i] (tool/t {:i i})) (range 8))", tools={"t": t},
            limits=Limits(max_tool_calls=4))
    assert r.error.kind == "tool_call_limit_exceeded"
    assert len(calls) == 4


def test_parallel_deadline_is_a_timeout():
    def slow(args):
        time.sleep(0.3)
    r = run("(pmap #(tool/slow {:i %}) [1 2])", tools={"slow": slow}, limits=Limits(pmap_timeout_ms=50))
    assert r.error.kind == "timeout"
    assert r.error.details.get("phase") == "parallel"


def test_evaluation_deadline_clamps_the_parallel_one():
    r = run("(pmap (fn [x] (loop [i 0] (recur i))) [1 2])",
            limits=Limits(timeout_ms=100, loop_limit=10**12, pmap_timeout_ms=60_000))
    assert r.error.kind == "timeout"


def test_nested_operations_share_the_outer_deadline():
    def slow(args):
        time.sleep(0.3)
    r = run("(pmap (fn [x] (pmap #(tool/slow {:i %}) [x])) [1 2])", tools={"slow": slow},
            limits=Limits(pmap_timeout_ms=80))
    assert r.error.kind == "timeout"


def test_worker_memory_cap():
    r = run("(pmap (fn [n] (count (range n))) [10 100000000])")
    assert r.error.kind == "memory_exceeded"


def test_what_workers_hand_back_is_charged_to_the_caller():
    # each worker stays within its own budget, but the caller keeps all the results
    src = "(loop [acc [] i 0] (if (< i 6) (recur (conj acc (pmap (fn [_] (vec (range 300000))) (range 8))) (inc i)) acc))"
    r = run(src, limits=Limits(timeout_ms=30_000, pmap_timeout_ms=30_000))  # the budget, not a loaded clock
    assert r.error.kind == "memory_exceeded"
    assert value("(count (pmap (fn [_] (vec (range 1000))) (range 8)))") == 8


def test_a_failed_parallel_operation_leaves_the_session_usable():
    s = ptclisp.Session()
    assert s.eval("(pmap (fn [x] (/ 1 x)) [0 1])").error.kind == "pmap_error"
    r = s.eval("(pmap inc [1 2])")
    assert r.status == "ok" and ptclisp.to_python(r.value) == [2, 3]
    assert s.eval("(loop [i 0] (if (< i 500) (recur (inc i)) i))").value == 500


def test_worker_results_give_up_in_place_extension():
    built = {}

    def build():
        from ptclisp.values import set_owner_token
        token = object()
        set_owner_token(token)
        v = Vector([], token)
        built["v"] = v.conj(1)
    t = threading.Thread(target=build)
    t.start()
    t.join()
    v = built["v"]
    assert v._owner is not None
    disown(ptclisp.read_string("[1]"))  # plain data is fine too
    disown(Vector([v]))
    assert v._owner is None


def test_values_shared_between_workers_stay_immutable():
    src = """(let [vs (pmap (fn [_] (conj (vec (range 2000)) 0)) (range 4))
                   ws (vec (concat vs vs vs vs))]
               (distinct (pmap (fn [v] [(count (conj v 1)) (count v)]) ws)))"""
    for _ in range(5):
        assert value(src, limits=Limits(memory_bytes=10**9)) == [[2002, 2001]]


def test_cached_tools_inside_workers():
    calls = []

    def lookup(args):
        calls.append(args["id"])
        return args["id"] * 2
    tools = {"lookup": ptclisp.Tool("lookup", lookup, cache=True)}
    r = run("(tool/lookup {:id 1}) (pmap #(tool/lookup {:id %}) [1 2 2]) (tool/lookup {:id 2})", tools=tools)
    assert r.status == "ok" and ptclisp.to_python(r.value) == 4
    # the worker for 1 sees the entry made before the pmap; the two workers for 2 do not see each other's
    # entry, and the call after the pmap finds theirs
    assert sorted(calls) == [1, 2, 2]


# ------------------------------------------------------------------ pmap_calls records (docs/spec/runtime.md §2.2)

def test_every_parallel_operation_leaves_a_record():
    r = ptclisp.run("[(pmap inc (range 10)) (pcalls (fn [] 1) (fn [] 2)) (pmap (fn [x] (pmap inc [x])) [1 2])]")
    assert r.ok
    kinds = sorted((p.type, p.count, p.success_count, p.error_count) for p in r.pmap_calls)
    assert kinds == [("pcalls", 2, 2, 0), ("pmap", 1, 1, 0), ("pmap", 1, 1, 0), ("pmap", 2, 2, 0),
                     ("pmap", 10, 10, 0)]
    assert all(p.duration_ms >= 0 and p.timestamp > 0 for p in r.pmap_calls)


def test_a_failed_operation_is_recorded_with_its_errors():
    r = ptclisp.run("(pmap (fn [x] (/ 1 x)) [1 0 2])")
    assert r.error.kind == "pmap_error"
    rec, = r.pmap_calls
    assert (rec.type, rec.count, rec.error_count) == ("pmap", 3, 1)
    assert rec.success_count + rec.error_count <= 3


def test_no_parallel_operation_no_record():
    assert ptclisp.run("(map inc [1 2])").pmap_calls == []
