"""Parallel builtins: pmap, pcalls (functions.md §2, runtime.md §9).

The arguments are checked here, before any worker starts; running the
workers (budget, deadline, effects) is `ptclisp.parallel`.
"""
from __future__ import annotations

import inspect

from ..errors import PtcError
from ..parallel import Calls, run_parallel
from ..values import Keyword, Map, Set, Vector, type_name
from .common import seq_items
from .seqs_common import fn_arg
from ..registry import builtin


@builtin("pmap", "(pmap f coll)", "(pmap f c1 c2 ...)", groups=("core",), category="functions",
         doc="Like map, but every (f item) runs on its own parallel worker; the result vector keeps the "
             "input order. Useful when f calls slow tools. Workers see definitions read-only (a def inside "
             "one is discarded), return/fail inside a worker is an error, and the whole operation shares "
             "one deadline and a small budget of live workers (nested pmaps included).",
         examples=("(pmap #(* % 10) [1 2 3]) ;=> [10 20 30]", "(pmap + [1 2 3] [10 20]) ;=> [11 22]",
                   "(pmap #(tool/fetch {:id %}) ids) ;=> the fetched records, in the order of ids"))
def pmap(f, coll, *colls):
    if type(f) is Keyword and not colls and type(coll) is Map:
        raise PtcError("type_error", "pmap: a keyword cannot be mapped over a map's entries; "
                                     "use (pmap #(get m %) (keys m)) or (vals m)")
    f = fn_arg(f, "pmap")
    return run_parallel("pmap", Calls(f, [seq_items(c, "pmap") for c in (coll, *colls)]))


@builtin("pcalls", "(pcalls f1 f2 ...)", groups=("core",), category="functions",
         doc="Calls every zero-argument function on its own parallel worker and returns their results "
             "as a vector in argument order. Same rules as pmap.",
         examples=("(pcalls #(+ 1 1) #(* 2 3) #(- 10 5)) ;=> [2 6 5]",
                   "(pcalls #(tool/users) #(tool/orders)) ;=> [users orders], fetched side by side"))
def pcalls(*thunks):
    for i, t in enumerate(thunks):
        if not _takes_no_args(t):
            raise PtcError("pcalls_error", f"pcalls: argument {i} must be a function of no arguments, "
                                           f"got {_label(t)}", details={"index": i})
    return run_parallel("pcalls", Calls(None, list(thunks)))


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
