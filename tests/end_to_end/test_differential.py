"""Differential check: every way of running a program gives the same outcome.

Random programs from a seeded generator (below) run in every configuration of

* the back end: tiered closures + bytecode (the default) or whole-program bytecode;
* in-place growth on or off (`values.IN_PLACE_GROWTH`: map hand-over at a last read, vector
  and set steals);
* the inlined map/filter loops and for/doseq forms: at their default thresholds, compiled at
  first sight (`interp.ISLAND_ITEMS = 0`, `interp.FOR_ISLAND_ITEMS = 0`), or never (`compiler.scan.INLINE_HOFS` off, which turns off the
  closure tier's island and the compiler's inline loop alike).

Each must agree with the reference run (tiered, defaults) on the status, the printed value,
the error kind, message and position, and the printed lines.

The programs are the shapes those optimisations are for and the ways they could go wrong:
maps, vectors and sets grown by assoc/dissoc/conj/update/disj in loop/recur and reduce, with
earlier versions kept in locals, vectors, closures and defs and read afterwards; map/filter/
remove/mapv/mapcat with literal fns over small and large (> 4,096 items) vectors; values flowing
through if/do/let/and/or; nested fns; and errors raised part way through a loop.
"""
from __future__ import annotations

import random

import pytest

import ptclisp
from ptclisp.backends import bytecode as compiler
from ptclisp.backends import closures as interp
from ptclisp import values
from ptclisp.pipeline import BACKENDS, evaluate
from ptclisp.pipeline import analyze as analyze_source

# generous: no configuration may fail on a budget the others meet (copying costs more time and memory)
LIMITS = ptclisp.Limits(timeout_ms=10_000, memory_bytes=200_000_000)
PROGRAMS = 300
ISLANDS = ("default", "always", "never")
# the whole-program back end inlines every such loop: ISLAND_ITEMS changes nothing there
CONFIGS = [(b, growth, isl) for b in BACKENDS for growth in (True, False) for isl in ISLANDS
           if not (b == "compiled" and isl == "always")]
REFERENCE = CONFIGS[0]
assert REFERENCE == ("tiered", True, "default")

KEYS = (":a", ":b", ":c", ":d", "0", "1", "5")
BIG = (4100, 5000)   # past interp.ISLAND_ITEMS


class Gen:
    """A random, mostly well-typed PTC program. Types: int, bool, map (values are ints), vec and
    set (of ints), fmap (a zero-argument fn returning a map), any (only read by the result)."""

    def __init__(self, rng: random.Random):
        self.r = rng
        self.n = 0
        self.scope: list[tuple[str, str]] = []   # (name, type), innermost last
        self.counters: list[str] = []             # int locals that change per iteration (loop i, fn x)

    # -------------------------------------------------------------- helpers
    def chance(self, p: float) -> bool:
        return self.r.random() < p

    def pick(self, options):
        return self.r.choice(options)

    def fresh(self, prefix: str) -> str:
        self.n += 1
        return f"{prefix}{self.n}"

    def var(self, t: str):
        names = [n for n, ty in self.scope if ty == t]
        return self.pick(names) if names else None

    def bound(self, binds, thunk, counters=()):
        """`thunk()` with `binds` [(name, type)] in scope (and `counters` among the counters)."""
        self.scope.extend(binds)
        self.counters.extend(counters)
        try:
            return thunk()
        finally:
            del self.scope[len(self.scope) - len(binds):]
            del self.counters[len(self.counters) - len(counters):]

    def key(self, d):
        if self.counters and self.chance(0.4):
            return self.pick([self.pick(self.counters), f"(mod {self.pick(self.counters)} 4)"])
        return self.pick(KEYS) if d <= 0 or self.chance(0.8) else self.int(d - 1)

    def expr(self, t: str, d: int) -> str:
        v = self.var(t)
        if v is not None and self.chance(0.35):
            return v
        return getattr(self, t)(d)

    # -------------------------------------------------------------- ints and booleans
    def int(self, d: int) -> str:
        leaves = [lambda: str(self.r.randint(-2, 12)), lambda: self.var("int") or "3",
                  lambda: f"(count {self.expr(self.pick(['map', 'vec', 'set']), 0)})"]
        if self.counters:
            leaves.append(lambda: self.pick(self.counters))
            if self.chance(0.05):
                return self.danger(d)
        if d <= 0:
            return self.pick(leaves)()
        e = lambda t: self.expr(t, d - 1)  # noqa: E731
        options = leaves + [
            lambda: f"(get {e('map')} {self.key(d)} 0)",
            lambda: f"({self.pick(KEYS[:4])} {e('map')} 0)",
            lambda: f"(or (get {e('map')} {self.key(d)}) {e('int')})",
            lambda: f"({self.pick(['+', '-', '*', 'max'])} {e('int')} {e('int')})",
            lambda: f"({self.pick(['inc', 'dec'])} {e('int')})",
            lambda: f"(mod {e('int')} 7)",
            lambda: f"(if {e('bool')} {e('int')} {e('int')})",
            lambda: self.let('int', d),
            lambda: f"(reduce + 0 {e('vec')})",
            lambda: f"(reduce (fn [acc x] (+ acc x)) 0 {e('vec')})",
            lambda: f"(count {self.hof(['filter', 'remove', 'filterv'], d, big=True)})",
            lambda: f"(reduce + 0 {self.hof(['map', 'mapv'], d, big=True)})",
            lambda: f"(count {self.comprehension(d)})",
            lambda: f"(nth {e('vec')} {e('int')} -1)",
            lambda: f"(or (first {e('vec')}) 0)",
            lambda: f"({self.fn1('int', d)} {e('int')})",
            lambda: f"(do (println \"int\" {e('int')}) {e('int')})",
            lambda: self.loop('int', d),
            lambda: self.danger(d),
        ]
        return self.pick(options)()

    def danger(self, d: int) -> str:
        """An int that fails for one value of a counter (an error part way through a loop), or
        an arithmetic on a map lookup that may be nil."""
        if self.counters and self.chance(0.85):
            c = self.pick(self.counters)
            k = self.r.randint(0, 40) if not self.chance(0.2) else self.pick(BIG) - self.r.randint(1, 50)
            return f"(quot 100 (- {c} {k}))"
        return f"(inc (get {self.expr('map', max(d - 1, 0))} {self.key(d)}))"

    def bool(self, d: int) -> str:
        e = lambda t: self.expr(t, max(d - 1, 0))  # noqa: E731
        options = [
            lambda: f"({self.pick(['<', '>', '=', '<='])} {e('int')} {e('int')})",
            lambda: f"({self.pick(['even?', 'odd?', 'pos?'])} {e('int')})",
            lambda: f"(contains? {e('map')} {self.key(d)})",
            lambda: f"(contains? {e('set')} {e('int')})",
            lambda: f"(empty? {e(self.pick(['vec', 'map', 'set']))})",
        ]
        if d > 0:
            options += [
                lambda: f"({self.pick(['and', 'or'])} {e('bool')} {e('bool')})",
                lambda: f"(not {e('bool')})",
            ]
        return self.pick(options)()

    # -------------------------------------------------------------- collections
    def map(self, d: int) -> str:
        leaves = [lambda: "{}", lambda: "{:a 1 :b 2}", lambda: f"{{:c {self.int(0)} 1 2}}",
                  lambda: self.var("map") or "{:d 4}"]
        if self.var("fmap"):
            leaves.append(lambda: f"({self.var('fmap')})")
        if d <= 0:
            return self.pick(leaves)()
        m = lambda: self.expr("map", d - 1)  # noqa: E731
        options = leaves + [
            lambda: self.grow_map(m(), d),
            lambda: self.grow_map(m(), d),
            lambda: f"(if {self.bool(d - 1)} {m()} {m()})",
            lambda: f"(and {m()} {self.grow_map(m(), d)})",
            lambda: f"(do {self.grow_map(m(), d)} {m()})",
            lambda: f"(merge {m()} {m()})",
            lambda: f"(into {{}} (map (fn [x] [x (* x 2)]) {self.expr('vec', d - 1)}))",
            lambda: f"(zipmap {self.expr('vec', d - 1)} {self.expr('vec', d - 1)})",
            lambda: self.let("map", d),
            lambda: self.loop("map", min(d, 3)),
            lambda: self.reduce("map", min(d, 3)),
            lambda: f"((fn [m] {self.bound([('m', 'map')], lambda: self.grow_map('m', d))}) {m()})",
        ]
        return self.pick(options)()

    def grow_map(self, m: str, d: int) -> str:
        """One extension of the map `m` (usually a variable: a candidate for in-place growth)."""
        k, i = self.key(d), lambda: self.expr("int", d - 1)
        return self.pick([
            lambda: f"(assoc {m} {k} {i()})",
            lambda: f"(assoc {m} {k} (count {m}))",
            lambda: f"(assoc {m} {k} (inc (get {m} {k} 0)))",
            lambda: f"(dissoc {m} {k})",
            lambda: f"(conj {m} [{k} {i()}])",
            lambda: f"(update {m} {k} (fnil inc 0))",
            lambda: f"(update {m} {k} (fnil + 0) {i()})",
            lambda: f"(update {m} {k} (fn [v] (+ (or v 0) (count {m}))))",
            lambda: f"(if {self.bool(d - 1)} (assoc {m} {k} {i()}) {m})",
            lambda: f"(let [m2 (assoc {m} {k} {i()})] (if {self.bool(d - 1)} {m} m2))",
            lambda: f"(merge {m} {{{k} {i()}}})",
        ])()

    def vec(self, d: int) -> str:
        leaves = [lambda: "[]", lambda: "[1 2 3]", lambda: f"(range {self.r.randint(0, 40)})",
                  lambda: self.var("vec") or "[4 5]"]
        if d <= 0:
            return self.pick(leaves)()
        v = lambda: self.expr("vec", d - 1)  # noqa: E731
        i = lambda: self.expr("int", d - 1)  # noqa: E731
        options = leaves + [
            lambda: f"(conj {v()} {i()})",
            lambda: f"(into {v()} [{i()} {i()}])",
            lambda: f"(if {self.bool(d - 1)} (conj {v()} {i()}) {v()})",
            lambda: self.hof(["mapv", "filterv", "mapcat"], d),
            lambda: f"(vec {self.hof(['map', 'filter', 'remove'], d)})",
            lambda: f"(take 6 {self.hof(['map', 'mapv', 'mapcat', 'filter', 'remove'], d, big=True)})",
            lambda: self.comprehension(d),
            lambda: f"(vec (vals {self.expr('map', d - 1)}))",
            lambda: f"(sort {v()})",
            lambda: self.let("vec", d),
            lambda: self.loop("vec", d),
            lambda: self.reduce("vec", d),
        ]
        return self.pick(options)()

    def hof(self, names, d: int, big=False) -> str:
        """`(map|mapv|filter|filterv|remove (fn [x] ...) coll)`: the shape inlined as a loop. With
        `big`, sometimes over a large vector (an island at first sight), with a cheap body (no
        loop per item) and a caller that keeps the result out of further growth; never inside a
        loop or fn, where it would run again per item (the run time)."""
        name = self.pick(names)
        result = {"map": "int", "mapv": "int", "mapcat": "vec"}.get(name, "bool")
        if big and not self.counters and self.chance(0.3):   # not per item of a loop or fn: time
            return f"({name} {self.fn1(result, min(d, 1 if result == 'vec' else 2))} (range {self.pick(BIG)}))"
        v = self.var("vec")
        if v is not None and self.chance(0.25):
            # the fn extends the very vector being walked
            x = self.fresh("x")
            grown = f"({self.pick(['conj', 'into'])} {v} {self.pick([x, f'[{x} {x}]'])})"
            body = {"int": f"(count {grown})", "vec": grown}.get(result, f"(odd? (count {grown}))")
            return f"({name} (fn [{x}] {body}) {v})"
        if result == "vec" and self.chance(0.2):
            # nil and sets are spliced too; a number is refused
            x = self.fresh("x")
            return f"({name} (fn [{x}] (when (odd? {x}) #{{{x}}})) {self.expr('vec', d - 1)})"
        return f"({name} {self.fn1(result, d)} {self.expr('vec', d - 1)})"

    def comprehension(self, d: int) -> str:
        """`(for [x coll :when test] body)` over a small vector, as a vector of ints."""
        x, coll = self.fresh("x"), self.expr("vec", d - 1)
        when = self.bound([(x, "int")], lambda: f" :when {self.bool(d - 1)}" if self.chance(0.3) else "",
                          counters=[x])
        body = self.bound([(x, "int")], lambda: self.expr("int", d - 1), counters=[x])
        if coll in (n for n, t in self.scope if t == "vec") and self.chance(0.4):
            body = f"(count (conj {coll} {x}))"   # extends the vector being walked
        return f"(vec (for [{x} {coll}{when}] {body}))"

    def set(self, d: int) -> str:
        leaves = [lambda: "#{}", lambda: "#{1 2}", lambda: self.var("set") or "#{3}"]
        if d <= 0:
            return self.pick(leaves)()
        s = lambda: self.expr("set", d - 1)  # noqa: E731
        i = lambda: self.expr("int", d - 1)  # noqa: E731
        options = leaves + [
            lambda: f"(conj {s()} {i()})", lambda: f"(disj {s()} {i()})",
            lambda: f"(into {s()} {self.expr('vec', d - 1)})", lambda: f"(set {self.expr('vec', d - 1)})",
            lambda: self.loop("set", d), lambda: self.reduce("set", d),
        ]
        return self.pick(options)()

    def grow(self, t: str, acc: str, d: int) -> str:
        if t == "map":
            return self.grow_map(acc, d)
        i = self.expr("int", d - 1)
        if t == "vec":
            return self.pick([f"(conj {acc} {i})", f"(into {acc} [{i}])", f"(if (odd? {i}) {acc} (conj {acc} {i}))"])
        if t == "set":
            return self.pick([f"(conj {acc} {i})", f"(disj {acc} {i})", f"(conj {acc} {i} {i})"])
        return f"(+ {acc} {i})"

    # -------------------------------------------------------------- binding forms
    def fn1(self, result: str, d: int) -> str:
        """A literal one-parameter fn over ints (the shape map/filter inline as a loop)."""
        x = self.fresh("x")
        body = self.bound([(x, "int")], lambda: self.expr(result, d - 1), counters=[x])
        if self.chance(0.15):
            body = f"(do (when (= {x} {self.r.randint(0, 40)}) (println \"at\" {x})) {body})"
        if result == "int" and self.chance(0.1):
            return f"#(+ % {self.r.randint(0, 9)})"
        return f"(fn [{x}] {body})"

    def let(self, t: str, d: int) -> str:
        binds, parts = [], []
        for _ in range(self.r.randint(1, 3)):
            bt = self.pick(["map", "map", "vec", "set", "int"])
            name = self.fresh(bt[0])
            val = self.bound(binds, lambda: self.expr(bt, d - 1))
            binds.append((name, bt))
            parts.append(f"{name} {val}")
        body = self.bound(binds, lambda: self.expr(t, d - 1))
        return f"(let [{' '.join(parts)}] {body})"

    def loop(self, t: str, d: int) -> str:
        """`acc` grown over `n` iterations, maybe with an observer of its earlier versions."""
        i, acc, n = self.fresh("i"), self.fresh("acc"), self.r.randint(0, 60)
        init = self.expr(t if t != "int" else "map", d - 1)
        at = t if t != "int" else "map"
        binds = [(i, "int"), (acc, at)]
        grow = self.bound(binds, lambda: self.grow(at, acc, d), counters=[i])
        obs, obs_init, obs_next, out = None, "", "", acc
        kind = self.pick(["none", "none", "seen", "sizes", "closure"])
        if kind == "seen":
            obs = self.fresh("seen")
            obs_init, obs_next = f" {obs} []", f" (conj {obs} {acc})"
            out = f"(do (mapv count {obs}) {acc})" if t != "int" else f"(reduce + (mapv count {obs}))"
        elif kind == "sizes":
            obs = self.fresh("sizes")
            obs_init, obs_next = f" {obs} []", f" (conj {obs} (count {acc}))"
            out = acc if t != "int" else f"(reduce + 0 {obs})"
        elif kind == "closure":
            obs = self.fresh("f")
            k = self.r.randint(0, n)
            obs_init, obs_next = f" {obs} nil", f" (if (= {i} {k}) (fn [] {acc}) {obs})"
            out = f"(if {obs} ({obs}) {acc})" if t != "int" else f"(count (if {obs} ({obs}) {acc}))"
        if t == "int" and kind == "none":
            out = f"(count {acc})"
        step = f"(recur (inc {i}) {grow}{obs_next})"
        return f"(loop [{i} 0 {acc} {init}{obs_init}] (if (< {i} {n}) {step} {out}))"

    def reduce(self, t: str, d: int) -> str:
        acc, x = self.fresh("acc"), self.fresh("x")
        grow = self.bound([(acc, t), (x, "int")], lambda: self.grow(t, acc, d), counters=[x])
        init = self.expr(t, d - 1)
        if t == "vec" and init in (n for n, ty in self.scope if ty == "vec") and self.chance(0.5):
            coll = init   # folds over the vector it starts from and extends
        else:
            coll = f"(range {self.r.randint(0, 60)})" if self.chance(0.7) else self.expr("vec", d - 1)
        return f"(reduce (fn [{acc} {x}] {grow}) {init} {coll})"

    # -------------------------------------------------------------- whole programs
    def program(self) -> str:
        lines, result = [], []
        for _ in range(self.r.randint(0, 2)):
            t = self.pick(["map", "vec", "set"])
            g = self.fresh("g")
            lines.append(f"(def {g} {self.expr(t, 2)})")
            self.scope.append((g, t))
            result.append(g)
        if self.chance(0.4):
            h = self.fresh("h")
            body = self.bound([("m", "map"), ("x", "int")], lambda: self.grow_map("m", 2), counters=["x"])
            lines.append(f"(defn {h} [m x] {body})")
            result.append(f"({h} {self.var('map') or '{}'} 3)")
        binds = []
        for _ in range(self.r.randint(2, 6)):
            t = self.pick(["map", "map", "map", "vec", "set", "int", "fmap", "any"])
            name = self.fresh(t[0])
            if t == "fmap":
                val = f"(fn [] {self.expr('map', 1)})"
                result.append(f"({name})")
            elif t == "any":
                val = self.loop(self.pick(["map", "vec", "set"]), 3)
                result.append(name)
            else:
                val = self.expr(t, self.r.randint(1, 4))
                result.append(name)
            binds.append(f"{name} {val}")
            self.scope.append((name, t))
        result.append(self.expr(self.pick(["map", "vec", "int"]), 3))
        bindings = "\n      ".join(binds)
        lines.append(f"(let [{bindings}]\n  [{' '.join(result)}])")
        return "\n".join(lines)


def program(seed: int) -> str:
    return Gen(random.Random(seed)).program()


def outcome(src: str, backend: str):
    s = ptclisp.Session(limits=LIMITS)
    r = evaluate(s.env, src, s.limits, backend=backend)
    err = r.error
    return (r.status, None if r.status == "error" else ptclisp.pr_str(r.value),
            err and (err.kind, err.message, err.span and (err.span.line, err.span.col)), tuple(r.prints))


def run_in(config, src: str, monkeypatch):
    backend, growth, islands = config
    with monkeypatch.context() as mp:
        mp.setattr(values, "IN_PLACE_GROWTH", growth)
        if islands == "always":
            mp.setattr(interp, "ISLAND_ITEMS", 0)
            mp.setattr(interp, "FOR_ISLAND_ITEMS", 0)
        elif islands == "never":
            mp.setattr(compiler.scan, "INLINE_HOFS", False)
        return outcome(src, backend)


@pytest.mark.parametrize("seed", range(PROGRAMS))
def test_every_configuration_agrees(seed, monkeypatch):
    src = program(seed)
    want = run_in(REFERENCE, src, monkeypatch)
    assert want[2] is None or want[2][0] != "internal_error", (src, want)
    for config in CONFIGS[1:]:
        got = run_in(config, src, monkeypatch)
        assert got == want, f"{config} disagrees with {REFERENCE} on\n{src}\n got: {got}\nwant: {want}"


def test_the_generator_covers_values_errors_and_prints(monkeypatch):
    # a guard on the generator itself: most programs give a value, some fail part way, some print
    outs = [run_in(REFERENCE, program(seed), monkeypatch) for seed in range(0, PROGRAMS, 3)]
    kinds = {o[2][0] for o in outs if o[2]}
    assert sum(o[0] == "ok" for o in outs) >= len(outs) // 2
    assert {"arithmetic_error", "type_error"} <= kinds
    assert any(o[3] for o in outs)


# ------------------------------------------------------------------ the switch itself

def _emitted_names(src: str) -> set:
    """Every global name the compiled code of `src` reads."""
    node, host_refs = analyze_source(src, ptclisp.Session().env.analyzer_env(), LIMITS)
    code, _consts, _meta = compiler.compile_node(node, host_refs)
    stack, out = [code], set()
    while stack:
        co = stack.pop()
        out.update(co.co_names)
        stack.extend(c for c in co.co_consts if hasattr(c, "co_code"))
    return out


def test_with_the_switch_off_no_map_is_handed_over(monkeypatch):
    src = "(loop [i 0 m {}] (if (< i 30) (recur (inc i) (assoc m i i)) m))"
    assert "_assoc_owned" in _emitted_names(src)
    monkeypatch.setattr(values, "IN_PLACE_GROWTH", False)
    assert "_assoc_owned" not in _emitted_names(src)


@pytest.mark.parametrize("growth", [True, False])
def test_the_switch_decides_whether_vectors_and_sets_are_stolen(growth, monkeypatch):
    monkeypatch.setattr(values, "IN_PLACE_GROWTH", growth)
    tok = object()
    prev = values.set_owner_token(tok)
    try:
        v, s = values.Vector([1], tok), values.Set({values.hk(1): 1}, tok)
        v2, s2 = v.conj(2), s.conj(2)
        assert (v._items is None, s._d is None) == (growth, growth)   # stale: its storage was taken
        assert (list(v), s.members(), list(v2), s2.members()) == ([1], [1], [1, 2], [1, 2])
    finally:
        values.set_owner_token(prev)


# ------------------------------------------------------------------ errors are located by the form, not the tier

TIERS = {
    "tiered": ("tiered", {}),
    "compiled": ("compiled", {}),
    "loops at first sight": ("tiered", {"ISLAND_ITEMS": 0, "FOR_ISLAND_ITEMS": 0}),
    "no inline loops": ("tiered", {"INLINE_HOFS": False}),
    "fns compiled at first call": ("tiered", {"HOT_CALLS": 1}),
}
BIGV = "(def xs (vec (range 5000)))\n"

# each fails inside code that one configuration or another runs as closures, as a compiled loop,
# as a hot fn's compiled twin or as a promoted fn a builtin calls
FAILING = [
    (BIGV + "(map (fn [x] (if (= x 4000) (+ x :a) x)) xs)", "type_error", (2, 29)),
    (BIGV + "(mapv (fn [x]\n  (inc (get {:a 1} x)))\n xs)", "type_error", (3, 3)),
    (BIGV + '(filter (fn [x] (< x "s")) xs)', "type_error", (2, 17)),
    (BIGV + "(remove (fn [x] (zero? (mod 10 (- x 4000)))) xs)", "arithmetic_error", (2, 24)),
    (BIGV + "(map (fn [x] (:a x)) xs)\n(mapv (fn [x]\n   (first x)) xs)", "type_error", (4, 4)),
    ("(defn g [x] (/ 1 (- x 10)))\n(loop [i 0 acc 0] (if (< i 20) (recur (inc i) (+ acc (g i))) acc))",
     "arithmetic_error", (1, 13)),
    ("(def xs (vec (range 100)))\n(reduce (fn [a x] (+ a (if (= x 50) (:k x) x))) 0 xs)", "type_error", (2, 19)),
    ("(defn h [m] (assoc m :a (inc (:b m))))\n(map h [{:b 1} {:b 2} {}])", "type_error", (1, 25)),
    ("(let [f (fn [x] (mod x 0))]\n  (mapv f (vec (range 40))))", "arithmetic_error", (1, 17)),
    ("(for [x (range 10) y [1 0]] (quot x y))", "arithmetic_error", (1, 29)),
    ("(def n (vec (range 600)))\n(for [x n :let [y (- 599 x)]]\n  (quot x y))", "arithmetic_error", (3, 3)),
    ("(doseq [x (vec (range 700))]\n  (when (= x 650) (inc :a)))", "type_error", (2, 19)),
    ("(defn k [x] (count x))\n(map (fn [i] (k i)) (vec (range 50)))", "type_error", (1, 13)),
    ("(defn deep [x] (inc x))\n(defn mid [x] (deep x))\n(mapv (fn [x] (mid (when (< x 35) x))) (vec (range 40)))",
     "type_error", (1, 16)),
    ("(defn f [x] (map (fn [y] (+ y x)) [1 2 3]))\n(map f (conj (vec (range 30)) nil))", "type_error", (1, 26)),
    ("(sort-by (fn [m]\n  (- (:k m))) [{:k 1} {:k nil}])", "type_error", (2, 3)),
    ("(map (fn [x] x) 5)", "type_error", (1, 1)),
    (BIGV + "(mapcat (fn [x] (if (= x 4500) x [x])) xs)", "type_error", (2, 1)),
    (BIGV + "(count (mapcat (fn [x]\n  [(quot 7 (- x 4200))]) xs))", "arithmetic_error", (3, 4)),
    ("(defn f [a b] (+ a b))\n(map f (vec (range 40)))", "arity_mismatch", (2, 1)),
]


@pytest.mark.parametrize("src,kind,where", FAILING)
def test_an_error_is_located_the_same_on_every_tier(src, kind, where, monkeypatch):
    for label, (backend, settings) in TIERS.items():
        with monkeypatch.context() as mp:
            for name, value in settings.items():
                mp.setattr(compiler.scan if name == "INLINE_HOFS" else interp, name, value)
            s = ptclisp.Session(limits=LIMITS)
            err = evaluate(s.env, src, s.limits, backend=backend).error
        assert err is not None and (err.kind, (err.span.line, err.span.col)) == (kind, where), (label, err)
