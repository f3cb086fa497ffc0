"""Regular-expression builtins (docs/spec/functions.md §5).

Owns `re-pattern re-find re-matches re-seq re-split regex?` and the two
regex-based string helpers `extract` / `extract-int`. Compiling patterns and
running them within the limits (pattern size, input size, timeouts) is
`ptclisp.patterns.engine`, which the string family uses too.
Imports values, errors, meter, the regex engine, lib.arguments, registry, lib.strings.
"""
from __future__ import annotations

from ..errors import PtcError
from ..runtime.meter import charge, str_cost
from ..patterns.engine import bound_input, compile_regex, fast_form, fullmatch, groups_of, iter_matches, search
from ..values import Regex, type_name
from .arguments import need_pattern, need_regex, need_str, out_vec
from ..registry.builtins import builtin
from .strings import parse_long, regex_split, split


# ------------------------------------------------------------------ builtins


@builtin("re-pattern", "(re-pattern s)", groups=("core", "regex"), category="regex")
def re_pattern(s):
    r"""Compiles a pattern string into a regex value. A regex argument is returned as it is; an invalid pattern
    is a runtime_error.

    (re-find (re-pattern "\\d+") "v1") ;=> "1"
    """
    if type(s) is Regex:
        return s
    if type(s) is not str:
        raise PtcError("type_error", f"re-pattern: expected a string, got {type_name(s)}")
    return compile_regex(s, "runtime_error", "re-pattern")


@builtin("re-find", "(re-find re s)", groups=("core", "regex"), category="regex")
def re_find(re, s):
    r"""The first match of the regex in the string: the matched text when the pattern has no groups, otherwise a
    vector of the whole match followed by each group (nil for a group that did not take part). nil when nothing
    matches.

    (re-find #"\d+" "v1") ;=> "1"
    (re-find #"(\d+)-(\d+)" "10-20") ;=> ["10-20" "10" "20"]
    """
    rx = need_regex(re, "re-find")
    text = bound_input(need_str(s, "re-find"))
    mt = search(rx, text, 0, "re-find")
    return None if mt is None else groups_of(mt, rx)


@builtin("re-matches", "(re-matches re s)", groups=("core", "regex"), category="regex")
def re_matches(re, s):
    r"""Like re-find, but the regex must match the whole string; nil otherwise.

    (re-matches #"\d+" "123") ;=> "123"
    (re-matches #"\d+" "123abc") ;=> nil
    """
    rx = need_regex(re, "re-matches")
    text = bound_input(need_str(s, "re-matches"))
    mt = fullmatch(rx, text, "re-matches")
    return None if mt is None else groups_of(mt, rx)


@builtin("re-seq", "(re-seq re s)", groups=("core", "regex"), category="regex")
def re_seq(re, s):
    r"""Every successive match of the regex in the string, each shaped as re-find shapes it; nil when there is no
    match.

    (re-seq #"\d+" "a1b22c333") ;=> ["1" "22" "333"]
    """
    rx = need_regex(re, "re-seq")
    text = bound_input(need_str(s, "re-seq"))
    fast = fast_form(rx, text, nonempty=True)
    if fast is not None:  # a pattern with no groups: findall gives the texts
        found = fast.findall(text)
        if not found:
            return None
        if len(text) > 64:  # as groups_of charges each match longer than 64
            charge(sum(str_cost(n) for n in map(len, found) if n > 64))
        return out_vec(found)
    out = []
    for mt in iter_matches(rx, text, "re-seq"):
        out.append(groups_of(mt, rx))
    if not out:
        return None
    return out_vec(out)


@builtin("re-split", "(re-split re s)", groups=("regex",), category="regex")
def re_split(re, s):
    r"""Splits the string around matches of the regex (regex first). Same result as (split s re): trailing empty
    pieces are dropped, captured groups are not kept.

    (re-split #"\s+" "a  b   c") ;=> ["a" "b" "c"]
    """
    rx = need_regex(re, "re-split")
    text = need_str(s, "re-split")
    if rx.source == "":
        return split(text, rx)
    return regex_split(bound_input(text), rx, 0, "re-split")


@builtin("regex?", "(regex? x)", groups=("regex",), category="regex")
def is_regex(x):
    """True when the value is a compiled regex.

    (regex? #"a+") ;=> true
    (regex? "a+") ;=> false
    """
    return type(x) is Regex


# ----------------------------------------------------------- extract family


def _extract(who, pattern, s, group):
    rx = need_pattern(pattern, who)
    text = bound_input(need_str(s, who))
    if type(group) is not int:
        raise PtcError("type_error", f"{who}: group must be an integer, got {type_name(group)}")
    mt = search(rx, text, 0, who)
    if mt is None or group < 0 or group > rx.compiled.groups:
        return None
    return mt.group(group)


@builtin("extract", "(extract pattern s)", "(extract pattern s group)", groups=("string",), category="strings")
def extract(pattern, s, group=1):
    r"""Runs the pattern (a regex or a pattern string) over s and returns one capture group of the first match:
    group 1 by default, 0 for the whole match. nil when there is no match or no such group.

    (extract "ID:(\\d+)" "ID:42") ;=> "42"
    (extract "ID:(\\d+)" "ID:42" 0) ;=> "ID:42"
    """
    return _extract("extract", pattern, s, group)


@builtin("extract-int", "(extract-int pattern s)", "(extract-int pattern s group)",
         "(extract-int pattern s group default)", groups=("string",), category="strings")
def extract_int(pattern, s, group=1, default=None):
    r"""Like extract, then reads the captured text as a whole decimal integer. Returns default (nil when not
    given) when nothing matched or the text is not an integer.

    (extract-int "age=(\\d+)" "age=25") ;=> 25
    (extract-int "age=(\\d+)" "none" 1 0) ;=> 0
    """
    text = _extract("extract-int", pattern, s, group)
    if text is None:
        return default
    n = parse_long(text)
    return default if n is None else n
