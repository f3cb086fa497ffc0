"""What every analyzer module shares: errors, the special-form table, scopes, tail
positions and the duplicate-key check of literal maps and sets.

The form modules (`bindings`, `control`, `iteration`) register their handlers
in `SPECIALS` with `@special`; `analyzer.Analyzer` dispatches through it. They all
import this module and never `core`, so the analyzer's modules form no cycle.
Imports errors, forms and nodes.
"""
from __future__ import annotations

from typing import Callable

from ..errors import PtcError
from ..reader.forms import Form, List, Lit, MapForm, Quote, SetForm, Sym, VarQuote, VecForm
from . import nodes as N

# name -> handler(az, form, scope, tail) ; filled by @special in the form modules
SPECIALS: dict[str, Callable] = {}
# special forms a local binding can never shadow in call position; filled by @special(..., unshadowable=True)
UNSHADOWABLE: set[str] = set()


def special(*names: str, unshadowable: bool = False):
    """Register an analyzer handler for the special forms `names` (with `unshadowable`, a local
    binding of one of those names never shadows the form in call position)."""

    def deco(fn):
        for n in names:
            SPECIALS[n] = fn
            if unshadowable:
                UNSHADOWABLE.add(n)
        return fn

    return deco


def err(kind: str, message: str, form: Form | None = None, /, **details) -> PtcError:
    """An analysis error located at `form` (when it has a span)."""
    return PtcError(kind, message, getattr(form, "span", None), details or None)


class Scope:
    """Lexical scope: an immutable mapping of PTC names to Locals."""

    __slots__ = ("vars",)

    def __init__(self, vars: dict | None = None):
        self.vars = vars or {}

    def bind(self, name: str, local: N.Local) -> "Scope":
        v = dict(self.vars)
        v[name] = local
        return Scope(v)

    def get(self, name: str):
        return self.vars.get(name)


class Tail:
    """Where an expression sits: `target` is the loop/fn a `recur` here would jump to (None = not tail)."""

    __slots__ = ("target",)

    def __init__(self, target=None):
        self.target = target


NOT_TAIL = Tail(None)


# ------------------------------------------------------------------ duplicate keys

def form_key(f: Form):
    """Structural identity of a literal form for the duplicate-key check."""
    t = type(f)
    if t is Lit:
        v = f.value
        if type(v) is float:
            return ("num", 0.0 if v == 0 else v)
        if type(v) is int:
            return ("num", float(v)) if abs(v) < 2 ** 53 else ("int", v)
        if type(v) is bool:
            return ("bool", v)
        return ("lit", type(v).__name__, v)
    if t is Sym:
        return ("sym", f.ns, f.name)
    if t is Quote:
        return ("quote", f.sym.ns, f.sym.name)
    if t is VarQuote:
        return ("var", f.sym.ns, f.sym.name)
    if t in (List, VecForm):
        return ("seq", tuple(form_key(x) for x in f.items))
    if t is MapForm:
        return ("map", frozenset((form_key(f.items[i]), form_key(f.items[i + 1])) for i in range(0, len(f.items), 2)))
    if t is SetForm:
        return ("set", frozenset(form_key(x) for x in f.items))
    return ("unique", id(f))


def check_duplicates(keys: list[Form], where: Form):
    seen = {}
    for k in keys:
        fk = form_key(k)
        if fk in seen:
            what = "set element" if type(where) is SetForm else "map key"
            raise err("duplicate_key", f"Duplicate {what}: {k!r}", k)
        seen[fk] = k
