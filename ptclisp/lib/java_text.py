"""Java-named numbers and strings: the `java.lang` half of the interop surface.

Owns the Java failure conditions (`java_type_error`, `java_domain_error`,
`invalid_java_string`), the parameter checks of Java members (`need_java_int`,
`need_java_long`, `need_java_double`: the coercions Java overloads apply to PTC
numbers; `need_java_string`, `need_java_text`), the UTF-16 view of strings used by
the `java.lang.String` methods, the Java number parsers (`Integer/parseInt`,
`Long/parseLong`, `Double/parseDouble`, `Float/parseFloat`,
`Boolean/parseBoolean`) and the `java.lang.Math` members.

Everything here follows the Java contract (docs/spec/language.md §1, rule 3): string searches
answer -1, bad input raises a Java condition instead of returning nil.
`lib.java` admits the members into the Java-interop table. Imports values, errors, meter.
"""
from __future__ import annotations

import math
import struct
import unicodedata

from ..errors import PtcError, brief_int
from ..runtime.meter import current, str_cost
from ..values import type_name
from .arguments import LazyPattern

INT_MIN, INT_MAX = -(1 << 31), (1 << 31) - 1
LONG_MIN, LONG_MAX = -(1 << 63), (1 << 63) - 1
MAX_VIEW_BYTES = 256_000


# ------------------------------------------------------------------ conditions

def _show(x, limit: int = 40) -> str:
    """A short, safe rendering of an offending argument for messages."""
    if type(x) is str:
        s = x if len(x) <= limit else x[:limit] + "..."
        return '"' + s.replace("\\", "\\\\").replace('"', '\\"') + '"'
    if x is None:
        return "nil"
    t = type(x)
    if t is bool:
        return "true" if x else "false"
    if t is int:
        s = str(x) if x.bit_length() < 200 else "<large integer>"
        return s
    if t is float:
        return repr(x)
    return type_name(x)


def java_type_error(who: str, message: str, **details) -> PtcError:
    return PtcError("java_type_error", f"{who}: {message}", details=details or None)


def java_domain_error(who: str, exception: str, message: str, **details) -> PtcError:
    details["java_exception"] = exception
    return PtcError("java_domain_error", f"{who}: {exception}: {message}", details=details)


def null_pointer(who: str, what: str = "argument") -> PtcError:
    return java_domain_error(who, "NullPointerException", f"the {what} is nil (Java null)")


def invalid_java_string(who: str, message: str, reason: str) -> PtcError:
    return PtcError("invalid_java_string", f"{who}: {message}",
                    details={"java_exception": "invalid_java_string", "reason": reason})


def arg_type_error(who: str, expected: str, got, position: str = "argument") -> PtcError:
    return java_type_error(who, f"{position} must be {expected}, got {type_name(got)} {_show(got)}",
                           expected=expected, actual=type_name(got))


# ------------------------------------------------------------------ coercions

def need_java_int(x, who: str) -> int:
    """A Java `int` parameter: 32-bit integers; floats truncate (NaN -> 0, infinities rejected)."""
    return _need_java_integer(x, who, INT_MIN, INT_MAX, "int")


def need_java_long(x, who: str) -> int:
    """A Java `long` parameter: 64-bit integers; floats truncate (NaN -> 0, infinities rejected)."""
    return _need_java_integer(x, who, LONG_MIN, LONG_MAX, "long")


def _need_java_integer(x, who: str, lo: int, hi: int, java_type: str) -> int:
    """An integer parameter of Java type `java_type`, whose range is [lo, hi]."""
    t = type(x)
    if t is float:
        if x != x:
            return 0
        if not math.isinf(x) and lo <= math.trunc(x) <= hi:
            return math.trunc(x)
    elif t is int:
        if lo <= x <= hi:
            return x
    else:
        raise arg_type_error(who, f"an integer (Java {java_type})", x)
    raise java_type_error(who, f"{_show(x)} does not fit a Java {java_type}", expected=java_type, actual="number")


def need_java_double(x, who: str) -> float:
    """A Java `double` parameter: floats as is, long-range integers widened."""
    t = type(x)
    if t is float:
        return x
    if t is int:
        if LONG_MIN <= x <= LONG_MAX:
            return float(x)
        raise java_type_error(who, f"{_show(x)} is outside the Java long range", expected="double",
                              actual="number")
    raise arg_type_error(who, "a number (Java double)", x)


# ------------------------------------------------------------------ UTF-16 views

_ASTRAL = LazyPattern("[\U00010000-\U0010FFFF]")


def _split_pair(m) -> str:
    c = ord(m.group()) - 0x10000
    return chr(0xD800 + (c >> 10)) + chr(0xDC00 + (c & 0x3FF))


def need_java_view(s: str, who: str) -> str:
    """Validate a string handed to a Java String method (size and well-formedness)."""
    if s.isascii():
        if len(s) > MAX_VIEW_BYTES:
            raise invalid_java_string(who, f"string of {len(s)} bytes exceeds the {MAX_VIEW_BYTES}-byte "
                                           "limit of Java String views", "too_large")
        return s
    if len(s) > MAX_VIEW_BYTES:
        raise invalid_java_string(who, f"string exceeds the {MAX_VIEW_BYTES}-byte limit of Java String views",
                                  "too_large")
    try:
        n = len(s.encode("utf-8"))
    except UnicodeEncodeError:
        raise invalid_java_string(who, "string contains an unpaired surrogate", "invalid_utf8") from None
    if n > MAX_VIEW_BYTES:
        raise invalid_java_string(who, f"string of {n} bytes exceeds the {MAX_VIEW_BYTES}-byte limit of "
                                       "Java String views", "too_large")
    return s


def u16(s: str) -> str:
    """`s` with every supplementary character split into its two surrogate code units.

    Python indexes, lengths and searches on the result count UTF-16 code
    units, exactly like Java's String.
    """
    if s.isascii() or _ASTRAL.search(s) is None:
        return s
    return _ASTRAL.sub(_split_pair, s)


def from_u16(v: str, who: str) -> str:
    """Rejoin surrogate pairs of a UTF-16 view; a lone surrogate is an error."""
    if v.isascii():
        return v
    try:
        return v.encode("utf-16-be", "surrogatepass").decode("utf-16-be")
    except UnicodeDecodeError:
        raise invalid_java_string(who, "the slice would split a surrogate pair (a character outside the "
                                       "Basic Multilingual Plane)", "unpaired_surrogate") from None


def need_java_string(x, who: str, what: str = "argument") -> str:
    """A Java String parameter: a string within the view limits (nil is a NullPointerException)."""
    if type(x) is str:
        return need_java_view(x, who)
    if x is None:
        raise null_pointer(who, what)
    raise arg_type_error(who, "a string", x, what)


def need_java_text(x, who: str) -> str:
    """A text parameter of a date/time parser: a string (nil is a NullPointerException)."""
    if x is None:
        raise null_pointer(who, "text")
    if type(x) is not str:
        raise arg_type_error(who, "a string", x)
    return x


# ------------------------------------------------------------------ String methods
_NO_ARG = object()

# Each takes the receiver first; the receiver class was checked by the dispatcher.

def _needle(x, who: str) -> str | None:
    """The search argument as a UTF-16 view: a string, or an integer code point (GAP-J05).

    None means "can never be found" (a negative or surrogate code point, or one past U+10FFFF)."""
    if type(x) is int:
        if not INT_MIN <= x <= INT_MAX:
            raise java_type_error(who, f"{_show(x)} does not fit a Java int", expected="int", actual="number")
        if 0 <= x < 0xD800 or 0xE000 <= x <= 0x10FFFF:
            return u16(chr(x))
        return None
    return u16(need_java_string(x, who))


def s_index_of(s, sub, from_index=_NO_ARG):
    who = ".indexOf"
    need_java_view(s, who)
    w = _needle(sub, who)
    start = 0 if from_index is _NO_ARG else need_java_int(from_index, who)
    if w is None:
        return -1
    v = u16(s)
    n = len(v)
    if start < 0:
        start = 0
    if start >= n:
        return n if not w else -1
    return v.find(w, start)


def s_last_index_of(s, sub, from_index=_NO_ARG):
    who = ".lastIndexOf"
    need_java_view(s, who)
    w = _needle(sub, who)
    start = None if from_index is _NO_ARG else need_java_int(from_index, who)
    if w is None:
        return -1
    v = u16(s)
    if start is None:
        return v.rfind(w)
    if start < 0:
        return -1
    start = min(start, len(v) - len(w))
    if start < 0:
        return -1
    return v.rfind(w, 0, start + len(w))


def s_starts_with(s, prefix, offset=_NO_ARG):
    who = ".startsWith"
    need_java_view(s, who)
    p = need_java_string(prefix, who)
    if offset is _NO_ARG:
        return s.startswith(p)
    k = need_java_int(offset, who)
    v, w = u16(s), u16(p)
    if k < 0 or k > len(v) - len(w):
        return False
    return v.startswith(w, k)


def s_ends_with(s, suffix):
    who = ".endsWith"
    need_java_view(s, who)
    return s.endswith(need_java_string(suffix, who))


def s_contains(s, sub):
    who = ".contains"
    need_java_view(s, who)
    return need_java_string(sub, who) in s


def s_length(s):
    need_java_view(s, ".length")
    if s.isascii():
        return len(s)
    return len(s) + len(_ASTRAL.findall(s))


def s_substring(s, begin, end=_NO_ARG):
    who = ".substring"
    need_java_view(s, who)
    b = need_java_int(begin, who)
    v = u16(s)
    n = len(v)
    e = n if end is _NO_ARG else need_java_int(end, who)
    if b < 0 or e > n or b > e:
        raise java_domain_error(who, "StringIndexOutOfBoundsException",
                                f"begin {brief_int(b)}, end {brief_int(e)}, length {n}", begin=b, end=e, length=n)
    current().alloc(str_cost(e - b))
    return from_u16(v[b:e], who)


_JAVA_WS = "".join(chr(i) for i in range(0x21))


def s_trim(s):
    need_java_view(s, ".trim")
    out = s.strip(_JAVA_WS)
    current().alloc(str_cost(len(out)))
    return out


# ------------------------------------------------------------------ integer parsing

def _java_digit(ch: str, radix: int) -> int:
    """Character.digit(ch, radix) on one UTF-16 unit (BMP decimal digits and Latin letters)."""
    c = ord(ch)
    if 48 <= c <= 57:
        d = c - 48
    elif 97 <= c <= 122 or 65 <= c <= 90:
        d = (c | 32) - 87
    elif 0xFF21 <= c <= 0xFF3A or 0xFF41 <= c <= 0xFF5A:  # fullwidth Latin letters
        d = (c - 0xFF21 if c <= 0xFF3A else c - 0xFF41) + 10
    elif c >= 0x10000:
        return -1
    else:
        d = unicodedata.decimal(ch, -1)
    return d if d < radix else -1


def parse_integral(x, who: str, lo: int, hi: int, radix=10) -> int:
    if type(radix) is not int:
        raise arg_type_error(who, "an integer radix", radix, "radix")
    if not 2 <= radix <= 36:
        raise java_domain_error(who, "NumberFormatException", f"radix {_show(radix)} is outside 2..36")
    if x is None:
        raise java_domain_error(who, "NumberFormatException", "cannot parse nil (Java null)")
    if type(x) is not str:
        raise arg_type_error(who, "a string", x)
    s = x
    i, sign = 0, 1
    if s[:1] in ("-", "+"):
        sign = -1 if s[0] == "-" else 1
        i = 1
    if i >= len(s):
        raise java_domain_error(who, "NumberFormatException", f"for input string {_show(s)}", input=s[:40])
    limit = -lo if sign < 0 else hi
    acc = 0
    for ch in s[i:]:
        d = _java_digit(ch, radix)
        if d < 0:
            raise java_domain_error(who, "NumberFormatException", f"for input string {_show(s)}"
                                    + (f" under radix {radix}" if radix != 10 else ""), input=s[:40])
        acc = acc * radix + d
        if acc > limit:
            raise java_domain_error(who, "NumberFormatException",
                                    f"for input string {_show(s)} (out of range)", input=s[:40])
    return sign * acc


def parse_int(x, radix=10):
    return parse_integral(x, "Integer/parseInt", INT_MIN, INT_MAX, radix)


def parse_long(x, radix=10):
    return parse_integral(x, "Long/parseLong", LONG_MIN, LONG_MAX, radix)


def parse_boolean(x):
    if x is None:
        return False
    if type(x) is not str:
        raise arg_type_error("Boolean/parseBoolean", "a string or nil", x)
    return len(x) == 4 and x.lower() == "true"


# ------------------------------------------------------------------ floating parsing

_DEC = LazyPattern(r"([+-]?)(?:([0-9]+)(?:\.([0-9]*))?|\.([0-9]+))(?:[eE]([+-]?[0-9]+))?[fFdD]?\Z")
_HEX = LazyPattern(r"([+-]?)0[xX](?:([0-9a-fA-F]+)(?:\.([0-9a-fA-F]*))?|\.([0-9a-fA-F]+))"
                  r"[pP]([+-]?[0-9]+)[fFdD]?\Z")
_SPECIAL = {"NaN": math.nan, "+NaN": math.nan, "-NaN": math.nan,
            "Infinity": math.inf, "+Infinity": math.inf, "-Infinity": -math.inf}
_FLT_MAX = struct.unpack(">f", bytes.fromhex("7f7fffff"))[0]


def _f32(d: float) -> float:
    """Round a double to the nearest float32 (ties to even), as a double."""
    try:
        return struct.unpack("f", struct.pack("f", d))[0]
    except OverflowError:
        return math.copysign(math.inf, d)


def _f32_bits(f: float) -> int:
    return struct.unpack(">I", struct.pack(">f", f))[0]


def _f32_next(f: float, up: bool) -> float:
    """The float32 neighbour of a non-negative float32 `f` (2**128 stands for overflow)."""
    bits = _f32_bits(f)
    bits = bits + 1 if up else bits - 1
    if bits >= 0x7F800000:
        return 2.0 ** 128
    return struct.unpack(">f", struct.pack(">I", bits))[0]


def _round_f32(mag: float, cmp_exact) -> float:
    """float32 nearest to the exact non-negative value whose nearest double is `mag`.

    `cmp_exact(d)` compares the exact value with the double `d` (-1/0/1). Rounding
    through the double is wrong only when the double lands exactly on a float32
    midpoint; those cases are settled against the exact value.
    """
    if mag == 0 or math.isinf(mag):
        return mag
    f = _f32(mag)
    if f == mag:
        return f
    if math.isinf(f) or f > mag:
        hi = 2.0 ** 128 if math.isinf(f) else f
        lo = _FLT_MAX if math.isinf(f) else _f32_next(f, False)
    else:
        lo, hi = f, _f32_next(f, True)
    if mag == (lo + hi) / 2:
        c = cmp_exact(mag)
        if c > 0:
            f = hi
        elif c < 0:
            f = lo
    return math.inf if f >= 2.0 ** 128 else f


def parse_floating(x, who: str, single: bool) -> float:
    if x is None:
        raise null_pointer(who)
    if type(x) is not str:
        raise arg_type_error(who, "a string", x)
    s = x.strip(_JAVA_WS)
    sp = _SPECIAL.get(s)
    if sp is not None:
        return sp
    m = _DEC.match(s)
    if m is not None:
        neg, ip, fp, ex = _number_parts(m)
        digits = (ip + fp).lstrip("0")
        if not digits:
            return -0.0 if neg else 0.0
        exp = _exponent(ex)
        if exp is None:  # an absurd exponent: overflow or underflow outright
            mag = math.inf if not ex.startswith("-") else 0.0
        else:
            text = f"{digits}e{exp - len(fp)}"
            mag = float(text)
            if single:
                from decimal import Decimal  # imported on first use: keeps start-up short
                exact = Decimal(text)
                mag = _round_f32(mag, lambda d: (exact > Decimal(d)) - (exact < Decimal(d)))
        return -mag if neg else mag
    m = _HEX.match(s)
    if m is not None:
        neg, ip, fp, ex = _number_parts(m)
        mant = int((ip + fp) or "0", 16)
        if mant == 0:
            return -0.0 if neg else 0.0
        exp = _exponent(ex)
        if exp is None:
            mag = math.inf if not ex.startswith("-") else 0.0
        else:
            e2 = exp - 4 * len(fp)
            order = mant.bit_length() - 1 + e2
            if order > 1100:
                mag = math.inf
            elif order < -1200:
                mag = 0.0
            else:
                mag = _ratio_to_double(mant, e2)
                if single:
                    mag = _round_f32(mag, lambda d: _cmp_dyadic(mant, e2, d))
        return -mag if neg else mag
    raise java_domain_error(who, "NumberFormatException", f"for input string {_show(x)}", input=x[:40])


def _number_parts(m) -> tuple:
    """(negative?, integer digits, fraction digits, exponent field) of a `_DEC` or `_HEX` match;
    a number written as `.5` has "" for its integer digits."""
    sign, ip, fp, lead, ex = m.groups()
    if ip is None:
        ip, fp = "", lead
    return sign == "-", ip, fp or "", ex


def _exponent(ex: str | None) -> int | None:
    """The value of an exponent field; None when it is too large to matter (over 12 digits)."""
    if not ex:
        return 0
    digits = ex.lstrip("+-").lstrip("0")
    if len(digits) > 12:
        return None
    v = int(digits or "0")
    return -v if ex.startswith("-") else v


def _ratio_to_double(mant: int, e2: int) -> float:
    """mant * 2**e2 correctly rounded to a double."""
    try:
        if e2 >= 0:
            return float(mant << e2)
        return mant / (1 << -e2)
    except OverflowError:
        return math.inf


def _cmp_dyadic(mant: int, e2: int, d: float) -> int:
    n, den = d.as_integer_ratio()
    # compare mant * 2**e2 with n / den, cross-multiplied
    if e2 >= 0:
        left, right = (mant << e2) * den, n
    else:
        left, right = mant * den, n << -e2
    return (left > right) - (left < right)


def parse_double(x):
    return parse_floating(x, "Double/parseDouble", single=False)


def parse_float(x):
    return parse_floating(x, "Float/parseFloat", single=True)


# ------------------------------------------------------------------ java.lang.Math

def _math_integral(x) -> bool:
    return type(x) is int and LONG_MIN <= x <= LONG_MAX


def math_abs(x):
    t = type(x)
    if t is int:
        if not _math_integral(x):
            raise java_type_error("Math/abs", f"{_show(x)} is outside the Java long range",
                                  expected="int, long, float or double", actual="number")
        return x if x == LONG_MIN else abs(x)
    if t is float:
        return abs(x)
    raise arg_type_error("Math/abs", "a number", x)


def _same_kind_pair(who: str, a, b):
    ta, tb = type(a), type(b)
    if ta is int and tb is int:
        if _math_integral(a) and _math_integral(b):
            return True
    elif ta is float and tb is float:
        return False
    got = f"({type_name(a)} {_show(a)}, {type_name(b)} {_show(b)})"
    raise java_type_error(who, f"no overload accepts {got}; pass two integers or two floats "
                               "(Java does not mix primitive kinds here)",
                          expected="two int/long or two float/double", actual=[type_name(a), type_name(b)])


def math_max(a, b):
    if _same_kind_pair("Math/max", a, b):
        return a if a >= b else b
    if a != a or b != b:
        return math.nan
    if a == b == 0:
        return -0.0 if math.copysign(1, a) < 0 and math.copysign(1, b) < 0 else 0.0
    return a if a >= b else b


def math_min(a, b):
    if _same_kind_pair("Math/min", a, b):
        return a if a <= b else b
    if a != a or b != b:
        return math.nan
    if a == b == 0:
        return -0.0 if math.copysign(1, a) < 0 or math.copysign(1, b) < 0 else 0.0
    return a if a <= b else b


def math_ceil(x):
    x = need_java_double(x, "Math/ceil")
    if not math.isfinite(x) or x.is_integer():
        return x
    r = float(math.ceil(x))
    return -0.0 if r == 0 else r


def math_floor(x):
    x = need_java_double(x, "Math/floor")
    if not math.isfinite(x) or x.is_integer():
        return x
    return float(math.floor(x))


def math_round(x):
    if type(x) is not float:
        if type(x) is int:
            raise java_type_error("Math/round", f"expects a float, got the integer {_show(x)} "
                                                "(Math/round has only float and double overloads; use round)",
                                  expected="float or double", actual="integer")
        raise arg_type_error("Math/round", "a float", x)
    if x != x:
        return 0
    if math.isinf(x):
        return LONG_MAX if x > 0 else LONG_MIN
    i = math.trunc(x)
    frac = x - i
    if frac >= 0.5:
        i += 1
    elif frac < -0.5:
        i -= 1
    return max(LONG_MIN, min(LONG_MAX, i))


def math_sqrt(x):
    x = need_java_double(x, "Math/sqrt")
    if x != x or x < 0:
        return math.nan
    return math.sqrt(x)


def _odd_integer(y: float) -> bool:
    return math.isfinite(y) and y.is_integer() and abs(y) < 2.0 ** 53 and int(y) % 2 == 1


def math_pow(a, b):
    a = need_java_double(a, "Math/pow")
    b = need_java_double(b, "Math/pow")
    if b != b:
        return math.nan
    if b == 0:
        return 1.0
    if a != a:
        return math.nan
    if math.isinf(b) and abs(a) == 1:
        return math.nan
    if a == 0 and b < 0:
        neg = math.copysign(1, a) < 0 and _odd_integer(b)
        return -math.inf if neg else math.inf
    try:
        return math.pow(a, b)
    except OverflowError:
        return -math.inf if a < 0 and _odd_integer(b) else math.inf
    except ValueError:
        return math.nan
