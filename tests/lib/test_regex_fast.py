"""The fast paths for simple regexes (regex_engine.simple_form) against the general path.

A pattern wrapped in `(?:...)` means the same but is never simple, so it takes the regex engine:
each builtin must give the same value or error and charge the meter the same number of bytes.
"""
from __future__ import annotations

from hypothesis import example, given, settings
from hypothesis import strategies as st

from ptclisp import lib
import ptclisp.patterns.engine as R
from ptclisp.errors import PtcError
from ptclisp.runtime.meter import Limits, Meter, install
from ptclisp.values.text import pr_str
from ptclisp.registry.builtins import BUILTINS

lib.load()

ATOMS = [" ", ",", ";", "a", "b", "-", ".", "\\s", "\\S", "\\d", "\\D", "\\w", "\\W", "\\t", "\\n", "\\|",
         "\\.", "\\-", "\\\\", "[,;]", "[,;\\s]", "[^,]", "[a-c]", "[^\\s]", "[\\d,]", "[^ab\\s]", "[-a]", "x"]
QUANTS = ["", "", "", "+", "*", "?", "{2}", "{1,3}", "{0,2}"]
ALPHABET = " ,;ab1x-|.\\\t\n\x0b\x1c\x1f"
UNICODE = ALPHABET + "\u00a0\u2003\u3000\x85\u2028\u200bé\u0660"

item = st.tuples(st.sampled_from(ATOMS), st.sampled_from(QUANTS)).map("".join)
patterns = st.one_of(
    st.lists(item, min_size=1, max_size=4).map("".join),
    # the C*R shape that only splitting takes: a leading C*, then a linear rest
    st.tuples(st.sampled_from(["\\s", " ", "[;\\s]", "[^,]"]), st.sampled_from([",", ";", "\\|", "[,;]", "a"]),
              st.sampled_from(["", "\\s*", " *", "\\s+", "b?"])).map(lambda t: t[0] + "*" + t[1] + t[2]),
)
ascii_texts = st.text(alphabet=ALPHABET, max_size=24)
texts = st.one_of(ascii_texts, ascii_texts, st.text(alphabet=UNICODE, max_size=24))
limits = st.sampled_from([None, -2, -1, 0, 1, 2, 3])
budgets = st.one_of(st.just(10**8), st.just(10**8), st.integers(1, 1500))
REPLACEMENTS = ["", "_", "<$0>", "<<$0>>", "\\$", "$0$0", "[REDACTED]", "$1", "\\\\", "x\\y", "$", "a\\"]


def _outcome(budget, f, *args):
    """(value or error, bytes charged) of one builtin call under a fresh meter. After a memory error
    the bytes are left out: the general path charges piece by piece, a fast path all at once, so
    they fail at different points of the same total."""
    m = Meter(Limits(timeout_ms=10_000, memory_bytes=budget))
    prev = install(m)
    m.start()
    try:
        try:
            res = ("ok", pr_str(f(*args)))
        except PtcError as e:
            return ("error", e.kind, e.message), None
        return res, m.allocated
    finally:
        m.stop()
        install(prev)


def _same(budget, name, pattern, *rest, regex_first=True):
    f = BUILTINS[name].fn
    fast_rx = R.compile_regex(pattern)
    slow_rx = R.compile_regex("(?:" + pattern + ")")
    assert R.simple_form(slow_rx) is None
    R.simple_form(fast_rx)  # known from now on: split's shortcut for known forms takes it

    def args(rx):
        return (rx, *rest) if regex_first else (rest[0], rx, *rest[1:])
    fast = _outcome(budget, f, *args(fast_rx))
    slow = _outcome(budget, f, *args(slow_rx))
    assert fast == slow, (name, pattern, rest)


@settings(max_examples=600, deadline=None)
@given(patterns, texts, limits, budgets)
@example("\\s+", "a\x1cb \x0bc", None, 10**8)
@example("\\s*,\\s*", " , a ,b,, ", 2, 10**8)
def test_split_agrees_with_the_regex_engine(pattern, text, limit, budget):
    rest = (text,) if limit is None else (text, limit)
    _same(budget, "split", pattern, *rest, regex_first=False)
    _same(budget, "re-split", pattern, text)


@settings(max_examples=500, deadline=None)
@given(patterns, texts, budgets)
def test_find_matches_seq_agree_with_the_regex_engine(pattern, text, budget):
    for name in ("re-find", "re-matches", "re-seq"):
        _same(budget, name, pattern, text)
    _same(budget, "extract", pattern, text, 0, regex_first=True)


@settings(max_examples=500, deadline=None)
@given(patterns, texts, budgets)
@example("\\s+", "a  b\x1fc d", 10**8)
def test_replace_agrees_with_the_regex_engine(pattern, text, budget):
    f = BUILTINS["replace"].fn
    for replacement in REPLACEMENTS:
        fast = _outcome(budget, f, text, R.compile_regex(pattern), replacement)
        slow = _outcome(budget, f, text, R.compile_regex("(?:" + pattern + ")"), replacement)
        assert fast == slow, (pattern, text, replacement)


def test_the_patterns_models_write_are_simple():
    for p in ["\\s+", "\\s", ",\\s*", "[,;]", "[,;\\s]+", "\\t", "\\n", "\\|", ", ", "\\d+", "\\w+", "[a-z]+",
              "\\d{3}-\\d{4}", "[^,]+", "\\S+", ".", "-?\\d+", "\\d{1,3}\\.\\d{1,3}"]:
        form = R.simple_form(R.compile_regex(p))
        assert form is not None and form.whole is not None, p
    for p in ["\\s*,\\s*", "\\s*\\|\\s*", " *; *"]:  # C*R: split only
        form = R.simple_form(R.compile_regex(p))
        assert form is not None and form.whole is None and form.strip, p
    for p in ["\\s*\\s*,", "a+b", "(a)", "a+?", "a++", "\\s* ", "\\bx", "^a", "a|b", "\\x41", "\\p{L}", "é+",
              "a{2,}", "a{1,99}", "[a[b]]", "[a&&b]", "[]a]", "\\Qa\\E", "\\h", "\\v",
              "a?a?a?a?b", "a{0,15}a{0,3}b", "\\d+\\.\\d+"]:  # too many steps per position; quadratic
        assert R.simple_form(R.compile_regex(p)) is None, p


def test_simple_classes_mean_what_the_engine_means():
    """\\s is the engine's whitespace: on ASCII text \\t \\n \\v \\f \\r and space, not \\x1c-\\x1f."""
    split = BUILTINS["split"].fn
    assert list(split("a\x1cb \x0bc", R.compile_regex("\\s+"))) == ["a\x1cb", "c"]
    assert list(split("a\u2003b", R.compile_regex("\\s+"))) == ["a", "b"]  # non-ASCII text: the engine
    assert list(split("x1y22z", R.compile_regex("\\d+"))) == ["x", "y", "z"]


def test_split_java_edge_cases_on_the_fast_path():
    split = BUILTINS["split"].fn
    rx = R.compile_regex("\\s*,\\s*")
    assert list(split(" , a ,b,, ", rx)) == ["", "a", "b"]
    assert list(split("a , b , c", rx, 2)) == ["a", "b , c"]
    assert list(split("a,b,,", rx, -1)) == ["a", "b", "", ""]
    assert list(split("a,b", rx, 1)) == ["a,b"]
    assert list(split("", R.compile_regex("\\s+"))) == [""]
    assert list(split("   ", R.compile_regex("\\s+"))) == []
    assert list(split(" a b ", R.compile_regex("\\s+"))) == ["", "a", "b"]
    # 32 KB of the separator's leading class and no separator: one piece (linear on `re`)
    assert list(split(" " * 40_000, rx)) == [" " * 32_768]


def test_replace_with_a_long_replacement_over_many_matches_is_a_memory_error():
    rx = R.compile_regex("\\s")
    res, _ = _outcome(100_000, BUILTINS["replace"].fn, " " * 30_000, rx, "x" * 1000)
    assert res[:2] == ("error", "memory_exceeded")


def test_the_known_whitespace_set_is_the_engines():
    every = "".join(map(chr, range(0x110000)))
    assert frozenset(R._compile_raw("\\s").findall(every)) == R._SPACE
    assert R._compile_raw(".").findall(every) == [ch for ch in every if ch != "\n"]


def test_non_ascii_text_takes_the_fast_form_only_with_known_sets():
    for p in ["\\s+", "\\s*,\\s*", "[,;\\s]+", "[^,]+", "\\S+", ".", "[a-c]"]:
        assert R.simple_form(R.compile_regex(p)).any_text, p
    for p in ["\\d+", "\\w+", "[\\w,]", "[^,]*,", "\\W"]:
        assert not R.simple_form(R.compile_regex(p)).any_text, p
    split = BUILTINS["split"].fn
    assert list(split("a\u3000b\u2003 c\x85d", R.compile_regex("\\s+"))) == ["a", "b", "c", "d"]
    assert list(split("é , b\u00a0,\u2028c", R.compile_regex("\\s*,\\s*"))) == ["é", "b", "c"]


@settings(max_examples=100, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(["x", "é", " ", ",", "1"]), st.integers(1, 90)), max_size=6),
       st.sampled_from(["\\S+", "[^,]+", "\\w+", "x+", "\\s*,\\s*", "\\d+"]))
def test_long_matches_are_charged_like_the_regex_engine(runs, pattern):
    """Matches longer than 64 characters are charged one by one on the general path."""
    text = "".join(ch * n for ch, n in runs)
    for name in ("re-seq", "re-find", "re-matches"):
        _same(10**8, name, pattern, text)
    _same(10**8, "split", pattern, text, regex_first=False)
    f = BUILTINS["replace"].fn
    for replacement in ("<$0>", "-"):
        assert _outcome(10**8, f, text, R.compile_regex(pattern), replacement) == \
            _outcome(10**8, f, text, R.compile_regex("(?:" + pattern + ")"), replacement)


def test_the_caches_of_simple_patterns_stay_bounded():
    letters = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
    for i, a in enumerate(letters):
        for b in letters[i + 1:]:
            R.simple_form(R.compile_regex(f"[{a}{b}]+"))
    assert len(R._ATOMS) <= 1024 and len(R._SIMPLE) <= 512


# ------------------------------------------------------------------ capture groups around simple items

@st.composite
def grouped_patterns(draw):
    """A simple pattern with capture groups (possibly nested) around runs of its items."""
    items = draw(st.lists(item, min_size=1, max_size=4))
    marks = []   # (index, "(" or ")")
    for _ in range(draw(st.integers(1, 2))):
        a = draw(st.integers(0, len(items) - 1))
        b = draw(st.integers(a + 1, len(items)))
        marks += [(a, 0, "("), (b, 1, ")")]
    out = []
    for k in range(len(items) + 1):
        # at one index: closings first, then openings (so groups nest or follow each other)
        out += [m for i, order, m in sorted(marks, key=lambda t: (t[0], t[1] == 0)) if i == k]
        if k < len(items):
            out.append(items[k])
    return "".join(out)


@settings(max_examples=500, deadline=None)
@given(grouped_patterns(), texts, budgets)
@example("ref #(\\d+)", "a ref #12 and ref #7", 10**8)
@example("((a)b)c", "zabc abc", 10**8)
def test_groups_around_simple_items_agree_with_the_regex_engine(pattern, text, budget):
    try:
        fast_rx = R.compile_regex(pattern)
    except PtcError:   # nested groups out of order: not a pattern
        return
    assert R.grouped_form(R.compile_regex("(?:" + pattern + ")")) is None
    for name in ("re-find", "re-matches", "re-seq"):
        _same(budget, name, pattern, text)
    _same(budget, "split", pattern, text, regex_first=False)
    _same(budget, "re-split", pattern, text)
    for group in (0, 1):
        _same(budget, "extract", pattern, text, group, regex_first=True)
    f = BUILTINS["replace"].fn
    for replacement in ("<$1>", "$0$1", "-"):
        assert _outcome(budget, f, text, fast_rx, replacement) == \
            _outcome(budget, f, text, R.compile_regex("(?:" + pattern + ")"), replacement)


def test_which_grouped_patterns_take_the_fast_form():
    for p in ["ref #(\\d+)", "(a)", "((a)b)c", "(\\w)(\\w)", "id=(\\d{1,3})", "([a-c]+)"]:
        form = R.grouped_form(R.compile_regex(p))
        assert form is not None and form.whole.groups == R.compile_regex(p).compiled.groups, p
    for p in ["(a)+", "(a)?", "(a){2}", "()", "(?i)a", "(?:a)", "a|(b)", "(a|b)", "(\\d+)-(\\d+)", "(a)\\1",
              "\\d+"]:   # quantified, empty, flagged, non-capturing, alternation, not linear, no group
        assert R.grouped_form(R.compile_regex(p)) is None, p
    # a grouped pattern is never a simple one: split, findall and the literal paths never see groups
    assert R.simple_form(R.compile_regex("(a)")) is None
