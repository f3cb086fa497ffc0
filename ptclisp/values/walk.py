"""The one walk over values: depth first, in order, without recursion; what it computes is in hooks.

The walks that size, own, preview, copy and convert whole values run here: the
size estimates at the boundaries (`retained_bytes`, `result_bytes`, the
rendering charge `lib.strings.render_size`), ownership (`parallel.disown`),
previews (values/preview.py), copies (values/copies.py: `detach`) and the host
boundary (`convert.from_python`, `convert.to_python`). Printing
(values/text.py) and JSON output (jsonout.py) keep loops of their own: the
first is the hot path of `str`, the second validates keys before values and
names the path to what it refuses.

    walk(root, vector=..., map=..., set=..., other=..., leaf=..., leave=..., again=...,
         once=False, remember=None, build=False, skip=())

For each value x met (the root first, then each container's parts in order):

* a value whose type is in `skip` is passed over (kept as it is when building);
* with `once`, a value entered before is not entered again (nil, booleans,
  numbers and strings are never remembered): `again(x, result)` stands for
  it, where result is what its walk gave, or `IN_PROGRESS` while that walk is
  still under way (x contains itself: a cycle); `remember(x)`, when given,
  is asked once x has been opened (its hook returned its parts) and may say
  False for a container nothing else can reach (held by that one part of its
  parent alone): it is then not remembered, which keeps the memo small;
* otherwise the hook of its kind runs: `vector(x, depth)`, `map(x, depth)`,
  `set(x, depth)` for PTC collections, `other(x, t, depth)` for everything
  else (t is type(x)); depth counts the containers around x (the root's is 0).
  The hook returns an iterator over the parts to walk inside x, or None: x is
  a leaf. By default a vector's parts are its items, a map's its stored keys
  and values (key, value, key, ...), a set's its members; anything else is a leaf.
* after a container's last part, `leave(x, parts)` runs.

With `build`, the walk computes a result per value: a leaf's is `leaf(x, t)`
(default: x itself), a container's is what `leave(x, parts)` returns, parts
being the list of its parts' results; `walk` returns the root's. Without it,
parts is None and `walk` returns None. A hook raises `Stop` to end the walk
at once (`walk` then returns None).
Imports values.maps, values.vectors, values.sets.
"""
from __future__ import annotations

from itertools import chain

from .maps import Map
from .sets import Set
from .vectors import Vector

_PLAIN = frozenset({type(None), bool, int, float, str})   # never entered, so never looked up in the memo
IN_PROGRESS = object()   # `again`'s result for a value whose walk is still under way (a cycle)
_NO = object()


class Stop(Exception):
    """Raised by a hook to end the walk at once."""


def vector_parts(v, depth):
    return iter(v.lst())


def map_parts(m, depth):
    return chain.from_iterable(dict.items(m))


def set_parts(s, depth):
    return iter(s.d().values())


def no_parts(x, t, depth):
    return None


def _same(x, result):
    return result


def walk(root, *, vector=vector_parts, map=map_parts, set=set_parts, other=no_parts,
         leaf=None, leave=None, again=_same, once: bool = False, remember=None, build: bool = False,
         skip=()):
    """Walk `root` and everything inside it; see the module docstring."""
    memo = {} if once else None
    frames: list = []            # the enclosing containers: (container, its parts iterator, results so far,
    top: list = []               # whether it is in the memo)
    src, it, out, depth, kept = None, iter((root,)), top, 0, False
    try:
        while True:
            for x in it:
                t = type(x)
                if t in skip:
                    if build:
                        out.append(x)
                    continue
                if memo is not None and t not in _PLAIN:
                    done = memo.get(id(x), _NO)
                    if done is not _NO:
                        done = again(x, done)
                        if build:
                            out.append(done)
                        continue
                if t is Vector:
                    parts = vector(x, depth)
                elif t is Map:
                    parts = map(x, depth)
                elif t is Set:
                    parts = set(x, depth)
                else:
                    parts = other(x, t, depth)
                if parts is None:
                    if build:
                        out.append(x if leaf is None else leaf(x, t))
                    continue
                frames.append((src, it, out, kept))
                kept = memo is not None and (remember is None or remember(x))
                if kept:
                    memo[id(x)] = IN_PROGRESS
                src, it = x, parts
                depth += 1
                if build:
                    out = []
                break
            else:
                if not depth:
                    return top[0] if build else None
                result = leave(src, out if build else None) if leave is not None else None
                if kept:
                    memo[id(src)] = result
                src, it, out, kept = frames.pop()
                depth -= 1
                if build:
                    out.append(result)
    except Stop:
        return None


# ------------------------------------------------------------------ conversions that copy every path

class ExpansionBudget:
    """How many cells a conversion that copies a value as a tree (to_python, to_json: every path to a
    shared part gives a copy of its own) may make: `FLOOR`, or twice the cells the value really holds
    (its parts counted once each), whichever is more. A value built without sharing always fits; one
    that shares a part a million times cannot make the host build a million copies.

    `add(n)` counts n cells made and returns False once the copy is past what the value allows (the
    caller raises its own typed error); the value's own size is walked only once the floor is passed.
    """

    FLOOR = 1_000_000

    __slots__ = ("root", "made", "limit")

    def __init__(self, root):
        self.root = root
        self.made = 0
        self.limit = None

    def add(self, n: int) -> bool:
        made = self.made = self.made + n + 1
        if made <= self.FLOOR:
            return True
        if self.limit is None:
            self.limit = max(self.FLOOR, 2 * held_cells(self.root))
        return made <= self.limit


def held_cells(root) -> int:
    """The cells `root` holds: one per container and per item, entry or member, shared parts once."""
    total = 0

    def vector(v, depth):
        nonlocal total
        items = v.lst()
        total += len(items) + 1
        return iter(items)

    def table(c, depth):
        nonlocal total
        d = c.d()
        total += len(d) + 1
        return chain(dict.keys(d), dict.values(d))

    walk(root, vector=vector, map=table, set=table, once=True)
    return total
