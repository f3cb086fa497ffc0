"""Functions the compiler calls instead of a builtin when some of its arguments are literals in the
program (`registry.SPECIALIZERS`): each does exactly the builtin's work for that case (values,
errors, charges) with the tests the literal settles left out, and hands any other case to the
builtin itself.

    (split s " ")     split_on_char       a one-character string separator
    (split s #" ")    split_on_literal    a regex that matches exactly one literal text
    (join "-" coll)   join_on             a string separator

These run once per element in the loops models write, so each charges the meter inline (`_charge`'s
test, written out: the allocation fits and the clock has not run out) and makes its vector without
a call of `Vector.__init__`; anything else goes through `charge`, which raises as it always does.
The meter is the caller's: generated code passes the one of its thread (`registry.THREAD_METER`),
read once per generated function rather than once per call.

Imports registry, regex_engine, values, meter and the strings family.
"""
from __future__ import annotations

from ..patterns import engine as rx
from ..runtime.meter import OBJ, SLOT, str_cost
from ..registry.builtins import THREAD_METER, UNKNOWN, specializer
from ..values import Regex, Vector
from .arguments import charge, out_vec
from .strings import _UNCUT, join, split

_new_vector = Vector.__new__
_STR_COST_0 = str_cost(0)   # str_cost(n) is this plus n


@specializer("split")
def _split_special(s, sep=UNKNOWN, *more):
    """`(split s sep)` with sep a literal one-character string or a literal regex that is plain text."""
    if more:
        return None
    if type(sep) is str and len(sep) == 1:
        return split_on_char, (THREAD_METER,)
    if type(sep) is Regex and sep.source:
        try:
            form = rx.simple_form(sep)
        except Exception:  # noqa: BLE001 - not for this path: split reports it if the call runs
            return None
        if form is not None and form.literal is not None:
            lit = form.literal
            return split_on_literal, (THREAD_METER, lit, 49 - len(lit), len(lit) + OBJ)
    return None


def split_on_char(s, sep, m):
    """`(split s sep)` for a one-character string sep: split's first case, without its tests of sep
    (`m`: the meter of the calling thread, or None)."""
    if type(s) is str and len(s) <= 4096:
        parts = s.split(sep)
        n = len(parts)
        cost = (98 + SLOT) * n + OBJ + len(s)
        if m is None or (a := m.allocated + cost) > m.budget or m.expired:
            charge(cost)
        else:
            m.allocated = a
        if not parts[-1] and n > 1:  # Java's split drops trailing empty pieces
            while parts and parts[-1] == "":
                parts.pop()
        v = _new_vector(Vector)
        v._items = parts
        v._owner = None
        return v
    return split(s, sep)


def split_on_literal(s, sep, m, literal, per_piece, fixed):
    """`(split s sep)` for a regex sep matching exactly the text `literal`: split's case of a known
    literal pattern (strings._split_plain_regex with no limit), in one call. Its charge, each
    piece as a string and then the vector, is `per_piece` (49 - len(literal)) for every piece
    found plus `fixed` (len(literal) + OBJ), the text's length and a slot per piece kept (`m`: the
    meter of the calling thread, or None)."""
    if type(s) is str and len(s) <= _UNCUT:
        parts = s.split(literal)
        n = len(parts)
        if n == 1:
            return out_vec(parts)
        if not parts[-1]:
            while parts and parts[-1] == "":
                parts.pop()
        cost = per_piece * n + len(s) + fixed + SLOT * len(parts)
        if m is None or (a := m.allocated + cost) > m.budget or m.expired:
            charge(cost)
        else:
            m.allocated = a
        v = _new_vector(Vector)
        v._items = parts
        v._owner = None
        return v
    return split(s, sep)


@specializer("join")
def _join_special(*args):
    """`(join sep coll)` with sep a literal string (not `(join coll)`)."""
    if len(args) == 2 and type(args[0]) is str:
        return join_on, (THREAD_METER,)
    return None


def join_on(sep, coll, m):
    """`(join sep coll)` for a string sep: join's case of a vector of strings whose text is short,
    without its tests of sep; every other case is join's (`m`: the meter of the calling thread, or None)."""
    if type(coll) is Vector:
        items = coll._items
        if items:
            try:  # (a number or nil among the items has no length, a vector no place in str.join: join's)
                n = sum(map(len, items)) + len(sep) * (len(items) - 1)
                if n <= 65536:
                    out = sep.join(items)
                    cost = _STR_COST_0 + n   # str_cost(len(out)): n is that length
                    if m is None or (a := m.allocated + cost) > m.budget or m.expired:
                        charge(cost)
                    else:
                        m.allocated = a
                    return out
            except TypeError:
                pass
    return join(sep, coll)
