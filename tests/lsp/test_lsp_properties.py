"""Properties of the language server's library half (ptclisp/lsp/) over generated text.

The protocol side is tested over stdio in test_lsp.py; here hypothesis checks what must hold for
any text an editor may hold mid-edit: no feature raises, every range lies inside the text, and the
formatting edits turn the text into exactly what `ptclisp fmt` writes.
"""
from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from ptclisp import lib
from ptclisp.lsp import features as F
from ptclisp.lsp.context import BUILTINS_ONLY
from ptclisp.lsp.diagnostics import diagnose
from ptclisp.lsp.outline import format_edits
from ptclisp.lsp.source import Text
from ptclisp.tooling.formatter import format_source

lib.load()

_PIECES = ["(", ")", "[", "]", "{", "}", "#{", "#(", " ", "\n", "  ", '"', "\\", ";", "'", "#'", ":k",
           "map", "ma", "let", "fn", "defn", "x", "y", "data/orders", "tool/t", "str/up", "1", "2.5", "%",
           "&", "@", "^", "#_", "é", "😀"]

texts = st.lists(st.sampled_from(_PIECES), max_size=40).map("".join)


def _inside(text: Text, pos) -> bool:
    return 0 <= pos[0] < text.lines and 0 <= pos[1] <= len(text.line_text(pos[0])) + 1


@settings(max_examples=150, deadline=None)
@given(texts, st.integers(min_value=0, max_value=400))
def test_no_feature_raises_and_every_range_is_inside_the_text(text, at):
    t = Text(text)
    for d in diagnose(text, BUILTINS_ONLY):
        assert d.start <= d.end and _inside(t, d.start) and _inside(t, d.end), d
    pos = t.spot(min(at, len(text)))
    doc = F.Document(text, None, BUILTINS_ONLY)
    items, start = F.complete(doc, pos)
    assert 0 <= start <= pos[1]
    F.hover(doc, pos)
    F.definition(doc, pos)
    F.signature_help(doc, pos)


_ATOMS = st.sampled_from(["x", "1", ":k", '"s"', "map", "inc", "nil", "[]", "data/orders"])
_FORMS = st.recursive(_ATOMS, lambda inner: st.tuples(st.sampled_from(["(", "[", "{", "#{"]),
                                                      st.lists(inner, max_size=4)), max_leaves=12)
_GAPS = st.sampled_from([" ", "  ", "\n", "\n   ", " ,", "\n\n\n", "\t"])


def _render(form, gaps) -> str:
    if isinstance(form, str):
        return form
    opener, items = form
    closer = {"(": ")", "[": "]", "{": "}", "#{": "}"}[opener]
    if opener == "{":
        items = items[:len(items) // 2 * 2]
    body = ""
    for i, item in enumerate(items):
        body += (gaps.draw(_GAPS) if i else "") + _render(item, gaps)
    return opener + body + closer


@settings(max_examples=100, deadline=None)
@given(st.lists(_FORMS, min_size=1, max_size=4), st.data())
def test_formatting_edits_give_exactly_the_fmt_layout(forms, data):
    text = "".join(("(do " + _render(f, data) + ")") + data.draw(_GAPS) for f in forms)
    want = format_source(text)
    edits = format_edits(text)
    t = Text(text)
    out = text
    for e in sorted(edits, key=lambda e: e.start, reverse=True):
        out = out[:t.offset(*e.start)] + e.text + out[t.offset(*e.end):]
    assert out == want


def test_the_benchmark_file_has_its_size_and_exactly_its_two_planted_mistakes(tmp_path):
    import pathlib
    import sys
    sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[2] / "benchmarks"))
    try:
        import lsp_diagnostics as bench
    finally:
        sys.path.pop(0)
    text = bench.program(2000)
    assert 1950 <= text.count("\n") <= 2000
    path = bench.make_project(tmp_path / "proj")
    from ptclisp.lsp.context import context_for
    found = diagnose(text, context_for(str(path)))
    assert [(d.kind, d.start[0]) for d in found] == [("unbound_var", text.count("\n") - 2),
                                                     ("arity_mismatch", text.count("\n") - 1)]
