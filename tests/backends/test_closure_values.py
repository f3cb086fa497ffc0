"""Fn values of the closure tier: freed by reference counting, promoted once for builtins.

A fn value built by `interp.Builder` keeps its attributes (`ptc_params`, `ptc_promote`,
`ptc_compiled`) in a dict its code refers to, not through the function itself, so an
unnamed fn is not part of a reference cycle: a program that makes many of them leaves
nothing for the cycle collector. A named fn refers to itself (its frame holds its name).
"""
import gc
import weakref

import pytest

from ptclisp.backends import closures as interp
from ptclisp.registry import builtins as registry
from ptclisp.runtime import meter as M
from ptclisp.pipeline import analyze as analyze_source, build as build_main
from ptclisp.session import Environment


def _fn_value(src):
    env = Environment()
    env.globals["_m"] = M.Meter(M.default_limits())
    node, refs = analyze_source(src, env.analyzer_env(), M.default_limits())
    return build_main(node, refs, env.globals)()


@pytest.mark.parametrize("src", ["(fn [x] (* x 2))", "(let [k 3] (fn [x & more] (+ x k)))",
                                 "(fn [[a b]] (+ a b))"])
def test_an_unnamed_fn_value_is_freed_without_the_cycle_collector(src):
    f = _fn_value(src)
    assert f.ptc_params and callable(f.ptc_promote)
    ref = weakref.ref(f)
    gc.disable()
    try:
        del f
        assert ref() is None
    finally:
        gc.enable()


def test_a_named_fn_still_sees_itself():
    f = _fn_value("(fn fact [n] (if (< n 2) 1 (* n (fact (dec n)))))")
    assert f(5) == 120


def test_promotion_records_the_twin_on_the_closure():
    f = _fn_value("(fn [x] (* x 2))")
    assert registry.hot(f, 1) is f and not hasattr(f, "ptc_compiled")   # not hot yet: the closure
    assert registry.hot(f, 1, 2) is f                                    # a wrong argument count: the closure
    twin = registry.hot(f, interp.HOT_CALLS)
    assert twin is not f and twin(21) == 42 and f.ptc_compiled is twin
    assert registry.as_fn(f, "map") is twin and f(4) == 8
    assert registry.hot(f, 1) is twin


@pytest.mark.parametrize("src", [
    "(defn f [] (g)) (defn g [] 1) (f)",
    "(let [x 1] (do (def y x) (+ y 1)))",
    "(declare h) (defn k [] (h)) (defn h [] 2) (k)",
    "(when true (defonce z 3)) z",
    "(+ 1 2)",
])
def test_programs_that_define_names_are_analyzed_as_before(src):
    # analyze_source skips collecting definitions when the reader saw none of DEFINING_HEADS
    import ptclisp
    from ptclisp.analyzer import Analyzer
    from ptclisp.reader.parser import read
    env = Environment()
    names: set = set()
    forms = read(src, names=names)
    full = Analyzer(env.analyzer_env()).analyze_program(forms)
    node, _ = analyze_source(src, env.analyzer_env(), M.default_limits())
    assert repr(node).count("GlobalRef") == repr(full).count("GlobalRef")
    assert ptclisp.run(src).ok
