"""Both back ends cover every node kind of the core AST, and no table names anything else.

The node kinds are declared once, in ptclisp/analyzer/nodes.py; `backends.table.NODE_KINDS` is
read from it and `HANDLERS` names each kind's handler, from which the closure back end's `BUILD`
and the bytecode back end's `EMIT` are made (`dispatch_table`). These tests check the tables
against the module itself, and run programs that between them hold every kind on both back
ends, recording which handlers ran and comparing the answers.
"""
from __future__ import annotations

import inspect

import pytest

import ptclisp
from ptclisp.analyzer import nodes as N
from ptclisp.backends import closures, table
from ptclisp.backends.bytecode import emit
from ptclisp.pipeline import BACKENDS, evaluate


def _declared_in_nodes() -> set:
    """The node classes analyzer/nodes.py defines, found without the table's own rule."""
    return {c for _name, c in inspect.getmembers(N, inspect.isclass)
            if c.__module__ == N.__name__ and issubclass(c, N.Node) and c is not N.Node}


def test_the_node_kinds_are_the_classes_nodes_py_declares():
    kinds = table.NODE_KINDS
    assert len(kinds) == len(set(kinds))
    assert set(kinds) == _declared_in_nodes()
    assert {N.Const, N.Recur, N.Fn, N.For, N.Prim} <= set(kinds)
    assert N.Node not in kinds and N.Local not in kinds   # the base class and the variable are no kinds


@pytest.mark.parametrize("dispatch, backend, prefix", [(closures.BUILD, closures.Builder, "b_"),
                                                       (emit.EMIT, emit.Compiler, "e_")],
                         ids=["closures", "bytecode"])
def test_each_back_end_has_one_handler_per_node_kind_and_none_for_anything_else(dispatch, backend, prefix):
    assert set(dispatch) == set(table.NODE_KINDS)
    for kind, handler in dispatch.items():
        assert issubclass(kind, N.Node) and kind is not N.Node
        assert handler is getattr(backend, prefix + table.HANDLERS[kind]), kind
    # and, the other way round, no handler of the back end is left out of its table
    handlers = {name for name in dir(backend) if name.startswith(prefix) and callable(getattr(backend, name))}
    assert handlers == {prefix + name for name in table.HANDLERS.values()}


def test_a_back_end_missing_a_handler_fails_when_its_table_is_made():
    class Partial:
        pass
    for name in set(table.HANDLERS.values()) - {"juxt"}:
        setattr(Partial, "x_" + name, lambda self, node, where: None)
    with pytest.raises(RuntimeError, match="Partial has no x_juxt for Juxt nodes"):
        table.dispatch_table(Partial, "x_")
    Partial.x_juxt = lambda self, node, where: None
    assert set(table.dispatch_table(Partial, "x_")) == set(table.NODE_KINDS)


# ------------------------------------------------------------------ every kind, run on both back ends

SETUP = "(def g 2)"   # run first, in the same session: a global to read, and *1 to read back
PROGRAMS = [
    '(defn f [a & more] (let [[p q] [a g] m {:a a :b (inc q)} k {(str "k") p}]'
    ' (if (and (> a 0) (or missing-name true)) [p q (:a m) (get k "k") #{a} #{1 2} (count more)]'
    ' (do (println "no") nil)))) (f 1 2 3)',
    "(map inc data/xs)",
    "(let [t tool/echo] [(t {:a 1}) (tool/echo {:b 2})])",
    "[*1 (.length \"abc\")]",
    "(loop [i 0 acc []] (if (< i 3) (recur (inc i) (conj acc i)) acc))",
    "((juxt inc dec) 1)",
    "(for [x [1 2 3] :let [y (* x 10)] :when (odd? x)] y)",
    "(doseq [x [1 2]] (println x))",
    "(+ ((fn [x] x) 1) 2)",
    '(if (nil? (first [])) (return {:done true}) (fail "no"))',
    "(not (some? nil))",
]


def _run_recording(backend: str, monkeypatch) -> tuple[dict, list]:
    """(the node kinds whose handler ran in each back end, each program's outcome), running
    PROGRAMS on `backend` ("tiered": closures, handing loops and hot code to the bytecode back end;
    "compiled": bytecode only)."""
    ran: dict = {"closures": set(), "bytecode": set()}

    def recording(seen, kind, handler):
        def handle(self, node, where):
            seen.add(kind)
            return handler(self, node, where)
        return handle

    emit_tail = emit.Compiler.emit_tail

    def recording_tail(self, node, stmts, sink):   # tail positions (recur among them) are emitted here
        ran["bytecode"].add(type(node))
        return emit_tail(self, node, stmts, sink)

    monkeypatch.setattr(closures, "BUILD", {k: recording(ran["closures"], k, h) for k, h in closures.BUILD.items()})
    monkeypatch.setattr(emit, "EMIT", {k: recording(ran["bytecode"], k, h) for k, h in emit.EMIT.items()})
    monkeypatch.setattr(emit.Compiler, "emit_tail", recording_tail)
    s = ptclisp.Session(context={"xs": [1, 2, 3]}, tools={"echo": lambda args=None: args}, program_cache=False)
    assert evaluate(s.env, SETUP, s.limits, backend=backend).ok
    outcomes = []
    for src in PROGRAMS:
        r = evaluate(s.env, src, s.limits, backend=backend, commit_history=False)
        err = r.error
        outcomes.append((src, r.status, ptclisp.pr_str(r.value) if r.status != "error" else None,
                         err and (err.kind, err.message), tuple(r.prints)))
    return ran, outcomes


def test_the_programs_reach_every_node_kind_on_both_back_ends_alike(monkeypatch):
    ran = {}
    outcomes = {}
    for backend in BACKENDS:
        with monkeypatch.context() as mp:
            ran[backend], outcomes[backend] = _run_recording(backend, mp)
    assert [o for o in outcomes["compiled"] if o[1] == "error"] == []
    assert outcomes["tiered"] == outcomes["compiled"]
    kinds = set(table.NODE_KINDS)
    assert ran["compiled"]["closures"] == set()
    assert kinds - ran["compiled"]["bytecode"] == set()
    # the closure back end builds every kind but recur: a loop, and a fn that recurs, are compiled whole
    assert kinds - ran["tiered"]["closures"] == {N.Recur}
    assert N.Recur in ran["tiered"]["bytecode"]


def test_a_constant_set_literal_is_made_once_and_charged_nothing_on_both_tiers():
    # the closure tier charged a set of constants each time it was made, the compiled loop never
    # (the map below is compiled once it has seen 4,096 items): the general path ran out of memory
    src = "(count (map (fn [x] #{1 2}) (range 20000)))"
    limits = ptclisp.Limits(memory_bytes=400_000)
    fast = ptclisp.run(src, limits=limits)
    with ptclisp.general_path():
        general = ptclisp.run(src, limits=limits)
    assert (fast.status, fast.value) == (general.status, general.value) == ("ok", 20000)
