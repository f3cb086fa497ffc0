"""The inert atoms: quoted symbols, `#'name` vars, regexes and the base of Java-interop values.

Nil, booleans, numbers and strings are Python's own values; keywords live
with maps (values/maps.py), which they index.
Imports ptclisp.errors.
"""
from __future__ import annotations

from ..errors import PtcError


class SymbolRef:
    """An inert quoted symbol (`'name`, `'ns/name`)."""

    __slots__ = ("ns", "name")

    def __init__(self, ns: str | None, name: str):
        self.ns = ns
        self.name = name

    @property
    def full(self) -> str:
        return f"{self.ns}/{self.name}" if self.ns else self.name

    def __eq__(self, other):
        return type(other) is SymbolRef and other.ns == self.ns and other.name == self.name

    def __hash__(self):
        return hash(("sym", self.ns, self.name))

    def __repr__(self):
        return "'" + self.full


class VarRef:
    """What `def`/`defn` return: displays as `#'name`; inert."""

    __slots__ = ("name",)

    def __init__(self, name: str):
        self.name = name

    def __eq__(self, other):
        return type(other) is VarRef and other.name == self.name

    def __hash__(self):
        return hash(("var", self.name))

    def __repr__(self):
        return "#'" + self.name


class Regex:
    """A compiled regular expression with its PTC source text."""

    __slots__ = ("source", "compiled")

    def __init__(self, source: str, compiled):
        self.source = source
        self.compiled = compiled

    def __repr__(self):
        return '#"' + self.source + '"'


class JavaObject:
    """Base of the bounded Java-interop wrappers (LocalDate, Instant, ...)."""

    __slots__ = ()
    java_class = "java.lang.Object"

    def sort_key(self):  # pragma: no cover - overridden
        raise PtcError("type_error", f"cannot compare {self.java_class}")
