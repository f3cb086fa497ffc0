"""`ptclisp lsp` driven over stdio by a real client (pygls's LanguageClient, tests/lsp_client.py).

One server process serves the module (a fresh process: its builtins must be known without
anything evaluated first). The files it sees are laid out once: a loose directory (no project:
builtins only), an agent project (data/orders, a Python tool, a prelude, a workflow) and a
project whose ptclisp.toml is broken.
"""
from __future__ import annotations

import json
import subprocess
import sys

import pytest

pytest.importorskip("pygls")

from lsprotocol import types as T  # noqa: E402

from lsp_client import Client, apply_edits  # noqa: E402

ORDERS = [{"id": 1, "region": "north", "amount": 12.5, "note": None},
          {"id": 2, "region": "south", "amount": 7, "coupon": "X1"}]

TOML = """\
[project]
name = "shop"
version = "0.1.0"

[models.main]
provider = "scripted"
model = "models/main.script.json"

[tools.lookup]
python = "tools:lookup"

[mcp.git]
command = ["mcp-server-git"]

[missions.default]
data = { orders = "data/orders.json" }
tools = ["lookup"]
mcp = ["git"]
preludes = ["preludes/helpers.clj"]

[entry]
task = "Sum the orders."
"""

FLOW_TOML = """\
[project]
name = "flow"
version = "0.1.0"

[models.main]
provider = "scripted"
model = "models/main.script.json"

[missions.default]

[entry]
workflow = "flow.clj"
"""

TOOLS = '''\
def lookup(order_id: int) -> dict:
    """Find one order by id."""
    raise SystemExit("the language server must never import project code")
'''

HELPERS = """\
(ns helpers "Order helpers.")

(defn paid-total
  "The total of the orders' amounts."
  [orders]
  (reduce + 0 (map :amount orders)))
"""


@pytest.fixture(scope="module")
def tree(tmp_path_factory):
    root = tmp_path_factory.mktemp("lsp")
    shop = root / "shop"
    (shop / "data").mkdir(parents=True)
    (shop / "preludes").mkdir()
    (shop / "ptclisp.toml").write_text(TOML)
    (shop / "data" / "orders.json").write_text(json.dumps(ORDERS))
    (shop / "tools.py").write_text(TOOLS)
    (shop / "preludes" / "helpers.clj").write_text(HELPERS)
    broken = root / "broken"
    broken.mkdir()
    (broken / "ptclisp.toml").write_text("[project\nname = 1\n")
    (root / "loose").mkdir()
    (root / "flow").mkdir()
    (root / "flow" / "ptclisp.toml").write_text(FLOW_TOML)
    return root


@pytest.fixture(scope="module")
def client(tree):
    c = Client(str(tree), debounce_ms=400)   # a debounce far above the time between two notifications
    yield c
    c.kill()


def _ranges(diags):
    return [(d.code, (d.range.start.line, d.range.start.character, d.range.end.line, d.range.end.character))
            for d in diags]


# ------------------------------------------------------------------ diagnostics

def test_unbound_symbol_has_the_symbols_range_and_builtins_are_known(client, tree):
    uri = client.open(tree / "loose" / "unbound.clj", "(defn f [x] (inc x))\n(println (fo 1) (f 2))\n")
    diags = client.wait_diagnostics(uri)
    assert _ranges(diags) == [("unbound_var", (1, 10, 1, 12))]
    assert diags[0].message.startswith("Unable to resolve symbol: fo in this context")
    assert diags[0].source == "ptclisp"


def test_ranges_are_in_the_clients_utf16_units(client, tree):
    assert client.init.capabilities.position_encoding == T.PositionEncodingKind.Utf16
    uri = client.open(tree / "loose" / "emoji.clj", '(str "\U0001F600" (fo 1))\n')
    assert _ranges(client.wait_diagnostics(uri)) == [("unbound_var", (0, 11, 0, 13))]   # the emoji is 2 units
    other = client.open(tree / "loose" / "emoji2.clj", '(str "\U0001F600" (inc 1))\n')
    h = client.hover(other, 0, 12)
    assert (h.range.start.character, h.range.end.character) == (11, 14) and "(inc x)" in h.contents.value


def test_reader_error_has_the_readers_position_and_message(client, tree):
    uri = client.open(tree / "loose" / "unread.clj", "(let [a 1]\n  (inc a]\n")
    diags = client.wait_diagnostics(uri)
    assert _ranges(diags) == [("parse_error", (1, 8, 1, 9))]
    assert diags[0].message == "mismatched ']' at line 2, column 9: the list opened at line 2, column 3 needs ')'"


def test_each_unbound_name_of_a_form_is_reported(client, tree):
    uri = client.open(tree / "loose" / "two.clj", "(let [y (foo 1)]\n  (bar y))\n")
    assert _ranges(client.wait_diagnostics(uri)) == [("unbound_var", (0, 9, 0, 12)), ("unbound_var", (1, 3, 1, 6))]


def test_no_completion_or_hover_inside_strings_and_comments(client, tree):
    uri = client.open(tree / "loose" / "strings.clj", '(str "ma" 1) ; ma\n(map inc [1])')
    assert client.completion(uri, 0, 8).items == ()
    assert client.completion(uri, 0, 17).items == ()
    assert client.hover(uri, 0, 7) is None and client.hover(uri, 0, 16) is None
    assert client.hover(uri, 1, 2) is not None


def test_arity_of_builtins_own_functions_and_form_shapes(client, tree):
    text = "(defn add [x y] (+ x y))\n(add 1)\n(map inc)\n(let [x] 1)\n(let [add inc] (add 1))\n"
    uri = client.open(tree / "loose" / "arity.clj", text)
    diags = client.wait_diagnostics(uri)
    assert _ranges(diags) == [("arity_mismatch", (1, 0, 1, 7)), ("arity_error", (2, 0, 2, 9)),
                              ("invalid_form", (3, 5, 3, 8))]
    assert diags[0].message == "wrong number of arguments to add: expects 2, got 1"
    assert diags[1].message == "map called with 1 argument (expects 2-4)"


def test_change_is_checked_after_the_debounce_for_the_last_version_only(client, tree):
    uri = client.open(tree / "loose" / "edit.clj", "(inc 1)\n")
    assert client.wait_diagnostics(uri) == ()
    client.change(uri, "(inc (mapp 1))\n")
    client.change(uri, "(inc (mappp 1))\n")
    client.change(uri, "(inc (mapv 1))\n")
    diags = client.wait_diagnostics(uri)
    assert _ranges(diags) == [("arity_error", (0, 5, 0, 13))]
    client.pump(0.2)
    assert [p.version for p in client.diagnostics[uri]] == [1, 4]
    client.change(uri, "(inc (mapv inc [1]))\n")
    assert client.wait_diagnostics(uri) == ()


def test_project_data_and_tools_are_checked_against_the_mission(client, tree):
    text = "(count data/order)\n(tool/lookup {:order_id 1})\n(tool/missing {})\n(helpers/paid-total data/orders)\n" \
           "(tool/git.git_status {})\n(tool/gti.git_status {})\n"
    uri = client.open(tree / "shop" / "main.clj", text)
    diags = client.wait_diagnostics(uri)
    assert _ranges(diags) == [("unknown_data", (0, 7, 0, 17)), ("unknown_tool", (2, 1, 2, 13)),
                              ("unknown_tool", (5, 1, 5, 20))]
    assert diags[0].message == "data/order is not available. Available: data/orders. Did you mean data/orders?"
    assert diags[1].message == "tool/missing is not available. Available tools: git.*, lookup"
    assert "MCP server 'git'" in client.hover(uri, 4, 3).contents.value


def test_prelude_exports_arity_is_checked(client, tree):
    uri = client.open(tree / "shop" / "calls.clj", "(helpers/paid-total)\n")
    diags = client.wait_diagnostics(uri)
    assert _ranges(diags) == [("invalid_arity", (0, 0, 0, 20))]
    assert diags[0].message == "helpers/paid-total expects 1 argument, got 0"


def test_a_prelude_file_is_checked_as_a_prelude(client, tree):
    text = HELPERS + "\n(defn- oops [x] (undefined-thing x))\n(defn twice [o] (paid-total o o))\n"
    uri = client.open(tree / "shop" / "preludes" / "helpers.clj", text)
    try:
        diags = client.wait_diagnostics(uri)
    finally:
        client.close(uri)
    assert [d.code for d in diags] == ["compile_error", "arity_mismatch"]
    assert (diags[0].range.start.line, diags[0].range.start.character) == (7, 17)
    assert "undefined-thing" in diags[0].message
    assert _ranges(diags)[1] == ("arity_mismatch", (8, 16, 8, 32))
    assert diags[1].message == "wrong number of arguments to paid-total: expects 1, got 2"


def test_unsaved_prelude_text_is_what_programs_see(client, tree):
    prelude = client.open(tree / "shop" / "preludes" / "helpers.clj", HELPERS + "\n(defn extra [] 1)\n")
    try:
        uri = client.open(tree / "shop" / "extra.clj", "(helpers/extra)\n")
        assert client.wait_diagnostics(uri) == ()
        seen = client.published(uri)
        client.change(prelude, HELPERS)         # the program is checked again, unchanged itself
        assert [d.code for d in client.wait_next_diagnostics(uri, seen)] == ["invalid_form"]
    finally:
        client.close(prelude)


def test_a_broken_project_file_is_one_diagnostic_and_the_server_goes_on(client, tree):
    uri = client.open(tree / "broken" / "x.clj", "(inc 1)\n(ma")
    diags = client.wait_diagnostics(uri)
    assert [d.code for d in diags] == ["invalid_project", "parse_error"]
    assert diags[0].message.startswith("ptclisp.toml: /: not valid TOML")
    labels = [i.label for i in client.completion(uri, 1, 3).items]
    assert "map" in labels


# ------------------------------------------------------------------ completion

def test_completion_of_ma_offers_map_and_mapv_with_signature_and_doc(client, tree):
    from ptclisp.registry import builtins as registry
    from ptclisp import lib
    lib.load()
    uri = client.open(tree / "loose" / "complete.clj", "(defn f [x] x)\n(ma")
    items = {i.label: i for i in client.completion(uri, 1, 3).items}
    assert {"map", "mapv", "mapcat", "max"} <= set(items)
    assert all(label.startswith("ma") for label in items)
    assert items["map"].detail == registry.BUILTINS["map"].signatures[0]
    assert registry.BUILTINS["mapv"].doc in items["mapv"].documentation.value
    edit = items["mapv"].text_edit
    assert (edit.range.start.line, edit.range.start.character, edit.range.end.character) == (1, 1, 3)


def test_completion_offers_locals_in_scope_first_and_file_definitions(client, tree):
    text = "(defn tally-up [xs] xs)\n(let [total 1 tax 2]\n  (fn [tick] (ta"
    uri = client.open(tree / "loose" / "locals.clj", text)
    labels = [i.label for i in client.completion(uri, 2, 15).items]
    assert labels[:4] == ["tax", "tick", "total", "tally-up"]
    assert "take" in labels
    assert "tick" not in [i.label for i in client.completion(uri, 1, 13).items]


def test_completion_after_a_multi_line_string_whose_line_starts_with_a_bracket(client, tree):
    text = '(let [abc 1]\n  (str "x\n(not code" (ab'
    uri = client.open(tree / "loose" / "mls.clj", text)
    labels = [i.label for i in client.completion(uri, 2, 14).items]
    assert labels[0] == "abc"


def test_completion_in_a_project_offers_its_data_tools_and_exports(client, tree):
    uri = client.open(tree / "shop" / "complete.clj", "(count data/o")
    items = {i.label: i for i in client.completion(uri, 0, 13).items}
    assert list(items) == ["data/orders"]
    assert items["data/orders"].detail.startswith("Type: [{id :int, region :string")
    uri2 = client.open(tree / "shop" / "complete2.clj", "(tool/\n(helpers/")
    assert [i.label for i in client.completion(uri2, 0, 6).items] == ["tool/git.", "tool/lookup"]
    exports = {i.label: i for i in client.completion(uri2, 1, 9).items}
    assert list(exports) == ["helpers/paid-total"]
    assert exports["helpers/paid-total"].detail == "(helpers/paid-total orders)"
    assert "The total of the orders' amounts." in exports["helpers/paid-total"].documentation.value


# ------------------------------------------------------------------ hover, signature help, definition

def test_hover_on_map_shows_its_signatures_and_doc(client, tree):
    from ptclisp.registry import builtins as registry
    from ptclisp import lib
    lib.load()
    uri = client.open(tree / "loose" / "hover.clj", "(map inc [1 2])\n")
    h = client.hover(uri, 0, 2)
    spec = registry.BUILTINS["map"]
    assert spec.doc in h.contents.value
    assert all(sig in h.contents.value for sig in spec.signatures)
    assert (h.range.start.character, h.range.end.character) == (1, 4)
    assert client.hover(uri, 0, 11) is None      # a number


def test_hover_on_data_shows_its_shape_as_the_prompt_does(client, tree):
    from ptclisp.agent.context import type_of_data
    from ptclisp.lsp.describe import render_type
    uri = client.open(tree / "shop" / "hover.clj", "(count data/orders)\n(tool/lookup {:order_id 1})\n")
    value = client.hover(uri, 0, 10).contents.value
    assert f"Type: {render_type(type_of_data(ORDERS))}" in value
    assert "Type: [{id :int, region :string, amount :float, note? nil, coupon? :string}]" in value
    tool = client.hover(uri, 1, 3).contents.value
    assert "lookup(order_id: int) -> dict" in tool and "Find one order by id." in tool


def test_hover_on_a_local_and_a_definition(client, tree):
    uri = client.open(tree / "loose" / "hover2.clj", '(defn twice "Two of it." [x] (* 2 x))\n(let [n 1] (twice n))\n')
    assert "Two of it." in client.hover(uri, 1, 13).contents.value
    assert "(twice x)" in client.hover(uri, 1, 13).contents.value
    assert "local binding" in client.hover(uri, 1, 19).contents.value


def test_signature_help_inside_a_call(client, tree):
    uri = client.open(tree / "loose" / "sig.clj", "(defn f [a b] a)\n(reduce + 0 \n(f 1 ")
    help_ = client.signature_help(uri, 1, 12)
    assert [s.label for s in help_.signatures] == ["(reduce f coll)", "(reduce f init coll)"]
    sig = help_.signatures[help_.active_signature]
    assert sig.label == "(reduce f init coll)" and help_.active_parameter == 2
    assert sig.label[slice(*sig.parameters[2].label)] == "coll"
    own = client.signature_help(uri, 2, 5)
    assert own.signatures[0].label == "(f a b)" and own.active_parameter == 1


def test_definition_of_a_user_function_jumps_to_its_defn(client, tree):
    uri = client.open(tree / "loose" / "defs.clj", "(defn helper [x] x)\n\n(helper (helper 1))\n")
    loc = client.definition(uri, 2, 10)
    assert loc.uri == uri
    assert (loc.range.start.line, loc.range.start.character, loc.range.end.line, loc.range.end.character) == \
        (0, 6, 0, 12)
    local = client.definition(client.open(tree / "loose" / "defs2.clj", "(let [abc 1]\n  (inc abc))"), 1, 8)
    assert (local.range.start.line, local.range.start.character) == (0, 6)
    assert client.definition(uri, 0, 2) is None     # defn: a special form, defined nowhere


def test_definition_in_a_project_reaches_preludes_data_and_tools(client, tree):
    uri = client.open(tree / "shop" / "defs.clj", "(helpers/paid-total data/orders)\n(tool/lookup {:order_id 1})\n")
    shop = (tree / "shop").resolve()
    prelude = client.definition(uri, 0, 3)
    assert prelude.uri == (shop / "preludes" / "helpers.clj").as_uri() and prelude.range.start.line == 2
    data = client.definition(uri, 0, 24)
    assert data.uri == (shop / "data" / "orders.json").as_uri()
    tool = client.definition(uri, 1, 3)
    assert tool.uri == (shop / "tools.py").as_uri() and tool.range.start.line == 0


def test_a_workflow_file_sees_the_agent_library(client, tree):
    uri = client.open(tree / "flow" / "flow.clj", '(agent.core/run-value "Sum." {"mission" "default"})\n'
                                                  '(agent.core/run-valu 1)\n')
    diags = client.wait_diagnostics(uri)
    assert [(d.code, d.range.start.line) for d in diags] == [("invalid_form", 1)]
    assert "agent.core/run-valu is not a public export" in diags[0].message


# ------------------------------------------------------------------ shape and formatting

def test_document_symbols_and_folding_ranges(client, tree):
    text = "(def limit 3)\n\n(defn top\n  [xs]\n  (take limit xs))\n(println (top [1]))\n"
    uri = client.open(tree / "loose" / "outline.clj", text)
    syms = client.symbols(uri)
    assert [(s.name, s.kind) for s in syms] == [("limit", T.SymbolKind.Variable), ("top", T.SymbolKind.Function)]
    assert (syms[1].range.start.line, syms[1].range.end.line, syms[1].selection_range.start.character) == (2, 4, 6)
    assert [(f.start_line, f.end_line) for f in client.folding(uri)] == [(2, 4)]


def test_formatting_returns_the_fmt_edits(client, tree):
    from ptclisp.tooling.formatter import format_source
    text = "(defn f [x]\n(let [y   (inc x)]\n      y))\n\n\n\n(f   1)"
    uri = client.open(tree / "loose" / "fmt.clj", text)
    edits = client.formatting(uri)
    assert edits and apply_edits(text, edits) == format_source(text)
    assert client.formatting(client.open(tree / "loose" / "fmt2.clj", format_source(text))) == ()
    assert client.formatting(client.open(tree / "loose" / "fmt3.clj", "(inc")) is None


def test_range_formatting_formats_the_forms_in_the_range_only(client, tree):
    text = "(inc   1)\n(defn g [x]\n(inc    x))\n(dec   2)\n"
    uri = client.open(tree / "loose" / "rfmt.clj", text)
    edits = client.range_formatting(uri, (2, 0), (2, 3))
    assert apply_edits(text, edits) == "(inc   1)\n(defn g [x]\n  (inc x))\n(dec   2)\n"


# ------------------------------------------------------------------ the process

def test_exit_after_shutdown_is_clean(tree):
    c = Client(str(tree))
    try:
        uri = c.open(tree / "loose" / "bye.clj", "(inc 1)\n")
        assert c.wait_diagnostics(uri) == ()
        assert c.shutdown_and_exit() == 0
    finally:
        c.kill()


def test_the_command_has_help_and_rejects_bad_flags():
    ok = subprocess.run([sys.executable, "-m", "ptclisp", "lsp", "--help"], capture_output=True, text=True,
                        timeout=60)
    assert ok.returncode == 0 and "Language Server Protocol" in ok.stdout
    bad = subprocess.run([sys.executable, "-m", "ptclisp", "lsp", "--debounce-ms", "-1"], capture_output=True,
                         text=True, timeout=60, stdin=subprocess.DEVNULL)
    assert bad.returncode == 2 and bad.stderr.strip() == "ptclisp: --debounce-ms must be 0 or more"
    eof = subprocess.run([sys.executable, "-m", "ptclisp", "lsp", "--stdio"], capture_output=True, timeout=60,
                         stdin=subprocess.DEVNULL)
    assert eof.returncode == 0 and eof.stdout == b""          # standard input closed: the server ends
    missing = subprocess.run([sys.executable, "-c", "import sys; sys.modules['pygls'] = None\n"
                              "from ptclisp.commands.main import main; sys.exit(main(['lsp']))"],
                             capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL)
    assert missing.returncode == 2
    assert missing.stderr.strip() == "ptclisp: the language server needs pygls (pygls is not installed): " \
                                     "pip install 'ptclisp[lsp]'"


def test_render_type_matches_the_agent_prompt():
    """The hover's data shape is written as agent.prompt writes a data entry's type."""
    from ptclisp.agent import AgentHost, Mission
    from ptclisp.agent.context import type_of_data
    from ptclisp.lsp.describe import render_type
    from ptclisp.providers import ScriptedProvider
    values = {"orders": ORDERS, "nested": {"a": [[1, 2.5]], "b": {"c": None, "d": True}, "e": []},
              "mixed": [1, "x", None], "empty": {}, "n": 3}
    host = AgentHost({"m": ScriptedProvider([])}, {"default": Mission(data=values)})
    cfg = {"mission": "default", "max_turns": 2, "max_observation_chars": 2048, "max_program_chars": 64000}
    out = host.eval("(agent.prompt/render (agent.prompt/initial-state data/cfg))", {"cfg": cfg})
    assert out.ok, out.error
    lines = out.raw.splitlines()
    for name, value in values.items():
        i = lines.index(f"- Value: data/{name}")
        assert lines[i + 1] == "  Type: " + render_type(type_of_data(value)), name


def test_every_special_form_is_described():
    from ptclisp.lsp.describe import NOT_AVAILABLE, SPECIAL_FORMS
    from ptclisp.mcp.language_facts import special_forms
    assert set(special_forms()) - NOT_AVAILABLE == set(SPECIAL_FORMS)

