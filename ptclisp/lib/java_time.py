"""Java temporal values: `java.time.LocalDate`, `Instant`, `Duration` and `java.util.Date`.

Owns the four `JavaObject` wrappers (value identity, natural order within one
class, canonical Java text), their strict parsers (ISO dates and instants,
the bounded legacy grammar of `(java.util.Date. text)`, DIV-51) and the
instance methods that read or shift them.

Values are plain integers underneath, so the full Java ranges are covered
without Python's `datetime` year limits:
    LocalDate -> epoch day;  Instant/Duration -> (seconds, nano);
    java.util.Date -> signed 64-bit epoch milliseconds.
Imports values and java_text (the Java conditions and parameter checks).
"""
from __future__ import annotations

import time

from ..values import JavaObject, type_name
from .arguments import LazyPattern
from .java_text import (
    LONG_MAX, LONG_MIN, _show, java_domain_error, java_type_error, need_java_long, need_java_text, null_pointer,
)

NANOS = 1_000_000_000
DAY_SECONDS = 86_400


# ------------------------------------------------------------------ calendar arithmetic

def days_from_civil(y: int, m: int, d: int) -> int:
    """Proleptic Gregorian date -> days since 1970-01-01."""
    y -= m <= 2
    era = y // 400
    yoe = y - era * 400
    doy = (153 * (m + (-3 if m > 2 else 9)) + 2) // 5 + d - 1
    doe = yoe * 365 + yoe // 4 - yoe // 100 + doy
    return era * 146_097 + doe - 719_468


def civil_from_days(z: int) -> tuple[int, int, int]:
    """Days since 1970-01-01 -> proleptic Gregorian (year, month, day)."""
    z += 719_468
    era = z // 146_097
    doe = z - era * 146_097
    yoe = (doe - doe // 1460 + doe // 36_524 - doe // 146_096) // 365
    doy = doe - (365 * yoe + yoe // 4 - yoe // 100)
    mp = (5 * doy + 2) // 153
    d = doy - (153 * mp + 2) // 5 + 1
    m = mp + (3 if mp < 10 else -9)
    return yoe + era * 400 + (m <= 2), m, d


def _leap(y: int) -> bool:
    return y % 4 == 0 and (y % 100 != 0 or y % 400 == 0)


def valid_date(y: int, m: int, d: int) -> bool:
    if not 1 <= m <= 12 or d < 1:
        return False
    if m == 2:
        return d <= (29 if _leap(y) else 28)
    return d <= (30 if m in (4, 6, 9, 11) else 31)


def format_date(y: int, m: int, d: int) -> str:
    if 0 <= y <= 9999:
        ys = f"{y:04d}"
    elif y > 9999:
        ys = f"+{y}"
    else:
        ys = f"-{-y:04d}"
    return f"{ys}-{m:02d}-{d:02d}"


MIN_YEAR, MAX_YEAR = -999_999_999, 999_999_999
MIN_EPOCH_DAY = days_from_civil(MIN_YEAR, 1, 1)
MAX_EPOCH_DAY = days_from_civil(MAX_YEAR, 12, 31)
MIN_SECOND = MIN_EPOCH_DAY * DAY_SECONDS
MAX_SECOND = MAX_EPOCH_DAY * DAY_SECONDS + DAY_SECONDS - 1

_DATE_RE = LazyPattern(r"([+-]?)([0-9]+)-([0-9]{2})-([0-9]{2})\Z")


def _parse_ymd(text: str, lo_year: int, hi_year: int):
    """Strict ISO `yyyy-MM-dd` (Java's year sign rules) -> (y, m, d) or None."""
    if len(text) > 17:
        return None
    m = _DATE_RE.match(text)
    if m is None:
        return None
    sign, yd, md, dd = m.groups()
    n = len(yd)
    if sign == "" and n != 4:
        return None
    if sign == "+" and not 5 <= n <= 10:
        return None
    if sign == "-" and not 4 <= n <= 10:
        return None
    y = int(yd)
    if sign == "-":
        if y == 0:
            return None
        y = -y
    mo, d = int(md), int(dd)
    if not lo_year <= y <= hi_year or not valid_date(y, mo, d):
        return None
    return y, mo, d


# ------------------------------------------------------------------ the value classes

class _TimeValue(JavaObject):
    """What the value classes below share: a value is its `fields()`, which its equality, order and
    hash (under `hash_tag`) go by; it prints as #java[class text]."""

    __slots__ = ()
    hash_tag = ""

    def fields(self) -> tuple:  # pragma: no cover - overridden
        raise NotImplementedError

    def sort_key(self):
        return (self.java_class, *self.fields())

    def __eq__(self, other):
        return type(other) is type(self) and other.fields() == self.fields()

    def __hash__(self):
        return hash((self.hash_tag, *self.fields()))

    def __repr__(self):
        return f"#java[{self.java_class} {self.to_text()}]"


class LocalDate(_TimeValue):
    """A calendar date without time or zone (java.time.LocalDate)."""

    __slots__ = ("epoch_day",)
    java_class = "java.time.LocalDate"
    hash_tag = "LocalDate"

    def __init__(self, epoch_day: int):
        self.epoch_day = epoch_day

    def to_text(self) -> str:
        return format_date(*civil_from_days(self.epoch_day))

    def fields(self) -> tuple:
        return (self.epoch_day,)


def _instant_text(sec: int, nano: int) -> str:
    day, sod = divmod(sec, DAY_SECONDS)
    h, rem = divmod(sod, 3600)
    mi, s = divmod(rem, 60)
    if nano == 0:
        frac = ""
    elif nano % 1_000_000 == 0:
        frac = f".{nano // 1_000_000:03d}"
    elif nano % 1000 == 0:
        frac = f".{nano // 1000:06d}"
    else:
        frac = f".{nano:09d}"
    return f"{format_date(*civil_from_days(day))}T{h:02d}:{mi:02d}:{s:02d}{frac}Z"


class _SecondsNanos(_TimeValue):
    """A value of whole seconds and a 0..999,999,999 nanosecond part (Instant, Duration)."""

    __slots__ = ("seconds", "nano")

    def __init__(self, seconds: int, nano: int = 0):
        self.seconds = seconds
        self.nano = nano

    def fields(self) -> tuple:
        return (self.seconds, self.nano)


class Instant(_SecondsNanos):
    """A point on the UTC time line with nanosecond precision (java.time.Instant)."""

    __slots__ = ()
    java_class = "java.time.Instant"
    hash_tag = "Instant"

    def to_text(self) -> str:
        return _instant_text(self.seconds, self.nano)


def _tdiv(a: int, b: int) -> int:
    """Java integer division (truncates toward zero)."""
    q = abs(a) // abs(b)
    return q if (a < 0) == (b < 0) else -q


def _trem(a: int, b: int) -> int:
    return a - b * _tdiv(a, b)


class Duration(_SecondsNanos):
    """An amount of time: seconds plus a 0..999,999,999 nano adjustment (java.time.Duration)."""

    __slots__ = ()
    java_class = "java.time.Duration"
    hash_tag = "Duration"

    def to_text(self) -> str:
        sec, nano = self.seconds, self.nano
        if sec == 0 and nano == 0:
            return "PT0S"
        eff = sec + 1 if sec < 0 and nano > 0 else sec
        hours = _tdiv(eff, 3600)
        minutes = _tdiv(_trem(eff, 3600), 60)
        secs = _trem(eff, 60)
        out = "PT"
        if hours:
            out += f"{hours}H"
        if minutes:
            out += f"{minutes}M"
        if secs == 0 and nano == 0 and len(out) > 2:
            return out
        if sec < 0 and nano > 0 and secs == 0:
            out += "-0"
        else:
            out += str(secs)
        if nano > 0:
            digits = str(2 * NANOS - nano if sec < 0 else NANOS + nano)[1:].rstrip("0")
            out += "." + digits
        return out + "S"


class JavaDate(_TimeValue):
    """A legacy java.util.Date: signed 64-bit milliseconds since the epoch."""

    __slots__ = ("millis",)
    java_class = "java.util.Date"
    hash_tag = "Date"

    def __init__(self, millis: int):
        self.millis = millis

    def to_text(self) -> str:
        sec, ms = divmod(self.millis, 1000)
        return _instant_text(sec, ms * 1_000_000)

    def fields(self) -> tuple:
        return (self.millis,)


# ------------------------------------------------------------------ statics

def _parse_fail(who: str, what: str, text: str):
    return java_domain_error(who, "DateTimeParseException", f"text {_show(text)} could not be parsed as {what}",
                             input=text[:40])


def local_date_parse(text):
    who = "LocalDate/parse"
    text = need_java_text(text, who)
    ymd = _parse_ymd(text, MIN_YEAR, MAX_YEAR)
    if ymd is None:
        raise _parse_fail(who, "an ISO date (yyyy-MM-dd)", text)
    return LocalDate(days_from_civil(*ymd))


_INSTANT_RE = LazyPattern(
    r"(.+)[Tt]([0-9]{2}):([0-9]{2}):([0-9]{2})(?:\.([0-9]{0,9}))?([Zz]|[+-][0-9]{2}:[0-9]{2}(?::[0-9]{2})?)\Z")


def _parse_instant(text: str):
    if len(text) > 64:
        return None
    m = _INSTANT_RE.match(text)
    if m is None:
        return None
    dtext, hh, mm, ss, frac, off = m.groups()
    ymd = _parse_ymd(dtext, -1_000_000_000, 1_000_000_000)
    if ymd is None:
        return None
    h, mi, s = int(hh), int(mm), int(ss)
    nano = int((frac or "").ljust(9, "0")) if frac else 0
    extra_day = 0
    if h == 24 and mi == 0 and s == 0 and nano == 0:
        h, extra_day = 0, 1
    elif h == 23 and mi == 59 and s == 60:
        s = 59  # a leap second is folded into the preceding second, as Java does
    elif not (h <= 23 and mi <= 59 and s <= 59):
        return None
    if off in ("Z", "z"):
        offset = 0
    else:
        oh, om = int(off[1:3]), int(off[4:6])
        osec = int(off[7:9]) if len(off) > 6 else 0
        if oh > 18 or om > 59 or osec > 59 or (oh == 18 and (om or osec)):
            return None
        offset = (oh * 3600 + om * 60 + osec) * (1 if off[0] == "+" else -1)
    sec = (days_from_civil(*ymd) + extra_day) * DAY_SECONDS + h * 3600 + mi * 60 + s - offset
    if not MIN_SECOND <= sec <= MAX_SECOND:
        return None
    return Instant(sec, nano)


def instant_parse(text):
    who = "Instant/parse"
    text = need_java_text(text, who)
    inst = _parse_instant(text)
    if inst is None:
        raise _parse_fail(who, "an ISO instant (e.g. 2024-01-01T00:00:00Z)", text)
    return inst


def duration_between(start, end):
    who = "Duration/between"
    for x, what in ((start, "start"), (end, "end")):
        if x is None:
            raise null_pointer(who, what)
        if type(x) is not Instant:
            raise java_type_error(who, f"{what} must be a java.time.Instant, got {type_name(x)} "
                                       "(only Instants are supported)", expected="java.time.Instant",
                                  actual=type_name(x))
    sec = end.seconds - start.seconds
    nano = end.nano - start.nano
    if nano < 0:
        sec, nano = sec - 1, nano + NANOS
    return Duration(sec, nano)


def current_time_millis():
    return time.time_ns() // 1_000_000


# ------------------------------------------------------------------ java.util.Date.

_MONTHS = {
    "jan": 1, "january": 1, "feb": 2, "february": 2, "mar": 3, "march": 3, "apr": 4, "april": 4,
    "may": 5, "jun": 6, "june": 6, "jul": 7, "july": 7, "aug": 8, "august": 8, "sep": 9, "september": 9,
    "oct": 10, "october": 10, "nov": 11, "november": 11, "dec": 12, "december": 12,
}
_WEEKDAYS = {"sun", "sunday", "mon", "monday", "tue", "tuesday", "wed", "wednesday", "thu", "thursday",
             "fri", "friday", "sat", "saturday"}
_ZONES = {"gmt": 0, "ut": 0, "utc": 0, "est": -5, "edt": -4, "cst": -6, "cdt": -5, "mst": -7, "mdt": -6,
          "pst": -8, "pdt": -7}
_TIME = r"([0-9]{1,2}):([0-9]{1,2})(?::([0-9]{1,2}))?"
_ZONE = r"([A-Za-z]+|[+-][0-9]{1,4})"
_DATE_FORMS = (
    # Mon D YYYY [time] [zone]
    ("mdy", LazyPattern(r"([A-Za-z]+) ([0-9]{1,2}) ([0-9]{4,9})(?: " + _TIME + r")?(?: " + _ZONE + r")?\Z")),
    # Mon D HH:MM[:SS] [zone] YYYY   (the shape of Date.toString)
    ("mdty", LazyPattern(r"([A-Za-z]+) ([0-9]{1,2}) " + _TIME + r"(?: " + _ZONE + r")? ([0-9]{4,9})\Z")),
    # D Mon YYYY [time] [zone]
    ("dmy", LazyPattern(r"([0-9]{1,2}) ([A-Za-z]+) ([0-9]{4,9})(?: " + _TIME + r")?(?: " + _ZONE + r")?\Z")),
    # M/D/YYYY [time] [zone]
    ("slash", LazyPattern(r"([0-9]{1,2})/([0-9]{1,2})/([0-9]{4,9})(?: " + _TIME + r")?(?: " + _ZONE + r")?\Z")),
)


def _strip_comments(text: str):
    out, depth = [], 0
    for ch in text:
        if ch == "(":
            depth += 1
        elif ch == ")" and depth:
            depth -= 1
        elif depth == 0:
            out.append(ch)
    return None if depth else "".join(out)


def _zone_seconds(z: str | None):
    if z is None:
        return 0
    if z[0] in "+-":
        n = int(z[1:])
        h, mi = (n, 0) if n < 24 else divmod(n, 100)
        if h > 23 or mi > 59:
            return None
        return (h * 3600 + mi * 60) * (1 if z[0] == "+" else -1)
    h = _ZONES.get(z.lower())
    return None if h is None else h * 3600


def parse_legacy_date(text: str):
    """Epoch millis of a legacy English date text (DIV-51 grammar), or None."""
    if len(text) > 200:
        return None
    text = _strip_comments(text)
    if text is None:
        return None
    words = text.replace(",", " ").split()
    if words and words[0].lower() in _WEEKDAYS:
        words = words[1:]
    text = " ".join(words)
    for kind, rx in _DATE_FORMS:
        m = rx.match(text)
        if m is None:
            continue
        g = m.groups()
        if kind == "mdy":
            mon, day, year, hh, mm, ss, zone = g
            month = _MONTHS.get(mon.lower())
        elif kind == "mdty":
            mon, day, hh, mm, ss, zone, year = g
            month = _MONTHS.get(mon.lower())
        elif kind == "dmy":
            day, mon, year, hh, mm, ss, zone = g
            month = _MONTHS.get(mon.lower())
        else:
            mon, day, year, hh, mm, ss, zone = g
            month = int(mon)
        if month is None:
            continue
        y, d = int(year), int(day)
        h, mi, s = int(hh or 0), int(mm or 0), int(ss or 0)
        off = _zone_seconds(zone)
        if off is None or not valid_date(y, month, d) or (y, month, d) < (1582, 10, 15):
            return None
        if h > 23 or mi > 59 or s > 59:
            return None
        millis = (days_from_civil(y, month, d) * DAY_SECONDS + h * 3600 + mi * 60 + s - off) * 1000
        return millis if LONG_MIN <= millis <= LONG_MAX else None
    return None


def date_new(*args):
    who = "java.util.Date."
    if not args:
        return JavaDate(current_time_millis())
    x = args[0]
    t = type(x)
    if t is int:
        if LONG_MIN <= x <= LONG_MAX:
            return JavaDate(x)
        raise java_type_error(who, f"{_show(x)} does not fit a Java long", expected="long", actual="number")
    if t is str:
        millis = parse_legacy_date(x)
        if millis is None:
            raise java_domain_error(who, "IllegalArgumentException",
                                    f"text {_show(x)} is not a supported date (use e.g. \"Jan 2 2024 10:30:00 UTC\" "
                                    "or \"1/2/2024\")", input=x[:40])
        return JavaDate(millis)
    if x is None:
        raise java_domain_error(who, "IllegalArgumentException", "the date text is nil (Java null)")
    raise java_type_error(who, f"expects epoch milliseconds (integer) or a date string, got {type_name(x)}",
                          expected="long or String", actual=type_name(x))


# ------------------------------------------------------------------ instance methods

def ld_to_epoch_day(d):
    return d.epoch_day


def _shift(d, n, who: str, sign: int):
    n = need_java_long(n, who)
    day = d.epoch_day + sign * n
    if not LONG_MIN <= day <= LONG_MAX:
        raise java_domain_error(who, "ArithmeticException", "long overflow")
    if not MIN_EPOCH_DAY <= day <= MAX_EPOCH_DAY:
        raise java_domain_error(who, "DateTimeException", "the resulting date is outside the LocalDate range "
                                                          f"(years {MIN_YEAR}..{MAX_YEAR})")
    return LocalDate(day)


def ld_plus_days(d, n):
    return _shift(d, n, ".plusDays", 1)


def ld_minus_days(d, n):
    return _shift(d, n, ".minusDays", -1)


def _same_class(who: str, recv, other):
    if other is None:
        raise null_pointer(who)
    if type(other) is not type(recv):
        raise java_type_error(who, f"argument must be a {recv.java_class} like the receiver, got "
                                   f"{type_name(other)}", expected=recv.java_class, actual=type_name(other))
    k1, k2 = recv.sort_key(), other.sort_key()
    return (k1 > k2) - (k1 < k2)


def t_is_before(a, b):
    return _same_class(".isBefore", a, b) < 0


def t_is_after(a, b):
    return _same_class(".isAfter", a, b) > 0


def date_before(a, b):
    return _same_class(".before", a, b) < 0


def date_after(a, b):
    return _same_class(".after", a, b) > 0


def inst_to_epoch_milli(i):
    ms = i.seconds * 1000 + i.nano // 1_000_000
    if not LONG_MIN <= ms <= LONG_MAX:
        raise java_domain_error(".toEpochMilli", "ArithmeticException", "long overflow")
    return ms


def dur_to_millis(d):
    ms = _tdiv(d.seconds * NANOS + d.nano, 1_000_000)
    if not LONG_MIN <= ms <= LONG_MAX:
        raise java_domain_error(".toMillis", "ArithmeticException", "long overflow")
    return ms


def dur_to_days(d):
    return _tdiv(d.seconds, DAY_SECONDS)


def date_get_time(d):
    return d.millis
