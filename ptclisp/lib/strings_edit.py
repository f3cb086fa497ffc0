"""String edits at one place: `capitalize` (the first character) and `replace-first` (the first match).

Imports errors, meter, registry, values, regex_engine, lib.arguments, lib.regex_replace, lib.strings.
"""
from __future__ import annotations

from ..patterns import engine as rx
from ..errors import PtcError
from ..runtime.meter import str_cost
from ..registry.builtins import builtin
from ..values import Regex, type_name
from .arguments import charge, need_fn, need_text
from .regex_replace import java_replacement
from .strings import display


@builtin("capitalize", "(capitalize s)", groups=("string",), category="strings",
         doc="s with its first character in upper case and the rest in lower case.",
         examples=('(capitalize "hELLO world") ;=> "Hello world"', '(capitalize "") ;=> ""'))
def capitalize(s):
    s = need_text(s, "capitalize")
    if len(s) > 256:
        charge(str_cost(len(s)))
    return s[:1].upper() + s[1:].lower()


@builtin("replace-first", "(replace-first s match replacement)", groups=("string",), category="strings",
         doc="s with the first occurrence of match replaced, as replace does for every occurrence: a "
             "string match literally; a regex match with $1 / ${name} group references in the "
             "replacement, or a function of the match.",
         examples=('(replace-first "a-b-c" "-" "+") ;=> "a+b-c"',
                   '(replace-first "x12y34" #"\\d+" "<$0>") ;=> "x<12>y34"'))
def replace_first(a, b, c):
    s = need_text(a, "replace-first")
    t = type(b)
    if t is str:
        if type(c) is not str:
            raise PtcError("type_error", f"replace-first: with a string match the replacement must be a string, "
                                         f"got {type_name(c)}")
        at = s.find(b)
        if at < 0:
            return s
        if len(s) + len(c) > 256:
            charge(str_cost(len(s) + len(c)))
        return s[:at] + c + s[at + len(b):]
    if t is not Regex:
        raise PtcError("type_error", f"replace-first: match must be a string or a regex, got {type_name(b)}")
    text = rx.bound_input(s)
    for mt in rx.iter_matches(b, text, "replace-first"):
        if type(c) is str:
            parts = java_replacement(c, b, "replace-first") if ("$" in c or "\\" in c) else [c]
            piece = "".join(p if type(p) is str else (mt.group(p) or "") for p in parts)
        else:
            piece = display(need_fn(c, "replace-first")(rx.groups_of(mt, b)))
        i, j = mt.span()
        out = text[:i] + piece + text[j:]
        if len(out) > 256:
            charge(str_cost(len(out)))
        return out
    return text
