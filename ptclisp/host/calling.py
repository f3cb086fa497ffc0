"""How a plain Python callable is called as a tool, and the argument schema its signature gives.

One binding path: `ptclisp.host.tools.ToolSet` (the API's `tools={name: fn}`, `--tools
module:attr`) and the agent's capabilities (`ptclisp.agent.python_tools.capability_for`, a
project's `[tools.NAME] python = ...`) all call a plain function through
`calling_convention`, so `def customer(customer_id: str)` works the same everywhere.

Two calling conventions, told apart by the signature:

* the tool convention - one parameter that takes the argument map (no
  annotation, or `dict` / a `Mapping` / a `TypedDict`): `fn(args)`.  A
  `TypedDict` annotation gives the schema (its keys and their types);
* keyword parameters - anything else, e.g. `def lookup(id: int, note:
  str = "")`: the program's argument map is passed as keywords,
  `fn(**args)`; each parameter is a property, required unless it has a
  default, and no other key is accepted unless the function takes
  `**kwargs`.

Type hints map to JSON Schema: int -> integer, float -> number, str ->
string, bool -> boolean, list/tuple/set[X] -> array of X, dict[str, X] ->
object, `X | None` / Optional[X] -> X or null, Literal[...] -> enum (typed when
its values share one type), anything else -> no constraint.  Imports only the
standard library.
"""
from __future__ import annotations

import collections.abc
import inspect
import types
import typing

MAX_DEPTH = 6


def calling_convention(fn):
    """(the callable the mission calls with the argument dict, its input JSON Schema or None)."""
    try:
        sig = inspect.signature(fn)
    except (TypeError, ValueError):          # a builtin without a signature: the tool convention, no schema
        return fn, None
    hints = _hints(fn)
    params = [p for p in sig.parameters.values() if p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)]
    var_kw = any(p.kind == p.VAR_KEYWORD for p in sig.parameters.values())
    if len(params) == 1 and not var_kw and params[0].kind != params[0].KEYWORD_ONLY:
        hint = hints.get(params[0].name, inspect.Parameter.empty)
        if hint is inspect.Parameter.empty or _is_mapping(hint):
            return fn, _typed_dict_schema(hint) if _is_typed_dict(hint) else None
    if any(p.kind == p.POSITIONAL_ONLY for p in params) or \
            any(p.kind == p.VAR_POSITIONAL for p in sig.parameters.values()):
        return fn, None                      # not callable with keywords alone: leave it as it is
    props, required = {}, []
    for p in params:
        props[p.name] = schema_of(hints.get(p.name, inspect.Parameter.empty))
        if p.default is p.empty:
            required.append(p.name)
    schema = {"type": "object", "properties": props, "additionalProperties": var_kw}
    if required:
        schema["required"] = required

    def call(args):
        return fn(**args)

    call.__name__ = getattr(fn, "__name__", "tool")
    call.__doc__ = getattr(fn, "__doc__", None)
    return call, schema


def _hints(fn) -> dict:
    try:
        return typing.get_type_hints(fn)
    except Exception:  # noqa: BLE001 - unresolvable string annotations: take them as written
        return dict(getattr(fn, "__annotations__", {}) or {})


def _is_typed_dict(hint) -> bool:
    return isinstance(hint, type) and issubclass(hint, dict) and hasattr(hint, "__annotations__") \
        and hasattr(hint, "__total__")


def _is_mapping(hint) -> bool:
    origin = typing.get_origin(hint) or hint
    return _is_typed_dict(hint) or (isinstance(origin, type) and issubclass(origin, collections.abc.Mapping))


def _typed_dict_schema(td) -> dict:
    hints = _hints(td)
    required = sorted(getattr(td, "__required_keys__", hints))
    schema = {"type": "object", "properties": {k: schema_of(v) for k, v in hints.items()}}
    if required:
        schema["required"] = [k for k in hints if k in required]
    return schema


_SCALARS = {int: "integer", float: "number", str: "string", bool: "boolean", type(None): "null"}


def schema_of(hint, depth: int = 0) -> dict:
    """The JSON Schema a type hint describes ({} when it says nothing usable)."""
    if hint is inspect.Parameter.empty or hint is typing.Any or depth > MAX_DEPTH:
        return {}
    if hint in _SCALARS:
        return {"type": _SCALARS[hint]}
    origin, args = typing.get_origin(hint), typing.get_args(hint)
    if origin is typing.Union or (hasattr(types, "UnionType") and origin is types.UnionType):
        parts = [schema_of(a, depth + 1) for a in args]
        simple = [p.get("type") for p in parts if set(p) == {"type"} and isinstance(p.get("type"), str)]
        if len(simple) == len(parts):
            return {"type": simple}
        rest = [p for p in parts if p != {"type": "null"}]
        if len(rest) == 1 and len(parts) == 2 and isinstance(rest[0].get("type"), str):
            return dict(rest[0], type=[rest[0]["type"], "null"])      # Optional[X]: X or null
        return {"anyOf": parts} if all(parts) else {}
    if origin is typing.Literal:
        kinds = {_SCALARS.get(type(a)) for a in args}
        return {"type": kinds.pop(), "enum": list(args)} if len(kinds) == 1 and None not in kinds \
            else {"enum": list(args)}
    if _is_typed_dict(hint):
        return _typed_dict_schema(hint)
    base = origin or hint
    if isinstance(base, type):
        if issubclass(base, (str, bytes)):
            return {"type": "string"} if issubclass(base, str) else {}
        if issubclass(base, collections.abc.Mapping):
            out = {"type": "object"}
            if len(args) == 2 and schema_of(args[1], depth + 1):
                out["additionalProperties"] = schema_of(args[1], depth + 1)
            return out
        if issubclass(base, (list, tuple, set, frozenset, collections.abc.Sequence, collections.abc.Set)):
            out = {"type": "array"}
            item = args[0] if args and (base is not tuple or len(args) == 1 or args[1:] == (Ellipsis,)) else None
            if item is not None and schema_of(item, depth + 1):
                out["items"] = schema_of(item, depth + 1)
            return out
    return {}
