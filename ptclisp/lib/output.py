"""Output: `println`, which appends a line to the running evaluation's printed output.

The evaluation is reached through `meter.current()`.
Imports meter, printer, registry.
"""
from __future__ import annotations

from ..meter import current
from ..printer import preview
from ..registry import builtin


@builtin("println", "(println x ...)", groups=("core",), category="output", effect="print",
         doc="Append one line to the evaluation's printed output: the arguments separated by single spaces. "
             "Strings are written as they are; other values as a bounded preview. Returns nil.",
         examples=('(println "total:" 42) ;=> nil, prints "total: 42"',))
def println(*args):
    parts = [a if type(a) is str else preview(a) for a in args]
    current().print_line(" ".join(parts))
    return None
