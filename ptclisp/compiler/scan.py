"""What the emitters and the closure tier ask of a core-AST subtree before emitting it:
whether a map/filter call can become a loop, and which locals a closure reads from outside.

Imports analyzer nodes and the registry facts (`table.facts`).
"""
from __future__ import annotations

from ..analyzer import nodes as N
from .table import facts


# the switch for inline loops: off, every map/filter call goes through its builtin (tests compare both)
INLINE_HOFS = True


def inlinable_hof(node) -> bool:
    """A call `(map (fn [x] ...) coll)` of a builtin marked `inline_hof` (map, mapv, filter, filterv,
    remove) whose fn can become a loop body: one fixed parameter, no name, no recur, and no
    closure inside (a closure would capture the loop variable, which Python rebinds in place)."""
    if not INLINE_HOFS or type(node) is not N.BuiltinCall or len(node.args) != 2 \
            or node.name not in facts().inline_hofs:
        return False
    fn = node.args[0]
    if type(fn) is not N.Fn or fn.name is not None or fn.self_local is not None or fn.rest is not None \
            or fn.has_recur or len(fn.params) != 1:
        return False
    return not _contains_closure(fn.body) and not any(_contains_closure(v) for _loc, v in fn.prologue)


def _contains_closure(n) -> bool:
    t = type(n)
    if t is N.Fn or t is N.For:
        return True
    return any(_contains_closure(c) for c in N.children(n))


def free_locals(fn: N.Fn) -> set:
    """Python names of locals a closure reads from enclosing scopes."""
    bound: set = set()
    used: set = set()

    def walk(n):
        t = type(n)
        if t is N.LocalRef:
            used.add(n.local.py)
            return
        if t is N.Fn:
            if n.self_local is not None:
                bound.add(n.self_local.py)
            for p in n.params:
                bound.add(p.py)
            if n.rest:
                bound.add(n.rest.py)
            for loc, v in n.prologue:
                bound.add(loc.py)
                walk(v)
            walk(n.body)
            return
        if t is N.Let:
            for loc, v in n.bindings:
                bound.add(loc.py)
                walk(v)
            walk(n.body)
            return
        if t is N.Loop:
            for loc in n.locals:
                bound.add(loc.py)
            for v in n.inits:
                walk(v)
            walk(n.body)
            return
        if t is N.For:
            for c in n.clauses:
                if c[0] == "bind":
                    bound.add(c[1].py)
                    walk(c[2])
                    for loc, v in c[3]:
                        bound.add(loc.py)
                        walk(v)
                elif c[0] == "let":
                    for loc, v in c[1]:
                        bound.add(loc.py)
                        walk(v)
                else:
                    walk(c[1])
            walk(n.body)
            return
        for child in N.children(n):
            walk(child)

    walk(fn)
    return used - bound
