"""Math builtins (docs/spec/functions.md §6): abs, min/max, rounding to integers, int and
double conversion, sqrt, pow and the bitwise operations. `quot` sits with
`rem`/`mod` in numbers.py.

Rounding functions return integers; NaN and the infinities pass through
them unchanged. `pow` follows the JVM's Math.pow special cases and never
raises. Bit operations are the JVM's 64-bit ones (GAP-S52, GAP-S142): their
arguments must fit in a signed 64-bit integer, a bit index or shift count is
taken modulo 64, and results wrap around to 64 bits.
Imports errors, values, lib.numbers, registry.
"""
from __future__ import annotations

import math
import operator as _operator

from ..errors import PtcError
from ..values import type_name
from .numbers import INF, NAN, _is_num, _not_num, _tof
from ..registry.builtins import builtin

_isinf = math.isinf
_trunc = math.trunc


# ------------------------------------------------------------------ §6 math functions

@builtin("abs", "(abs x)", groups=("core",), category="math")
def abs_(x):
    """The absolute value of a number; -Infinity gives Infinity. Integers of any size.

    (abs -5) ;=> 5
    (abs -2.5) ;=> 2.5
    """
    t = type(x)
    if t is int or t is float:
        return abs(x)
    raise _not_num("abs", x)


def _extreme(who, x, more, pick_later):
    if not more:
        return x  # one argument comes back as it is
    if not _is_num(x):
        raise _not_num(who, x)
    acc = x
    nan = x != x
    for y in more:
        t = type(y)
        if t is not int and t is not float:
            raise _not_num(who, y)
        if y != y:
            nan = True
        elif pick_later(acc, y):
            acc = y
    return NAN if nan else acc


@builtin("max", "(max x)", "(max x y & more)", groups=("core",), category="math")
def max_(x, *more):
    """The largest of the numbers; NaN anywhere gives NaN. A single argument is returned unchanged. Non-numbers
    are a type_error (use max-by or sort for other values).

    (max 1 5 3) ;=> 5
    (max 1 2.5) ;=> 2.5
    """
    return _extreme("max", x, more, lambda acc, y: not acc > y)


@builtin("min", "(min x)", "(min x y & more)", groups=("core",), category="math")
def min_(x, *more):
    """The smallest of the numbers; NaN anywhere gives NaN. A single argument is returned unchanged. Non-numbers
    are a type_error.

    (min 1 5 3) ;=> 1
    (min -1 -1.5) ;=> -1.5
    """
    return _extreme("min", x, more, lambda acc, y: not acc < y)


def _whole(x, who, fn):
    t = type(x)
    if t is int:
        return x
    if t is float:
        if x != x or _isinf(x):
            return x  # NaN and the infinities pass through
        return fn(x)
    raise _not_num(who, x)


def _round_half_away(x: float) -> int:
    t = _trunc(x)
    if abs(x - t) >= 0.5:
        t += 1 if x > 0 else -1
    return t


@builtin("floor", "(floor x)", category="math")
def floor(x):
    """The greatest integer not above x, as an integer. NaN and the infinities come back unchanged. (Math/floor
    gives a float instead.)

    (floor 3.7) ;=> 3
    (floor -3.2) ;=> -4
    """
    return _whole(x, "floor", math.floor)


@builtin("ceil", "(ceil x)", category="math")
def ceil(x):
    """The least integer not below x, as an integer. NaN and the infinities come back unchanged.

    (ceil 3.2) ;=> 4
    (ceil -3.7) ;=> -3
    """
    return _whole(x, "ceil", math.ceil)


@builtin("round", "(round x)", category="math")
def round_(x):
    """The nearest integer to x; halves round away from zero. NaN and the infinities come back unchanged.
    (Math/round rounds halves up instead.)

    (round 3.5) ;=> 4
    (round -2.5) ;=> -3
    (round 2.4) ;=> 2
    """
    return _whole(x, "round", _round_half_away)


@builtin("trunc", "(trunc x)", category="math")
def trunc(x):
    """x with its fractional part dropped (toward zero), as an integer. NaN and the infinities come back
    unchanged.

    (trunc 3.7) ;=> 3
    (trunc -3.7) ;=> -3
    """
    return _whole(x, "trunc", _trunc)


@builtin("double", "(double x)", groups=("core",), aliases=("float",), category="math")
def double(x):
    """The number as a float (integers too large for a double become ±Infinity). `float` is the same function.

    (double 5) ;=> 5.0
    (float 1) ;=> 1.0
    """
    t = type(x)
    if t is float:
        return x
    if t is int:
        return _tof(x)
    raise _not_num("double", x)


_INT_MIN = -(1 << 31)
_INT_MAX = (1 << 31) - 1


@builtin("int", "(int x)", groups=("core",), category="math")
def int_(x):
    r"""Truncates a number toward zero to an integer that must fit in 32 bits (otherwise an arithmetic_error; the
    infinities too). NaN gives 0. A one-character string gives its code point.

    (int 3.7) ;=> 3
    (int -3.7) ;=> -3
    (int \A) ;=> 65
    (int 2147483648) ;!! arithmetic_error
    """
    return _truncated_within(x, "int", _INT_MIN, _INT_MAX, "a 32-bit int")


_LONG_MIN = -(1 << 63)
_LONG_MAX = (1 << 63) - 1


@builtin("long", "(long x)", groups=("core",), category="math")
def long_(x):
    r"""Truncates a number toward zero to an integer that must fit in 64 bits (otherwise an arithmetic_error; the
    infinities too). NaN gives 0. A one-character string gives its code point.

    (long 3.7) ;=> 3
    (long -3.7) ;=> -3
    (long \A) ;=> 65
    """
    return _truncated_within(x, "long", _LONG_MIN, _LONG_MAX, "a 64-bit long")


def _truncated_within(x, who: str, lo: int, hi: int, width: str) -> int:
    """`int` and `long`: a number truncated toward zero, which must lie in [lo, hi] (`width` names
    that range in the error); NaN gives 0, a one-character string its code point."""
    t = type(x)
    if t is str:
        if len(x) == 1:
            return ord(x)
        raise PtcError("type_error", f"{who}: expected a number or a single character, got a string of length {len(x)}")
    if t is not int and t is not float:
        raise _not_num(who, x)
    if x != x:
        return 0
    if x < lo or x > hi:
        shown = x if t is float or x.bit_length() < 128 else "a large integer"
        raise PtcError("arithmetic_error", f"{who}: value out of range for {width}: {shown}")
    return _trunc(x) if t is float else x


@builtin("num", "(num x)", groups=("core",), category="math")
def num(x):
    """x itself when it is a number; anything else is a type_error.

    (num 3) ;=> 3
    (num 2.5) ;=> 2.5
    """
    if not _is_num(x):
        raise _not_num("num", x)
    return x


@builtin("char", "(char x)", groups=("core",), category="math")
def char(x):
    r"""The character (a one-character string) with code point x; a character is returned as it is.

    (char 97) ;=> \a
    (char \a) ;=> \a
    """
    t = type(x)
    if t is str and len(x) == 1:
        return x
    if t is float and x == x and abs(x) != math.inf:
        x = _trunc(x)
        t = int
    if t is not int:
        raise PtcError("type_error", f"char: expected a code point or a character, got {type_name(x)}")
    if not 0 <= x <= 0x10FFFF or 0xD800 <= x <= 0xDFFF:
        raise PtcError("arithmetic_error", f"char: value out of range for a character: {x}")
    return chr(x)


@builtin("sqrt", "(sqrt x)", category="math")
def sqrt(x):
    """The square root as a float; a negative number gives NaN.

    (sqrt 16) ;=> 4.0
    (sqrt -1) ;=> ##NaN
    """
    if not _is_num(x):
        raise _not_num("sqrt", x)
    f = _tof(x)
    if f < 0:
        return NAN
    return math.sqrt(f)


def java_pow(x: float, y: float) -> float:
    """Math.pow with the JVM's special cases; never raises."""
    if y == 0:
        return 1.0
    if x != x or y != y:
        return NAN
    if _isinf(y) and abs(x) == 1:
        return NAN
    try:
        return math.pow(x, y)
    except ValueError:
        if x == 0:  # zero to a negative power
            odd = y == _trunc(y) and _trunc(y) % 2 == 1
            return -INF if (odd and math.copysign(1.0, x) < 0) else INF
        return NAN  # negative base, non-integer exponent
    except OverflowError:
        odd = y == _trunc(y) and _trunc(y) % 2 == 1
        return -INF if (x < 0 and odd) else INF


@builtin("pow", "(pow x y)", category="math")
def pow_(x, y):
    """x raised to the power y as a float, with the JVM's Math.pow rules for zero, NaN and the infinities; it
    never raises.

    (pow 2 3) ;=> 8.0
    (pow 2 -1) ;=> 0.5
    (pow -8 (/ 1 3)) ;=> ##NaN
    """
    if not (_is_num(x) and _is_num(y)):
        raise _not_num("pow", x, y)
    return java_pow(_tof(x), _tof(y))


# ------------------------------------------------------------------ bitwise (§6; 8.4.1)
# Clojure's bit operations take longs only (a BigInt or a double is an IllegalArgumentException)
# and compute as Java does: shift counts and bit indexes are masked to their low 6 bits, and a
# result wraps around to 64 bits (so (bit-shift-left 1 63) is the most negative long).

_LONG_MIN, _LONG_MAX = -(1 << 63), (1 << 63) - 1
_MASK = (1 << 64) - 1


def _ints(who, args):
    for a in args:
        if type(a) is not int:
            raise PtcError("type_error", f"{who}: expected integers, got {'float' if type(a) is float else type_name(a)}")
        if not _LONG_MIN <= a <= _LONG_MAX:
            raise PtcError("type_error", f"{who}: bit operations work on 64-bit integers; "
                                         f"{a if a.bit_length() < 200 else 'an integer'} is out of range")


def _index(n, who: str) -> int:
    """A shift count or bit index: a 64-bit integer, of which Java uses the low 6 bits."""
    if type(n) is not int:
        raise PtcError("type_error", f"{who}: expected an integer bit index, got "
                                     f"{'float' if type(n) is float else type_name(n)}")
    _ints(who, (n,))
    return n & 63


def _wrap(r: int) -> int:
    """r as a signed 64-bit integer (two's complement wrap-around)."""
    if _LONG_MIN <= r <= _LONG_MAX:
        return r
    r &= _MASK
    return r - (1 << 64) if r > _LONG_MAX else r


def _bitwise(who: str, op, x, y, more: tuple) -> int:
    """`op` folded left over two or more 64-bit integers, all checked first."""
    _ints(who, (x, y) + more)
    r = op(x, y)
    for z in more:
        r = op(r, z)
    return r


@builtin("bit-and", "(bit-and x y & more)", groups=("core",), category="math")
def bit_and(x, y, *more):
    """Bitwise AND of two or more 64-bit integers.

    (bit-and 12 10) ;=> 8
    """
    return _bitwise("bit-and", _operator.and_, x, y, more)


@builtin("bit-or", "(bit-or x y & more)", groups=("core",), category="math")
def bit_or(x, y, *more):
    """Bitwise OR of two or more 64-bit integers.

    (bit-or 12 10) ;=> 14
    """
    return _bitwise("bit-or", _operator.or_, x, y, more)


@builtin("bit-xor", "(bit-xor x y & more)", groups=("core",), category="math")
def bit_xor(x, y, *more):
    """Bitwise exclusive OR of two or more 64-bit integers.

    (bit-xor 12 10) ;=> 6
    """
    return _bitwise("bit-xor", _operator.xor, x, y, more)


@builtin("bit-and-not", "(bit-and-not x y & more)", groups=("core",), category="math")
def bit_and_not(x, y, *more):
    """x with every bit that is set in any later argument cleared (x AND NOT y ...).

    (bit-and-not 15 9) ;=> 6
    """
    return _bitwise("bit-and-not", _and_not, x, y, more)


def _and_not(x: int, y: int) -> int:
    return x & ~y


@builtin("bit-not", "(bit-not x)", groups=("core",), category="math")
def bit_not(x):
    """The bitwise complement of a 64-bit integer (two's complement: -x - 1).

    (bit-not 0) ;=> -1
    (bit-not 7) ;=> -8
    """
    _ints("bit-not", (x,))
    return ~x


@builtin("bit-shift-left", "(bit-shift-left x n)", groups=("core",), category="math")
def bit_shift_left(x, n):
    """x shifted left by n bits, as a 64-bit integer: n is taken modulo 64 and the result wraps around.

    (bit-shift-left 1 4) ;=> 16
    (bit-shift-left 1 63) ;=> -9223372036854775808
    (bit-shift-left 1 64) ;=> 1
    """
    _ints("bit-shift-left", (x,))
    return _wrap(x << _index(n, "bit-shift-left"))


@builtin("bit-shift-right", "(bit-shift-right x n)", groups=("core",), category="math")
def bit_shift_right(x, n):
    """x shifted right by n bits (n modulo 64), keeping the sign (arithmetic shift).

    (bit-shift-right 256 4) ;=> 16
    (bit-shift-right -16 2) ;=> -4
    """
    _ints("bit-shift-right", (x,))
    return x >> _index(n, "bit-shift-right")


@builtin("unsigned-bit-shift-right", "(unsigned-bit-shift-right x n)", groups=("core",), category="math")
def unsigned_bit_shift_right(x, n):
    """x shifted right by n bits (n modulo 64), filling with zeros: x is read as an unsigned 64-bit number
    (Java's >>>).

    (unsigned-bit-shift-right 256 4) ;=> 16
    (unsigned-bit-shift-right -1 60) ;=> 15
    """
    _ints("unsigned-bit-shift-right", (x,))
    return _wrap((x & _MASK) >> _index(n, "unsigned-bit-shift-right"))


@builtin("bit-set", "(bit-set x n)", groups=("core",), category="math")
def bit_set(x, n):
    """x with bit n (n modulo 64) set.

    (bit-set 0 3) ;=> 8
    """
    _ints("bit-set", (x,))
    return _wrap(x | (1 << _index(n, "bit-set")))


@builtin("bit-clear", "(bit-clear x n)", groups=("core",), category="math")
def bit_clear(x, n):
    """x with bit n (n modulo 64) cleared.

    (bit-clear 15 1) ;=> 13
    """
    _ints("bit-clear", (x,))
    return _wrap(x & ~(1 << _index(n, "bit-clear")))


@builtin("bit-flip", "(bit-flip x n)", groups=("core",), category="math")
def bit_flip(x, n):
    """x with bit n (n modulo 64) inverted.

    (bit-flip 0 2) ;=> 4
    (bit-flip 4 2) ;=> 0
    """
    _ints("bit-flip", (x,))
    return _wrap(x ^ (1 << _index(n, "bit-flip")))


@builtin("bit-test", "(bit-test x n)", groups=("core",), category="math")
def bit_test(x, n):
    """True when bit n (n modulo 64) of x is set.

    (bit-test 5 0) ;=> true
    (bit-test 5 1) ;=> false
    """
    _ints("bit-test", (x,))
    return (x >> _index(n, "bit-test")) & 1 == 1
