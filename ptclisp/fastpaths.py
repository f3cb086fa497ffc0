"""The general path: every fast path of the back ends off at once (`general_path()`).

A fast path is a claim that it gives the general path's answer (value, error kind, message,
position, prints, charges). To check the claim, a program must be able to run the slow,
obviously right way; `general_path()` is that way:

    with ptclisp.general_path():
        r = ptclisp.run(src)          # closures, and loops compiled with no fast path

Inside it, for every evaluation started there (in any Session):

* no inlined primitive, `get`/`get-in`/`nth`/`quot`/`(:k m)` probe, short string method,
  specialiser of literal arguments or folded `(+ a b c)`: each builtin is a plain call of its
  function (`compiler.scan.INLINE_CALLS`);
* no inline map/filter loop, in the compiler or as the closure tier's island
  (`compiler.scan.INLINE_HOFS`, `interp.ISLAND_ITEMS`);
* no int-only loop variables or int-argument copy of a fn body (`compiler.scan.INT_VARS`);
* no in-place growth of maps, vectors and sets, stolen or written out
  (`values.IN_PLACE_GROWTH`, `values.INLINE_GROWTH`);
* no compiled `for`/`doseq` island and no hot-fn twin: a `fn` stays a closure however often it
  is called (`interp.FOR_ISLAND_ITEMS`, `interp.HOT_CALLS`);
* no program cache (`pipeline.PROGRAM_CACHE`).

Loops and self-recursive functions are still compiled (the closure tier has no loop of its
own), with none of the rewrites above. The switches are process-wide module settings: use it
in tests, benchmarks and the differential campaign (benchmarks/fuzz.py --differential), not
around evaluations running on other threads. Code compiled before entering it (a prelude, a
fn already hot in a kept Session) keeps its fast paths; start from a new Session.

A new fast path adds its own switch to `SWITCHES`, with the value that turns it off.
Imports the modules whose settings it flips.
"""
from __future__ import annotations

import contextlib
import sys

from .backends import closures as interp
from . import pipeline, values
from .backends.bytecode import scan

# (module, setting, value on the general path)
SWITCHES = (
    (scan, "INLINE_CALLS", False),
    (scan, "INLINE_HOFS", False),
    (scan, "INT_VARS", False),
    (values, "IN_PLACE_GROWTH", False),
    (values, "INLINE_GROWTH", False),
    (interp, "ISLAND_ITEMS", sys.maxsize),
    (interp, "FOR_ISLAND_ITEMS", sys.maxsize),
    (interp, "HOT_CALLS", sys.maxsize),
    (pipeline, "PROGRAM_CACHE", False),
)


@contextlib.contextmanager
def settings(switches):
    """Within the block, each (module, name, value) of `switches` is set; restored on the way out."""
    saved = [(module, name, getattr(module, name)) for module, name, _ in switches]
    try:
        for module, name, value in switches:
            setattr(module, name, value)
        yield
    finally:
        for module, name, value in saved:
            setattr(module, name, value)


def general_path():
    """Within the block, evaluations take the general path (module docstring); the settings are
    restored on the way out, nested or not."""
    return settings(SWITCHES)
