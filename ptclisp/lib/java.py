"""The closed Java-interop surface (docs/spec/functions.md §7): 40 members of 12 classes.

Admits every member into the table of `ptclisp.registry.java` (records,
lookups, arity checks) when the library loads; the analyzer resolves Java
spellings there. Nothing but the members admitted below can be reached.

The member implementations live in java_text (java.lang: numbers, strings,
Math) and java_time (LocalDate, Instant, Duration, java.util.Date).
Imports values, the Java-interop table, java_text, java_time.
"""
from __future__ import annotations

import math

from ..registry import java as JM
from ..values import type_name
from . import java_text as jt
from . import java_time as jtime
from .java_time import Duration, Instant, JavaDate, LocalDate


# --- java.lang.Boolean / Double / Float / Integer / Long
JM.add_static("Boolean", "parseBoolean", jt.parse_boolean, 1, 1, "(Boolean/parseBoolean s)",
              "true when s is \"true\" in any letter case; false for nil and every other string.",
              ('(Boolean/parseBoolean "TRUE") ;=> true',))
JM.add_static("Double", "parseDouble", jt.parse_double, 1, 1, "(Double/parseDouble s)",
              "Parses Java floating-point text (surrounding whitespace ignored; exponents, hex floats, d/f "
              "suffixes, Infinity and NaN accepted). Bad text raises NumberFormatException (java_domain_error).",
              ('(Double/parseDouble "0x1.8p0") ;=> 1.5',))
JM.add_field("Double", "POSITIVE_INFINITY", math.inf, "The float ##Inf.")
JM.add_field("Double", "NEGATIVE_INFINITY", -math.inf, "The float ##-Inf.")
JM.add_field("Double", "NaN", math.nan, "The float ##NaN (never equal to anything, itself included).")
JM.add_static("Float", "parseFloat", jt.parse_float, 1, 1, "(Float/parseFloat s)",
              "Like Double/parseDouble, but the value is rounded to single precision.",
              ('(Float/parseFloat "1.5") ;=> 1.5',))
JM.add_static("Integer", "parseInt", jt.parse_int, 1, 2, "(Integer/parseInt s) (Integer/parseInt s radix)",
              "Parses a 32-bit integer, decimal or in the given radix 2..36 (optional sign, no whitespace). Bad or "
              "out-of-range text raises NumberFormatException (java_domain_error); use parse-long for a nil instead.",
              ('(Integer/parseInt "42") ;=> 42',))
JM.add_static("Long", "parseLong", jt.parse_long, 1, 2, "(Long/parseLong s) (Long/parseLong s radix)",
              "Parses a 64-bit integer (decimal, or the given radix); otherwise as Integer/parseInt.",
              ('(Long/parseLong "42") ;=> 42',))

# --- java.lang.System
JM.add_static("System", "currentTimeMillis", jtime.current_time_millis, 0, 0, "(System/currentTimeMillis)",
              "The current time as milliseconds since 1970-01-01T00:00:00Z (reads the clock).", effect="clock")

# --- java.lang.Math
JM.add_static("Math", "abs", jt.math_abs, 1, 1, "(Math/abs x)",
              "Java absolute value of an integer (64-bit; the minimum long stays negative) or a float.",
              ("(Math/abs -7) ;=> 7",))
JM.add_static("Math", "max", jt.math_max, 2, 2, "(Math/max a b)",
              "The larger of exactly two numbers of the same kind (two integers or two floats); NaN wins.",
              ("(Math/max 1 2) ;=> 2",))
JM.add_static("Math", "min", jt.math_min, 2, 2, "(Math/min a b)",
              "The smaller of exactly two numbers of the same kind (two integers or two floats); NaN wins.",
              ("(Math/min 1 2) ;=> 1",))
JM.add_static("Math", "ceil", jt.math_ceil, 1, 1, "(Math/ceil x)",
              "Rounds up, returning a float (use ceil for an integer).", ("(Math/ceil 1.2) ;=> 2.0",))
JM.add_static("Math", "floor", jt.math_floor, 1, 1, "(Math/floor x)",
              "Rounds down, returning a float (use floor for an integer).", ("(Math/floor -1.2) ;=> -2.0",))
JM.add_static("Math", "round", jt.math_round, 1, 1, "(Math/round x)",
              "Java rounding of a float: floor(x + 0.5) as an integer; NaN gives 0, infinities saturate. "
              "An integer argument is a java_type_error (round accepts both).",
              ("(Math/round -1.5) ;=> -1",))
JM.add_static("Math", "sqrt", jt.math_sqrt, 1, 1, "(Math/sqrt x)",
              "Square root as a float; negative input gives ##NaN.", ("(Math/sqrt 25) ;=> 5.0",))
JM.add_static("Math", "pow", jt.math_pow, 2, 2, "(Math/pow a b)",
              "a raised to b as a float, with Java's special cases (never raises).", ("(Math/pow 2 3) ;=> 8.0",))

# --- java.time
JM.add_static("LocalDate", "parse", jtime.local_date_parse, 1, 1, "(LocalDate/parse s)",
              "Parses a strict ISO date \"yyyy-MM-dd\" into a LocalDate; anything else raises "
              "DateTimeParseException (java_domain_error).",
              ('(.toEpochDay (LocalDate/parse "1970-01-02")) ;=> 1',))
JM.add_static("Instant", "parse", jtime.instant_parse, 1, 1, "(Instant/parse s)",
              "Parses a strict ISO instant with Z or a numeric offset (up to 9 fraction digits) into an Instant.",
              ('(.toEpochMilli (Instant/parse "1970-01-01T00:00:01Z")) ;=> 1000',))
JM.add_static("Duration", "between", jtime.duration_between, 2, 2, "(Duration/between start end)",
              "The Duration from one Instant to another (negative when end is earlier). Only Instants are accepted.",
              ('(.toDays (Duration/between (Instant/parse "2024-01-01T00:00:00Z") '
               '(Instant/parse "2024-01-03T12:00:00Z"))) ;=> 2',))


def _method(name: str, lo: int, hi: int, impls: dict, sig: str, doc: str, examples: tuple = ()):
    spelling = "." + name
    classes = tuple(dict.fromkeys(_class_label(t) for t in impls))

    def dispatch(recv, *args, _impls=impls, _who=spelling, _classes=classes):
        impl = _impls.get(type(recv))
        if impl is None:
            if recv is None:
                raise jt.java_domain_error(_who, "NullPointerException", "the receiver is nil (Java null)",
                                           receiver="nil")
            raise jt.java_type_error(
                _who, f"receiver does not match an admitted class: got {type_name(recv)}, "
                      f"expects {' or '.join(_classes)}", receiver=True, expected=list(_classes),
                actual=type_name(recv))
        return impl(recv, *args)

    fn = JM.JavaFn(spelling, dispatch, lo, hi, f"{'|'.join(classes)}/{name}")
    JM.add_method(name, JM.JavaMember(spelling, fn, None, lo, hi, doc, kind="instance",
                                      java_class=" | ".join(classes), signature=sig, examples=examples))


def _class_label(t) -> str:
    return "java.lang.String" if t is str else t.java_class


# --- java.lang.String (character literals are strings too, DIV-40/41)
_method("indexOf", 2, 3, {str: jt.s_index_of}, "(.indexOf s sub) (.indexOf s sub from)",
        "UTF-16 index of the first sub (a string or a code point) in s, searching from `from`; -1 if absent.",
        ('(.indexOf "hello" "ll") ;=> 2', '(.indexOf "hello" "x") ;=> -1'))
_method("lastIndexOf", 2, 3, {str: jt.s_last_index_of}, "(.lastIndexOf s sub) (.lastIndexOf s sub from)",
        "UTF-16 index of the last sub (a string or a code point) in s starting at or before `from`; -1 if absent.", ('(.lastIndexOf "hello" "l") ;=> 3',))
_method("startsWith", 2, 3, {str: jt.s_starts_with}, "(.startsWith s prefix) (.startsWith s prefix offset)",
        "Whether s begins with prefix (at UTF-16 index offset when given).", ('(.startsWith "hello" "he") ;=> true',))
_method("endsWith", 2, 2, {str: jt.s_ends_with}, "(.endsWith s suffix)",
        "Whether s ends with suffix.", ('(.endsWith "hello" "lo") ;=> true',))
_method("contains", 2, 2, {str: jt.s_contains}, "(.contains s sub)",
        "Whether sub occurs in s.", ('(.contains "hello" "ell") ;=> true',))
_method("length", 1, 1, {str: jt.s_length}, "(.length s)",
        "Length of s in UTF-16 code units (an emoji counts 2; count gives characters).",
        ('(.length "hello") ;=> 5',))
_method("substring", 2, 3, {str: jt.s_substring}, "(.substring s begin) (.substring s begin end)",
        "The UTF-16 slice [begin, end) of s. Out-of-range indexes raise StringIndexOutOfBoundsException "
        "(java_domain_error); subs clamps instead.", ('(.substring "hello" 1 3) ;=> "el"',))
_method("trim", 1, 1, {str: jt.s_trim}, "(.trim s)",
        "s without leading and trailing control characters and spaces (code units <= U+0020).",
        ('(.trim "  Ada  ") ;=> "Ada"',))

# --- java.time.LocalDate / Instant / Duration, java.util.Date
_method("toEpochDay", 1, 1, {LocalDate: jtime.ld_to_epoch_day}, "(.toEpochDay date)",
        "Days from 1970-01-01 to the LocalDate.", ('(.toEpochDay (LocalDate/parse "1970-01-02")) ;=> 1',))
_method("plusDays", 2, 2, {LocalDate: jtime.ld_plus_days}, "(.plusDays date n)",
        "The LocalDate n days later (floats truncate).",
        ('(str (.plusDays (LocalDate/parse "2024-02-28") 1)) ;=> "2024-02-29"',))
_method("minusDays", 2, 2, {LocalDate: jtime.ld_minus_days}, "(.minusDays date n)",
        "The LocalDate n days earlier (floats truncate).",
        ('(str (.minusDays (LocalDate/parse "2024-03-01") 1)) ;=> "2024-02-29"',))
_method("isBefore", 2, 2, {LocalDate: jtime.t_is_before, Instant: jtime.t_is_before},
        "(.isBefore a b)", "Whether LocalDate/Instant a is strictly earlier than b (same class).")
_method("isAfter", 2, 2, {LocalDate: jtime.t_is_after, Instant: jtime.t_is_after},
        "(.isAfter a b)", "Whether LocalDate/Instant a is strictly later than b (same class).")
_method("toEpochMilli", 1, 1, {Instant: jtime.inst_to_epoch_milli}, "(.toEpochMilli instant)",
        "Milliseconds since 1970-01-01T00:00:00Z.")
_method("toMillis", 1, 1, {Duration: jtime.dur_to_millis}, "(.toMillis duration)",
        "Length of the Duration in milliseconds (truncated toward zero).")
_method("toDays", 1, 1, {Duration: jtime.dur_to_days}, "(.toDays duration)",
        "Whole days in the Duration (truncated toward zero).")
_method("getTime", 1, 1, {JavaDate: jtime.date_get_time}, "(.getTime date)",
        "Milliseconds since the epoch of a java.util.Date.", ("(.getTime (java.util.Date. 0)) ;=> 0",))
_method("before", 2, 2, {JavaDate: jtime.date_before}, "(.before d1 d2)",
        "Whether java.util.Date d1 is strictly earlier than d2.")
_method("after", 2, 2, {JavaDate: jtime.date_after}, "(.after d1 d2)",
        "Whether java.util.Date d1 is strictly later than d2.")

# --- java.util.Date constructor
JM.add_constructor("java.util.Date.", JM.JavaMember(
    "java.util.Date.", JM.JavaFn("java.util.Date.", jtime.date_new, 0, 1, "java.util.Date/<init>"), None, 0, 1,
    "A java.util.Date: () is now; (millis) is exact epoch milliseconds; (text) parses a small English grammar "
    "(e.g. \"Jan 2 2024 10:30:00 UTC\", \"2 Jan 2024\", \"1/2/2024 10:30 PST\"; no zone means UTC).",
    kind="constructor", java_class="java.util.Date", signature="(java.util.Date.) (java.util.Date. x)",
    effect="clock", examples=("(.getTime (java.util.Date. 0)) ;=> 0",)))
