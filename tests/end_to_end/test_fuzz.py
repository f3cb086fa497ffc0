"""Property tests: whatever the input, `ptclisp.run` comes back with a Result.

A sample of the random programs of benchmarks/fuzz.py (which runs 20,000+),
random text, and random well-formed forms built from the builtin names. An
escaped exception or an `internal_error` result fails the test; so does a run
that does not come back at all (the bound is a hang guard, far above the
time budget, not a speed assertion).
"""
from __future__ import annotations

import threading

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import ptclisp
from benchmarks.fuzz import TOOLS, ProgramGen
from ptclisp import Limits
from ptclisp.registry import builtins as R

# the form strategy's repr (it embeds every builtin name) is large; hypothesis warns about that
pytestmark = pytest.mark.filterwarnings("ignore:Generating overly large repr")

LIMITS = Limits(timeout_ms=250)
HANG_S = 15.0
SETTINGS = settings(deadline=None, suppress_health_check=list(HealthCheck), derandomize=True)


def run_guarded(src: str) -> ptclisp.Result:
    box: list = []

    def go():
        try:
            box.append(ptclisp.run(src, tools=TOOLS, limits=LIMITS))
        except BaseException as exc:  # noqa: BLE001 - recorded and reported below
            box.append(exc)

    t = threading.Thread(target=go, daemon=True)
    t.start()
    t.join(HANG_S)
    assert box, f"no result (hang) for {src!r}"
    r = box[0]
    assert isinstance(r, ptclisp.Result), f"{r!r} escaped for {src!r}"
    assert r.error is None or r.error.kind != "internal_error", (src, r.error)
    if r.status == "error":
        assert isinstance(r.error.kind, str) and r.error.kind and isinstance(r.error.message, str)
    return r


@settings(SETTINGS, max_examples=200)
@given(st.randoms(use_true_random=False))
def test_random_programs_over_the_builtins(rng):
    run_guarded(ProgramGen(rng).program())


@SETTINGS
@given(st.text(alphabet=st.characters(blacklist_categories=("Cs",)) | st.sampled_from("()[]{}#%'`~@^\\\";:"),
               max_size=120))
def test_random_text(text):
    run_guarded(text)


NAMES = sorted(R.BUILTINS)
atoms = st.one_of(
    st.integers(min_value=-10**30, max_value=10**30).map(str),
    st.floats(allow_nan=False, allow_infinity=False).map(repr),
    st.sampled_from(["nil", "true", "false", "##NaN", "##Inf", ":a", ":b", '"s"', '""', "%", "x", "_m", "data/x",
                     "tool/t", "*1", "&"]),
    st.text(alphabet="abc xyz\\\"", max_size=8).map(lambda s: '"' + s.replace("\\", "").replace('"', "") + '"'),
    st.sampled_from(NAMES),
)
forms = st.recursive(
    atoms,
    lambda inner: st.one_of(
        st.lists(inner, max_size=5).map(lambda xs: "(" + " ".join(xs) + ")"),
        st.tuples(st.sampled_from(NAMES), st.lists(inner, max_size=4)).map(lambda t: f"({t[0]} {' '.join(t[1])})"),
        st.lists(inner, max_size=5).map(lambda xs: "[" + " ".join(xs) + "]"),
        st.lists(inner, max_size=3).map(lambda xs: "#{" + " ".join(xs) + "}"),
        st.lists(st.tuples(st.sampled_from([":a", ":b", '"k"', "1"]), inner), max_size=3, unique_by=lambda kv: kv[0])
        .map(lambda kvs: "{" + " ".join(f"{k} {v}" for k, v in kvs) + "}"),
        st.tuples(st.sampled_from(["let", "fn", "loop", "if", "when", "cond", "->", "->>", "for", "doseq",
                                   "and", "or", "do", "pmap", "pcalls", "return", "fail", "def", "defn"]),
                  st.lists(inner, max_size=4)).map(lambda t: f"({t[0]} {' '.join(t[1])})"),
    ),
    max_leaves=25,
)


@SETTINGS
@given(st.lists(forms, min_size=1, max_size=3))
def test_random_well_formed_forms(fs):
    run_guarded(" ".join(fs))


def test_the_generator_reaches_successful_programs():
    import random
    gen = ProgramGen(random.Random(7))
    results = [run_guarded(gen.program()) for _ in range(60)]
    assert sum(r.status == "ok" for r in results) >= 10
    assert len({r.error.kind for r in results if r.error}) >= 4
