"""Core AST -> Python code object, once per program.

Owns the emitters (one per node class, chosen from `EMIT` by type at compile
time) and the shape of generated modules:

    def __ptc_factory__(<constants>):
        def __ptc_main__():
            <program>
        return __ptc_main__

Locals become Python locals, `loop`/`recur` become `while True` loops whose
back-edge ticks the loop counter and reads `_m.expired` (the meter's
deadline flag), closures become nested `def`s built by small factories so
they capture values, not variables. Python AST nodes carry the PTC line and
column, so a traceback through generated code maps back to a PTC `Span`.

Generated code sees only `RT` (runtime helpers + builtins, installed as its
`__builtins__`) and the per-environment globals `_m` (meter), `_ns` (user
namespace), `_data`, `_tool`, `_hist`. Imports analyzer nodes, runtime and
the builtin registry.
"""
from __future__ import annotations

import ast
import itertools
import types

from . import compiled_runtime as rt
from . import values as V
from .analyzer import nodes as N
from .analyzer.lastuse import last_reads
from .errors import PTC_FILENAME as FILENAME
from .errors import FailSignal, PtcError, ReturnSignal
from .meter import compile_tick
from .lib import registry as R
from .lib.colls_maps import OWNED_FORMS
from .lib.common import out_vec, seq_items
from .printer import FN_META
from .values import Keyword, Map, Set, Vector, hk

_ABSENT = object()


class _PositionedAst:
    """Python AST node classes with a default position, so only nodes that map to PTC
    source need one set explicitly (compile() requires a position on every node).

    The default is line 0, which no PTC source has: code that maps to no PTC form (a
    function's prologue, the meter's checks) reports no position, so an error raised
    there is located at the nearest enclosing PTC form instead of at line 1, column 1
    (error_translation.span_from_traceback)."""

    def __init__(self):
        for name in dir(ast):
            cls = getattr(ast, name)
            if isinstance(cls, type) and issubclass(cls, ast.AST) and "lineno" in getattr(cls, "_attributes", ()):
                setattr(self, name, type(name, (cls,), {"lineno": 0, "col_offset": 0, "end_lineno": 0,
                                                         "end_col_offset": 0}))


A = _PositionedAst()
_uid = itertools.count()


_MANGLED: dict[str, str] = {}


def mangle(name: str) -> str:
    """The runtime-table name of a builtin (PTC names are never Python identifiers)."""
    m = _MANGLED.get(name)
    if m is None:
        m = _MANGLED[name] = "b_" + "".join(c if c.isalnum() else f"_{ord(c):x}_" for c in name)
    return m


# ------------------------------------------------------------------ the runtime table

def _build_rt() -> dict:
    from . import lib  # noqa: F401 - registers every builtin family
    from .lib import numbers as num
    table = {
        "type": type, "int": int, "len": len, "isinstance": isinstance,
        "_Return": ReturnSignal, "_Fail": FailSignal, "_PtcError": PtcError,
        "_truthy": rt.truthy, "_kw_get": rt.kw_get, "_loop_limit": rt.loop_limit_exceeded,
        "_rest": rt.rest_args, "_juxt": rt.juxt, "_def": rt.rt_def,
        "_mkvec": rt.mkvec, "_mkmap": rt.mkmap, "_mkset": rt.mkset, "_hk": hk, "_Map": Map, "_Vector": Vector,
        "_absent": _ABSENT,
        "_out_for": rt.out_for, "_for_too_big": rt.for_too_big,
        "_add2": num.add2, "_sub2": num.sub2, "_mul2": num.mul2, "_lt2": num.lt2, "_gt2": num.gt2,
        "_le2": num.le2, "_ge2": num.ge2, "_eq2": num.eq2,
        "_seq_items": seq_items, "_out_vec": out_vec,
    }
    for name in ("ds_seq", "ds_nth", "ds_rest", "ds_kwargs", "ds_get", "ds_get_or",
                 "iter_items", "seq_or_nil", "first_of", "make_program", "kw_get", "take_range"):
        table["_rt_" + name] = getattr(rt, name)
    for name, spec in R.BUILTINS.items():
        table[mangle(name)] = spec.fn
    for name, (fn, _fewest, _most) in OWNED_FORMS.items():
        table[f"_{name}_owned"] = fn
    for (group, name), spec in R.QUALIFIED.items():
        table[mangle(f"{group}/{name}")] = spec.fn
    return table


_RT: dict | None = None


def runtime_table() -> dict:
    global _RT
    if _RT is None:
        _RT = _build_rt()
    return _RT


# ------------------------------------------------------------------ python AST helpers

_LOAD, _STORE = ast.Load(), ast.Store()  # context markers carry no state: one of each serves every node


def _name(id_, store=False):
    return A.Name(id=id_, ctx=_STORE if store else _LOAD)


class _IntForm:
    """How an inlined integer operation was built (see Compiler._inline_int)."""

    __slots__ = ("names", "bounds", "fast", "nonneg", "transient_bounds")

    def __init__(self, names, bounds, fast, nonneg, transient_bounds):
        self.names = names                  # variables that must be ints
        self.bounds = bounds                # further guards (the size bound of a product)
        self.fast = fast                    # the expression computing the result from ints
        self.nonneg = nonneg                # the result is >= 0 (x mod c, c > 0)
        self.transient_bounds = transient_bounds  # bounds a reducing consumer may drop


# CPython's compile() warns (SyntaxWarning, an error under `python -W error`) about an `is` test
# with a literal operand and about calling a literal ("perhaps you missed a comma?"), and it first
# folds operators over constants into one (`(3 + 4) is None` warns like `7 is None`). A program's
# literals reach generated operands directly (`(nil? "s")`) or through forms that emit a constant
# (`(do 5)`, `(+ 3 4)`), so `_is` folds a test of two constants and `_call` and `_is` pass any
# other literal through `_literal_slot` first: a walrus CPython does not look into.

_LITERAL_SLOT = "_lit"      # assigned, never read: no PTC local (`l<n>_...`) or temporary (`_t<n>`) collides


_FOLDING = (ast.Constant, ast.BinOp, ast.UnaryOp, ast.Tuple, ast.Subscript)


def _folds_to_literal(e) -> bool:
    """Whether CPython sees `e` as a literal once its AST optimizer has run: a constant, or an
    operator, tuple or subscript over such operands."""
    if not isinstance(e, _FOLDING):
        return False    # names, calls, ...: the common case, one test
    if isinstance(e, ast.Constant):
        return True
    if isinstance(e, ast.BinOp):
        return _folds_to_literal(e.left) and _folds_to_literal(e.right)
    if isinstance(e, ast.UnaryOp):
        return _folds_to_literal(e.operand)
    if isinstance(e, ast.Tuple):
        return all(_folds_to_literal(x) for x in e.elts)
    if isinstance(e, ast.Subscript):
        return _folds_to_literal(e.value) and _folds_to_literal(e.slice)
    return False


# displays CPython also refuses to see called, whatever their items
_DISPLAYS = (ast.List, ast.Dict, ast.Set, ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp, ast.JoinedStr)


def _literal_slot(e):
    """`e` evaluated the same way, in a form CPython does not take for a literal."""
    return A.NamedExpr(target=_name(_LITERAL_SLOT, True), value=e)


def _call(fn, args, span=None):
    fn = fn if isinstance(fn, ast.expr) else _name(fn)
    if isinstance(fn, _DISPLAYS) or _folds_to_literal(fn):
        fn = _literal_slot(fn)   # calling it fails at run time, as the program asks
    node = A.Call(func=fn, args=args, keywords=[])
    return _at(node, span)


def _at(node, span):
    if span is not None:
        node.lineno = node.end_lineno = span.line
        node.col_offset = node.end_col_offset = max(0, span.col - 1)
    return node


def _assign(target: str, value, span=None):
    return _at(A.Assign(targets=[_name(target, True)], value=value), span)


def _attr(obj: str, attr: str):
    return A.Attribute(value=_name(obj), attr=attr, ctx=_LOAD)


def _is(a, b, negate=False):
    """`a is b` (`a is not b` when negate); with two constants, the answer itself."""
    if isinstance(a, ast.Constant) and isinstance(b, ast.Constant):
        return A.Constant((a.value is b.value) != negate)
    return A.Compare(left=_is_operand(a), ops=[ast.IsNot() if negate else ast.Is()], comparators=[_is_operand(b)])


def _is_operand(e):
    """`e` as an operand of `is`: None, True, False and ... are the literals CPython accepts there."""
    if isinstance(e, ast.Constant) and (e.value is None or e.value is True or e.value is False or e.value is ...):
        return e
    return _literal_slot(e) if _folds_to_literal(e) else e


_NONE = A.Constant(None)


def _truthy_test(expr, temp):
    """PTC truthiness of `expr` (only nil and false are falsy), evaluating it once."""
    w = A.NamedExpr(target=_name(temp, True), value=expr)
    return A.BoolOp(op=ast.And(), values=[_is(w, A.Constant(None), True), _is(_name(temp), A.Constant(False), True)])


def _trivial(e) -> bool:
    return isinstance(e, (ast.Constant, ast.Name))


def _check_expired():
    """`if _m.expired: _m.raise_expired()`"""
    return A.If(test=_attr("_m", "expired"),
                  body=[A.Expr(_call(_attr("_m", "raise_expired"), []))], orelse=[])


# ------------------------------------------------------------------ sinks (where a tail value goes)

class Ret:
    def finish(self, expr, stmts):
        stmts.append(A.Return(value=expr))


class Assign:
    def __init__(self, name):
        self.name = name

    def finish(self, expr, stmts):
        stmts.append(_assign(self.name, expr))


class Discard:
    def finish(self, expr, stmts):
        if not _trivial(expr):
            stmts.append(A.Expr(expr))


class LoopExit:
    def __init__(self, name):
        self.name = name

    def finish(self, expr, stmts):
        stmts.append(_assign(self.name, expr))
        stmts.append(A.Break())


BOOL_PRIMS = {"lt", "gt", "le", "ge", "eq", "ne", "not", "isnil", "issome", "zero"}
BOOL_BUILTINS = {n for n in ("empty?", "contains?", "every?", "not-any?", "not-every?", "map?", "vector?", "string?",
                             "number?", "keyword?", "nil?", "some?", "true?", "false?", "fn?", "even?", "odd?",
                             "pos?", "neg?", "zero?", "set?", "coll?", "int?", "integer?", "float?", "boolean?",
                             "includes?", "starts-with?", "ends-with?", "blank?", "not", "=", "not=", "<", ">",
                             "<=", ">=")}


class Compiler:
    """Compiles one analyzed program."""

    def __init__(self, host_refs: dict | None = None):
        self.consts: list = []
        self.const_names: dict = {}
        self.host_refs = host_refs or {}
        self.loops: dict = {}     # id(target) -> loop info
        self.n = 0
        self.loop_depth = 0       # > 0 while emitting code that re-runs within one activation
        self.ticks = 1024         # nodes until the next look at the compile clock (or the deadline)

    # ------------------------------------------------------------ helpers
    def tmp(self, hint="t") -> str:
        self.n += 1
        return f"_{hint}{self.n}"

    def const(self, value):
        t = type(value)
        if value is None or t is bool or t is str or t is int or t is float:
            return A.Constant(value)
        key = (t, id(value)) if t is not Keyword else (t, value.name)
        name = self.const_names.get(key)
        if name is None:
            name = f"_c{len(self.consts)}"
            self.consts.append(value)
            self.const_names[key] = name
        return _name(name)

    def emit_args(self, nodes, stmts):
        """Emit argument expressions preserving left-to-right evaluation order."""
        exprs = []
        for node in nodes:
            sub: list = []
            e = self.emit_expr(node, sub)
            if sub:
                for i, pe in enumerate(exprs):
                    if not _trivial(pe):
                        t = self.tmp()
                        stmts.append(_assign(t, pe))
                        exprs[i] = _name(t)
                stmts.extend(sub)
            exprs.append(e)
        return exprs

    # ------------------------------------------------------------ entry
    def compile_program(self, node: N.Node, free: list[str] = ()):
        self.free_params = list(free)
        # map reads that may be handed over for in-place growth (none with the switch off)
        self.last_reads = last_reads(node, OWNED_FORMS) if V.IN_PLACE_GROWTH else frozenset()
        body: list = []
        self.emit_tail(node, body, Ret())
        main = A.FunctionDef(name="__ptc_main__", args=_no_args(), body=body or [A.Return(_NONE)],
                               decorator_list=[], returns=None, type_comment=None)
        factory = A.FunctionDef(
            name="__ptc_factory__",
            args=ast.arguments(posonlyargs=[], args=[A.arg(arg=n) for n in self._const_params()],
                               vararg=None, kwonlyargs=[], kw_defaults=[], kwarg=None, defaults=[]),
            body=[main, A.Return(_name("__ptc_main__"))], decorator_list=[], returns=None, type_comment=None)
        mod = ast.Module(body=[factory], type_ignores=[])
        code = compile(mod, FILENAME, "exec")
        return code, self._const_values()

    def _const_params(self):
        return ([f"_c{i}" for i in range(len(self.consts))] + [_host_name(k) for k in self.host_refs]
                + list(getattr(self, "free_params", ())))

    def _const_values(self):
        return list(self.consts) + list(self.host_refs.values())

    # ------------------------------------------------------------ tail / statement emission
    def emit_tail(self, node, stmts, sink):
        t = type(node)
        if t is N.If:
            test = self.emit_test(node.test, stmts)
            then: list = []
            else_: list = []
            self.emit_tail(node.then, then, sink)
            self.emit_tail(node.else_, else_, sink)
            stmts.append(_at(A.If(test=test, body=then or [A.Pass()], orelse=else_), node.span))
            return
        if t is N.Do:
            for sub in node.body[:-1]:
                self.emit_tail(sub, stmts, Discard())
            self.emit_tail(node.body[-1], stmts, sink)
            return
        if t is N.Let:
            self.emit_bindings(node.bindings, stmts)
            self.emit_tail(node.body, stmts, sink)
            return
        if t is N.Recur:
            self.emit_recur(node, stmts)
            return
        if t is N.Terminal:
            value = self.emit_expr(node.value, stmts)
            stmts.append(_at(A.Raise(exc=_call("_Return" if node.kind == "return" else "_Fail", [value]), cause=None),
                             node.span))
            return
        if t is N.Loop and isinstance(sink, (Assign, LoopExit, Ret)):
            self.emit_loop(node, stmts, sink)
            return
        sink.finish(self.emit_expr(node, stmts), stmts)

    def emit_bindings(self, bindings, stmts):
        for local, value in bindings:
            e = self.emit_expr(value, stmts)
            stmts.append(_assign(local.py, e, value.span))

    def emit_test(self, node, stmts):
        t = type(node)
        if t is N.Prim and node.op in BOOL_PRIMS:
            return self.emit_expr(node, stmts)
        if t is N.BuiltinCall and node.name in BOOL_BUILTINS:
            return self.emit_expr(node, stmts)
        if t is N.Const:
            return A.Constant(node.value is not None and node.value is not False)
        e = self.emit_expr(node, stmts)
        return _truthy_test(e, self.tmp())

    # ------------------------------------------------------------ loops
    def emit_loop(self, node: N.Loop, stmts, sink):
        inits = self.emit_args(node.inits, stmts)
        for local, e in zip(node.locals, inits):
            stmts.append(_assign(local.py, e))
        body: list = []
        if node.has_recur:
            counter, limit = self.tmp("n"), self.tmp("lim")
            self.loops[id(node)] = (counter, limit, [l.py for l in node.locals])
            stmts.append(_assign(counter, A.Constant(0)))
            stmts.append(_assign(limit, _attr("_m", "loop_limit")))
            self.loop_depth += 1
            if isinstance(sink, LoopExit) or isinstance(sink, Assign):
                result = sink.name
                self.emit_tail(node.body, body, LoopExit(result))
                stmts.append(A.While(test=A.Constant(True), body=body, orelse=[]))
                if isinstance(sink, LoopExit):
                    stmts.append(A.Break())
            else:
                self.emit_tail(node.body, body, sink)
                stmts.append(A.While(test=A.Constant(True), body=body, orelse=[]))
            self.loop_depth -= 1
        else:
            self.emit_tail(node.body, stmts, sink)

    def emit_recur(self, node: N.Recur, stmts):
        counter, limit, targets = self.loops[id(node.target)]
        args = self.emit_args(node.args, stmts)
        stmts.append(A.AugAssign(target=_name(counter, True), op=ast.Add(), value=A.Constant(1)))
        stmts.append(A.If(test=A.Compare(left=_name(counter), ops=[ast.Gt()], comparators=[_name(limit)]),
                            body=[A.Expr(_call("_loop_limit", [_name(limit)], node.span))], orelse=[]))
        stmts.append(_check_expired())
        if len(targets) == 1:
            stmts.append(_assign(targets[0], args[0]))
        elif targets:
            stmts.append(A.Assign(targets=[A.Tuple(elts=[_name(t, True) for t in targets], ctx=_STORE)],
                                    value=A.Tuple(elts=args, ctx=_LOAD)))
        stmts.append(A.Continue())

    # ------------------------------------------------------------ expressions
    def emit_expr(self, node, stmts):
        self.ticks -= 1
        if not self.ticks:
            self.ticks = 1024
            compile_tick()
        return EMIT[type(node)](self, node, stmts)

    def e_const(self, node, stmts):
        return self.const(node.value)

    def e_local(self, node, stmts):
        return _name(node.local.py)

    def e_global(self, node, stmts):
        return _at(A.Subscript(value=_name("_ns"), slice=A.Constant(node.name), ctx=_LOAD), node.span)

    def e_maybe_global(self, node, stmts):
        return _call(_attr("_ns", "get"), [A.Constant(node.name)], node.span)

    def e_builtin_ref(self, node, stmts):
        return _name(mangle(node.name))

    def e_builtin_call(self, node, stmts):
        if inlinable_hof(node):
            return self._inline_hof(node, self.emit_expr(node.args[1], stmts), stmts)
        args = self.emit_args(node.args, stmts)
        fn = mangle(node.name)
        owned = OWNED_FORMS.get(node.name)
        if owned is not None and owned[1] <= len(args) <= owned[2] and type(node.args[0]) is N.LocalRef \
                and id(node.args[0]) in self.last_reads and isinstance(args[0], ast.Name):
            # the last read of a local: the map may be extended in place (analyzer/lastuse.py)
            return _call(f"_{node.name}_owned", args, node.span)
        if len(args) == 2 and runtime_table().get(fn) is R.BUILTINS["nth"].fn:
            return self._inline_nth(fn, args, stmts, node)
        return _call(fn, args, node.span)

    def _inline_hof(self, node, coll, stmts):
        """`(map (fn [x] body) coll)` and kin as a Python loop over coll's items: no call per item.

        Same steps as the builtin: coll's items as the builtin reads them, the body once per
        item (with the deadline check a call would make), the result charged as a vector."""
        fn = node.args[0]
        items, acc = self.tmp("items"), self.tmp("acc")
        stmts.append(_assign(items, _call("_seq_items", [coll, A.Constant(node.name)], node.span)))
        stmts.append(_assign(acc, A.List(elts=[], ctx=_LOAD)))
        param = fn.params[0]
        body: list = [_check_expired()]
        self.loop_depth += 1
        try:
            self.emit_bindings(fn.prologue, body)
            if node.name in ("map", "mapv"):
                value = self.emit_expr(fn.body, body)
                body.append(A.Expr(_call(_attr(acc, "append"), [value])))
            else:
                test = self.emit_test(fn.body, body)
                if node.name == "remove":
                    test = A.UnaryOp(op=ast.Not(), operand=test)
                body.append(A.If(test=test, body=[A.Expr(_call(_attr(acc, "append"), [_name(param.py)]))],
                                 orelse=[]))
        finally:
            self.loop_depth -= 1
        stmts.append(_at(A.For(target=_name(param.py, True), iter=_name(items), body=body, orelse=[]), node.span))
        return _call("_out_vec", [_name(acc)], node.span)

    def _inline_nth(self, fn, args, stmts, node):
        """`(nth v i)`: the item itself for a vector and an int index in range; else the builtin."""
        v, i = args
        if not isinstance(v, ast.Name):
            t = self.tmp()
            stmts.append(_assign(t, v))
            v = _name(t)
        items = self.tmp("it")
        tests = [_is(_call("type", [v]), _name("_Vector")),
                 _is(A.NamedExpr(target=_name(items, True), value=A.Attribute(value=v, attr="_items", ctx=_LOAD)),
                     _NONE, True)]
        form = getattr(i, "ptc_int", None)
        if form is not None:  # an inlined int expression: its guards, then the index itself
            tests += [_is(_call("type", [_name(n)]), _name("int")) for n in form.names]
            tests += list(form.bounds)
            k = self.tmp("k")
            index = A.NamedExpr(target=_name(k, True), value=form.fast)
            if form.nonneg:
                tests.append(A.Compare(left=index, ops=[ast.Lt()], comparators=[_call("len", [_name(items)])]))
            else:
                tests.append(A.Compare(left=A.Constant(0), ops=[ast.LtE(), ast.Lt()],
                                       comparators=[index, _call("len", [_name(items)])]))
            fast = A.Subscript(value=_name(items), slice=_name(k), ctx=_LOAD)
            return _at(A.IfExp(test=A.BoolOp(op=ast.And(), values=tests), body=fast,
                               orelse=_call(fn, [v, i], node.span)), node.span)
        if not isinstance(i, ast.Name):
            t = self.tmp()
            stmts.append(_assign(t, i))
            i = _name(t)
        tests += [_is(_call("type", [i]), _name("int")),
                  A.Compare(left=A.Constant(0), ops=[ast.LtE(), ast.Lt()], comparators=[i, _call("len", [_name(items)])])]
        fast = A.Subscript(value=_name(items), slice=i, ctx=_LOAD)
        return _at(A.IfExp(test=A.BoolOp(op=ast.And(), values=tests), body=fast, orelse=_call(fn, [v, i], node.span)),
                   node.span)

    def e_data(self, node, stmts):
        return _call("_data", [A.Constant(node.name)], node.span)

    def e_tool_ref(self, node, stmts):
        return _call("_tool_ref", [A.Constant(node.name)], node.span)

    def e_tool_call(self, node, stmts):
        args = self.emit_args(node.args, stmts)
        return _call("_tool", [A.Constant(node.name), A.Tuple(elts=args, ctx=_LOAD)], node.span)

    def e_history(self, node, stmts):
        return _call("_hist", [A.Constant(node.n)], node.span)

    def e_host(self, node, stmts):
        return _name(_host_name(node.key))

    def e_if(self, node, stmts):
        test = self.emit_test(node.test, stmts)
        s1: list = []
        s2: list = []
        a = self.emit_expr(node.then, s1)
        b = self.emit_expr(node.else_, s2)
        if not s1 and not s2:
            return _at(A.IfExp(test=test, body=a, orelse=b), node.span)
        t = self.tmp("if")
        s1.append(_assign(t, a))
        s2.append(_assign(t, b))
        stmts.append(A.If(test=test, body=s1, orelse=s2))
        return _name(t)

    def e_do(self, node, stmts):
        for sub in node.body[:-1]:
            self.emit_tail(sub, stmts, Discard())
        return self.emit_expr(node.body[-1], stmts)

    def e_let(self, node, stmts):
        self.emit_bindings(node.bindings, stmts)
        return self.emit_expr(node.body, stmts)

    def e_loop(self, node, stmts):
        t = self.tmp("loop")
        self.emit_loop(node, stmts, Assign(t))
        return _name(t)

    def e_recur(self, node, stmts):  # pragma: no cover - analyzer guarantees tail position
        raise PtcError("invalid_form", "recur must be in tail position", node.span)

    def e_terminal(self, node, stmts):
        self.emit_tail(node, stmts, Discard())
        return A.Constant(None)

    def e_call(self, node, stmts):
        parts = self.emit_args([node.fn] + node.args, stmts)
        return _call(parts[0], parts[1:], node.span)

    def e_rt(self, node, stmts):
        args = self.emit_args(node.args, stmts)
        if node.helper == "kw_get" and len(args) == 2 and type(node.args[0]) is N.Const \
                and type(node.args[0].value) is Keyword:
            return self._inline_kw_get(args, node)
        return _call("_rt_" + node.helper, args, node.span)

    def _inline_kw_get(self, args, node):
        """`(:k m)` as one dict probe when m is a map that holds :k itself; any other
        case (no such key, string keys, not a map) goes to the general helper, m evaluated once."""
        k, m = args
        if isinstance(m, ast.Name):
            m_once = m
        else:
            t = self.tmp()
            m_once = A.NamedExpr(target=_name(t, True), value=m)
            m = _name(t)
        v = self.tmp("v")
        test = A.BoolOp(op=ast.And(), values=[
            _is(_call("type", [m_once]), _name("_Map")),
            _is(A.NamedExpr(target=_name(v, True), value=_call(A.Attribute(value=m, attr="get", ctx=_LOAD),
                                                                [k, _name("_absent")])),
                _name("_absent"), True)])
        return _at(A.IfExp(test=test, body=_name(v), orelse=_call("_rt_kw_get", [k, m], node.span)), node.span)

    def e_def(self, node, stmts):
        if node.once:
            t = self.tmp("def")
            sub: list = []
            value = self.emit_expr(node.value, sub)
            sub.append(_assign(t, _call("_def", [_name("_ns"), A.Constant(node.name), value, A.Constant(node.doc)],
                                        node.span)))
            stmts.append(A.If(test=A.Compare(left=A.Constant(node.name), ops=[ast.NotIn()],
                                                 comparators=[_name("_ns")]),
                                body=sub, orelse=[_assign(t, self.const(_varref(node.name)))]))
            return _name(t)
        value = self.emit_expr(node.value, stmts)
        return _call("_def", [_name("_ns"), A.Constant(node.name), value, A.Constant(node.doc)], node.span)

    def e_and_or(self, node, stmts):
        is_and = type(node) is N.And
        t = self.tmp("ao")
        out: list = []
        first = self.emit_expr(node.exprs[0], out)
        out.append(_assign(t, first))
        inner = out
        for sub in node.exprs[1:]:
            test = _truthy_test(_name(t), self.tmp())
            body: list = []
            e = self.emit_expr(sub, body)
            body.append(_assign(t, e))
            if not is_and:
                test = A.UnaryOp(op=ast.Not(), operand=test)
            inner.append(A.If(test=test, body=body, orelse=[]))
            inner = body
        stmts.extend(out)
        return _name(t)

    def e_vector(self, node, stmts):
        if all(type(i) is N.Const for i in node.items):
            return self.const(Vector([i.value for i in node.items], None))
        items = self.emit_args(node.items, stmts)
        return _call("_mkvec", [A.List(elts=items, ctx=_LOAD)], node.span)

    def e_set(self, node, stmts):
        if all(type(i) is N.Const for i in node.items):
            return self.const(Set({hk(i.value): i.value for i in node.items}, None))
        items = self.emit_args(node.items, stmts)
        return _call("_mkset", [A.List(elts=items, ctx=_LOAD)], node.span)

    def e_map(self, node, stmts):
        if all(type(k) is N.Const and type(v) is N.Const for k, v in node.pairs):
            return self.const(Map({hk(k.value): v.value for k, v in node.pairs}))
        flat = self.emit_args([x for kv in node.pairs for x in kv], stmts)
        keys, vals = [], []
        for i in range(0, len(flat), 2):
            kn = node.pairs[i // 2][0]
            k = flat[i]
            if not (type(kn) is N.Const and type(kn.value) in (Keyword, str, int, type(None))):
                k = _call("_hk", [k])
            keys.append(k)
            vals.append(flat[i + 1])
        if all(isinstance(k, (ast.Constant, ast.Name)) for k in keys):
            # an empty Map, then one store per entry: cheaper than building a dict and copying it
            t = self.tmp("map")
            stmts.append(_assign(t, _call("_Map", [])))
            for k, v in zip(keys, vals):
                stmts.append(A.Assign(targets=[A.Subscript(value=_name(t), slice=k, ctx=_STORE)], value=v))
            return _name(t)
        return _call("_Map", [A.Dict(keys=keys, values=vals)])

    def e_juxt(self, node, stmts):
        return _call("_juxt", self.emit_args(node.fns, stmts), node.span)

    # ------------------------------------------------------------ primitives
    def e_prim(self, node, stmts):
        op = node.op
        args = self.emit_args(node.args, stmts)
        if op in _INLINE_BIN:
            a, b = args
            pyop, slow = _INLINE_BIN[op]
            return self._inline_int(a, b, pyop, slow, node)
        if op == "mul":
            return self._inline_mul(args, node)
        if op == "mod":
            return self._inline_mod(args, node)
        if op == "ne":
            return A.UnaryOp(op=ast.Not(), operand=_call("_eq2", args, node.span))
        x = args[0]
        if op == "not":
            if isinstance(x, ast.Constant):
                return A.Constant(x.value is None or x.value is False)
            t = self.tmp()
            w = A.NamedExpr(target=_name(t, True), value=x)
            return A.BoolOp(op=ast.Or(), values=[_is(w, A.Constant(None)), _is(_name(t), A.Constant(False))])
        if op == "isnil":
            return _is(x, A.Constant(None))
        if op == "issome":
            return _is(x, A.Constant(None), True)
        if op in ("inc", "dec"):
            return self._inline_int(x, A.Constant(1), ast.Add() if op == "inc" else ast.Sub(),
                                    "_add2" if op == "inc" else "_sub2", node, builtin=op)
        return _call(mangle({"zero": "zero?", "first": "first"}[op]), [x], node.span)

    # Inline integer arithmetic. An inlined operation over variables and constants records how it
    # was built on its AST (`ptc_int`: the variables that must be ints, extra guards, the int-only
    # expression), so an operation that consumes it folds the guards into its own instead of
    # testing the type of the intermediate result again: `(mod (* i 37) 101)` is one
    # `type(i) is int` test around `i * 37 % 101`.

    def _inline_mul(self, args, node):
        """`x * c` for an int x of bounded size and a small constant c; else the general builtin."""
        a, b = args
        if isinstance(a, A.Constant) and not isinstance(b, A.Constant):
            a, b = b, a
        if not (isinstance(b, ast.Constant) and type(b.value) is int and abs(b.value) < 2 ** 31) \
                or not isinstance(a, (ast.Name, ast.Constant)):
            return _call("_mul2", args, node.span)
        bound = A.Compare(left=A.Constant(-(1 << 62)), ops=[ast.Lt(), ast.Lt()], comparators=[a, A.Constant(1 << 62)])
        fast = A.BinOp(left=a, op=ast.Mult(), right=b)
        test = A.BoolOp(op=ast.And(), values=[_is(_call("type", [a]), _name("int")), bound])
        out = _at(A.IfExp(test=test, body=fast, orelse=_call("_mul2", [a, b], node.span)), node.span)
        if isinstance(a, ast.Name):
            # the size bound only matters when the product is kept: a consumer that reduces it
            # (mod by a constant) may drop it
            out.ptc_int = _IntForm((a.id,), (bound,), fast, nonneg=False, transient_bounds=True)
        return out

    def _inline_mod(self, args, node):
        """Floored `x mod c` for an int x and a non-zero constant int c (Python's % is floored)."""
        a, b = args
        if not (isinstance(b, ast.Constant) and type(b.value) is int and b.value != 0):
            return _call(mangle("mod"), args, node.span)
        return self._inline_int(a, b, ast.Mod(), mangle("mod"), node, reduces=True)

    def _inline_int(self, a, b, pyop, slow, node, builtin=None, reduces=False):
        """`a OP b` when both are ints, else the general builtin (evaluating each operand once)."""
        checks = []
        evaluated = []          # tests that also evaluate an operand into a temporary: never skipped
        names: list = []        # variables tested (folded operands included), for ptc_int
        bounds: list = []
        operands = []           # the int-only path's operands
        full = []               # the general builtin's operands (a folded operand in full)
        foldable = True
        for e in (a, b):
            form = getattr(e, "ptc_int", None)
            if isinstance(e, ast.Constant) and type(e.value) is int:
                op = e
            elif isinstance(e, ast.Name) or form is not None:
                for n in (e.id,) if form is None else form.names:
                    if n not in names:
                        names.append(n)
                        checks.append(_is(_call("type", [_name(n)]), _name("int")))
                if form is not None and not (reduces and form.transient_bounds):
                    bounds.extend(form.bounds)
                op = e if form is None else form.fast
            else:
                foldable = False
                t = self.tmp()
                evaluated.append(_is(_call("type", [A.NamedExpr(target=_name(t, True), value=e)]), _name("int")))
                e = op = _name(t)
            operands.append(op)
            full.append(e)
        if isinstance(pyop, ast.cmpop):
            fast = A.Compare(left=operands[0], ops=[pyop], comparators=[operands[1]])
        else:
            fast = A.BinOp(left=operands[0], op=pyop, right=operands[1])
        if builtin is not None:
            slow_call = _call(mangle(builtin), [full[0]], node.span)
        else:
            slow_call = _call(slow, full, node.span)
        tests = checks + bounds
        if evaluated:
            # every operand is evaluated exactly once, whatever the other tests say: `&` does not
            # short-circuit, and the slow path reads the temporaries
            first = evaluated[0]
            for e in evaluated[1:]:
                first = A.BinOp(left=first, op=ast.BitAnd(), right=e)
            tests.insert(0, first)
        if not tests:
            return _at(fast, node.span)
        test = tests[0] if len(tests) == 1 else A.BoolOp(op=ast.And(), values=tests)
        out = _at(A.IfExp(test=test, body=fast, orelse=slow_call), node.span)
        if foldable and isinstance(pyop, (ast.Add, ast.Sub, ast.Mod)):
            nonneg = isinstance(pyop, ast.Mod) and isinstance(b, ast.Constant) and b.value > 0
            out.ptc_int = _IntForm(tuple(names), tuple(bounds), fast, nonneg=nonneg, transient_bounds=False)
        return out

    # ------------------------------------------------------------ for / doseq
    def e_for(self, node: N.For, stmts):
        acc = self.tmp("acc") if node.collect else None
        cap = self.tmp("cap") if node.collect else None
        if acc:
            stmts.append(_assign(acc, A.List(elts=[], ctx=_LOAD)))
            stmts.append(_assign(cap, A.BinOp(
                left=A.BinOp(left=_attr("_m", "budget"), op=ast.Sub(), right=_attr("_m", "allocated")),
                op=ast.FloorDiv(), right=A.Constant(8))))
        self._for_clauses(node, 0, stmts, acc, cap)
        if acc:
            return _call("_out_for", [_name(acc)], node.span)
        return A.Constant(None)

    def _for_clauses(self, node, i, stmts, acc, cap):
        clauses = node.clauses
        if i == len(clauses):
            if acc:
                val = self.emit_expr(node.body, stmts)
                stmts.append(A.Expr(_call(_attr(acc, "append"), [val])))
                stmts.append(A.If(test=A.Compare(left=_call("len", [_name(acc)]), ops=[ast.Gt()],
                                                     comparators=[_name(cap)]),
                                    body=[A.Expr(_call("_for_too_big", [_name(cap)]))], orelse=[]))
            else:
                self.emit_tail(node.body, stmts, Discard())
            return
        c = clauses[i]
        kind = c[0]
        if kind == "bind":
            _, item, coll, ds = c
            coll_e = self.emit_expr(coll, stmts)
            body: list = [_check_expired()]
            self.loop_depth += 1
            self.emit_bindings(ds, body)
            self._for_clauses(node, i + 1, body, acc, cap)
            self.loop_depth -= 1
            stmts.append(_at(A.For(target=_name(item.py, True), iter=coll_e, body=body, orelse=[]), coll.span))
            return
        if kind == "let":
            self.emit_bindings(c[1], stmts)
            self._for_clauses(node, i + 1, stmts, acc, cap)
            return
        test = self.emit_test(c[1], stmts)
        stmts.append(A.If(test=A.UnaryOp(op=ast.Not(), operand=test),
                            body=[A.Continue() if kind == "when" else A.Break()], orelse=[]))
        self._for_clauses(node, i + 1, stmts, acc, cap)

    # ------------------------------------------------------------ fn
    def e_fn(self, node: N.Fn, stmts):
        outer_depth = self.loop_depth
        self.loop_depth = 1 if node.has_recur else 0
        try:
            return self._emit_fn(node, stmts, outer_depth)
        finally:
            self.loop_depth = outer_depth

    def _emit_fn(self, node: N.Fn, stmts, outer_depth):
        label = "".join(ch if ch.isalnum() else "_" for ch in (node.name or "anon"))[:32]
        self.n += 1
        name = f"fn__{label}__{self.n}"
        params = [A.arg(arg=p.py) for p in node.params]
        vararg = A.arg(arg=node.rest.py) if node.rest else None
        body: list = [_check_expired()]
        if node.rest:
            body.append(_assign(node.rest.py, _call("_rest", [_name(node.rest.py)])))
        inner: list = []
        self.emit_bindings(node.prologue, inner)
        if node.has_recur:
            counter, limit = self.tmp("n"), self.tmp("lim")
            targets = [p.py for p in node.params] + ([node.rest.py] if node.rest else [])
            self.loops[id(node)] = (counter, limit, targets)
            body.append(_assign(counter, A.Constant(0)))
            body.append(_assign(limit, _attr("_m", "loop_limit")))
            self.emit_tail(node.body, inner, Ret())
            body.append(A.While(test=A.Constant(True), body=inner, orelse=[]))
        else:
            self.emit_tail(node.body, inner, Ret())
            body.extend(inner)
        fdef = _at(A.FunctionDef(
            name=name,
            args=ast.arguments(posonlyargs=[], args=params, vararg=vararg, kwonlyargs=[], kw_defaults=[],
                               kwarg=None, defaults=[]),
            body=body, decorator_list=[], returns=None, type_comment=None), node.span)
        self.fn_meta.append((fdef, node))
        self_bind = []
        if node.self_local is not None:
            self_bind = [_assign(node.self_local.py, _name(name))]
        if outer_depth == 0:
            # every captured variable is assigned once per activation: a plain nested def captures values
            stmts.append(fdef)
            stmts.extend(self_bind)
            return _name(node.self_local.py if node.self_local is not None else name)
        # inside a loop, a factory gives the closure its own copy of every captured variable
        free = sorted(_free_locals(node))
        factory_name = self.tmp("mk")
        factory = A.FunctionDef(
            name=factory_name,
            args=ast.arguments(posonlyargs=[], args=[A.arg(arg=f) for f in free], vararg=None, kwonlyargs=[],
                               kw_defaults=[], kwarg=None, defaults=[]),
            body=[fdef] + self_bind + [A.Return(_name(name))], decorator_list=[], returns=None, type_comment=None)
        stmts.append(factory)
        return _call(factory_name, [_name(f) for f in free], node.span)


def _host_name(key: str) -> str:
    return "_h_" + "".join(c if c.isalnum() else "_" for c in key) + f"_{abs(hash(key)) % 100000}"


def _varref(name):
    from .values import VarRef
    return VarRef(name)


def _no_args():
    return ast.arguments(posonlyargs=[], args=[], vararg=None, kwonlyargs=[], kw_defaults=[], kwarg=None, defaults=[])


INLINE_HOFS = frozenset(("map", "mapv", "filter", "filterv", "remove"))


def inlinable_hof(node) -> bool:
    """A call `(map|mapv|filter|filterv|remove (fn [x] ...) coll)` whose fn can become a loop body:
    one fixed parameter, no name, no recur, and no closure inside (a closure would capture the
    loop variable, which Python rebinds in place)."""
    if type(node) is not N.BuiltinCall or node.name not in INLINE_HOFS or len(node.args) != 2:
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


def _free_locals(fn: N.Fn) -> set:
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


_INLINE_BIN = {
    "add": (ast.Add(), "_add2"), "sub": (ast.Sub(), "_sub2"),
    "lt": (ast.Lt(), "_lt2"), "gt": (ast.Gt(), "_gt2"), "le": (ast.LtE(), "_le2"), "ge": (ast.GtE(), "_ge2"),
    "eq": (ast.Eq(), "_eq2"),
}

EMIT = {
    N.Const: Compiler.e_const, N.LocalRef: Compiler.e_local, N.GlobalRef: Compiler.e_global,
    N.MaybeGlobal: Compiler.e_maybe_global, N.BuiltinRef: Compiler.e_builtin_ref,
    N.BuiltinCall: Compiler.e_builtin_call, N.DataRef: Compiler.e_data, N.ToolRef: Compiler.e_tool_ref,
    N.ToolCall: Compiler.e_tool_call, N.HistoryRef: Compiler.e_history, N.HostRef: Compiler.e_host,
    N.If: Compiler.e_if, N.Do: Compiler.e_do, N.Let: Compiler.e_let, N.Loop: Compiler.e_loop,
    N.Recur: Compiler.e_recur, N.Terminal: Compiler.e_terminal, N.Call: Compiler.e_call, N.RtCall: Compiler.e_rt,
    N.Def: Compiler.e_def, N.And: Compiler.e_and_or, N.Or: Compiler.e_and_or, N.VectorLit: Compiler.e_vector,
    N.SetLit: Compiler.e_set, N.MapLit: Compiler.e_map, N.Juxt: Compiler.e_juxt, N.Prim: Compiler.e_prim,
    N.For: Compiler.e_for, N.Fn: Compiler.e_fn,
}


def compile_node(node: N.Node, host_refs: dict | None = None):
    """Compile an analyzed program; returns (code, const_values, fn_meta)."""
    c = Compiler(host_refs)
    c.fn_meta = []
    code, consts = c.compile_program(node)
    return code, consts, c.fn_meta


def compile_subprogram(node: N.Node, free: list[str], host_refs: dict, env_globals: dict):
    """Compile one subtree (a loop or a closure) for the interpreter's hot paths.

    Returns `make(*free_values) -> main`, where calling `main()` evaluates the
    subtree with the given values for its free locals (Python names `free`).
    """
    c = Compiler(host_refs)
    c.fn_meta = []
    code, consts = c.compile_program(node, free)
    register_fn_meta(code, c.fn_meta)
    # the module only defines the factory: make that function directly over the environment's
    # globals (no exec into the shared dict, which parallel workers may be compiling into too)
    factory_code, = (co for co in code.co_consts if getattr(co, "co_name", None) == "__ptc_factory__")
    factory = types.FunctionType(factory_code, env_globals, "__ptc_factory__")

    def make(*free_values):
        return factory(*consts, *free_values)

    make.codes = _nested_codes(code)
    return make


def _nested_codes(code) -> frozenset:
    """A code object and every code object defined inside it."""
    out = []
    stack = [code]
    while stack:
        co = stack.pop()
        out.append(co)
        stack.extend(c for c in co.co_consts if hasattr(c, "co_code"))
    return frozenset(out)


def register_fn_meta(code, fn_meta):
    """Record parameter names of every closure code object (for printing `#fn[x y]`)."""
    by_pos = {}
    for fdef, node in fn_meta:
        by_pos[(fdef.name, fdef.lineno, fdef.col_offset)] = node
    stack = [code]
    while stack:
        co = stack.pop()
        node = by_pos.get((co.co_name, co.co_firstlineno, None))
        for c in co.co_consts:
            if hasattr(c, "co_code"):
                stack.append(c)
        if co.co_name.startswith("fn__"):
            for (nm, ln, _col), n in by_pos.items():
                if nm == co.co_name and ln == co.co_firstlineno:
                    FN_META[co] = list(n.param_names)
                    break
