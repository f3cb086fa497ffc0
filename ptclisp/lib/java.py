"""The closed Java-interop surface (functions.md §7): 40 members of 12 classes.

This module is the only door to Java-named members. It is a fixed table,
never reflection: a user-supplied class or member name is only ever used as a
dictionary key, so nothing outside the table below can be reached (DIV-08).

The analyzer uses four entry points (registered with `@provides`: it reads them from
ptclisp.registry):

    java_static("Math", "sqrt")       static methods and constant fields
    java_method("indexOf")            `.name` instance methods (receiver first)
    java_constructor("java.util.Date.")
    is_java_class_spelling(ns)        whether `ns/...` belongs to the Java path

each returning a `JavaMember` (or raising the analysis-time reasons
`unsupported_java_class`, `unsupported_java_member`, `unsupported_method`).
`JavaMember.fn` is a runtime callable that re-checks its own arity
(`java_arity_error`), so a member used as a value (`(map Math/sqrt xs)`) is
safe too. Fields (`Double/NaN` ...) have `fn=None` and carry `value`; a field
in call position is always `java_arity_error` (`JavaMember.check_arity`).

The member implementations live in java_text (java.lang: numbers, strings,
Math) and java_time (LocalDate, Instant, Duration, java.util.Date).
Imports errors, values, java_text, java_time.
"""
from __future__ import annotations

import math
from typing import Callable

import attrs

from ..errors import PtcError
from ..registry import provides
from ..values import type_name
from . import java_text as jt
from . import java_time as jtime
from .java_time import TEMPORAL_CLASSES, Duration, Instant, JavaDate, LocalDate

__all__ = [
    "JAVA_CLASS_ALIASES", "JAVA_CLASS_NAMES", "JavaMember", "java_static", "java_method", "java_constructor",
    "is_java_class_spelling", "all_members", "LocalDate", "Instant", "Duration", "JavaDate", "TEMPORAL_CLASSES",
]


# ------------------------------------------------------------------ the member record

class JavaFn:
    """The runtime callable of one Java member: checks arity, then runs the fixed implementation."""

    __slots__ = ("spelling", "impl", "min_arity", "max_arity", "ptc_java", "ptc_builtin", "__weakref__")

    def __init__(self, spelling: str, impl: Callable, min_arity: int, max_arity: int | None, label: str):
        self.spelling = spelling
        self.impl = impl
        self.min_arity = min_arity
        self.max_arity = max_arity
        self.ptc_java = label          # e.g. "java.lang.Math/sqrt", for display labels
        self.ptc_builtin = spelling    # printers show builtins without their internals

    def __call__(self, *args):
        n = len(args)
        if n < self.min_arity or (self.max_arity is not None and n > self.max_arity):
            raise _arity_error(self.spelling, n, self.min_arity, self.max_arity)
        return self.impl(*args)

    def __repr__(self):
        return f"#java[{self.ptc_java}]"


def _arity_text(lo: int, hi: int | None) -> str:
    if hi is None:
        return f"{lo} or more"
    if lo == hi:
        return str(lo)
    return f"{lo} to {hi}" if hi - lo > 1 else f"{lo} or {hi}"


def _arity_error(spelling: str, got: int, lo: int, hi: int | None, field: bool = False) -> PtcError:
    if field:
        msg = f"{spelling} is a constant field, not a method; use it without parentheses"
    else:
        msg = f"{spelling} called with {got} argument{'s' if got != 1 else ''}, expects {_arity_text(lo, hi)}"
    return PtcError("java_arity_error", msg, details={"member": spelling, "got": got, "min": lo, "max": hi})


@attrs.frozen
class JavaMember:
    """One admitted Java member.

    For methods and the constructor `fn` is the runtime callable; for instance
    methods the receiver is its first argument and `min_arity`/`max_arity`
    count the receiver. For constant fields `fn` is None and `value` holds the
    constant (min_arity = max_arity = 0 describes "no arguments"; a field in
    call position is nevertheless a `java_arity_error`, see `check_arity`).
    """

    name: str
    fn: Callable | None
    value: object
    min_arity: int
    max_arity: int | None
    doc: str
    kind: str = "static"              # "static" | "field" | "instance" | "constructor"
    java_class: str = ""              # e.g. "java.lang.Math"; for instance methods the receiver classes
    signature: str = ""               # e.g. "(Math/pow a b)"
    effect: str = "pure"              # "clock" for members that read the current time
    examples: tuple = ()

    @property
    def spelling(self) -> str:
        return self.name

    def accepts(self, n: int) -> bool:
        if self.fn is None:
            return False
        return n >= self.min_arity and (self.max_arity is None or n <= self.max_arity)

    def check_arity(self, n: int) -> None:
        """Raise `java_arity_error` unless a call with `n` arguments is admitted."""
        if self.fn is None:
            raise _arity_error(self.name, n, 0, 0, field=True)
        if not self.accepts(n):
            raise _arity_error(self.name, n, self.min_arity, self.max_arity)


# ------------------------------------------------------------------ classes

JAVA_CLASS_NAMES: dict[str, str] = {
    "Boolean": "java.lang.Boolean", "Double": "java.lang.Double", "Float": "java.lang.Float",
    "Integer": "java.lang.Integer", "Long": "java.lang.Long", "Math": "java.lang.Math",
    "System": "java.lang.System", "String": "java.lang.String", "LocalDate": "java.time.LocalDate",
    "Instant": "java.time.Instant", "Duration": "java.time.Duration", "Date": "java.util.Date",
}

# every spelling admitted before `/` -> canonical short class name
JAVA_CLASS_ALIASES: dict[str, str] = {
    "Boolean": "Boolean", "Double": "Double", "Float": "Float", "Integer": "Integer", "Long": "Long",
    "Math": "Math", "System": "System", "LocalDate": "LocalDate", "Instant": "Instant", "Duration": "Duration",
    "java.time.LocalDate": "LocalDate", "java.time.Instant": "Instant", "java.time.Duration": "Duration",
}

CONSTRUCTOR_SPELLINGS = ("java.util.Date.",)


# ------------------------------------------------------------------ the tables

_STATICS: dict[str, dict[str, JavaMember]] = {}
_METHODS: dict[str, JavaMember] = {}
_CONSTRUCTORS: dict[str, JavaMember] = {}


def _static(cls: str, member: str, impl, lo: int, hi: int | None, sig: str, doc: str,
            examples: tuple = (), effect: str = "pure"):
    spelling = f"{cls}/{member}"
    full = JAVA_CLASS_NAMES[cls]
    fn = JavaFn(spelling, impl, lo, hi, f"{full}/{member}")
    _STATICS.setdefault(cls, {})[member] = JavaMember(
        spelling, fn, None, lo, hi, doc, kind="static", java_class=full, signature=sig, effect=effect,
        examples=examples)


def _field(cls: str, member: str, value, doc: str):
    spelling = f"{cls}/{member}"
    _STATICS.setdefault(cls, {})[member] = JavaMember(
        spelling, None, value, 0, 0, doc, kind="field", java_class=JAVA_CLASS_NAMES[cls], signature=spelling)


# --- java.lang.Boolean / Double / Float / Integer / Long
_static("Boolean", "parseBoolean", jt.parse_boolean, 1, 1, "(Boolean/parseBoolean s)",
        "true when s is \"true\" in any letter case; false for nil and every other string.",
        ('(Boolean/parseBoolean "TRUE") ;=> true',))
_static("Double", "parseDouble", jt.parse_double, 1, 1, "(Double/parseDouble s)",
        "Parses Java floating-point text (surrounding whitespace ignored; exponents, hex floats, d/f "
        "suffixes, Infinity and NaN accepted). Bad text raises NumberFormatException (java_domain_error).",
        ('(Double/parseDouble "0x1.8p0") ;=> 1.5',))
_field("Double", "POSITIVE_INFINITY", math.inf, "The float ##Inf.")
_field("Double", "NEGATIVE_INFINITY", -math.inf, "The float ##-Inf.")
_field("Double", "NaN", math.nan, "The float ##NaN (never equal to anything, itself included).")
_static("Float", "parseFloat", jt.parse_float, 1, 1, "(Float/parseFloat s)",
        "Like Double/parseDouble, but the value is rounded to single precision.",
        ('(Float/parseFloat "1.5") ;=> 1.5',))
_static("Integer", "parseInt", jt.parse_int, 1, 2, "(Integer/parseInt s) (Integer/parseInt s radix)",
        "Parses a 32-bit integer, decimal or in the given radix 2..36 (optional sign, no whitespace). Bad or "
        "out-of-range text raises NumberFormatException (java_domain_error); use parse-long for a nil instead.",
        ('(Integer/parseInt "42") ;=> 42',))
_static("Long", "parseLong", jt.parse_long, 1, 2, "(Long/parseLong s) (Long/parseLong s radix)",
        "Parses a 64-bit integer (decimal, or the given radix); otherwise as Integer/parseInt.",
        ('(Long/parseLong "42") ;=> 42',))

# --- java.lang.System
_static("System", "currentTimeMillis", jtime.current_time_millis, 0, 0, "(System/currentTimeMillis)",
        "The current time as milliseconds since 1970-01-01T00:00:00Z (reads the clock).", effect="clock")

# --- java.lang.Math
_static("Math", "abs", jt.math_abs, 1, 1, "(Math/abs x)",
        "Java absolute value of an integer (64-bit; the minimum long stays negative) or a float.",
        ("(Math/abs -7) ;=> 7",))
_static("Math", "max", jt.math_max, 2, 2, "(Math/max a b)",
        "The larger of exactly two numbers of the same kind (two integers or two floats); NaN wins.",
        ("(Math/max 1 2) ;=> 2",))
_static("Math", "min", jt.math_min, 2, 2, "(Math/min a b)",
        "The smaller of exactly two numbers of the same kind (two integers or two floats); NaN wins.",
        ("(Math/min 1 2) ;=> 1",))
_static("Math", "ceil", jt.math_ceil, 1, 1, "(Math/ceil x)",
        "Rounds up, returning a float (use ceil for an integer).", ("(Math/ceil 1.2) ;=> 2.0",))
_static("Math", "floor", jt.math_floor, 1, 1, "(Math/floor x)",
        "Rounds down, returning a float (use floor for an integer).", ("(Math/floor -1.2) ;=> -2.0",))
_static("Math", "round", jt.math_round, 1, 1, "(Math/round x)",
        "Java rounding of a float: floor(x + 0.5) as an integer; NaN gives 0, infinities saturate. "
        "An integer argument is a java_type_error (round accepts both).",
        ("(Math/round -1.5) ;=> -1",))
_static("Math", "sqrt", jt.math_sqrt, 1, 1, "(Math/sqrt x)",
        "Square root as a float; negative input gives ##NaN.", ("(Math/sqrt 25) ;=> 5.0",))
_static("Math", "pow", jt.math_pow, 2, 2, "(Math/pow a b)",
        "a raised to b as a float, with Java's special cases (never raises).", ("(Math/pow 2 3) ;=> 8.0",))

# --- java.time
_static("LocalDate", "parse", jtime.local_date_parse, 1, 1, "(LocalDate/parse s)",
        "Parses a strict ISO date \"yyyy-MM-dd\" into a LocalDate; anything else raises "
        "DateTimeParseException (java_domain_error).",
        ('(.toEpochDay (LocalDate/parse "1970-01-02")) ;=> 1',))
_static("Instant", "parse", jtime.instant_parse, 1, 1, "(Instant/parse s)",
        "Parses a strict ISO instant with Z or a numeric offset (up to 9 fraction digits) into an Instant.",
        ('(.toEpochMilli (Instant/parse "1970-01-01T00:00:01Z")) ;=> 1000',))
_static("Duration", "between", jtime.duration_between, 2, 2, "(Duration/between start end)",
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

    fn = JavaFn(spelling, dispatch, lo, hi, f"{'|'.join(classes)}/{name}")
    _METHODS[name] = JavaMember(spelling, fn, None, lo, hi, doc, kind="instance", java_class=" | ".join(classes),
                                signature=sig, examples=examples)


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
_CONSTRUCTORS["java.util.Date."] = JavaMember(
    "java.util.Date.", JavaFn("java.util.Date.", jtime.date_new, 0, 1, "java.util.Date/<init>"), None, 0, 1,
    "A java.util.Date: () is now; (millis) is exact epoch milliseconds; (text) parses a small English grammar "
    "(e.g. \"Jan 2 2024 10:30:00 UTC\", \"2 Jan 2024\", \"1/2/2024 10:30 PST\"; no zone means UTC).",
    kind="constructor", java_class="java.util.Date", signature="(java.util.Date.) (java.util.Date. x)",
    effect="clock", examples=("(.getTime (java.util.Date. 0)) ;=> 0",))


# ------------------------------------------------------------------ lookups

def _admitted_classes_text() -> str:
    return ", ".join(sorted({k for k in JAVA_CLASS_ALIASES if "." not in k})) + \
        ", java.time.LocalDate, java.time.Instant, java.time.Duration and the constructor java.util.Date."


@provides("is_java_class_spelling")
def is_java_class_spelling(ns: str) -> bool:
    """Whether `ns/...` is handled by the Java path: an admitted class spelling, or any `java.*` spelling
    (which java_static then rejects with `unsupported_java_class`)."""
    return ns in JAVA_CLASS_ALIASES or ns.startswith("java.")


@provides("java_static")
def java_static(class_spelling: str, member: str) -> JavaMember:
    """The static method or constant field `class_spelling/member`."""
    cls = JAVA_CLASS_ALIASES.get(class_spelling)
    if cls is None:
        hint = ""
        if class_spelling.startswith("java.lang."):
            short = class_spelling[len("java.lang."):]
            if short in JAVA_CLASS_ALIASES:
                hint = f" (write {short}/{member} instead)"
        elif class_spelling == "java.util.Date":
            hint = " (java.util.Date has no static members; construct one with (java.util.Date. x))"
        raise PtcError("unsupported_java_class",
                       f"Java class {class_spelling} is not available{hint}. Admitted classes: "
                       f"{_admitted_classes_text()}",
                       details={"class": class_spelling, "member": member,
                                "available_classes": sorted(JAVA_CLASS_ALIASES)})
    members = _STATICS[cls]
    m = members.get(member)
    if m is None:
        names = sorted(members)
        raise PtcError("unsupported_java_member",
                       f"{class_spelling}/{member} is not available. {cls} members: "
                       + ", ".join(f"{cls}/{n}" for n in names),
                       details={"class": class_spelling, "member": member, "available_members": names})
    return m


@provides("java_method")
def java_method(name: str) -> JavaMember:
    """The `.name` instance method family (receiver first; dispatches on the receiver's class)."""
    key = name[1:] if name.startswith(".") else name
    m = _METHODS.get(key)
    if m is None:
        names = sorted(_METHODS)
        raise PtcError("unsupported_method",
                       f".{key} is not a supported Java method. Supported: " + ", ".join("." + n for n in names),
                       details={"method": "." + key, "available_methods": ["." + n for n in names]})
    return m


@provides("java_constructor")
def java_constructor(spelling: str) -> JavaMember:
    """The constructor named by `spelling` (only `java.util.Date.` is admitted)."""
    key = spelling if spelling.endswith(".") else spelling + "."
    m = _CONSTRUCTORS.get(key)
    if m is None:
        raise PtcError("unsupported_java_class",
                       f"Java constructor {spelling} is not available; the only admitted constructor is "
                       "(java.util.Date. ...)",
                       details={"class": spelling.rstrip("."), "available_constructors": list(_CONSTRUCTORS)})
    return m


def all_members() -> list[JavaMember]:
    """Every admitted member (statics and fields, instance methods, constructor), for introspection."""
    out = [m for cls in sorted(_STATICS) for _, m in sorted(_STATICS[cls].items())]
    out += [m for _, m in sorted(_METHODS.items())]
    out += list(_CONSTRUCTORS.values())
    return out


def class_members(class_spelling: str) -> list[str]:
    """Static member names of an admitted class spelling (empty for unknown spellings)."""
    cls = JAVA_CLASS_ALIASES.get(class_spelling)
    return sorted(_STATICS.get(cls, {})) if cls else []
