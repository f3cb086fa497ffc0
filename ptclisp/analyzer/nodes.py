"""The core AST: what the analyzer produces and the compiler consumes.

About twenty node kinds; every derived form (`when`, `cond`, `->`, `for`
modifiers, `defn`, destructuring, ...) is lowered into these. Each node has
a `span` (None when unknown). Imports errors only.
"""
from __future__ import annotations

import itertools


from ..errors import Span

_ids = itertools.count()
_PY_SAFE: dict = {}   # a PTC name -> the Python-safe part of its locals' `py` (names repeat across programs)


class Local:
    """A lexical variable; `py` is its unique Python identifier."""

    __slots__ = ("name", "py")

    def __init__(self, name: str):
        self.name = name
        safe = _PY_SAFE.get(name)
        if safe is None:
            safe = name if name.isidentifier() and name.isascii() and len(name) < 24 else \
                "".join(c if c.isalnum() else "_" for c in name)[:24]
            if len(_PY_SAFE) < 4096:
                _PY_SAFE[name] = safe
        self.py = f"l{next(_ids)}_{safe}"

    def __repr__(self):
        return f"Local({self.name})"


class Node:
    __slots__ = ("span",)


def _node(*fields):
    """Define a slotted node class with the given fields (+ span)."""

    def deco(cls):
        cls.__slots__ = fields
        args = ", ".join(fields)
        body = "".join(f"    self.{f} = {f}\n" for f in fields)
        ns: dict = {}
        exec(f"def __init__(self, {args}, span=None):\n{body}    self.span = span\n", ns)  # noqa: S102 - fixed text
        cls.__init__ = ns["__init__"]
        cls.__repr__ = lambda self: f"{cls.__name__}(" + ", ".join(f"{f}={getattr(self, f)!r}" for f in fields) + ")"
        return cls

    return deco


@_node("value")
class Const(Node):
    """A literal value (number, string, keyword, nil, boolean, regex, symbol ref)."""


@_node("local")
class LocalRef(Node):
    pass


@_node("name")
class GlobalRef(Node):
    """A user-namespace name, read at run time."""


@_node("name")
class MaybeGlobal(Node):
    """A user-namespace name that reads as nil when unbound (bare `or` operand)."""


@_node("name")
class BuiltinRef(Node):
    """A registered builtin used as a value."""


@_node("name", "args")
class BuiltinCall(Node):
    """A direct call of a registered builtin."""


@_node("name")
class DataRef(Node):
    pass


@_node("name")
class ToolRef(Node):
    """`tool/name` used as a value (a callable)."""


@_node("name", "args")
class ToolCall(Node):
    pass


@_node("n")
class HistoryRef(Node):
    """`*1`, `*2`, `*3`."""


@_node("key", "member")
class HostRef(Node):
    """A host-table value (Java member, constructor, prelude export): `key` names it in the runtime table."""


@_node("test", "then", "else_")
class If(Node):
    pass


@_node("body")
class Do(Node):
    """Evaluate `body` (a non-empty list) in order; value of the last."""


@_node("bindings", "body")
class Let(Node):
    """`bindings`: list of (Local, Node) evaluated in order; body: one node."""


@_node("locals", "inits", "body", "has_recur")
class Loop(Node):
    pass


@_node("args", "target")
class Recur(Node):
    """`target` is the Loop or Fn node it jumps to."""


@_node("name", "self_local", "params", "rest", "prologue", "body", "has_recur", "doc", "param_names")
class Fn(Node):
    """A closure. `params`: list[Local]; `rest`: Local|None; `prologue`: destructuring bindings."""


@_node("fn", "args")
class Call(Node):
    pass


@_node("name", "value", "doc", "once")
class Def(Node):
    pass


@_node("exprs")
class And(Node):
    pass


@_node("exprs")
class Or(Node):
    pass


@_node("items")
class VectorLit(Node):
    pass


@_node("pairs")
class MapLit(Node):
    """`pairs`: list of (key node, value node)."""


@_node("items")
class SetLit(Node):
    pass


@_node("value", "kind")
class Terminal(Node):
    """`(return v)` / `(fail v)`; kind is "return" or "fail"."""


@_node("helper", "args")
class RtCall(Node):
    """A call of a runtime helper by name (destructuring, checks, ...)."""


@_node("clauses", "body", "collect")
class For(Node):
    """`for` (collect=True) / `doseq` (collect=False).

    clauses: list of ("bind", Local, coll_node, [(Local, Node) destructure bindings])
                     | ("let", [(Local, Node)]) | ("when", node) | ("while", node)
    """


@_node("fns")
class Juxt(Node):
    pass


@_node("op", "args")
class Prim(Node):
    """An inlined primitive operation on two arguments (op: add, sub, lt, ...)."""


__all__ = [n for n in list(globals()) if not n.startswith("_")] + ["Span"]


#: the node kinds without sub-nodes (`children` gives them none)
LEAVES = frozenset((Const, LocalRef, GlobalRef, MaybeGlobal, BuiltinRef, DataRef, ToolRef, HistoryRef, HostRef))
_LEAVES = LEAVES


def children(n: Node):
    """The direct sub-nodes of `n`, in evaluation order (binding forms: their value nodes, then
    their body; `for`: each clause's expressions, then the body). Walkers that must treat a
    binding form specially handle it before falling back to this."""
    t = type(n)
    if t in _LEAVES:
        return ()
    if t is If:
        return (n.test, n.then, n.else_)
    if t is Do:
        return n.body
    if t is BuiltinCall or t is ToolCall or t is RtCall or t is Prim or t is Recur:
        return n.args
    if t is Call:
        return [n.fn] + n.args
    if t is Def or t is Terminal:
        return (n.value,)
    if t is And or t is Or:
        return n.exprs
    if t is VectorLit or t is SetLit:
        return n.items
    if t is MapLit:
        return [x for kv in n.pairs for x in kv]
    if t is Juxt:
        return n.fns
    if t is Let:
        return [v for _loc, v in n.bindings] + [n.body]
    if t is Loop:
        return list(n.inits) + [n.body]
    if t is Fn:
        return [v for _loc, v in n.prologue] + [n.body]
    if t is For:
        out = []
        for clause in n.clauses:
            if clause[0] == "bind":
                out.append(clause[2])
                out.extend(v for _loc, v in clause[3])
            elif clause[0] == "let":
                out.extend(v for _loc, v in clause[1])
            else:
                out.append(clause[1])
        return out + [n.body]
    raise TypeError(f"no children rule for {t.__name__}")  # pragma: no cover


def walk_nodes(node):
    """Every core-AST node under `node`, `node` included (iterative; `recur` targets are not followed)."""
    stack = [node]
    while stack:
        n = stack.pop()
        if isinstance(n, Node):
            yield n
            for f in type(n).__slots__:
                if f != "target":
                    v = getattr(n, f, None)
                    if isinstance(v, (Node, list, tuple)):
                        stack.append(v)
        elif isinstance(n, (list, tuple)):
            stack.extend(n)
