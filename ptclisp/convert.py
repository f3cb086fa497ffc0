"""Python data <-> PTC values at the host boundary.

Owns `from_python` (JSON-like host data -> PTC values; dicts keep their key
types, so JSON objects stay string-keyed) and `to_python` (vectors -> list,
maps -> dict, sets -> set, keywords -> name strings; keys that Python would
merge are an error). `from_python` is iterative, so deeply nested host data
cannot exhaust the Python stack. JSON output is `ptclisp.jsonout` (docs/json.md).
"""
from __future__ import annotations

from .errors import PtcError
from .values import Keyword, Map, Set, SymbolRef, VarRef, Vector, hk, unhk

MAX_DEPTH = 10_000


def from_python(x):
    """Convert host data (dict/list/tuple/set/str/int/float/bool/None) into PTC values."""
    t = type(x)
    if x is None or t in (bool, int, float, str, Keyword):
        return x
    if t in (Vector, Map, Set):
        return x
    if t is dict and not x:
        return Map({})
    root = [None]
    # work items: (source, setter)
    stack = [(x, root, 0, 0)]
    while stack:
        src, parent, idx, depth = stack.pop()
        if depth > MAX_DEPTH:
            raise PtcError("memory_exceeded", f"host data nested deeper than {MAX_DEPTH} levels")
        t = type(src)
        if src is None or t in (bool, int, float, str, Keyword, Vector, Map, Set, SymbolRef, VarRef):
            parent[idx] = src
        elif isinstance(src, dict):
            keys = list(src.keys())
            vals = [None] * len(keys)
            parent[idx] = (Map, keys, vals)
            for i, v in enumerate(src.values()):
                stack.append((v, vals, i, depth + 1))
        elif isinstance(src, (list, tuple)):
            items = [None] * len(src)
            parent[idx] = (Vector, items)
            for i, v in enumerate(src):
                stack.append((v, items, i, depth + 1))
        elif isinstance(src, (set, frozenset)):
            items = [None] * len(src)
            parent[idx] = (Set, items)
            for i, v in enumerate(src):
                stack.append((v, items, i, depth + 1))
        elif isinstance(src, bool):
            parent[idx] = bool(src)
        elif isinstance(src, int):
            parent[idx] = int(src)
        elif isinstance(src, float):
            parent[idx] = float(src)
        elif isinstance(src, str):
            parent[idx] = str(src)
        elif callable(src):
            parent[idx] = src
        else:
            from .values import JavaObject
            if isinstance(src, JavaObject):
                parent[idx] = src
            else:
                raise PtcError("type_error", f"cannot pass a host {type(src).__name__} into PTC-Lisp")
    return _finish(root[0])


def _finish(node):
    """Turn the placeholder tuples built by from_python into values, bottom-up, iteratively."""
    if type(node) is not tuple:
        return node
    order = []
    stack = [node]
    while stack:
        n = stack.pop()
        order.append(n)
        for child in (n[2] if n[0] is Map else n[1]):
            if type(child) is tuple:
                stack.append(child)
    built = {}
    for n in reversed(order):
        kind = n[0]
        if kind is Map:
            d = {}
            for k, v in zip(n[1], n[2]):
                d[hk(_from_key(k))] = built[id(v)] if type(v) is tuple else v
            built[id(n)] = Map(d)
        elif kind is Vector:
            built[id(n)] = Vector([built[id(v)] if type(v) is tuple else v for v in n[1]])
        else:
            built[id(n)] = Set.of(built[id(v)] if type(v) is tuple else v for v in n[1])
    return built[id(node)]


def _from_key(k):
    if type(k) is tuple:
        return from_python(list(k))
    return k


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


__all__ = ["from_python", "to_python", "unhk"]
