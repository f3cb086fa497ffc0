"""Atoms: mutable cells (`atom`, `deref` / `@a`, `swap!`, `reset!`, `compare-and-set!`).

An atom holds one value and can be given a new one; everything else in the language stays
immutable. Programs use them as local mutable cells (a counter inside a `doseq`, a cache
filled while walking data); an atom kept by `def` lives as long as the definition. Its value
is an ordinary value, charged when it was built; an atom itself costs one object. `swap!`
under `pmap` is made atomic by a lock held only around the final store (f may run again, as
Clojure's compare-and-set loop would run it, when another task changed the value meanwhile).
Imports errors, meter, registry, values, lib.arguments.
"""
from __future__ import annotations

import threading

from ..errors import PtcError
from ..runtime.meter import OBJ, current
from ..values.text import pr_str
from ..registry.builtins import builtin
from ..values import type_name
from .arguments import need_fn

_LOCK = threading.Lock()


class Atom:
    """A mutable cell holding one PTC value. Equal only to itself."""

    __slots__ = ("value", "__weakref__")
    ptc_kind = "atom"

    def __init__(self, value):
        self.value = value

    def ptc_text(self, readable: bool) -> str:
        return "#atom[" + pr_str(self.value) + "]"

    def __repr__(self):
        return self.ptc_text(True)


def _need_atom(a, who: str) -> Atom:
    if type(a) is not Atom:
        raise PtcError("type_error", f"{who}: expected an atom, got {type_name(a)}")
    return a


@builtin("atom", "(atom x)", groups=("core",), category="state")
def atom(x):
    """A mutable cell holding x: read it with (deref a) or @a, change it with swap! or reset!.

    (let [a (atom 0)] (swap! a inc) @a) ;=> 1
    """
    current().alloc(OBJ)
    return Atom(x)


@builtin("deref", "(deref a)", groups=("core",), category="state")
def deref(a):
    """The value an atom holds now; @a is the same.

    (deref (atom 5)) ;=> 5
    """
    return _need_atom(a, "deref").value


@builtin("swap!", "(swap! a f & args)", groups=("core",), category="state")
def swap(a, f, *args):
    """Gives the atom the value (f current args...) and returns it.

    (let [a (atom {:n 1})] (swap! a update :n + 10)) ;=> {:n 11}
    """
    a = _need_atom(a, "swap!")
    f = need_fn(f, "swap!")
    while True:
        old = a.value
        new = f(old, *args)
        with _LOCK:
            if a.value is old:
                a.value = new
                return new


@builtin("reset!", "(reset! a x)", groups=("core",), category="state")
def reset(a, x):
    """Gives the atom the value x and returns x.

    (let [a (atom 1)] (reset! a 9) @a) ;=> 9
    """
    _need_atom(a, "reset!").value = x
    return x


@builtin("compare-and-set!", "(compare-and-set! a old new)", groups=("core",), category="state")
def compare_and_set(a, old, new):
    """Gives the atom the value new only when it holds old (the same value, identical); true when it did.

    (let [a (atom 1)] (compare-and-set! a 1 2)) ;=> true
    """
    a = _need_atom(a, "compare-and-set!")
    with _LOCK:
        if a.value is old or (type(old) in (int, str, bool) and type(a.value) is type(old) and a.value == old):
            a.value = new
            return True
    return False
