"""Core AST -> a tree of Python closures: the cold-code back end.

Most agent programs run once. Turning them into bytecode costs a Python
`compile()` (~100 µs even for one line), which dwarfs the run itself, so the
top level of every program is built into closures here instead (building is
cheap: one Python closure per node). Code that repeats is handed to the
bytecode back end (`bytecode/`), which shares the analyzer, the core AST and
the runtime table (`table.py`):

- `loop` subtrees and functions that call themselves are compiled at once;
- other functions start interpreted and are compiled after `HOT_CALLS`
  calls of the same `fn` form, or at once when a builtin is about to make
  that many (`registry.hot`); then every closure of that form delegates to
  its compiled twin;
- a `map`/`filter` call over a literal `fn` becomes a compiled loop once the
  vectors its call site has been given, this one included, hold
  `ISLAND_ITEMS` items.

Each rule counts the work one site has done or is about to do, so one story
covers them: what will run often is compiled, what runs once is not.

Locals live in a per-activation frame (a Python list); a closure copies the
values it captures into its own frame. Errors get the span of the innermost
call node they pass through (located on the error path only).
"""
from __future__ import annotations

from . import runtime as rt
from ..analyzer import nodes as N
from ..registry import builtins as R
from .bytecode import compile_subprogram, free_locals, inlinable_hof
from .table import (ABSENT, NODES_PER_TICK, clock_tick, constant_literal, dispatch_table, facts, mangle,
                    misplaced_recur, runtime_table)
from ..runtime.failures import span_from_traceback as _span_from_traceback, to_ptc_error
from ..errors import FailSignal, PtcError, ReturnSignal
from ..runtime.meter import map_cost, seq_cost
from ..values import Map, Vector, hk

HOT_CALLS = 24        # calls of a fn form after which it is compiled
ISLAND_ITEMS = 4096   # items a map/filter call site over a literal fn sees before it runs as a compiled loop
FOR_ISLAND_ITEMS = 512  # items a for/doseq form sees (first collection, then results) before it is compiled


class Layout:
    """Slot assignment for one activation frame."""

    __slots__ = ("slots",)

    def __init__(self):
        self.slots: dict[str, int] = {}

    def slot(self, local: N.Local) -> int:
        s = self.slots.get(local.py)
        if s is None:
            s = self.slots[local.py] = len(self.slots)
        return s

    def slot_of(self, py: str) -> int:
        s = self.slots.get(py)
        if s is None:
            s = self.slots[py] = len(self.slots)
        return s

    def __len__(self):
        return len(self.slots)


def _located(exc: BaseException, span, codes):
    """The PTC error for `exc` passing through a call at `span`: its own span if it has one; else,
    when it was raised inside compiled code (a loop, a hot fn's twin), the failing node's position
    there, as the closure tier would have located it; else `span`. Compiled code of any program
    counts, not only this program's (`codes`): a fn compiled by an earlier evaluation of the session
    fails at its own position too."""
    if isinstance(exc, (ReturnSignal, FailSignal)):
        return exc
    err = to_ptc_error(exc)
    if err.span is None:
        err.span = _span_from_traceback(exc)
    return err.located(span)


def _call0(fn_value, arg_builders, span, codes):
    def call(f):
        try:
            return fn_value()
        except Exception as e:  # noqa: BLE001
            raise _located(e, span, codes) from None
    return call


def _call1(fn_value, arg_builders, span, codes):
    a, = arg_builders

    def call(f):
        x = a(f)
        try:
            return fn_value(x)
        except Exception as e:  # noqa: BLE001
            raise _located(e, span, codes) from None
    return call


def _call2(fn_value, arg_builders, span, codes):
    a, b = arg_builders

    def call(f):
        x = a(f)
        y = b(f)
        try:
            return fn_value(x, y)
        except Exception as e:  # noqa: BLE001
            raise _located(e, span, codes) from None
    return call


def _call3(fn_value, arg_builders, span, codes):
    a, b, c = arg_builders

    def call(f):
        x = a(f)
        y = b(f)
        z = c(f)
        try:
            return fn_value(x, y, z)
        except Exception as e:  # noqa: BLE001
            raise _located(e, span, codes) from None
    return call


def _calln(fn_value, arg_builders, span, codes):
    def call(f):
        args = [a(f) for a in arg_builders]
        try:
            return fn_value(*args)
        except Exception as e:  # noqa: BLE001
            raise _located(e, span, codes) from None
    return call


# `Builder._call` by argument count (`_calln`: any other): each factory's closure holds only what it reads
_CALLS = (_call0, _call1, _call2, _call3)


def _const(v):
    return lambda f: v


def _local(i: int):
    return lambda f: f[i]


_BUILTINS_OF: list = [None, {}]   # [a runtime table, PTC name -> its function there]


def _builtins_of(table: dict) -> dict:
    """The name -> function cache of `table` (`mangle` once per name, not once per node)."""
    if _BUILTINS_OF[0] is not table:
        _BUILTINS_OF[:] = [table, {}]
    return _BUILTINS_OF[1]


class Builder:
    """Builds closures for one program in one environment."""

    def __init__(self, env_globals: dict, host_refs: dict):
        self.g = env_globals
        self.host_refs = host_refs
        self.rt = runtime_table()
        self.builtins = _builtins_of(self.rt)   # PTC name -> its function in self.rt (filled as used)
        self.hofs = facts().inline_hofs  # the builtins `inlinable_hof` may accept a call of
        self.codes: set = set()  # code objects compiled for this program (see _located)
        self.ticks = NODES_PER_TICK   # nodes until the next look at the compile clock

    # ------------------------------------------------------------ entry
    def build_program(self, node: N.Node):
        layout = Layout()
        run = self.build(node, layout)

        def main():
            return run([None] * len(layout))
        return main

    def build(self, node, layout: Layout):
        self.ticks -= 1
        if not self.ticks:
            clock_tick(self)
        return BUILD[type(node)](self, node, layout)

    def builtin(self, name: str):
        """The function of the builtin called `name` in the runtime table."""
        fn = self.builtins.get(name)
        if fn is None:
            fn = self.builtins[name] = self.rt[mangle(name)]
        return fn

    # ------------------------------------------------------------ leaves
    def b_const(self, node, layout):
        return _const(node.value)

    def b_local(self, node, layout):
        return _local(layout.slot(node.local))

    def b_global(self, node, layout):
        ns = self.g["_ns"]
        name = node.name
        return lambda f: ns[name]

    def b_maybe_global(self, node, layout):
        ns = self.g["_ns"]
        name = node.name
        return lambda f: ns.get(name)

    def b_builtin_ref(self, node, layout):
        v = self.builtin(node.name)
        return lambda f: v

    def b_host(self, node, layout):
        v = self.host_refs[node.key]
        return lambda f: v

    def b_data(self, node, layout):
        get, name = self.g["_data"], node.name
        span, codes = node.span, self.codes

        def data(f):
            try:
                return get(name)
            except Exception as e:  # noqa: BLE001
                raise _located(e, span, codes) from None
        return data

    def b_history(self, node, layout):
        hist, n = self.g["_hist"], node.n
        return lambda f: hist(n)

    def b_tool_ref(self, node, layout):
        ref, name = self.g["_tool_ref"], node.name
        return lambda f: ref(name)

    # ------------------------------------------------------------ calls
    def _call(self, fn_value, arg_builders, span):
        """A call of a fixed Python callable with built arguments, located on error."""
        n = len(arg_builders)
        return (_CALLS[n] if n < 4 else _calln)(fn_value, arg_builders, span, self.codes)

    def _build_all(self, nodes, layout) -> list:
        """The builders of `nodes`, in order. A constant or a local, most arguments, is built here
        as `b_const`/`b_local` would (counting toward the compile clock alike), without two calls
        per node."""
        out = []
        for n in nodes:
            if self.ticks > 1:   # (the node that brings the count to zero goes through `build`)
                t = type(n)
                if t is N.Const:
                    self.ticks -= 1
                    out.append(_const(n.value))
                    continue
                if t is N.LocalRef:
                    self.ticks -= 1
                    out.append(_local(layout.slot(n.local)))
                    continue
            out.append(self.build(n, layout))
        return out

    def b_builtin_call(self, node, layout):
        argb = self._build_all(node.args, layout)
        if node.name in self.hofs and len(argb) == 2 and type(node.args[0]) is N.Fn:
            return self._hof_island(node, layout, argb)
        return self._call(self.builtin(node.name), argb, node.span)

    def _hof_island(self, node, layout, argb):
        """`(map (fn [x] ...) coll)` and kin: once the vectors this call site has been given (this
        one included) hold ISLAND_ITEMS items, run over each vector the loop the compiler inlines
        (`bytecode.inline.Inliner._inline_hof`), compiled once; until then, and for other
        collections, call the builtin with the fn (which it compiles when it will call it
        HOT_CALLS times, `registry.hot`). Whether the fn can be a loop body (`inlinable_hof`) is
        asked only then: most call sites never see that many items."""
        fnb, collb = argb
        fn_value = self.builtin(node.name)
        codes, span = self.codes, node.span
        made = []
        seen = [0]   # items of the vectors this call site has been given

        def run(f):
            fn = fnb(f)
            coll = collb(f)
            if type(coll) is Vector and not made:
                seen[0] += len(coll)
                if seen[0] >= ISLAND_ITEMS:
                    self._island_loop(node, layout, made)
            if not made or made[0] is None or type(coll) is not Vector:
                try:
                    return fn_value(fn, coll)
                except Exception as e:  # noqa: BLE001
                    raise _located(e, span, codes) from None
            make, slots, at = made[0]
            values = [f[s] for s in slots]
            values.insert(at, coll)
            return make(*values)()
        return run

    def _island_loop(self, node, layout, made):
        """Compile the loop of `_hof_island`'s call `node` into `made` (once): the loop's factory, the
        slots of the fn's own free locals in `layout`, and where the vector goes among them; None
        when its fn cannot become a loop body (`inlinable_hof`: the builtin is called as before)."""
        if not inlinable_hof(node):
            made.append(None)
            return
        span = node.span
        coll_local = N.Local("coll")
        looped = N.BuiltinCall(node.name, [node.args[0], N.LocalRef(coll_local, span=node.args[1].span)],
                               span=span)
        free = sorted(_free_locals_of(looped))
        slots = [layout.slots[py] for py in free if py != coll_local.py]  # the fn's own free locals
        made.append((compile_subprogram(looped, free, self.host_refs, self.g), slots, free.index(coll_local.py)))
        self.codes.update(made[0][0].codes)

    def b_rt(self, node, layout):
        return self._call(self.rt["_rt_" + node.helper], self._build_all(node.args, layout), node.span)

    def b_prim(self, node, layout):
        op = node.op
        p = R.PRIMITIVES[op]
        if p.inline and type(node.args[0]) is N.Const:
            # folded, as the compiler folds them (it must: `"s" is None` is a SyntaxWarning there)
            v = node.args[0].value
            answer = (v is None or v is False) if op == "not" else (v is None) == (op == "isnil")
            return lambda f: answer
        args = self._build_all(node.args, layout)
        if op == "not":
            a, = args
            return lambda f: (x := a(f)) is None or x is False
        if op == "isnil":
            a, = args
            return lambda f: a(f) is None
        if op == "issome":
            a, = args
            return lambda f: a(f) is not None
        fn = self.rt[R.prim_slot(op)]
        if p.negates is not None:
            inner = self._call(fn, args, node.span)
            return lambda f: not inner(f)
        return self._call(fn, args, node.span)

    def b_call(self, node, layout):
        fnb = self.build(node.fn, layout)
        argb = self._build_all(node.args, layout)
        span, codes = node.span, self.codes
        n = len(argb)
        if n == 1:
            a, = argb

            def call1(f):
                fn = fnb(f)
                x = a(f)
                try:
                    return fn(x)
                except Exception as e:  # noqa: BLE001
                    raise _located(e, span, codes) from None
            return call1

        def call(f):
            fn = fnb(f)
            args = [b(f) for b in argb]
            try:
                return fn(*args)
            except Exception as e:  # noqa: BLE001
                raise _located(e, span, codes) from None
        return call

    def b_tool_call(self, node, layout):
        tool, name = self.g["_tool"], node.name
        argb = [self.build(a, layout) for a in node.args]
        span, codes = node.span, self.codes

        def call(f):
            args = tuple(b(f) for b in argb)
            try:
                return tool(name, args)
            except Exception as e:  # noqa: BLE001
                raise _located(e, span, codes) from None
        return call

    # ------------------------------------------------------------ control
    def b_if(self, node, layout):
        test = self.build(node.test, layout)
        then = self.build(node.then, layout)
        else_ = self.build(node.else_, layout)

        def if_(f):
            t = test(f)
            return then(f) if t is not None and t is not False else else_(f)
        return if_

    def b_do(self, node, layout):
        parts = [self.build(n, layout) for n in node.body]
        *init, last = parts

        def do(f):
            for p in init:
                p(f)
            return last(f)
        return do

    def b_let(self, node, layout):
        binds = []
        for loc, v in node.bindings:
            binds.append((layout.slot(loc), self.build(v, layout)))
        body = self.build(node.body, layout)

        def let(f):
            for i, b in binds:
                f[i] = b(f)
            return body(f)
        return let

    def b_and_or(self, node, layout):
        parts = [self.build(n, layout) for n in node.exprs]
        if type(node) is N.And:
            def and_(f):
                v = True
                for p in parts:
                    v = p(f)
                    if v is None or v is False:
                        return v
                return v
            return and_

        def or_(f):
            v = None
            for p in parts:
                v = p(f)
                if v is not None and v is not False:
                    return v
            return v
        return or_

    def b_terminal(self, node, layout):
        val = self.build(node.value, layout)
        cls = ReturnSignal if node.kind == "return" else FailSignal

        def terminal(f):
            raise cls(val(f))
        return terminal

    def b_def(self, node, layout):
        ns, name, doc = self.g["_ns"], node.name, node.doc
        val = self.build(node.value, layout)
        if node.once:
            ref = rt.VarRef(name)

            def defonce(f):
                if name in ns:
                    return ref
                return rt.rt_def(ns, name, val(f), doc)
            return defonce
        return lambda f: rt.rt_def(ns, name, val(f), doc)

    def b_vector(self, node, layout):
        if (v := constant_literal(node)) is not ABSENT:
            return lambda f: v
        items = self._build_all(node.items, layout)
        cost = seq_cost(len(items))   # charged as it is built, as the compiler's (backends.runtime, literals)
        lit_vec, span = rt.lit_vec, node.span

        def mkvec(f):
            xs = [i(f) for i in items]
            try:
                return lit_vec(xs, cost)
            except PtcError as e:   # the charge refused: at the literal, as the compiled code says
                raise e.located(span) from None
        return mkvec

    def b_set(self, node, layout):
        if (v := constant_literal(node)) is not ABSENT:   # made once, charged nothing, as the compiler's
            return lambda f: v
        items = [self.build(i, layout) for i in node.items]
        cost, span = map_cost(len(items)), node.span

        def mkset(f):
            xs = [i(f) for i in items]
            try:
                return rt.mkset(xs, cost)
            except PtcError as e:   # the charge refused: at the literal, as the compiled code says
                raise e.located(span) from None
        return mkset

    def b_map(self, node, layout):
        if (m := constant_literal(node)) is not ABSENT:
            return lambda f: m
        if all(type(k) is N.Const for k, _v in node.pairs):  # {:a x :b y}: the stored keys are known
            keys = [hk(k.value) for k, _v in node.pairs]
            vals = [self.build(v, layout) for _k, v in node.pairs]
            lit_charge, span = rt.lit_charge, node.span
            cost = map_cost(len(keys))   # charged after its parts, as the compiler's (backends.runtime, literals)

            def mkmap_known(f):
                m = Map(zip(keys, [vb(f) for vb in vals]))
                try:
                    lit_charge(cost)
                except PtcError as e:   # the charge refused: at the literal, as the compiled code says
                    raise e.located(span) from None
                return m
            return mkmap_known
        pairs = [(self.build(k, layout), self.build(v, layout)) for k, v in node.pairs]
        cost, span = map_cost(len(pairs)), node.span

        def mkmap(f):
            parts = [(kb(f), vb(f)) for kb, vb in pairs]
            try:
                rt.lit_charge(cost)
            except PtcError as e:   # the charge refused: at the literal, as the compiled code says
                raise e.located(span) from None
            m = Map()
            for k, v in parts:
                m[hk(k)] = v
            return m
        return mkmap

    def b_juxt(self, node, layout):
        fns = [self.build(n, layout) for n in node.fns]
        return lambda f: rt.juxt(*[b(f) for b in fns])

    # ------------------------------------------------------------ iteration
    def b_for(self, node, layout):
        """`for`/`doseq`: closures, until the form has seen FOR_ISLAND_ITEMS items over its runs (the
        items of its first collection, and the items it made); from then on a compiled loop, given
        the first collection as already evaluated (so nothing is evaluated twice)."""
        c0 = node.clauses[0]
        if c0[0] != "bind":  # pragma: no cover - the analyzer puts a binding first
            return self._for_closures(node, layout)
        first = self.build(c0[2], layout)
        coll_local = N.Local("coll")
        slot = layout.slot(coll_local)
        looped = N.For([("bind", c0[1], N.LocalRef(coll_local, span=c0[2].span), c0[3]), *node.clauses[1:]],
                       node.body, node.collect, span=node.span)
        closures = self._for_closures(looped, layout)
        host_refs, g, codes = self.host_refs, self.g, self.codes
        seen = [0]
        made = []   # (make, slots) once compiled; None when the loop reads a local this frame lacks

        def compile_for():
            free = sorted(_free_locals_of(looped))
            slots = [layout.slots.get(py) for py in free]
            if None in slots:  # pragma: no cover - every free local of the form has a slot by now
                made.append(None)
                return
            made.append((compile_subprogram(looped, free, host_refs, g), slots))
            codes.update(made[0][0].codes)

        def for_(f):
            items = first(f)
            f[slot] = items
            if not made:
                seen[0] += len(items)
                if seen[0] < FOR_ISLAND_ITEMS:
                    out = closures(f)
                    if out is not None:
                        seen[0] += len(out)
                    return out
                compile_for()
            island = made[0]
            if island is None:  # pragma: no cover
                return closures(f)
            make, slots = island
            return make(*[f[s] for s in slots])()
        return for_

    def _for_closures(self, node, layout):
        g = self.g
        clauses = []
        owner = -1
        for c in node.clauses:
            if c[0] == "bind":
                _, item, coll, ds = c
                owner = len(clauses)
                clauses.append(("bind", layout.slot(item), self.build(coll, layout),
                                [(layout.slot(l), self.build(v, layout)) for l, v in ds]))
            elif c[0] == "let":
                clauses.append(("let", [(layout.slot(l), self.build(v, layout)) for l, v in c[1]]))
            else:
                clauses.append((c[0], self.build(c[1], layout), owner))
        body = self.build(node.body, layout)
        collect = node.collect
        n = len(clauses)
        span, codes = node.span, self.codes

        def for_(f):
            if not collect:
                _for_run(clauses, body, n, f, 0, None, g["_m"], 0)
                return None
            m = g["_m"]
            acc = []
            try:
                _for_run(clauses, body, n, f, 0, acc, m, rt.for_cap(m))
                return rt.out_for(acc)
            except Exception as e:  # noqa: BLE001 - located at the for form unless it has a position
                raise _located(e, span, codes) from None
        return for_

    # ------------------------------------------------------------ compiled islands
    b_recur = misplaced_recur   # (every recur is inside a loop or fn compiled by the two below)

    def b_loop(self, node, layout):
        return self._compiled_island(node, layout)

    def _compiled_island(self, node, layout):
        """A subtree compiled to bytecode on first use (loops, recursive or named functions)."""
        free = sorted(_free_locals_of(node))
        slots = [layout.slot_of(py) for py in free]
        host_refs, g, codes = self.host_refs, self.g, self.codes
        made = []

        def island(f):
            if not made:
                made.append(compile_subprogram(node, free, host_refs, g))
                codes.update(made[0].codes)
            return made[0](*[f[s] for s in slots])()
        return island

    def b_fn(self, node, layout):
        # loops, and functions that call themselves (where a closure-tier wrapper would double
        # the Python frames per level of recursion), are compiled at once; the rest start as
        # closures and are compiled when hot
        if node.has_recur or (node.name is not None and _calls_itself(node)):
            return self._compiled_island(node, layout)
        return self._tiered_fn(node, layout)

    def _tiered_fn(self, node: N.Fn, layout):
        free = sorted(free_locals(node))
        outer = []
        inner = Layout()
        for py in free:
            outer.append(layout.slot_of(py))
            inner.slots[py] = len(inner.slots)
        params = []
        for p in node.params:
            params.append(inner.slot(p))
        rest_slot = inner.slot(node.rest) if node.rest else None
        self_slot = inner.slot(node.self_local) if node.self_local is not None else None
        prologue = [(inner.slot(l), self.build(v, inner)) for l, v in node.prologue] if node.prologue else ()
        body = self.build(node.body, inner)
        nparams = len(params)
        g = self.g
        info = _HotInfo(node, free, self)
        label = node.name or "fn"
        param_names = list(node.param_names)
        # the frame: captured values, the fixed arguments, then the other slots (all built by now)
        pad = (None,) * (len(inner.slots) - len(free) - nparams)

        def make_closure(f):
            captured = [f[s] for s in outer]
            compiled = None
            # the closure's attributes (its __dict__), kept here rather than reached through the
            # closure itself, and not referred to by ptc_promote: a fn value refers to itself only
            # when its frame needs it (a named fn), so the others are freed by reference counting,
            # not left to the cycle collector
            attrs = {"ptc_params": param_names}
            me = []

            def ptc_fn(*args):
                nonlocal compiled
                if compiled is not None:
                    return compiled(*args)
                if info.make is not None or info.bump():
                    compiled = info.make(*captured)()
                    attrs["ptc_compiled"] = compiled
                    return compiled(*args)
                n = len(args)
                if n != nparams and (rest_slot is None or n < nparams):
                    want = f"{nparams}" if rest_slot is None else f"at least {nparams}"
                    rt.arity_fail(label, want, args)
                m = g["_m"]
                if m.expired:
                    m.raise_expired()
                frame = [*captured, *args, *pad] if n == nparams else [*captured, *args[:nparams], *pad]
                if rest_slot is not None:
                    frame[rest_slot] = Vector(list(args[nparams:]), None) if n > nparams else None
                if self_slot is not None:
                    frame[self_slot] = me[0]
                for s, b in prologue:
                    frame[s] = b(frame)
                return body(frame)

            def ptc_promote(n, nargs):
                """The function a builtin should call `n` times with `nargs` arguments: the compiled
                twin when those calls would make this fn hot anyway (compiled now, once), else None:
                `ptc_fn` itself (a wrong argument count stays with `ptc_fn` and its own error)."""
                nonlocal compiled
                if compiled is None:
                    if nargs != nparams and (rest_slot is None or nargs < nparams):
                        return None
                    if info.make is None:
                        if info.calls + n < HOT_CALLS:
                            return None
                        info.compile()
                    compiled = info.make(*captured)()
                return compiled   # registry.hot records it as the closure's `ptc_compiled`

            attrs["ptc_promote"] = ptc_promote
            ptc_fn.__dict__ = attrs
            if self_slot is not None:
                me.append(ptc_fn)
            return ptc_fn
        return make_closure


def _for_run(clauses, body, n, f, i, acc, meter, cap):
    """Run the `n` built clauses of a `for` from i, then its body (`Builder.b_for`), collecting at
    most `cap` items into `acc`; returns None, or the binding level a `:while` stopped. (A module
    function, not a closure calling itself: that would be a reference cycle holding the whole `for`.)"""
    if i == n:
        v = body(f)
        if acc is not None:
            acc.append(v)
            if len(acc) > cap:
                rt.for_too_big(cap)
        return None
    c = clauses[i]
    kind = c[0]
    if kind == "bind":
        _, slot, coll, ds = c
        for item in coll(f):
            if meter.expired:
                meter.raise_expired()
            f[slot] = item
            for s, b in ds:
                f[s] = b(f)
            if _for_run(clauses, body, n, f, i + 1, acc, meter, cap) == i:
                break
        return None
    if kind == "let":
        for s, b in c[1]:
            f[s] = b(f)
        return _for_run(clauses, body, n, f, i + 1, acc, meter, cap)
    t = c[1](f)
    if t is not None and t is not False:
        return _for_run(clauses, body, n, f, i + 1, acc, meter, cap)
    return None if kind == "when" else c[2]


class _HotInfo:
    """Call counting for one `fn` form; compiles it once it is hot."""

    __slots__ = ("node", "free", "builder", "calls", "make")

    def __init__(self, node, free, builder):
        self.node, self.free, self.builder = node, free, builder
        self.calls = 0
        self.make = None

    def bump(self) -> bool:
        c = self.calls = self.calls + 1
        if c < HOT_CALLS:
            return False
        self.compile()
        return True

    def compile(self):
        self.make = compile_subprogram(self.node, self.free, self.builder.host_refs, self.builder.g)
        self.builder.codes.update(self.make.codes)


def _calls_itself(fn: N.Fn) -> bool:
    """Does the body of a named fn refer to its own name (as a global, or its self binding)?"""
    name, me = fn.name, fn.self_local
    stack = [fn.body] + [v for _loc, v in fn.prologue]
    while stack:
        n = stack.pop()
        t = type(n)
        if (t is N.GlobalRef or t is N.MaybeGlobal) and n.name == name:
            return True
        if t is N.LocalRef and me is not None and n.local is me:
            return True
        stack.extend(N.children(n))
    return False


def _free_locals_of(node):
    """Free locals of any subtree (wrap it as a fn so the compiler's analysis applies)."""
    if type(node) is N.Fn:
        return free_locals(node)
    wrapper = N.Fn(None, None, [], None, [], node, False, None, [])
    return free_locals(wrapper)


BUILD = dispatch_table(Builder, "b_")   # node kind -> its builder (table.HANDLERS)
