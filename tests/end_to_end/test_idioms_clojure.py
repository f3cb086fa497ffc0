"""The Clojure models write (issue 29), against answers JVM Clojure gave.

`tests/data/idioms_clojure.jsonl` holds programs using multi-arity fns, letfn, quoted lists, #_,
require/ns aliases, reductions, iterate/repeatedly under take, memoize, comparator, sorted
collections, the print family, capitalize, replace-first, long/num/char, atoms, sorting sets,
float text and string escapes, each with the value and printed output Clojure 1.11 gave
(`tests/data/gen_idioms_clojure.py` ran them on the JVM). Every case runs on both back ends and
must give a value equal to Clojure's (read back from its printed text) and the same printed
lines; a case where Clojure throws must be the PTC error named.
"""
import importlib.util
import json
from pathlib import Path

import pytest

import ptclisp
from ptclisp.pipeline import BACKENDS

DATA = Path(__file__).resolve().parents[1] / "data"
CASES = [json.loads(line) for line in (DATA / "idioms_clojure.jsonl").read_text(encoding="utf-8").splitlines()]


def _generator():
    spec = importlib.util.spec_from_file_location("gen_idioms_clojure", DATA / "gen_idioms_clojure.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


@pytest.fixture(params=BACKENDS)
def backend(request):
    return request.param


def run(src, backend):
    if backend == "tiered":
        return ptclisp.run(src)
    s = ptclisp.Session()
    s.env.backend = backend
    return s.eval(src)


def test_committed_cases_are_the_generators():
    committed = [{k: c[k] for k in ("id", "idiom", "src", "error") if k in c} for c in CASES]
    assert committed == _generator().cases()


def test_every_case_has_clojures_answer():
    for c in CASES:
        assert c["clojure"] == "1.11"
        assert ("expect" in c and "out" in c) or ("error" in c and "thrown" in c), c["id"]


def _lines(out: str) -> list:
    return out[:-1].split("\n") if out.endswith("\n") else (out.split("\n") if out else [])


@pytest.mark.parametrize("case", CASES, ids=[c["id"] for c in CASES])
def test_clojure_case(case, backend):
    r = run(case["src"], backend)
    if "error" in case:
        assert r.status == "error" and r.error.kind == case["error"], (r.status, r.value, r.error)
        return
    assert r.status == "ok", r.error
    assert ptclisp.equal(r.value, ptclisp.read_string(case["expect"])), (ptclisp.pr_str(r.value), case["expect"])
    assert list(r.prints) == _lines(case["out"])
