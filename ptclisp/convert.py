"""Python data <-> PTC values at the host boundary.

Owns the one walk every piece of host data takes into the language and every
value takes out of it:

* `from_python` (host data -> fresh PTC values): the context of a run or
  Session, tool results (`strict=True`), agent mission data. Dicts keep their
  key types, so JSON objects stay string-keyed; PTC collections are copied
  too, so the host keeps no handle on what a program holds.
* `detach` (PTC value -> an independent copy): what `Session.eval`, its
  history and its definitions hand to the host, so a host cannot change a
  session's values or a cached program's constants through a result.
* `to_python` (PTC values -> plain lists, dicts, sets and strings; keys that
  Python would merge are an error). JSON output is `ptclisp.jsonout`
  (docs/json.md).

The walk is iterative, remembers every container it has converted (shared
parts are converted once and stay shared, so the work is linear in the
distinct objects) and bounds nesting at `MAX_DEPTH`: a container that holds
itself, data nested deeper than that and objects the language cannot hold
raise `HostDataError` at once, so no host data can hang the walk or grow
memory without bound.
"""
from __future__ import annotations

from itertools import chain

from .errors import PtcError
from .values import JavaObject, Keyword, Map, Regex, Set, SymbolRef, VarRef, Vector, hk, unhk
from .values import _BoolKey, _FloatKey

MAX_DEPTH = 10_000
_TICK = 1024   # containers converted between two deadline checks (with a meter)


class HostDataError(PtcError):
    """Host data the language cannot hold. `reason` says why in a few words
    (a cycle, nesting deeper than MAX_DEPTH, or the name of a foreign type)."""

    def __init__(self, kind: str, message: str, reason: str):
        super().__init__(kind, message, details={"reason": reason})
        self.reason = reason


# What a walk does with a value that is neither plain data nor a collection.
_DATA = 0     # context and Session data: host functions and Java wrappers pass; other objects are refused
_STRICT = 1   # tool results: JSON-like data and PTC data only
_COPY = 2     # values leaving an evaluation: every non-collection is kept as it is
_LABEL = 3    # like _COPY, with functions replaced by their display labels (values leaving a process)

_ATOMS = frozenset({type(None), bool, int, float, str, Keyword})
_INERT = frozenset({SymbolRef, VarRef, Regex, _FloatKey, _BoolKey})   # immutable values kept as they are
_VEC, _SET, _MAP = 0, 1, 2
_BUSY = object()   # memo entry of a container whose conversion is under way
_NO = object()


def from_python(x, *, strict: bool = False, max_depth: int = MAX_DEPTH, meter=None):
    """Convert host data into fresh PTC values.

    Accepts None, booleans, numbers, strings, keywords, dicts, lists, tuples,
    sets, frozensets (subclasses become the base type) and PTC values, which
    are copied. Without `strict`, host functions and Java wrappers are kept
    as they are; with `strict` (tool results) they are refused. Raises
    `HostDataError` for a cycle, nesting deeper than `max_depth` and objects
    the language cannot hold. With a `meter`, its deadline is checked as the
    walk goes.
    """
    if type(x) in _ATOMS:
        return x
    return _walk(x, _STRICT if strict else _DATA, max_depth, meter)


def detach(x, *, label_functions: bool = False):
    """An independent copy of a PTC value: vectors, maps and sets are rebuilt (shared parts stay
    shared), everything else is kept. With `label_functions`, functions become their display
    labels (`#fn[x]`), so the copy can be pickled."""
    t = type(x)
    if t is not Vector and t is not Map and t is not Set:
        return _leaf(x, t, _LABEL) if label_functions and t not in _ATOMS else x
    return _walk(x, _LABEL if label_functions else _COPY, None, None)


def detach_all(xs) -> list:
    """`detach` of each value of `xs`, sharing one memo (a part two values share stays shared)."""
    return _walk(list(xs), _COPY, None, None).lst()


def _open(x, t):
    """(kind, iterator over the parts) when `x` is a collection, else None. Map parts come as
    key, value, key, value, ... (a PTC map's stored keys are already storage keys)."""
    if t is Vector:
        return _VEC, iter(x.lst())
    if t is Map:
        return _MAP, chain.from_iterable(dict.items(x))
    if t is Set:
        return _SET, iter(x.d().values())
    if t is list or t is tuple:
        return _VEC, iter(x)
    if t is dict:
        return _MAP, chain.from_iterable(x.items())
    if isinstance(x, dict):
        return _MAP, chain.from_iterable(x.items())
    if isinstance(x, (list, tuple)):
        return _VEC, iter(x)
    if isinstance(x, (set, frozenset)):
        return _SET, iter(x)
    return None


def _build(kind: int, out: list):
    if kind == _VEC:
        return Vector(out)
    if kind == _MAP:
        return Map(zip(map(hk, out[0::2]), out[1::2]))
    return Set({hk(v): v for v in out})


def _leaf(x, t, mode: int):
    """A value that is neither a plain atom nor a collection, as the walk `mode` takes it."""
    if t in _INERT:
        if mode != _STRICT or t is _FloatKey or t is _BoolKey:
            return x
    elif isinstance(x, bool):
        return bool(x)
    elif isinstance(x, int):
        return int(x)
    elif isinstance(x, float):
        return float(x)
    elif isinstance(x, str):
        return str(x)
    elif mode == _COPY:
        return x
    elif isinstance(x, JavaObject):
        if mode != _STRICT:
            return x
    elif callable(x):
        if mode == _LABEL:
            from .printer import fn_label
            return fn_label(x)
        if mode == _DATA:
            return x
    elif mode == _LABEL:
        return x
    name = type(x).__name__
    if mode == _STRICT:
        raise HostDataError("type_error", f"a host {name} cannot be held by PTC-Lisp", name)
    raise HostDataError("type_error", f"cannot pass a host {name} into PTC-Lisp", name)


def _walk(root, mode: int, max_depth: int | None, meter):
    """Convert `root` (not an atom) depth first without recursion; see the module docstring."""
    memo: dict = {}          # id(source container) -> its conversion, or _BUSY while under way
    frames: list = []        # the enclosing containers: (kind, source, parts iterator, converted parts)
    result: list = []
    kind, src, it, out = _VEC, None, iter((root,)), result
    opened = 0
    try:
        while True:
            for x in it:
                t = type(x)
                if t in _ATOMS:
                    out.append(x)
                    continue
                done = memo.get(id(x), _NO)
                if done is not _NO:
                    if done is _BUSY:
                        raise HostDataError("type_error", "host data contains a cycle (a container that holds "
                                                          "itself); pass tree-shaped data", "a cycle")
                    out.append(done)
                    continue
                opening = _open(x, t)
                if opening is None:
                    out.append(_leaf(x, t, mode))
                    continue
                if max_depth is not None and len(frames) >= max_depth:
                    raise HostDataError("memory_exceeded", f"host data nested deeper than {max_depth} levels",
                                        f"nested deeper than {max_depth} levels")
                opened += 1
                if meter is not None and not opened % _TICK:
                    meter.check()
                memo[id(x)] = _BUSY
                frames.append((kind, src, it, out))
                src = x
                kind, it = opening
                out = []
                break
            else:
                if not frames:
                    return result[0]
                value = _build(kind, out)
                memo[id(src)] = value
                kind, src, it, out = frames.pop()
                out.append(value)
    except RecursionError:  # hashing a deeply nested set member or map key
        raise HostDataError("memory_exceeded", "host data nested too deeply to convert",
                            "nested too deeply") from None


def to_python(x, *, keyword_names: bool = True):
    """Plain Python data: vectors -> list, maps -> dict, sets -> set, keywords -> their name.

    Map keys and set members convert like any value and stay Python keys of
    their own type (1 stays the int 1, nil stays None); keys that are
    collections become tuples / frozensets so they stay hashable. Where two
    distinct PTC keys or members become one Python key (`:a` and "a" with
    keyword names; 1, 1.0 and true, which Python dicts merge) a PtcError
    `public_projection_collision` is raised instead of losing an entry.
    NaN and infinite floats are kept as Python floats. For JSON use
    `ptclisp.jsonout.to_json` (string keys, no NaN; docs/json.md).
    """
    return _to_py(x, keyword_names, 0)


def _merged(kind: str, originals, kn, depth) -> PtcError:
    from .printer import pr_str
    seen = {}
    for k in originals:
        key = _hashable(_to_py(k, kn, depth + 1))
        if key in seen:
            a, b = pr_str(seen[key])[:40], pr_str(k)[:40]
            return PtcError("public_projection_collision",
                            f"{kind} {a} and {b} become one Python {'key' if kind == 'map keys' else 'value'} "
                            f"({key!r:.40}); Python cannot keep them apart")
        seen[key] = k
    return PtcError("public_projection_collision", f"two {kind} become one Python value")


def _to_py(x, kn, depth):
    if depth > MAX_DEPTH:
        raise PtcError("memory_exceeded", "value nested too deeply to convert")
    t = type(x)
    if t is Keyword:
        return x.name if kn else x
    if t is Vector:
        return [_to_py(v, kn, depth + 1) for v in x.lst()]
    if t is Map:
        out = {}
        for k, v in x.items():
            out[_hashable(_to_py(k, kn, depth + 1))] = _to_py(v, kn, depth + 1)
        if len(out) != len(x):
            raise _merged("map keys", x.keys(), kn, depth)
        return out
    if t is Set:
        members = x.members()
        out = {_hashable(_to_py(v, kn, depth + 1)) for v in members}
        if len(out) != len(members):
            raise _merged("set members", members, kn, depth)
        return out
    if t is SymbolRef:
        return x.full
    if t is VarRef:
        return "#'" + x.name
    from .values import JavaObject
    if isinstance(x, JavaObject):
        return x.to_text()
    return x


def _hashable(v):
    if isinstance(v, list):
        return tuple(_hashable(i) for i in v)
    if isinstance(v, dict):
        return tuple(sorted(((_hashable(k), _hashable(val)) for k, val in v.items()), key=repr))
    if isinstance(v, set):
        return frozenset(v)
    return v


__all__ = ["HostDataError", "detach", "detach_all", "from_python", "to_python", "unhk"]
