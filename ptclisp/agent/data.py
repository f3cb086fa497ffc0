"""Lisp <-> host data at the agent boundary.

Owns the small conversions every host binding needs: keyword-keyed
envelopes (`envelope_ok`, `envelope_error`, `kwmap`), the JSON projection of
Lisp values (`project`: keywords become their names, nothing is renamed,
anything JSON cannot carry is reported instead of guessed) and the way back
(`from_json`: JSON objects stay string-keyed).  Imports values and convert.
"""
from __future__ import annotations

import math

from ..convert import from_python
from ..values import Keyword, Map, Set, Vector, sorted_members, value_kind

K = Keyword


class NotJson(ValueError):
    """A Lisp value that has no JSON form (a function, a non-string map key, NaN, ...)."""


def kwmap(pairs: dict) -> Map:
    """A Lisp map whose keys are the keywords named by `pairs`' keys; values are taken as they are."""
    return Map({K(k): v for k, v in pairs.items()})


def envelope_ok(value) -> Map:
    """`{:status :ok :value value}`."""
    return kwmap({"status": K("ok"), "value": value})


def envelope_error(kind: str, reason: str, **extra) -> Map:
    """`{:status :error :kind :<kind> :reason :<reason> ...extra}` (extra keys become keywords as given)."""
    out = {"status": K("error"), "kind": K(kind), "reason": K(reason)}
    out.update(extra)
    return kwmap(out)


def keywordize_envelope(env: dict) -> Map:
    """A plain error/ok envelope dict -> Lisp map: keys and the closed-vocabulary values become keywords.

    `details` stays data; a dict under `details` gets keyword keys so that
    `(get-in e [:details :limit])` reads naturally; its `limit` value
    becomes a keyword too (`:max_calls`).
    """
    out = {}
    for k, v in env.items():
        if k in ("status", "kind", "reason") and isinstance(v, str):
            v = K(v)
        elif k == "details" and isinstance(v, dict):
            v = kwmap({dk: (K(dv) if dk == "limit" and isinstance(dv, str) else from_python(dv))
                       for dk, dv in v.items()})
        else:
            v = from_python(v)
        out[K(k)] = v
    return Map(out)


def project(value, *, max_depth: int = 10_000):
    """The JSON form of a Lisp value: keywords -> names, vectors/sets -> lists, maps -> string-keyed dicts.

    Raises NotJson when the value holds something JSON cannot carry.
    Iterative, so deep data cannot exhaust the Python stack.
    """
    root: list = [None]
    stack = [(value, root, 0, 0)]
    while stack:
        x, parent, idx, depth = stack.pop()
        if depth > max_depth:
            raise NotJson("nested too deeply")
        t = type(x)
        if x is None or t is bool or t is int or t is str:
            parent[idx] = x
        elif t is float:
            if not math.isfinite(x):
                raise NotJson("non-finite number")
            parent[idx] = x
        elif t is Keyword:
            parent[idx] = x.name
        elif t is Vector or t is Set:
            items = x.lst() if t is Vector else sorted_members(x)
            out = [None] * len(items)
            parent[idx] = out
            for i, v in enumerate(items):
                stack.append((v, out, i, depth + 1))
        elif t is Map:
            out = {}
            parent[idx] = out
            for k, v in x.items():
                if type(k) is str:
                    key = k
                elif type(k) is Keyword:
                    key = k.name
                else:
                    raise NotJson("a map key that is not a string or keyword")
                if key in out:
                    raise NotJson("two map keys project to the same string")
                out[key] = None
                stack.append((v, out, key, depth + 1))
        elif isinstance(x, dict):          # host data that never became Lisp data
            out = {}
            parent[idx] = out
            for k, v in x.items():
                if not isinstance(k, str):
                    raise NotJson("a map key that is not a string")
                out[k] = None
                stack.append((v, out, k, depth + 1))
        elif isinstance(x, (list, tuple)):
            out = [None] * len(x)
            parent[idx] = out
            for i, v in enumerate(x):
                stack.append((v, out, i, depth + 1))
        else:
            raise NotJson(f"a {type(x).__name__} value")
    return root[0]


def try_project(value):
    """(True, json) when `value` projects, else (False, None)."""
    try:
        return True, project(value)
    except NotJson:
        return False, None


def from_json(obj):
    """JSON data -> Lisp data (objects stay string-keyed)."""
    return from_python(obj)


def lisp_kind(value) -> str:
    """A short, value-free label of a Lisp value's type (used in diagnostics)."""
    k = value_kind(value)
    return k if k in _LISP_KINDS else "other"


_LISP_KINDS = frozenset({"nil", "boolean", "integer", "float", "string", "keyword", "vector", "map", "set",
                         "function"})


def arg_map(args: tuple) -> Map | None:
    """The single map argument of a host-binding call, or None when the call shape is wrong."""
    if len(args) == 1 and type(args[0]) is Map:
        return args[0]
    if len(args) == 0:
        return Map({})
    if len(args) % 2 == 0 and all(type(a) in (Keyword, str) for a in args[::2]):
        return Map.from_pairs((args[i], args[i + 1]) for i in range(0, len(args), 2))
    return None
