"""Context-aware builtins: apply, println.

These read the running evaluation through `meter.current()`.
"""
from __future__ import annotations

from ..errors import PtcError
from ..meter import current
from ..printer import preview
from .common import seq_items
from ..registry import as_fn, builtin


@builtin("apply", "(apply f args)", "(apply f x ... args)", groups=("core",), category="functions",
         doc="Call f with the given arguments, the last of which is a collection spread into separate "
             "arguments: (apply + 1 [2 3]) is (+ 1 2 3).",
         examples=("(apply + [1 2 3]) ;=> 6", "(apply max 1 [5 2]) ;=> 5"))
def apply_(f, *args):
    if not args:
        raise PtcError("arity_error", "apply needs a function and a collection of arguments")
    fn = as_fn(f, "apply")
    spread = seq_items(args[-1], "apply")
    return fn(*args[:-1], *spread)


@builtin("println", "(println x ...)", groups=("core",), category="output", effect="print",
         doc="Append one line to the evaluation's printed output: the arguments separated by single spaces. "
             "Strings are written as they are; other values as a bounded preview. Returns nil.",
         examples=('(println "total:" 42) ;=> nil, prints "total: 42"',))
def println(*args):
    parts = [a if type(a) is str else preview(a) for a in args]
    current().print_line(" ".join(parts))
    return None
