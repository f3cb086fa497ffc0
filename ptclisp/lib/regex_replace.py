"""The replacement side of `replace` with a regex (docs/spec/functions.md §3): Java's replacement syntax
(`$n`, `${name}`, backslash escapes) and the `re.subn` path for simple patterns.

Split from lib/strings.py, whose `replace` and `_regex_replace` use them.
Imports errors, values, lib.arguments.
"""
from __future__ import annotations

from ..errors import PtcError
from ..values import Regex
from .arguments import charge


def java_replacement(r: str, rxv: Regex, who: str) -> list:
    """Parse a regex replacement string: `$n`, `${name}`, `\\x` escapes (Java rules)."""
    comp = rxv.compiled
    ngroups = comp.groups
    parts: list = []
    lit: list[str] = []
    i, n = 0, len(r)
    while i < n:
        c = r[i]
        if c == "\\":
            i += 1
            if i >= n:
                raise PtcError("runtime_error", f"{who}: replacement ends with a lone backslash")
            lit.append(r[i])
            i += 1
        elif c == "$":
            i += 1
            if i >= n:
                raise PtcError("runtime_error", f"{who}: replacement has '$' without a group number")
            if r[i] == "{":
                j = r.find("}", i + 1)
                name = r[i + 1:j] if j > 0 else ""
                if j < 0 or not name or not name.isascii() or not name.isalnum():
                    raise PtcError("runtime_error", f"{who}: malformed ${{name}} group reference in replacement")
                g = comp.groupindex.get(name)
                if g is None:
                    raise PtcError("runtime_error", f"{who}: no group named {name!r} in the pattern")
                i = j + 1
            else:
                if not ("0" <= r[i] <= "9"):
                    raise PtcError("runtime_error", f"{who}: illegal group reference in replacement (use \\$ for a literal $)")
                g = ord(r[i]) - 48
                i += 1
                while i < n and "0" <= r[i] <= "9":
                    g2 = g * 10 + ord(r[i]) - 48
                    if g2 > ngroups:
                        break
                    g = g2
                    i += 1
                if g > ngroups:
                    raise PtcError("runtime_error", f"{who}: replacement refers to group {g}, the pattern has {ngroups}")
            if lit:
                parts.append("".join(lit))
                lit = []
            parts.append(g)
        else:
            lit.append(c)
            i += 1
    if lit:
        parts.append("".join(lit))
    return parts


def replace_simple(text: str, fast, parts: list) -> str:
    """`_regex_replace` with a replacement string and a simple pattern (no groups, no empty match)
    by `re.subn` at C speed. The general path charges each gap and replacement,
    then the tail: 49 per piece plus the result's length. With a short replacement the result is
    at most 4x the (bounded) text, built and then charged; longer ones count the matches first
    and charge before building."""
    lit = k = 0
    template = []
    for p in parts:
        if type(p) is str:
            lit += len(p)
            template.append(p.replace("\\", "\\\\"))
        else:  # $0, the only group a simple pattern has
            k += 1
            template.append("\\g<0>")
    template = "".join(template)
    if lit + k > 3:
        rest, n = fast.subn("", text)
        if n == 0:
            return text
        charge(49 * (n + 1) + len(rest) + n * lit + k * (len(text) - len(rest)))
        return fast.sub(template, text)
    out, n = fast.subn(template, text)
    if n == 0:
        return text
    charge(49 * (n + 1) + len(out))
    return out
