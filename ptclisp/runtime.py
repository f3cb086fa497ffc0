"""Helpers that compiled code calls: destructuring, keyword lookup, iteration,
definitions, literals, and the user `Namespace`.

Owns the run-time half of lowered forms. Every name compiled code may use is
put into `RT` (the `__builtins__` of generated modules) by the compiler; the
generated code can reach nothing else of Python.
"""
from __future__ import annotations

import itertools

from .errors import FailSignal, PtcError, ReturnSignal
from .lib.colls_maps import step_get
from .lib.common import graphemes, seq_items
from .meter import current, seq_cost
from .values import Keyword, Map, Set, Vector, VarRef, hk, type_name

# ------------------------------------------------------------------ namespace

_VERSIONS = itertools.count(1)


class Namespace(dict):
    """The user namespace: name -> value, with an undo log for transactions."""

    __slots__ = ("log", "docs", "label", "frozen", "version")

    def __init__(self, *a, label="user", **k):
        super().__init__(*a, **k)
        self.log = None          # list of (name, old value | _ABSENT) while an evaluation runs
        self.docs: dict = {}
        self.label = label
        self.frozen = False      # parallel workers: defs are discarded
        self.version = next(_VERSIONS)  # a new, never reused stamp after every change

    def __missing__(self, name):
        raise PtcError("unbound_var", f"Unable to resolve symbol: {name} in this context", details={"unbound_names": [name]})

    def begin(self):
        self.log = []

    def touch(self):
        """Record a change made from outside `define`/`rollback` (a wholesale restore)."""
        self.version = next(_VERSIONS)

    def commit(self):
        self.log = None

    def rollback(self):
        log = self.log
        self.log = None
        if log:
            self.version = next(_VERSIONS)
            for name, old, olddoc in reversed(log):
                if old is _ABSENT:
                    self.pop(name, None)
                else:
                    dict.__setitem__(self, name, old)
                if olddoc is _ABSENT:
                    self.docs.pop(name, None)
                else:
                    self.docs[name] = olddoc

    def define(self, name, value, doc=None):
        log = self.log
        if log is not None:
            log.append((name, self.get(name, _ABSENT), self.docs.get(name, _ABSENT)))
        dict.__setitem__(self, name, value)
        self.version = next(_VERSIONS)
        if doc is not None:
            self.docs[name] = doc
        else:
            self.docs.pop(name, None)


_ABSENT = object()


def rt_def(ns: Namespace, name: str, value, doc=None):
    if ns.frozen or current().in_worker:  # parallel workers share the namespace read-only
        return VarRef(name)
    ns.define(name, value, doc if callable(value) else None)
    return VarRef(name)


def rt_defined(ns: Namespace, name: str) -> bool:
    return name in ns


# ------------------------------------------------------------------ literals

# a literal wraps the fresh list or dict built by the generated code (no owner): the classes
# themselves, so building one costs no extra call
mkvec = Vector
mkmap = Map


def mkset(items: list) -> Set:
    return Set({hk(x): x for x in items}, None)


# ------------------------------------------------------------------ calls

def kw_get(k: Keyword, m=None, default=None):
    if type(m) is Map:
        v = m.get(k, _MISSING)
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
    from .registry import as_fn
    fs = [as_fn(f, "juxt") for f in fns]

    def juxt_fn(*args):
        return Vector([f(*args) for f in fs])

    return juxt_fn


def do_return(v):
    raise ReturnSignal(v)


def do_fail(v):
    raise FailSignal(v)


# ------------------------------------------------------------------ destructuring

def ds_seq(v) -> list:
    """The items a vector pattern walks: a vector's items, a string's characters, none for nil."""
    if type(v) is Vector:
        return v.lst()
    if v is None:
        return []
    if type(v) is str:
        return graphemes(v)
    hint = " (for a map use {:keys [...]} or destructure its entries from (seq m))" if type(v) is Map else ""
    raise PtcError("destructure_error", f"cannot destructure a {type_name(v)} with a vector pattern "
                                        f"(needs a vector, string or nil){hint}")


def ds_nth(items: list, i: int):
    return items[i] if i < len(items) else None


def ds_rest(items: list, i: int):
    """`& rest` of a vector pattern: the remaining items, nil when there are none (as Clojure's nthnext)."""
    return Vector(items[i:], None) if i < len(items) else None


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
    return step_get(m, key, None)


def ds_get_or(m, key, default):
    v = m.lookup(key, _MISSING) if type(m) is Map else step_get(m, key, _MISSING)
    return default if v is _MISSING else v


# ------------------------------------------------------------------ iteration

def iter_items(coll, who: str) -> list:
    return seq_items(coll, who)


def take_range(n, start, end, step):
    """(take n (range start end step)), where a zero step yields n copies of start."""
    from . import registry as R
    if step == 0 and type(step) in (int, float):
        from .lib.seqs_build import take_zero_step_range
        return take_zero_step_range(n, start, end)
    return R.BUILTINS["take"].fn(n, R.BUILTINS["range"].fn(start, end, step))


def seq_or_nil(coll):
    items = seq_items(coll, "when-first")
    return items if items else None


def first_of(items: list):
    return items[0]


def out_for(acc: list) -> Vector:
    current().alloc(seq_cost(len(acc)))
    return Vector(acc, None)


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


