"""Endless sequences: `(iterate f x)`, `(repeatedly f)`, `(range)`, `(cycle coll)`.

Every other sequence in the language is an eager vector. These four have no end, so they are
values of their own (`Endless`) that hold a recipe, never items: nothing is computed when one
is made. Only the builtins that need a bounded part realize one, item by item:
`take`, `take-while`, `first`, `second`, `nth` (and `drop`, which gives another endless
sequence). `take` charges the meter for its n items before it makes any (so a huge n is a
memory_exceeded at once); `take-while` charges each item as it goes and looks at the
deadline every 1,024 items, so a predicate that never fails ends at the memory or time limit.
Anything else given an endless sequence (`count`, `map`, `reduce`, `vec`, printing it as
data...) is a type_error that says to take a bounded part first. `(repeatedly n f)` and
`(range end)` are finite and eager as before.
Imports errors, meter, registry, values, lib.arguments.
"""
from __future__ import annotations

from ..errors import PtcError
from ..runtime.meter import OBJ, SLOT, current, seq_cost
from ..registry.builtins import builtin
from ..values import Vector
from .arguments import need_count, need_fn, out_vec, seq_items


_NO = object()


class Endless:
    """An endless sequence: `kind` (its builtin), `start` and `step` (how to make the items),
    `skip` (items dropped from the front)."""

    __slots__ = ("kind", "start", "step", "skip")
    ptc_kind = "endless sequence"

    def __init__(self, kind: str, start, step, skip: int = 0):
        self.kind, self.start, self.step, self.skip = kind, start, step, skip

    def ptc_text(self, readable: bool) -> str:
        return f"#endless[({self.kind} ...)]"

    def items(self):
        """The items, one at a time, as a generator (the caller bounds how many it takes)."""
        kind, start, step = self.kind, self.start, self.step
        gen = _GENERATORS[kind](start, step)
        for _ in range(self.skip):
            next(gen)
        return gen

    def head(self, n: int) -> list:
        """The first n items (charged, deadline checked)."""
        m = current()
        m.alloc(seq_cost(n))
        out = []
        gen = self.items()
        for i in range(n):
            if not i & 1023 and m.expired:
                m.raise_expired()
            out.append(next(gen))
        return out

    def dropped(self, n: int) -> "Endless":
        return Endless(self.kind, self.start, self.step, self.skip + max(n, 0))


def _iterate(x, f):
    while True:
        yield x
        x = f(x)


def _repeatedly(_, f):
    while True:
        yield f()


def _count_up(start, step):
    x = start
    while True:
        yield x
        x += step


def _cycle(items, _):
    while True:
        yield from items


_GENERATORS = {"iterate": _iterate, "repeatedly": _repeatedly, "range": _count_up, "cycle": _cycle}


def take_endless(n, s: Endless) -> Vector:
    n = need_count(n, "take")
    return out_vec(s.head(n) if n > 0 else [])


def take_while_endless(pred, s: Endless) -> Vector:
    m = current()
    out = []
    for x in s.items():
        if not len(out) & 1023 and m.expired:
            m.raise_expired()
        if not (r := pred(x)) and (r is None or r is False):
            break
        m.alloc(SLOT)
        out.append(x)
    m.alloc(seq_cost(0))
    return Vector(out)


def nth_endless(s: Endless, i: int):
    return s.head(i + 1)[i] if i >= 0 else None


def endless_error(who: str, s: Endless) -> PtcError:
    return PtcError("type_error", f"{who}: ({s.kind} ...) is endless; take a bounded part first, "
                                  f"e.g. (take 10 ({s.kind} ...)) or take-while")


@builtin("iterate", "(iterate f x)", groups=("core",), category="sequences")
def iterate(f, x):
    """The endless sequence x, (f x), (f (f x)), ...: use it under take, take-while, first, second, nth or drop
    (f is called only for the items taken).

    (take 4 (iterate inc 0)) ;=> [0 1 2 3]
    (take 3 (iterate #(* 2 %) 1)) ;=> [1 2 4]
    """
    current().alloc(OBJ)
    return Endless("iterate", x, need_fn(f, "iterate"))


@builtin("repeatedly", "(repeatedly f)", "(repeatedly n f)", groups=("core",), category="sequences")
def repeatedly(a, b=_NO):
    """(repeatedly n f) is a vector of n results of calling f with no arguments; (repeatedly f) is the endless
    sequence of them, for take and friends.

    (repeatedly 3 (fn [] :x)) ;=> [:x :x :x]
    (take 2 (repeatedly (fn [] 1))) ;=> [1 1]
    """
    if b is _NO:
        current().alloc(OBJ)
        return Endless("repeatedly", None, need_fn(a, "repeatedly"))
    n = need_count(a, "repeatedly")
    f = need_fn(b, "repeatedly")
    m = current()
    m.alloc(seq_cost(max(n, 0)))
    out = []
    for _ in range(n):
        out.append(f())
    return Vector(out)


@builtin("cycle", "(cycle coll)", groups=("core",), category="sequences")
def cycle(coll):
    """The endless sequence of coll's items over and over, for take and friends; () when coll is empty.

    (take 5 (cycle [1 2])) ;=> [1 2 1 2 1]
    """
    items = list(seq_items(coll, "cycle"))
    if not items:
        return out_vec([])
    current().alloc(OBJ)
    return Endless("cycle", items, None)


def endless_range() -> Endless:
    """(range) with no arguments: 0, 1, 2, ..."""
    current().alloc(OBJ)
    return Endless("range", 0, 1)


@builtin("doall", "(doall coll)", "(doall n coll)", groups=("core",), category="sequences")
def doall(a, b=_NO):
    """coll itself: every sequence is already realized (an endless one is refused; take a part first).

    (doall (map inc [1 2])) ;=> [2 3]
    """
    return _realized(a if b is _NO else b, "doall")


@builtin("dorun", "(dorun coll)", "(dorun n coll)", groups=("core",), category="sequences")
def dorun(a, b=_NO):
    """nil: every sequence is already realized, so its effects have happened (an endless one is refused).

    (dorun (map inc [1 2])) ;=> nil
    """
    _realized(a if b is _NO else b, "dorun")
    return None


def _realized(coll, who: str):
    """`coll`, which as every sequence here is already realized, unless it is endless (refused)."""
    if type(coll) is Endless:
        raise endless_error(who, coll)
    return coll
