"""Which variable reads are the variable's last: the compiler's licence to hand a map over.

A map grows in place (`assoc`, `dissoc`, `conj`, `update`) only when the code
that extends it holds its last reference. Two facts prove that together:

* here, statically: the map is the first argument of such a call C, read
  from a variable that no read can use after C runs. Every other read of the
  variable either sits in the other branch of some `if`, or is finished with
  before C runs: its value was consumed by an expression that completes
  before C (a read inside C's own other arguments, such as the `get` in
  `(assoc m k (inc (get m k 0)))`, is fine; so is a test `(count m)` before
  the branch that assocs). And the variable is not read from a `fn`, `for`
  or `loop` nested within its scope, where a read could run again or later;
* at run time, in `lib.colls_maps.assoc_owned` and kin: the reference count
  shows no holder besides that dead variable (no vector, var, other local,
  closure, constant, or a value still waiting on the stack), so nobody can
  observe the change.

"Completes before" is the order generated code evaluates in: children left to
right, then the node (a post-order walk). Loop and `fn` parameters are rebound
on every iteration or call, so reads in their own loop or function body
qualify. Variables bound by `for`/`doseq` clauses never do: an inner clause
can re-run the body for one binding. Imports nodes only.
"""
from __future__ import annotations

from . import nodes as N

_NEVER = float("inf")


class _Read:
    __slots__ = ("node", "scope", "path", "consumed_at")

    def __init__(self, node, scope, path):
        self.node = node
        self.scope = scope
        self.path = path
        self.consumed_at = _NEVER   # post-order index of the expression that uses the value


def last_reads(root: N.Node, owned_calls) -> frozenset[int]:
    """`id`s of LocalRef nodes under `root` that are the first argument of a call named in
    `owned_calls` and the last use of their variable when that call runs."""
    home: dict = {}         # Local -> id of the scope (fn / loop / root) whose activation binds it
    reads: dict = {}        # Local -> [_Read]
    candidates: list = []   # (_Read, post-order index of its call)
    path: list = []         # (id of an enclosing `if`, "then" | "else") from the root down
    clock = [0]

    def tick(consumed):
        """The reads in `consumed` have been used up now; returns the time stamp."""
        clock[0] += 1
        at = clock[0]
        for r in consumed:
            r.consumed_at = at
        return at

    def walk(n, scope):
        """Walk `n` in evaluation order; return the reads whose value may be `n`'s own value
        (they are used up only when whatever uses `n` has run)."""
        t = type(n)
        if t is N.LocalRef:
            r = _Read(n, scope, tuple(path))
            reads.setdefault(n.local, []).append(r)
            return [r]
        if t is N.If:
            tick(walk(n.test, scope))
            out = []
            for branch, sub in (("then", n.then), ("else", n.else_)):
                path.append((id(n), branch))
                out += walk(sub, scope)
                path.pop()
            return out
        if t is N.Do:
            for sub in n.body[:-1]:
                tick(walk(sub, scope))
            return walk(n.body[-1], scope)
        if t is N.And or t is N.Or:
            out = []
            for sub in n.exprs:
                out += walk(sub, scope)
            return out
        if t is N.Let:
            for loc, v in n.bindings:
                tick(walk(v, scope))
                home[loc] = scope
            return walk(n.body, scope)
        if t is N.Loop:
            for v in n.inits:
                tick(walk(v, scope))
            inner = id(n)
            for loc in n.locals:
                home[loc] = inner
            return walk(n.body, inner)
        if t is N.Fn:
            inner = id(n)
            for loc in (n.self_local, n.rest, *n.params):
                if loc is not None:
                    home[loc] = inner
            for loc, v in n.prologue:
                tick(walk(v, inner))
                home[loc] = inner
            tick(walk(n.body, inner))
            return []
        if t is N.For:
            inner = id(n)  # clause variables are not registered: never a last read
            for clause in n.clauses:
                if clause[0] == "bind":
                    tick(walk(clause[2], inner))
                    for _loc, v in clause[3]:
                        tick(walk(v, inner))
                elif clause[0] == "let":
                    for _loc, v in clause[1]:
                        tick(walk(v, inner))
                else:
                    tick(walk(clause[1], inner))
            tick(walk(n.body, inner))
            return []
        args = [walk(child, scope) for child in N.children(n)]
        at = tick([r for flows in args for r in flows])
        if t is N.BuiltinCall and n.name in owned_calls and n.args and type(n.args[0]) is N.LocalRef:
            candidates.append((args[0][0], at))
        return []

    walk(root, id(root))
    out = set()
    for r, call_at in candidates:
        loc = r.node.local
        if loc not in home or r.scope != home[loc]:
            continue
        others = reads[loc]
        if len(others) > 16:
            continue
        if all(o is r or (o.scope == r.scope and (_exclusive(o.path, r.path) or o.consumed_at < call_at))
               for o in others):
            out.add(id(r.node))
    return frozenset(out)


def _exclusive(p1: tuple, p2: tuple) -> bool:
    """Two reads can never both run: they sit in different branches of one `if`."""
    branches = dict(p1)
    return any(branches.get(if_id, branch) != branch for if_id, branch in p2)
