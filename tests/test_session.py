"""Sessions, the user namespace, data/, history and the transaction rules (docs/spec/runtime.md §2-§4, §6)."""
import pytest

import ptclisp
from helpers import ok
from ptclisp import Limits, Session


# ------------------------------------------------------------------ §4.1 user namespace

def test_definitions_persist_across_evaluations():
    s = Session()
    assert s.eval("(def x 1) (defn add-x [y] (+ x y)) (defonce z 10)").ok
    ok(s.eval("(add-x z)"), "11")
    assert set(s.definitions) >= {"x", "add-x", "z"}


def test_user_definitions_shadow_builtins_but_locals_shadow_both():
    s = Session()
    s.eval("(defn inc [x] (+ x 100))")
    ok(s.eval("(inc 1)"), "101")
    ok(s.eval("(let [inc (fn [x] (- x 1))] (inc 1))"), "0")
    # a qualified builtin is already resolved: user definitions cannot shadow it
    ok(s.eval("(clojure.core/inc 1)"), "2")


def test_unknown_symbol_is_unbound_var_with_names():
    r = Session().eval("(+ 1 nope)")
    assert r.error.kind == "unbound_var"
    assert r.error.details["unbound_names"] == ["nope"]


def test_defonce_keeps_first_value():
    s = Session()
    for _ in range(3):
        s.eval("(defonce n 0) (def n (inc n))")
    ok(s.eval("n"), "3")


# ------------------------------------------------------------------ §4.2 data/

CONTEXT = {"user_id": 7, "orders": [{"id": 1, "amount": 2.5}], "Exact-Name": "e"}


@pytest.mark.parametrize("src,expected", [
    ("data/user_id", "7"),
    ("data/user-id", "7"),                      # - -> _ fallback
    ("data/Exact-Name", '"e"'),
    ("(:amount (first data/orders))", "2.5"),   # JSON objects stay string-keyed; keyword lookup still works
    ("(get (first data/orders) \"id\")", "1"),
    ("data/missing", "nil"),                    # permissive mode
])
def test_data_reads(src, expected):
    ok(ptclisp.run(src, context=CONTEXT), expected)


def test_context_keeps_string_keys():
    r = ptclisp.run("(keys (first data/orders))", context=CONTEXT)
    assert sorted(ptclisp.to_python(r.value)) == ["amount", "id"]


def test_strict_data_names_granted_keys():
    r = ptclisp.run("data/nope", context={"a": 1, "b": 2}, strict_data=True)
    assert r.error.kind == "runtime_error"
    assert "data/nope" in r.error.message and "data/a" in r.error.message and "data/b" in r.error.message
    ok(ptclisp.run("data/a", context={"a": 1}, strict_data=True), "1")


@pytest.mark.parametrize("src,kind", [
    ("(data/orders)", "not_callable"),
    ("data", "unbound_var"),
    ("(def data/x 1)", "invalid_form"),
])
def test_data_misuse(src, kind):
    r = ptclisp.run(src, context=CONTEXT)
    assert r.error.kind == kind
    assert "{" not in r.error.message  # the data value is not rendered


def test_bad_context_is_rejected_at_construction():
    with pytest.raises(ValueError):
        Session(context={"x": object()})
    assert ptclisp.run("1", context={"x": object()}).status == "error"


# ------------------------------------------------------------------ §4.4 history

def test_history_holds_last_three_results():
    s = Session()
    ok(s.eval("[*1 *2 *3]"), "[nil nil nil]")
    for v in (1, 2, 3, 4):
        s.eval(str(v))
    ok(s.eval("[*1 *2 *3]"), "[4 3 2]")
    assert len(s.history) == 3


def test_history_keeps_native_values():
    s = Session()
    s.eval("(fn [x] (* x 2))")
    ok(s.eval("(*1 21)"), "42")
    s.eval(":k")
    r = s.eval("*1")
    assert r.value == ptclisp.read_string(":k")


# ------------------------------------------------------------------ §6.1 staging and commit

def test_ordinary_value_commits_definitions_and_appends_history():
    s = Session()
    s.eval("(def a 1) 10")
    ok(s.eval("[a *1]"), "[1 10]")


def test_return_commits_definitions_but_not_history():
    s = Session()
    s.eval("5")
    r = s.eval("(def b 2) (return 99)")
    assert r.status == "returned" and r.value == 99
    ok(s.eval("[b *1]"), "[2 5]")


@pytest.mark.parametrize("failing", [
    "(def c 3) (fail :no)",                     # fail
    "(def c 3) (/ 1 0)",                        # runtime error
    "(def c 3) (",                              # parse error
    "(def c 3) (undefined-fn 1)",               # analysis error
    "(def c 3) (loop [] (recur))",              # limit
])
def test_failures_leave_definitions_and_history_unchanged(failing):
    s = Session()
    s.eval("(def c 1) 7")
    before_defs, before_hist = s.definitions, s.history
    r = s.eval(failing)
    assert r.status in ("failed", "error")
    assert s.definitions == before_defs and s.history == before_hist
    ok(s.eval("[c *1]"), "[1 7]")


def test_redefinition_rolled_back_restores_old_value_and_doc():
    s = Session()
    s.eval('(defn f "old" [] 1)')
    s.eval('(defn f "new" [] 2) (/ 1 0)')
    ok(s.eval("(f)"), "1")
    assert s.env.ns.docs.get("f") == "old"


def test_timeout_rolls_back():
    s = Session(limits=Limits(timeout_ms=50, loop_limit=10**9))
    r = s.eval("(def t 1) (loop [i 0] (recur (inc i)))")
    assert r.error.kind == "timeout"
    assert "t" not in s.definitions


def test_a_commit_check_may_refuse_a_successful_evaluation():
    from ptclisp.errors import PtcError
    from ptclisp.pipeline import evaluate
    s = Session()
    s.eval("(def a 1) 7")
    seen = []

    def admit(status, value):
        seen.append((status, value, dict(s.env.ns)))
        raise PtcError("runtime_limit_exceeded", "too much", details={"limit": "host"})
    r = evaluate(s.env, "(def a 2) (def b 3) 8", admit=admit)
    assert seen == [("ok", 8, {"a": 2, "b": 3})]          # called with the definitions in place
    assert (r.status, r.error.kind, r.error.details) == ("error", "runtime_limit_exceeded", {"limit": "host"})
    ok(s.eval("[a *1]"), "[1 7]")                           # rolled back: definitions and history
    assert "b" not in s.definitions
    r = evaluate(s.env, "(def b 3) (return 9)", admit=lambda status, value: seen.append(status))
    assert r.status == "returned" and seen[-1] == "returned" and "b" in s.definitions


def test_def_replaces_whole_value_and_keeps_other_names():
    s = Session()
    s.eval("(def m {:a 1 :b 2}) (def other 5)")
    s.eval("(def m {:c 3})")
    ok(s.eval("[m other]"), "[{:c 3} 5]")


def test_a_map_result_stores_nothing():
    s = Session()
    s.eval("{:x 1}")
    assert s.eval("x").error.kind == "unbound_var"


# ------------------------------------------------------------------ §6.2 / §6.3 where definitions live, what memory holds

def test_def_inside_function_body_persists():
    s = Session()
    s.eval("(defn setter [] (def q 7)) (setter)")
    ok(s.eval("q"), "7")


def test_def_inside_loop_is_visible_after_it():
    ok(Session().eval("(doseq [i [1 2 3]] (def last-i i)) last-i"), "3")


def test_closures_keep_their_captured_environment_across_turns():
    s = Session()
    s.eval("(let [k 10] (defn add-k [x] (+ x k)))")
    ok(s.eval("(add-k 1)"), "11")


# ------------------------------------------------------------------ API shape

def test_run_is_one_shot():
    ptclisp.run("(def gone 1)")
    assert ptclisp.run("gone").error.kind == "unbound_var"


def test_eval_never_raises_on_bad_input():
    s = Session()
    assert s.eval(123).status == "error"
    assert s.eval("(def x").error.kind == "parse_error"
    assert s.eval("").status == "ok"


def _cyclic():
    d: dict = {}
    d["self"] = d
    return d


@pytest.mark.parametrize("source,kwargs", [
    ("(+ 1 2)", {}),
    (123, {}),
    (123, {"limits": {"nope": 1}}),
    ("(+ 1 2)", {"limits": {"nope": 1}}),
    ("(+ 1 2)", {"context": {1: 2}}),
    ("(+ 1 2)", {"context": {"a": _cyclic()}}),
    ("(+ 1 2)", {"tools": "x"}),
    ("(+ 1 2)", {"strict_data": 1}),
    ("(tool/nope)", {"preludes": ["(ns p) (defn f [] (tool/t))"]}),
    ("(def", {}),
    ("(fail 1)", {}),
])
def test_run_is_a_fresh_session_and_one_eval(source, kwargs):
    # ptclisp.run evaluates without a Session object; its Result is what a fresh Session and one
    # eval give (input errors as type_error Results instead of exceptions)
    r = ptclisp.run(source, **kwargs)
    ctor = {k: v for k, v in kwargs.items() if k != "isolation"}
    try:
        expected = Session(program_cache=False, **ctor).eval(source)
    except (TypeError, ValueError) as exc:
        assert (r.status, r.error.kind, r.error.message) == ("error", "type_error", str(exc))
        return
    except ptclisp.PtcError as exc:
        assert (r.status, r.error.kind, r.error.message) == ("error", exc.kind, exc.message)
        return
    assert (r.status, r.value) == (expected.status, expected.value)
    assert (r.error and (r.error.kind, r.error.message)) == (expected.error and (expected.error.kind, expected.error.message))


def test_result_record_fields():
    r = ptclisp.run('(println "hi") 3')
    assert (r.status, r.value, r.prints, r.tool_calls, r.error) == ("ok", 3, ["hi"], [], None)
    assert r.duration_ms >= 0


def test_prints_before_failure_are_kept():
    r = ptclisp.run('(println "before") (/ 1 0)')
    assert r.status == "error" and r.prints == ["before"]


# ------------------------------------------------------------------ §4.5 compatibility namespaces

@pytest.mark.parametrize("src,expected", [
    ('(clojure.string/join "," [1 2])', '"1,2"'),
    ('(str/upper-case "a")', '"A"'),
    ("(clojure.set/union #{1} #{2})", "#{1 2}"),
    ("(json/generate-string {:a 1})", '"{\\"a\\":1}"'),
])
def test_compat_namespaces(src, expected):
    ok(ptclisp.run(src), expected)


def test_compat_namespace_errors():
    r = ptclisp.run('(str/frobnicate "x")')
    assert r.error.kind == "invalid_form" and "join" in r.error.message   # lists the namespace's members
    r = ptclisp.run("(foo/bar 1)")
    assert r.error.kind == "invalid_form"
    assert r.error.details["kind"] == "unknown_namespace" and r.error.details["rejected_namespace"] == "foo"


def test_a_toolless_environment_names_no_tools_like_an_empty_toolset():
    # the analyzer's view of "no tools granted" is one shared empty ToolNames: the same set and
    # private names as ToolSet().names(), and the same error for a tool call
    from ptclisp.session import Environment
    from ptclisp.host.tools import ToolNames, ToolSet
    names = Environment().analyzer_env().tools
    fresh = ToolSet().names()
    assert type(names) is ToolNames and names == fresh and names.private == fresh.private
    assert sorted(Environment(tools={"t": lambda: 1}).analyzer_env().tools) == ["t"]
    r = ptclisp.run("(tool/nope 1)")
    assert (r.error.kind, r.error.message) == ("unknown_tool", "tool/nope is not available. Available tools: (none)")
    assert (r.error.span.line, r.error.span.col) == (1, 2)
