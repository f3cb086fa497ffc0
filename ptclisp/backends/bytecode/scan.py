"""What the emitters and the closure tier ask of a core-AST subtree before emitting it:
whether a map/filter call can become a loop, and which locals a closure reads from outside.

Imports analyzer nodes and the registry facts (`backends.table.facts`).
"""
from __future__ import annotations

from ...analyzer import nodes as N
from ..table import facts


# the switch for inline loops: off, every map/filter call goes through its builtin (tests compare both)
INLINE_HOFS = True
# the switch for int loop variables and int-argument bodies: off, every integer operation keeps its
# type guards (tests compare both)
INT_VARS = True
# the switch for the call fast paths (inlined primitives, get/get-in/nth/quot/(:k m) probes, short
# string methods, the specialisers of literal arguments, `(+ a b c)` folded): off, every builtin
# and primitive is a plain call of its function (`fastpaths.general_path`)
INLINE_CALLS = True


def inlinable_hof(node) -> bool:
    """A call `(map (fn [x] ...) coll)` of a builtin marked `inline_hof` (map, mapv, mapcat, filter, filterv,
    remove) whose fn can become a loop body: one fixed parameter, no name, no recur, and no
    closure inside (a closure would capture the loop variable, which Python rebinds in place)."""
    if not INLINE_HOFS or type(node) is not N.BuiltinCall or len(node.args) != 2 \
            or node.name not in facts().inline_hofs:
        return False
    fn = node.args[0]
    if type(fn) is not N.Fn or fn.name is not None or fn.self_local is not None or fn.rest is not None \
            or fn.has_recur or len(fn.params) != 1:
        return False
    if _contains_closure(fn.body):
        return False
    for _loc, v in fn.prologue:
        if _contains_closure(v):
            return False
    return True


def _contains_closure(n) -> bool:
    """Is there a `fn` or `for` anywhere in the subtree `n` (itself included)?"""
    stack = [n]
    pop, extend, children, leaves = stack.pop, stack.extend, N.children, N.LEAVES
    while stack:
        n = pop()
        t = type(n)
        if t is N.Fn or t is N.For:
            return True
        if t not in leaves:
            extend(children(n))
    return False


def free_locals(fn: N.Fn) -> set:
    """Python names of locals a closure reads from enclosing scopes (every local the subtree
    reads, less every local it binds anywhere: Python names are unique, so the order of the walk
    does not matter)."""
    bound: set = set()
    used: set = set()
    stack = [fn]
    pop, push, extend, bind, use = stack.pop, stack.append, stack.extend, bound.add, used.add
    children, leaves = N.children, N.LEAVES
    while stack:
        n = pop()
        t = type(n)
        if t is N.LocalRef:
            use(n.local.py)
        elif t in leaves:
            pass
        elif t is N.Fn:
            if n.self_local is not None:
                bind(n.self_local.py)
            for p in n.params:
                bind(p.py)
            if n.rest:
                bind(n.rest.py)
            for loc, v in n.prologue:
                bind(loc.py)
                push(v)
            push(n.body)
        elif t is N.Let:
            for loc, v in n.bindings:
                bind(loc.py)
                push(v)
            push(n.body)
        elif t is N.Loop:
            for loc in n.locals:
                bind(loc.py)
            extend(n.inits)
            push(n.body)
        elif t is N.For:
            for c in n.clauses:
                if c[0] == "bind":
                    bind(c[1].py)
                    push(c[2])
                    for loc, v in c[3]:
                        bind(loc.py)
                        push(v)
                elif c[0] == "let":
                    for loc, v in c[1]:
                        bind(loc.py)
                        push(v)
                else:
                    push(c[1])
            push(n.body)
        else:
            extend(children(n))
    return used - bound


# primitives whose result is an int whenever every operand is one (or that raise)
_INT_PRIMS = frozenset(("add", "sub", "mul", "mod", "inc", "dec"))


def int_valued(n, ints) -> bool:
    """True when `n` always evaluates to an int (type exactly int), given that the locals whose
    Python names are in `ints` hold ints: an int constant, such a local, or integer arithmetic
    (`+ - * mod inc dec` as primitives) over such operands."""
    t = type(n)
    if t is N.Const:
        return type(n.value) is int
    if t is N.LocalRef:
        return n.local.py in ints
    if t is N.Prim:
        return n.op in _INT_PRIMS and all(int_valued(a, ints) for a in n.args)
    return False


def _recurs_to(node, target, out):
    t = type(node)
    if t is N.Recur and node.target is target:
        out.append(node)
    for c in N.children(node):
        _recurs_to(c, target, out)
    return out


def int_loop_locals(loop, ints) -> set:
    """Python names of the variables of `loop` that hold an int on every iteration: the initial
    value is int-valued and so is the value every `recur` to this loop gives it, assuming the
    same of the other such variables (the largest set for which that holds). The compiler drops
    the type guards of integer operations on them; nothing else assigns a loop variable."""
    if not INT_VARS:
        return set()
    known = set(ints)
    cand = []
    for local, init in zip(loop.locals, loop.inits):
        if int_valued(init, known):   # inits are sequential: a later one may read an earlier variable
            cand.append(local.py)
            known.add(local.py)
    if not cand:
        return set()
    recurs = _recurs_to(loop.body, loop, [])
    names = [l.py for l in loop.locals]
    cand = set(cand)
    changed = True
    while changed:
        changed = False
        assumed = set(ints) | cand
        for r in recurs:
            for py, arg in zip(names, r.args):
                if py in cand and not int_valued(arg, assumed):
                    cand.discard(py)
                    changed = True
    return cand


# primitives the compiler inlines with a type guard on an int operand
_GUARDED_PRIMS = frozenset(("add", "sub", "mul", "mod", "inc", "dec", "lt", "gt", "le", "ge", "eq"))
SPECIALIZE_MAX_NODES = 120


def int_params(fn) -> tuple:
    """Python names of the parameters of `fn` that its body uses as operands of guarded integer
    operations, when the compiler should emit the body a second time for int arguments (no type
    guards on those parameters): a small body with no closure or `for` inside (which would be
    emitted twice too). Empty when it should not."""
    if not INT_VARS or fn.rest is not None or fn.has_recur:   # recur would rebind the parameters
        return ()
    params = {p.py for p in fn.params}
    used: list = []
    count = 0

    def walk(n):
        nonlocal count
        count += 1
        t = type(n)
        if t is N.Fn or t is N.For or count > SPECIALIZE_MAX_NODES:
            return False
        if t is N.Prim and n.op in _GUARDED_PRIMS:
            for a in n.args:
                if type(a) is N.LocalRef and a.local.py in params and a.local.py not in used:
                    used.append(a.local.py)
        return all(walk(c) for c in N.children(n))

    if not all(walk(v) for _loc, v in fn.prologue) or not walk(fn.body):
        return ()
    return tuple(p.py for p in fn.params if p.py in used)
