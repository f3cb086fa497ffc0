"""Every limit of docs/spec/runtime.md §7, end to end: its failure reason, and that `Limits` moves it."""
from __future__ import annotations

import sys

import pytest

import ptclisp
from ptclisp import Limits
from ptclisp.runtime.guards import result_bytes

DEEP = "(defn f [n] (if (= n 0) 0 (inc (f (dec n))))) (f {n})"
SYMS = "[" + " ".join(f":k{i}" for i in range(300)) + "]"

# (what, source, limits that make it fail, expected reason, limits that let it pass)
CASES = [
    # long enough that the watchdog thread gets the GIL (a 5 ms switch interval) well before it ends
    ("wall clock", "(loop [i 0] (if (< i 3000000) (recur (inc i)) i))",
     Limits(timeout_ms=1, loop_limit=10**7), "timeout", Limits(timeout_ms=20_000, loop_limit=10**7)),
    ("memory", "(count (range 2000000))", Limits(), "memory_exceeded", Limits(memory_bytes=100_000_000)),
    ("loop iterations", "(loop [i 0] (if (< i 5000) (recur (inc i)) i))", Limits(), "loop_limit_exceeded",
     Limits(loop_limit=10_000)),
    ("recursion depth", DEEP.format(n=3000), Limits(recursion_limit=1000), "memory_exceeded", Limits()),
    ("deep recursion allowed", DEEP.format(n=20000), Limits(), "memory_exceeded",
     Limits(recursion_limit=25_000, timeout_ms=20_000)),
    ("tool calls", "(doseq [i (range 5)] (tool/t {:i i}))", Limits(max_tool_calls=4), "tool_call_limit_exceeded",
     Limits(max_tool_calls=5)),
    ("printed lines", "(doseq [i (range 50)] (println i))", Limits(max_prints=10), "memory_exceeded",
     Limits(max_prints=50)),
    ("source size", "(+ 1 2)" + " " * 5000, Limits(max_program_bytes=1000), "program_too_large", Limits()),
    ("symbol count", SYMS, Limits(max_symbols=100), "symbol_limit_exceeded", Limits()),
    ("source nesting", "[" * 80 + "]" * 80, Limits(), "parse_error", Limits(max_depth=100)),
    ("parallel workers", "(pmap (fn [x] (pmap inc [x])) (range 4))", Limits(max_parallel_workers=4),
     "parallel_capacity_exceeded", Limits(max_parallel_workers=8)),
    ("result size", "(vec (range 1000))", Limits(max_result_bytes=100), "runtime_limit_exceeded",
     Limits(max_result_bytes=10_000)),
    ("compile time", "(+ 1 2) " * 3000, Limits(compile_timeout_ms=1), "compile_timeout", Limits()),
    ("compile time, unreadable source", "(+ 1 2) " * 3000 + "(+ 1 ]", Limits(compile_timeout_ms=1),
     "compile_timeout", None),
    ("regex steps", '(re-find #"(a|aa)+$" (apply str (conj (mapv (fn [_] "a") (range 3000)) "b")))',
     Limits(regex_timeout_ms=1), "type_error", None),
]


def tool(args):
    return args


@pytest.mark.parametrize("what, src, failing, reason, passing", CASES, ids=[c[0] for c in CASES])
def test_limit(what, src, failing, reason, passing):
    r = ptclisp.run(src, tools={"t": tool}, limits=failing)
    assert r.status == "error", (what, r.value)
    assert r.error.kind == reason, r.error
    if passing is not None:
        r = ptclisp.run(src, tools={"t": tool}, limits=passing)
        assert r.status == "ok", (what, r.error)


def test_timeout_details_name_the_budget():
    r = ptclisp.run("(loop [i 0] (recur (inc i)))", limits=Limits(timeout_ms=50, loop_limit=10**12))
    assert r.error.kind == "timeout"
    assert r.error.details["timeout_ms"] == 50


def test_memory_details_name_the_budget():
    r = ptclisp.run("(range 100000000)")
    assert r.error.details["limit_bytes"] == Limits().memory_bytes


def test_recursion_error_says_so():
    before = sys.getrecursionlimit()
    r = ptclisp.run(DEEP.format(n=5000), limits=Limits(recursion_limit=500))
    assert r.error.kind == "memory_exceeded"
    assert r.error.details["reason"] == "recursion_depth"
    assert r.error.details["recursion_limit"] == 500
    assert sys.getrecursionlimit() == before  # the host's own limit, restored


def test_long_printed_lines_are_cut_not_failed():
    r = ptclisp.run('(println (apply str (mapv (fn [_] "x") (range 5000))))', limits=Limits(max_print_chars=100))
    assert r.status == "ok"
    assert r.prints[0].startswith("x" * 100) and len(r.prints[0]) < 200


def test_result_size_failure_rolls_back_definitions():
    s = ptclisp.Session(limits=Limits(max_result_bytes=50))
    r = s.eval("(def big (vec (range 100))) big")
    assert r.error.kind == "runtime_limit_exceeded"
    assert r.error.details == {"limit": "max_result_bytes", "value": 50}
    assert "big" not in s.definitions


def test_result_size_applies_to_return_and_fail_values():
    for src in ("(return (vec (range 100)))", "(fail (vec (range 100)))"):
        r = ptclisp.run(src, limits=Limits(max_result_bytes=50))
        assert r.error.kind == "runtime_limit_exceeded"


@pytest.mark.parametrize("src, low, high", [
    ('"abc"', 5, 5), ("[1 2 3]", 7, 12), ('{:a "xy"}', 7, 14), ("#{:a :b}", 8, 12), ("nil", 3, 5),
])
def test_result_bytes_is_close_to_the_printed_size(src, low, high):
    v = ptclisp.run(src).value
    assert low <= result_bytes(v, 10**6) <= high


def test_result_bytes_stops_counting_past_the_cap():
    shared = ptclisp.run("(loop [v [] i 0] (if (< i 200) (recur [v v] (inc i)) v))",
                         limits=Limits(loop_limit=1000)).value  # 2^200 nodes if walked in full
    assert result_bytes(shared, 1000) > 1000


# ------------------------------------------------------------------ process isolation

def test_process_isolation_runs_a_program():
    r = ptclisp.run("(println :hi) {:a [1 2] :b data/x}", context={"x": 3}, isolation="process")
    assert r.status == "ok", r.error
    assert ptclisp.to_python(r.value) == {"a": [1, 2], "b": 3}
    assert r.prints == [":hi"]


def test_process_isolation_through_limits():
    r = ptclisp.run("(+ 1 2)", limits=Limits(isolation="process"))
    assert r.value == 3


def test_process_isolation_returns_functions_as_labels():
    r = ptclisp.run("(fn [x y] x)", isolation="process")
    assert r.value == "#fn[x y]"


def test_process_isolation_calls_host_tools_from_the_child():
    seen = []

    def lookup(args):
        seen.append(args["id"])
        return {"id": args["id"], "name": f"n{args['id']}"}
    r = ptclisp.run("(pmap #(:name (tool/lookup {:id %})) [1 2 3])", tools={"lookup": lookup}, isolation="process")
    assert ptclisp.to_python(r.value) == ["n1", "n2", "n3"]
    assert sorted(seen) == [1, 2, 3]
    assert [c.name for c in r.tool_calls] == ["lookup"] * 3


def test_process_isolation_reports_host_tool_errors():
    def broken(args):
        raise ValueError("no such record")
    r = ptclisp.run("(tool/broken {})", tools={"broken": broken}, isolation="process")
    assert r.error.kind == "tool_error" and "no such record" in r.error.message


def test_process_isolation_keeps_the_typed_errors():
    r = ptclisp.run("(loop [] (recur))", isolation="process")
    assert r.error.kind == "loop_limit_exceeded"
    assert r.error.span is not None


def test_process_isolation_bounds_memory_the_meter_allows():
    r = ptclisp.run("(count (range 50000000))", isolation="process",
                    limits=Limits(memory_bytes=10**12, timeout_ms=20_000, process_memory_bytes=100 << 20))
    assert r.error.kind == "memory_exceeded"


def test_process_isolation_stops_a_runaway_child():
    r = ptclisp.run("(reduce (partial reduce +) 0 (let [r (range 1000000)] (mapv (fn [_] r) (range 500))))",
                    isolation="process", limits=Limits(timeout_ms=300))
    assert r.error.kind == "timeout"


def test_sessions_do_not_take_process_isolation():
    s = ptclisp.Session(limits=Limits(isolation="process"))
    assert s.eval("1").error.kind == "type_error"
    assert ptclisp.run("1", isolation="elsewhere").error.kind == "type_error"


def test_compile_timeout_details_name_the_budget():
    r = ptclisp.run("(+ 1 2) " * 3000, limits=Limits(compile_timeout_ms=1))
    assert r.error.kind == "compile_timeout"
    assert r.error.details == {"compile_timeout_ms": 1, "phase": "compile"}


def test_code_generated_while_a_program_runs_checks_its_deadline():
    # outside a compile budget (a loop compiled on first use, at run time) the clock check
    # looks at the running evaluation's deadline flag
    from ptclisp.runtime import meter as M
    m = M.Meter(Limits())
    prev = M.install(m)
    try:
        M.compile_tick()            # not expired: nothing happens
        m.expired = True
        with pytest.raises(ptclisp.PtcError) as e:
            M.compile_tick()
        assert e.value.kind == "timeout"
        with M.compile_budget(0), pytest.raises(ptclisp.PtcError) as e:
            M.compile_tick()        # inside a budget, the budget decides
        assert e.value.kind == "compile_timeout"
    finally:
        M.install(prev)
