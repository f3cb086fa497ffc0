"""printf-style `format`: Java's %-formatting, implemented here from scratch.

Owns docs/spec/functions.md §3 `format`. The format string is parsed by our own
scanner (Java Formatter syntax `%[index$][flags][width][.precision]conv`);
Python's str.format / f-string mini-language is never applied to program
text, so `{0.__class__}` is just literal text.

Supported: conversions s S d o x X f e E g G b B c C h H n % and the date/time
conversions %t/%T (in UTC); flags - 0 + space
, ( #; explicit argument indexes `n$` and `<` (reuse the previous argument).
Numbers are rounded HALF_UP on their shortest decimal form, as Java does
(`(format "%.2f" 2.675)` gives "2.68"). `%s` renders like `str` (nil gives
""); other conversions render nil as "null". Width and precision are capped
at 1,000,000 and every padded or expanded piece is charged to the meter.
Any format problem (unknown conversion, flag mismatch, missing argument,
wrong argument kind) is a `runtime_error`.
Imports values, errors, meter, lib.arguments, registry, lib.strings, lib.java_time,
lib.javahash.
"""
from __future__ import annotations

import math
from typing import TYPE_CHECKING

from ..errors import PtcError, brief_int
from ..values.intstr import int_text
from ..runtime.meter import str_cost
from ..values import type_name
from .arguments import LazyPattern, charge, count_str, graphemes
from .java_time import Instant, JavaDate, LocalDate, civil_from_days, days_from_civil
from .javahash import java_hash
from ..registry.builtins import builtin
from .strings import display

if TYPE_CHECKING:
    from decimal import Decimal

MAX_WIDTH = 1_000_000

_SPEC = LazyPattern(r"%([0-9]+\$)?([-#+ 0,(<]*)([0-9]+)?(\.[0-9]+)?([tT])?([a-zA-Z%])")

_LONG_MIN, _LONG_MAX = -(1 << 63), (1 << 63) - 1

_ALLOWED = {
    "s": "-#", "b": "-", "c": "-", "h": "-", "d": "-+ 0,(", "o": "-#0", "x": "-#0",
    "e": "-#+ 0(", "f": "-#+ 0,(", "g": "-+ 0,(", "%": "-", "n": "",
}


def _err(msg: str) -> PtcError:
    return PtcError("runtime_error", "format: " + msg)


# ------------------------------------------------------------ decimal text


def _dec(x) -> Decimal:
    """Exact decimal of |x|: ints exactly, floats via their shortest repr."""
    from decimal import Decimal  # imported on first use: keeps `ptclisp` start-up short
    if type(x) is int:
        if x.bit_length() > 200_000:
            raise _err("the integer is too large to format")
        return Decimal(abs(x))
    return Decimal(repr(abs(x)))


def _plain(q: Decimal, places: int) -> str:
    """Text of a non-negative Decimal quantized to exponent -places, no exponent form."""
    _, digits, _ = q.as_tuple()
    ds = "".join(map(str, digits))
    if places == 0:
        return ds
    if len(ds) <= places:
        ds = "0" * (places - len(ds) + 1) + ds
    return ds[:-places] + "." + ds[-places:]


def _quantize(d: Decimal, places: int) -> Decimal:
    from decimal import ROUND_HALF_UP, Decimal, localcontext
    with localcontext() as ctx:
        ctx.prec = max(32, d.adjusted() + places + 8)
        return d.quantize(Decimal(1).scaleb(-places), rounding=ROUND_HALF_UP)


def _fixed(d: Decimal, places: int) -> str:
    return _plain(_quantize(d, places), places)


def _sci_parts(d: Decimal, places: int) -> tuple[str, int]:
    """Mantissa text with `places` decimals and the decimal exponent."""
    from decimal import Decimal, localcontext
    if d == 0:
        return _plain(Decimal(0).quantize(Decimal(1).scaleb(-places)), places), 0
    e = d.adjusted()
    with localcontext() as ctx:
        ctx.prec = max(32, places + 8)
        m = d.scaleb(-e)
    q = _quantize(m, places)
    if q >= 10:
        e += 1
        q = _quantize(Decimal(1), places)
    return _plain(q, places), e


def _exp_text(e: int) -> str:
    s = str(abs(e))
    if len(s) < 2:
        s = "0" + s
    return ("e-" if e < 0 else "e+") + s


def _group(intpart: str) -> str:
    n = len(intpart)
    if n <= 3:
        return intpart
    head = n % 3 or 3
    parts = [intpart[:head]] + [intpart[i:i + 3] for i in range(head, n, 3)]
    return ",".join(parts)


def _group_number(body: str) -> str:
    if "." in body:
        i, f = body.split(".", 1)
        return _group(i) + "." + f
    return _group(body)


# -------------------------------------------------------------- assembling


def _justify(s: str, flags: str, width: int | None, n: int | None = None) -> str:
    if width is None:
        return s
    n = len(s) if n is None else n
    if n >= width:
        return s
    pad = width - n
    charge(str_cost(pad + len(s)))
    return s + " " * pad if "-" in flags else " " * pad + s


def _number(prefix: str, body: str, suffix: str, flags: str, width: int | None) -> str:
    if "0" in flags and width is not None:
        need = width - len(prefix) - len(body) - len(suffix)
        if need > 0:
            charge(str_cost(width))
            body = "0" * need + body
    return _justify(prefix + body + suffix, flags, width)


def _sign(neg: bool, flags: str) -> tuple[str, str]:
    if neg:
        return ("(", ")") if "(" in flags else ("-", "")
    if "+" in flags:
        return "+", ""
    if " " in flags:
        return " ", ""
    return "", ""


def _integral(arg, conv: str, flags: str, width, spec: str) -> str:
    t = type(arg)
    if t is int:
        v = arg
    elif t is float and arg.is_integer():
        v = int(arg)
    else:
        raise _err(f"{spec} needs an integer, got {_describe(arg)}")
    low = conv.lower()
    if low == "d":
        prefix, suffix = _sign(v < 0, flags)
        body = int_text(abs(v))
        if "," in flags:
            body = _group(body)
        return _number(prefix, body, suffix, flags, width)
    base = "o" if low == "o" else "x"
    if _LONG_MIN <= v <= _LONG_MAX:
        bad = [f for f in "+ ,(" if f in flags]
        if bad:
            raise _err(f"flag {bad[0]!r} is not allowed with {spec}")
        if v < 0:
            v += 1 << 64
        prefix, suffix = "", ""
        body = format(v, base)
    else:
        if "," in flags:
            raise _err(f"flag ',' is not allowed with {spec}")
        prefix, suffix = _sign(v < 0, flags)
        body = format(abs(v), base)
    if "#" in flags:
        prefix += "0" if base == "o" else "0x"
    out = _number(prefix, body, suffix, flags, width)
    return out.upper() if conv == "X" else out


def _floating(arg, conv: str, flags: str, width, prec, spec: str) -> str:
    t = type(arg)
    if t is not float and t is not int:
        raise _err(f"{spec} needs a number, got {_describe(arg)}")
    low = conv.lower()
    upper = conv != low
    if t is float and not math.isfinite(arg):
        if arg != arg:
            text = "NaN"
        else:
            prefix, suffix = _sign(arg < 0, flags)
            text = prefix + "Infinity" + suffix
        text = text.upper() if upper else text
        return _justify(text, flags.replace("0", ""), width)
    neg = arg < 0 or (t is float and arg == 0 and math.copysign(1.0, arg) < 0)
    d = _dec(arg)
    if low == "f":
        p = 6 if prec is None else prec
        body = _fixed(d, p)
        if "," in flags:
            body = _group_number(body)
        if "#" in flags and p == 0:
            body += "."
    elif low == "e":
        p = 6 if prec is None else prec
        mant, e = _sci_parts(d, p)
        if "#" in flags and p == 0:
            mant += "."
        body = mant + _exp_text(e)
    else:  # g
        p = 6 if prec is None else (1 if prec == 0 else prec)
        if d == 0:
            body = _fixed(d, p - 1)
        else:
            _, e = _sci_parts(d, p - 1)
            if -4 <= e < p:
                body = _fixed(d, p - 1 - e)
                if "," in flags:
                    body = _group_number(body)
            else:
                mant, e = _sci_parts(d, p - 1)
                body = mant + _exp_text(e)
    if len(body) > 256:
        charge(str_cost(len(body)))
    prefix, suffix = _sign(neg, flags)
    out = _number(prefix, body, suffix, flags, width)
    return out.upper() if upper else out


def _describe(x) -> str:
    t = type(x)
    if t is float:
        return "##NaN" if x != x else ("##Inf" if x == math.inf else ("##-Inf" if x == -math.inf else "a fractional number"))
    return "nil" if x is None else type_name(x)


def _truncate(s: str, prec) -> str:
    if prec is None:
        return s
    if s.isascii():
        return s[:prec]
    gs = graphemes(s)
    return "".join(gs[:prec]) if len(gs) > prec else s


def _char(arg, spec: str) -> str:
    t = type(arg)
    if t is int:
        if 0 <= arg <= 0x10FFFF and not (0xD800 <= arg <= 0xDFFF):
            return chr(arg)
        raise _err(f"{spec}: {brief_int(arg)} is not a valid code point")
    if t is str and count_str(arg) == 1:
        return arg
    raise _err(f"{spec} needs a character, got {_describe(arg)}")


# ------------------------------------------------------------------ dates and times (%t, %T)
# As Java's Formatter: the argument is a java.util.Date, an integer (milliseconds since the
# epoch), a java.time.LocalDate (date fields only) or an Instant (s, Q, L, N only). Java uses
# the JVM's default time zone for the first two; here it is UTC, as `(java.util.Date. text)`
# reads a text without zone (DIV-51). English names, as the ROOT/US locale.

_MONTHS = ("January", "February", "March", "April", "May", "June", "July", "August", "September",
           "October", "November", "December")
_DAYS = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")
_TIME_CONVS = frozenset("HIklMSLNpzZsQBbhAaCYyjmdeRTrDFc")
_DATE_ONLY = frozenset("BbhAaCYyjmdeDF")
_INSTANT_ONLY = frozenset("sQLN")
_GREGORIAN_START = -12_219_292_800_000  # 1582-10-15T00:00Z in milliseconds: Java uses the Julian calendar before


def _check_time_spec(flags: str, conv: str, width, prec, spec: str):
    if conv not in _TIME_CONVS:
        raise _err(f"unknown date/time conversion {spec}")
    if prec is not None:
        raise _err(f"precision is not allowed with {spec}")
    for f in flags:
        if f != "-":
            raise _err(f"flag {f!r} is not allowed with {spec}")
    if "-" in flags and width is None:
        raise _err(f"{spec}: the '-' flag needs a width")


class _When:
    """The calendar fields of one date/time argument; those its kind lacks stay None (a LocalDate
    has no time of day, an Instant no calendar fields: `_when` refuses conversions that need them)."""

    __slots__ = ("day", "y", "mo", "d", "wd", "hh", "mi", "ss", "sec", "nanos")

    def __init__(self, day, ms, nanos, sec):
        self.day, self.nanos, self.sec = day, nanos, sec
        self.y = self.mo = self.d = self.wd = self.hh = self.mi = self.ss = None
        if day is not None:
            self.y, self.mo, self.d = civil_from_days(day)
            self.wd = (day + 3) % 7  # 1970-01-01 was a Thursday
        if ms is not None:
            self.hh, rem = divmod(ms, 3_600_000)
            self.mi, rem = divmod(rem, 60_000)
            self.ss = rem // 1000


def _when(arg, conv: str, spec: str) -> _When:
    """The fields of a date argument: a java.util.Date or epoch millis (UTC), a LocalDate, an Instant."""
    t = type(arg)
    if t is int or t is JavaDate:
        millis = arg if t is int else arg.millis
        if t is int and not _LONG_MIN <= millis <= _LONG_MAX:
            raise _err(f"{spec} needs a 64-bit millisecond count, got a larger integer")
        if millis < _GREGORIAN_START:
            raise _err(f"{spec}: dates before 1582-10-15 are not supported")
        day, ms = divmod(millis, 86_400_000)
        return _When(day, ms, (ms % 1000) * 1_000_000, millis // 1000)
    if t is LocalDate:
        if conv not in _DATE_ONLY:
            raise _err(f"{spec}: a java.time.LocalDate has no time of day")
        return _When(arg.epoch_day, None, None, None)
    if t is Instant:
        if conv not in _INSTANT_ONLY:
            raise _err(f"{spec}: a java.time.Instant has no calendar fields; use a java.util.Date or millis")
        return _When(None, None, arg.nano, arg.seconds)
    raise _err(f"{spec} needs a date (java.util.Date, LocalDate, Instant or epoch millis), got {_describe(arg)}")


def _year(w: _When) -> str:
    return f"{w.y:04d}" if w.y >= 0 else f"-{-w.y:04d}"


def _hour12(w: _When) -> int:
    return (w.hh % 12) or 12


# date/time conversion (after %t / %T) -> its text
_TIME_TEXT = {
    "Y": _year,
    "y": lambda w: f"{w.y % 100:02d}",
    "C": lambda w: f"{w.y // 100:02d}",
    "m": lambda w: f"{w.mo:02d}",
    "d": lambda w: f"{w.d:02d}",
    "e": lambda w: str(w.d),
    "j": lambda w: f"{w.day - days_from_civil(w.y, 1, 1) + 1:03d}",
    "B": lambda w: _MONTHS[w.mo - 1],
    "b": lambda w: _MONTHS[w.mo - 1][:3],
    "h": lambda w: _MONTHS[w.mo - 1][:3],
    "A": lambda w: _DAYS[w.wd],
    "a": lambda w: _DAYS[w.wd][:3],
    "D": lambda w: f"{w.mo:02d}/{w.d:02d}/{w.y % 100:02d}",
    "F": lambda w: f"{w.y:04d}-{w.mo:02d}-{w.d:02d}",
    "s": lambda w: str(w.sec),
    "Q": lambda w: str(w.sec * 1000 + w.nanos // 1_000_000),
    "L": lambda w: f"{w.nanos // 1_000_000:03d}",
    "N": lambda w: f"{w.nanos:09d}",
    "H": lambda w: f"{w.hh:02d}",
    "k": lambda w: str(w.hh),
    "I": lambda w: f"{_hour12(w):02d}",
    "l": lambda w: str(_hour12(w)),
    "M": lambda w: f"{w.mi:02d}",
    "S": lambda w: f"{w.ss:02d}",
    "p": lambda w: "am" if w.hh < 12 else "pm",
    "z": lambda w: "+0000",
    "Z": lambda w: "UTC",
    "R": lambda w: f"{w.hh:02d}:{w.mi:02d}",
    "T": lambda w: f"{w.hh:02d}:{w.mi:02d}:{w.ss:02d}",
    "r": lambda w: f"{_hour12(w):02d}:{w.mi:02d}:{w.ss:02d} {'AM' if w.hh < 12 else 'PM'}",
    "c": lambda w: (f"{_DAYS[w.wd][:3]} {_MONTHS[w.mo - 1][:3]} {w.d:02d} {w.hh:02d}:{w.mi:02d}:{w.ss:02d} "
                    f"UTC {w.y:04d}"),
}


def _datetime(arg, conv: str, spec: str) -> str:
    return _TIME_TEXT[conv](_when(arg, conv, spec))


# ------------------------------------------------------------------ driver


_VALID = frozenset("sSbBcCdoxXeEfgGhHn%")


def _check_flags(flags: str, conv: str, width, spec: str):
    if conv not in _VALID:
        raise _err(f"unsupported conversion {spec}")
    if len(set(flags)) != len(flags):
        raise _err(f"duplicate flag in {spec}")
    allowed = _ALLOWED.get(conv.lower())
    if allowed is None:
        raise _err(f"unsupported conversion {spec}")
    for f in flags:
        if f not in allowed:
            raise _err(f"flag {f!r} is not allowed with {spec}")
    if "-" in flags and "0" in flags:
        raise _err(f"flags '-' and '0' cannot be combined ({spec})")
    if "+" in flags and " " in flags:
        raise _err(f"flags '+' and ' ' cannot be combined ({spec})")
    if ("-" in flags or "0" in flags) and width is None:
        raise _err(f"{spec}: the '-' and '0' flags need a width")


def render_format(fmt: str, args) -> str:
    """Apply Java-style format string `fmt` to the sequence `args`."""
    out: list[str] = []
    picker = _Picker(args)
    i = 0
    n = len(fmt)
    while i < n:
        j = fmt.find("%", i)
        if j < 0:
            out.append(fmt[i:])
            break
        if j > i:
            out.append(fmt[i:j])
        m = _SPEC.match(fmt, j)
        if m is None:
            bad = fmt[j:j + 2]
            raise _err(f"unknown or incomplete conversion {bad!r} at position {j}")
        i = m.end()
        out.append(_render_spec(m, picker))
    charge(str_cost(sum(len(p) for p in out)))
    return "".join(out)


class _Picker:
    """Which argument each conversion takes: the next one in order, the one an `n$` index names, or
    with `<` the one the previous conversion took."""

    def __init__(self, args):
        self.args = args
        self.ordinary = 0
        self.last = None

    def pick(self, idx: str | None, relative: bool, spec: str):
        if relative:
            if self.last is None:
                raise _err(f"{spec} refers to a previous argument but there is none")
            k = self.last
        elif idx:
            k = int(idx[:-1]) - 1
            if k < 0:
                raise _err(f"argument index must start at 1 ({spec})")
        else:
            k = self.ordinary
            self.ordinary += 1
        if k >= len(self.args):
            raise _err(f"not enough arguments for {spec} (got {len(self.args)})")
        self.last = k
        return self.args[k]


def _render_spec(m, picker: _Picker) -> str:
    """The text of one conversion `m` (a match of `_SPEC`), taking its argument from `picker`."""
    idx, flags, width_s, prec_s, tt, conv = m.groups()
    spec = m.group(0)
    width = int(width_s) if width_s else None
    prec = int(prec_s[1:]) if prec_s else None
    if width is not None and not (1 <= width <= MAX_WIDTH):
        raise _err(f"width must be between 1 and {MAX_WIDTH} ({spec})")
    if prec is not None and prec > MAX_WIDTH:
        raise _err(f"precision must be at most {MAX_WIDTH} ({spec})")
    relative = "<" in flags
    flags = flags.replace("<", "")
    if tt:
        _check_time_spec(flags, conv, width, prec, spec)
    else:
        _check_flags(flags, conv, width, spec)
    if conv == "%":
        if prec is not None:
            raise _err(f"precision is not allowed with {spec}")
        return _justify("%", flags, width)
    if conv == "n":
        if width is not None or prec is not None:
            raise _err(f"width and precision are not allowed with {spec}")
        return "\n"
    arg = picker.pick(idx, relative, spec)
    if tt:
        s = "null" if arg is None else _datetime(arg, conv, spec)
        return _justify(s.upper() if tt == "T" else s, flags, width)
    return _convert(arg, conv, flags, width, prec, spec)


def _convert(arg, conv: str, flags: str, width, prec, spec: str) -> str:
    """The text of a conversion other than %%, %n and the date/time ones."""
    low = conv.lower()
    if low == "s":
        if "#" in flags:
            raise _err(f"flag '#' is not allowed with {spec}")
        s = _truncate(display(arg), prec)
        if conv == "S":
            s = s.upper()
        return _justify(s, flags, width, count_str(s) if width is not None else None)
    if low == "b":
        s = "false" if arg is None or arg is False else "true"
        s = _truncate(s, prec)
        return _justify(s.upper() if conv == "B" else s, flags, width)
    if low == "h":
        if arg is None:
            s = "null"
        else:
            h = java_hash(arg)
            if h is None:
                raise _err(f"{spec}: a {_describe(arg)} has no reproducible hash code")
            s = format(h & 0xFFFFFFFF, "x")
        s = _truncate(s, prec)
        return _justify(s.upper() if conv == "H" else s, flags, width)
    if low == "c":
        if prec is not None:
            raise _err(f"precision is not allowed with {spec}")
        s = "null" if arg is None else _char(arg, spec)
        return _justify(s.upper() if conv == "C" else s, flags, width, 1)
    if low in ("d", "o", "x"):
        if prec is not None:
            raise _err(f"precision is not allowed with {spec}")
        if arg is None:
            return _justify("null", flags.replace("0", ""), width)
        return _integral(arg, conv, flags, width, spec)
    if low in ("e", "f", "g"):
        if arg is None:
            return _justify("NULL" if conv != low else "null", flags.replace("0", ""), width)
        return _floating(arg, conv, flags, width, prec, spec)
    raise _err(f"unsupported conversion {spec}")  # pragma: no cover - _check_flags rejects the rest


@builtin("format", "(format fmt & args)", groups=("core", "string"), category="strings")
def format_(fmt, *args):
    """Fills a Java-style format string: %s (display text, nil gives ""), %d, %o, %x/%X (integers; whole floats
    allowed), %f, %e, %g (numbers, default 6 digits, half-up rounding), %b, %c, %n, %h (Java hash code in hex),
    %%. Flags - 0 + space , ( # and a width (up to 1,000,000) and .precision are accepted; %2$s picks an
    argument by position. Extra arguments are ignored; too few is an error.

    (format "%s has %d items" "cart" 3) ;=> "cart has 3 items"
    (format "%.2f" 3.14159) ;=> "3.14"
    (format "[%5s][%-4s][%03d]" "a" "b" 7) ;=> "[    a][b   ][007]"
    """
    if type(fmt) is not str:
        raise PtcError("type_error", f"format: the format must be a string, got {type_name(fmt)}")
    if "%" not in fmt:
        return fmt
    return render_format(fmt, args)
