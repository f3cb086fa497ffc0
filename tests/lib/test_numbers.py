"""Numbers, comparison, logic, predicates, `type`, math and `describe`
(docs/spec/functions.md §1.2-§1.6, §6).

Builtins are called directly. Each case names a builtin, gives its arguments
as PTC literal text (read with `read_string`) and the expected result as
literal text, compared by readable printing (so 1 and 1.0 differ and ##NaN
matches ##NaN), or `!!reason` for an expected error.
"""
from __future__ import annotations

import math

import pytest

from helpers import check_builtin
from ptclisp import lib
import ptclisp.lib.numbers as N
from ptclisp.errors import PtcError
from ptclisp.registry.builtins import BUILTINS
from ptclisp.runtime.meter import Limits, Meter, install
from ptclisp.values.text import pr_str
from ptclisp.reader.parser import read_string
from ptclisp.values import Keyword, Map, Vector

lib.load()   # every builtin family registers itself

B = {n: b.fn for n, b in BUILTINS.items()}


def check(name, args, expected):
    check_builtin(name, args, expected, identical_bools=True)


ARITH = [
    ("+", [], "0"), ("+", ["5"], "5"), ("+", ["1", "2", "3"], "6"), ("+", ["1", "2.5"], "3.5"),
    ("+", ["##Inf", "1"], "##Inf"), ("+", ["##Inf", "##-Inf"], "##NaN"), ("+", ["##NaN", "1"], "##NaN"),
    ("+", ["1", "nil"], "!!type_error"), ("+", ['"a"'], "!!type_error"), ("+", ["true", "1"], "!!type_error"),
    ("+", ["1", "2", ":a"], "!!type_error"),
    ("+", ["9223372036854775807", "1"], "9223372036854775808"),
    ("+'", ["1", "2"], "3"),
    ("-", ["10", "3"], "7"), ("-", ["5"], "-5"), ("-", ["10", "1", "2"], "7"), ("-", ["0.0"], "-0.0"),
    ("-", ["##Inf"], "##-Inf"), ("-", ["nil"], "!!type_error"), ("-", ["1", '"a"'], "!!type_error"),
    ("-'", ["1", "2"], "-1"),
    ("*", [], "1"), ("*", ["2", "3", "4"], "24"), ("*", ["1.5", "2"], "3.0"), ("*", ["0", "##Inf"], "##NaN"),
    ("*", ["-2", "##Inf"], "##-Inf"), ("*", ["##NaN", "10"], "##NaN"), ("*", ["2", "nil"], "!!type_error"),
    ("*", ["4294967296", "4294967296"], "18446744073709551616"), ("*'", ["3", "3"], "9"),
    ("/", ["10", "2"], "5.0"), ("/", ["2"], "0.5"), ("/", ["1", "3"], "0.3333333333333333"),
    ("/", ["1", "0"], "!!arithmetic_error"), ("/", ["1.5", "0"], "!!arithmetic_error"),
    ("/", ["0"], "!!arithmetic_error"), ("/", ["8", "2", "0"], "!!arithmetic_error"),
    ("/", ["1.0", "0.0"], "##Inf"), ("/", ["-1", "0.0"], "##-Inf"), ("/", ["1", "-0.0"], "##-Inf"),
    ("/", ["0.0", "0.0"], "##NaN"), ("/", ["0", "0.0"], "##NaN"), ("/", ["0.0"], "##Inf"),
    ("/", ["##Inf", "##Inf"], "##NaN"), ("/", ["1", "##Inf"], "0.0"), ("/", ["12", "2", "3"], "2.0"),
    ("/", ["1", "nil"], "!!type_error"),
    ("inc", ["5"], "6"), ("inc", ["1.5"], "2.5"), ("inc", ["##Inf"], "##Inf"), ("inc", ["##NaN"], "##NaN"),
    ("inc", ["nil"], "!!type_error"), ("inc'", ["1"], "2"),
    ("dec", ["5"], "4"), ("dec", ["##-Inf"], "##-Inf"), ("dec", ['"a"'], "!!type_error"), ("dec'", ["1"], "0"),
    ("mod", ["10", "3"], "1"), ("mod", ["-10", "3"], "2"), ("mod", ["10", "-3"], "-2"), ("mod", ["-10", "-3"], "-1"),
    ("mod", ["5.5", "2"], "1.5"), ("mod", ["-5.5", "2"], "0.5"), ("mod", ["1", "0"], "!!arithmetic_error"),
    ("mod", ["1", "0.0"], "!!arithmetic_error"), ("mod", ["nil", "2"], "!!type_error"),
    ("mod", ["##NaN", "2"], "!!arithmetic_error"), ("mod", ["##Inf", "2"], "!!arithmetic_error"),
    ("mod", ["2", "##Inf"], "##NaN"),
    ("rem", ["10", "3"], "1"), ("rem", ["-10", "3"], "-1"), ("rem", ["10", "-3"], "1"), ("rem", ["-10", "-3"], "-1"),
    ("rem", ["5.5", "2"], "1.5"), ("rem", ["-5.5", "2"], "-1.5"), ("rem", ["1.0", "0.1"], "0.0"),
    ("rem", ["7", "0"], "!!arithmetic_error"), ("rem", ["2", "##NaN"], "!!arithmetic_error"),
    ("quot", ["10", "3"], "3"), ("quot", ["-7", "2"], "-3"), ("quot", ["7", "-2"], "-3"), ("quot", ["7.5", "2"], "3"),
    ("quot", ["-7.5", "2"], "-3"), ("quot", ["1", "0"], "!!arithmetic_error"), ("quot", ["1.0", "0.0"], "!!arithmetic_error"),
    ("quot", ["2", "##Inf"], "0"), ("quot", ["##Inf", "2"], "!!arithmetic_error"), ("quot", ['"a"', "2"], "!!type_error"),
    ("quot", ["100000000000000000000000000000", "3"], "33333333333333333333333333333"),
]

COMPARE = [
    ("=", ["1"], "true"), ("=", ["1", "1"], "true"), ("=", ["1", "1", "1"], "true"), ("=", ["1", "2"], "false"),
    ("=", ["1", "1.0"], "true"), ("=", ["[1 2]", "[1.0 2]"], "true"), ("=", ["#{1 2}", "#{2 1}"], "true"),
    ("=", ["##NaN", "##NaN"], "false"), ("=", [":a", '"a"'], "false"), ("=", ["nil", "nil"], "true"),
    ("=", ["5", "nil"], "false"), ("=", ["0", "false"], "false"), ("=", ["1", "true"], "false"),
    ("=", ["\\a", '"a"'], "true"), ("=", ["1", "1", "2"], "false"), ("=", ['{:a 1}', '{:a 1.0}'], "true"),
    ("==", ["1", "1.0"], "true"), ("==", [":a", ":a"], "true"),
    ("not=", ["1", "2"], "true"), ("not=", ["1", "1.0"], "false"), ("not=", ["1"], "false"),
    ("<", ["1", "2"], "true"), ("<", ["1", "2", "3"], "true"), ("<", ["1", "3", "2"], "false"), ("<", ["1", "1"], "false"),
    ("<", ["1.0", "##Inf"], "true"), ("<", ["##NaN", "0.0"], "false"), ("<", ["1", "nil"], "!!type_error"),
    ("<", ['"a"'], "true"), ("<", ["2", "1", '"a"'], "false"), ("<", ["1", "2", '"a"'], "!!type_error"),
    (">", ["3", "2"], "true"), (">", ["-1.0", "##-Inf"], "true"), (">", ['"b"', '"a"'], "!!type_error"),
    (">", ["3", "2", "1"], "true"), (">", ["3", "3"], "false"),
    ("<=", ["1", "1"], "true"), ("<=", ["1", "1", "2"], "true"), ("<=", ["nil", "nil"], "!!type_error"),
    (">=", ["3", "2"], "true"), (">=", ["##NaN", "0.0"], "false"), (">=", ["3", "3", "1"], "true"),
    (">=", ["1", "true"], "!!type_error"),
    ("compare", ["nil", "1"], "-1"), ("compare", ['"b"', '"a"'], "1"), ("compare", ["[1 2]", "[1]"], "1"),
    ("compare", ["\\a", '"a"'], "0"), ("compare", ["1", "1.0"], "0"), ("compare", [":a", ":b"], "-1"),
    ("compare", ["1", '"a"'], "!!type_error"), ("compare", ["##NaN", "1"], "0"),  # DIV-33: as Clojure
    ("compare", ["1", "##NaN"], "0"), ("compare", ["##NaN", "##NaN"], "0"), ("compare", ["[1 ##NaN]", "[1 2]"], "0"),
    ("compare", ["{}", "{}"], "!!type_error"),
]

LOGIC = [
    ("not", ["true"], "false"), ("not", ["nil"], "true"), ("not", ["0"], "false"), ("not", ["false"], "true"),
    ("boolean", ["0"], "true"), ("boolean", ["nil"], "false"), ("boolean", ['""'], "true"),
    ("boolean", ["##NaN"], "true"), ("identity", ["42"], "42"), ("identity", ["[1 2]"], "[1 2]"),
]

PREDICATES = [
    ("nil?", ["nil"], "true"), ("nil?", ["false"], "false"), ("some?", ["false"], "true"), ("some?", ["nil"], "false"),
    ("boolean?", ["false"], "true"), ("boolean?", ["0"], "false"),
    ("number?", ["1"], "true"), ("number?", ["##NaN"], "true"), ("number?", ['"1"'], "false"), ("number?", ["true"], "false"),
    ("int?", ["42"], "true"), ("int?", ["42.0"], "false"), ("int?", ["true"], "false"),
    ("integer?", ["123456789012345678901234567890"], "true"),
    ("float?", ["1.5"], "true"), ("float?", ["1"], "false"), ("float?", ["##Inf"], "true"), ("double?", ["##NaN"], "true"),
    ("rational?", ["3"], "true"), ("rational?", ["0.5"], "false"), ("decimal?", ["1.5"], "false"), ("ratio?", ["1"], "false"),
    ("nat-int?", ["0"], "true"), ("nat-int?", ["-1"], "false"), ("pos-int?", ["1"], "true"), ("pos-int?", ["1.0"], "false"),
    ("neg-int?", ["-1"], "true"), ("neg-int?", ["0"], "false"), ("neg-int?", ["nil"], "false"),
    ("infinite?", ["##-Inf"], "true"), ("infinite?", ["1"], "false"), ("infinite?", ['"x"'], "false"),
    ("NaN?", ["##NaN"], "true"), ("NaN?", ["0"], "false"), ("NaN?", ["nil"], "false"),
    ("string?", ['"a"'], "true"), ("string?", ["\\a"], "true"), ("string?", [":a"], "false"),
    ("char?", ["\\a"], "true"), ("char?", ['"a"'], "true"), ("char?", ['"ab"'], "false"), ("char?", ['""'], "false"),
    ("char?", ['"e\u0301"'], "true"), ("char?", ["1"], "false"),
    ("keyword?", [":a"], "true"), ("keyword?", ['"a"'], "false"), ("symbol?", ["'a"], "false"),
    ("vector?", ["[1]"], "true"), ("vector?", ["#{1}"], "false"), ("map?", ["{:a 1}"], "true"), ("map?", ["[[:a 1]]"], "false"),
    ("fn?", [":a"], "false"), ("fn?", ["{}"], "false"), ("fn?", ["1"], "false"),
    ("ifn?", [":a"], "true"), ("ifn?", ["{}"], "true"), ("ifn?", ["#{}"], "true"), ("ifn?", ["[1]"], "true"), ("ifn?", ["\"a\""], "false"),
    ("ifn?", ['"a"'], "false"),
    ("false?", ["false"], "true"), ("false?", ["nil"], "false"), ("true?", ["true"], "true"), ("true?", ["1"], "false"),
    ("coll?", ["[1 2 3]"], "true"), ("coll?", ["{:a 1}"], "true"), ("coll?", ["#{1 2}"], "true"),
    ("coll?", ['"hello"'], "false"), ("coll?", ["42"], "false"), ("coll?", ["nil"], "false"),
    ("sequential?", ["[1 2 3]"], "true"), ("sequential?", ["{:a 1}"], "false"), ("sequential?", ["#{1 2}"], "false"),
    ("seq?", ["[1 2 3]"], "true"), ("seq?", ["{:a 1}"], "false"), ("seq?", ["nil"], "false"),
    ("associative?", ["{:a 1}"], "true"), ("associative?", ["[1]"], "true"), ("associative?", ["#{1}"], "false"),
    ("counted?", ["#{1}"], "true"), ("counted?", ['"abc"'], "false"), ("indexed?", ["[1]"], "true"),
    ("indexed?", ['"abc"'], "false"), ("reversible?", ["[1]"], "true"), ("reversible?", ["{}"], "false"),
    ("sorted?", ["[1 2]"], "false"), ("map-entry?", ["[:a 1]"], "false"),
    ("seqable?", ['"abc"'], "true"), ("seqable?", ["nil"], "true"), ("seqable?", ["#{}"], "true"),
    ("seqable?", ["1"], "false"), ("seqable?", [":a"], "false"),
    ("type", ["1"], ":number"), ("type", ["1.5"], ":number"), ("type", ["nil"], "nil"), ("type", ["'x"], ":unknown"),
    ("type", ["true"], ":boolean"), ("type", ['"s"'], ":string"), ("type", [":k"], ":keyword"),
    ("type", ["[]"], ":vector"), ("type", ["{}"], ":map"), ("type", ["#{}"], ":set"),
    ("zero?", ["0"], "true"), ("zero?", ["0.0"], "true"), ("zero?", ["-0.0"], "true"), ("zero?", ["1"], "false"),
    ("zero?", ["nil"], "false"), ("zero?", ['"0"'], "false"),
    ("pos?", ["3"], "true"), ("pos?", ["0"], "false"), ("pos?", ["##Inf"], "true"), ("pos?", ["##NaN"], "false"),
    ("pos?", ["nil"], "false"), ("neg?", ["-3"], "true"), ("neg?", ["##-Inf"], "true"), ("neg?", ["##NaN"], "false"),
    ("neg?", ['"x"'], "false"),
    ("even?", ["4"], "true"), ("even?", ["4.0"], "true"), ("even?", ["4.5"], "false"), ("even?", ["3"], "false"),
    ("even?", ["-2"], "true"), ("even?", ['"x"'], "false"), ("even?", ["nil"], "false"), ("even?", ["##Inf"], "false"),
    ("odd?", ["3"], "true"), ("odd?", ["-3"], "true"), ("odd?", ["3.0"], "true"), ("odd?", ["2"], "false"),
    ("odd?", ["##NaN"], "false"), ("odd?", ["true"], "false"),
]

MATH = [
    ("abs", ["-5"], "5"), ("abs", ["-2.5"], "2.5"), ("abs", ["##-Inf"], "##Inf"), ("abs", ["nil"], "!!type_error"),
    ("abs", ["-123456789012345678901234567890"], "123456789012345678901234567890"),
    ("max", ["1", "5", "3"], "5"), ("max", ["1", "2.5"], "2.5"), ("max", ["1", "1.0"], "1.0"),
    ("max", ['"a"'], '"a"'), ("max", ['"a"', "1"], "!!type_error"), ("max", ["1", "##NaN", "3"], "##NaN"),
    ("max", ["1", "nil"], "!!type_error"), ("max", ["##-Inf", "-5"], "-5"),
    ("min", ["1", "5", "3"], "1"), ("min", ["-1", "-1.5"], "-1.5"), ("min", ["##NaN", "1"], "##NaN"),
    ("min", ["7"], "7"), ("min", ["1", ":a"], "!!type_error"),
    ("floor", ["3.7"], "3"), ("floor", ["-3.2"], "-4"), ("floor", ["5"], "5"), ("floor", ["##Inf"], "##Inf"),
    ("floor", ["##NaN"], "##NaN"), ("floor", ["nil"], "!!type_error"),
    ("ceil", ["3.2"], "4"), ("ceil", ["-3.7"], "-3"), ("ceil", ["2.0"], "2"), ("ceil", ["##-Inf"], "##-Inf"),
    ("round", ["3.5"], "4"), ("round", ["-2.5"], "-3"), ("round", ["2.4"], "2"), ("round", ["2.5"], "3"),
    ("round", ["-2.4"], "-2"), ("round", ["0.49999999999999994"], "0"), ("round", ["7"], "7"),
    ("round", ["##NaN"], "##NaN"), ("round", ['"1"'], "!!type_error"),
    ("trunc", ["3.7"], "3"), ("trunc", ["-3.7"], "-3"), ("trunc", ["##Inf"], "##Inf"),
    ("double", ["5"], "5.0"), ("double", ["2.5"], "2.5"), ("double", ['"1"'], "!!type_error"), ("float", ["1"], "1.0"),
    ("double", ["##Inf"], "##Inf"),
    ("int", ["3.7"], "3"), ("int", ["-3.7"], "-3"), ("int", ["##NaN"], "0"), ("int", ["\\A"], "65"),
    ("int", ["2147483648"], "!!arithmetic_error"), ("int", ["2147483647"], "2147483647"),
    ("int", ["-2147483648"], "-2147483648"), ("int", ["##Inf"], "!!arithmetic_error"),
    ("int", ["2147483647.5"], "!!arithmetic_error"), ("int", ['"AB"'], "!!type_error"), ("int", ["nil"], "!!type_error"),
    ("sqrt", ["-1"], "##NaN"), ("sqrt", ["16"], "4.0"), ("sqrt", ["##Inf"], "##Inf"), ("sqrt", ["nil"], "!!type_error"),
    ("pow", ["2", "3"], "8.0"), ("pow", ["2", "-1"], "0.5"), ("pow", ["2", "0.5"], "1.4142135623730951"),
    ("pow", ["-8", "0.5"], "##NaN"), ("pow", ["##NaN", "0"], "1.0"), ("pow", ["1", "##NaN"], "##NaN"),
    ("pow", ["1", "##Inf"], "##NaN"), ("pow", ["0", "-1"], "##Inf"), ("pow", ["-0.0", "-1"], "##-Inf"),
    ("pow", ["10", "400"], "##Inf"), ("pow", ["-10", "401"], "##-Inf"), ("pow", ["0.5", "##Inf"], "0.0"),
    ("pow", ["##-Inf", "3"], "##-Inf"), ("pow", ["2", "nil"], "!!type_error"),
    ("bit-and", ["12", "10"], "8"), ("bit-and", ["15", "7", "3"], "3"), ("bit-or", ["12", "10"], "14"),
    ("bit-xor", ["12", "10"], "6"), ("bit-and-not", ["15", "9"], "6"), ("bit-and-not", ["15", "1", "2"], "12"),
    ("bit-not", ["0"], "-1"), ("bit-not", ["7"], "-8"), ("bit-and", ["1.0", "1"], "!!type_error"),
    ("bit-or", ["true", "1"], "!!type_error"),
    # GAP-S52/S142: Java's 64-bit operations: counts and indexes modulo 64, results wrap around,
    # arguments outside the signed 64-bit range are refused
    ("bit-shift-left", ["1", "4"], "16"), ("bit-shift-left", ["1", "64"], "1"),
    ("bit-shift-left", ["1", "63"], "-9223372036854775808"), ("bit-shift-left", ["3", "63"], "-9223372036854775808"),
    ("bit-shift-left", ["0", "100000000000"], "0"), ("bit-shift-left", ["1", "-1"], "-9223372036854775808"),
    ("bit-shift-left", ["1", "100000000000"], "1"), ("bit-shift-left", ["-1", "65"], "-2"),
    ("bit-shift-left", ["1", "9223372036854775808"], "!!type_error"),
    ("bit-shift-right", ["256", "4"], "16"), ("bit-shift-right", ["-16", "2"], "-4"),
    ("bit-shift-right", ["5", "1000000000000"], "5"), ("bit-shift-right", ["5", "1.0"], "!!type_error"),
    ("bit-shift-right", ["256", "68"], "16"), ("bit-shift-right", ["-1", "64"], "-1"),
    ("unsigned-bit-shift-right", ["-1", "1"], "9223372036854775807"),
    ("unsigned-bit-shift-right", ["-16", "60"], "15"), ("unsigned-bit-shift-right", ["-1", "0"], "-1"),
    ("bit-set", ["0", "3"], "8"), ("bit-set", ["8", "3"], "8"), ("bit-set", ["-1", "100000000000"], "-1"),
    ("bit-set", ["0", "63"], "-9223372036854775808"), ("bit-set", ["0", "64"], "1"),
    ("bit-clear", ["15", "1"], "13"), ("bit-clear", ["5", "100000000000"], "4"),
    ("bit-clear", ["-1", "63"], "9223372036854775807"),
    ("bit-flip", ["0", "2"], "4"), ("bit-flip", ["4", "2"], "0"), ("bit-flip", ["1", "-2"], "4611686018427387905"),
    ("bit-and", ["9223372036854775808", "1"], "!!type_error"), ("bit-and", ["-9223372036854775808", "-1"], "-9223372036854775808"),
    ("bit-not", ["9223372036854775807"], "-9223372036854775808"), ("bit-test", ["1", "64"], "true"),
    ("bit-test", ["5", "0"], "true"), ("bit-test", ["5", "1"], "false"), ("bit-test", ["-1", "1000"], "true"),
]


@pytest.mark.parametrize("name,args,expected", ARITH + COMPARE + LOGIC + PREDICATES + MATH)
def test_table(name, args, expected):
    check(name, args, expected)


def test_arity_from_signatures():
    spec = {n: (BUILTINS[n].min_arity, BUILTINS[n].max_arity) for n in
            ("+", "-", "*", "/", "=", "not=", "<", "compare", "mod", "bit-and", "bit-not", "max", "describe", "inc")}
    assert spec == {"+": (0, None), "-": (1, None), "*": (0, None), "/": (1, None), "=": (1, None),
                    "not=": (1, None), "<": (1, None), "compare": (2, 2), "mod": (2, 2), "bit-and": (2, None),
                    "bit-not": (1, 1), "max": (1, None), "describe": (1, 2), "inc": (1, 1)}


def test_groups():
    assert "core" in BUILTINS["+"].groups and "core" in BUILTINS["bit-and"].groups
    for ptc_only in ("describe", "floor", "ceil", "round", "trunc", "pow", "sqrt"):
        assert BUILTINS[ptc_only].groups == ()


FAST = [
    (N.add2, "+"), (N.sub2, "-"), (N.mul2, "*"), (N.lt2, "<"), (N.gt2, ">"), (N.le2, "<="), (N.ge2, ">="),
    (N.eq2, "="), (N.div2, "/"),
]
SAMPLES = ["1", "-2", "2.5", "0", "0.0", "##NaN", "##Inf", "nil", '"a"', ":a", "true", "[1]", "{:a 1}",
           "123456789012345678901234567890"]


@pytest.mark.parametrize("fast,name", FAST)
def test_fast_paths_match_variadic(fast, name):
    slow = B[name]
    for a in SAMPLES:
        for b in SAMPLES:
            x, y = read_string(a), read_string(b)
            try:
                want = ("ok", pr_str(slow(x, y)))
            except PtcError as e:
                want = ("err", e.kind)
            try:
                got = ("ok", pr_str(fast(x, y)))
            except PtcError as e:
                got = ("err", e.kind)
            assert got == want, (name, a, b)


def test_bools_are_not_numbers():
    for f in (N.add2, N.sub2, N.mul2, N.lt2, N.div2):
        with pytest.raises(PtcError):
            f(True, 1)
    assert N.eq2(True, 1) is False and N.eq2(0, False) is False


def test_huge_int_mixed_with_float_widens_to_infinity():
    big = 10 ** 400
    assert N.add2(big, 1.0) == math.inf
    assert N.mul2(-big, 2.0) == -math.inf
    assert math.isnan(N.mul2(big, 0.0))
    assert N.div2(big, 3) == math.inf
    assert N.div2(1.0, big) == 0.0
    assert N.lt2(big, math.inf) is True and N.gt2(big, 1e308) is True
    assert B["double"](-big) == -math.inf


def _metered(budget=10_000_000):
    m = Meter(Limits(timeout_ms=None, memory_bytes=budget))
    return m, install(m)


def test_squaring_stops_with_memory_exceeded():
    m, prev = _metered()
    try:
        x = 2
        with pytest.raises(PtcError) as ei:
            for _ in range(100):
                x = N.mul2(x, x)
        assert ei.value.kind == "memory_exceeded"
        assert x.bit_length() <= N.MAX_INT_BITS
    finally:
        install(prev)


def test_big_products_are_charged():
    m, prev = _metered()
    try:
        before = m.allocated
        N.mul(2 ** 5000, 2 ** 5000, 3)
        assert m.allocated - before >= 10000 // 8
        before = m.allocated
        N.mul2(12345, 67890)
        assert m.allocated == before
    finally:
        install(prev)


def test_describe_reference_example():
    got = B["describe"](read_string('[{"event" "turn"} {"event" "done" "ok" true}]'))
    want = read_string('{:type "vector" :count 2 :scanned 2 :item_types {"map" 2} '
                       ':keys {"event" {:present 2 :pct 100.0 :types {"string" 2} :examples ["turn" "done"] '
                       ':distinct_count 2} "ok" {:present 1 :pct 50.0 :types {"boolean" 1} :examples [true] '
                       ':distinct_count 1}} :key_types {"string" 3}}')
    assert pr_str(got) == pr_str(want)


def K(name):
    return Keyword(name)


def test_describe_shapes():
    d = B["describe"]
    m = d(read_string('{:a 1 "b" [1 2]}'))
    assert m.lookup(K("type")) == "map" and m.lookup(K("count")) == 2
    assert pr_str(m.lookup(K("key_types"))) == '{"keyword" 1 "string" 1}'
    assert set(m.lookup(K("keys")).keys()) == {":a", "b"}
    s = d(read_string("#{1 2.5}"))
    assert pr_str(s.lookup(K("item_types"))) == '{"float" 1 "integer" 1}'
    x = d(read_string("42"))
    assert x.lookup(K("type")) == "integer" and x.lookup(K("sample")) == 42
    assert d(None).lookup(K("type")) == "nil"
    long = d("x" * 500).lookup(K("sample"))
    assert long.endswith("...(500 chars)") and len(long) < 150


def test_describe_options_and_paths():
    d = B["describe"]
    data = read_string('[{:user {:name "a" :tags [{:t 1} {:t 2}]}} {:user {:name "b"}} {:other 1}]')
    plain = d(data)
    assert plain.lookup(K("paths")) is None
    out = d(data, read_string("{:paths true :depth 3}"))
    paths = out.lookup(K("paths"))
    assert set(paths.keys()) == {":user", ":user.:name", ":user.:tags", ":user.:tags.:t", ":other"}
    t = paths.lookup(":user.:tags.:t")
    assert t.lookup(K("present")) == 1 and t.lookup(K("value_count")) == 2
    assert paths.lookup(":user.:name").lookup(K("pct")) == 66.7
    shallow = d(data, read_string('{"paths" true :depth 1 :sample 1}')).lookup(K("paths"))
    assert set(shallow.keys()) == {":user", ":other"}
    with pytest.raises(PtcError):
        d(data, 3)


def test_describe_caps():
    d = B["describe"]
    rows = Vector([Map.from_pairs([(f"k{j}", i) for j in range(120)]) for i in range(1200)])
    out = d(rows)
    assert out.lookup(K("count")) == 1200 and out.lookup(K("scanned")) == 1000
    assert out.lookup(K("truncated")) is True
    assert pr_str(out.lookup(K("caps_hit"))) == '["max_items" "max_keys"]'
    assert len(out.lookup(K("keys"))) == 100
    k0 = out.lookup(K("keys")).lookup("k0")
    assert k0.lookup(K("distinct_count")) == 50 and k0.lookup(K("distinct_capped")) is True
    assert len(k0.lookup(K("examples"))) == 3


def test_describe_key_collisions_are_named_apart():
    keys = B["describe"](read_string('{1 :x "1" :y}')).lookup(K("keys"))
    assert set(keys.keys()) == {"integer:1", "string:1"}


# ------------------------------------------------------------------ end to end (through ptclisp.run)

E2E = [
    ("(loop [x 2 i 0] (if (< i 100) (recur (* x x) (inc i)) i))", "!!memory_exceeded"),
    ("(+ 1 2 3)", "6"), ("(apply + [1 2 3 4])", "10"), ("(reduce * [1 2 3 4])", "24"),
    ("(let [a 1 b 2.5] (+ a b))", "3.5"), ("(let [f -] (f 5))", "-5"), ("(let [f <] (f 1 2 3))", "true"),
    ("(map inc [1 2.5])", "[2 3.5]"), ("(filter even? [1 2 3 4.0 4.5 nil])", "[2 4.0]"),
    ("(< 1 nil)", "!!type_error"), ("(> \"b\" \"a\")", "!!type_error"), ("(/ 1 0)", "!!arithmetic_error"),
    ("(/ 1.0 0.0)", "##Inf"), ("(= [1 2] [1.0 2])", "true"), ("(not= 1 1.0)", "false"),
    ("(clojure.core/max 1 5 3)", "5"), ("(type (fn [x] x))", ":function"), ("(fn? inc)", "true"),
    ("(ifn? {:a 1})", "true"), ("(int \\A)", "65"), ("(bit-and 7)", "!!arity_error"), ("(-)", "!!arity_error"),
    ("(compare nil 1)", "-1"), ("(round -2.5)", "-3"), ("(quot 7.5 2)", "3"),
    ("(:count (describe [1 2 3]))", "3"), ("(:type (describe {:a 1}))", '"map"'),
]


@pytest.mark.parametrize("src,expected", E2E)
def test_end_to_end(src, expected):
    import ptclisp
    r = ptclisp.run(src)
    if expected.startswith("!!"):
        assert r.status == "error" and r.error.kind == expected[2:], (src, r.status, getattr(r, "error", None))
    else:
        assert r.status == "ok", (src, getattr(r, "error", None))
        assert pr_str(r.value) == pr_str(read_string(expected))
