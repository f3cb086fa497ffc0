"""Functions the compiler calls instead of a builtin when some of its arguments are literals in the
program (`registry.SPECIALIZERS`): each does exactly the builtin's work for that case (values,
errors, charges) with the tests the literal settles left out, and hands any other case to the
builtin itself.

    (split s " ")     split_on_char       a one-character string separator
    (split s #" ")    split_on_literal    a regex that matches exactly one literal text

Imports registry, regex_engine, values, meter and the strings family.
"""
from __future__ import annotations

from .. import regex_engine as rx
from ..meter import OBJ, SLOT
from ..registry import UNKNOWN, specializer
from ..values import Regex, Vector
from .common import charge, out_vec
from .strings import _UNCUT, split


@specializer("split")
def _split_special(s, sep=UNKNOWN, *more):
    """`(split s sep)` with sep a literal one-character string or a literal regex that is plain text."""
    if more:
        return None
    if type(sep) is str and len(sep) == 1:
        return split_on_char, ()
    if type(sep) is Regex and sep.source:
        try:
            form = rx.simple_form(sep)
        except Exception:  # noqa: BLE001 - not for this path: split reports it if the call runs
            return None
        if form is not None and form.literal is not None:
            return split_on_literal, (form.literal,)
    return None


def split_on_char(s, sep):
    """`(split s sep)` for a one-character string sep: split's first case, without its tests of sep."""
    if type(s) is str and len(s) <= 4096:
        parts = s.split(sep)
        charge((98 + SLOT) * len(parts) + OBJ + len(s))
        if not parts[-1] and len(parts) > 1:  # Java's split drops trailing empty pieces
            while parts and parts[-1] == "":
                parts.pop()
        return Vector(parts)
    return split(s, sep)


def split_on_literal(s, sep, literal):
    """`(split s sep)` for a regex sep matching exactly the text `literal`: split's case of a known
    literal pattern (strings._split_plain_regex with no limit), in one call."""
    if type(s) is str and len(s) <= _UNCUT:
        parts = s.split(literal)
        if len(parts) == 1:
            return out_vec(parts)
        cost = 49 * len(parts) + len(s) - len(literal) * (len(parts) - 1)
        if not parts[-1]:
            while parts and parts[-1] == "":
                parts.pop()
        charge(cost + OBJ + SLOT * len(parts))
        return Vector(parts)
    return split(s, sep)
