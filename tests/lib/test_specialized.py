"""Specialized builtins (lib/specialized.py, registry.SPECIALIZERS): the function the compiler calls
for a call with literal arguments gives exactly what the builtin gives: value, charges, errors.

Each is compared with the builtin on random text (separators included, empty pieces at both ends,
non-ASCII, past the size at which split stops building before charging) and on wrong argument types,
then through whole programs on both back ends with the error positions.
"""
from __future__ import annotations

import pytest
from hypothesis import given, settings, strategies as st

import ptclisp
from ptclisp.runtime import meter
from ptclisp import Limits
from ptclisp.registry import builtins as R
from ptclisp.errors import PtcError
from ptclisp.lib import specialized, strings
from ptclisp.pipeline import evaluate
from ptclisp.values import Regex


def _outcome(fn, *args, budget=10**9):
    """(value, bytes charged) of `fn(*args)` under a fresh meter, or (error kind, message, details)."""
    m = meter.Meter(Limits(timeout_ms=None, memory_bytes=budget))
    prev = meter.install(m)
    try:
        v = fn(*args)
        return ("ok", ptclisp.pr_str(v), m.allocated)
    except PtcError as e:
        return ("error", e.kind, e.message, e.details)
    finally:
        meter.install(prev)


def _special(sep):
    choice = R.SPECIALIZERS["split"]("x", sep)
    assert choice is not None
    fn, extra = choice
    return lambda s, sep: fn(s, sep, *_with_meter(extra))


TEXT = st.text(alphabet=st.sampled_from(list(" ,a|bé-\t")), max_size=40)
SEPS = [" ", ",", "|", "é", "\t"]
REGEXES = [" ", ",", "\\|", "ab", "--", "\\t"]


@settings(max_examples=300, deadline=None)
@given(text=TEXT, sep=st.sampled_from(SEPS), budget=st.sampled_from([10**9, 200, 60]))
def test_split_on_a_character_is_split(text, sep, budget):
    assert _outcome(_special(sep), text, sep, budget=budget) == _outcome(strings.split, text, sep, budget=budget)


@settings(max_examples=300, deadline=None)
@given(text=TEXT, source=st.sampled_from(REGEXES), budget=st.sampled_from([10**9, 200, 60]))
def test_split_on_a_literal_regex_is_split(text, source, budget):
    rx = ptclisp.read_string(f'#"{source}"')
    assert type(rx) is Regex
    assert _outcome(_special(rx), text, rx, budget=budget) == _outcome(strings.split, text, rx, budget=budget)


@pytest.mark.parametrize("text", ["a " * 3000, ", " * 70_000, "", " ", "  a  ", 5, None, ["a"]])
@pytest.mark.parametrize("sep", [" ", ","])
def test_long_text_and_wrong_types_go_the_builtins_way(text, sep):
    if isinstance(text, list):
        text = ptclisp.read_string('["a"]')
    assert _outcome(_special(sep), text, sep) == _outcome(strings.split, text, sep)
    rx = ptclisp.read_string(f'#"{sep}"')
    assert _outcome(_special(rx), text, rx) == _outcome(strings.split, text, rx)


def test_only_literal_separators_of_the_two_argument_form_are_specialized():
    choose = R.SPECIALIZERS["split"]
    assert choose("x", R.UNKNOWN) is None
    assert choose("x", ",", 2) is None and choose("x", ",", R.UNKNOWN) is None
    assert choose("x", "ab") is None and choose("x", "") is None
    for source in ["", "a+", "\\s", "[ab]"]:
        assert choose("x", ptclisp.read_string(f'#"{source}"')) is None


def run(src, backend):
    s = ptclisp.Session()
    r = evaluate(s.env, src, s.limits, backend=backend)
    if r.error is not None:
        sp = r.error.span
        return ("error", r.error.kind, r.error.message, sp and (sp.line, sp.col))
    return ("ok", ptclisp.pr_str(r.value))


@pytest.mark.parametrize("src", [
    '(mapv (fn [l] (split l " ")) ["a b" " a  b  " "" "x"])',
    '(mapv (fn [l] (split l #",")) ["a,b" ",a,,b,," "" "x"])',
    '(mapv (fn [l] (split l " ")) ["a b" 5])',
    '(mapv (fn [l]\n  (split l #",")) ["a,b" nil])',
])
def test_programs_agree_on_both_back_ends(src):
    # the compiled back end calls the specialized function; the closure tier calls split itself
    assert run(src, "compiled") == run(src, "tiered")


# ---------------------------------------------------------------- join's short path

def _join_reference(a, b=strings._NO):
    """join as it was before its short path: every item's type and length in a Python loop, the
    charge, then str.join."""
    if b is strings._NO:
        sep, coll = "", a
    else:
        sep, coll = (a if type(a) is str else strings.display(a)), b
    items = strings.seq_items(coll, "join")
    if not items:
        return ""
    total = 0
    for x in items:
        if type(x) is not str:
            items = [strings.display(x) for x in items]
            total = sum(map(len, items))
            break
        total += len(x)
    strings.charge(meter.str_cost(total + len(sep) * (len(items) - 1)))
    return sep.join(items)


ITEM = st.one_of(st.text(alphabet="ab é", max_size=6), st.sampled_from(
    ["5", "nil", ":k", "1.5", "[1 2]", '["a" "b"]', "{:a 1}", "#{}", "true", '""']).map(ptclisp.read_string))


@settings(max_examples=400, deadline=None)
@given(items=st.lists(ITEM, max_size=8), sep=st.sampled_from([None, "", "-", ", ", 5]),
       budget=st.sampled_from([10**9, 120, 60]))
def test_join_is_what_it_was(items, sep, budget):
    coll = ptclisp.read_string("[]").__class__(items)
    args = (coll,) if sep is None else (sep, coll)
    assert _outcome(strings.join, *args, budget=budget) == _outcome(_join_reference, *args, budget=budget)


@pytest.mark.parametrize("n,size", [(2, 40_000), (70_000, 1), (3, 10)])
def test_join_of_long_text_is_what_it_was(n, size):
    coll = ptclisp.read_string("[]").__class__(["x" * size] * n)
    for budget in (10**9, 100_000):
        assert _outcome(strings.join, "--", coll, budget=budget) == _outcome(_join_reference, "--", coll, budget=budget)


# ---------------------------------------------------------------- join with a literal separator

def _join_special():
    fn, extra = R.SPECIALIZERS["join"]("-", R.UNKNOWN)
    return lambda sep, coll: fn(sep, coll, *_with_meter(extra))


def _with_meter(extra):
    """The extra arguments as generated code passes them: THREAD_METER is this thread's meter."""
    from ptclisp.runtime.meter import _local
    return [_local.meter if x is R.THREAD_METER else x for x in extra]


@settings(max_examples=400, deadline=None)
@given(items=st.lists(ITEM, max_size=8), sep=st.sampled_from(["", "-", ", ", "é"]),
       budget=st.sampled_from([10**9, 120, 60]))
def test_join_on_a_literal_separator_is_join(items, sep, budget):
    coll = ptclisp.read_string("[]").__class__(items)
    assert _outcome(_join_special(), sep, coll, budget=budget) == _outcome(strings.join, sep, coll, budget=budget)


@pytest.mark.parametrize("coll", ["nil", "[]", '"abc"', '("a" "b")', '#{"a"}', "5", '{:a 1}'])
def test_join_on_other_collections_goes_the_builtins_way(coll):
    value = ptclisp.read_string(coll) if coll != '("a" "b")' else ptclisp.run('(list "a" "b")').value
    assert _outcome(_join_special(), "-", value) == _outcome(strings.join, "-", value)


def test_join_of_long_text_on_a_literal_separator_is_join():
    coll = ptclisp.read_string("[]").__class__(["x" * 40_000] * 2)
    for budget in (10**9, 100_000):
        assert _outcome(_join_special(), "--", coll, budget=budget) == _outcome(strings.join, "--", coll, budget=budget)


def test_only_the_two_argument_join_with_a_literal_string_separator_is_specialized():
    choose = R.SPECIALIZERS["join"]
    assert choose("abc") is None and choose(R.UNKNOWN) is None           # (join coll)
    assert choose(R.UNKNOWN, R.UNKNOWN) is None and choose(5, R.UNKNOWN) is None
    assert choose("-", R.UNKNOWN) is not None and choose("-", ptclisp.read_string('["a"]')) is not None


@pytest.mark.parametrize("special,args", [
    (lambda: _special(" "), ("a b c", " ")),
    (lambda: _special(ptclisp.read_string('#","')), ("a,b,c", ptclisp.read_string('#","'))),
    (_join_special, ("-", ptclisp.read_string('["a" "b"]'))),
])
def test_the_inline_charge_stops_an_evaluation_whose_clock_ran_out(special, args):
    m = meter.Meter(Limits(timeout_ms=None, memory_bytes=10**9))
    m.expired = True
    prev = meter.install(m)
    try:
        with pytest.raises(PtcError) as err:
            special()(*args)
    finally:
        meter.install(prev)
    assert err.value.kind == "timeout"


@pytest.mark.parametrize("src", [
    '(mapv (fn [l] (join "-" (split l " "))) ["a b" " a  b  " "" "x"])',
    '(mapv (fn [l] (join ", " l)) [["a" 1] [] [nil "b"] "xy"])',
    '(mapv (fn [l] (join "-" l)) [["a"] 5])',
    '(join "-" ["a" "b"])',
    '(join ["a" "b"])',
])
def test_join_programs_agree_on_both_back_ends(src):
    assert run(src, "compiled") == run(src, "tiered")


def test_a_specialized_call_in_a_parallel_worker_charges_that_workers_budget():
    # the generated function passes its thread's meter: a worker splitting too much text fails
    # with memory_exceeded, and the same program within budget gives split's values
    from ptclisp.pipeline import evaluate
    lines = " ".join(["a b c d e f g h"] * 40)
    src = '(pmap (fn [n] (count (mapcat (fn [i] (split data/line " ")) (range n)))) [2 3 SIZE])'
    # each of the three workers may charge a third of what is left (parallel.worker_share)
    s = ptclisp.Session(context={"line": lines}, limits=ptclisp.Limits(memory_bytes=600_000, timeout_ms=20_000))
    r = evaluate(s.env, src.replace("SIZE", "400"), s.limits, backend="compiled")
    assert r.error is not None and r.error.kind == "memory_exceeded", r
    r = evaluate(s.env, src.replace("SIZE", "4"), s.limits, backend="compiled")
    assert r.ok and r.value.lst() == [640, 960, 1280]


# ---------------------------------------------------------------- upper-case / lower-case written out

@settings(max_examples=150, deadline=None)
@given(texts=st.lists(st.one_of(st.text(max_size=12), st.text(min_size=250, max_size=270),
                                st.sampled_from(["ß", "ǆ", "İ", "ﬁ", "ΣΑΣ"])), min_size=1, max_size=6))
def test_upper_and_lower_case_written_out_are_the_builtins(texts):
    # compiled (the calls are written out as s.upper() / s.lower() up to the registered length)
    # against the builtins called directly; long texts take the builtin, which charges them
    from ptclisp.lib.strings_edit import lower_case, upper_case
    from ptclisp.pipeline import evaluate
    s = ptclisp.Session(context={"xs": texts})
    r = evaluate(s.env, "(mapv (fn [s] [(upper-case s) (lower-case s) (str/upper-case s)]) data/xs)", s.limits,
                 backend="compiled")
    assert r.ok, r.error
    assert [list(p.lst()) for p in r.value.lst()] == [[upper_case(t), lower_case(t), upper_case(t)] for t in texts]


def test_upper_case_written_out_keeps_the_builtins_error_and_position():
    from ptclisp.pipeline import evaluate
    s = ptclisp.Session(context={"xs": ["a", None]})
    r = evaluate(s.env, "(mapv (fn [s]\n  (upper-case s)) data/xs)", s.limits, backend="compiled")
    assert r.error.kind == "type_error" and "upper-case" in r.error.message
    assert (r.error.span.line, r.error.span.col) == (2, 3)


def test_only_string_methods_are_accepted_as_str_method():
    with pytest.raises(RuntimeError, match="str_method"):
        R.builtin("nope-case", "(nope-case s)", doc="x", str_method=("no_such_method", 10))(lambda s: s)
    assert R.BUILTINS["upper-case"].str_method == ("upper", 256)
    assert "nope-case" not in R.BUILTINS
