"""The facts builtins declare for the back ends (ptclisp/registry/builtins.py) hold, and every list the
back ends act on is derived from them.

A wrong claim is a wrong program, not a slow one: a builtin claiming `returns_bool` that returned
0 or "" would make the compiler's `if` treat a truthy PTC value as false.
"""
from __future__ import annotations

import inspect
import itertools
import math
import pathlib
import subprocess
import sys

import pytest

import ptclisp
from ptclisp import lib
from ptclisp.registry import builtins as R
from ptclisp.analyzer import base as analyzer_base
from ptclisp.backends.table import facts
from ptclisp.errors import PtcError
from ptclisp.values import Keyword, Map, Set, Vector, hk

lib.load()


def _samples():
    vec = Vector([1, 2, 3], None)
    return [None, True, False, 0, 1, -2, 7, 2.5, 0.0, -1.5, math.inf, math.nan, "", "a", "abc", " \t",
            Keyword("a"), vec, Vector([], None), Vector([None, False], None),
            Map({hk(Keyword("a")): 1}), Map(), Set({hk(1): 1, hk(2): 2}, None),
            R.BUILTINS["odd?"].fn, R.BUILTINS["identity"].fn]


SAMPLES = _samples()


def _calls(fn, counts):
    """Every call of `fn` with `counts` arguments drawn from SAMPLES; yields each value returned."""
    for n in counts:
        for args in itertools.product(SAMPLES, repeat=n):
            try:
                yield args, fn(*args)
            except PtcError:
                continue


def _counts(spec: R.Builtin) -> list[int]:
    hi = spec.min_arity + 2 if spec.max_arity is None else spec.max_arity
    return [n for n in range(spec.min_arity, min(hi, 3) + 1)]


BOOL_BUILTINS = sorted({s.name for s in R.every_builtin() if s.returns_bool})


def test_the_boolean_claims_cover_the_comparisons_and_predicates():
    assert {"=", "not=", "<", ">=", "not", "nil?", "empty?", "contains?", "every?", "starts-with?",
            "map?", "zero?", "int?", "integer?"} <= set(BOOL_BUILTINS)
    assert "first" not in BOOL_BUILTINS and "some" not in BOOL_BUILTINS and "get" not in BOOL_BUILTINS


@pytest.mark.parametrize("name", BOOL_BUILTINS)
def test_a_builtin_claiming_returns_bool_returns_a_python_bool(name):
    spec = R.called(name)
    seen = set()
    for args, value in _calls(spec.fn, _counts(spec)):
        assert type(value) is bool, f"({name} {' '.join(map(repr, args))}) returned {value!r}"
        seen.add(value)
    assert seen, f"no sample call of {name} returned"


def test_the_boolean_primitives_functions_return_python_bools():
    for op in facts().bool_prims:
        fn = R.primitive_fn(op)
        if fn is None:      # not / nil? / some?: computed in place, by an identity test
            assert R.PRIMITIVES[op].inline
            continue
        values = [v for _args, v in _calls(fn, [R.PRIMITIVES[op].arity])]
        assert values and all(type(v) is bool for v in values), op


def test_every_owned_builtin_has_its_in_place_variant_with_the_stated_arity():
    owned = [s for s in R.every_builtin() if s.owned is not None]
    assert {s.name for s in owned} == {"assoc", "dissoc", "conj", "update"}
    for spec in owned:
        variant = R.IN_PLACE[spec.owned]
        lo, hi = spec.owned_arity
        for n in range(lo, hi + 1):
            assert spec.accepts(n), (spec.name, n)
            inspect.signature(variant).bind(*range(n))   # raises TypeError if the variant cannot take n


def test_an_owned_builtin_must_state_its_variant_and_arity_together():
    with pytest.raises(RuntimeError, match="go together"):
        R.builtin("x-owned-test", doc="", owned="x_owned")


def test_the_primitive_table_agrees_with_the_builtins_declaring_it():
    declared = {s.prim: s for s in R.every_builtin() if s.prim is not None}
    assert set(declared) == set(R.PRIMITIVES)
    for op, p in R.PRIMITIVES.items():
        assert declared[op].accepts(p.arity), op
        assert (R.primitive_fn(op) is None) == p.inline, op
    assert R.primitive_fn("add") is R.PRIM_FNS["add"]          # the two-argument fast path
    assert R.primitive_fn("mod") is R.BUILTINS["mod"].fn       # no fast path: the builtin itself
    assert R.primitive_fn("ne") is R.primitive_fn("eq")        # negated by both back ends
    with pytest.raises(RuntimeError, match="unknown primitive"):
        R.builtin("x-prim-test", doc="", prim="pow")


def test_inline_loops_are_declared_by_the_builtins():
    assert facts().inline_hofs == {"map", "mapv", "mapcat", "filter", "filterv", "remove"}
    for name in facts().inline_hofs:
        assert R.BUILTINS[name].accepts(2)


def test_specializers_are_for_registered_builtins():
    assert set(R.SPECIALIZERS) == {"split", "join"}
    for name in R.SPECIALIZERS:
        assert R.called(name) is not None


def test_the_unshadowable_special_forms_come_from_their_registrations():
    assert analyzer_base.UNSHADOWABLE == {"if", "def", "defonce", "do", "recur", "return", "fail", "program",
                                          "quote"}
    assert ptclisp.run("(let [if (fn [a b c] :local)] (if true 1 2))").value == 1
    assert ptclisp.run("(let [when (fn [a b] :local)] (when true 1))").value == Keyword("local")


# ------------------------------------------------------------------ loading the library

def test_load_imports_every_family_module():
    here = pathlib.Path(lib.__file__).parent
    families = {p.stem for p in here.glob("*.py") if p.stem != "__init__"}
    assert families and all(f"ptclisp.lib.{f}" in sys.modules for f in families)


def _python(code: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)


def test_a_family_that_fails_to_import_is_an_error_not_skipped():
    # jsonlib is imported by no other family: only the explicit list can notice it is missing
    out = _python("import sys; sys.modules['ptclisp.lib.jsonlib'] = None\n"
                  "import ptclisp\nprint(ptclisp.run('(+ 1 2)').value)")
    assert out.returncode != 0 and "ptclisp.lib.jsonlib" in out.stderr


def test_importing_ptclisp_loads_no_family_until_a_session_needs_them():
    out = _python("import sys, ptclisp\n"
                  "print('ptclisp.lib.numbers' in sys.modules)\n"
                  "print(ptclisp.run('(let [[a b] \"xy\"] (str b a))').value)\n"
                  "print('ptclisp.lib.numbers' in sys.modules)")
    assert out.stdout.split() == ["False", "yx", "True"], out.stderr


def _imported_modules(path: pathlib.Path, package: str) -> set[str]:
    """Every module `path` imports, at any depth of its code (function-level imports included)."""
    import ast
    out = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            out.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = package.split(".")
            base = base[:len(base) - node.level + 1] if node.level else []
            mod = ".".join(base + ([node.module] if node.module else []))
            out.add(mod)
            out.update(f"{mod}.{a.name}" for a in node.names)
    return out


def test_the_reader_analyzer_and_back_ends_never_import_the_library():
    root = pathlib.Path(ptclisp.__file__).parent
    files = []
    for folder in ("reader", "analyzer", "backends"):
        for p in (root / folder).rglob("*.py"):
            parts = p.relative_to(root.parent).with_suffix("").parts
            package = ".".join(parts if p.name == "__init__.py" else parts[:-1])
            files.append((p, package))
    assert len(files) > 20
    for path, package in files:
        bad = {m for m in _imported_modules(path, package) if m == "ptclisp.lib" or m.startswith("ptclisp.lib.")}
        assert not bad, f"{path.name} imports {bad}"


def test_a_library_facility_asked_for_before_loading_names_the_fix(monkeypatch):
    monkeypatch.setattr(R, "PROVIDED", {})
    with pytest.raises(RuntimeError, match=r"ptclisp\.lib\.load\(\)"):
        R.provided("seq_items")
