"""The per-run fast paths of run/Session.eval give what the general paths give.

Limits: a limits dict validated once is remembered (inputs.as_limits); a remembered one must make
the same fresh Limits, and a bad one must raise the same error, every time.
"""
from __future__ import annotations

import gc
import time

import attrs
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import ptclisp
from ptclisp import Limits
from ptclisp.runtime import meter as M
from ptclisp.host.inputs import as_limits
from ptclisp.runtime.meter import default_limits

_FIELDS = [a.name for a in attrs.fields(Limits)]
_VALUES = st.one_of(st.none(), st.booleans(), st.integers(-3, 70_000), st.integers(2 ** 61, 2 ** 63),
                    st.floats(allow_nan=True), st.sampled_from(["thread", "process", "x", ""]))


def _outcome(make):
    try:
        return "ok", attrs.asdict(make())
    except (TypeError, ValueError) as exc:
        return type(exc).__name__, str(exc)


@settings(max_examples=300, deadline=None)
@given(st.dictionaries(st.sampled_from(_FIELDS + ["bogus"]), _VALUES, max_size=4))
def test_a_limits_dict_gives_what_Limits_gives_each_time(d):
    expected = _outcome(lambda: Limits(**d)) if "bogus" not in d else None
    first, second = _outcome(lambda: as_limits(dict(d))), _outcome(lambda: as_limits(dict(d)))
    assert first == second
    if expected is not None:
        assert first == expected


def test_equal_values_of_other_types_are_not_taken_for_a_remembered_dict():
    assert as_limits({"timeout_ms": 1}).timeout_ms == 1
    with pytest.raises(TypeError, match="Limits.timeout_ms must be a number of milliseconds, got bool True"):
        as_limits({"timeout_ms": True})
    assert type(as_limits({"timeout_ms": 5.0}).timeout_ms) is float
    assert type(as_limits({"timeout_ms": 5}).timeout_ms) is int


def test_each_call_makes_a_fresh_limits_that_still_validates():
    a, b = as_limits({"loop_limit": 7}), as_limits({"loop_limit": 7})
    assert a is not b and a == b == Limits(loop_limit=7)
    a.loop_limit = 9
    assert as_limits({"loop_limit": 7}).loop_limit == 7
    with pytest.raises(ValueError, match="Limits.loop_limit must be between 0 and 2"):
        a.loop_limit = -1
    d = default_limits()
    assert d == Limits() and d is not default_limits()
    with pytest.raises(TypeError):
        d.timeout_ms = "soon"


def test_run_reports_a_bad_limits_dict_every_time():
    for _ in range(2):
        r = ptclisp.run("1", limits={"timeout_ms": 0})
        assert r.status == "error" and r.error.kind == "type_error"
        assert "Limits.timeout_ms must be between 1" in r.error.message
    assert ptclisp.run("(+ 1 2)", limits={"timeout_ms": 60000}).value == 3


# ------------------------------------------------------------------ the watchdog

class _Flag:
    """A meter as the watchdog sees it: something whose `expired` it sets."""

    expired = False


def _wait_for(predicate, seconds=10.0):
    end = time.monotonic() + seconds
    while not predicate():
        assert time.monotonic() < end, "condition not reached"
        time.sleep(0.005)


def test_a_nearer_deadline_wakes_a_watchdog_waiting_for_a_far_one():
    far, near = _Flag(), _Flag()
    far_id = M._WATCHDOG.watch(far, time.monotonic() + 3600)
    try:
        time.sleep(0.02)  # the thread now waits for the far deadline
        M._WATCHDOG.watch(near, time.monotonic() + 0.05)
        _wait_for(lambda: near.expired)
        assert not far.expired
    finally:
        M._WATCHDOG.forget(far_id)


def test_finished_runs_leave_nothing_registered_with_the_watchdog():
    for i in range(600):
        assert ptclisp.run(f"(+ {i} 1)", limits={"timeout_ms": 60000}).value == i + 1
    assert not M._WATCHDOG._live
    held = [len(v) for v in vars(M._WATCHDOG).values() if isinstance(v, (list, dict))]
    assert max(held, default=0) < 100   # nothing kept per finished run


def test_a_forgotten_meter_is_not_expired():
    m = _Flag()
    wid = M._WATCHDOG.watch(m, time.monotonic() + 0.2)
    M._WATCHDOG.forget(wid)
    time.sleep(0.3)
    assert not m.expired


# ------------------------------------------------------------------ one-shot environments

def test_a_one_shot_run_leaves_no_reference_cycle_behind():
    programs = ["(+ 1 2)", "{:a [1 2] :b (count data/xs)}", '(println "hi") (map inc [1 2 3])']
    for p in programs:
        ptclisp.run(p, context={"xs": [1]})   # first uses fill the caches
    gc.disable()
    try:
        for p in programs:
            gc.collect()
            r = ptclisp.run(p, context={"xs": [1]}, limits={"timeout_ms": 60000})
            assert r.ok
            assert gc.collect() == 0, p
    finally:
        gc.enable()


def test_a_function_a_run_returned_still_works_after_the_run():
    r = ptclisp.run("(defn g [x] (* 2 x)) (fn [x] (+ (g x) (count data/xs)))", context={"xs": [1, 2]})
    assert r.ok and r.value(4) == 10


# ------------------------------------------------------------------ the compile budget

def test_the_compile_budget_is_over_once_the_program_runs():
    seen = []

    def probe(_args):
        seen.append(M.current().compiling)
        return 1

    r = ptclisp.run("(tool/probe {})", tools={"probe": probe}, limits={"compile_timeout_ms": 1000})
    assert r.value == 1 and seen == [None]


def test_a_compile_budget_needs_an_installed_meter():
    prev = M.install(None)
    try:
        with pytest.raises(RuntimeError, match="compile_budget needs the meter"):
            with M.compile_budget(5):
                pass
    finally:
        M.install(prev)


# ------------------------------------------------------------------ size gate and results

@settings(max_examples=200, deadline=None)
@given(st.text(alphabet=st.sampled_from(["1", " ", "é", "€", "😀", "\ud800"]), min_size=1, max_size=12),
       st.integers(1, 40))
def test_the_program_size_gate_counts_utf8_bytes(text, cap):
    src = '"' + text + '"'
    r = ptclisp.run(src, limits={"max_program_bytes": cap})
    too_large = len(src.encode("utf-8", "surrogatepass")) > cap
    assert (r.error is not None and r.error.kind == "program_too_large") == too_large


def test_collections_returned_are_copies_and_other_values_are_returned_as_they_are():
    s = ptclisp.Session()
    assert s.eval("(def v [1 {:a #{2}}]) v").value == s.eval("v").value
    got = s.eval("v").value
    assert got is not s.env.ns["v"] and got[1] is not s.env.ns["v"][1]
    assert s.eval('(def t "text") t').value is s.env.ns["t"]
    assert ptclisp.run("nil").value is None and ptclisp.run(":k").value == ptclisp.read_string(":k")


# ------------------------------------------------------------------ the shared analyzer Env

def _env_state(env):
    return {k: (sorted(v) if isinstance(v, (set, frozenset)) else v) for k, v in vars(env).items()}


def test_the_shared_analyzer_env_of_fresh_environments_is_never_changed():
    from ptclisp.session import _BARE_ENVS, Environment
    before = {flag: _env_state(e) for flag, e in _BARE_ENVS.items()}
    assert Environment().analyzer_env() is _BARE_ENVS[False]
    assert Environment(strict_data=True).analyzer_env() is _BARE_ENVS[True]
    for src in ["(defn f [x] (* x 2)) (def y (f 2)) (declare z) y", "(let [a 1] (fn [b] (+ a b)))",
                "(tool/t {:a 1})", "data/x", "(ns-thing/x)", "(loop [i 0] (if (< i 3) (recur (inc i)) i))"]:
        for strict in (False, True):
            ptclisp.run(src, context={"x": 1}, strict_data=strict)
    assert {flag: _env_state(e) for flag, e in _BARE_ENVS.items()} == before
    assert before[False]["user_names"] == [] and before[False]["preludes"] == {}


def test_an_environment_with_definitions_or_tools_gets_its_own_analyzer_env():
    s = ptclisp.Session(tools={"t": lambda a: 1})
    assert sorted(s.env.analyzer_env().tools) == ["t"]
    s2 = ptclisp.Session()
    s2.eval("(def a 1)")
    assert s2.env.analyzer_env().user_names == {"a"}
    assert s2.eval("(+ a 1)").value == 2
