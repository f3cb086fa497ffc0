"""A Session reuses the built program when the same text comes back to an unchanged environment,
and never when anything analysis depends on has changed."""
import ptclisp
from ptclisp import pipeline


def counting_analysis(monkeypatch):
    calls = []
    real = pipeline.read_program

    def counted(source, limits, **kw):
        calls.append(source)
        return real(source, limits, **kw)
    monkeypatch.setattr(pipeline, "read_program", counted)
    return calls


def test_a_repeated_program_is_analyzed_twice_then_reused(monkeypatch):
    calls = counting_analysis(monkeypatch)
    s = ptclisp.Session()
    for _ in range(4):
        assert s.eval("(reduce + (map inc [1 2 3]))").value == 9
    # the first sighting is not kept (most programs are seen once); the second is
    assert len(calls) == 2


def test_a_cached_program_reads_current_vars_and_data(monkeypatch):
    s = ptclisp.Session(context={"n": 10})
    s.eval("(def x 1)")
    for _ in range(3):
        assert s.eval("(+ x data/n)").value == 11
    s.eval("(def x 5)")
    assert s.eval("(+ x data/n)").value == 15


def test_a_new_definition_changes_how_the_same_text_resolves():
    s = ptclisp.Session()
    for _ in range(3):
        r = s.eval("(foo 2)")
        assert r.error is not None and r.error.kind == "unbound_var"
    s.eval("(defn foo [x] (* x 10))")
    assert s.eval("(foo 2)").value == 20


def test_a_rolled_back_definition_is_forgotten_by_cached_programs():
    s = ptclisp.Session()
    src = "(do (def y 1) (+ y nil))"   # defines, then fails: the def is rolled back
    for _ in range(3):
        assert s.eval(src).error.kind == "type_error"
    r = s.eval("y")
    assert r.error is not None and r.error.kind == "unbound_var"


def test_tighter_reader_limits_are_checked_again():
    s = ptclisp.Session()
    src = "[[[[1]]]]"
    for _ in range(3):
        assert s.eval(src).ok
    r = s.eval(src, limits=ptclisp.Limits(max_depth=2))
    assert r.error is not None


def test_attaching_a_prelude_clears_the_cache():
    s = ptclisp.Session()
    for _ in range(3):
        assert s.eval("(+ 1 2)").value == 3
    assert s.env.programs.entries
    from ptclisp.prelude import attach_preludes
    attach_preludes(s.env, ["(ns util) (defn twice [x] (* 2 x))"])
    assert not s.env.programs.entries
    assert s.eval("(util/twice 3)").value == 6


def test_a_program_that_defines_its_helpers_is_reused_once_its_names_exist(monkeypatch):
    # run 1 adds the names; runs 2 and 3 only define them again (the set of names is unchanged),
    # so run 3 keeps the program built and run 4 reuses it
    calls = counting_analysis(monkeypatch)
    s = ptclisp.Session()
    src = "(defn sq [x] (* x x)) (def total (reduce + (map sq [1 2 3]))) total"
    for _ in range(5):
        assert s.eval(src).value == 14
    assert len(calls) == 3


def test_a_reused_defining_program_reads_values_defined_in_between():
    s = ptclisp.Session()
    src = "(def base (if (= base 100) 100 7)) (+ base 1)"
    s.eval("(def base 0)")
    for _ in range(3):
        assert s.eval(src).value == 8
    s.eval("(def base 100)")   # same names, new value: the cached program reads it
    assert s.eval(src).value == 101


def test_redefining_a_name_keeps_the_names_stamp_and_a_new_name_changes_it():
    s = ptclisp.Session()
    ns = s.env.ns
    s.eval("(def a 1)")
    stamp = ns.names_version
    s.eval("(def a 2)")
    assert ns.names_version == stamp and ns["a"] == 2
    s.eval("(def b 1)")
    assert ns.names_version != stamp


def test_a_rolled_back_first_definition_changes_the_names_stamp():
    s = ptclisp.Session()
    ns = s.env.ns
    stamp = ns.names_version
    assert s.eval("(def fresh 1) (+ fresh nil)").error.kind == "type_error"
    assert "fresh" not in ns and ns.names_version != stamp
    s.eval("(def kept 1)")
    stamp = ns.names_version
    assert s.eval("(def kept 2) (+ kept nil)").error.kind == "type_error"   # a redefinition undone
    assert ns["kept"] == 1 and ns.names_version == stamp   # the same names as before


def test_a_name_that_appears_between_runs_is_resolved_again():
    # the cached text once referred to an unbound name; once it exists the program is rebuilt
    s = ptclisp.Session()
    src = "(defn f [] (g 1)) (f)"
    for _ in range(3):
        assert s.eval(src).error.kind == "unbound_var"
    s.eval("(defn g [x] (+ x 41))")
    assert s.eval(src).value == 42
