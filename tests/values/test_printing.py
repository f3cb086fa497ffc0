"""How callables print, and how far a bounded preview reaches (docs/spec/runtime.md §11)."""
import pytest

import ptclisp
from ptclisp.values.preview import PreviewCaps, preview


def value(src, **kw):
    r = ptclisp.run(src, **kw)
    assert r.ok, r.error
    return r.value


@pytest.mark.parametrize("src,text", [
    ("map", "#<builtin map>"),
    ("+", "#<builtin +>"),
    ("str/join", "#<builtin join>"),                       # a compatibility spelling names the builtin
    ("json/parse-string", "#<builtin json/parse-string>"),  # reachable only qualified: named qualified
    ("Math/sqrt", "#<builtin Math/sqrt>"),
    (".trim", "#<builtin .trim>"),
    ("(fn [x y] x)", "#fn[x y]"),
])
def test_callables_print_their_name(src, text):
    assert ptclisp.pr_str(value(src)) == text
    assert value(f"(pr-str {src})") == text
    assert value(f"(str [{src}])") == f"[{text}]"


def test_a_granted_tool_prints_its_name():
    assert value("(pr-str tool/lookup)", tools={"lookup": lambda args: 1}) == "#<builtin tool/lookup>"


# ------------------------------------------------------------------ preview budget

def _shown_items(text: str) -> int:
    return len(text.split("]")[0].strip("[").replace(" ...", "").split())


def test_the_item_cap_grows_with_the_character_budget():
    xs = value("(vec (range 5000))")
    assert _shown_items(preview(xs)) == 16                        # the default budget is unchanged
    assert _shown_items(preview(xs, PreviewCaps(chars=8192))) == 64
    big = preview(xs, PreviewCaps(chars=65536))
    assert _shown_items(big) == 512 and big.endswith("#<preview truncated: items>")
    assert _shown_items(preview(xs, PreviewCaps(chars=8192, items=5))) == 5   # an explicit cap still holds


def test_a_long_string_shows_more_of_itself_with_a_larger_budget():
    s = "x" * 5000
    assert len(preview(s)) < 300
    assert preview(s, PreviewCaps(chars=65536)) == '"' + s + '"'


def test_repl_preview_chars_shows_more_items():
    from ptclisp.repl.headless import Repl, ReplConfig
    lines = Repl(ReplConfig(preview_chars=8192)).handle("(vec (range 1000))")
    (text,) = [t for kind, t in lines if kind == "value"]
    assert _shown_items(text) == 64


@pytest.mark.parametrize("x,text", [(1e-7, "1.0E-7"), (-1.5e-10, "-1.5E-10"), (0.00012, "0.00012"), (5e-324, "5.0E-324")])
def test_tiny_floats_print_as_clojure_spells_them_and_read_back(x, text):
    assert ptclisp.pr_str(x) == text
    assert ptclisp.read_string(text) == x
