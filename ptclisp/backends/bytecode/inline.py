"""The emitters that replace a general call with a fast path: map/filter/mapcat as loops, `nth` on a
vector, `(:k m)` as dict probes (the keyword, then its name), and the primitives (int arithmetic and
comparisons, equality with a string literal, tests of nil and false), each falling back to the
general function for any other operands.

`Inliner` is a part of `emit.Compiler`. Imports the registry (the primitive table), the AST helpers and
scan (which fns get an int body).
"""
from __future__ import annotations

import ast

from ...registry import builtins as R
from ... import values as V
from .pyast import A, LOAD, NONE, STORE, all_of, assign, at, attr, call, check_expired, is_, trivial, var
from . import scan
from .scan import int_params


_COMPACT = (1 << 30) - 1   # the largest magnitude of an int CPython stores in one digit


class IntForm:
    """How an inlined integer operation was built (see Compiler._inline_int)."""

    __slots__ = ("names", "bounds", "fast", "nonneg")

    def __init__(self, names, bounds, fast, nonneg):
        self.names = names                  # variables that must be ints
        self.bounds = bounds                # further guards (the size bound of a product): always kept
        self.fast = fast                    # the expression computing the result from ints
        self.nonneg = nonneg                # the result is >= 0 (x mod c, c > 0)


class Inliner:
    """Fast-path emitters of `emit.Compiler` (they use its tmp, emit_* and loop_depth)."""

    def _inline_str_method(self, arg, method, slow, node):
        """`(upper-case s)` and kin (`registry.Builtin.str_method`): `s.upper()` for a string s of at
        most the registered length, else the builtin; s evaluated once."""
        name, longest = method
        first, again = self._once(arg)
        test = A.BoolOp(op=ast.And(), values=[
            is_(call("type", [first]), var("str")),
            A.Compare(left=call("len", [again]), ops=[ast.LtE()], comparators=[A.Constant(longest)])])
        fast = call(A.Attribute(value=again, attr=name, ctx=LOAD), [])
        return at(A.IfExp(test=test, body=fast, orelse=call(slow, [again], node.span)), node.span)

    def _inline_owned(self, node, args, stmts):
        """`(assoc m k v)` / `(conj v x)` at the last read of the local m (or v), written out: the store
        into the map, or the append to the vector's item list, done here when the reference counts
        show that local as the only holder (of the map; of the vector and of its list) and the
        charge fits the budget; else the in-place variant called as before, its result bound to
        the (dead) local. The value is that local. None: not written out (the caller calls the
        variant). The counts are measured on the running interpreter (values/ownership.py: with a
        failed self-test they are -1 and the variant is always called)."""
        fact = self.facts.owned_inline.get(node.name)
        if fact is None or not V.INLINE_GROWTH:
            return None
        grows, cost = fact
        if len(args) != (3 if grows == "map" else 2):
            return None
        local = args[0]
        rest = []
        for e in args[1:]:   # the other operands once each, in order (the local has no effect to keep)
            if not trivial(e):
                t = self.tmp()
                stmts.append(assign(t, e))
                e = var(t)
            rest.append(e)
        meter, room = self.charge_var(), self.tmp("al")   # (`_unmetered` outside an evaluation)
        charge = [A.Compare(left=A.NamedExpr(target=var(room, True),
                                             value=A.BinOp(left=attr(meter, "allocated"), op=ast.Add(),
                                                           right=A.Constant(cost))),
                            ops=[ast.LtE()], comparators=[attr(meter, "budget")])]

        def refs_are(e, n):
            return A.Compare(left=call("_getrc", [e]), ops=[ast.Eq()], comparators=[A.Constant(n)])
        holds = refs_are(local, V.LOCAL_REFS)
        if grows == "map":
            key, value = rest
            tests = [is_(call("type", [local]), var("_Map")), holds]
            # a key the map holds under another spelling is the variant's case (colls_maps.write_key):
            # the store is written out when the map holds the key exactly or the key is not a
            # keyword or string, or the map holds no other spelling of it
            spelled = A.BoolOp(op=ast.Or(), values=[
                A.Compare(left=key, ops=[ast.In()], comparators=[local]),
                is_(call("_write_key", [local, key]), key)])
            if isinstance(key, ast.Constant) and type(key.value) is str:
                tests.append(spelled)
            elif not (isinstance(key, ast.Constant) and type(key.value) is int):
                # floats and booleans are stored under their hk form: the variant's case; a key
                # that is neither a keyword nor a string has one spelling. One type test, read
                # once, for the int keys of a growing loop:
                # type(k) is int or (not float, not bool and (not str/keyword or spelled))
                kt = self.tmp("kt")
                tests.append(A.BoolOp(op=ast.Or(), values=[
                    is_(A.NamedExpr(target=var(kt, True), value=call("type", [key])), var("int")),
                    A.BoolOp(op=ast.And(), values=[
                        is_(var(kt), var("_float"), True), is_(var(kt), var("_bool"), True),
                        A.BoolOp(op=ast.Or(), values=[
                            A.BoolOp(op=ast.And(), values=[is_(var(kt), var("str"), True),
                                                           is_(var(kt), var("_Keyword"), True)]),
                            spelled])])]))
            grow = A.Assign(targets=[A.Subscript(value=local, slice=key, ctx=STORE)], value=value)
        else:
            item, = rest
            items = self.tmp("it")
            tests = [is_(call("type", [local]), var("_Vector")), holds,
                     is_(A.NamedExpr(target=var(items, True), value=A.Attribute(value=local, attr="_items", ctx=LOAD)),
                         NONE, True),
                     refs_are(var(items), V.SLOT_LIST_REFS),
                     is_(A.Attribute(value=local, attr="_owner", ctx=LOAD), var("_LIST"), True)]   # conj onto a list prepends
            grow = A.Expr(call(attr(items, "append"), [item]))
        fast = [A.Assign(targets=[A.Attribute(value=var(meter), attr="allocated", ctx=STORE)], value=var(room)), grow]
        slow = [at(A.Assign(targets=[var(local.id, True)],
                            value=call(self.facts.owned[node.name][0], [local] + rest, node.span)), node.span)]
        stmts.append(at(A.If(test=A.BoolOp(op=ast.And(), values=tests + charge), body=fast, orelse=slow), node.span))
        return var(local.id)

    def _inline_hof(self, node, coll, stmts):
        """`(map (fn [x] body) coll)` and kin (mapcat too) as a Python loop over coll's items: no call per item.

        Same steps as the builtin: coll's items as the builtin reads them, the body once per
        item (with the deadline check a call would make), the result charged as a vector. When
        the body uses x in guarded integer operations, it is emitted twice: for an int item
        without the guards on x, and the general one."""
        fn = node.args[0]
        items, acc = self.tmp("items"), self.tmp("acc")
        stmts.append(assign(items, call("_seq_items", [coll, A.Constant(node.name)], node.span)))
        stmts.append(assign(acc, A.List(elts=[], ctx=LOAD)))
        param = fn.params[0]
        body: list = [check_expired()]
        self.loop_depth += 1
        try:
            if int_params(fn):
                outer_ints = self.int_locals
                self.int_locals = outer_ints | {param.py}
                try:
                    for_ints = self._hof_step(node, fn, acc, param)
                finally:
                    self.int_locals = outer_ints
                body.append(A.If(test=is_(call("type", [var(param.py)]), var("int")), body=for_ints,
                                 orelse=self._hof_step(node, fn, acc, param)))
            else:
                body += self._hof_step(node, fn, acc, param)
        finally:
            self.loop_depth -= 1
        stmts.append(at(A.For(target=var(param.py, True), iter=var(items), body=body, orelse=[]), node.span))
        return call("_out_vec", [var(acc)], node.span)

    def _hof_step(self, node, fn, acc, param) -> list:
        """The statements of one item of an inlined map/filter loop: the fn's body, its value onto `acc`."""
        body: list = []
        self.emit_bindings(fn.prologue, body)
        if node.name in ("map", "mapv"):
            value = self.emit_expr(fn.body, body)
            body.append(A.Expr(call(attr(acc, "append"), [value])))
        elif node.name == "mapcat":
            r = self.tmp("r")
            body.append(assign(r, self.emit_expr(fn.body, body)))
            body.append(self._splice(r, acc, node))
        else:
            test = self.emit_test(fn.body, body)
            if node.name == "remove":
                test = A.UnaryOp(op=ast.Not(), operand=test)
            body.append(A.If(test=test, body=[A.Expr(call(attr(acc, "append"), [var(param.py)]))], orelse=[]))
        return body

    def _splice(self, r, acc, node):
        """mapcat's step: the items of the body's value `r` onto `acc` (a vector's list at once, any
        other value through the builtin's own helper, which also refuses what is no collection)."""
        it = self.tmp("it")
        items = A.IfExp(test=is_(A.NamedExpr(target=var(it, True), value=attr(r, "_items")), NONE, True),
                        body=var(it), orelse=call(attr(r, "lst"), []))
        return A.If(test=is_(call("type", [var(r)]), var("_Vector")),
                    body=[A.Expr(call(attr(acc, "extend"), [items]))],
                    orelse=[A.Expr(call("_splice_into", [var(acc), var(r), A.Constant("mapcat")], node.span))])

    def _inline_nth(self, fn, args, stmts, node):
        """`(nth v i)`: the item itself for a vector and an int index in range; else the builtin."""
        v, i = args
        if not isinstance(v, ast.Name):
            t = self.tmp()
            stmts.append(assign(t, v))
            v = var(t)
        items = self.tmp("it")
        tests = [is_(call("type", [v]), var("_Vector")),
                 is_(A.NamedExpr(target=var(items, True), value=A.Attribute(value=v, attr="_items", ctx=LOAD)),
                     NONE, True)]
        form = getattr(i, "ptc_int", None)
        if form is not None:  # an inlined int expression: its guards, then the index itself
            tests += [is_(call("type", [var(n)]), var("int")) for n in form.names]
            tests += list(form.bounds)
            k = self.tmp("k")
            index = A.NamedExpr(target=var(k, True), value=form.fast)
            if form.nonneg:
                tests.append(A.Compare(left=index, ops=[ast.Lt()], comparators=[call("len", [var(items)])]))
            else:
                tests.append(A.Compare(left=A.Constant(0), ops=[ast.LtE(), ast.Lt()],
                                       comparators=[index, call("len", [var(items)])]))
            fast = A.Subscript(value=var(items), slice=var(k), ctx=LOAD)
            return at(A.IfExp(test=A.BoolOp(op=ast.And(), values=tests), body=fast,
                              orelse=call(fn, [v, i], node.span)), node.span)
        if not isinstance(i, ast.Name):
            t = self.tmp()
            stmts.append(assign(t, i))
            i = var(t)
        if i.id not in self.int_locals:
            tests.append(is_(call("type", [i]), var("int")))
        tests += [A.Compare(left=A.Constant(0), ops=[ast.LtE(), ast.Lt()], comparators=[i, call("len", [var(items)])])]
        fast = A.Subscript(value=var(items), slice=i, ctx=LOAD)
        return at(A.IfExp(test=A.BoolOp(op=ast.And(), values=tests), body=fast, orelse=call(fn, [v, i], node.span)),
                  node.span)

    def _once(self, m):
        """(the expression that evaluates m, the expression that reads it again): m itself twice when
        it is a variable, else an assignment to a temporary and that temporary."""
        if isinstance(m, ast.Name):
            return m, m
        t = self.tmp()
        return A.NamedExpr(target=var(t, True), value=m), var(t)

    def _map_probes(self, m_once, m, kw, name: str):
        """(the test that m is a map holding kw itself or the string `name`, the temporary the
        probe that found it leaves the value in): the first two steps of `Map.lookup`, in its order."""
        v = self.tmp("v")

        def probe(key):
            return is_(A.NamedExpr(target=var(v, True), value=call(A.Attribute(value=m, attr="get", ctx=LOAD),
                                                                   [key, var("_absent")])),
                       var("_absent"), True)
        return [is_(call("type", [m_once]), var("_Map")),
                A.BoolOp(op=ast.Or(), values=[probe(kw), probe(A.Constant(name))])], var(v)

    def _inline_kw_get(self, args, node, name: str, slow: str = "_rt_kw_get"):
        """`(:k m)` as dict probes when m is a map that holds :k itself or the string "k" (the first
        two steps of `Map.lookup`, in its order: JSON data has string keys); any other case (no such
        key, another spelling, not a map) goes to the general helper, m evaluated once.

        `(get m :k)` and `(get m :k d)` (d a constant or a variable: not evaluating it has no
        effect) the same way, `slow` the builtin: its map case makes these probes first too."""
        if slow != "_rt_kw_get":
            m, k, *rest = args
        else:
            (k, m), rest = args, []
        m_once, m = self._once(m)
        tests, found = self._map_probes(m_once, m, k, name)
        fallback = call("_rt_kw_get", [k, m], node.span) if slow == "_rt_kw_get" else call(slow, [m, k, *rest], node.span)
        return at(A.IfExp(test=A.BoolOp(op=ast.And(), values=tests), body=found, orelse=fallback), node.span)

    def _inline_get_in(self, args, node, slow, names):
        """`(get-in m [:k1 :k2 ...])` (a literal path of keywords; a default that is a constant or a
        variable) as the probes of `(:k m)` step by step while each step finds a map holding the key
        or its name (the first probes of every step of `get-in`); any other case goes to `slow` (the
        builtin) with the same operands, m evaluated once."""
        m, path, *rest = args
        m_once, m = self._once(m)
        tests = []
        cur, cur_once = m, m_once
        for kw, name in names:
            step, found = self._map_probes(cur_once, cur, kw, name)
            tests += step
            cur = cur_once = found
        return at(A.IfExp(test=A.BoolOp(op=ast.And(), values=tests), body=cur,
                          orelse=call(slow, [m, path, *rest], node.span)), node.span)

    def _inline_get(self, args, node, slow, stmts):
        """`(get m k)` / `(get m k d)` with a key known only at run time: when m is a map and k a
        string or a keyword, the probe `get` makes first (the key as it is); anything else, or no
        such key, goes to `slow` (the builtin). m and k are evaluated once, in order (into
        temporaries unless they are variables or constants); d is a constant or a variable, so
        not evaluating it has no effect."""
        m, k, *rest = args
        if isinstance(m, ast.Constant) or (isinstance(k, ast.Constant) and type(k.value) is not str):
            return call(slow, args, node.span)
        ops = []
        for e in (m, k):
            if not isinstance(e, (ast.Name, ast.Constant)):
                t = self.tmp()
                stmts.append(assign(t, e))
                e = var(t)
            ops.append(e)
        m, k = ops
        v = self.tmp("v")
        tests = [is_(call("type", [m]), var("_Map"))]
        if not isinstance(k, ast.Constant):
            tk = self.tmp()
            tests.append(A.BoolOp(op=ast.Or(), values=[
                is_(A.NamedExpr(target=var(tk, True), value=call("type", [k])), var("str")),
                is_(var(tk), var("_Keyword"))]))
        tests.append(is_(A.NamedExpr(target=var(v, True), value=call(A.Attribute(value=m, attr="get", ctx=LOAD),
                                                                        [k, var("_absent")])),
                         var("_absent"), True))
        return at(A.IfExp(test=A.BoolOp(op=ast.And(), values=tests), body=var(v),
                          orelse=call(slow, [m, k, *rest], node.span)), node.span)

    # ------------------------------------------------------------ primitives
    def e_prim(self, node, stmts):
        """A primitive operation (registry.PRIMITIVES): tests of nil and false in place; an int-only
        fast path where Python's operator agrees, with the primitive's function for the rest."""
        op = node.op
        p = R.PRIMITIVES[op]
        slot = R.prim_slot(op)
        args = self.emit_args(node.args, stmts)
        if p.inline:
            return self._inline_test(op, args[0])
        if p.negates is not None:
            return A.UnaryOp(op=ast.Not(), operand=call(slot, args, node.span))
        if not scan.INLINE_CALLS:
            return call(slot, args, node.span)
        if op == "mul":
            return self._inline_mul(args, node, slot)
        if op == "eq" and any(isinstance(x, ast.Constant) and type(x.value) is str for x in args):
            return self._inline_eq_str(args, node, slot)
        if op == "mod":
            return self._inline_mod(args, node, slot)
        if p.int_op is None:
            return call(slot, args, node.span)
        pyop = getattr(ast, p.int_op)()
        if p.arity == 1:   # x + 1, x - 1
            return self._inline_int(args[0], A.Constant(1), pyop, slot, node, unary=True)
        a, b = args
        return self._inline_int(a, b, pyop, slot, node)

    def _inline_test(self, op, x):
        """`not`, `nil?`, `some?` of `x`: an identity test, no call."""
        if op == "isnil":
            return is_(x, A.Constant(None))
        if op == "issome":
            return is_(x, A.Constant(None), True)
        if isinstance(x, ast.Constant):
            return A.Constant(x.value is None or x.value is False)
        t = self.tmp()
        w = A.NamedExpr(target=var(t, True), value=x)
        return A.BoolOp(op=ast.Or(), values=[is_(w, A.Constant(None)), is_(var(t), A.Constant(False))])

    # Inline integer arithmetic. An inlined operation over variables and constants records how it
    # was built on its AST (`ptc_int`: the variables that must be ints, extra guards, the int-only
    # expression), so an operation that consumes it folds the guards into its own instead of
    # testing the type of the intermediate result again: `(mod (* i 37) 101)` is one
    # `type(i) is int` test around `i * 37 % 101`.

    def _inline_eq_str(self, args, node, slow):
        """`(= x "s")` (either side): `x == "s"` when x is a string, as the primitive compares two
        strings; anything else goes to `slow` (the primitive's function), x evaluated once."""
        lit_first = isinstance(args[0], ast.Constant) and type(args[0].value) is str
        lit, x = (args[0], args[1]) if lit_first else (args[1], args[0])
        if isinstance(x, ast.Name):
            once = x
        else:
            t = self.tmp()
            once, x = A.NamedExpr(target=var(t, True), value=x), var(t)
        return at(A.IfExp(test=is_(call("type", [once]), var("str")),
                          body=A.Compare(left=x, ops=[ast.Eq()], comparators=[lit]),
                          orelse=call(slow, [lit, x] if lit_first else [x, lit], node.span)), node.span)

    def _inline_mul(self, args, node, slow):
        """`x * c` for an int x of bounded size and a small constant c; else `slow` (the primitive's function)."""
        a, b = args
        if isinstance(a, A.Constant) and not isinstance(b, A.Constant):
            a, b = b, a
        if not isinstance(a, ast.Constant) and not isinstance(b, ast.Constant) \
                and getattr(a, "ptc_int", None) is None and getattr(b, "ptc_int", None) is None:
            return self._inline_mul_any(args, node, slow)
        if not (isinstance(b, ast.Constant) and type(b.value) is int and abs(b.value) < 2 ** 31) \
                or not isinstance(a, (ast.Name, ast.Constant)):
            return call(slow, args, node.span)
        # the primitive sizes (charges, or refuses) a product of more than 64 bits: the fast path
        # takes only products it computes directly, x.bit_length() + c.bit_length() <= 64
        room = 1 << (64 - abs(b.value).bit_length())
        bound = A.Compare(left=A.Constant(-room), ops=[ast.Lt(), ast.Lt()], comparators=[a, A.Constant(room)])
        if room > _COMPACT and not isinstance(a, ast.Constant):
            # the same test, tried first against one-digit ints (CPython compares those without a
            # call): an x that fits takes the fast path at once, any other x is tested as above
            bound = A.BoolOp(op=ast.Or(), values=[
                A.Compare(left=A.Constant(-_COMPACT), ops=[ast.LtE(), ast.LtE()],
                          comparators=[a, A.Constant(_COMPACT)]), bound])
        fast = A.BinOp(left=a, op=ast.Mult(), right=b)
        known = isinstance(a, ast.Name) and a.id in self.int_locals
        test = bound if known else A.BoolOp(op=ast.And(), values=[is_(call("type", [a]), var("int")), bound])
        out = at(A.IfExp(test=test, body=fast, orelse=call(slow, [a, b], node.span)), node.span)
        if isinstance(a, ast.Name):
            # a consumer folding the product keeps its size bound (the primitive's charge and refusal)
            out.ptc_int = IntForm(() if known else (a.id,), (bound,), fast, nonneg=False)
        return out

    def _inline_mul_any(self, args, node, slow):
        """`a * b` for two ints of at most 32 bits (a product of at most 64 bits, which the primitive
        computes directly too); else `slow` of the operands, each evaluated exactly once."""
        evaluated, checks, ops = [], [], []
        for e in args:
            if isinstance(e, ast.Name):
                if e.id not in self.int_locals:
                    checks.append(is_(call("type", [e]), var("int")))
            else:   # evaluated into a temporary whatever the other tests say (`&` does not short-circuit)
                t = self.tmp()
                evaluated.append(is_(call("type", [A.NamedExpr(target=var(t, True), value=e)]), var("int")))
                e = var(t)
            ops.append(e)
        tests = checks + [A.Compare(left=A.Constant(-(1 << 32)), ops=[ast.Lt(), ast.Lt()],
                                    comparators=[o, A.Constant(1 << 32)]) for o in ops]
        if evaluated:
            first = evaluated[0] if len(evaluated) == 1 else A.BinOp(left=evaluated[0], op=ast.BitAnd(),
                                                                     right=evaluated[1])
            tests.insert(0, first)
        return at(A.IfExp(test=A.BoolOp(op=ast.And(), values=tests), body=A.BinOp(left=ops[0], op=ast.Mult(),
                                                                                    right=ops[1]),
                          orelse=call(slow, ops, node.span)), node.span)

    def _inline_quot(self, args, node, slow):
        """`(quot a b)` as `a // b` for an int a >= 0 and an int b > 0 (truncation is the floor
        there); else `slow` (the builtin) of the operands, each evaluated exactly once."""
        if all(isinstance(e, ast.Constant) for e in args) \
                or any(isinstance(e, ast.Constant) and type(e.value) is not int for e in args):
            return call(slow, args, node.span)
        evaluated, checks, ops = [], [], []
        for e in args:
            if isinstance(e, ast.Name):
                if e.id not in self.int_locals:
                    checks.append(is_(call("type", [e]), var("int")))
            elif not isinstance(e, ast.Constant):   # into a temporary, whatever the other tests say
                t = self.tmp()
                evaluated.append(is_(call("type", [A.NamedExpr(target=var(t, True), value=e)]), var("int")))
                e = var(t)
            ops.append(e)
        a, b = ops
        if isinstance(b, ast.Constant) and b.value <= 0:
            return call(slow, args, node.span)
        tests = checks + [A.Compare(left=a, ops=[ast.GtE()], comparators=[A.Constant(0)])]
        if not isinstance(b, ast.Constant):
            tests.append(A.Compare(left=b, ops=[ast.Gt()], comparators=[A.Constant(0)]))
        if evaluated:
            first = evaluated[0] if len(evaluated) == 1 else A.BinOp(left=evaluated[0], op=ast.BitAnd(),
                                                                     right=evaluated[1])
            tests.insert(0, first)
        return at(A.IfExp(test=all_of(tests), body=A.BinOp(left=a, op=ast.FloorDiv(), right=b),
                          orelse=call(slow, ops, node.span)), node.span)

    def _inline_mod(self, args, node, slow):
        """Floored `x mod c` for an int x and a non-zero constant int c (Python's % is floored)."""
        a, b = args
        if not (isinstance(b, ast.Constant) and type(b.value) is int and b.value != 0):
            return call(slow, args, node.span)
        return self._inline_int(a, b, ast.Mod(), slow, node)

    def _inline_int(self, a, b, pyop, slow, node, unary=False):
        """`a OP b` when both are ints, else `slow` (the primitive's function) of the operands, or of
        `a` alone for a `unary` primitive (evaluating each operand once, in order)."""
        checks = []
        evaluated = []          # tests that also evaluate an operand into a temporary: never skipped
        names: list = []        # variables tested (folded operands included), for ptc_int
        bounds: list = []
        operands = []           # the int-only path's operands
        full = []               # the general builtin's operands (a folded operand in full)
        foldable = True
        # an operand evaluated into a temporary runs inside the type tests, before the folded
        # guards: an inlined int expression left of it (whose general path may fail) is then
        # evaluated into a temporary too, so the left operand still runs (and fails) first
        later_runs = not (isinstance(b, (ast.Constant, ast.Name)) or getattr(b, "ptc_int", None) is not None)
        for e in (a, b):
            form = getattr(e, "ptc_int", None)
            if e is a and later_runs:
                form = None
            if isinstance(e, ast.Constant) and type(e.value) is int:
                op = e
            elif isinstance(e, ast.Name) or form is not None:
                for n in (e.id,) if form is None else form.names:
                    if n not in names and n not in self.int_locals:   # a loop variable known to be an int: no test
                        names.append(n)
                        checks.append(is_(call("type", [var(n)]), var("int")))
                if form is not None:
                    bounds.extend(form.bounds)
                op = e if form is None else form.fast
            else:
                foldable = False
                t = self.tmp()
                evaluated.append(is_(call("type", [A.NamedExpr(target=var(t, True), value=e)]), var("int")))
                e = op = var(t)
            operands.append(op)
            full.append(e)
        if isinstance(pyop, ast.cmpop):
            fast = A.Compare(left=operands[0], ops=[pyop], comparators=[operands[1]])
        else:
            fast = A.BinOp(left=operands[0], op=pyop, right=operands[1])
        slow_call = call(slow, full[:1] if unary else full, node.span)
        tests = checks + bounds
        if evaluated:
            # every operand is evaluated exactly once, whatever the other tests say: `&` does not
            # short-circuit, and the slow path reads the temporaries
            first = evaluated[0]
            for e in evaluated[1:]:
                first = A.BinOp(left=first, op=ast.BitAnd(), right=e)
            tests.insert(0, first)
        if not tests:   # int operands only (constants, loop variables known to be ints)
            out = at(fast, node.span)
        else:
            out = at(A.IfExp(test=all_of(tests), body=fast, orelse=slow_call), node.span)
        if foldable and isinstance(pyop, (ast.Add, ast.Sub, ast.Mod)):
            nonneg = isinstance(pyop, ast.Mod) and isinstance(b, ast.Constant) and b.value > 0
            out.ptc_int = IntForm(tuple(names), tuple(bounds), fast, nonneg=nonneg)
        return out
