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
can re-run the body for one binding.

Two steps: `_ReadCollector` walks the tree once and records the facts (every
read with its scope, its branch path and when its value was used up; the scope
that binds each variable; the reads that are the map argument of an owned
call); `_last_uses` then decides, from those facts alone, which of the
candidate reads are last uses. Imports nodes only.
"""
from __future__ import annotations

from . import nodes as N

_NEVER = float("inf")
_MAX_READS = 16  # a variable read more often than this is never handed over (bounds the decision's work)


def last_reads(root: N.Node, owned_calls) -> frozenset[int]:
    """`id`s of LocalRef nodes under `root` that are the first argument of a call named in
    `owned_calls` and the last use of their variable when that call runs."""
    return _last_uses(_ReadCollector(owned_calls).collect(root))


class _Read:
    """One read of a variable: where it sits and when its value was used up."""

    __slots__ = ("node", "scope", "path", "consumed_at")

    def __init__(self, node, scope, path):
        self.node = node            # the LocalRef
        self.scope = scope          # id of the fn / loop / root whose activation runs it
        self.path = path            # ((id of an enclosing `if`, "then" | "else"), ...) from the root down
        self.consumed_at = _NEVER   # post-order index of the expression that uses the value


# ------------------------------------------------------------------ step 1: the facts

class _ReadCollector:
    """Walks a tree in evaluation order (children left to right, then the node) and records:

    * `reads`: Local -> every `_Read` of it;
    * `home`: Local -> id of the scope whose activation binds it (`for` clause variables are
      left out: they are never handed over);
    * `candidates`: (`_Read`, post-order index of its call) for each read that is the first
      argument of a call named in `owned_calls`.

    Each `visit_*` method returns the reads whose value may be the node's own value: they are
    used up only when whatever uses the node has run.
    """

    def __init__(self, owned_calls):
        self.owned_calls = owned_calls
        self.home: dict = {}
        self.reads: dict = {}
        self.candidates: list = []
        self._path: list = []   # (id of an enclosing `if`, branch) from the root down to the current node
        self._clock = 0

    def collect(self, root: N.Node) -> "_ReadCollector":
        self.visit(root, id(root))
        return self

    def _used_up(self, reads) -> int:
        """The reads in `reads` have been used up now; returns the time stamp."""
        self._clock += 1
        at = self._clock
        for r in reads:
            r.consumed_at = at
        return at

    def _bind(self, locals_, scope) -> None:
        for loc in locals_:
            if loc is not None:
                self.home[loc] = scope

    def visit(self, n: N.Node, scope) -> list:
        return self._VISITORS.get(type(n), _ReadCollector.visit_other)(self, n, scope)

    def visit_local_ref(self, n: N.LocalRef, scope) -> list:
        r = _Read(n, scope, tuple(self._path))
        self.reads.setdefault(n.local, []).append(r)
        return [r]

    def visit_if(self, n: N.If, scope) -> list:
        self._used_up(self.visit(n.test, scope))
        out = []
        for branch, sub in (("then", n.then), ("else", n.else_)):
            self._path.append((id(n), branch))
            out += self.visit(sub, scope)
            self._path.pop()
        return out

    def visit_do(self, n: N.Do, scope) -> list:
        for sub in n.body[:-1]:
            self._used_up(self.visit(sub, scope))
        return self.visit(n.body[-1], scope)

    def visit_and_or(self, n, scope) -> list:
        out = []
        for sub in n.exprs:
            out += self.visit(sub, scope)
        return out

    def visit_let(self, n: N.Let, scope) -> list:
        for loc, v in n.bindings:
            self._used_up(self.visit(v, scope))
            self.home[loc] = scope
        return self.visit(n.body, scope)

    def visit_loop(self, n: N.Loop, scope) -> list:
        for v in n.inits:
            self._used_up(self.visit(v, scope))
        inner = id(n)  # loop variables are rebound on every iteration: reads in the body qualify
        self._bind(n.locals, inner)
        return self.visit(n.body, inner)

    def visit_fn(self, n: N.Fn, scope) -> list:
        inner = id(n)  # parameters are rebound on every call: reads in the body qualify
        self._bind((n.self_local, n.rest, *n.params), inner)
        for loc, v in n.prologue:
            self._used_up(self.visit(v, inner))
            self.home[loc] = inner
        self._used_up(self.visit(n.body, inner))
        return []

    def visit_for(self, n: N.For, scope) -> list:
        inner = id(n)  # clause variables are not bound in `home`: never a last read
        for clause in n.clauses:
            if clause[0] == "bind":
                self._used_up(self.visit(clause[2], inner))
                for _loc, v in clause[3]:
                    self._used_up(self.visit(v, inner))
            elif clause[0] == "let":
                for _loc, v in clause[1]:
                    self._used_up(self.visit(v, inner))
            else:
                self._used_up(self.visit(clause[1], inner))
        self._used_up(self.visit(n.body, inner))
        return []

    def visit_other(self, n: N.Node, scope) -> list:
        """Any other node: its children in order, then the node itself uses up their values."""
        args = [self.visit(child, scope) for child in N.children(n)]
        at = self._used_up([r for flows in args for r in flows])
        if type(n) is N.BuiltinCall and n.name in self.owned_calls and n.args and type(n.args[0]) is N.LocalRef:
            self.candidates.append((args[0][0], at))
        return []

    _VISITORS = {
        N.LocalRef: visit_local_ref, N.If: visit_if, N.Do: visit_do, N.And: visit_and_or, N.Or: visit_and_or,
        N.Let: visit_let, N.Loop: visit_loop, N.Fn: visit_fn, N.For: visit_for,
    }


# ------------------------------------------------------------------ step 2: the decision

def _last_uses(facts: _ReadCollector) -> frozenset[int]:
    """The candidate reads that are their variable's last use when their call runs: the read runs
    in the activation that binds the variable, and every other read of it runs in that activation
    too and either sits in the other branch of some `if` or was used up before the call."""
    out = set()
    for r, call_at in facts.candidates:
        loc = r.node.local
        if loc not in facts.home or r.scope != facts.home[loc]:
            continue
        others = facts.reads[loc]
        if len(others) > _MAX_READS:
            continue
        if all(o is r or (o.scope == r.scope and (_exclusive(o.path, r.path) or o.consumed_at < call_at))
               for o in others):
            out.add(id(r.node))
    return frozenset(out)


def _exclusive(p1: tuple, p2: tuple) -> bool:
    """Two reads can never both run: they sit in different branches of one `if`."""
    branches = dict(p1)
    return any(branches.get(if_id, branch) != branch for if_id, branch in p2)
