"""Core AST -> Python AST: one emitter per node class, chosen from `EMIT` by type.

A program becomes a module of this shape:

    def __ptc_factory__(<constants>):
        def __ptc_main__():
            <program>
        return __ptc_main__

Locals become Python locals, `loop`/`recur` become `while True` loops whose back-edge ticks the
loop counter and, every CHECK_EVERY iterations, reads `_m.expired` (the meter's deadline flag), closures become nested `def`s
built by small factories so they capture values, not variables. Python AST nodes carry the PTC
line and column, so a traceback through generated code maps back to a PTC `Span`. The fast
paths that replace a general call are in `inline.Inliner`.

Imports analyzer nodes (and the last-read analysis), values, errors, meter, the registry, the
shared tables of the back ends (../table.py: runtime table, facts, node kinds) and the
compiler's own AST helpers and scans.
"""
from __future__ import annotations

import ast

from ... import values as V
from ...analyzer import nodes as N
from ...analyzer.lastuse import last_reads
from ...errors import PTC_FILENAME
from ...runtime.meter import map_cost, seq_cost
from ...registry.builtins import BUILTINS, SPECIALIZERS, THREAD_METER, UNKNOWN
from ...values import Keyword, VarRef
from .inline import Inliner
from .pyast import (A, LOAD, NONE, STORE, assign, at, attr, call, check_expired, host_name, is_, no_args,
                    rt_locals, trivial, truthy_test, var)
from . import scan
from .scan import free_locals, inlinable_hof, int_loop_locals, int_params
from ..table import (ABSENT, NODES_PER_TICK, clock_tick, constant_literal, dispatch_table, facts, mangle,
                     misplaced_recur, runtime_table)


# ------------------------------------------------------------------ sinks (where a tail value goes)

class Ret:
    def finish(self, expr, stmts):
        stmts.append(A.Return(value=expr))


class Assign:
    def __init__(self, name):
        self.name = name

    def finish(self, expr, stmts):
        stmts.append(assign(self.name, expr))


class Discard:
    def finish(self, expr, stmts):
        if not trivial(expr):
            stmts.append(A.Expr(expr))


class LoopExit:
    def __init__(self, name):
        self.name = name

    def finish(self, expr, stmts):
        stmts.append(assign(self.name, expr))
        stmts.append(A.Break())


def fn_code_name(label: str, nparams: int, rest: bool, n: int) -> str:
    """The Python name of a compiled `fn`: `fn__<label>__<a|r><params>__<n>`, the PTC label with
    every character but an ASCII letter or digit written `_<hex>_`, so an arity error Python
    raises calling it reads back as the closure tier's (runtime.failures.fn_arity_error)."""
    text = "".join(ch if ch.isascii() and ch.isalnum() else f"_{ord(ch):x}_" for ch in label)
    return f"fn__{text}__{'r' if rest else 'a'}{nparams}__{n}"


_NO_EFFECT = (N.Const, N.LocalRef)   # operands whose evaluation can neither fail nor be observed


class Compiler(Inliner):
    """Compiles one analyzed program."""

    def __init__(self, host_refs: dict | None = None):
        self.facts = facts()      # what the registry says of each call (boolean, in-place, loop)
        self.fn_meta: list = []   # (FunctionDef, Fn node) of every closure emitted
        self.free_params: list = []
        self.consts: list = []
        self.const_names: dict = {}
        self.host_refs = host_refs or {}
        self.loops: dict = {}     # id(target) -> loop info
        self.int_locals = frozenset()  # Python names of variables known to hold ints where emitted now
        self.n = 0
        self.loop_depth = 0       # > 0 while emitting code that re-runs within one activation
        self.ticks = NODES_PER_TICK   # nodes until the next look at the compile clock (or the deadline)
        self.fn_meter = None      # the variable holding this thread's meter in the function emitted now
        self.fn_charge = None     # the same meter, or `_unmetered` outside an evaluation (charge_var)

    # ------------------------------------------------------------ helpers
    def meter_var(self) -> str:
        """The local the function being emitted reads this thread's meter from (assigned once, at
        the top of that function: `with_meter`); a function runs on one thread from call to return."""
        if self.fn_meter is None:
            self.fn_meter = self.tmp("mt")
        return self.fn_meter

    def charge_var(self) -> str:
        """The local written-out charges add to: this thread's meter, or outside an evaluation
        `_unmetered` (backends.runtime), whose budget no charge fits, so such a charge always takes
        its slow path, which charges nothing there, as before: one test fewer per charge than
        testing the meter for None."""
        if self.fn_charge is None:
            self.fn_charge = self.tmp("mc")
        return self.fn_charge

    def with_meter(self, body: list, at_index: int = 0):
        """Assign the meter locals in `body` at `at_index`, if code in it reads them."""
        if self.fn_charge is not None:
            body.insert(at_index, assign(self.fn_charge, A.BoolOp(op=ast.Or(), values=[
                attr("_mloc", "meter"), var("_unmetered")])))
        if self.fn_meter is not None:
            body.insert(at_index, assign(self.fn_meter, attr("_mloc", "meter")))

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
        return var(name)

    def emit_args(self, nodes, stmts):
        """Emit argument expressions preserving left-to-right evaluation order."""
        exprs = []
        for node in nodes:
            sub: list = []
            e = self.emit_expr(node, sub)
            if sub:
                for i, pe in enumerate(exprs):
                    if not trivial(pe):
                        t = self.tmp()
                        stmts.append(assign(t, pe))
                        exprs[i] = var(t)
                stmts.extend(sub)
            exprs.append(e)
        return exprs

    # ------------------------------------------------------------ entry
    def compile_program(self, node: N.Node, free: list[str] = ()):
        self.free_params = list(free)
        # map reads that may be handed over for in-place growth (none with the switch off)
        self.last_reads = last_reads(node, self.facts.owned) if V.IN_PLACE_GROWTH else frozenset()
        body: list = []
        self.emit_tail(node, body, Ret())
        self.with_meter(body)
        main = A.FunctionDef(name="__ptc_main__", args=no_args(), body=body or [A.Return(NONE)],
                             decorator_list=[], returns=None, type_comment=None)
        factory = A.FunctionDef(
            name="__ptc_factory__",
            args=ast.arguments(posonlyargs=[], args=[A.arg(arg=n) for n in self._const_params()],
                               vararg=None, kwonlyargs=[], kw_defaults=[], kwarg=None, defaults=[]),
            body=rt_locals() + [main, A.Return(var("__ptc_main__"))], decorator_list=[], returns=None,
            type_comment=None)
        mod = ast.Module(body=[factory], type_ignores=[])
        code = compile(mod, PTC_FILENAME, "exec")
        return code, self._const_values()

    def _const_params(self):
        return ([f"_c{i}" for i in range(len(self.consts))] + [host_name(k) for k in self.host_refs]
                + self.free_params)

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
            stmts.append(at(A.If(test=test, body=then or [A.Pass()], orelse=else_), node.span))
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
            stmts.append(at(A.Raise(exc=call("_Return" if node.kind == "return" else "_Fail", [value]), cause=None),
                            node.span))
            return
        if t is N.Loop and isinstance(sink, (Assign, LoopExit, Ret)):
            self.emit_loop(node, stmts, sink)
            return
        sink.finish(self.emit_expr(node, stmts), stmts)

    def emit_bindings(self, bindings, stmts):
        for local, value in bindings:
            e = self.emit_expr(value, stmts)
            stmts.append(assign(local.py, e, value.span))

    def emit_test(self, node, stmts):
        t = type(node)
        if t is N.Prim and node.op in self.facts.bool_prims:
            return self.emit_expr(node, stmts)
        if t is N.BuiltinCall and node.name in self.facts.bool_calls:
            return self.emit_expr(node, stmts)
        if t is N.Const:
            return A.Constant(node.value is not None and node.value is not False)
        e = self.emit_expr(node, stmts)
        return truthy_test(e, self.tmp())

    # ------------------------------------------------------------ loops
    def emit_loop(self, node: N.Loop, stmts, sink):
        inits = self.emit_args(node.inits, stmts)
        for local, e in zip(node.locals, inits):
            stmts.append(assign(local.py, e))
        body: list = []
        if node.has_recur:
            self.loops[id(node)] = self.loop_counter(stmts, [l.py for l in node.locals])
            outer_ints = self.int_locals
            self.int_locals = outer_ints | int_loop_locals(node, outer_ints)
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
            self.int_locals = outer_ints
        else:
            self.emit_tail(node.body, stmts, sink)

    # The deadline flag is read every CHECK_EVERY back-edges (and on the first), not on every one:
    # a back-edge costs one counter compare. The iteration limit stays exact: the next checkpoint
    # is never beyond it.
    CHECK_EVERY = 256

    def loop_counter(self, stmts, targets):
        """Start a loop's iteration counter, limit and next checkpoint; the loop's info for emit_recur."""
        counter, limit, check = self.tmp("n"), self.tmp("lim"), self.tmp("chk")
        stmts.append(assign(counter, A.Constant(0)))
        stmts.append(assign(limit, attr("_m", "loop_limit")))
        stmts.append(assign(check, A.Constant(0)))
        return counter, limit, check, targets

    def emit_recur(self, node: N.Recur, stmts):
        counter, limit, check, targets = self.loops[id(node.target)]
        # the back-edge's count and checks come before the new values are computed, whatever
        # those compile to (an expression or statements: a written-out growth, an `if`), so the
        # limit stops the loop at the same point on every path
        stmts.append(A.AugAssign(target=var(counter, True), op=ast.Add(), value=A.Constant(1)))
        # if n > chk: (if n > lim: limit error), (deadline check), chk = min(n + CHECK_EVERY - 1, lim)
        ahead = A.BinOp(left=var(counter), op=ast.Add(), right=A.Constant(self.CHECK_EVERY - 1))
        slow = [A.If(test=A.Compare(left=var(counter), ops=[ast.Gt()], comparators=[var(limit)]),
                     body=[A.Expr(call("_loop_limit", [var(limit)], node.span))], orelse=[]),
                check_expired(),
                assign(check, A.IfExp(test=A.Compare(left=ahead, ops=[ast.Lt()], comparators=[var(limit)]),
                                      body=ahead, orelse=var(limit)))]
        stmts.append(A.If(test=A.Compare(left=var(counter), ops=[ast.Gt()], comparators=[var(check)]),
                          body=slow, orelse=[]))
        args = self.emit_args(node.args, stmts)
        if len(targets) == 1:
            stmts.append(assign(targets[0], args[0]))
        elif targets:
            stmts.append(A.Assign(targets=[A.Tuple(elts=[var(t, True) for t in targets], ctx=STORE)],
                                  value=A.Tuple(elts=args, ctx=LOAD)))
        stmts.append(A.Continue())

    # ------------------------------------------------------------ expressions
    def emit_expr(self, node, stmts):
        self.ticks -= 1
        if not self.ticks:
            clock_tick(self)
        return EMIT[type(node)](self, node, stmts)

    def e_const(self, node, stmts):
        return self.const(node.value)

    def e_local(self, node, stmts):
        return var(node.local.py)

    def e_global(self, node, stmts):
        # the namespace's exact-dict twin (namespace.Namespace.fast): a missing name raises KeyError
        # here, reported as unbound_var (runtime.failures._unbound_global)
        return at(A.Subscript(value=var("_nsf"), slice=A.Constant(node.name), ctx=LOAD), node.span)

    def e_maybe_global(self, node, stmts):
        return call(attr("_nsf", "get"), [A.Constant(node.name)], node.span)

    def e_builtin_ref(self, node, stmts):
        return var(mangle(node.name))

    def e_builtin_call(self, node, stmts):
        if inlinable_hof(node):
            return self._inline_hof(node, self.emit_expr(node.args[1], stmts), stmts)
        if not scan.INLINE_CALLS:
            args = self.emit_args(node.args, stmts)
            owned = self.facts.owned.get(node.name)
            if owned is not None and owned[1] <= len(args) <= owned[2] and id(node.args[0]) in self.last_reads:
                return call(owned[0], args, node.span)   # (none with IN_PLACE_GROWTH off)
            return call(mangle(node.name), args, node.span)
        if node.name == "+" and len(node.args) > 2 and all(type(a) in _NO_EFFECT for a in node.args[2:]) \
                and runtime_table().get(mangle("+")) is BUILTINS["+"].fn:
            # (+ a b c): the builtin folds left with the two-argument primitive, so the nested
            # primitives (inlined for ints) give the same value and error; evaluating the later
            # operands (constants, locals) after the first sums is unobservable
            folded = N.Prim("add", node.args[:2], node.span)
            for a in node.args[2:]:
                folded = N.Prim("add", [folded, a], node.span)
            return self.emit_expr(folded, stmts)
        args = self.emit_args(node.args, stmts)
        fn = mangle(node.name)
        owned = self.facts.owned.get(node.name)
        if owned is not None and owned[1] <= len(args) <= owned[2] and type(node.args[0]) is N.LocalRef \
                and id(node.args[0]) in self.last_reads and isinstance(args[0], ast.Name):
            # the last read of a local: the map may be extended in place (analyzer/lastuse.py)
            grown = self._inline_owned(node, args, stmts)
            if grown is not None:
                return grown
            return call(owned[0], args, node.span)
        spec = BUILTINS.get(node.name)
        if len(args) == 1 and spec is not None and spec.str_method is not None and runtime_table().get(fn) is spec.fn:
            return self._inline_str_method(args[0], spec.str_method, fn, node)
        if len(args) == 2 and runtime_table().get(fn) is BUILTINS["nth"].fn:
            return self._inline_nth(fn, args, stmts, node)
        if len(args) == 2 and runtime_table().get(fn) is BUILTINS["quot"].fn:
            return self._inline_quot(args, node, fn)
        if 2 <= len(args) <= 3 and (len(args) == 2 or isinstance(args[2], (ast.Constant, ast.Name))) \
                and type(node.args[1]) is N.VectorLit and 1 <= len(node.args[1].items) <= 4 \
                and all(type(i) is N.Const and type(i.value) is Keyword for i in node.args[1].items) \
                and runtime_table().get(fn) is BUILTINS["get-in"].fn:
            path = [(self.const(i.value), i.value.name) for i in node.args[1].items]
            return self._inline_get_in(args, node, fn, path)
        if 2 <= len(args) <= 3 and (len(args) == 2 or isinstance(args[2], (ast.Constant, ast.Name))) \
                and runtime_table().get(fn) is BUILTINS["get"].fn:
            if type(node.args[1]) is N.Const and type(node.args[1].value) is Keyword:
                return self._inline_kw_get(args, node, node.args[1].value.name, fn)
            return self._inline_get(args, node, fn, stmts)
        chooser = SPECIALIZERS.get(node.name)
        if chooser is not None:
            choice = chooser(*(a.value if type(a) is N.Const else UNKNOWN for a in node.args))
            if choice is not None:   # a function equal to the builtin on these literal arguments
                special, extra = choice
                return call(self.const(special), args + [var(self.meter_var()) if x is THREAD_METER else self.const(x)
                                                         for x in extra], node.span)
        return call(fn, args, node.span)

    def e_data(self, node, stmts):
        return call("_data", [A.Constant(node.name)], node.span)

    def e_tool_ref(self, node, stmts):
        return call("_tool_ref", [A.Constant(node.name)], node.span)

    def e_tool_call(self, node, stmts):
        args = self.emit_args(node.args, stmts)
        return call("_tool", [A.Constant(node.name), A.Tuple(elts=args, ctx=LOAD)], node.span)

    def e_history(self, node, stmts):
        return call("_hist", [A.Constant(node.n)], node.span)

    def e_host(self, node, stmts):
        return var(host_name(node.key))

    def e_if(self, node, stmts):
        test = self.emit_test(node.test, stmts)
        s1: list = []
        s2: list = []
        a = self.emit_expr(node.then, s1)
        b = self.emit_expr(node.else_, s2)
        if not s1 and not s2:
            return at(A.IfExp(test=test, body=a, orelse=b), node.span)
        t = self.tmp("if")
        s1.append(assign(t, a))
        s2.append(assign(t, b))
        stmts.append(A.If(test=test, body=s1, orelse=s2))
        return var(t)

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
        return var(t)

    e_recur = misplaced_recur   # (emit_tail emits every recur)

    def e_terminal(self, node, stmts):
        self.emit_tail(node, stmts, Discard())
        return A.Constant(None)

    def e_call(self, node, stmts):
        parts = self.emit_args([node.fn] + node.args, stmts)
        return call(parts[0], parts[1:], node.span)

    def e_rt(self, node, stmts):
        args = self.emit_args(node.args, stmts)
        if scan.INLINE_CALLS and node.helper == "kw_get" and len(args) == 2 and type(node.args[0]) is N.Const \
                and type(node.args[0].value) is Keyword:
            return self._inline_kw_get(args, node, node.args[0].value.name)
        return call("_rt_" + node.helper, args, node.span)

    def e_def(self, node, stmts):
        if node.once:
            t = self.tmp("def")
            sub: list = []
            value = self.emit_expr(node.value, sub)
            sub.append(assign(t, call("_def", [var("_ns"), A.Constant(node.name), value, A.Constant(node.doc)],
                                      node.span)))
            stmts.append(A.If(test=A.Compare(left=A.Constant(node.name), ops=[ast.NotIn()],
                                             comparators=[var("_ns")]),
                              body=sub, orelse=[assign(t, self.const(VarRef(node.name)))]))
            return var(t)
        value = self.emit_expr(node.value, stmts)
        return call("_def", [var("_ns"), A.Constant(node.name), value, A.Constant(node.doc)], node.span)

    def e_and_or(self, node, stmts):
        is_and = type(node) is N.And
        t = self.tmp("ao")
        out: list = []
        first = self.emit_expr(node.exprs[0], out)
        out.append(assign(t, first))
        inner = out
        for sub in node.exprs[1:]:
            test = truthy_test(var(t), self.tmp())
            body: list = []
            e = self.emit_expr(sub, body)
            body.append(assign(t, e))
            if not is_and:
                test = A.UnaryOp(op=ast.Not(), operand=test)
            inner.append(A.If(test=test, body=body, orelse=[]))
            inner = body
        stmts.extend(out)
        return var(t)

    def e_vector(self, node, stmts):
        if (v := constant_literal(node)) is not ABSENT:
            return self.const(v)
        items = self.emit_args(node.items, stmts)   # charged once built (backends.runtime, literals)
        t = self.tmp("lv")
        stmts.append(assign(t, A.List(elts=items, ctx=LOAD)))
        self._charge_literal(seq_cost(len(items)), stmts, node)
        return call("_mkvec", [var(t)])

    def _charge_literal(self, cost: int, stmts, node):
        """The charge of a literal built at run time, written out: added to this thread's meter when it
        fits the budget, else `_lit_charge` (which raises as `meter.charge` does); the same amount
        the closures charge (backends.runtime, literals)."""
        meter, room = self.charge_var(), self.tmp("al")
        fits = A.Compare(left=A.NamedExpr(target=var(room, True),
                                          value=A.BinOp(left=attr(meter, "allocated"), op=ast.Add(),
                                                        right=A.Constant(cost))),
                         ops=[ast.LtE()], comparators=[attr(meter, "budget")])
        fast = [A.Assign(targets=[A.Attribute(value=var(meter), attr="allocated", ctx=STORE)], value=var(room))]
        slow = [A.Expr(call("_lit_charge", [A.Constant(cost)], node.span))]   # a refusal is at the literal
        stmts.append(at(A.If(test=fits, body=fast, orelse=slow), node.span))

    def e_set(self, node, stmts):
        if (v := constant_literal(node)) is not ABSENT:
            return self.const(v)
        items = self.emit_args(node.items, stmts)
        return call("_mkset", [A.List(elts=items, ctx=LOAD), A.Constant(map_cost(len(items)))], node.span)

    def e_map(self, node, stmts):
        if (v := constant_literal(node)) is not ABSENT:
            return self.const(v)
        flat = self.emit_args([x for kv in node.pairs for x in kv], stmts)
        # charged once its parts are evaluated, as the closures do (backends.runtime, literals)
        cost = map_cost(len(node.pairs))
        keys, vals = [], []
        for i in range(0, len(flat), 2):
            kn = node.pairs[i // 2][0]
            k = flat[i]
            if not (type(kn) is N.Const and type(kn.value) in (Keyword, str, int, type(None))):
                k = call("_hk", [k])
            keys.append(k)
            vals.append(flat[i + 1])
        if all(isinstance(k, (ast.Constant, ast.Name)) for k in keys):
            # an empty Map, then one store per entry: cheaper than building a dict and copying it
            t = self.tmp("map")
            stmts.append(assign(t, call("_Map", [])))
            for k, v in zip(keys, vals):
                stmts.append(A.Assign(targets=[A.Subscript(value=var(t), slice=k, ctx=STORE)], value=v))
            self._charge_literal(cost, stmts, node)
            return var(t)
        t = self.tmp("lm")
        stmts.append(assign(t, A.Dict(keys=keys, values=vals)))
        self._charge_literal(cost, stmts, node)
        return call("_Map", [var(t)])

    def e_juxt(self, node, stmts):
        return call("_juxt", self.emit_args(node.fns, stmts), node.span)

    # ------------------------------------------------------------ for / doseq
    def e_for(self, node: N.For, stmts):
        acc = self.tmp("acc") if node.collect else None
        cap = self.tmp("cap") if node.collect else None
        if acc:
            stmts.append(assign(acc, A.List(elts=[], ctx=LOAD)))
        self._for_clauses(node, 0, stmts, acc, cap)
        if acc:
            return call("_out_for", [var(acc)], node.span)
        return A.Constant(None)

    def _for_clauses(self, node, i, stmts, acc, cap):
        clauses = node.clauses
        if i == len(clauses):
            if acc:
                val = self.emit_expr(node.body, stmts)
                stmts.append(A.Expr(call(attr(acc, "append"), [val])))
                stmts.append(A.If(test=A.Compare(left=call("len", [var(acc)]), ops=[ast.Gt()],
                                                 comparators=[var(cap)]),
                                  body=[A.Expr(call("_for_too_big", [var(cap)], node.span))], orelse=[]))
            else:
                self.emit_tail(node.body, stmts, Discard())
            return
        c = clauses[i]
        kind = c[0]
        if kind == "bind":
            _, item, coll, ds = c
            coll_e = self.emit_expr(coll, stmts)
            if i == 0 and acc:
                # the cap: the items the budget left once the first collection is made could hold
                if not trivial(coll_e):
                    t = self.tmp()
                    stmts.append(assign(t, coll_e))
                    coll_e = var(t)
                stmts.append(assign(cap, call("_for_cap", [var("_m")])))
            body: list = [check_expired()]
            self.loop_depth += 1
            self.emit_bindings(ds, body)
            self._for_clauses(node, i + 1, body, acc, cap)
            self.loop_depth -= 1
            stmts.append(at(A.For(target=var(item.py, True), iter=coll_e, body=body, orelse=[]), coll.span))
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
        outer_depth, outer_meter, outer_charge = self.loop_depth, self.fn_meter, self.fn_charge
        self.loop_depth = 1 if node.has_recur else 0
        self.fn_meter = self.fn_charge = None   # a function of its own: it may run on another thread (pmap)
        try:
            return self._emit_fn(node, stmts, outer_depth)
        finally:
            self.loop_depth, self.fn_meter, self.fn_charge = outer_depth, outer_meter, outer_charge

    def _emit_fn(self, node: N.Fn, stmts, outer_depth):
        self.n += 1
        name = fn_code_name(node.name or "fn", len(node.params), node.rest is not None, self.n)
        params = [A.arg(arg=p.py) for p in node.params]
        vararg = A.arg(arg=node.rest.py) if node.rest else None
        body: list = [check_expired()]
        if node.rest:
            body.append(assign(node.rest.py, call("_rest", [var(node.rest.py)])))
        inner: list = []
        ints = int_params(node)
        if ints:
            # the body twice: for int arguments without the type guards on them, else the general one
            outer_ints = self.int_locals
            self.int_locals = outer_ints | frozenset(ints)
            self.emit_bindings(node.prologue, inner)
            self.emit_tail(node.body, inner, Ret())
            self.int_locals = outer_ints
            general: list = []
            self.emit_bindings(node.prologue, general)
            self.emit_tail(node.body, general, Ret())
            tests = [is_(call("type", [var(p)]), var("int")) for p in ints]
            body.append(A.If(test=tests[0] if len(tests) == 1 else A.BoolOp(op=ast.And(), values=tests),
                             body=inner, orelse=general))
        elif node.has_recur:
            self.emit_bindings(node.prologue, inner)
            targets = [p.py for p in node.params] + ([node.rest.py] if node.rest else [])
            self.loops[id(node)] = self.loop_counter(body, targets)
            self.emit_tail(node.body, inner, Ret())
            body.append(A.While(test=A.Constant(True), body=inner, orelse=[]))
        else:
            self.emit_bindings(node.prologue, inner)
            self.emit_tail(node.body, inner, Ret())
            body.extend(inner)
        self.with_meter(body, 1)   # (after the deadline check)
        fdef = at(A.FunctionDef(
            name=name,
            args=ast.arguments(posonlyargs=[], args=params, vararg=vararg, kwonlyargs=[], kw_defaults=[],
                               kwarg=None, defaults=[]),
            body=body, decorator_list=[], returns=None, type_comment=None), node.span)
        self.fn_meta.append((fdef, node))
        self_bind = []
        if node.self_local is not None:
            self_bind = [assign(node.self_local.py, var(name))]
        if outer_depth == 0:
            # every captured variable is assigned once per activation: a plain nested def captures values
            stmts.append(fdef)
            stmts.extend(self_bind)
            return var(node.self_local.py if node.self_local is not None else name)
        # inside a loop, a factory gives the closure its own copy of every captured variable
        free = sorted(free_locals(node))
        factory_name = self.tmp("mk")
        factory = A.FunctionDef(
            name=factory_name,
            args=ast.arguments(posonlyargs=[], args=[A.arg(arg=f) for f in free], vararg=None, kwonlyargs=[],
                               kw_defaults=[], kwarg=None, defaults=[]),
            body=[fdef] + self_bind + [A.Return(var(name))], decorator_list=[], returns=None, type_comment=None)
        stmts.append(factory)
        return call(factory_name, [var(f) for f in free], node.span)


EMIT = dispatch_table(Compiler, "e_")   # node kind -> its emitter (table.HANDLERS)
