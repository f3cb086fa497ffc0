"""PTC regular expressions: compiling pattern text and running compiled patterns safely.

Below the reader, the analyzer and the library: the reader and the analyzer
compile `#"..."` literals here, the regex and string builtins compile and run
patterns here.

Patterns are compiled with the `regex` package (version-0 syntax, Unicode
classes). A few Java/PCRE spellings that `regex` lacks are rewritten first:
`\\Q...\\E`, `\\e`, `\\cX`, `\\x{h..}`, `\\0ooo`, `\\k<name>`, `\\z`/`\\Z` (Java
meaning) and `\\v`/`\\V` (vertical whitespace).

Safety (runtime.md §7): patterns are at most 256 UTF-8 bytes; the text a
pattern runs over is cut to its first 32,768 UTF-8 bytes (on a code point
boundary); every engine call carries a timeout taken from
`limits.regex_timeout_ms`, never longer than the evaluation has left. A
timeout becomes `type_error` "regex complexity limit exceeded" (or the
evaluation's own `timeout` when the deadline was the binding constraint).
Imports errors, meter, values; the `regex` package on the first pattern compiled (`engine()`).
"""
from __future__ import annotations

from .errors import PtcError
from .meter import charge, current, str_cost
from .values import Regex, Vector

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
            piece, i = _escape(src, i, in_class)
            out.append(piece)
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


def _escape(src: str, i: int, in_class: bool) -> tuple[str, int]:
    """The rewrite of the escape starting at `src[i]` (a backslash with a character after it),
    and the index where the scan goes on."""
    n = len(src)
    d = src[i + 1]
    if d == "Q":
        j = src.find("\\E", i + 2)
        body = src[i + 2:] if j < 0 else src[i + 2:j]
        return "".join(_lit(ch) for ch in body), (n if j < 0 else j + 2)
    if d == "E":
        return "", i + 2
    if d == "e":
        return "\\x1b", i + 2
    if d == "c" and i + 2 < n:
        return _lit(chr(ord(src[i + 2]) ^ 64)), i + 3
    if d == "x" and i + 2 < n and src[i + 2] == "{":
        return _hex_escape(src, i)
    if d == "0":
        return _octal_escape(src, i)
    if not in_class:
        if d == "k" and i + 2 < n and src[i + 2] in "<{'":
            close = {"<": ">", "{": "}", "'": "'"}[src[i + 2]]
            j = src.find(close, i + 3)
            if j < 0:
                raise _BadPattern("malformed \\k reference")
            return "(?P=" + src[i + 3:j] + ")", j + 1
        if d == "Z":
            return "(?=\\n?\\z)", i + 2
        if d == "v":
            return "[" + _VSPACE + "]", i + 2
        if d == "V":
            return "[^" + _VSPACE + "]", i + 2
    elif d == "v":
        return _VSPACE, i + 2
    return src[i:i + 2], i + 2


def _hex_escape(src: str, i: int) -> tuple[str, int]:
    """`\\x{h..}` at `src[i]`: one code point of up to 8 hex digits."""
    j = src.find("}", i + 3)
    digits = src[i + 3:j] if j > 0 else ""
    if j > 0 and digits and len(digits) <= 8 and all(h in "0123456789abcdefABCDEF" for h in digits):
        cp = int(digits, 16)
        if cp <= 0x10FFFF:
            return "\\U%08x" % cp, j + 1
    raise _BadPattern("malformed \\x{...} escape")


def _octal_escape(src: str, i: int) -> tuple[str, int]:
    """`\\0ooo` at `src[i]`: one to three octal digits (three only when the first is 0-3)."""
    n = len(src)
    j = i + 2
    while j < n and j < i + 5 and src[j] in "01234567":
        j += 1
    digits = src[i + 2:j]
    if len(digits) == 3 and digits[0] > "3":
        digits = digits[:2]
        j -= 1
    if not digits:
        raise _BadPattern("illegal octal escape")
    return _lit(chr(int(digits, 8))), j


class _BadPattern(Exception):
    pass


# ------------------------------------------------------------------ compiling

_CACHE: dict[str, object] = {}


def engine():
    """The `regex` package, imported on first use (a program without patterns never loads it)."""
    import regex
    return regex


def _compile_raw(source: str):
    compiled = _CACHE.get(source)
    if compiled is None:
        compiled = engine().compile(_translate(source))
        if len(_CACHE) >= 512:
            _CACHE.clear()
        _CACHE[source] = compiled
    return compiled


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
    except (engine().error, _BadPattern, ValueError, OverflowError, RecursionError) as e:
        msg = str(e).split("\n")[0][:120]
        raise PtcError(kind, f"{lead}{msg}") from None
    return Regex(source, compiled)


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


def split_spans(rx: Regex, s: str, who: str):
    """The (start, end) spans of the successive matches of `rx` in `s`."""
    for mt in iter_matches(rx, s, who):
        yield mt.span()
