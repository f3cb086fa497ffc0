"""Parallel builtins: pmap, pcalls (docs/spec/functions.md §2, docs/spec/runtime.md §9).

The arguments are checked here, before any worker starts. Running the
workers (budget, deadline, effects) is the engine in `ptclisp.parallel`, a
layer above the library: it installs itself here with `install_engine` when
it loads (the `ptclisp` package imports it), so this module never imports it.
Imports values, errors, lib.arguments, registry.
"""
from __future__ import annotations

import inspect

from ..errors import PtcError
from ..values import Keyword, Map, Set, Vector, type_name
from ..registry.builtins import builtin
from .arguments import need_fn, seq_items


class Calls:
    """The applications of one operation, made on demand: `calls[i]` is `(fn, args)`.

    `Calls(f, [c1])` applies f to each item of c1; `Calls(f, [c1, c2, ...])` to
    items taken in step, stopping at the shortest; `Calls(None, thunks)` calls
    each thunk with no arguments. Nothing per item is built in advance.
    """

    __slots__ = ("f", "cols", "n")

    def __init__(self, f, cols: list):
        self.f = f
        self.cols = cols
        self.n = len(cols) if f is None else min(len(c) for c in cols)

    def __len__(self):
        return self.n

    def __getitem__(self, i: int):
        if self.f is None:
            return self.cols[i], ()
        return self.f, tuple(c[i] for c in self.cols)


def _no_engine(who: str, calls: Calls):
    raise RuntimeError(f"{who}: no parallel engine is installed (ptclisp.parallel installs it)")


_run_parallel = _no_engine


def install_engine(run) -> None:
    """Make `run(who, calls)` the engine of pmap and pcalls: it runs every `(fn, args)` of `calls`
    on parallel workers and returns the values, in input order, as a vector."""
    global _run_parallel
    _run_parallel = run


@builtin("pmap", "(pmap f coll)", "(pmap f c1 c2 ...)", groups=("core",), category="functions")
def pmap(f, coll, *colls):
    """Like map, but every (f item) runs on its own parallel worker; the result vector keeps the input order.
    Useful when f calls slow tools. Workers see definitions read-only (a def inside one is discarded),
    return/fail inside a worker is an error, and the whole operation shares one deadline and a small budget of
    live workers (nested pmaps included). Each worker may use an equal share of the memory left; when workers
    fail, the lowest-index failure is reported.

    (pmap #(* % 10) [1 2 3]) ;=> [10 20 30]
    (pmap + [1 2 3] [10 20]) ;=> [11 22]
    (pmap #(tool/fetch {:id %}) ids) ;=> the fetched records, in the order of ids
    """
    if type(f) is Keyword and not colls and type(coll) is Map:
        raise PtcError("type_error", "pmap: a keyword cannot be mapped over a map's entries; "
                                     "use (pmap #(get m %) (keys m)) or (vals m)")
    f = need_fn(f, "pmap")
    return _run_parallel("pmap", Calls(f, [seq_items(c, "pmap") for c in (coll, *colls)]))


@builtin("pcalls", "(pcalls f1 f2 ...)", groups=("core",), category="functions")
def pcalls(*thunks):
    """Calls every zero-argument function on its own parallel worker and returns their results as a vector in
    argument order. Same rules as pmap.

    (pcalls #(+ 1 1) #(* 2 3) #(- 10 5)) ;=> [2 6 5]
    (pcalls #(tool/users) #(tool/orders)) ;=> [users orders], fetched side by side
    """
    for i, t in enumerate(thunks):
        if not _takes_no_args(t):
            raise PtcError("pcalls_error", f"pcalls: argument {i} must be a function of no arguments, "
                                           f"got {_label(t)}", details={"index": i})
    return _run_parallel("pcalls", Calls(None, list(thunks)))


def _label(t) -> str:
    if callable(t) and type(t) not in (Keyword, Map, Set, Vector):
        return "a function that needs arguments"
    return type_name(t)


def _takes_no_args(t) -> bool:
    if type(t) in (Keyword, Map, Set, Vector) or t is None or not callable(t):
        return False
    params = getattr(t, "ptc_params", None)  # closures of the tree back end: their parameter names
    if params is not None:
        return not params or params[0] == "&"
    code = getattr(t, "__code__", None)
    if code is not None and inspect.isfunction(t):
        required = code.co_argcount - len(t.__defaults__ or ())
        return required <= 0
    try:
        inspect.signature(t).bind()
    except TypeError:
        return False
    except ValueError:  # no signature (a C callable): let the call decide
        return True
    return True
