"""Regular expressions: compiling PTC patterns and running them safely.

Owns functions.md §5 (`re-pattern re-find re-matches re-seq re-split
regex?`) and the two regex-based string helpers `extract` / `extract-int`,
plus the low-level matching helpers the string family uses for `split` and
`replace` with a regex.

Safety (runtime.md §7): patterns are at most 256 UTF-8 bytes; the text a
pattern runs over is cut to its first 32,768 UTF-8 bytes (on a code point
boundary); every engine call carries a timeout taken from
`limits.regex_timeout_ms`, never longer than the evaluation has left. A
timeout becomes `type_error` "regex complexity limit exceeded" (or the
evaluation's own `timeout` when the deadline was the binding constraint).

Patterns are compiled with the `regex` package (version-0 syntax, Unicode
classes). A few Java/PCRE spellings that `regex` lacks are rewritten first:
`\\Q...\\E`, `\\e`, `\\cX`, `\\x{h..}`, `\\0ooo`, `\\k<name>`, `\\z`/`\\Z` (Java
meaning) and `\\v`/`\\V` (vertical whitespace).
Imports values, errors, meter, lib.common, registry.
"""
from __future__ import annotations

import regex as _regex

from ..errors import PtcError
from ..meter import current, str_cost
from ..values import Regex, Vector, type_name
from .common import charge, out_vec
from ..registry import builtin, provides

MAX_PATTERN_BYTES = 256
MAX_INPUT_BYTES = 32_768

_VSPACE = "\\n\\x0b\\f\\r\\x85\\u2028\\u2029"

# --------------------------------------------------------------- translation


def _lit(ch: str) -> str:
    """One code point written so it means itself anywhere in a pattern."""
    cp = ord(ch)
    if ch.isalnum() and cp < 128:
        return ch
    return "\\U%08x" % cp


def _translate(src: str) -> str:
    """Rewrite Java/PCRE-only escapes into the `regex` package's syntax."""
    if "\\" not in src:
        return src
    out: list[str] = []
    i, n = 0, len(src)
    in_class = False
    class_open = -1  # index just after '[' or '[^' of the current class
    while i < n:
        c = src[i]
        if c == "\\" and i + 1 < n:
            d = src[i + 1]
            if d == "Q":
                j = src.find("\\E", i + 2)
                body = src[i + 2:] if j < 0 else src[i + 2:j]
                out.append("".join(_lit(ch) for ch in body))
                i = n if j < 0 else j + 2
                continue
            if d == "E":
                i += 2
                continue
            if d == "e":
                out.append("\\x1b")
                i += 2
                continue
            if d == "c" and i + 2 < n:
                out.append(_lit(chr(ord(src[i + 2]) ^ 64)))
                i += 3
                continue
            if d == "x" and i + 2 < n and src[i + 2] == "{":
                j = src.find("}", i + 3)
                digits = src[i + 3:j] if j > 0 else ""
                if j > 0 and digits and len(digits) <= 8 and all(h in "0123456789abcdefABCDEF" for h in digits):
                    cp = int(digits, 16)
                    if cp <= 0x10FFFF:
                        out.append("\\U%08x" % cp)
                        i = j + 1
                        continue
                raise _BadPattern("malformed \\x{...} escape")
            if d == "0":
                j = i + 2
                while j < n and j < i + 5 and src[j] in "01234567":
                    j += 1
                digits = src[i + 2:j]
                if len(digits) == 3 and digits[0] > "3":
                    digits = digits[:2]
                    j -= 1
                if not digits:
                    raise _BadPattern("illegal octal escape")
                out.append(_lit(chr(int(digits, 8))))
                i = j
                continue
            if not in_class:
                if d == "k" and i + 2 < n and src[i + 2] in "<{'":
                    close = {"<": ">", "{": "}", "'": "'"}[src[i + 2]]
                    j = src.find(close, i + 3)
                    if j < 0:
                        raise _BadPattern("malformed \\k reference")
                    out.append("(?P=" + src[i + 3:j] + ")")
                    i = j + 1
                    continue
                if d == "Z":
                    out.append("(?=\\n?\\z)")
                    i += 2
                    continue
                if d == "v":
                    out.append("[" + _VSPACE + "]")
                    i += 2
                    continue
                if d == "V":
                    out.append("[^" + _VSPACE + "]")
                    i += 2
                    continue
            elif d == "v":
                out.append(_VSPACE)
                i += 2
                continue
            out.append(src[i:i + 2])
            i += 2
            continue
        if in_class:
            if c == "[" and src.startswith("[:", i):
                j = src.find(":]", i + 2)
                if j > 0:
                    out.append(src[i:j + 2])
                    i = j + 2
                    continue
            if c == "]" and i != class_open:
                in_class = False
        elif c == "[":
            in_class = True
            class_open = i + 1
            if i + 1 < n and src[i + 1] == "^":
                class_open = i + 2
                out.append("[^")
                i += 2
                continue
        out.append(c)
        i += 1
    return "".join(out)


class _BadPattern(Exception):
    pass


# ------------------------------------------------------------------ compiling

_CACHE: dict[str, object] = {}


def _compile_raw(source: str):
    compiled = _CACHE.get(source)
    if compiled is None:
        compiled = _regex.compile(_translate(source))
        if len(_CACHE) >= 512:
            _CACHE.clear()
        _CACHE[source] = compiled
    return compiled


@provides("compile_regex")
def compile_regex(source: str, kind: str = "invalid_form", who: str | None = None) -> Regex:
    """Compile PTC pattern text into a `Regex`.

    A pattern longer than 256 bytes or one that does not compile raises
    `PtcError(kind, ...)`: the analyzer uses `invalid_form` for `#"..."`
    literals, `re-pattern` uses `runtime_error`.
    """
    lead = f"{who}: invalid regex pattern: " if who else ""
    nbytes = len(source.encode("utf-8", "surrogatepass"))
    if nbytes > MAX_PATTERN_BYTES:
        raise PtcError(kind, f"{lead}pattern is {nbytes} bytes; the limit is {MAX_PATTERN_BYTES}")
    try:
        compiled = _compile_raw(source)
    except (_regex.error, _BadPattern, ValueError, OverflowError, RecursionError) as e:
        msg = str(e).split("\n")[0][:120]
        raise PtcError(kind, f"{lead}{msg}") from None
    return Regex(source, compiled)


def as_regex(p, who: str) -> Regex:
    """A Regex argument, or a string pattern compiled on the fly (extract)."""
    t = type(p)
    if t is Regex:
        return p
    if t is str:
        return compile_regex(p, "runtime_error", who)
    raise PtcError("type_error", f"{who}: expected a regex or pattern string, got {type_name(p)}")


def need_regex(p, who: str) -> Regex:
    if type(p) is not Regex:
        raise PtcError("type_error", f"{who}: expected a regex, got {type_name(p)}")
    return p


def need_text(s, who: str) -> str:
    if type(s) is not str:
        raise PtcError("type_error", f"{who}: expected a string, got {type_name(s)}")
    return s


# ------------------------------------------------------------------- running


def bound_input(s: str) -> str:
    """The first 32,768 UTF-8 bytes of `s`, cut on a code point boundary."""
    if len(s) <= MAX_INPUT_BYTES // 4:
        return s
    head = s[:MAX_INPUT_BYTES]
    b = head.encode("utf-8", "surrogatepass")
    if len(b) <= MAX_INPUT_BYTES:
        return head
    return b[:MAX_INPUT_BYTES].decode("utf-8", "ignore")


def _timeout() -> float:
    m = current()
    t = m.limits.regex_timeout_ms
    t = 0.25 if t is None else t / 1000.0
    rem = m.remaining_s()
    if rem is not None and rem < t:
        t = rem
    return max(t, 0.001)


def _timed_out(who: str):
    m = current()
    rem = m.remaining_s()
    if m.expired or (rem is not None and rem <= 0.002):
        m.raise_expired()
    raise PtcError("type_error", f"{who}: regex complexity limit exceeded (the match took too long)")


def search(rx: Regex, s: str, pos: int, who: str):
    try:
        return rx.compiled.search(s, pos, timeout=_timeout())
    except TimeoutError:
        _timed_out(who)


def fullmatch(rx: Regex, s: str, who: str):
    try:
        return rx.compiled.fullmatch(s, timeout=_timeout())
    except TimeoutError:
        _timed_out(who)


def iter_matches(rx: Regex, s: str, who: str):
    """Successive matches (Java `find` order, empty matches included)."""
    m = current()
    it = rx.compiled.finditer(s, timeout=_timeout())
    k = 0
    while True:
        try:
            mt = next(it)
        except StopIteration:
            return
        except TimeoutError:
            _timed_out(who)
        k += 1
        if not (k & 1023) and m.expired:
            m.raise_expired()
        yield mt


def groups_of(mt, rx: Regex):
    """What `re-find` returns for one match: the text, or [whole g1 g2 ...].

    Charges the meter for the substrings before they are built.
    """
    ng = rx.compiled.groups
    if ng == 0:
        a, b = mt.span()
        if b - a > 64:
            charge(str_cost(b - a))
        return mt.group(0)
    cost = 56 + 8 * (ng + 1)
    for g in range(ng + 1):
        a, b = mt.span(g)
        cost += 49 + max(0, b - a)
    charge(cost)
    return Vector([mt.group(0), *mt.groups()])


# ------------------------------------------------------------------ builtins


@builtin("re-pattern", "(re-pattern s)", groups=("core", "regex"), category="regex",
         doc="Compiles a pattern string into a regex value. A regex argument is returned as it is; "
             "an invalid pattern is a runtime_error.",
         examples=('(re-find (re-pattern "\\\\d+") "v1") ;=> "1"',))
def re_pattern(s):
    if type(s) is Regex:
        return s
    if type(s) is not str:
        raise PtcError("type_error", f"re-pattern: expected a string, got {type_name(s)}")
    return compile_regex(s, "runtime_error", "re-pattern")


@builtin("re-find", "(re-find re s)", groups=("core", "regex"), category="regex",
         doc="The first match of the regex in the string: the matched text when the pattern has no groups, "
             "otherwise a vector of the whole match followed by each group (nil for a group that did not "
             "take part). nil when nothing matches.",
         examples=('(re-find #"\\d+" "v1") ;=> "1"', '(re-find #"(\\d+)-(\\d+)" "10-20") ;=> ["10-20" "10" "20"]'))
def re_find(re, s):
    rx = need_regex(re, "re-find")
    text = bound_input(need_text(s, "re-find"))
    mt = search(rx, text, 0, "re-find")
    return None if mt is None else groups_of(mt, rx)


@builtin("re-matches", "(re-matches re s)", groups=("core", "regex"), category="regex",
         doc="Like re-find, but the regex must match the whole string; nil otherwise.",
         examples=('(re-matches #"\\d+" "123") ;=> "123"', '(re-matches #"\\d+" "123abc") ;=> nil'))
def re_matches(re, s):
    rx = need_regex(re, "re-matches")
    text = bound_input(need_text(s, "re-matches"))
    mt = fullmatch(rx, text, "re-matches")
    return None if mt is None else groups_of(mt, rx)


@builtin("re-seq", "(re-seq re s)", groups=("core", "regex"), category="regex",
         doc="Every successive match of the regex in the string, each shaped as re-find shapes it; "
             "nil when there is no match.",
         examples=('(re-seq #"\\d+" "a1b22c333") ;=> ["1" "22" "333"]',))
def re_seq(re, s):
    rx = need_regex(re, "re-seq")
    text = bound_input(need_text(s, "re-seq"))
    out = []
    for mt in iter_matches(rx, text, "re-seq"):
        out.append(groups_of(mt, rx))
    if not out:
        return None
    return out_vec(out)


def split_spans(rx: Regex, s: str, who: str):
    for mt in iter_matches(rx, s, who):
        yield mt.span()


@builtin("re-split", "(re-split re s)", groups=("regex",), category="regex",
         doc="Splits the string around matches of the regex (regex first). Same result as "
             "(split s re): trailing empty pieces are dropped, captured groups are not kept.",
         examples=('(re-split #"\\s+" "a  b   c") ;=> ["a" "b" "c"]',))
def re_split(re, s):
    from .strings import java_split
    rx = need_regex(re, "re-split")
    text = need_text(s, "re-split")
    if rx.source == "":
        from .strings import split
        return split(text, rx)
    text = bound_input(text)
    return java_split(text, split_spans(rx, text, "re-split"), 0)


@builtin("regex?", "(regex? x)", groups=("regex",), category="regex",
         doc="True when the value is a compiled regex.",
         examples=('(regex? #"a+") ;=> true', '(regex? "a+") ;=> false'))
def is_regex(x):
    return type(x) is Regex


# ----------------------------------------------------------- extract family


def _extract(who, pattern, s, group):
    rx = as_regex(pattern, who)
    text = bound_input(need_text(s, who))
    if type(group) is not int:
        raise PtcError("type_error", f"{who}: group must be an integer, got {type_name(group)}")
    mt = search(rx, text, 0, who)
    if mt is None or group < 0 or group > rx.compiled.groups:
        return None
    return mt.group(group)


@builtin("extract", "(extract pattern s)", "(extract pattern s group)", groups=("string",), category="strings",
         doc="Runs the pattern (a regex or a pattern string) over s and returns one capture group of the "
             "first match: group 1 by default, 0 for the whole match. nil when there is no match or no such group.",
         examples=('(extract "ID:(\\\\d+)" "ID:42") ;=> "42"', '(extract "ID:(\\\\d+)" "ID:42" 0) ;=> "ID:42"'))
def extract(pattern, s, group=1):
    return _extract("extract", pattern, s, group)


@builtin("extract-int", "(extract-int pattern s)", "(extract-int pattern s group)",
         "(extract-int pattern s group default)", groups=("string",), category="strings",
         doc="Like extract, then reads the captured text as a whole decimal integer. Returns default "
             "(nil when not given) when nothing matched or the text is not an integer.",
         examples=('(extract-int "age=(\\\\d+)" "age=25") ;=> 25', '(extract-int "age=(\\\\d+)" "none" 1 0) ;=> 0'))
def extract_int(pattern, s, group=1, default=None):
    from .strings import parse_long
    text = _extract("extract-int", pattern, s, group)
    if text is None:
        return default
    n = parse_long(text)
    return default if n is None else n
