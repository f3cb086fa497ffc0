"""What a host hands the embedding API, checked in one place.

`run`, `Session`, `Mission` and `AgentHost` take the same kinds of input: a
context (a mission's data), tools, limits, preludes and the strict-data
flag. Every entry point checks them here when it is called, so a wrong type
or value is a TypeError or ValueError that names the argument, never a
failure deep inside a later evaluation. Accepted shapes:

* context: None or a dict whose keys are strings (each becomes `data/<key>`);
* tools: None, a dict {name: callable or ptclisp.Tool}, or a list of Tools;
* limits: None, a `ptclisp.Limits`, or a dict of its fields;
* preludes: None, one prelude (a path, source text or Component), or a list of them;
* strict_data: True or False.

`ptclisp.run` reports these errors as an error Result (it never raises);
the constructors raise them. Imports meter, values and tools; the prelude loader on
first use (importing ptclisp does not load it).
"""
from __future__ import annotations

import os

import attrs

from ..runtime.meter import Limits, default_limits, limits_of, limits_values
from .tools import ToolSet
from ..values import Map

_LIMIT_FIELDS = tuple(f.name for f in attrs.fields(Limits))
_FIELD_SET = frozenset(_LIMIT_FIELDS)
# the value types a limits dict may be remembered by: equal values of one of these types behave alike
_PLAIN = frozenset({int, float, str, type(None)})
# (items, value types) of a limits dict that passed validation -> every field of the Limits it made
_CHECKED: dict = {}
_CHECKED_MAX = 256


def _what(x) -> str:
    return type(x).__name__


def as_limits(limits, name: str = "limits") -> Limits:
    """`limits` as a Limits: None gives the defaults, a dict gives Limits(**dict).

    A dict of plain values (ints, floats, strings, None) that passed the validators once is
    remembered by its items and their types, so the next one like it is filled without
    validating again (a fresh Limits either way; a bad dict is never remembered, so it always
    raises what `Limits(**dict)` raises).
    """
    if limits is None:
        return default_limits()
    if isinstance(limits, Limits):
        return limits
    if isinstance(limits, dict):
        types = tuple(map(type, limits.values()))
        key = (tuple(limits.items()), types) if _PLAIN.issuperset(types) else None
        if key is not None:
            values = _CHECKED.get(key)
            if values is not None:
                return limits_of(values)
        if not _FIELD_SET.issuperset(limits):
            unknown = sorted(str(k) for k in limits if k not in _FIELD_SET)
            raise TypeError(f"{name}: unknown Limits field{'s' if len(unknown) > 1 else ''} "
                            f"{', '.join(unknown)}; the fields are {', '.join(_LIMIT_FIELDS)}")
        lim = Limits(**limits)
        if key is not None:
            if len(_CHECKED) >= _CHECKED_MAX:
                _CHECKED.clear()
            _CHECKED[key] = limits_values(lim)
        return lim
    raise TypeError(f"{name} must be a ptclisp.Limits or a dict of its fields, got {_what(limits)}")


def check_context(context, name: str = "context"):
    """Raise unless `context` is None or a dict with string keys; returns it unchanged."""
    if context is None:
        return None
    if not isinstance(context, dict):
        raise TypeError(f"{name} must be a dict of name -> value (each key becomes data/<key>), "
                        f"got {_what(context)}")
    if type(context) is not Map:  # a Map is already a language value (keys converted)
        for k in context:
            if type(k) is not str:
                raise TypeError(f"{name} keys must be strings (each becomes data/<key>), "
                                f"got the {_what(k)} key {_short(k)}")
    return context


def check_tools(tools, name: str = "tools"):
    """Raise unless `tools` has the shape of a tool grant; the tools themselves are checked by ToolSet."""
    if tools is None or isinstance(tools, dict):
        return tools
    if isinstance(tools, ToolSet):
        return tools
    if isinstance(tools, (str, bytes)) or not hasattr(tools, "__iter__"):
        raise TypeError(f"{name} must be a dict {{name: callable or ptclisp.Tool}} or a list of ptclisp.Tool, "
                        f"got {_what(tools)}")
    return tools


def as_preludes(preludes, name: str = "preludes") -> list:
    """`preludes` as a list: one path, source text or Component is a list of one."""
    if preludes is None or (type(preludes) in (list, tuple) and not preludes):
        return []          # (without importing the prelude machinery for an empty list)
    if isinstance(preludes, (str, os.PathLike)):
        return [preludes]
    component = _component_class()
    if isinstance(preludes, component):
        return [preludes]
    if isinstance(preludes, (bytes, dict)) or not hasattr(preludes, "__iter__"):
        raise TypeError(f"{name} must be a path, prelude source text or ptclisp.prelude.Component, "
                        f"or a list of them; got {_what(preludes)}")
    items = list(preludes)
    for item in items:
        if not isinstance(item, (str, os.PathLike, component)):
            raise TypeError(f"each of {name} must be a path, prelude source text or ptclisp.prelude.Component, "
                            f"got {_what(item)}")
    return items


_COMPONENT = None


def _component_class():
    global _COMPONENT
    if _COMPONENT is None:
        from ..prelude import Component  # imported on first use: the prelude machinery is large
        _COMPONENT = Component
    return _COMPONENT


def check_flag(value, name: str) -> bool:
    if type(value) is not bool:
        raise TypeError(f"{name} must be True or False, got {_what(value)} {_short(value)}")
    return value


def check_inputs(context=None, tools=None, limits=None, preludes=None, strict_data=False) -> tuple[Limits, list]:
    """Check everything `run` and `Session` take; returns (limits, preludes) normalised."""
    if context is None and tools is None and preludes is None and strict_data is False:
        return as_limits(limits), []   # the usual call: nothing else to look at
    check_context(context)
    check_tools(tools)
    check_flag(strict_data, "strict_data")
    return as_limits(limits), as_preludes(preludes)


def _short(x) -> str:
    if type(x) is int and x.bit_length() > 64:
        return f"(an integer of {x.bit_length()} bits)"
    try:
        text = repr(x)
    except Exception:  # noqa: BLE001 - a host object whose repr fails: its type says enough
        return f"<{_what(x)}>"
    return text if len(text) <= 40 else text[:37] + "..."
