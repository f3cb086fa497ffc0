"""The run-time support of both back ends: helpers that generated code and the closure tier call.

Owns the run-time half of lowered forms: definitions (`rt_def`, into the
session's `Namespace`), literals, keyword lookup, destructuring, iteration,
`for` output, captured programs. Every name generated code may use is in the
runtime table (table.py, the `__builtins__` of generated modules); the
generated code can reach nothing else of Python. The closure back end
(closures.py) calls the same helpers.
The few library functions the helpers call (sequence views, one lookup step,
a zero-step range) are read from `registry.PROVIDED`, where the library
registers them when it loads (`@provides`): this module never imports it.
Imports errors, meter, values and the registry.
"""
from __future__ import annotations

from ..registry import builtins as R
from ..errors import PtcError
from ..runtime.meter import _local as _meter_local
from ..runtime.meter import SLOT, current, seq_cost
from ..registry.builtins import as_fn
from ..values import Keyword, Map, Set, Vector, VarRef, hk, type_name

_lib = R.PROVIDED   # name -> library function, filled by `ptclisp.lib.load()`

# ------------------------------------------------------------------ definitions

def rt_def(ns, name: str, value, doc=None):
    if ns.frozen or current().in_worker:  # parallel workers share the namespace read-only
        return VarRef(name)
    ns.define(name, value, doc if callable(value) else None)
    return VarRef(name)


# ------------------------------------------------------------------ literals

# A literal built at run time (one with a part that is not a constant) is charged like any other
# collection a program builds: seq_cost(n) for a vector, map_cost(n) for a map or set of n written
# entries, computed when the literal is compiled and charged each time it is built, by both back
# ends the same way (a literal in a loop would otherwise build memory the budget never sees).
# mkvec/mkmap remain the classes themselves, for constant literals and the compiler's own use.
mkvec = Vector
mkmap = Map


class _Unmetered:
    """What written-out charges add to outside an evaluation (no meter on the thread): a budget no
    charge fits, so each takes its slow path (`lit_charge`, an in-place variant), which charges
    nothing there; never written to."""

    __slots__ = ()
    allocated = 0
    budget = -1


UNMETERED = _Unmetered()


def lit_charge(cost: int):
    """`meter.charge(cost)` for the literal about to be built, with the thread's meter read here."""
    m = _meter_local.meter
    if m is None:
        return
    a = m.allocated + cost
    if a > m.budget or m.expired:
        m.alloc(cost)
    m.allocated = a


def lit_vec(items: list, cost: int) -> Vector:
    """A vector literal built at run time: charged `cost` (seq_cost of its length), then wrapped."""
    m = _meter_local.meter
    if m is not None:
        a = m.allocated + cost
        if a > m.budget or m.expired:
            m.alloc(cost)
        m.allocated = a
    return Vector(items, None)


def lit_map(d: dict, cost: int) -> Map:
    """A map literal built at run time from the dict of its stored keys: charged `cost`, then wrapped."""
    lit_charge(cost)
    return Map(d)


def mkset(items: list, cost: int = 0) -> Set:
    if cost:
        lit_charge(cost)
    return Set({hk(x): x for x in items}, None)


# ------------------------------------------------------------------ calls

def kw_get(k: Keyword, m=None, default=None):
    """`(:k m)` / `(:k m default)`: `Map.lookup`, its first two probes (the keyword, then its name as
    a string key, as JSON data has) made here without a call."""
    if type(m) is Map:
        v = m.get(k, _MISSING)
        if v is not _MISSING:
            return v
        v = m.get(k.name, _MISSING)
        if v is not _MISSING:
            return v
        return m.lookup(k, default)
    return default


def truthy(x) -> bool:
    return x is not None and x is not False


def loop_limit_exceeded(limit: int):
    raise PtcError("loop_limit_exceeded",
                   f"loop exceeded {limit} iterations; iterate over a finite collection with reduce/map/for, "
                   f"or make the loop smaller", details={"limit": limit})


def rest_args(t: tuple):
    """The `& rest` parameter of a variadic fn: the extra arguments, nil when there are none."""
    return Vector(list(t), None) if t else None


def juxt(*fns):
    fs = [as_fn(f, "juxt") for f in fns]

    def juxt_fn(*args):
        return Vector([f(*args) for f in fs])

    return juxt_fn


# ------------------------------------------------------------------ destructuring

def ds_seq(v) -> list:
    """The items a vector pattern walks: a vector's items, a string's characters, none for nil."""
    if type(v) is Vector:
        return v.lst()
    if v is None:
        return []
    if type(v) is str:
        return _lib["graphemes"](v)
    hint = " (for a map use {:keys [...]} or destructure its entries from (seq m))" if type(v) is Map else ""
    raise PtcError("destructure_error", f"cannot destructure a {type_name(v)} with a vector pattern "
                                        f"(needs a vector, string or nil){hint}")


def ds_nth(items: list, i: int):
    return items[i] if i < len(items) else None


def ds_rest(items: list, i: int):
    """`& rest` of a vector pattern: the remaining items, nil when there are none (as Clojure's nthnext)."""
    return Vector(items[i:], None) if i < len(items) else None


def arity_fail(label: str, want: str, args):
    """No arity of a multi-arity fn takes this many arguments (analyzer/arities.py)."""
    n = len(args) if args is not None else 0
    raise PtcError("arity_mismatch", f"wrong number of arguments to {label}: expects {want}, got {n}")


def ds_kwargs(v):
    """The map a `& {...}` rest pattern destructures: one trailing map is taken as is, otherwise the
    flat key/value items are paired up; nil (no rest arguments) stays nil."""
    if type(v) is not Vector:
        return v
    items = v.lst()
    if len(items) == 1:
        return items[0]
    if len(items) % 2:
        raise PtcError("destructure_error", "keyword arguments need an even number of forms (key value pairs)")
    return Map({hk(items[i]): items[i + 1] for i in range(0, len(items), 2)})


_MISSING = object()


def ds_get(m, key):
    """One key of a map pattern, looked up as `get` does (maps flexibly, vector/string indexes, set
    members; nil for anything else)."""
    if type(m) is Map:
        return m.lookup(key, None)
    return _lib["step_get"](m, key, None)


def ds_get_or(m, key, default):
    v = m.lookup(key, _MISSING) if type(m) is Map else _lib["step_get"](m, key, _MISSING)
    return default if v is _MISSING else v


# ------------------------------------------------------------------ iteration

def iter_items(coll, who: str) -> list:
    return _lib["seq_items"](coll, who)


def take_range(n, start, end, step):
    """(take n (range start end step)), where a zero step yields n copies of start."""
    if step == 0 and type(step) in (int, float):
        return _lib["take_zero_step_range"](n, start, end)
    return R.BUILTINS["take"].fn(n, R.BUILTINS["range"].fn(start, end, step))


def seq_or_nil(coll):
    items = _lib["seq_items"](coll, "when-first")
    return items if items else None


def first_of(items: list):
    return items[0]


def out_for(acc: list) -> Vector:
    current().alloc(seq_cost(len(acc)))
    return Vector(acc, None)


def for_cap(m) -> int:
    """The most items a `for` may collect (more is `for_too_big`): as many as the budget the meter `m`
    has left, once the form's first collection is made, could hold at a slot each. Both back ends
    ask it there (closures.Builder.b_for, bytecode.emit.Compiler.e_for)."""
    return (m.budget - m.allocated) // SLOT


def for_too_big(n: int):
    raise PtcError("memory_exceeded", f"for produced more than {n} items, beyond the memory budget")


class Program:
    """An opaque captured program (kernel use)."""

    __slots__ = ("forms",)

    def __init__(self, forms):
        self.forms = forms

    def __repr__(self):
        return "#program[" + " ".join(self.forms.lst()) + "]"


def make_program(forms: Vector):
    return Program(forms)


