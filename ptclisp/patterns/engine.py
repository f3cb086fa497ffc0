"""PTC regular expressions: compiling pattern text and running compiled patterns safely.

Below the reader, the analyzer and the library: the reader and the analyzer
compile `#"..."` literals here, the regex and string builtins compile and run
patterns here.

Patterns are compiled with the `regex` package (version-0 syntax, Unicode
classes). A few Java/PCRE spellings that `regex` lacks are rewritten first:
`\\Q...\\E`, `\\e`, `\\cX`, `\\x{h..}`, `\\0ooo`, `\\k<name>`, `\\z`/`\\Z` (Java
meaning) and `\\v`/`\\V` (vertical whitespace).

Safety (docs/spec/runtime.md §7): patterns are at most 256 UTF-8 bytes and may not expand
past `regex_size.MAX_EXPANSION` once their repeat counts are written out
(checked before the compiler sees them: it cannot be interrupted); the text a
pattern runs over is cut to its first 32,768 UTF-8 bytes (on a code point
boundary); every engine call carries a timeout taken from
`limits.regex_timeout_ms`, never longer than the evaluation has left. A
timeout becomes `type_error` "regex complexity limit exceeded" (or the
evaluation's own `timeout` when the deadline was the binding constraint).
Simple patterns (`simple_form`: `\\s+`, `,\\s*`, `[,;]`, `\\d+`, ...) run on
Python's `re` instead, with the same results, in time provably linear in
the bounded input, so they need no timeout.
Imports errors, meter, values; the `regex` package on the first pattern compiled (`engine()`).
"""
from __future__ import annotations

import re as _re

from ..errors import PtcError
from ..runtime.meter import charge, current, str_cost
from .size import MAX_EXPANSION, too_large
from ..values import Regex, Vector

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


class _TooLarge(_BadPattern):
    """A pattern whose expansion (regex_size) is over the limit: never handed to the compiler."""


# ------------------------------------------------------------------ compiling

_CACHE: dict[str, object] = {}


def engine():
    """The `regex` package, imported on first use (a program without patterns never loads it)."""
    import regex
    return regex


def _compile_raw(source: str):
    compiled = _CACHE.get(source)
    if compiled is None:
        text = _translate(source)
        why = too_large(text)
        if why is not None:
            raise _TooLarge(why)
        compiled = engine().compile(text)
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
    except _TooLarge as e:
        raise PtcError(kind, f"{lead}{e}", details={"limit": "regex_expansion", "value": MAX_EXPANSION}) from None
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


def fast_form(rx: Regex, s: str, nonempty: bool = False, groups: bool = False):
    """The `re` pattern that runs `rx` over `s` in linear time (see `simple_form`), or None; with
    `nonempty`, None also when the pattern can match the empty string (successive matches of
    such a pattern stay on the engine). With `groups`, a simple pattern with capture groups
    (`grouped_form`) is taken too: for callers that read match objects only (search, fullmatch,
    finditer), never `findall` or `split`, which treat groups differently."""
    form = simple_form(rx)
    if form is None and groups:
        form = grouped_form(rx)
    if form is not None and form.whole is not None and (form.any_text or s.isascii()) \
            and not (nonempty and form.empty):
        return form.whole
    return None


def search(rx: Regex, s: str, pos: int, who: str):
    fast = fast_form(rx, s, groups=True)
    if fast is not None:
        return fast.search(s, pos)
    try:
        return rx.compiled.search(s, pos, timeout=_timeout())
    except TimeoutError:
        _timed_out(who)


def fullmatch(rx: Regex, s: str, who: str):
    fast = fast_form(rx, s, groups=True)
    if fast is not None:
        return fast.fullmatch(s)
    try:
        return rx.compiled.fullmatch(s, timeout=_timeout())
    except TimeoutError:
        _timed_out(who)


def iter_matches(rx: Regex, s: str, who: str):
    """Successive matches (Java `find` order, empty matches included)."""
    m = current()
    fast = fast_form(rx, s, nonempty=True, groups=True)
    if fast is not None:
        it = fast.finditer(s)
    else:
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


# ------------------------------------------------------- simple patterns, fast
#
# Models mostly write patterns such as #"\s+", #",\s*", #"[,;]", #"\d+", #"\s*,\s*". On ASCII text
# (`str.isascii()` is a flag test) such a pattern can run on Python's `re` at C speed with the very
# same results: every atom is rewritten as the explicit set of ASCII characters that the engine
# itself matches with it (asked of the engine, so `\s`, `\w`, `.` and bracket classes mean exactly
# what they mean in the general path), and the pattern has no alternation, groups, anchors,
# backreferences or lookaround, so both backtracking engines try the same paths in the same order
# and find the same leftmost, greedy matches.
#
# `re` takes no timeout, so the fast form is limited to patterns whose run time is provably linear
# in the (already bounded, 32 KB) input: only the LAST item may repeat without bound, and for the
# other items (the prefix), the number of combinations of their repeat counts times their greatest
# total width is at most 64. At each start position the engine tries at most those combinations
# of the prefix, each examining at most that width: at most 64 character steps; the last item then
# either fails at its first character or matches greedily and, nothing following it, succeeds at
# once, and the characters it consumed are never examined again (the next search starts after the
# match). A full match (`re-matches`) may give back the last run once per combination: still
# linear. A call therefore takes at most about 64 steps per character of the 32 KB (a few ms
# measured for the worst such patterns): it needs no timeout, just as a str.split does not.
#
# Splitting also takes the shape #"C*R" (a leading unbounded item that may match nothing, then a
# linear R whose first item is required and shares no character with C), e.g. #"\s*,\s*": a match
# of it is R's match extended backwards over the C characters before it (not past the previous
# match), so the pieces are those of splitting around R, each but the last with trailing C
# characters removed (`rstrip`). Running C*R itself on `re` would be quadratic on long runs of C.
#
# `re-find`, `re-matches` and the successive matches (`re-seq`, `replace`, `extract`) also take
# such a pattern with capture groups around runs of its items (`grouped_form`: groups neither
# empty nor repeated, no `(?`): a group changes neither what matches nor the order in which both
# engines try it, so every group's span is the engine's too. Splitting and `findall` never see
# one (Python's `re.split` and `findall` treat groups differently from Java's).
#
# On text that is not ASCII the fast form serves only patterns whose every atom has a known full
# set: literals, `\s` / `\S` (the engine's \s is Unicode White_Space, `_SPACE`), `.` (all but
# \n) and bracket classes of those; `\d` and `\w` (large Unicode sets whose tables differ between
# the two packages) keep such text on the engine. Each known set is checked against the engine
# on every ASCII character and on probes beyond ASCII before it is used.

_ASCII = [chr(c) for c in range(128)]
_ATOMS: dict[str, str] = {}          # atom source -> the ASCII characters the engine matches with it
_SIMPLE: dict[str, object] = {}      # pattern source -> Simple, or None when the pattern is not simple
# known_simple_form(source): the Simple of a pattern source already worked out; None when it is not
# simple or not yet known (simple_form works it out). The cache is only ever cleared in place.
known_simple_form = _SIMPLE.get
_CLASS_ESCAPES = "sSdDwW"
_CHAR_ESCAPES = "tnrf"
_CONTROL = {"t": "\t", "n": "\n", "r": "\r", "f": "\f"}
_MAX_STEPS = 64   # character steps per start position (see _linear)
# what the engine's \s matches: Unicode White_Space (a test compares it with every code point)
_SPACE = frozenset("\t\n\x0b\x0c\r \x85\xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007"
                   "\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000")
_PROBES = "".join(sorted(ch for ch in _SPACE if ord(ch) > 127)) + "\x80\xe9\u0660\u00b2\u200b\u2160\ufeff\U0001f600"


class Simple:
    """The fast forms of a simple pattern.

    `literal`: the text the pattern matches when it is a run of literal characters (valid on any
    text), else None. The rest is valid on ASCII text only: `whole`, a `re` pattern equal to the
    pattern (None for the C*R shape, which only splits); `split`, the `re` pattern whose pieces,
    each but the last stripped of the characters `strip`, are the pieces of splitting around the
    pattern; `empty`, whether the pattern can match the empty string; `any_text`, whether these
    `re` patterns are valid on any text, not just ASCII text.
    """

    __slots__ = ("literal", "whole", "split", "strip", "empty", "any_text")

    def __init__(self, literal, whole, split, strip: str, empty: bool, any_text: bool):
        self.literal, self.whole, self.split, self.strip = literal, whole, split, strip
        self.empty, self.any_text = empty, any_text


def _atom_chars(atom: str) -> str:
    """The ASCII characters that the engine matches with the one-character pattern `atom`."""
    chars = _ATOMS.get(atom)
    if chars is None:
        compiled = _compile_raw(atom)
        chars = "".join(ch for ch in _ASCII if compiled.fullmatch(ch))
        if len(_ATOMS) >= 1024:
            _ATOMS.clear()
        _ATOMS[atom] = chars
    return chars


def _known_set(atom: str):
    """(chars, negated) of the one-character pattern `atom` over all of Unicode (negated: every
    character but `chars`), or None when its set is not known (`\\d`, `\\w` and their kin)."""
    if atom == ".":
        return frozenset("\n"), True
    if atom[0] == "\\":
        d = atom[1]
        if d in "sS":
            return _SPACE, d == "S"
        return (None if d in _CLASS_ESCAPES else (frozenset(_CONTROL.get(d, d)), False))
    if atom[0] != "[":
        return frozenset(atom), False
    body = atom[1:-1]
    negated = body.startswith("^")
    members = _class_members(body[1:] if negated else body)
    return None if members is None else (members, negated)


def _class_members(body: str):
    """The characters a simple bracket class body names (ranges, \\s and escapes), or None."""
    singles: list = []  # each member: a character, or a frozenset for \s
    i = 0
    while i < len(body):
        if body[i] == "\\":
            d = body[i + 1]
            if d in _CLASS_ESCAPES:
                if d != "s":
                    return None
                singles.append(_SPACE)
            else:
                singles.append(_CONTROL.get(d, d))
            i += 2
        elif body[i] == "-" and singles and i + 1 < len(body) and type(singles[-1]) is str:
            lo = singles.pop()
            hi = body[i + 1] if body[i + 1] != "\\" else _CONTROL.get(body[i + 2], body[i + 2])
            if body[i + 1] == "\\" and body[i + 2] in _CLASS_ESCAPES:
                return None
            singles.append(frozenset(map(chr, range(ord(lo), ord(hi) + 1))))
            i += 3 if body[i + 1] == "\\" else 2
        else:
            singles.append(body[i])
            i += 1
    out: set = set()
    for m in singles:
        if type(m) is str:
            out.add(m)
        else:
            out |= m
    return frozenset(out)


def _checked_set(atom: str, ascii_chars: str):
    """`_known_set(atom)` when the engine agrees with it on every ASCII character and on the probes
    beyond ASCII; None otherwise (the pattern then runs fast on ASCII text only)."""
    known = _known_set(atom)
    if known is None:
        return None
    chars, negated = known
    if "".join(ch for ch in _ASCII if (ch in chars) != negated) != ascii_chars:
        return None
    compiled = _compile_raw(atom)
    if any((compiled.fullmatch(ch) is not None) != ((ch in chars) != negated) for ch in _PROBES):
        return None
    return known


def _class_end(src: str, i: int) -> int:
    """Index just after the simple bracket class starting at `src[i]`, or -1 when it is not simple
    (nested classes, intersections, a leading ']', escapes other than class, control and
    punctuation escapes)."""
    j = i + 1
    if j < len(src) and src[j] == "^":
        j += 1
    if j < len(src) and src[j] == "]":
        return -1
    while j < len(src):
        c = src[j]
        if c == "]":
            return j + 1
        if c == "[" or src.startswith("&&", j):
            return -1
        if c == "\\":
            if j + 1 >= len(src) or not _simple_escape(src[j + 1]):
                return -1
            j += 2
        else:
            j += 1
    return -1


def _simple_escape(d: str) -> bool:
    return d in _CLASS_ESCAPES or d in _CHAR_ESCAPES or (d.isascii() and not d.isalnum() and d.isprintable())


def _quantifier(src: str, i: int) -> tuple[int, int | None, int] | None:
    """(min, max or None for unbounded, next index) of the quantifier at `src[i]` (none: 1, 1)."""
    c = src[i] if i < len(src) else ""
    if c in ("*", "+", "?") and c:
        lo, hi, i = (0 if c != "+" else 1), (None if c != "?" else 1), i + 1
    elif c == "{":
        j = src.find("}", i)
        body = src[i + 1:j].split(",") if j > 0 else []
        if not (1 <= len(body) <= 2) or not all(b.isascii() and b.isdigit() and len(b) <= 2 for b in body):
            return None
        lo, hi, i = int(body[0]), int(body[-1]), j + 1
        if hi < lo or hi > 16:
            return None
    else:
        return 1, 1, i
    if i < len(src) and src[i] in "?+{*":  # lazy, possessive or a stacked quantifier
        return None
    return lo, hi, i


def _items(src: str, marks: list | None = None) -> list | None:
    """The pattern as [(ASCII chars, min, max, literal, known set)], or None when it is not made of
    simple items. `literal` is the one character a literal or escaped character matches (None for
    classes and `.`); `known set` is `_checked_set`. With `marks` (a list), capture groups around
    runs of items are allowed too (not empty, not quantified, no `(?`): each of their parentheses
    is appended to `marks` as ("(" or ")", the index of the item it stands before)."""
    if not src.isascii():
        return None
    items = []
    open_at: list = []   # item index of each group still open
    i = 0
    while i < len(src):
        c = src[i]
        lit = None
        if marks is not None and c == "(" and not src.startswith("(?", i):
            open_at.append(len(items))
            marks.append(("(", len(items)))
            i += 1
            continue
        if marks is not None and c == ")" and open_at:
            if open_at.pop() == len(items) or src[i + 1:i + 2] in ("*", "+", "?", "{"):
                return None   # an empty or a repeated group: left to the engine
            marks.append((")", len(items)))
            i += 1
            continue
        if c == "\\":
            if i + 1 >= len(src) or not _simple_escape(src[i + 1]):
                return None
            d = src[i + 1]
            if d not in _CLASS_ESCAPES:
                lit = _CONTROL.get(d, d)
            end = i + 2
        elif c == "[":
            end = _class_end(src, i)
            if end < 0:
                return None
        elif c in "^$|()*+?{}]" or not (c.isprintable() or c in "\t\n\r\f"):
            return None
        else:
            lit = None if c == "." else c
            end = i + 1
        q = _quantifier(src, end)
        if q is None:
            return None
        atom = src[i:end]
        chars = _atom_chars(atom)
        if lit is not None and chars != lit:  # not the literal it looks like: leave it to the engine
            return None
        items.append((chars, q[0], q[1], lit, _checked_set(atom, chars)))
        i = q[2]
    return None if open_at else items


def _linear(items: list) -> bool:
    """Only the last item repeats without bound; the others' combinations of repeat counts times
    their greatest total width is at most 64 (see above)."""
    combos = width = 1
    for _, lo, hi, _, _ in items[:-1]:
        if hi is None:
            return False
        combos *= hi - lo + 1
        width += hi
    return combos * width <= _MAX_STEPS


def _re_source(items: list, any_text: bool, marks: tuple = ()) -> str:
    """The `re` pattern of `items`: each atom as its ASCII characters, or (any_text) its known set;
    with the capture groups' parentheses of `marks` (see `_items`) where they stood."""
    out = []
    m = 0
    for k, (chars, lo, hi, _, known) in enumerate(items):
        while m < len(marks) and marks[m][1] == k:
            out.append(marks[m][0])
            m += 1
        if any_text:
            members, negated = known
            atom = ("[^" if negated else "[") + "".join(map(_re_char, sorted(members))) + "]"
        elif not chars:
            atom = "[^\\x00-\\U0010ffff]"  # an item the engine matches with no ASCII character
        else:
            atom = "[" + "".join(map(_re_char, chars)) + "]"
        if (lo, hi) == (1, 1):
            out.append(atom)
        elif hi is None:
            out.append(atom + ("*" if lo == 0 else "+"))
        else:
            out.append("%s{%d,%d}" % (atom, lo, hi))
    out.extend(mark for mark, _ in marks[m:])
    return "".join(out)


def _re_char(ch: str) -> str:
    return "\\U%08x" % ord(ch)


def simple_form(rx: Regex) -> Simple | None:
    """The fast form of `rx` when it is a simple pattern (see above), else None."""
    source = rx.source
    try:
        return _SIMPLE[source]
    except KeyError:
        pass
    form = None
    items = _items(source) if source else None
    if items:
        literal = None
        if all(it[3] is not None and it[1] == it[2] == 1 for it in items):
            literal = "".join(it[3] for it in items)
        empty = all(it[1] == 0 for it in items)
        any_text = all(it[4] is not None for it in items)
        if _linear(items):
            whole = _re.compile(_re_source(items, any_text))
            form = Simple(literal, whole, whole, "", empty, any_text)
        elif len(items) > 1 and items[0][1] == 0 and items[0][2] is None and _linear(items[1:]) \
                and items[1][1] >= 1 and not set(items[0][0]) & set(items[1][0]):
            c, r = items[0][4], items[1][4]  # C*R on any text: both known, not negated, disjoint
            any_text = any_text and not c[1] and not r[1] and not c[0] & r[0]
            strip = "".join(sorted(c[0])) if any_text else items[0][0]
            form = Simple(None, None, _re.compile(_re_source(items[1:], any_text)), strip, False, any_text)
    return _remember(_SIMPLE, source, form)


def _remember(cache: dict, source: str, form):
    """Store `form` as the form of pattern `source` in `cache` (emptied first when it holds 512) and
    return it."""
    if len(cache) >= 512:
        cache.clear()
    cache[source] = form
    return form


_GROUPED: dict[str, object] = {}     # pattern source -> Simple of a simple pattern with capture groups, or None


def grouped_form(rx: Regex) -> Simple | None:
    """The fast form of `rx` when it is a simple pattern (linear, see above) with capture groups
    around runs of its items, else None. Groups change neither what matches nor the order in
    which both engines try it, so the match and every group's span are the engine's. Only
    `whole` is set (no literal, no split form): see `fast_form`."""
    source = rx.source
    try:
        return _GROUPED[source]
    except KeyError:
        pass
    form = None
    marks: list = []
    items = _items(source, marks) if source and "(" in source else None
    if items and marks and _linear(items):
        any_text = all(it[4] is not None for it in items)
        whole = _re.compile(_re_source(items, any_text, tuple(marks)))
        if whole.groups == rx.compiled.groups:
            form = Simple(None, whole, None, "", all(it[1] == 0 for it in items), any_text)
    return _remember(_GROUPED, source, form)
