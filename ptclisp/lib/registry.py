"""The one registry of builtins.

Every builtin is declared once, next to its implementation, with

    @builtin("take-last", "(take-last n coll)", doc="...", groups=("core",))
    def take_last(n, coll): ...

Arity is read from the Python signature (positional parameters, defaults,
`*args`), so the analyzer's static arity check, `doc`, `apropos`, REPL
completion and the agent prompt inventory all read the same record.

`groups` says which qualifiers reach the builtin besides its plain name:
    "core"   -> clojure.core/ and core/
    "string" -> clojure.string/, str/, string/
    "set"    -> clojure.set/, set/
    "walk"   -> clojure.walk/, walk/
    "regex"  -> regex/
    "json"   -> json/ (with plain=False these are reachable only qualified)
A builtin with no group is PTC-only: reachable by its plain name alone.

Imports values, errors, meter.
"""
from __future__ import annotations

import inspect
from typing import Callable

import attrs

from ..errors import PtcError
from ..values import Keyword, Map, Set, Vector, type_name

QUALIFIERS = {
    "clojure.core": "core", "core": "core",
    "clojure.string": "string", "str": "string", "string": "string",
    "clojure.set": "set", "set": "set",
    "clojure.walk": "walk", "walk": "walk",
    "regex": "regex",
    "json": "json",
}


@attrs.define(slots=True)
class Builtin:
    name: str
    fn: Callable
    signatures: tuple[str, ...]
    doc: str
    min_arity: int
    max_arity: int | None  # None = variadic
    groups: tuple[str, ...] = ()
    plain: bool = True
    effect: str = "pure"
    category: str = "core"
    examples: tuple[str, ...] = ()

    def accepts(self, n: int) -> bool:
        return n >= self.min_arity and (self.max_arity is None or n <= self.max_arity)

    def arity_text(self) -> str:
        if self.max_arity is None:
            return f"{self.min_arity}+"
        if self.max_arity == self.min_arity:
            return str(self.min_arity)
        return f"{self.min_arity}-{self.max_arity}"


# plain name -> Builtin ; (group, name) -> Builtin
BUILTINS: dict[str, Builtin] = {}
QUALIFIED: dict[tuple[str, str], Builtin] = {}
# plain constants such as Math/PI live in the Java table; these are value builtins
CONSTANTS: dict[str, object] = {}


def _arity(fn) -> tuple[int, int | None]:
    sig = inspect.signature(fn)
    lo = hi = 0
    var = False
    for p in sig.parameters.values():
        if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD):
            hi += 1
            if p.default is p.empty:
                lo += 1
        elif p.kind == p.VAR_POSITIONAL:
            var = True
    return lo, (None if var else hi)


def builtin(name: str, *signatures: str, doc: str, groups: tuple[str, ...] = (), plain: bool = True,
            effect: str = "pure", category: str = "core", examples: tuple[str, ...] = (),
            arity: tuple[int, int | None] | None = None, aliases: tuple[str, ...] = ()):
    """Register the decorated Python function as the builtin `name`."""

    def deco(fn):
        lo, hi = arity if arity is not None else _arity(fn)
        for nm in (name, *aliases):
            spec = Builtin(nm, fn, signatures or (f"({nm} ...)",), doc, lo, hi, tuple(groups), plain,
                           effect, category, tuple(examples))
            if plain:
                if nm in BUILTINS:
                    raise RuntimeError(f"builtin {nm} registered twice")
                BUILTINS[nm] = spec
            for g in groups:
                QUALIFIED[(g, nm)] = spec
        try:  # the name printers show: the plain name, or group/name when only reachable qualified
            fn.ptc_builtin = name if plain or not groups else f"{groups[0]}/{name}"
        except AttributeError:  # pragma: no cover - C callables
            pass
        return fn

    return deco


def lookup_qualified(ns: str, name: str) -> Builtin | None:
    g = QUALIFIERS.get(ns)
    if g is None:
        return None
    return QUALIFIED.get((g, name))


def members_of(ns: str) -> list[str]:
    g = QUALIFIERS.get(ns)
    return sorted(n for (gg, n) in QUALIFIED if gg == g)


# ------------------------------------------------------------------ helpers for builtins

def as_fn(f, who: str):
    """Validate a callable argument of a higher-order builtin and return it.

    Anything Clojure can call is accepted (GAP-S71): functions, keywords, sets,
    maps (key lookup) and vectors (index lookup); the collections are returned
    as they are, so an ordinary function pays only these type tests, once per
    builtin call.
    """
    t = type(f)
    if t is Keyword or t is Set or t is Map or t is Vector:
        return f
    if f is None or t in (int, float, str, bool) or not callable(f):
        raise PtcError("type_error", f"{who}: expected a function, got {type_name(f)}")
    # a closure whose code has been compiled already: call its compiled twin directly
    return getattr(f, "ptc_compiled", f)


def hot(f, n: int, nargs: int = 1):
    """What a higher-order builtin should call, about to call `f` `n` times with `nargs` arguments.

    A closure of the tree back end that those calls would make hot anyway is compiled at once and
    its compiled twin returned (no wrapper call per item); anything else comes back unchanged.
    The program's value stays the closure: only the builtin's own loop sees the twin.
    """
    promote = getattr(f, "ptc_promote", None)
    return f if promote is None else promote(n, nargs)
