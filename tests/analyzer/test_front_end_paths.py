"""The front end's short paths (reader, analyzer, closure builder) give what the general paths give.

- the findall reader makes plain symbols, integers and brackets without their constructors, and
  remembers each atom's kind: a name read for the first time and again reads the same;
- `Analyzer.args` and `Builder._build_all` take literals and locals without a call per node, and
  still look at the compile clock exactly as often as `analyze` and `build` do;
- `scan.free_locals` walks with a stack, and building a program leaves no reference cycle;
- a builtin called with 1, 2, 3 or more arguments is located at its call when it fails.
"""
import gc
import uuid

import pytest
from hypothesis import given, settings, strategies as st

import ptclisp
from ptclisp.backends import closures as interp, table as backend_table
from ptclisp.runtime import meter as M
from ptclisp.analyzer import Analyzer, Env
from ptclisp.analyzer import analyzer as analyzer_module
from ptclisp.analyzer import nodes as N
from ptclisp.analyzer.base import NOT_TAIL
from ptclisp.backends.bytecode import free_locals
from ptclisp.errors import Span
from ptclisp.reader.forms import Lit, Sym
from ptclisp.reader.parser import _scan_read, _token_read, read
from ptclisp.pipeline import analyze as analyze_source, build as build_main
from ptclisp.session import Environment

from helpers import run

ptclisp.lib.load()   # the builtins the analyzer resolves names against


# ------------------------------------------------------------------ reader

def _forms(forms):
    out = []
    for f in forms:
        items = getattr(f, "items", None)
        out.append((type(f).__name__, repr(f), f.span, _forms(items) if items is not None else None))
    return out


def test_a_name_read_for_the_first_time_reads_as_it_does_later():
    name = "n" + uuid.uuid4().hex[:12]   # never seen by this process's reader
    text = f"({name} 12\n  [{name} -3 x])"
    first_names, again_names = set(), set()
    first = _token_read(text, 64, first_names)
    again = _token_read(text, 64, again_names)
    assert _forms(first) == _forms(again) == _forms(_scan_read(text, 64, set()))
    assert first_names == again_names == {name, "x"}
    sym = first[0].items[0]
    assert type(sym) is Sym and sym.ns is None and sym.name == name
    assert sym.span == Span(1, 2, 1, 2 + len(name))
    lit = first[0].items[1]
    assert type(lit) is Lit and lit.value == 12 and lit.span == Span(1, 3 + len(name), 1, 5 + len(name))
    assert first[0].items[2].span == Span(2, 3, 2, 10 + len(name))


def test_columns_after_a_multi_line_string_and_a_comment():
    forms = read('(a "x\nyz" b ; c\n   d)')
    a, s, b, d = forms[0].items
    assert (s.span, b.span, d.span) == (Span(1, 4, 2, 4), Span(2, 5, 2, 6), Span(3, 4, 3, 5))
    assert forms[0].span == Span(1, 1, 3, 6)


# ------------------------------------------------------------------ analyzer

def _general_args(self, forms, scope):
    return [self.analyze(f, scope, NOT_TAIL) for f in forms]


NAMES = ["+", "inc", "str", "vector", "map", "filter", "odd?"]
ATOMS = st.sampled_from(["1", "-2", "2.5", '"s"', ":k", "nil", "true", "x", "y", "[1 x]", "{:a y}"] + NAMES)
FORMS = st.recursive(ATOMS, lambda inner: st.one_of(
    st.builds(lambda h, a: "(" + " ".join([h] + a) + ")", st.sampled_from(NAMES), st.lists(inner, max_size=4)),
    st.builds(lambda a: "[" + " ".join(a) + "]", st.lists(inner, max_size=4)),
    st.builds(lambda a: "#{" + " ".join(a) + "}", st.lists(inner, max_size=3))), max_leaves=12)


def _analyzed(src):
    try:
        return repr(Analyzer(Env()).analyze_program(read(src)))
    except Exception as e:  # noqa: BLE001 - compared, whatever it is
        return ("error", type(e).__name__, getattr(e, "kind", None), str(e), getattr(e, "span", None))


@settings(max_examples=300, deadline=None)
@given(FORMS)
def test_leaf_arguments_analyse_as_analyze_does(form):
    src = f"(let [x 1 y :b] {form})"
    fast = _analyzed(src)
    saved = Analyzer.args
    Analyzer.args = _general_args
    try:
        general = _analyzed(src)
    finally:
        Analyzer.args = saved
    assert fast == general


def _ticks(monkeypatch, module, fn, *args):
    count = [0]
    monkeypatch.setattr(module, "compile_tick", lambda: count.__setitem__(0, count[0] + 1))
    fn(*args)
    return count[0]


BIG = "(let [x 1 v [" + " ".join(["1 x"] * 1500) + "]] (+ x " + " ".join(["x 2"] * 700) + "))"


def test_the_analyzer_looks_at_the_compile_clock_as_often(monkeypatch):
    forms = read(BIG)

    def analyze():
        Analyzer(Env()).analyze_program(forms)
    fast = _ticks(monkeypatch, analyzer_module, analyze)
    monkeypatch.setattr(Analyzer, "args", _general_args)
    general = _ticks(monkeypatch, analyzer_module, analyze)
    assert fast == general == (2 + 1 + 3000 + 1 + 1400 + 2) // 1024


def test_the_builder_looks_at_the_compile_clock_as_often(monkeypatch):
    env = Environment()
    node, refs = analyze_source(BIG, env.analyzer_env(), M.default_limits())

    def general_build_all(self, nodes, layout):
        return [self.build(n, layout) for n in nodes]
    fast = _ticks(monkeypatch, backend_table, build_main, node, refs, env.globals)
    monkeypatch.setattr(interp.Builder, "_build_all", general_build_all)
    general = _ticks(monkeypatch, backend_table, build_main, node, refs, env.globals)
    assert fast == general >= 4


# ------------------------------------------------------------------ builder

def test_free_locals_of_nested_binding_forms():
    src = "(let [a 1 b 2] (fn [x] (let [y (+ x a)] (loop [i 0] (if (< i y) (recur (inc i)) " \
          "(for [k [b] :let [m (* k x)]] (fn [] (+ m i a))))))))"
    node = Analyzer(Env()).analyze_program(read(src))
    fn = node.body
    assert type(fn) is N.Fn
    names = {loc.name: loc.py for loc, _v in node.bindings}
    assert free_locals(fn) == {names["a"], names["b"]}


@pytest.mark.parametrize("src", [
    "(let [xs [1 2 3]] (->> xs (filter odd?) (map (fn [x] (* x x))) (reduce + 0)))",
    "(let [k 2] (map (fn [x] (let [y (* x k)] (fn [] y))) [1 2]))",
    "(loop [i 0] (if (< i 3) (recur (inc i)) i))",
    "(for [x [1 2] :let [y (inc x)] :when (odd? y)] (fn [] [x y]))",
])
def test_building_a_program_leaves_no_reference_cycle(src):
    # (the core AST itself may hold cycles, a recur's target: it stays alive here, so only what
    # building made and dropped is counted)
    env = Environment()
    node, refs = analyze_source(src, env.analyzer_env(), M.default_limits())
    gc.collect()
    gc.disable()
    try:
        main = build_main(node, refs, env.globals)
        del main
        assert gc.collect() == 0
    finally:
        gc.enable()


@pytest.mark.parametrize("src,span", [
    ('(let [s "x"]\n  (inc s))', (2, 3, 2, 10)),                  # one argument
    ('(let [s "x"]\n  (+ 1 s))', (2, 3, 2, 10)),                  # two
    ('(let [s "x"]\n  (+ 1 2 s))', (2, 3, 2, 12)),                # three
    ('(let [s "x"]\n  (+ 1 2 3 s))', (2, 3, 2, 14)),              # more
])
def test_a_failing_builtin_call_is_located_at_its_call(src, span):
    r = run(src, "tiered")   # the closure tier (Builder._call)
    assert r.status == "error"
    e = r.error
    assert e.kind == "type_error"
    assert (e.span.line, e.span.col, e.span.end_line, e.span.end_col) == span


def test_a_local_python_name_is_unique_and_safe():
    a, b, c = N.Local("a-b?"), N.Local("a-b?"), N.Local("plain")
    assert a.py != b.py
    assert a.py.startswith("l") and a.py.endswith("_a_b_") and a.py.isidentifier()
    assert c.py.endswith("_plain") and c.py.isidentifier()


@pytest.mark.parametrize("src,expected", [
    ("(count (map (fn [x] (fn [] x)) [1 2 3]))", 3),                 # a closure inside: no loop body
    ("(filter (fn [x & more] x) [1 nil 2])", [1, 2]),              # a rest parameter: no loop body
    ("(map (fn [x] (* x x)) [1 2 3])", [1, 4, 9]),                  # a loop body
    ("(let [k 2] (mapv (fn [x] (+ x k)) [1 2]))", [3, 4]),
])
def test_map_over_a_fn_literal_once_the_call_site_is_hot(src, expected, monkeypatch):
    # ISLAND_ITEMS 0: the first vector makes the site ask whether its fn can be a loop body; a fn
    # that cannot keeps calling the builtin, with the same values
    monkeypatch.setattr(interp, "ISLAND_ITEMS", 0)
    r = run(src, "tiered")
    assert r.status == "ok", r.error
    assert ptclisp.to_python(r.value) == expected


def test_a_failing_fn_that_cannot_be_a_loop_body_is_located_alike(monkeypatch):
    src = '(map (fn [x]\n  (let [g (fn [] (inc x))] (g))) ["a"])'
    want = run(src, "tiered").error
    monkeypatch.setattr(interp, "ISLAND_ITEMS", 0)
    got = run(src, "tiered").error
    assert (got.kind, got.span) == (want.kind, want.span)
    assert got.kind == "type_error" and (got.span.line, got.span.col) == (2, 18)
