"""The argument checks every builtin family shares (lib/arguments.py): one `need_<what>(x, who)`
pattern, one message shape "who: expected <what>, got <type>", kind `type_error`."""
from __future__ import annotations

import pytest

import ptclisp
from helpers import call_builtin
from ptclisp.errors import PtcError
from ptclisp.lib import arguments as common


@pytest.mark.parametrize("check,arg,message", [
    (common.need_str, 1, "f: expected a string, got number; (str x) gives its text"),
    (common.need_str, None, "f: expected a string, got nil"),
    (common.need_text, ptclisp.read_string("[1]"), "f: expected a string, got vector"),
    (common.need_count, "x", "f: expected an integer, got string"),
    (common.need_count, float("inf"), "f: expected an integer, got a non-finite number"),
    (common.need_vector, None, "f: expected a vector, got nil"),
    (common.need_map, 1.5, "f: expected a map, got number"),
    (common.need_regex, "a+", "f: expected a regex, got string"),
    (common.need_pattern, 7, "f: expected a regex or pattern string, got number"),
    (common.need_fn, 7, "f: expected a function, got number"),
])
def test_a_check_names_the_builtin_what_it_expected_and_what_it_got(check, arg, message):
    with pytest.raises(PtcError) as ei:
        check(arg, "f")
    assert (ei.value.kind, ei.value.message) == ("type_error", message)


@pytest.mark.parametrize("check,arg,expected", [
    (common.need_str, "s", "s"),
    (common.need_text, 12, "12"),
    (common.need_text, ptclisp.read_string(":k"), ":k"),
    (common.need_text, True, "true"),
    (common.need_count, 2.9, 2),
    (common.need_count, -2.9, -2),
])
def test_a_check_returns_the_argument_as_the_builtin_uses_it(check, arg, expected):
    assert check(arg, "f") == expected


@pytest.mark.parametrize("src,message", [
    # the regex builtins share the string check of the string builtins (one need_str)
    ("(re-find #\"a\" 1)", "re-find: expected a string, got number; (str x) gives its text"),
    ("(clojure.string/split 1 #\",\")", "split: expected a string, got number; (str x) gives its text"),
    # an index of the string builtins is an integer index; a non-finite float says so
    ("(subs \"abc\" ##Inf)", "subs: expected an integer index, got a non-finite number"),
    ("(subs \"abc\" :a)", "subs: expected an integer index, got keyword"),
    ("(peek {:a 1})", "peek: expected a vector, got map"),
    ("(keys [1])", "keys: expected a map, got vector"),
    ("(dissoc [1] 0)", "dissoc: expected a map, got vector"),
    ("(extract 1 \"a\")", "extract: expected a regex or pattern string, got number"),
])
def test_builtins_report_argument_errors_through_the_shared_checks(src, message):
    r = ptclisp.run(src)
    assert r.status == "error"
    assert (r.error.kind, r.error.message) == ("type_error", message)
    assert (r.error.span.line, r.error.span.col) == (1, 1)


def test_the_pattern_check_compiles_a_string_with_the_builtins_name():
    with pytest.raises(PtcError) as ei:
        call_builtin("extract", ['"("', '"a"'])
    assert ei.value.kind == "runtime_error" and ei.value.message.startswith("extract: invalid regex pattern:")
