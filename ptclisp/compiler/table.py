"""The runtime table generated code runs against, and the registry facts the emitters read.

Generated code resolves every global it does not get as a parameter in one table (installed
as its `__builtins__`): each builtin under its mangled name, each primitive's function
(`registry.prim_slot`), each in-place variant (`_<variant>`), the runtime helpers (`_rt_*`)
and a few Python names. `facts()` is what the emitters ask of a call, derived from the
registry. Both are built once, on first use, after `ptclisp.lib.load()` has filled the
registry (the closure tier reads the same table). Imports registry, compiled_runtime, values, errors.
"""
from __future__ import annotations

import attrs

import sys

from .. import registry as R
from .. import compiled_runtime as rt
from ..errors import FailSignal, PtcError, ReturnSignal
from ..meter import _local as _meter_slot
from ..values import LIST, Keyword, Map, Vector, hk

ABSENT = object()   # `_absent`: the default of a dict probe that must tell a missing key from nil

_MANGLED: dict[str, str] = {}


def mangle(name: str) -> str:
    """The runtime-table name of a builtin (PTC names are never Python identifiers)."""
    m = _MANGLED.get(name)
    if m is None:
        m = _MANGLED[name] = "b_" + "".join(c if c.isalnum() else f"_{ord(c):x}_" for c in name)
    return m


def in_place_name(variant: str) -> str:
    """The runtime-table name of an in-place variant (`registry.IN_PLACE`)."""
    return "_" + variant


_RT_HELPERS = ("ds_seq", "ds_nth", "ds_rest", "ds_kwargs", "ds_get", "ds_get_or", "iter_items", "seq_or_nil",
               "first_of", "make_program", "kw_get", "take_range", "arity_fail")


def _build_rt() -> dict:
    if not R.BUILTINS:
        raise RuntimeError("no builtins are registered: call ptclisp.lib.load() first")
    table = {
        "type": type, "int": int, "str": str, "len": len, "isinstance": isinstance,
        "_Return": ReturnSignal, "_Fail": FailSignal, "_PtcError": PtcError,
        "_truthy": rt.truthy, "_kw_get": rt.kw_get, "_loop_limit": rt.loop_limit_exceeded,
        "_rest": rt.rest_args, "_juxt": rt.juxt, "_def": rt.rt_def,
        "_mkvec": rt.mkvec, "_mkmap": rt.mkmap, "_mkset": rt.mkset, "_lit_vec": rt.lit_vec,
        "_lit_charge": rt.lit_charge, "_lit_map": rt.lit_map, "_hk": hk, "_Map": Map, "_Vector": Vector,
        "_LIST": LIST, "_write_key": Map.write_key,
        "_Keyword": Keyword, "_absent": ABSENT,
        "_out_for": rt.out_for, "_for_too_big": rt.for_too_big,
        "_seq_items": R.provided("seq_items"), "_out_vec": R.provided("out_vec"),
        "_splice_into": R.provided("splice_into"),
        # what in-place growth written out in generated code reads (inline.Inliner._inline_owned)
        "_getrc": sys.getrefcount, "_mloc": _meter_slot, "_unmetered": rt.UNMETERED, "_float": float, "_bool": bool,
    }
    for name in _RT_HELPERS:
        table["_rt_" + name] = getattr(rt, name)
    for name, spec in R.BUILTINS.items():
        table[mangle(name)] = spec.fn
    for (group, name), spec in R.QUALIFIED.items():
        table[mangle(f"{group}/{name}")] = spec.fn
    for op in R.PRIMITIVES:
        fn = R.primitive_fn(op)
        if fn is not None:
            table[R.prim_slot(op)] = fn
    for variant, fn in R.IN_PLACE.items():
        table[in_place_name(variant)] = fn
    return table


@attrs.frozen
class Facts:
    """What the emitters ask of a call, by the name the core AST gives it (`Builtin.call_name`)."""

    bool_prims: frozenset        # primitive ops whose value is always a Python bool
    bool_calls: frozenset        # builtins that always return a Python bool
    owned: dict                  # builtin -> (runtime name of its in-place variant, fewest, most arguments)
    owned_inline: dict           # builtin -> (what its in-place variant grows, bytes charged): written out
    inline_hofs: frozenset       # builtins whose call with a literal fn may become a loop


def _derive_facts() -> Facts:
    specs = R.every_builtin()
    for spec in specs:
        if spec.owned is not None and spec.owned not in R.IN_PLACE:
            raise RuntimeError(f"builtin {spec.name}: in-place variant {spec.owned} is not registered")
    return Facts(
        bool_prims=frozenset(s.prim for s in specs if s.prim is not None and s.returns_bool),
        bool_calls=frozenset(s.call_name for s in specs if s.returns_bool),
        owned={s.call_name: (in_place_name(s.owned), *s.owned_arity) for s in specs if s.owned is not None},
        owned_inline={s.call_name: R.IN_PLACE_INLINE[s.owned] for s in specs if s.owned in R.IN_PLACE_INLINE},
        inline_hofs=frozenset(s.call_name for s in specs if s.inline_hof),
    )


_RT: dict | None = None
_FACTS: Facts | None = None


def runtime_table() -> dict:
    """The table generated code resolves its globals in (built on first use)."""
    global _RT
    if _RT is None:
        _RT = _build_rt()
    return _RT


def facts() -> Facts:
    """The registry facts the emitters read (derived on first use)."""
    global _FACTS
    if _FACTS is None:
        _FACTS = _derive_facts()
    return _FACTS
