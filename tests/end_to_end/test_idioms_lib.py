"""Differential test of the core-function idioms of issue 19 (collections as functions, empty
keys/vals, clojure.set over vectors, string helpers on numbers and keywords, NaN ordering,
2-arity keyword, 64-bit bit operations, Java float spellings, %h/%t).

tests/data/idioms_lib.jsonl holds seeded programs with the answers Clojure gives, worked out by
tests/data/gen_idioms_lib.py from Clojure's semantics (it never runs ptclisp). Every program runs
on both back ends; the value must equal the expectation and print exactly as it.
"""
import json
import pathlib

import pytest

import ptclisp
from ptclisp.pipeline import BACKENDS, evaluate

DATA = pathlib.Path(__file__).resolve().parents[1] / "data"
CASES = [json.loads(line) for line in (DATA / "idioms_lib.jsonl").read_text(encoding="utf-8").splitlines()]


def _run(src, backend):
    if backend == "tiered":
        return ptclisp.run(src)
    s = ptclisp.Session()
    return evaluate(s.env, src, s.limits, backend=backend)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("case", CASES, ids=[c["id"] for c in CASES])
def test_idiom(case, backend):
    r = _run(case["src"], backend)
    expect = case["expect"]
    if expect.startswith("!!"):
        assert r.status == "error", (case["src"], ptclisp.pr_str(r.value))
        assert r.error.kind == expect[2:], (case["src"], r.error)
        assert r.error.span is not None and r.error.span.line == 1
        return
    assert r.status == "ok", (case["src"], r.error)
    assert ptclisp.pr_str(r.value) == expect, case["src"]
    assert ptclisp.equal(r.value, ptclisp.read_string(expect)), case["src"]


def test_data_is_what_the_seeded_generator_writes():
    import importlib.util
    spec = importlib.util.spec_from_file_location("gen_idioms_lib", DATA / "gen_idioms_lib.py")
    gen = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(gen)
    assert gen.generate() == CASES


def test_every_idiom_family_is_covered():
    families = {c["idiom"].split("/")[0] for c in CASES}
    assert {"map-as-fn", "vector-as-fn", "sort-by", "group-by", "juxt", "comp", "ifn?", "keys", "vals",
            "clojure.set", "string", "nan", "keyword", "bits", "parse-double", "format"} <= families
    assert sum(c["expect"].startswith("!!") for c in CASES) >= 10


ERRORS = [
    # what stays an error names the idiom that works
    ("(let [v [1 2]]\n  (v :a))", "type_error", (2, 3), "#(get-in % path)"),
    ("(filter [:a] [{:a 1}])", "type_error", (1, 1), "use :a instead of [:a]"),
    ("([1 2] 0 1)", "arity_error", (1, 1), "expects 1"),
    ("(clojure.set/difference [1 2] #{1})", "type_error", (1, 1), "(set coll)"),
    ('(clojure.set/union #{1} "ab")', "type_error", (1, 1), "(set coll)"),
    ('(keyword "ns" "a")', "runtime_error", (1, 1), "(keyword name)"),
    ("(clojure.string/trim 12)", "type_error", (1, 1), "(str x)"),
    ("(bit-or 18446744073709551616 1)", "type_error", (1, 1), "64-bit"),
]


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("src,kind,pos,hint", ERRORS)
def test_unsupported_idioms_say_what_works(src, kind, pos, hint, backend):
    r = _run(src, backend)
    assert r.status == "error" and r.error.kind == kind, r.error
    assert (r.error.span.line, r.error.span.col) == pos
    assert hint in r.error.message
