"""The one registry of builtins.

Every builtin is declared once, next to its implementation, with

    @builtin("take-last", "(take-last n coll)", groups=("core",))
    def take_last(n, coll):
        '''The last n items of coll, as a vector.

        (take-last 2 [1 2 3]) ;=> [2 3]
        '''

The docstring is what users read (`doc`, the reference, the prompt
inventory): its first paragraph, lines joined by single spaces, is the doc
text, and each later line one example (`docs_of`). A declaration may give
`doc=` and `examples=` instead (a family declared by a helper does).

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

Besides what users see, each record states the facts the back ends act on, so no
layer keeps its own list of names:

    owned / owned_arity  the in-place variant the compiler may call at a map's last read
                         (`@in_place("assoc_owned")` registers it), and its argument counts
    returns_bool         the builtin always returns a Python bool (a test checks it)
    inline_hof           a `(map (fn [x] ...) coll)`-style call may be compiled as a loop
    prim                 the primitive operation (PRIMITIVES) a call with its arity becomes
    str_method           (method, n): `(f s)` of a string of at most n characters is `s.method()`
                         with nothing charged, which the compiler may write out

This module sits below the reader, the analyzer, both back ends and the library:
the families fill it when `ptclisp.lib.load()` imports them; everything else reads
it. The few library functions the back ends' run-time helpers call (sequence views,
one lookup step; `backends.runtime`, the generated loops) are registered here too
(`@provides`), so no layer below the library imports it. Regex literals and Java
members have low modules of their own (`regex_engine`, `java_members`).

Imports values and errors.
"""
from __future__ import annotations

import ast
import inspect
import sys
import textwrap
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
    # facts for the back ends (see the module docstring)
    owned: str | None = None
    owned_arity: tuple[int, int] | None = None
    returns_bool: bool = False
    inline_hof: bool = False
    prim: str | None = None
    str_method: tuple[str, int] | None = None

    @property
    def call_name(self) -> str:
        """The name a call of this builtin carries in the core AST and the runtime table: the plain
        name, or group/name when the builtin is reachable only qualified."""
        return self.name if self.plain else f"{self.groups[0]}/{self.name}"

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


_CO_VARARGS = 0x04  # inspect.CO_VARARGS


def _arity(fn) -> tuple[int, int | None]:
    """(fewest, most) positional arguments `fn` takes (most None: variadic), as `inspect.signature`
    counts them. A plain function is read from its code object (what the signature is made of, at a
    fraction of the cost: loading the library computes this for hundreds of builtins); anything
    else (a wrapper, a partial, a C function) goes through inspect."""
    if type(fn) is _FUNCTION and not hasattr(fn, "__wrapped__") and not hasattr(fn, "__signature__"):
        code = fn.__code__
        hi = code.co_argcount                      # positional-only and positional-or-keyword
        lo = hi - len(fn.__defaults__ or ())
        return lo, (None if code.co_flags & _CO_VARARGS else hi)
    return _signature_arity(fn)


def _signature_arity(fn) -> tuple[int, int | None]:
    import inspect
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


_FUNCTION = type(_signature_arity)


def docs_of(fn) -> tuple[str, tuple[str, ...]]:
    """(doc, examples) from a builtin's docstring: the first paragraph joined by spaces, then one
    example per later line."""
    text = inspect.cleandoc(_docstring(fn))
    head, _, rest = text.partition("\n\n")
    return " ".join(head.split("\n")), tuple(line for line in rest.split("\n") if line)


def _docstring(fn) -> str:
    """`fn`'s docstring; under `python -OO`, which drops docstrings, read from its source instead."""
    if fn.__doc__ is not None or sys.flags.optimize < 2:
        return fn.__doc__ or ""
    try:
        tree = ast.parse(textwrap.dedent(inspect.getsource(fn)))
    except (OSError, TypeError, SyntaxError):
        return ""
    node = tree.body[0]
    return (ast.get_docstring(node, clean=False) if isinstance(node, ast.FunctionDef) else None) or ""


def builtin(name: str, *signatures: str, doc: str | None = None, groups: tuple[str, ...] = (), plain: bool = True,
            effect: str = "pure", category: str = "core", examples: tuple[str, ...] = (),
            arity: tuple[int, int | None] | None = None, aliases: tuple[str, ...] = (),
            owned: str | None = None, owned_arity: tuple[int, int] | None = None, returns_bool: bool = False,
            inline_hof: bool = False, prim: str | None = None, str_method: tuple[str, int] | None = None):
    """Register the decorated Python function as the builtin `name` (and its `aliases`), with the
    facts the back ends read (see the module docstring)."""
    if prim is not None and prim not in PRIMITIVES:
        raise RuntimeError(f"builtin {name}: unknown primitive {prim!r}")
    if (owned is None) != (owned_arity is None):
        raise RuntimeError(f"builtin {name}: owned and owned_arity go together")
    if str_method is not None and not (isinstance(str_method[0], str) and hasattr(str, str_method[0])
                                       and type(str_method[1]) is int):
        raise RuntimeError(f"builtin {name}: str_method must be (a str method's name, a length)")

    def deco(fn):
        lo, hi = arity if arity is not None else _arity(fn)
        text, shown = (doc, examples) if doc is not None else docs_of(fn)
        for nm in (name, *aliases):
            spec = Builtin(nm, fn, signatures or (f"({nm} ...)",), text, lo, hi, tuple(groups), plain,
                           effect, category, tuple(shown), owned, owned_arity, returns_bool, inline_hof, prim,
                           str_method)
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


# Compile-time specialization. builtin call name -> chooser: `chooser(*args)`, where args are the call's
# argument values that are literals in the program and UNKNOWN for the others, gives (function,
# extra constant arguments) when that function, called with the call's arguments and the extras,
# does exactly what the builtin does for every value of the unknown arguments (result, errors,
# charges); or None. The compiler then calls it instead of the builtin. An extra argument that is
# THREAD_METER stands for the meter of the thread making the call (or None outside an evaluation):
# the generated function reads it once and passes it, so the function charges without looking it up.
SPECIALIZERS: dict[str, Callable] = {}
UNKNOWN = object()
THREAD_METER = object()


def specializer(call_name: str):
    """Register the decorated chooser for calls of the builtin `call_name` (see SPECIALIZERS)."""
    def deco(chooser):
        if call_name in SPECIALIZERS:
            raise RuntimeError(f"builtin {call_name}: specializer registered twice")
        SPECIALIZERS[call_name] = chooser
        return chooser
    return deco


def called(call_name: str) -> Builtin | None:
    """The builtin a core-AST call names (`Builtin.call_name`: plain, or group/name)."""
    spec = BUILTINS.get(call_name)
    if spec is None and "/" in call_name[1:]:
        group, _, name = call_name.partition("/")
        spec = QUALIFIED.get((group, name))
    return spec


def every_builtin() -> list[Builtin]:
    """Each registered record once (plain ones, then those reachable only qualified)."""
    out = list(BUILTINS.values())
    out += [spec for (_g, nm), spec in QUALIFIED.items() if not spec.plain and spec not in out]
    return out


# ------------------------------------------------------------------ in-place variants

# variant name -> function: what the compiler calls instead of an `owned` builtin when the map
# argument is the last read of a local (analyzer/lastuse.py)
IN_PLACE: dict[str, Callable] = {}
# variant name -> (what it grows, bytes it charges): the variants whose commonest case the compiler
# writes out in place ("map": `(assoc m k v)` stores one entry; "vector": `(conj v x)` appends one
# item), calling the variant itself for every other case (compiler/inline.py, `_inline_owned`)
IN_PLACE_INLINE: dict[str, tuple] = {}


def in_place(name: str, grows: str | None = None, charge: int | None = None):
    """Register the decorated function as the in-place variant `name` (a builtin's `owned`).

    `grows` ("map" or "vector") and `charge` say that its common case is one store into the map,
    or one append to the vector's item list, charging `charge` bytes: the compiler may then
    write that case out in generated code (see IN_PLACE_INLINE)."""
    if grows not in (None, "map", "vector") or (grows is None) != (charge is None):
        raise RuntimeError(f"in-place variant {name}: grows must be 'map' or 'vector', with a charge")

    def deco(fn):
        if name in IN_PLACE:
            raise RuntimeError(f"in-place variant {name} registered twice")
        IN_PLACE[name] = fn
        if grows is not None:
            IN_PLACE_INLINE[name] = (grows, charge)
        return fn

    return deco


# ------------------------------------------------------------------ primitives

@attrs.frozen
class Primitive:
    """An operation both back ends compute without a general builtin call.

    A builtin declaring `prim=op` becomes this primitive when called with `arity` arguments.
    Its function (`primitive_fn`) computes it for any operands; the back ends add fast paths."""

    op: str
    arity: int
    int_op: str | None = None   # the Python operator (an `ast` class name) computing it on ints
    negates: str | None = None  # computed as the negation of this other primitive
    inline: bool = False        # a test of nil/false: computed in place, no function


# the one primitive table; the compiler and the closure tier both read it
PRIMITIVES: dict[str, Primitive] = {p.op: p for p in (
    Primitive("add", 2, "Add"), Primitive("sub", 2, "Sub"), Primitive("mul", 2, "Mult"), Primitive("mod", 2, "Mod"),
    Primitive("lt", 2, "Lt"), Primitive("gt", 2, "Gt"), Primitive("le", 2, "LtE"), Primitive("ge", 2, "GtE"),
    Primitive("eq", 2, "Eq"), Primitive("ne", 2, negates="eq"),
    Primitive("inc", 1, "Add"), Primitive("dec", 1, "Sub"),   # x + 1, x - 1
    Primitive("zero", 1), Primitive("first", 1),
    Primitive("not", 1, inline=True), Primitive("isnil", 1, inline=True), Primitive("issome", 1, inline=True),
)}

# op -> a two-argument fast path registered by a family (`@primitive("add")`)
PRIM_FNS: dict[str, Callable] = {}


def primitive(op: str):
    """Register the decorated function as the general function of the primitive `op`."""
    if op not in PRIMITIVES:
        raise RuntimeError(f"unknown primitive {op!r}")

    def deco(fn):
        PRIM_FNS[op] = fn
        return fn

    return deco


def primitive_fn(op: str) -> Callable | None:
    """The function computing primitive `op` for any operands (for a negating primitive, the function
    it negates; None for an inline one): a registered fast path, else the builtin declaring it."""
    p = PRIMITIVES[op]
    if p.inline:
        return None
    if p.negates is not None:
        return primitive_fn(p.negates)
    fn = PRIM_FNS.get(op)
    if fn is None:
        fn = next((spec.fn for spec in BUILTINS.values() if spec.prim == op), None)
    return fn


def prim_slot(op: str) -> str:
    """The runtime-table name of `primitive_fn(op)`."""
    return "_p_" + op


# ------------------------------------------------------------------ library facilities

# name -> function of the library that a layer below it calls (registered with `@provides`)
PROVIDED: dict[str, Callable] = {}


def provides(name: str):
    """Register the decorated library function as the facility `name`."""

    def deco(fn):
        PROVIDED[name] = fn
        return fn

    return deco


def provided(name: str) -> Callable:
    """The library function registered as `name`; the library must be loaded (`ptclisp.lib.load()`)."""
    fn = PROVIDED.get(name)
    if fn is None:
        raise RuntimeError(f"{name} is not registered: call ptclisp.lib.load() first")
    return fn


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
    if promote is None:
        return f
    twin = promote(n, nargs)   # None: keep calling f itself
    if twin is None:
        return f
    f.ptc_compiled = twin      # later builtins (`as_fn`) call the twin directly too
    return twin
