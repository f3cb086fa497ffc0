"""How large a regular expression becomes once compiled: an upper bound taken before compiling.

The `regex` package writes a counted repeat out as that many copies of what it
repeats, so `a{10000000}` costs gigabytes and seconds inside the C compiler,
where neither the memory budget nor the hard stop can reach. The byte cap on
pattern text does not bound this (nested counts multiply), so every pattern is
weighed here first (`expansion`), and one heavier than `MAX_EXPANSION` never
reaches the compiler.

The weight counts atoms (a character, an escape, a class) as 1, a group as the
sum of what it holds (all branches of an alternation), and multiplies the item
before a `{n}`, `{n,}`, `{,m}` or `{n,m}` by its largest count (`{n,}` by
n + 1). Where the structure of the text is not certain to be what the compiler
reads (verbose mode, inline comments, version-1 sets, unbalanced parentheses),
the structure is not trusted: the weight is then the length of the text times
the product of every count in it, which bounds any reading of it.
Imports nothing from ptclisp.
"""
from __future__ import annotations

import re as _re

# what one pattern may expand to (~1.3 KB of compiled program each: 10,000 is ~13 MB, ~25 ms)
MAX_EXPANSION = 10_000

_COUNT = _re.compile(r"\{(\d*)(?:(,)(\d*))?\}")
# inline flags that change how the text is read: verbose (x) or version 1 (V1); comments
_UNSURE = _re.compile(r"\(\?[a-zA-Z0-9^-]*[xV]|\(\?#")


def _count(m) -> int | None:
    """The largest number of copies the quantifier `m` (a `_COUNT` match) stands for; None when the
    braces are not a quantifier (read as literal text)."""
    lo, comma, hi = m.group(1), m.group(2), m.group(3)
    if not lo and not hi:
        return None
    if comma is None:
        return int(lo)
    if hi:
        return max(int(hi), int(lo or 0))
    return int(lo) + 1


def _unstructured(src: str) -> int:
    """A bound that holds for any reading of `src`: its length times the product of its counts."""
    weight = max(1, len(src))
    for m in _COUNT.finditer(src):
        n = _count(m)
        if n is not None:
            weight *= max(1, n)
            if weight > MAX_EXPANSION:   # (the product can only grow: stop early, and keep the number small)
                return weight
    return weight


def _class_end(src: str, i: int) -> int:
    """Index after the bracket class that opens at `src[i]` (version-0 syntax: no nested sets)."""
    n = len(src)
    j = i + 1
    if j < n and src[j] == "^":
        j += 1
    if j < n and src[j] == "]":
        j += 1
    while j < n:
        c = src[j]
        if c == "\\":
            j += 2
        elif c == "[" and src.startswith("[:", j) and src.find(":]", j + 2) > 0:
            j = src.find(":]", j + 2) + 2
        elif c == "]":
            return j + 1
        else:
            j += 1
    return n


def _escape_end(src: str, i: int) -> int:
    """Index after the escape that starts at `src[i]` (a backslash); `\\p{..}`, `\\N{..}`, `\\x{..}` whole."""
    j = i + 2
    if j - 1 < len(src) and src[j - 1] in "pPNxXgk" and j < len(src) and src[j] == "{":
        k = src.find("}", j)
        if k > 0:
            return k + 1
    return j


def expansion(src: str) -> int:
    """An upper bound on the compiled size of pattern text `src` (see the module docstring);
    may stop counting once past `MAX_EXPANSION`."""
    if _UNSURE.search(src):
        return _unstructured(src)
    stack: list = []        # (the weight of the enclosing group so far, its last item's weight)
    total, last = 0, 0      # the current group's weight, and the weight of its last item
    i, n = 0, len(src)
    while i < n:
        c = src[i]
        if c == "{":
            m = _COUNT.match(src, i)
            k = _count(m) if m else None
            if k is not None:
                total += last * (k - 1)
                last *= k
                if total > MAX_EXPANSION:
                    return total
                i = m.end()
                continue
            w, i = 1, i + 1
        elif c == "\\":
            w, i = 1, _escape_end(src, i)
        elif c == "[":
            w, i = 1, _class_end(src, i)
        elif c == "(":
            stack.append((total, last))
            total, last = 0, 0
            i += 1
            continue
        elif c == ")":
            if not stack:
                return _unstructured(src)
            g = max(1, total)
            total, last = stack.pop()
            w, i = g, i + 1
        elif c in "|*+?":
            i += 1
            continue
        else:
            w, i = 1, i + 1
        total += w
        last = w
    if stack:
        return _unstructured(src)
    return total


def too_large(src: str) -> str | None:
    """Why pattern text `src` may not be compiled (its expansion is over the limit), or None."""
    w = expansion(src)
    if w > MAX_EXPANSION:
        return (f"its repeat counts expand it past the regex expansion limit of {MAX_EXPANSION} units "
                f"(large and nested {{n}} counts multiply)")
    return None
