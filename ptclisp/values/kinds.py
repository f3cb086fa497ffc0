"""What kind of value a value is: the names error messages, contracts and agents use, and truthiness.

Imports values.atoms, values.maps, values.vectors, values.sets.
"""
from __future__ import annotations

from .atoms import JavaObject, Regex, SymbolRef, VarRef
from .maps import Keyword, Map
from .sets import Set
from .vectors import Vector


def is_number(x) -> bool:
    t = type(x)
    return t is int or t is float


def is_fn(x) -> bool:
    """A callable function value: closures, builtins, combinators, tool/Java callables."""
    t = type(x)
    if t is Keyword or t is Map or t is Set or t is Vector:
        return False
    return callable(x) and not isinstance(x, type)


def value_kind(x) -> str:
    """The kind of a value, telling integers from floats: the one table that
    `type_name` and the diagnostic vocabularies of contracts and agents build on."""
    if x is None:
        return "nil"
    t = type(x)
    if t is bool:
        return "boolean"
    if t is int:
        return "integer"
    if t is float:
        return "float"
    if t is str:
        return "string"
    if t is Keyword:
        return "keyword"
    if t is Vector:
        return "vector"
    if t is Map:
        return "map"
    if t is Set:
        return "set"
    if t is Regex:
        return "regex"
    if t is SymbolRef:
        return "symbol"
    if t is VarRef:
        return "var"
    if isinstance(x, JavaObject):
        return x.java_class
    if callable(x):
        return "function"
    return getattr(t, "ptc_kind", "unknown")   # a library value kind (lib/cells.py: atom)


def type_name(x) -> str:
    """The human name of a value's kind, for error messages (integers and floats are numbers)."""
    k = value_kind(x)
    return "number" if k == "integer" or k == "float" else k


def truthy(x) -> bool:
    return x is not None and x is not False
