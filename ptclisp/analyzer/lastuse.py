"""Which variable reads are the variable's only read: the compiler's licence to hand a map over.

A map grows in place (`assoc`, `dissoc`) only when the code that extends it
holds its last reference. Two facts prove that together:

* here, statically: no other read of the variable can run after it (every
  other read sits in the other branch of some `if`), and it runs at most once
  per binding of the variable (it is not inside a `fn`, `for` or `loop`
  nested within the variable's scope, where it could run again or later);
  so once the call starts, the variable is dead;
* at run time, in `lib.colls_maps.assoc_owned`: the reference count shows no
  holder besides that dead variable (no vector, var, other local, closure or
  constant), so nobody can observe the change.

Loop and `fn` parameters are rebound on every iteration or call, so a sole
read inside their own loop or function body qualifies. Variables bound by
`for`/`doseq` clauses never do: an inner clause can re-run the body for one
binding. Imports nodes only.
"""
from __future__ import annotations

from . import nodes as N


def sole_reads(root: N.Node) -> frozenset[int]:
    """`id`s of the LocalRef nodes under `root` that are the only read of their variable
    on every path through one activation of its scope, and run at most once in it."""
    home: dict = {}       # Local -> id of the scope (fn / loop / root) whose activation binds it
    reads: dict = {}      # Local -> [(LocalRef node, scope id, if-branch path)]
    path: list = []       # (id of an enclosing `if`, "then" | "else") from the root down

    def walk(n, scope):
        t = type(n)
        if t is N.LocalRef:
            reads.setdefault(n.local, []).append((n, scope, tuple(path)))
            return
        if t is N.If:
            walk(n.test, scope)
            for branch, sub in (("then", n.then), ("else", n.else_)):
                path.append((id(n), branch))
                walk(sub, scope)
                path.pop()
            return
        if t is N.Let:
            for loc, v in n.bindings:
                walk(v, scope)
                home[loc] = scope
            walk(n.body, scope)
            return
        if t is N.Loop:
            for v in n.inits:
                walk(v, scope)
            inner = id(n)
            for loc in n.locals:
                home[loc] = inner
            walk(n.body, inner)
            return
        if t is N.Fn:
            inner = id(n)
            for loc in (n.self_local, n.rest, *n.params):
                if loc is not None:
                    home[loc] = inner
            for loc, v in n.prologue:
                walk(v, inner)
                home[loc] = inner
            walk(n.body, inner)
            return
        if t is N.For:
            inner = id(n)  # clause variables are not registered: never sole
            for clause in n.clauses:
                if clause[0] == "bind":
                    walk(clause[2], inner)
                    for _loc, v in clause[3]:
                        walk(v, inner)
                elif clause[0] == "let":
                    for _loc, v in clause[1]:
                        walk(v, inner)
                else:
                    walk(clause[1], inner)
            walk(n.body, inner)
            return
        for child in children(n):
            walk(child, scope)

    walk(root, id(root))
    out = set()
    for loc, rs in reads.items():
        if loc not in home or len(rs) > 8 or any(scope != home[loc] for _r, scope, _p in rs):
            continue
        if all(_exclusive(a[2], b[2]) for i, a in enumerate(rs) for b in rs[i + 1:]):
            out.update(id(r) for r, _s, _p in rs)
    return frozenset(out)


def _exclusive(p1: tuple, p2: tuple) -> bool:
    """Two reads can never both run: they sit in different branches of one `if`."""
    branches = dict(p1)
    return any(branches.get(if_id, branch) != branch for if_id, branch in p2)


_LEAVES = (N.Const, N.LocalRef, N.GlobalRef, N.MaybeGlobal, N.BuiltinRef, N.DataRef, N.ToolRef, N.HistoryRef,
           N.HostRef)


def children(n: N.Node):
    """The direct sub-nodes of a node that binds nothing (Let/Loop/Fn/For are walked by their users)."""
    t = type(n)
    if t in _LEAVES:
        return ()
    if t is N.If:
        return (n.test, n.then, n.else_)
    if t is N.Do:
        return n.body
    if t in (N.BuiltinCall, N.ToolCall, N.RtCall, N.Prim, N.Recur):
        return n.args
    if t is N.Call:
        return [n.fn] + n.args
    if t is N.Def or t is N.Terminal:
        return (n.value,)
    if t is N.And or t is N.Or:
        return n.exprs
    if t is N.VectorLit or t is N.SetLit:
        return n.items
    if t is N.MapLit:
        return [x for kv in n.pairs for x in kv]
    if t is N.Juxt:
        return n.fns
    if t is N.Let:
        return [v for _loc, v in n.bindings] + [n.body]
    if t is N.Loop:
        return list(n.inits) + [n.body]
    if t is N.Fn:
        return [v for _loc, v in n.prologue] + [n.body]
    raise TypeError(f"no children rule for {t.__name__}")  # pragma: no cover
