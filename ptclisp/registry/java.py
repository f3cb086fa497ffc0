"""The Java-interop table: admitted classes, member records and their lookups.

A leaf below the analyzer, filled by `lib.java` when the library loads (as the
builtin registry is filled by the builtin families). It is a fixed table,
never reflection: a user-supplied class or member name is only ever used as a
dictionary key, so nothing outside the table can be reached (DIV-08).

The analyzer resolves Java spellings through four entry points:

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
Imports errors.
"""
from __future__ import annotations

from typing import Callable

import attrs

from ..errors import PtcError

__all__ = [
    "JAVA_CLASS_ALIASES", "JAVA_CLASS_NAMES", "JavaFn", "JavaMember",
    "add_static", "add_field", "add_method", "add_constructor",
    "java_static", "java_method", "java_constructor", "is_java_class_spelling", "all_members",
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


# ------------------------------------------------------------------ the tables (filled by lib.java)

_STATICS: dict[str, dict[str, JavaMember]] = {}
_METHODS: dict[str, JavaMember] = {}
_CONSTRUCTORS: dict[str, JavaMember] = {}


def add_static(cls: str, member: str, impl, lo: int, hi: int | None, sig: str, doc: str,
               examples: tuple = (), effect: str = "pure"):
    """Admit the static method `cls/member`, run by `impl` with `lo`..`hi` arguments."""
    spelling = f"{cls}/{member}"
    full = JAVA_CLASS_NAMES[cls]
    fn = JavaFn(spelling, impl, lo, hi, f"{full}/{member}")
    _STATICS.setdefault(cls, {})[member] = JavaMember(
        spelling, fn, None, lo, hi, doc, kind="static", java_class=full, signature=sig, effect=effect,
        examples=examples)


def add_field(cls: str, member: str, value, doc: str):
    """Admit the constant field `cls/member`."""
    spelling = f"{cls}/{member}"
    _STATICS.setdefault(cls, {})[member] = JavaMember(
        spelling, None, value, 0, 0, doc, kind="field", java_class=JAVA_CLASS_NAMES[cls], signature=spelling)


def add_method(name: str, member: JavaMember):
    """Admit the instance method `.name` (its `fn` dispatches on the receiver's class)."""
    _METHODS[name] = member


def add_constructor(spelling: str, member: JavaMember):
    """Admit the constructor `spelling` (e.g. `java.util.Date.`)."""
    _CONSTRUCTORS[spelling] = member


# ------------------------------------------------------------------ lookups

def _admitted_classes_text() -> str:
    return ", ".join(sorted({k for k in JAVA_CLASS_ALIASES if "." not in k})) + \
        ", java.time.LocalDate, java.time.Instant, java.time.Duration and the constructor java.util.Date."


def is_java_class_spelling(ns: str) -> bool:
    """Whether `ns/...` is handled by the Java path: an admitted class spelling, or any `java.*` spelling
    (which java_static then rejects with `unsupported_java_class`)."""
    return ns in JAVA_CLASS_ALIASES or ns.startswith("java.")


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
