"""Introspection: doc, dir, apropos, source, export-meta and visibility (docs/spec/functions.md §9, docs/spec/runtime.md §14)."""
import pytest

import ptclisp
from helpers import eval_ok as run, eval_py as py
from ptclisp import Session

LIB = '''
(ns shop "Shop helpers.")

(defn price
  "Unit price of a product, in cents."
  {:signature "(sku :string) -> :int" :effect :read}
  [sku]
  (lookup-price sku))

(defn- lookup-price [sku] (count sku))
(defn- unused-helper [] :never)

(defn basket-total "Sum of unit prices." [& skus] (reduce + (map price skus)))

(def currency "The shop's currency code." {:type ":string"} "EUR")

(defn restock "Order more of a product." {:visibility :discoverable} [sku n] [sku n])

(ns empty-ns)
(defn- only-private [] 1)
'''


@pytest.fixture(scope="module")
def session():
    return Session(context={"secret_key": 1}, tools={"hidden_tool": lambda a: 1}, preludes=[LIB])


# ------------------------------------------------------------------ dir

def test_dir_lists_namespaces_with_public_exports(session):
    assert py(session, "(dir)") == ["shop"]          # empty-ns has only a private helper


@pytest.mark.parametrize("arg", ["shop", '"shop"', "'shop"])
def test_dir_of_a_namespace(session, arg):
    assert py(session, f"(dir {arg})") == ["shop/basket-total", "shop/currency", "shop/price", "shop/restock"]


@pytest.mark.parametrize("src", ["(dir nosuch)", '(dir "empty-ns")', "(dir clojure.string)", '(dir "tool")'])
def test_dir_misses_are_empty(session, src):
    assert py(session, src) == []


# ------------------------------------------------------------------ doc

def test_doc_of_an_export_prints_call_contract_effect_and_docstring(session):
    r = run(session, "(doc shop/price)")
    assert r.value is None
    text = r.prints[0]
    assert text.splitlines()[0] == "(shop/price sku)"
    assert "(sku :string) -> :int" in text and "effect: read" in text and "Unit price of a product" in text


def test_doc_accepts_a_string_and_constants(session):
    text = run(session, '(doc "shop/currency")').prints[0]
    assert text.startswith("shop/currency") and ":string" in text and "currency code" in text


@pytest.mark.parametrize("src,first_line", [
    ("(doc map)", "(map f coll)"),
    ('(doc "filter")', "(filter pred coll)"),
    ("(doc clojure.string/join)", "(join coll)"),
    ("(doc Math/sqrt)", "(Math/sqrt x)"),
])
def test_doc_of_builtins_reads_the_registry(session, src, first_line):
    from ptclisp.registry.builtins import BUILTINS
    text = run(session, src).prints[0]
    assert text.splitlines()[0] == first_line
    if src == "(doc map)":
        assert BUILTINS["map"].doc.split(".")[0] in text


@pytest.mark.parametrize("src", ["(doc shop/lookup-price)", "(doc shop/nope)", "(doc nosuch-fn)", "(doc data/secret_key)",
                                 "(doc tool/not_granted)"])
def test_doc_misses_print_a_not_found_line(session, src):
    r = run(session, src)
    assert r.value is None and len(r.prints) == 1 and "No documentation found" in r.prints[0]


SEARCH = ptclisp.Tool(
    "search", lambda args: [], description="Search the catalog.\nReturns the matching items.", effect="read",
    input_schema={"type": "object", "required": ["query"],
                  "properties": {"query": {"type": "string", "description": "Words to find."},
                                 "limit": {"type": "integer"}, "tags": {"type": "array", "items": {"type": "string"}}}})
GET_USER = ptclisp.Tool("get_user", lambda args: {}, signature="(id :int) -> {name :string}",
                        description="One user by id.")
SECRET = ptclisp.Tool("secret", lambda args: {}, description="Only preludes may call this.", private=True)


def test_doc_of_a_tool_shows_its_call_arguments_effect_and_description():
    s = Session(tools=[SEARCH, GET_USER, SECRET])
    assert run(s, "(doc tool/search)").prints == [
        "(tool/search {:query query :limit limit :tags tags})\n"
        "  arguments:\n"
        "    query (required): string - Words to find.\n"
        "    limit: integer\n"
        "    tags: array of string\n"
        "  effect: read\n"
        "  Search the catalog.\n"
        "  Returns the matching items."]
    assert run(s, '(doc "tool/get_user")').prints == [
        "(tool/get_user {:id id})\n  contract: (id :int) -> {name :string}\n  effect: unknown\n  One user by id."]


def test_doc_of_a_plain_callable_tool_uses_its_docstring(session):
    def lookup(args):
        """Find a user by id."""
    s = Session(tools={"lookup": lookup})
    assert run(s, "(doc tool/lookup)").prints == ["(tool/lookup {...})\n  effect: unknown\n  Find a user by id."]
    assert run(session, "(doc tool/hidden_tool)").prints == ["(tool/hidden_tool {...})\n  effect: unknown"]


def test_doc_never_shows_a_private_tool():
    s = Session(tools=[SECRET])
    assert run(s, "(doc tool/secret)").prints == ["No documentation found for tool/secret"]


def test_a_private_export_spelling_does_not_fall_through_to_the_registry():
    s = Session(preludes=["(ns tools2) (defn- map [f xs] xs)"])
    assert "No documentation found" in run(s, "(doc tools2/map)").prints[0]


def test_doc_is_a_value_too(session):
    r = run(session, '(map doc ["inc" "dec"])')
    assert len(r.prints) == 2 and r.prints[0].startswith("(inc")


def test_symbol_arguments_are_quoted_other_arguments_evaluated(session):
    assert "No documentation found for x" in run(session, '(let [x "shop/price"] (doc x))').prints[0]
    assert run(session, '(doc (str "shop/" "price"))').prints[0].startswith("(shop/price")
    # a locally rebound name is an ordinary call: its argument is evaluated, not quoted
    assert session.eval("(let [dir (fn [x] :local)] (dir shop))").error.kind == "unbound_var"


# ------------------------------------------------------------------ apropos

def test_apropos_searches_exports_and_registry(session):
    hits = py(session, '(apropos "price")')
    assert "shop/price" in hits and "shop/basket-total" in hits    # ref and docstring matches
    assert "shop/lookup-price" not in hits                          # private helpers are never listed
    assert len(hits) == len(set(hits))                               # (order: see the name-first test)
    upper = py(session, '(apropos "UPPER-case")')
    assert "upper-case" in upper


def test_apropos_lists_name_matches_first_then_description_matches(session):
    hits = py(session, '(apropos "str")')
    by_name = [h for h in hits if "str" in h.lower()]
    assert hits[:len(by_name)] == by_name == sorted(by_name)            # every name match comes first
    assert {"str", "pr-str", "string?", "json/parse-string"} <= set(by_name)
    rest = hits[len(by_name):]
    assert "<" in rest and "=" in rest and rest == sorted(rest)          # "strictly", "strings" in their docs
    assert len(hits) == len(set(hits))
    price = py(session, '(apropos "price")')
    assert price.index("shop/price") < price.index("shop/basket-total")  # a ref match before a docstring match


def test_apropos_finds_discoverable_exports_and_java_members(session):
    assert "shop/restock" in py(session, "(apropos 'restock)")
    assert "Math/sqrt" in py(session, '(apropos "sqrt")')


@pytest.mark.parametrize("src", ['(apropos "")', '(apropos "   ")', '(apropos "zzzz-no-such-thing")'])
def test_apropos_blank_or_miss_is_empty(session, src):
    assert py(session, src) == []


def test_apropos_never_mentions_data_or_tools(session):
    assert py(session, '(apropos "secret_key")') == [] and py(session, '(apropos "hidden_tool")') == []


def test_apropos_rejects_non_names(session):
    assert session.eval("(apropos 42)").error.kind == "type_error"


# ------------------------------------------------------------------ export-meta

def test_export_meta_of_a_function(session):
    m = py(session, "(export-meta shop/price)")
    assert m == {"ref": "shop/price", "namespace": "shop", "symbol": "price", "kind": "function",
                 "call": "(shop/price sku)", "doc": "Unit price of a product, in cents.", "visibility": "prompt",
                 "effect": "read", "arity": 1, "params": ["sku"], "signature": "(sku :string) -> :int"}
    raw = run(session, "(export-meta shop/price)").value
    assert raw.lookup(ptclisp.read_string(":kind")) == ptclisp.read_string(":function")


def test_export_meta_variadic_constant_and_discoverable(session):
    total = py(session, '(export-meta "shop/basket-total")')
    assert total["arity"] == "variadic" and total["min-arity"] == 0 and total["params"] == ["&", "skus"]
    cur = py(session, "(export-meta shop/currency)")
    assert cur["kind"] == "constant" and cur["type"] == ":string" and "arity" not in cur
    assert py(session, "(export-meta shop/restock)")["visibility"] == "discoverable"


@pytest.mark.parametrize("src", ["(export-meta shop/lookup-price)", "(export-meta shop/nope)", "(export-meta map)",
                                 "(export-meta nosuch/x)"])
def test_export_meta_misses_are_nil(session, src):
    assert run(session, src).value is None


# ------------------------------------------------------------------ source

def test_source_of_an_export(session):
    text = run(session, "(source shop/price)").prints[0]
    assert text.startswith("(defn price") and text.rstrip().endswith("(lookup-price sku))")


def test_source_of_a_private_helper_reachable_from_an_export(session):
    assert run(session, "(source shop/lookup-price)").prints[0] == "(defn- lookup-price [sku] (count sku))"


@pytest.mark.parametrize("src", ["(source shop/unused-helper)", "(source map)", "(source shop/nope)",
                                 '(source "empty-ns/only-private")'])
def test_source_misses(session, src):
    r = run(session, src)
    assert r.value is None and "No source available" in r.prints[0]


# ------------------------------------------------------------------ without preludes

def test_introspection_without_preludes():
    s = Session()
    assert py(s, "(export-meta x/y)") is None
    assert "reduce" in py(s, '(apropos "reduce")')


def test_dir_without_preludes_lists_the_builtins_by_category():
    from ptclisp.registry import java as J
    from ptclisp.registry.builtins import BUILTINS
    groups = py(Session(), "(dir)")
    assert groups["sets"] == sorted(n for n, b in BUILTINS.items() if b.category == "sets")
    assert "union" in groups["sets"] and "map" in groups["sequences"] and "upper-case" in groups["strings"]
    assert groups["json"] == ["json/generate-string", "json/parse-lines", "json/parse-string"]
    assert groups["java"] == sorted(m.name for m in J.all_members())
    listed = [n for names in groups.values() for n in names]
    assert len(listed) == len(set(listed)) and set(BUILTINS) <= set(listed)
    assert list(groups) == sorted(groups)
    assert py(Session(), '(get (dir) "introspection")') == ["apropos", "dir", "doc", "export-meta", "source"]


def test_introspection_forms_are_builtins_in_the_registry():
    from ptclisp.registry.builtins import BUILTINS
    for name in ("doc", "dir", "apropos", "source", "export-meta"):
        assert BUILTINS[name].category == "introspection"
    assert "meta" not in BUILTINS
