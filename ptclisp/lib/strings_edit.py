"""String edits: trimming (`trim`, `triml`, `trimr`, `trim-newline`, `blank?`), case (`upper-case`,
`lower-case`), and edits at one place: `capitalize` (the first character) and `replace-first` (the first match).

Imports errors, meter, registry, values, regex_engine, lib.arguments, lib.regex_replace, lib.strings.
"""
from __future__ import annotations

from ..patterns import engine as rx
from ..errors import PtcError
from ..runtime.meter import str_cost
from ..registry.builtins import builtin
from ..values import Regex, type_name
from .arguments import charge, need_fn, need_str, need_text
from .regex_replace import java_replacement
from .strings import display

# Java Character.isWhitespace
WHITESPACE = ("\t\n\x0b\x0c\r\x1c\x1d\x1e\x1f \u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006"
              "\u2008\u2009\u200a\u2028\u2029\u205f\u3000")


@builtin("trim", "(trim s)", groups=("string",), category="strings")
def trim(s):
    r"""s without leading and trailing whitespace (Java's whitespace characters; a no-break space is kept).

    (trim "  hi \n") ;=> "hi"
    """
    return need_str(s, "trim").strip(WHITESPACE)


@builtin("triml", "(triml s)", groups=("string",), category="strings")
def triml(s):
    """s without leading whitespace.

    (triml "  hi ") ;=> "hi "
    """
    return need_str(s, "triml").lstrip(WHITESPACE)


@builtin("trimr", "(trimr s)", groups=("string",), category="strings")
def trimr(s):
    """s without trailing whitespace.

    (trimr "  hi ") ;=> "  hi"
    """
    return need_str(s, "trimr").rstrip(WHITESPACE)


@builtin("trim-newline", "(trim-newline s)", groups=("string",), category="strings")
def trim_newline(s):
    r"""s without any trailing \r and \n characters.

    (trim-newline "hi\r\n\n") ;=> "hi"
    """
    return need_str(s, "trim-newline").rstrip("\r\n")


@builtin("blank?", "(blank? s)", returns_bool=True, groups=("string",), category="strings")
def is_blank(s):
    r"""True for nil, the empty string, or a string of whitespace only.

    (blank? "  \t") ;=> true
    (blank? nil) ;=> true
    (blank? "a") ;=> false
    """
    if type(s) is str:
        return s.strip(WHITESPACE) == ""
    if s is None:
        return True
    return need_str(s, "blank?").strip(WHITESPACE) == ""


@builtin("upper-case", "(upper-case s)", groups=("string",), aliases=("upcase",), category="strings",
         str_method=("upper", 256))
def upper_case(s):
    """s in upper case (Unicode rules). upcase is the same function.

    (upper-case "hello") ;=> "HELLO"
    """
    if type(s) is not str:
        s = need_text(s, "upper-case")
    if len(s) > 256:   # (the length str_method names: up to it, compiled code calls s.upper() itself)
        charge(str_cost(len(s)))
    return s.upper()


@builtin("lower-case", "(lower-case s)", groups=("string",), aliases=("downcase",), category="strings",
         str_method=("lower", 256))
def lower_case(s):
    """s in lower case (Unicode rules). downcase is the same function.

    (lower-case "HeLLo") ;=> "hello"
    """
    if type(s) is not str:
        s = need_text(s, "lower-case")
    if len(s) > 256:   # (the length str_method names)
        charge(str_cost(len(s)))
    return s.lower()


# ------------------------------------------------------------- at one place

@builtin("capitalize", "(capitalize s)", groups=("string",), category="strings")
def capitalize(s):
    """s with its first character in upper case and the rest in lower case.

    (capitalize "hELLO world") ;=> "Hello world"
    (capitalize "") ;=> ""
    """
    s = need_text(s, "capitalize")
    if len(s) > 256:
        charge(str_cost(len(s)))
    return s[:1].upper() + s[1:].lower()


@builtin("replace-first", "(replace-first s match replacement)", groups=("string",), category="strings")
def replace_first(a, b, c):
    r"""s with the first occurrence of match replaced, as replace does for every occurrence: a string match
    literally; a regex match with $1 / ${name} group references in the replacement, or a function of the match.

    (replace-first "a-b-c" "-" "+") ;=> "a+b-c"
    (replace-first "x12y34" #"\d+" "<$0>") ;=> "x<12>y34"
    """
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
