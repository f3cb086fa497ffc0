"""Envelopes and projections: Lisp <-> host data at the agent boundary.

Owns the small conversions every host binding needs: keyword-keyed
envelopes (`envelope_ok`, `envelope_error`, `kwmap`), the JSON projection of
Lisp values (`project`, which is `ptclisp.interchange.json_out.to_json`: keywords become
their names, nothing is renamed, anything JSON cannot carry is reported
instead of guessed) and the way back (`from_json`: JSON objects stay
string-keyed).  Imports values, convert and jsonout.
"""
from __future__ import annotations

from ..interchange.python import from_python
from ..interchange.json_out import JsonValueError, to_json
from ..values import Keyword, Map, value_kind

K = Keyword


#: A Lisp value that has no JSON form (a function, NaN, two keys that become one string, ...).
NotJson = JsonValueError


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


def project(value):
    """The JSON form of a Lisp value (or of host data holding Lisp values): `ptclisp.interchange.json_out.to_json`.

    Keywords become their names, vectors and sets lists, maps string-keyed
    dicts (integer, float, boolean and nil keys become their JSON text);
    raises NotJson (`JsonValueError`) when the value holds something JSON
    cannot carry, naming it. The rules are those of docs/json.md.
    """
    return to_json(value)


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
