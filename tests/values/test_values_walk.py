"""The data model package (ptclisp/values/): its modules' order, the one walk over values, and the
walkers and renderers built on it giving what they gave before it existed (issue 14)."""
import ast
import pathlib

import pytest

import ptclisp
from ptclisp import PtcError
from ptclisp.interchange.python import MAX_DEPTH, to_python
from ptclisp.runtime.guards import result_bytes, retained_bytes
from ptclisp.parallel import disown
from ptclisp.values.preview import PreviewCaps, preview
from ptclisp.values.text import pr_str
from ptclisp.values import Keyword, Vector
from ptclisp.values.walk import IN_PROGRESS, Stop, walk

PKG = pathlib.Path(__file__).resolve().parents[2] / "ptclisp" / "values"
# bottom up: each module may import only those before it (and ptclisp.errors from outside)
ORDER = ["intstr", "ownership", "keys", "atoms", "maps", "vectors", "sets", "kinds", "compare", "text", "walk", "copies",
         "preview"]


def _ptclisp_imports(path: pathlib.Path) -> set:
    """The ptclisp modules a file of the values package imports (function-level imports too)."""
    out = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom):
            base = {0: "", 1: "ptclisp.values", 2: "ptclisp"}[node.level]
            mod = ".".join(p for p in (base, node.module or "") if p)
            if mod == "ptclisp.values":
                out.update(f"ptclisp.values.{a.name}" for a in node.names)
            elif mod.startswith("ptclisp"):
                out.add(mod)
        elif isinstance(node, ast.Import):
            out.update(a.name for a in node.names if a.name.startswith("ptclisp"))
    return out


def test_the_values_modules_import_only_the_ones_below_them():
    assert sorted(p.stem for p in PKG.glob("*.py")) == sorted(ORDER + ["__init__"])
    for i, name in enumerate(ORDER):
        deps = _ptclisp_imports(PKG / f"{name}.py")
        below = {f"ptclisp.values.{m}" for m in ORDER[:i]}
        assert deps - below <= {"ptclisp.errors"}, name     # never convert or anything above


def test_init_imports_nothing_from_outside_the_package():
    assert {d for d in _ptclisp_imports(PKG / "__init__.py") if not d.startswith("ptclisp.values.")} == set()


# ------------------------------------------------------------------ the walk

def test_the_walk_visits_in_order_and_counts_depth():
    v = ptclisp.read_string('[1 {:a [2]} #{3}]')
    seen = []

    def vector(x, depth):
        seen.append(("vector", depth))
        return iter(x.lst())

    def other(x, t, depth):
        seen.append((x, depth))

    assert walk(v, vector=vector, other=other) is None
    assert seen == [("vector", 0), (1, 1), (Keyword("a"), 2), ("vector", 2), (2, 3), (3, 2)]


def test_a_built_walk_enters_a_shared_part_once():
    inner = Vector([1])
    left = []

    def leave(x, parts):
        left.append(x)
        return tuple(parts)

    out = walk(Vector([inner, inner]), leave=leave, build=True, once=True)
    assert out == ((1,), (1,)) and out[0] is out[1]
    assert left[0] is inner and len(left) == 2
    assert walk(Vector([1, "s"]), leaf=lambda x, t: x * 10, leave=lambda x, parts: parts, build=True,
                skip=(str,)) == [10, "s"]


def test_a_value_met_inside_itself_is_reported_in_progress():
    loop = [1]
    loop.append(loop)
    met = []

    def again(x, result):
        met.append((x is loop, result is IN_PROGRESS))

    walk(loop, other=lambda x, t, depth: iter(x) if t is list else None, again=again, once=True)
    assert met == [(True, True)]


def test_stop_ends_the_walk_and_skipped_values_reach_no_hook():
    seen = []

    def other(x, t, depth):
        seen.append(x)
        if x == 3:
            raise Stop

    assert walk(Vector([1, "s", 2, 3, 4]), other=other, skip=(str,)) is None
    assert seen == [1, 2, 3]


def test_the_walk_needs_no_python_stack():
    x = Vector([])
    for _ in range(100_000):
        x = Vector([x])
    deepest = [0]

    def vector(v, depth):
        deepest[0] = max(deepest[0], depth)
        return iter(v.lst())

    walk(x, vector=vector)
    assert deepest[0] == 100_000


def test_to_python_walks_deep_data_without_recursion_and_refuses_deeper_than_the_bound():
    x = Vector([1])
    for _ in range(MAX_DEPTH - 1):   # MAX_DEPTH vectors in all
        x = Vector([x])
    out = to_python(x)
    n = 0
    while isinstance(out, list):
        out, n = out[0], n + 1
    assert (n, out) == (MAX_DEPTH, 1)
    with pytest.raises(PtcError) as e:
        to_python(Vector([x]))
    assert e.value.kind == "memory_exceeded"


# ------------------------------------------------------------------ what the walkers give is unchanged
# (the expected numbers and texts were produced by the walkers as they were before the one walk)

MIXED = '{:a [1 2 3 300 -7] "b" #{:x :y} 3 {:n nil} [1] 2.5 #{[1 2] {:z 1}} #"re+" :big 123456789012345678901234567890}'


def test_the_size_walkers_give_the_same_estimates():
    v = ptclisp.read_string(MIXED)
    assert (result_bytes(v, 10 ** 9), retained_bytes(v), disown(v)) == (157, 1403, 1179)
    assert 5 < result_bytes(v, 5) < 157   # stops soon after the cap


def test_render_size_gives_the_same_estimate():
    r = ptclisp.run(f"(count (str {MIXED}))")   # str charges render_size(x) before rendering
    assert r.ok and r.value == len(pr_str(ptclisp.read_string(MIXED)))
    from ptclisp.runtime import meter as M
    from ptclisp.lib.strings import render_size
    prev = M.install(M.Meter(M.Limits()))
    try:
        assert (render_size(ptclisp.read_string(MIXED), 10 ** 9), render_size(ptclisp.read_string(MIXED), 5)) \
            == (349, 14)
    finally:
        M.install(prev)


@pytest.mark.parametrize("src, caps, text", [
    ('{:a [1 2 3] "b" #{:x :y} 3 {:n nil} [1] 2.5 #{[1 2] {:z 1}} #"re+"}', PreviewCaps(chars=500, nodes=5),
     "{3 {:n nil} ... ... ...} #<preview truncated: nodes>"),
    ('{:a [1 2 3] "b" #{:x :y} 3 {:n nil} [1] 2.5 #{[1 2] {:z 1}} #"re+"}', PreviewCaps(chars=60, items=3, depth=2),
     '{3 {:n nil} "b" #{:x :y} :a [1 2 3] ...} #<preview truncated: items>'),
    ('[{:id 1 :s "xxxxxx"} {:id 2 :deep [[[[[[1]]]]]]}]', PreviewCaps(string=3),
     '[{:id 1 :s "xxx…"} {:dee… [[[...]]] :id 2}] #<preview truncated: depth,string>'),
    ('[{:id 1 :s "xxxxxx"} {:id 2 :deep [[[[[[1]]]]]]}]', PreviewCaps(chars=12),
     '[{:id 1 :s " ... #<preview truncated: output>'),
    ("[0 1 2 3 4 5 6 7 8 9]", PreviewCaps(items=3, nodes=3), "[0 1 ... ...] #<preview truncated: items,nodes>"),
])
def test_previews_are_unchanged(src, caps, text):
    assert preview(ptclisp.read_string(src), caps) == text


def test_view_order_still_ranks_kinds_without_an_order_by_their_text():
    v = ptclisp.read_string('#{{:a 1} {:a 10} #{1} #{"x"} [1] :k "s" 1 nil true}')
    assert pr_str(v) == '#{nil true 1 "s" :k [1] #{"x"} #{1} {:a 10} {:a 1}}'
    assert pr_str(ptclisp.run("(keys {#{1} 1 {:b 2} 2 [1] 3 :a 4})").value) == "[:a [1] #{1} {:b 2}]"


def test_a_vector_called_with_a_non_index_still_shows_the_idiom_meant():
    err = ptclisp.run("([[1 2]] :a)").error
    assert err.kind == "type_error" and (err.span.line, err.span.col) == (1, 1)
    assert err.message.endswith("got keyword; to read a field use #(get % [1 2])")
    assert repr(Vector([1, Keyword("a")])) == "[1 :a]"
