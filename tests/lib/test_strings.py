"""Strings, format, regexes and JSON (docs/spec/functions.md §3, §5, §8).

Builtins are called directly. Each case names a builtin (json ones as
"json/x"), gives its arguments as PTC literal text (read with
`read_string`) and the expected result as literal text, compared by
readable printing, or `!!reason` for an expected error.
"""
from __future__ import annotations

import time

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from helpers import check_builtin as check
from ptclisp import lib
import ptclisp.patterns.engine as R
from ptclisp.errors import PtcError
from ptclisp.registry.builtins import BUILTINS, QUALIFIED
from ptclisp.runtime.meter import Limits, Meter, install
from ptclisp.values.text import pr_str
from ptclisp.values import Keyword, Map, Set, Vector

lib.load()   # every builtin family registers itself


def fn(name):
    if name.startswith("json/"):
        return QUALIFIED[("json", name[5:])].fn
    return BUILTINS[name].fn


STR = [
    ("str", ['"Hello"', '" "', '"World"'], '"Hello World"'), ("str", [], '""'), ("str", ["nil", '"x"'], '"x"'),
    ("str", [":user"], '":user"'), ("str", ["{:b 2 :a 1}"], '"{:a 1 :b 2}"'), ("str", ["42", "true"], '"42true"'),
    ("str", ["1.0"], '"1.0"'), ("str", ["##Inf"], '"Infinity"'), ("str", ["##NaN"], '"NaN"'),
    ("str", ['[1 "a" :k nil]'], '"[1 \\"a\\" :k nil]"'), ("str", ['#"a+"'], '"a+"'), ("str", ["\\a", "\\b"], '"ab"'),
    ("pr-str", ['"hello"'], '"\\"hello\\""'), ("pr-str", ["nil"], '"nil"'), ("pr-str", ["1", '"a"'], '"1 \\"a\\""'),
    ("pr-str", [], '""'), ("pr-str", ['#"a+"'], '"#\\"a+\\""'),
    ("subs", ['"hello"', "1"], '"ello"'), ("subs", ['"hello"', "1", "4"], '"ell"'), ("subs", ['"abcdef"', "-1"], '""'),
    ("subs", ['"abc"', "0", "100"], '"abc"'), ("subs", ['"abc"', "2", "1"], '""'), ("subs", ['"abc"', "5"], '""'),
    ("subs", ['"😀a😀b"', "2"], '"😀b"'), ("subs", ['"hello"', "1.9"], '"ello"'), ("subs", ['"abc"', '"1"'], "!!type_error"),
    ("subs", ["nil", "0"], "!!type_error"),
    ("join", ['", "', '["a" "b" "c"]'], '"a, b, c"'), ("join", ['"-"', "[1 2 3]"], '"1-2-3"'), ("join", ["[1 :a nil]"], '"1:a"'),
    ("join", ['","', "nil"], '""'), ("join", ['"-"', '"abc"'], '"a-b-c"'), ("join", ['"-"', "#{2 1}"], '"1-2"'),
    ("join", ["nil", "[1 2]"], '"12"'), ("join", ['"|"', "{:a 1}"], '"[:a 1]"'), ("join", ['"-"', "5"], "!!type_error"),
]

SPLIT = [
    ("split", ['"a,b,c"', '","'], '["a" "b" "c"]'), ("split", ['"a,,b"', '","'], '["a" "" "b"]'),
    ("split", ['"hello"', '""'], '["h" "e" "l" "l" "o"]'), ("split", ['"a--b--c"', '#"--"'], '["a" "b" "c"]'),
    ("split", ['"a..b..c"', '".."'], "!!type_error"), ("split", ['"a,b,"', '#","'], '["a" "b"]'),
    ("split", ['""', '#","'], '[""]'), ("split", ['"abc"', '#""'], '["a" "b" "c"]'),
    ("split", ['"a,b,c"', '","', "2"], '["a" "b,c"]'), ("split", ['"a,b,,"', '","', "-1"], '["a" "b" "" ""]'),
    ("split", ['"a1b2c"', '#"(\\d)"'], '["a" "b" "c"]'), ("split", ['"abc"', '#"(?=b)"'], '["a" "bc"]'),
    ("split", ['"a b"', "nil"], "!!type_error"), ("split", ["nil", '","'], "!!type_error"),
    ("split", ['"a\\tb"', "\\tab"], '["a" "b"]'),
    ("split-lines", ['"a\\nb\\r\\nc"'], '["a" "b" "c"]'), ("split-lines", ['"a\\n\\n\\n"'], '["a"]'),
    ("split-lines", ['""'], '[""]'), ("split-lines", ['"a\\rb"'], '["a\\rb"]'),
]

TRIM_CASE = [
    ("trim", ['"\\n\\tworld\\r\\n"'], '"world"'), ("trim", ['"\u00a0x\u00a0"'], '"\u00a0x\u00a0"'),
    ("trim", ['"\u3000x\u2003"'], '"x"'), ("triml", ['"  a  "'], '"a  "'), ("trimr", ['"  a  "'], '"  a"'),
    ("trim-newline", ['"a\\r\\n\\n"'], '"a"'), ("trim-newline", ['"a \\n"'], '"a "'), ("trim", ["42"], "!!type_error"),
    ("blank?", ["nil"], "true"), ("blank?", ['""'], "true"), ("blank?", ['" \\t\\n"'], "true"), ("blank?", ['"a"'], "false"),
    ("blank?", ["1"], "!!type_error"),
    ("upper-case", ['"world"'], '"WORLD"'), ("upcase", ['"hello"'], '"HELLO"'), ("upper-case", ['"straße"'], '"STRASSE"'),
    ("lower-case", ['"WORLD"'], '"world"'), ("downcase", ['"HELLO"'], '"hello"'), ("lower-case", [":A"], '":a"'),
    # GAP-S139: helpers Clojure reads through .toString take a number, boolean or keyword as its str text
    ("upper-case", ["12"], '"12"'), ("upper-case", ["nil"], "!!type_error"), ("upper-case", ["[1]"], "!!type_error"),
    ("includes?", ["123", '"2"'], "true"), ("includes?", ["123", "2"], "!!type_error"),
    ("starts-with?", ["true", '"tr"'], "true"), ("ends-with?", [":ab", '"b"'], "true"),
    ("index-of", ["12321", '"2"'], "1"), ("last-index-of", ["12321", '"2"'], "3"),
    ("replace", ["1.5", '"."', '","'], '"1,5"'), ("replace", ["12", '#"\\d"', '"x"'], '"xx"'),
    ("trim", ["12"], "!!type_error"), ("split", ["1.5", '#"\\."'], "!!type_error"), ("blank?", ["1"], "!!type_error"),
]

SEARCH = [
    ("starts-with?", ['"hello"', '"he"'], "true"), ("starts-with?", ['"hello"', '"lo"'], "false"),
    ("starts-with?", ['"hello"', '""'], "true"), ("ends-with?", ['"hello"', '"lo"'], "true"),
    ("ends-with?", ['"hello"', '"he"'], "false"), ("ends-with?", ['"hello"', '""'], "true"),
    ("includes?", ['"hello"', '"ll"'], "true"), ("includes?", ['"hello"', '"x"'], "false"), ("includes?", ['"hello"', '""'], "true"),
    ("includes?", ["nil", '"a"'], "!!type_error"), ("starts-with?", ['"abc"', "\\a"], "true"),
    ("index-of", ['"hello"', '"l"'], "2"), ("index-of", ['"hello"', '"x"'], "nil"), ("index-of", ['"hello"', '"l"', "3"], "3"),
    ("index-of", ['"hello"', '""'], "0"), ("index-of", ['"hello"', '""', "9"], "5"), ("index-of", ['"hello"', '"l"', "-5"], "2"),
    ("index-of", ['"😀a😀b"', '"b"'], "3"), ("index-of", ['"😀a😀b"', '"😀"', "1"], "2"), ("index-of", ['"hello"', '"l"', "3.7"], "3"),
    ("last-index-of", ['"hello"', '"l"'], "3"), ("last-index-of", ['"hello"', '"x"'], "nil"),
    ("last-index-of", ['"hello"', '"l"', "2"], "2"), ("last-index-of", ['"hello"', '""'], "5"),
    ("last-index-of", ['"aaa"', '"aa"'], "1"), ("last-index-of", ['"hello"', '"l"', "-1"], "nil"),
    ("last-index-of", ['"hello"', '""', "99"], "5"), ("last-index-of", ['"😀a😀b"', '"😀"'], "2"),
]

REPLACE_NAME = [
    ("replace", ['"hello"', '"l"', '"L"'], '"heLLo"'), ("replace", ['"aaa"', '"a"', '"b"'], '"bbb"'),
    ("replace", ['"a.b"', '"."', '"$1"'], '"a$1b"'), ("replace", ['"abc"', '""', '"-"'], '"-a-b-c-"'),
    ("replace", ['"a1b22"', '#"\\d+"', '"<$0>"'], '"a<1>b<22>"'),
    ("replace", ['"John Smith"', '#"(\\w+) (\\w+)"', '"$2, $1"'], '"Smith, John"'),
    ("replace", ['"a-b"', '#"(?<x>-)"', '"[${x}]"'], '"a[-]b"'), ("replace", ['"a-b"', '#"-"', '"\\\\$"'], '"a$b"'),
    ("replace", ['"a-b"', '#"-"', '"$"'], "!!runtime_error"), ("replace", ['"a-b"', '#"-"', '"$2"'], "!!runtime_error"),
    ("replace", ['"ab1"', '#"(\\d)"', '"$10"'], '"ab10"'), ("replace", ['"abc"', '#"x"', '"y"'], '"abc"'),
    ("replace", ['"hello"', ":l", '"L"'], "!!type_error"), ("replace", ['"hello"', '"l"', "1"], "!!type_error"),
    ("replace", ["{:a :x}", "[:a :b]"], "[:x :b]"), ("replace", ["[10 20 30]", "[0 1 2 0]"], "[10 20 30 10]"),
    ("replace", ['{"a" 1}', "[:a :b]"], "[1 :b]"), ("replace", ["{1 :one}", "nil"], "[]"),
    ("replace", ['"x"', "[1]"], "!!type_error"),
    ("name", [":foo"], '"foo"'), ("name", ['"bar"'], '"bar"'), ("name", ["\\a"], '"a"'), ("name", ["'x/y"], '"y"'),
    ("name", ["nil"], "!!type_error"), ("name", ["42"], "!!type_error"),
]

PARSE = [
    ("parse-long", ['"42"'], "42"), ("parse-long", ['"-17"'], "-17"), ("parse-long", ['"+5"'], "5"),
    ("parse-long", ['"abc"'], "nil"), ("parse-long", ['"42abc"'], "nil"), ("parse-long", ["42"], "nil"),
    ("parse-long", ["nil"], "nil"), ("parse-long", ['" 1"'], "nil"), ("parse-long", ['"1_000"'], "nil"),
    ("parse-long", ['"9223372036854775807"'], "9223372036854775807"), ("parse-long", ['"9223372036854775808"'], "nil"),
    ("parse-long", ['"-9223372036854775808"'], "-9223372036854775808"), ("parse-long", ['"٤٢"'], "nil"),
    ("parse-int", ['"42"'], "42"),
    ("parse-double", ['"3.14"'], "3.14"), ("parse-double", ['"-0.5"'], "-0.5"), ("parse-double", ['"1.23e-4"'], "1.23e-4"),
    ("parse-double", ['"42"'], "42.0"), ("parse-double", ['"invalid"'], "nil"), ("parse-double", ['"3.14 "'], "nil"),
    ("parse-double", ["nil"], "nil"), ("parse-double", ["3.14"], "nil"), ("parse-double", ['".5"'], "0.5"),
    # GAP-S61: Java's spellings ("1.", hex, f/d suffix); surrounding spaces stay nil (corpus spec-8.9-14)
    ("parse-double", ['"1."'], "1.0"), ("parse-double", ['"0x1.8p1"'], "3.0"), ("parse-double", ['"1.5f"'], "1.5"),
    ("parse-double", ['" 3.14"'], "nil"), ("parse-double", ['"."'], "nil"), ("parse-double", ['"1_000"'], "nil"),
    ("parse-double", ['"0x1p"'], "nil"), ("parse-double", ['"-0x1p99999"'], "##-Inf"),
    ("parse-double", ['"Infinity"'], "##Inf"), ("parse-double", ['"-Infinity"'], "##-Inf"), ("parse-double", ['"NaN"'], "##NaN"),
    ("parse-double", ['"1e400"'], "##Inf"),
    ("parse-boolean", ['"true"'], "true"), ("parse-boolean", ['"false"'], "false"), ("parse-boolean", ['"TRUE"'], "nil"),
    ("parse-boolean", ["true"], "nil"), ("parse-boolean", ["nil"], "nil"),
]

FORMAT = [
    ('"%s has %d items"', '"cart"', "3", '"cart has 3 items"'), ('"%.2f"', "3.14159", '"3.14"'),
    ('"%d in hex is %x"', "255", "255", '"255 in hex is ff"'), ('"%e"', "1234.5", '"1.234500e+03"'),
    ('"%o"', "8", '"10"'), ('"100%%"', '"100%"'), ('"[%5s][%-4s][%03d]"', '"a"', '"b"', "7", '"[    a][b   ][007]"'),
    ('"%s"', "nil", '""'), ('"%s and %s"', '"a"', '"b"', '"c"', '"a and b"'), ('"%f"', "##Inf", '"Infinity"'),
    ('"%d"', "##Inf", "!!runtime_error"), ('"%s %s"', '"a"', "!!runtime_error"), ('"%f"', "3", '"3.000000"'),
    ('"%d"', "3.0", '"3"'), ('"%d"', "3.5", "!!runtime_error"), ('"%d"', '"x"', "!!runtime_error"),
    ('"%.2f"', "2.675", '"2.68"'), ('"%.0f"', "0.5", '"1"'), ('"%,d"', "1234567", '"1,234,567"'), ('"%+d"', "5", '"+5"'),
    ('"%(d"', "-42", '"(42)"'), ('"%#x"', "255", '"0xff"'), ('"%X"', "255", '"FF"'), ('"%x"', "-1", '"ffffffffffffffff"'),
    ('"%08.3f"', "-3.14159", '"-003.142"'), ('"%g"', "0.0001234", '"0.000123400"'), ('"%g"', "123456789.0", '"1.23457e+08"'),
    ('"%b %b"', "nil", "0", '"false true"'), ('"%c"', "65", '"A"'), ('"%2$s %1$s"', '"a"', '"b"', '"b a"'),
    ('"%s %<s"', '"x"', '"x x"'), ('"{0.__class__} {}"', '"{0.__class__} {}"'), ('"%s"', "{:b 2 :a 1}", '"{:a 1 :b 2}"'),
    ('"%.3s|%-5s|"', '"abcdef"', '"ab"', '"abc|ab   |"'), ('"%q"', "1", "!!runtime_error"), ('"%"', "!!runtime_error"),
    ('"%5%"', '"    %"'), ('"%d"', "nil", '"null"'), ('"%-d"', "1", "!!runtime_error"), ('"%2000000s"', '"x"', "!!runtime_error"),
    # GAP-S96: %h is Java's hashCode in hex; %t/%T date/time conversions (UTC, as DIV-51 reads dates)
    ('"%h|%H|%h|%h"', '"hi"', '"hi"', "nil", "1.0", '"d01|D01|null|3ff00000"'), ('"%h"', ":a", '"816f5f1e"'),
    ('"%h %h %h"', "true", "[1 2]", "-1", '"4cf 3e2 0"'), ('"%#h"', "1", "!!runtime_error"),
    ('"%tY"', "1", '"1970"'), ('"%tF %<tT %<tZ"', "1700000000123", '"2023-11-14 22:13:20 UTC"'),
    ('"%tc"', "0", '"Thu Jan 01 00:00:00 UTC 1970"'), ('"%tr %<TB %<tj"', "1700000000123", '"10:13:20 PM NOVEMBER 318"'),
    ('"%-6tY|"', "0", '"1970  |"'), ('"%.2tY"', "0", "!!runtime_error"), ('"%tq"', "0", "!!runtime_error"),
    ('"%tY"', '"x"', "!!runtime_error"), ('"%n"', '"\\n"'), ('"%S"', '"abc"', '"ABC"'), ('"%5s"', '"😀"', '"    😀"'),
]

REGEX = [
    ("re-find", ['#"\\d+"', '"v1"'], '"1"'), ("re-find", ['#"(\\d+)-(\\d+)"', '"10-20"'], '["10-20" "10" "20"]'),
    ("re-find", ['#"x"', '"abc"'], "nil"), ("re-find", ['#"(a)|(b)"', '"b"'], '["b" nil "b"]'),
    ("re-find", ['"a"', '"a"'], "!!type_error"), ("re-find", ['#"a"', "nil"], "!!type_error"),
    ("re-matches", ['#"\\d+"', '"123"'], '"123"'), ("re-matches", ['#"\\d+"', '"123abc"'], "nil"),
    ("re-matches", ['#"(\\w+)@(\\w+)"', '"a@b"'], '["a@b" "a" "b"]'),
    ("re-seq", ['#"\\d+"', '"a1b22c333"'], '["1" "22" "333"]'), ("re-seq", ['#"(\\d)(\\w)"', '"1a2b"'], '[["1a" "1" "a"] ["2b" "2" "b"]]'),
    ("re-seq", ['#"x"', '"abc"'], "nil"), ("re-seq", ['#""', '"ab"'], '["" "" ""]'),
    ("re-split", ['#"\\s+"', '"a  b   c"'], '["a" "b" "c"]'), ("re-split", ['#","', '"a,b,c"'], '["a" "b" "c"]'),
    ("re-pattern", ['"\\\\d+"'], '#"\\d+"'), ("re-pattern", ['"("'], "!!runtime_error"), ("re-pattern", ["1"], "!!type_error"),
    ("re-pattern", ['#"a"'], '#"a"'),
    ("regex?", ['#"a"'], "true"), ("regex?", ['"a"'], "false"),
    ("re-find", ['#"\\Qa.b\\E"', '"xaxb a.b"'], '"a.b"'), ("re-find", ['#"(?<n>a)\\k<n>"', '"baa"'], '["aa" "a"]'),
    ("re-find", ['#"a\\Z"', '"a\\n"'], '"a"'), ("re-find", ['#"\\x{41}+"', '"xAA"'], '"AA"'), ("re-find", ['#"(?>a+)b"', '"aab"'], '"aab"'),
    ("re-find", ['#"a*+a"', '"aaa"'], "nil"), ("re-find", ['#"\\p{Lu}+"', '"abCDe"'], '"CD"'), ("re-find", ['#"(?i)abc"', '"xABC"'], '"ABC"'),
    ("re-find", ['#"\\w+"', '"  héllo "'], '"héllo"'), ("re-find", ['#"\\d+"', '"٤٢"'], '"٤٢"'),
    ("extract", ['"ID:(\\\\d+)"', '"ID:42"'], '"42"'), ("extract", ['"ID:(\\\\d+)"', '"ID:42"', "0"], '"ID:42"'),
    ("extract", ['"x=(\\\\d+) y=(\\\\d+)"', '"x=10 y=20"', "2"], '"20"'), ("extract", ['"ID:(\\\\d+)"', '"no match"'], "nil"),
    ("extract", ['#"ID:(\\d+)"', '"ID:7"'], '"7"'), ("extract", ['"ID:(\\\\d+)"', '"ID:42"', "5"], "nil"),
    ("extract-int", ['"age=(\\\\d+)"', '"age=25"'], "25"), ("extract-int", ['"age=(\\\\d+)"', '"no match"'], "nil"),
    ("extract-int", ['"x=(\\\\d+) y=(\\\\d+)"', '"x=10 y=20"', "2"], "20"),
    ("extract-int", ['"age=(\\\\d+)"', '"no match"', "1", "0"], "0"), ("extract-int", ['"a=(\\\\w+)"', '"a=x"', "1", "-1"], "-1"),
]

JSON = [
    ("json/parse-string", ['"{\\"a\\":[1,2.5,null]}"'], '{"a" [1 2.5 nil]}'), ("json/parse-string", ['"not json"'], "nil"),
    ("json/parse-string", ["nil"], "nil"), ("json/parse-string", ["42"], "nil"), ("json/parse-string", ['"null"'], "nil"),
    ("json/parse-string", ['"NaN"'], "nil"), ("json/parse-string", ['"1e400"'], "nil"), ("json/parse-string", ['"[1,]"'], "nil"),
    ("json/parse-string", ['" {\\"b\\":{\\"c\\":[true,false]},\\"a\\":-0} "'], '{"a" 0 "b" {"c" [true false]}}'),
    ("json/parse-string", ['"{\\"a\\":1,\\"a\\":2}"'], '{"a" 2}'), ("json/parse-string", ['"\\"\\\\u00e9\\""'], '"é"'),
    ("json/parse-lines", ['"{\\"a\\":1}\\n\\nnull\\nnot json"'], '[{"a" 1} nil nil]'),
    ("json/parse-lines", ['"{\\"a\\":1}\\n[2,3]\\n"'], '[{"a" 1} [2 3]]'), ("json/parse-lines", ["nil"], "nil"),
    ("json/parse-lines", ['"1\\r\\n2\\r3"'], "[1 2 3]"),
    ("json/generate-string", ["{:max-turns 3}"], '"{\\"max-turns\\":3}"'), ("json/generate-string", ['{1 "a"}'], '"{\\"1\\":\\"a\\"}"'),
    ("json/generate-string", ['{"server" :fs}'], "!!type_error"), ("json/generate-string", ['{:a 1 "a" 2}'], "!!type_error"),
    ("json/generate-string", ['[1 "a" nil true 1.5 {}]'], '"[1,\\"a\\",null,true,1.5,{}]"'),
    ("json/generate-string", ["#{1}"], "!!type_error"), ("json/generate-string", ["##Inf"], "!!type_error"),
    ("json/generate-string", ["{1.5 1}"], "!!type_error"), ("json/generate-string", ["{[1] 1}"], "!!type_error"),
    ("json/generate-string", ["{true 1}"], "!!type_error"), ("json/generate-string", ['#"a"'], "!!type_error"),
    ("json/generate-string", ['"é\\n"'], '"\\"é\\\\n\\""'), ("json/generate-string", ["nil"], '"null"'),
    ("json/generate-string", ["{:b 1 :a [2]}"], '"{\\"a\\":[2],\\"b\\":1}"'),
]


@pytest.mark.parametrize("name,args,expected", STR + SPLIT + TRIM_CASE + SEARCH + REPLACE_NAME + PARSE + REGEX + JSON)
def test_table(name, args, expected):
    check(name, args, expected)


@pytest.mark.parametrize("case", FORMAT, ids=[c[0] for c in FORMAT])
def test_format(case):
    check("format", list(case[:-1]), case[-1])


# ---------------------------------------------------------------- non-table


def test_regex_literal_compile_errors():
    with pytest.raises(PtcError) as ei:
        R.compile_regex("(")
    assert ei.value.kind == "invalid_form"
    with pytest.raises(PtcError) as ei:
        R.compile_regex("a" * 257)
    assert ei.value.kind == "invalid_form"
    assert R.compile_regex("a" * 256).source == "a" * 256


def test_regex_timeout_is_an_error_not_a_hang():
    m = Meter(Limits(timeout_ms=5000, regex_timeout_ms=50))
    prev = install(m)
    m.start()
    try:
        t0 = time.monotonic()
        with pytest.raises(PtcError) as ei:
            fn("re-find")(R.compile_regex("(x+x+)+y"), "x" * 5000)
        assert ei.value.kind == "type_error" and "complexity" in ei.value.message
        assert time.monotonic() - t0 < 1.0
    finally:
        m.stop()
        install(prev)


def test_regex_input_is_truncated():
    s = "a" * 40000 + "b"
    assert fn("re-find")(R.compile_regex("b"), s) is None
    assert fn("re-find")(R.compile_regex("b"), "é" * 16383 + "b") == "b"
    assert len(fn("re-find")(R.compile_regex("é+"), "é" * 20000)) == 16384


def test_replace_with_function():
    f = fn("replace")
    assert f("a1b22", R.compile_regex(r"\d+"), lambda m: str(len(m))) == "a1b2"
    assert f("x=1 y=2", R.compile_regex(r"(\w)=(\d)"), lambda m: m.lst()[2] + m.lst()[1]) == "1x 2y"
    assert f("a1", R.compile_regex(r"\d"), lambda m: 7) == "a7"


def test_json_deep_nesting_gives_nil_and_generation_is_iterative():
    parse = fn("json/parse-string")
    assert parse("[" * 600 + "]" * 600) is None
    assert pr_str(parse("[" * 512 + "]" * 512)).count("[") == 512
    v = Vector([])
    for _ in range(5000):
        v = Vector([v])
    out = fn("json/generate-string")(v)
    assert out.startswith("[[[") and len(out) == 10002


def test_json_generate_error_names_path():
    m = Map.from_pairs([("x", Vector([1, Map.from_pairs([("y", Set.of([1]))])]))])
    with pytest.raises(PtcError) as ei:
        fn("json/generate-string")(m)
    assert '["x" 1 "y"]' in ei.value.message


def test_json_round_trip_types():
    v = fn("json/parse-string")('{"i": 1, "f": 1.0, "big": 123456789012345678901234567890}')
    assert type(v.get_exact("i")) is int and type(v.get_exact("f")) is float
    assert v.get_exact("big") == 123456789012345678901234567890


def _metered(budget, f, *args):
    m = Meter(Limits(timeout_ms=5000, memory_bytes=budget))
    prev = install(m)
    m.start()
    try:
        return f(*args)
    finally:
        m.stop()
        install(prev)


def test_builders_charge_the_meter():
    big = "x" * 100_000
    with pytest.raises(PtcError) as ei:
        _metered(1_000_000, fn("str"), *([big] * 20))
    assert ei.value.kind == "memory_exceeded"
    with pytest.raises(PtcError):
        _metered(1_000_000, fn("join"), ",", Vector([big] * 20))
    with pytest.raises(PtcError):
        _metered(1_000_000, fn("replace"), big, "x", "yyyyyyyyyy")
    with pytest.raises(PtcError):
        _metered(100_000, fn("format"), "%500000s", "a")
    # a structurally shared value must not expand into a huge text
    v = Vector(["abcdefgh"] * 4)
    for _ in range(40):
        v = Vector([v, v])
    t0 = time.monotonic()
    with pytest.raises(PtcError) as ei:
        _metered(1_000_000, fn("str"), v)
    assert ei.value.kind == "memory_exceeded" and time.monotonic() - t0 < 2
    with pytest.raises(PtcError):
        _metered(1_000_000, fn("json/generate-string"), v)


def test_huge_integers_never_crash():
    # text or a PtcError (Python's digit limit may or may not be lifted by the evaluator), never ValueError
    big = 10 ** 5000
    for name, args in (("str", [big]), ("pr-str", [Vector([big])]), ("format", ["%d", big]), ("format", ["%f", big]),
                       ("json/generate-string", [big])):
        try:
            out = fn(name)(*args)
        except PtcError:
            continue
        assert "1" + "0" * 4999 in out
    assert fn("format")("%x", 1 << 100) == "1" + "0" * 25


def test_registration_groups():
    from ptclisp.registry.builtins import lookup_qualified
    assert lookup_qualified("clojure.string", "upper-case") is not None
    assert lookup_qualified("str", "extract") is not None
    assert lookup_qualified("clojure.core", "format") is not None
    assert lookup_qualified("clojure.core", "upcase") is None
    assert lookup_qualified("clojure.core", "join") is None
    assert lookup_qualified("json", "parse-string") is not None
    assert "parse-string" not in BUILTINS
    assert lookup_qualified("regex", "re-split") is not None
    assert lookup_qualified("clojure.core", "re-split") is None
    assert BUILTINS["upcase"].fn is BUILTINS["upper-case"].fn
    assert Keyword("a") is Keyword("a")


# ------------------------------------------------------------------ split on a regex that is a plain literal

def test_split_on_a_plain_regex_agrees_with_the_regex_engine():
    """#" " and kin take a str.split path; (?:...) around the same text forces the regex engine."""
    import random

    import ptclisp
    rng = random.Random(5)
    for _ in range(3000):
        s = "".join(rng.choice("ab, ") for _ in range(rng.randint(0, 12)))
        sep = rng.choice([" ", ",", ", ", "a", "ab", "b,"])
        lim = rng.choice(["", " -1", " 0", " 1", " 2", " 3"])
        fast = ptclisp.run(f"(str/split {ptclisp.pr_str(s)} #{ptclisp.pr_str(sep)}{lim})")
        slow = ptclisp.run(f"(str/split {ptclisp.pr_str(s)} #\"(?:{sep})\"{lim})")
        assert (fast.status, ptclisp.pr_str(fast.value)) == (slow.status, ptclisp.pr_str(slow.value)), (s, sep, lim)


def test_split_on_a_plain_regex_is_charged_like_the_regex_path():
    # 100,000 pieces fit the default 10 MB budget on the regex path; the fast path must not charge more
    import ptclisp
    src = '(count (mapcat (fn [l] (str/split l #" ")) data/lines))'
    for pattern in ('#" "', '#"(?: )"'):
        r = ptclisp.run(src.replace('#" "', pattern), context={"lines": ["the quick brown fox jumps over the lazy dog again"] * 10_000},
                        limits=ptclisp.Limits(timeout_ms=30_000))
        assert (r.status, r.value) == ("ok", 100_000), pattern


# ------------------------------------------------------------------ split on one character, no limit

@settings(max_examples=300, deadline=None)
@given(st.text(alphabet="ab ,", max_size=40) | st.text(alphabet="ab ,", min_size=4090, max_size=4100),
       st.sampled_from([" ", ","]), st.sampled_from([10**8, 200, 600, 2000]))
def test_split_on_one_character_charges_like_the_checked_path(s, sep, budget):
    """(split s sep) takes a shortcut; with limit 0 (the same meaning) it takes the checked path."""
    def outcome(*args):
        m = Meter(Limits(timeout_ms=5000, memory_bytes=budget))
        prev = install(m)
        m.start()
        try:
            try:
                return pr_str(fn("split")(*args)), m.allocated
            except PtcError as e:
                return e.kind, e.message, e.details, m.allocated
        finally:
            m.stop()
            install(prev)
    assert outcome(s, sep) == outcome(s, sep, 0)
