"""Independent copies of values (`detach`): what a session hands its host, and what `copy.deepcopy` gives.

Every vector, map and set is rebuilt; a part shared in the original stays
shared in the copy (it is copied once), everything else is kept as it is.
With `label_functions`, functions become their display labels (`#fn[x]`),
so the copy can be pickled (values leaving an isolated process). A host
cannot change a session's values or a cached program's constants through a
copy. Host data coming in takes the same walk (`convert.from_python`).
Imports ptclisp.errors and values.atoms, values.keys, values.maps, values.vectors, values.sets,
values.text, values.walk.
"""
from __future__ import annotations

from ..errors import PtcError
from .atoms import JavaObject
from .keys import hk
from .maps import Keyword, Map
from .sets import SORTED, Set
from .text import fn_label
from .vectors import LIST, Vector
from .walk import walk

_ATOMS = frozenset({type(None), bool, int, float, str, Keyword})


def detach(x, *, label_functions: bool = False):
    """An independent copy of a PTC value: vectors, maps and sets are rebuilt (shared parts stay
    shared), everything else is kept. With `label_functions`, functions become their display
    labels (`#fn[x]`), so the copy can be pickled."""
    t = type(x)
    if t is not Vector and t is not Map and t is not Set:
        return _label(x, t) if label_functions and t not in _ATOMS else x
    return _copy(x, label_functions)


def detach_all(xs) -> list:
    """`detach` of each value of `xs`, sharing one memo (a part two values share stays shared)."""
    return _copy(Vector(list(xs)), False).lst()


def _label(x, t):
    """A function's display label; any other value as it is."""
    if callable(x) and not isinstance(x, JavaObject):
        return fn_label(x)
    return x


def _rebuild(src, parts: list):
    t = type(src)
    if t is Vector:
        return Vector(parts, LIST if src._owner is LIST else None)
    if t is Map:
        return Map(zip(parts[0::2], parts[1::2]))   # the parts of a map are its stored keys already
    return Set({hk(v): v for v in parts}, SORTED if src._owner is SORTED else None)


def _copy(root, label: bool):
    try:
        return walk(root, leaf=_label if label else None, leave=_rebuild, once=True, build=True, skip=_ATOMS)
    except RecursionError:  # hashing a deeply nested set member or map key
        raise PtcError("memory_exceeded", "a value nested too deeply to copy") from None
