"""How callables print, and how far a bounded preview reaches (runtime.md §11)."""
import pytest

import ptclisp
from ptclisp.printer import PreviewCaps, preview


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
