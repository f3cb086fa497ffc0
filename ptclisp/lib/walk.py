"""Tree walking: `walk`, `prewalk`, `postwalk` (docs/spec/functions.md §1.12, clojure.walk).

The children of a vector are its items, of a map its `[k v]` entries (in key
order), of a set its members; every other value is a leaf. Rebuilt nodes keep
their kind. A map child that the walk turns into something other than a
`[k v]` pair is a `type_error` (a nil child is dropped, a map child is merged),
as Clojure's `into` would do. `prewalk`/`postwalk` use an explicit stack, so
deeply nested data cannot exhaust the Python stack.
Imports values, errors, meter, lib.arguments, registry.
"""
from __future__ import annotations


from ..errors import PtcError
from ..runtime.meter import map_cost
from ..values import Map, Set, Vector, hk, sorted_members, type_name
from .arguments import charge, entries, need_fn, out_vec
from ..registry.builtins import builtin

from ..values import owner_token as _owner_token


def _children(node):
    """(kind, children list) for a collection node, or None for a leaf."""
    t = type(node)
    if t is Vector:
        return Vector, node.lst()
    if t is Map:
        return Map, entries(node)
    if t is Set:
        return Set, sorted_members(node)
    return None


def _rebuild(kind, items: list):
    if kind is Vector:
        return out_vec(items)
    charge(map_cost(len(items)))
    if kind is Set:
        return Set({hk(x): x for x in items}, _owner_token())
    d = {}
    for e in items:
        te = type(e)
        if te is Vector and len(e) == 2:
            k, v = e.lst()
            d[hk(k)] = v
        elif e is None:
            continue
        elif te is Map:
            d.update(e.d())
        else:
            raise PtcError("type_error", f"walk: a map entry must become a [key value] pair, got {type_name(e)}")
    return Map(d)


@builtin("walk", "(walk inner outer form)", groups=("walk",), category="tree")
def walk(inner, outer, form):
    """Applies inner to each child of form (vector items, map [key value] entries, set members), rebuilds a
    collection of the same kind, and returns (outer rebuilt). A non-collection form gives (outer form).

    (walk inc #(apply + %) [1 2 3]) ;=> 9
    (walk inc identity #{1 2 3}) ;=> #{2 3 4}
    """
    inner = need_fn(inner, "walk")
    outer = need_fn(outer, "walk")
    kc = _children(form)
    if kc is None:
        return outer(form)
    kind, items = kc
    return outer(_rebuild(kind, [inner(x) for x in items]))


class _Frame:
    __slots__ = ("kind", "items", "i", "out")

    def __init__(self, kind, items):
        self.kind = kind
        self.items = items
        self.i = 0
        self.out = []


def _walk_tree(form, pre, post):
    """Depth-first rebuild of form; `pre` runs on a node before its children, `post` after rebuilding."""

    def enter(node):
        if pre is not None:
            node = pre(node)
        kc = _children(node)
        if kc is None:
            return post(node) if post is not None else node
        return _Frame(*kc)

    r = enter(form)
    if type(r) is not _Frame:
        return r
    stack = [r]
    while True:
        fr = stack[-1]
        if fr.i < len(fr.items):
            child = fr.items[fr.i]
            fr.i += 1
            r = enter(child)
            if type(r) is _Frame:
                stack.append(r)
            else:
                fr.out.append(r)
            continue
        stack.pop()
        v = _rebuild(fr.kind, fr.out)
        if post is not None:
            v = post(v)
        if not stack:
            return v
        stack[-1].out.append(v)


@builtin("prewalk", "(prewalk f form)", groups=("walk",), category="tree")
def prewalk(f, form):
    """Top-down rewrite: applies f to form, then walks into the children of what f returned.

    (prewalk #(if (number? %) (inc %) %) [1 [2 3]]) ;=> [2 [3 4]]
    """
    return _walk_tree(form, need_fn(f, "prewalk"), None)


@builtin("postwalk", "(postwalk f form)", groups=("walk",), category="tree")
def postwalk(f, form):
    """Bottom-up rewrite: walks the children first, rebuilds each node, then applies f to it.

    (postwalk #(if (vector? %) (apply + %) %) [[1 2] [3 4]]) ;=> 10
    """
    return _walk_tree(form, None, need_fn(f, "postwalk"))
