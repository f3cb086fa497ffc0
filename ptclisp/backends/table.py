"""What both back ends read: the runtime table, the registry facts, the node kinds and their handlers.

Generated code resolves every global it does not get as a parameter in one table (installed
as its `__builtins__`): each builtin under its mangled name, each primitive's function
(`registry.prim_slot`), each in-place variant (`_<variant>`), the runtime helpers (`_rt_*`)
and a few Python names. The closure back end (closures.py) takes its builtins, primitives and
helpers from the same table. `facts()` is what the emitters ask of a call, derived from the
registry. Both are built once, on first use, after `ptclisp.lib.load()` has filled the
registry.

The core AST's node kinds are those analyzer/nodes.py declares (`NODE_KINDS`, read from it);
`HANDLERS` names each kind's handler, which both back ends build their dispatch tables from
(`dispatch_table`: `Compiler.e_<name>`, `Builder.b_<name>`), so a kind without a handler in
either fails at import. What both back ends do alike while they walk a tree is here too: the
look at the compile clock every NODES_PER_TICK nodes (`clock_tick`) and the folding of a
literal of constants (`constant_literal`). Imports the registry, the back ends' runtime helpers, analyzer nodes, values,
errors.
"""
from __future__ import annotations

import attrs

import sys

from . import runtime as rt
from ..analyzer import nodes as N
from ..errors import FailSignal, PtcError, ReturnSignal
from ..registry import builtins as R
from ..runtime.meter import _local as _meter_slot
from ..runtime.meter import compile_tick
from ..values import LIST, Keyword, Map, Set, Vector, hk

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
        "_out_for": rt.out_for, "_for_cap": rt.for_cap, "_for_too_big": rt.for_too_big,
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


# ------------------------------------------------------------------ node kinds

#: every core-AST node kind, as analyzer/nodes.py declares them (in its order)
NODE_KINDS: tuple = tuple(c for c in vars(N).values()
                          if isinstance(c, type) and issubclass(c, N.Node) and c is not N.Node)

#: the name of each node kind's handler in both back ends: `Compiler.e_<name>` (bytecode/emit.py)
#: and `Builder.b_<name>` (closures.py)
HANDLERS: dict = {
    N.Const: "const", N.LocalRef: "local", N.GlobalRef: "global", N.MaybeGlobal: "maybe_global",
    N.BuiltinRef: "builtin_ref", N.BuiltinCall: "builtin_call", N.DataRef: "data", N.ToolRef: "tool_ref",
    N.ToolCall: "tool_call", N.HistoryRef: "history", N.HostRef: "host", N.If: "if", N.Do: "do",
    N.Let: "let", N.Loop: "loop", N.Recur: "recur", N.Fn: "fn", N.Call: "call", N.Def: "def",
    N.And: "and_or", N.Or: "and_or", N.VectorLit: "vector", N.MapLit: "map", N.SetLit: "set",
    N.Terminal: "terminal", N.RtCall: "rt", N.For: "for", N.Juxt: "juxt", N.Prim: "prim",
}

if set(HANDLERS) != set(NODE_KINDS):   # a node kind added to (or removed from) nodes.py, not here
    raise RuntimeError("backends.table.HANDLERS does not name the node kinds of analyzer/nodes.py: "
                       + ", ".join(sorted(c.__name__ for c in set(HANDLERS) ^ set(NODE_KINDS))))


def dispatch_table(backend: type, prefix: str) -> dict:
    """Node kind -> `backend`'s handler of it (its attribute `prefix` + the kind's name in HANDLERS),
    for every kind; a back end that lacks one fails here, at its import."""
    table = {}
    for kind, name in HANDLERS.items():
        handler = getattr(backend, prefix + name, None)
        if handler is None:
            raise RuntimeError(f"{backend.__name__} has no {prefix}{name} for {kind.__name__} nodes")
        table[kind] = handler
    return table


NODES_PER_TICK = 1024   # nodes a back end handles between two looks at the compile clock


def clock_tick(backend) -> None:
    """A back end's look at the compile clock (`meter.compile_tick`: the compile budget, or the
    deadline of the evaluation a loop is compiled in), made when its count of nodes handled since
    the last look (`backend.ticks`, from NODES_PER_TICK) has run down; the count starts again."""
    backend.ticks = NODES_PER_TICK
    compile_tick()


def misplaced_recur(backend, node, _where):  # pragma: no cover - the analyzer puts recur in tail position
    """Both back ends' handler of a `recur` reached as an expression, which the analyzer does not
    let happen: the bytecode back end emits each recur as the tail of its loop's body
    (`Compiler.emit_tail`), and the closure back end compiles every loop and every fn that recurs
    (`Builder.b_loop`, `b_fn`)."""
    raise PtcError("invalid_form", "recur must be in tail position", node.span)


def constant_literal(node):
    """The value of a vector, map or set literal (`VectorLit`, `MapLit`, `SetLit`) whose every part
    is a constant, made once and shared by every evaluation of it (it is charged nothing, in
    either back end); ABSENT for any other literal."""
    t = type(node)
    if t is N.MapLit:
        if all(type(k) is N.Const and type(v) is N.Const for k, v in node.pairs):
            return Map({hk(k.value): v.value for k, v in node.pairs})
        return ABSENT
    if all(type(i) is N.Const for i in node.items):
        if t is N.VectorLit:
            return Vector([i.value for i in node.items], None)
        return Set({hk(i.value): i.value for i in node.items}, None)
    return ABSENT
