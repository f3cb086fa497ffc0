"""Preludes: source format, compile checks, exports, dependencies, contracts, attaching (docs/spec/runtime.md §4.6-4.7, §13)."""
import json
import pathlib

import pytest

import ptclisp
from helpers import ok
from ptclisp import Limits, Session, Tool
from ptclisp import prelude as P
from ptclisp.prelude.contract import ContractSyntaxError, parse_signature, parse_type
from ptclisp.prelude import Component, PreludeError

EXAMPLES = pathlib.Path(__file__).resolve().parents[2] / "examples"

CRM = '''
(ns crm "Customer records." {:visibility :prompt})

(defn get-user
  "One user by id."
  {:signature "(id :int) -> {name :string, id :int}" :effect :read}
  [id]
  (tidy (tool/lookup {:id id})))

(defn- tidy [u] (assoc u :seen true))

(def page-size "Rows per page." {:type ":int"} 25)

(defn sum-all [& xs] (apply + xs))

(defn hidden-helper-user {:visibility :discoverable} [] (later-defined))

(defn- later-defined [] :forward-ok)

(defn stash [] (def stashed 1) :stashed)
'''


def lookup(args):
    return {"id": args["id"], "name": "Ann"}


def crm_session(**kw):
    tools = kw.pop("tools", {"lookup": Tool("lookup", lookup, effect="read")})
    return Session(tools=tools, preludes=[CRM], **kw)


# ------------------------------------------------------------------ §13.3 calling exports

def test_export_call_with_private_helper_and_tool():
    r = crm_session().eval("(crm/get-user 1)")
    ok(r, '{"id" 1 "name" "Ann" :seen true}')
    assert [c.name for c in r.tool_calls] == ["lookup"]


def test_constant_export_by_name_or_zero_arity_call():
    s = crm_session()
    ok(s.eval("[crm/page-size (crm/page-size)]"), "[25 25]")


def test_forward_reference_between_siblings():
    ok(crm_session().eval("(crm/hidden-helper-user)"), ":forward-ok")


def test_export_as_a_value_and_returned_closures_stay_bound():
    s = Session(preludes=["(ns m) (defn twice [x] (* 2 (one x))) (defn- one [x] x) (defn adder [n] (fn [x] (+ (one x) n)))"])
    ok(s.eval("(map m/twice [1 2])"), "[2 4]")
    ok(s.eval("(def add3 (m/adder 3)) (add3 1)"), "4")
    ok(s.eval("(add3 10)"), "13")   # still bound in a later evaluation


def test_user_definitions_are_invisible_to_exports():
    s = crm_session()
    s.eval("(defn tidy [u] :user-version)")
    ok(s.eval("(:seen (crm/get-user 2))"), "true")


def test_defs_inside_exports_are_discarded():
    s = crm_session()
    ok(s.eval("(crm/stash)"), ":stashed")
    assert "stashed" not in s.definitions
    assert "stashed" not in s.env.preludes["crm"].instance.ns
    assert s.eval("stashed").error.kind == "unbound_var"


def test_prelude_names_are_resolved_when_compiled():
    with pytest.raises(PreludeError) as e:
        Session(preludes=["(ns p) (defn f [] user-thing)"])
    assert e.value.details["cause"] == "unbound_var"


def test_return_and_fail_inside_exports_end_the_evaluation():
    s = Session(preludes=["(ns t) (defn done [v] (return v)) (defn stop [v] (fail v))"])
    r = s.eval("(def kept 1) (t/done 5) 99")
    assert (r.status, r.value) == ("returned", 5)
    assert "kept" in s.definitions
    r = s.eval("(def dropped 1) (t/stop :why)")
    assert r.status == "failed" and "dropped" not in s.definitions


def test_prints_and_tool_calls_inside_exports_flow_back():
    s = Session(tools={"t": lambda a: 1}, preludes=['(ns p) (defn go [] (println "inside") (tool/t {:a 1}))'])
    r = s.eval("(p/go)")
    assert r.prints == ["inside"] and [c.args for c in r.tool_calls] == [{"a": 1}]


def test_export_code_runs_under_the_callers_limits_every_evaluation():
    s = Session(preludes=["(ns slow) (defn spin [n] (loop [i 0] (if (< i n) (recur (inc i)) i)))"])
    ok(s.eval("(slow/spin 10)"), "10")
    assert s.eval("(slow/spin 5000)").error.kind == "loop_limit_exceeded"
    assert s.eval("(slow/spin 5000)", limits=Limits(loop_limit=10_000)).value == 5000
    r = s.eval("(slow/spin 100000000)", limits=Limits(timeout_ms=50, loop_limit=10**9))
    assert r.error.kind == "timeout"


def test_error_inside_export_points_at_the_call_site():
    s = Session(preludes=["(ns e)\n\n\n\n(defn bad [x] (+ x 1))"])
    r = s.eval("\n  (e/bad nil)")
    assert r.error.kind == "type_error"
    assert r.error.span is not None and r.error.span.line == 2


# ------------------------------------------------------------------ §4.6 analysis-time checks of prelude refs

@pytest.mark.parametrize("src,kind", [
    ("(crm/get-user)", "invalid_arity"),          # fixed arity must match
    ("(crm/get-user 1 2)", "invalid_arity"),
    ("(crm/page-size 1)", "invalid_arity"),       # constants take no arguments
    ("(crm/tidy {})", "invalid_form"),            # private helpers are not exports
    ("crm/missing", "invalid_form"),
    ("(nosuchns/f 1)", "invalid_form"),
])
def test_reference_errors_at_analysis(src, kind):
    calls = []
    s = crm_session(tools={"lookup": lambda a: calls.append(a)})
    r = s.eval(f"(tool/lookup {{:id 0}}) {src}")
    assert r.error.kind == kind, r.error
    assert calls == []                              # nothing ran


def test_variadic_export_arity():
    s = crm_session()
    ok(s.eval("[(crm/sum-all) (crm/sum-all 1 2 3)]"), "[0 6]")
    s2 = Session(preludes=["(ns v) (defn at-least-two [a b & more] (+ a b (count more)))"])
    assert s2.eval("(v/at-least-two 1)").error.kind == "invalid_arity"
    ok(s2.eval("(v/at-least-two 1 2 :x :y)"), "5")


def test_unknown_namespace_details_list_attached_preludes():
    r = crm_session().eval("(nosuch/f)")
    assert r.error.details["rejected_namespace"] == "nosuch"
    assert "crm" in r.error.details["available_namespaces"]


# ------------------------------------------------------------------ §4.7 protected namespaces

@pytest.mark.parametrize("src,fragment", [
    ("(def crm/x 1)", "protected"),
    ("(defn crm/get-user [] 1)", "public export"),
    ("(def foo/x 1)", "qualified"),
    ("(def tool/x 1)", "protected"),
])
def test_user_code_cannot_define_into_namespaces(src, fragment):
    s = crm_session()
    r = s.eval(src)
    assert r.error.kind == "invalid_form" and fragment in r.error.message
    ok(s.eval("(:seen (crm/get-user 1))"), "true")


def test_unqualified_user_def_with_an_export_name_is_fine():
    s = crm_session()
    ok(s.eval("(defn get-user [x] x) [(get-user 1) (:id (crm/get-user 2))]"), "[1 2]")


@pytest.mark.parametrize("name", ["tool", "data", "ptc.core", "Math", "java.time.LocalDate", "json", "clojure.string"])
def test_prelude_may_not_declare_reserved_namespaces(name):
    with pytest.raises(PreludeError) as e:
        Session(preludes=[f"(ns {name}) (def x 1)"])
    assert e.value.kind == "reserved_namespace"


# ------------------------------------------------------------------ §13.1 source grammar

GOOD_SHAPES = '''
(ns shapes)
(defn a [x] x)
(defn b "doc b" [x] x)
(defn c {:effect :write} [x] x)
(defn d "doc d" {:visibility :discoverable} [x] x)
(defn- e [x] x)
(def f 1)
(def g "doc g" 2)
(def h {:type ":int"} 3)
(def i "doc i" {:type ":string"} "four")
(def j {:not "metadata, just a map value"})
(ns second "A second namespace in the same source." {:visibility :discoverable})
(defn k [] (shapes/a 5))
'''


def test_all_definition_shapes():
    s = Session(preludes=[GOOD_SHAPES])
    ok(s.eval("[(shapes/a 1) (shapes/b 2) (shapes/c 3) (shapes/d 4) shapes/f shapes/g shapes/h shapes/i shapes/j (second/k)]"),
       '[1 2 3 4 1 2 3 "four" {:not "metadata, just a map value"} 5]')
    recs = s.env.preludes["shapes"]
    assert recs["b"].record.doc == "doc b" and recs["c"].record.declared_effect == "write"
    assert recs["d"].record.visibility == "discoverable" and recs["a"].record.visibility == "prompt"
    assert "e" not in recs
    assert recs["i"].record.type_text == ":string"
    assert s.env.preludes["second"].instance.compiled.doc == "A second namespace in the same source."
    assert s.env.preludes["second"]["k"].record.visibility == "discoverable"


@pytest.mark.parametrize("source,reason", [
    ("(defn f [] 1)", "missing_namespace"),
    ("(ns a) (ns a)", "invalid_namespace"),
    ("(ns a) (println 1)", "compile_error"),
    ("(ns a) (let [x 1] x)", "compile_error"),
    ("(ns a) (defn f [] 1) (defn- f [] 2)", "duplicate_ref"),
    ("(ns a) (defn f [] (a/g)) (defn g [] 1)", "qualified_self_reference"),
    ("(ns a) (defn f {\"effect\" :read} [] 1)", "invalid_metadata"),
    ("(ns a {\"visibility\" :prompt})", "invalid_metadata"),
    ("(ns a {:visibility :secret})", "invalid_metadata"),
    ("(ns a) (defn f {:effect :delete} [] 1)", "invalid_metadata"),
    ("(ns a) (defn f {:colour :red} [] 1)", "invalid_metadata"),
    ("(ns a) (defn f {:requires [\"db\"]} [] 1)", "invalid_requires"),
    ("(ns a) (defn f {:signature \"(x :int) -> :int\"} [x y] 1)", "invalid_signature"),
    ("(ns a) (defn f {:signature \"(x :int) -> :int\"} [& xs] 1)", "invalid_signature"),
    ("(ns a) (defn f {:signature \"(x :integer) -> :int\"} [x] 1)", "invalid_signature"),
    ("(ns a) (def c {:type \":int\"} \"text\")", "prelude_contract_error"),
    ("(ns a) (def c (/ 1 0))", "compile_error"),
    ("(ns a) (defn f [] (undefined-name))", "compile_error"),
    ("(ns a) (defn f ([x] x) ([x] y))", "compile_error"),   # (multi-arity is fine; two arities of one count are not)
    ("(ns a) (defn f [] (tool/not-granted))", "prelude_attach_failed"),
    ("(ns a (defn", "parse_error"),
])
def test_compile_and_attach_errors(source, reason):
    with pytest.raises(PreludeError) as e:
        Session(preludes=[source])
    assert e.value.kind == reason, e.value
    # the one-shot API reports the same failure as a typed error result
    assert ptclisp.run("1", preludes=[source]).error.kind == reason


def test_compile_error_names_namespace_and_ref():
    with pytest.raises(PreludeError) as e:
        Session(preludes=["(ns a) (defn f [] (undefined-name))"])
    assert e.value.details["namespace"] == "a" and e.value.details["ref"] == "a/f"
    assert e.value.details["cause"] == "unbound_var"


def test_def_initialisers_run_once_with_a_no_op_tool_executor():
    calls = []
    s = Session(tools={"t": lambda a: calls.append(a) or 1},
                preludes=["(ns init) (def probe (tool/t {})) (defn get-probe [] probe) (defn live [] (tool/t {}))"])
    ok(s.eval("(init/get-probe)"), "nil")
    assert calls == []
    ok(s.eval("(init/live)"), "1")
    assert len(calls) == 1


# ------------------------------------------------------------------ dependencies between components

UTIL = "(ns util) (defn double [x] (* 2 x)) (defn- private-half [x] (/ x 2))"
CALC = "(ns calc) (defn quad [x] (util/double (util/double x)))"


def test_dependencies_inferred_and_declared():
    ok(Session(preludes=[UTIL, CALC]).eval("(calc/quad 3)"), "12")
    ok(Session(preludes=[CALC, UTIL]).eval("(calc/quad 3)"), "12")   # order of supply does not matter
    ok(Session(preludes=[Component(UTIL), Component(CALC, dependencies=["util"])]).eval("(calc/quad 1)"), "4")


@pytest.mark.parametrize("components,reason", [
    ([Component(CALC, dependencies=["nope"])], "unknown_dependency"),
    ([Component(UTIL), Component(CALC, dependencies=[])], "compile_error"),     # undeclared namespace
    ([Component("(ns x) (defn f [] 1)", dependencies=["x"])], "dependency_cycle"),
    (["(ns x) (defn f [] (y/g))", "(ns y) (defn g [] (x/f))"], "dependency_cycle"),
    ([UTIL, UTIL], "invalid_namespace"),
    ([UTIL, "(ns c2) (defn f [] (util/private-half 2))"], "compile_error"),
    ([UTIL, "(ns c3) (def c (util/double 1))"], "dep_ref_in_def"),
])
def test_dependency_errors(components, reason):
    with pytest.raises(PreludeError) as e:
        Session(preludes=components)
    assert e.value.kind == reason


def test_dependency_cycle_names_the_cycle():
    with pytest.raises(PreludeError) as e:
        Session(preludes=["(ns x) (defn f [] (y/g))", "(ns y) (defn g [] (z/h))", "(ns z) (defn h [] (x/f))"])
    assert set(e.value.details["cycle"]) == {"x", "y", "z"}


def test_requirements_and_effects_are_transitive():
    base = '(ns store) (defn save {:effect :write} [x] (write-it x)) (defn- write-it [x] (tool/put {:x x})) ' \
           '(defn pure [] 1) (defn declared-read {:effect :read} [] 2)'
    top = "(ns app) (defn run [x] (store/save x))"
    s = Session(tools={"put": lambda a: True}, preludes=[base, top])
    store, app = s.env.preludes["store"], s.env.preludes["app"]
    assert store["save"].record.requires == {"tool:put"} and store["save"].effect == "write"
    assert app["run"].record.requires == {"tool:put"} and app["run"].effect == "write"
    assert store["pure"].record.requires == frozenset() and store["pure"].effect == "unknown"
    assert store["declared-read"].effect == "read"
    with pytest.raises(PreludeError) as e:
        Session(preludes=[base, top])               # tool/put not granted
    assert e.value.kind == "prelude_attach_failed" and e.value.details["tool"] == "put"


def test_effect_rises_to_write_with_a_write_tool():
    src = "(ns w) (defn go [] (tool/t {}))"
    assert Session(tools={"t": Tool("t", echo_none, effect="write")}, preludes=[src]).env.preludes["w"]["go"].effect \
        == "write"
    assert Session(tools={"t": Tool("t", echo_none, effect="read")}, preludes=[src]).env.preludes["w"]["go"].effect \
        == "unknown"


def echo_none(args):
    return None


def test_explicit_requires_are_checked_at_attach():
    src = '(ns r) (defn f {:requires ["tool:audit"]} [] 1)'
    with pytest.raises(PreludeError):
        Session(preludes=[src])
    assert Session(tools={"audit": echo_none}, preludes=[src]).env.preludes["r"]["f"].record.requires == {"tool:audit"}


# ------------------------------------------------------------------ caching and per-session instances

def test_compiled_namespaces_are_cached_and_instances_are_separate():
    a, b = Session(preludes=[UTIL]), Session(preludes=[UTIL])
    ca, cb = a.env.preludes["util"].instance, b.env.preludes["util"].instance
    assert ca.compiled is cb.compiled            # compiled once
    assert ca.ns is not cb.ns and ca.globals is not cb.globals
    assert ca.globals["_m"] is not cb.globals["_m"]


def test_prelude_globals_get_the_current_meter():
    s = Session(preludes=[UTIL])
    g = s.env.preludes["util"].instance.globals
    s.eval("(util/double 1)")
    first = g["_m"]
    s.eval("(util/double 2)")
    assert g["_m"] is not first


def test_prelude_from_a_file_path(tmp_path):
    p = tmp_path / "h.clj"
    p.write_text("(ns h) (defn hi [] :hi)")
    ok(Session(preludes=[str(p)]).eval("(h/hi)"), ":hi")
    ok(Session(preludes=[p]).eval("(h/hi)"), ":hi")
    with pytest.raises(PreludeError) as e:
        Session(preludes=[str(tmp_path / "missing.clj")])
    assert e.value.kind == "prelude_not_found"


# ------------------------------------------------------------------ §13.4 contracts

CONTRACTS = '''
(ns c)
(defn total {:signature "(lines [{amount :float, sku :string}]) -> :float"} [lines] (sum-by :amount lines))
(defn status {:signature "(s :keyword) -> :string"} [s] (name s))
(defn maybe {:signature "(x :int?) -> :int?"} [x] x)
(defn shaped {:signature "(m {order_count :int, note :string?}) -> :map"} [m] m)
(defn liar {:signature "() -> :int"} [] "not an int")
(defn early {:signature "() -> :int"} [] (return "early"))
(defn bail {:signature "() -> :int"} [] (fail "payload is not checked"))
(defn out-only {:signature ":string"} [a b] (str a b))
'''


@pytest.mark.parametrize("src,expected", [
    ('(c/total [{:amount 1 :sku "a"} {:amount 2.5 :sku "b"}])', "3.5"),      # ints satisfy :float
    ('(c/total [{"amount" 1.0 "sku" "a" "extra" true}])', "1.0"),            # string keys, extra fields
    ("(c/status :ready)", '"ready"'),
    ("(c/maybe nil)", "nil"),
    ("(c/shaped {:order-count 2})", "{:order-count 2}"),                      # - matches _, ? allows absence
    ("(c/out-only 1 2)", '"12"'),
    ("(map c/status [:a :b])", '["a" "b"]'),
])
def test_contracts_accept(src, expected):
    ok(Session(preludes=[CONTRACTS]).eval(src), expected)


@pytest.mark.parametrize("src,phase,path", [
    ('(c/total [{:amount "1" :sku "a"}])', "input", "lines.0.amount"),       # numeric strings are not numbers
    ('(c/total [{:sku "a"}])', "input", "lines.0.amount"),
    ("(c/total {:amount 1})", "input", "lines"),
    ('(c/status "ready")', "input", "s"),                                    # a string is not a keyword
    ("(c/shaped {:note 1 :order_count 1})", "input", "m.note"),
    ("(c/liar)", "output", ""),
    ("(c/early)", "output", ""),                                             # return counts as a result
    ("(map c/status [:a 1])", "input", "s"),                                 # also through HOF calls
])
def test_contracts_reject(src, phase, path):
    r = Session(preludes=[CONTRACTS]).eval(src)
    assert r.error.kind == "prelude_contract_error", r.error
    assert r.error.details["phase"] == phase and r.error.details["path"] == path


def test_contract_message_has_the_path():
    r = Session(preludes=[CONTRACTS]).eval('(c/total [{:amount 1} {:amount "x" :sku "b"}])')
    assert "input lines.0.sku: expected string, got missing" in r.error.message


def test_fail_payload_is_not_validated():
    r = Session(preludes=[CONTRACTS]).eval("(c/bail)")
    assert r.status == "failed" and r.value == "payload is not checked"


@pytest.mark.parametrize("text,canonical", [
    ("(a :int, b :string?) -> :map", "(a :int, b :string?) -> :map"),
    ("() -> [:int]", "() -> [:int]"),
    ("(m {x :float, y [{z :bool}]?}) -> :any", "(m {x :float, y [{z :bool}]?}) -> :any"),
    (":keyword", ":keyword"),
])
def test_signature_parser(text, canonical):
    assert parse_signature(text).text() == canonical


@pytest.mark.parametrize("text", ["(a) -> :int", "(a :int -> :int", "(a :int) :int", ":number", "(a :int, a :int) -> :int",
                                  "[:int", "(a :int) -> :int extra"])
def test_signature_parser_rejects(text):
    with pytest.raises(ContractSyntaxError):
        parse_signature(text)


def test_type_parser():
    assert parse_type("{a :int?}?").text() == "{a :int?}?"


# ------------------------------------------------------------------ CLI and the shipped example

def _expected_example_report():
    orders = json.loads((EXAMPLES / "orders.json").read_text())["orders"]
    paid = [o for o in orders if o["status"] == "paid"]
    pending = [o for o in orders if o["status"] == "pending"]
    by_cat: dict = {}
    for o in paid:
        by_cat[o["category"]] = by_cat.get(o["category"], 0) + o["amount"]
    return {"paid-revenue": round(sum(o["amount"] for o in paid), 2),
            "pending-revenue": round(sum(o["amount"] for o in pending), 2),
            "top-category": max(by_cat, key=by_cat.get)}, len(paid), len(orders)


def test_example_prelude_script():
    data = json.loads((EXAMPLES / "orders.json").read_text())
    src = (EXAMPLES / "orders_with_prelude.clj").read_text()
    r = ptclisp.run(src, context=data, preludes=[str(EXAMPLES / "order_helpers.clj")])
    assert r.status == "ok", r.error
    expected, n_paid, n_all = _expected_example_report()
    got = ptclisp.to_python(r.value)
    assert got["top-category"] == expected["top-category"]
    assert got["paid-revenue"] == pytest.approx(expected["paid-revenue"], abs=0.01)
    assert got["pending-revenue"] == pytest.approx(expected["pending-revenue"], abs=0.01)
    assert r.prints[0] == f"paid orders: {n_paid} of {n_all}"
    assert len(r.prints) == 1 + len({o["region"] for o in data["orders"] if o["status"] == "paid"})


def test_cli_run_with_prelude(capsys):
    from ptclisp.commands.main import main
    code = main(["run", str(EXAMPLES / "orders_with_prelude.clj"), "--prelude", str(EXAMPLES / "order_helpers.clj"),
                 "--data", str(EXAMPLES / "orders.json"), "--json"])
    out = capsys.readouterr().out
    assert code == 0
    rec = json.loads(out.strip().splitlines()[-1])
    assert rec["status"] == "ok" and rec["value"]["top-category"] == _expected_example_report()[0]["top-category"]


def test_cli_reports_prelude_errors(tmp_path, capsys):
    from ptclisp.commands.main import main
    bad = tmp_path / "bad.clj"
    bad.write_text("(defn f [] 1)")
    prog = tmp_path / "p.clj"
    prog.write_text("1")
    assert main(["run", str(prog), "--prelude", str(bad)]) == 2
    assert "missing_namespace" in capsys.readouterr().err


def test_prelude_module_surface():
    assert P.attach_preludes and P.Component and P.PreludeError
