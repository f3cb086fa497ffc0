"""Decimal text of integers of any size, whatever the interpreter's digit limit.

CPython refuses `str(n)` and `int(text)` beyond `sys.get_int_max_str_digits()`
digits (4,300 by default; a host may set anything from 640 up, or 0 for no
limit). PTC integers may be larger (the meter caps them at about 79,000
digits), and ptclisp must not change that process-wide setting, so the
conversions here split big numbers into pieces every setting allows and
join them (divide and conquer: sub-quadratic, like CPython's own for large
numbers). Small numbers take the plain path. Imports nothing from ptclisp.
"""
from __future__ import annotations

import functools

_PIECE = 512                 # digits: below the smallest limit CPython allows (640)
_SMALL_BITS = _PIECE * 3     # fewer bits than this: fewer than _PIECE digits


@functools.lru_cache(maxsize=64)
def _pow10(k: int) -> int:
    return 10 ** k


def int_text(n: int) -> str:
    """`str(n)` for an int of any size."""
    if n.bit_length() < _SMALL_BITS:
        return str(n)
    try:
        return str(n)
    except ValueError:  # over the interpreter's digit limit
        pass
    if n < 0:
        return "-" + _digits(-n)
    return _digits(n)


def _digits(n: int) -> str:
    if n.bit_length() < _SMALL_BITS:
        return str(n)
    k = (n.bit_length() * 30103 // 100000) // 2  # about half the digits
    hi, lo = divmod(n, _pow10(k))
    return _digits(hi) + _digits(lo).rjust(k, "0")


class _BriefInt(int):
    """An int whose repr and str give its size rather than its digits."""

    __slots__ = ()

    def __repr__(self):
        return f"<an integer of {self.bit_length()} bits>"

    __str__ = __repr__


def brief_ints(x):
    """JSON-like `x` with each int of more than 64 bits replaced by an equal int whose repr is
    short: for libraries that put values into messages (jsonschema), which would otherwise
    fail on the interpreter's digit limit. Returns `x` itself when there is nothing to replace."""
    t = type(x)
    if t is int:
        return _BriefInt(x) if x.bit_length() > 64 else x
    if isinstance(x, dict):
        out = {k: brief_ints(v) for k, v in x.items()}
        return x if all(out[k] is v for k, v in x.items()) else out
    if isinstance(x, (list, tuple)):
        items = [brief_ints(v) for v in x]
        return x if all(a is b for a, b in zip(items, x)) else items
    return x


def text_int(text: str) -> int:
    """`int(text)` for an optional sign and decimal digits of any length (ValueError otherwise)."""
    if len(text) <= _PIECE:
        return int(text)
    body = text.lstrip("+-")
    if len(text) - len(body) > 1 or not body.isascii() or not body.isdigit():
        raise ValueError(f"invalid decimal integer text of {len(text)} characters")
    n = _parse(body)
    return -n if text[0] == "-" else n


def _parse(digits: str) -> int:
    if len(digits) <= _PIECE:
        return int(digits)
    k = len(digits) // 2
    return _parse(digits[:-k]) * _pow10(k) + _parse(digits[-k:])
