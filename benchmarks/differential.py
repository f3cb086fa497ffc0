"""Differential programs: every configuration of the back ends must give the general path's outcome.

`CaseGen(random.Random(seed)).case()` makes one case: a few evaluations for one Session (helpers
defined in the first, redefined in a later one), each run 1, 3 or 5 times, under limits that are
sometimes tight. The programs are the shapes the compiler rewrites (compiler/inline.py, the int
specialiser, in-place and written-out growth, the islands, hot fn twins, the program cache):
recursion and mutual recursion; loop/recur with int, float and bignum accumulators; quot, mod,
rem and arithmetic chains over negatives, zero and numbers past 2^63; chained comparisons;
and/or/when/cond/case; closures capturing loop variables; higher-order functions given fn
values; maps and vectors grown while another name still holds them; get/get-in/keyword probes;
string fast paths; pmap; errors raised part way.

`outcomes(case, config)` runs a case under one configuration (`CONFIGS`) and gives, per
evaluation: status, printed value, error kind, message and position, the printed lines and the
bytes charged (the meter's `allocated`). `check(case)` compares every configuration with the
general path (`ptclisp.general_path()`) and returns the differences (an internal error anywhere is
one). Charges are compared exactly. Not compared: a run that ends on the deadline or in exhausted
recursion (`_incomparable`: the machine and the tier decide those). A failing pmap is compared in
full: its workers are taken in input order and each has a fixed share of the memory budget
(ptclisp/parallel.py), so which failure it reports and what it printed do not depend on timing.

`shrink(case, still_fails)` makes a failing case small: it drops evaluations and runs, then
replaces subforms by their parts or by a leaf while the difference remains.

Used by benchmarks/fuzz.py (`--differential`, the campaign command) and tests/test_general_path.py.
"""
from __future__ import annotations

import contextlib
import random
import re
import sys

import ptclisp
from ptclisp.backends import closures as interp
from ptclisp import pipeline
from ptclisp.runtime.meter import Meter

# ------------------------------------------------------------------ charges

_METERS: list = []


class _RecordingMeter(Meter):
    """The session's Meter, remembered so its charges can be read after the evaluation."""

    __slots__ = ()

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        _METERS.append(self)


@contextlib.contextmanager
def _recording():
    saved = pipeline.Meter
    pipeline.Meter = _RecordingMeter
    try:
        yield
    finally:
        pipeline.Meter = saved


# ------------------------------------------------------------------ configurations

def _settings(pairs):
    """Each (module, name, value) of `pairs` set within the block (ptclisp.fastpaths.settings)."""
    from ptclisp.fastpaths import settings
    return settings(pairs)


EAGER = ((interp, "HOT_CALLS", 1), (interp, "ISLAND_ITEMS", 0), (interp, "FOR_ISLAND_ITEMS", 0))

# name -> (backend, the context it runs in)
CONFIGS = {
    "general": ("tiered", ptclisp.general_path),
    "default": ("tiered", contextlib.nullcontext),
    "compiled": ("compiled", contextlib.nullcontext),
    "eager": ("tiered", lambda: _settings(EAGER)),
    "compiled-general": ("compiled", ptclisp.general_path),
}
REFERENCE = "general"


class Case:
    """Evaluations for one Session: [(source, runs)], under `limits` (a dict of Limits fields)."""

    __slots__ = ("evals", "limits")

    def __init__(self, evals, limits):
        self.evals = [(src, runs) for src, runs in evals]
        self.limits = dict(limits)

    def text(self) -> str:
        lines = [f";; limits {self.limits}"] if self.limits else []
        for i, (src, runs) in enumerate(self.evals):
            lines.append(f";; evaluation {i + 1}, run {runs} time(s)\n{src}")
        return "\n".join(lines)


def _outcome(r, meter) -> tuple:
    e = r.error
    value = None
    if r.status != "error":
        try:
            value = ptclisp.pr_str(r.value)
        except Exception as exc:  # noqa: BLE001 - a value that cannot print is itself an outcome
            value = f"<unprintable {type(exc).__name__}>"
    return (r.status, value, e and e.kind, e and e.message, e and e.span and (e.span.line, e.span.col),
            tuple(r.prints), meter.allocated if meter is not None else None)


def _incomparable(o) -> bool:
    """An outcome the machine decides rather than the program: the deadline, or exhausted
    recursion (the closure tier spends more Python frames per PTC call than compiled code, so how
    deep a program may recurse differs between tiers by design)."""
    return o[2] in ("timeout", "compile_timeout", "parallel_timeout") \
        or (o[2] == "memory_exceeded" and (o[3] or "").startswith("recursion too deep"))


def outcomes(case: Case, config: str) -> list:
    """The outcome of every evaluation (every run) of `case` under `config`."""
    backend, ctx = CONFIGS[config]
    out = []
    with ctx(), _recording():
        s = ptclisp.Session(limits=ptclisp.Limits(**case.limits))
        for src, runs in case.evals:
            for _ in range(runs):
                del _METERS[:]
                r = pipeline.evaluate(s.env, src, s.limits, backend=backend)
                out.append(_outcome(r, _METERS[0] if _METERS else None))
    return out


def check(case: Case, configs=None) -> list:
    """[(config, evaluation index, want, got)] for every outcome that differs from the general
    path's, and [(config, index, None, got)] for an internal error."""
    want = outcomes(case, REFERENCE)
    diffs = [(REFERENCE, i, None, o) for i, o in enumerate(want) if o[2] == "internal_error"]
    for name in configs or CONFIGS:
        if name == REFERENCE:
            continue
        got = outcomes(case, name)
        for i, (w, g) in enumerate(zip(want, got)):
            if g[2] == "internal_error":
                diffs.append((name, i, None, g))
            elif w != g and not (_incomparable(w) or _incomparable(g)):
                diffs.append((name, i, w, g))
    return diffs


# ------------------------------------------------------------------ the generator

INTS = ["0", "1", "-1", "2", "3", "-3", "7", "10", "-10", "100", "255", "1000", "4611686018427387903",
        "-4611686018427387904", "9223372036854775807", "-9223372036854775808", "9223372036854775808",
        "18446744073709551617", "123456789012345678901234567890", "2147483647", "-2147483648", "4294967296"]
FLOATS = ["0.5", "-0.5", "1.5", "0.0", "-0.0", "2.0", "1e300", "3.25"]
ODD = ['"a"', "nil", ":k", "[1 2]", "{:a 1}", "true"]
KEYS = [":a", ":b", ":c", '"a"', '"b"', "0", "1"]
SEPS = ['","', '""']
STR_FNS = ["clojure.string/upper-case", "clojure.string/lower-case", "clojure.string/trim"]
NAMEABLE = [":kw", '"s"']
STRS = ['""', '"a"', '"Hello"', '" x y "', '"a,b,c"', '"ABC"', '"ünï"']


class CaseGen:
    """A random case (see the module docstring). `rng` is a `random.Random`."""

    def __init__(self, rng: random.Random):
        self.r = rng
        self.n = 0
        self.ints: list = []     # int locals in scope
        self.any: list = []      # other locals in scope
        self.fns: list = []      # (name, arity) of defined one-int functions

    def pick(self, xs):
        return self.r.choice(xs)

    def chance(self, p) -> bool:
        return self.r.random() < p

    def fresh(self, base="v") -> str:
        self.n += 1
        return f"{base}{self.n}"

    @contextlib.contextmanager
    def scope(self, ints=(), others=()):
        self.ints.extend(ints)
        self.any.extend(others)
        try:
            yield
        finally:
            del self.ints[len(self.ints) - len(ints):]
            del self.any[len(self.any) - len(others):]

    # -------------------------------------------------------------- numbers
    def leaf(self) -> str:
        if self.ints and self.chance(0.55):
            return self.pick(self.ints)
        if self.chance(0.08):
            return self.pick(FLOATS)
        if self.chance(0.04):
            return self.pick(ODD)
        return self.pick(INTS[:10] if self.chance(0.7) else INTS)

    def num(self, d: int) -> str:
        if d <= 0 or self.chance(0.25):
            return self.leaf()
        e = lambda: self.num(d - 1)  # noqa: E731
        k = self.r.randrange(16)
        if k < 4:
            op = self.pick(["+", "-", "*", "+", "-"])
            args = " ".join(e() for _ in range(self.pick([1, 2, 2, 2, 3])))
            return f"({op} {args})"
        if k < 6:
            return f"({self.pick(['quot', 'mod', 'rem'])} {e()} {self.pick([self.leaf(), e(), '3', '-7', '10'])})"
        if k == 6:
            return f"({self.pick(['inc', 'dec', 'abs', '-'])} {e()})"
        if k == 7:
            return f"({self.pick(['max', 'min'])} {e()} {e()})"
        if k == 8:
            return f"(* {e()} {self.pick(['1000', '-3', '2147483647', '37', '4611686018427387903'])})"
        if k == 9:
            return f"(mod (* {e()} {self.pick(['37', '1000', '2147483647'])}) {self.pick(['101', '7', '-5'])})"
        if k == 10:
            return f"(if {self.test(d - 1)} {e()} {e()})"
        if k == 11 and self.fns:
            name, arity = self.pick(self.fns)
            return f"({name} {' '.join(e() for _ in range(arity))})"
        if k == 12:
            return f"(count {self.coll(d - 1)})"
        if k == 13:
            return f"(get {self.map_(d - 1)} {self.pick(KEYS)} {self.leaf()})"
        if k == 14:
            return self.cond(d - 1)
        return f"(let [{(x := self.fresh('x'))} {e()}] {self.with_ints([x], lambda: self.num(d - 1))})"

    def with_ints(self, names, thunk):
        with self.scope(ints=names):
            return thunk()

    def test(self, d: int) -> str:
        e = lambda: self.num(max(d - 1, 0))  # noqa: E731
        k = self.r.randrange(9)
        if k < 3:
            args = " ".join(e() for _ in range(self.pick([2, 2, 3])))
            return f"({self.pick(['<', '>', '<=', '>=', '=', 'not='])} {args})"
        if k == 3:
            return f"({self.pick(['zero?', 'pos?', 'neg?', 'even?', 'odd?'])} {e()})"
        if k == 4 and d > 0:
            return f"({self.pick(['and', 'or'])} {self.test(d - 1)} {self.test(d - 1)})"
        if k == 5 and d > 0:
            return f"(not {self.test(d - 1)})"
        if k == 6:
            return f"(= {self.string(d - 1)} {self.pick(STRS)})"
        if k == 7:
            return f"(contains? {self.map_(d - 1)} {self.pick(KEYS)})"
        return f"(nil? (get {self.map_(d - 1)} {self.pick(KEYS)}))"

    def cond(self, d: int) -> str:
        e = lambda: self.num(max(d - 1, 0))  # noqa: E731
        k = self.r.randrange(4)
        if k == 0:
            return f"(cond {self.test(d)} {e()} {self.test(d)} {e()} :else {e()})"
        if k == 1:
            return f"(case {e()} 0 {e()} 1 {e()} (2 3) {e()} {e()})"
        if k == 2:
            return f"(or (when {self.test(d)} {e()}) {e()})"
        return f"(and {self.test(d)} {e()})"

    # -------------------------------------------------------------- collections and strings
    def coll(self, d: int) -> str:
        if self.any and self.chance(0.3):
            return self.pick(self.any)
        if d <= 0:
            return self.pick(["[]", "[1 2 3]", "(range 5)", "[-1 0 9223372036854775808]", "{:a 1}"])
        k = self.r.randrange(6)
        if k == 0:
            return f"(mapv {self.fn_value(d)} {self.coll(d - 1)})"
        if k == 1:
            return f"(filterv {self.pred_value(d)} {self.coll(d - 1)})"
        if k == 2:
            return f"(vec (map {self.fn_value(d)} (range {self.r.randint(0, 12)})))"
        if k == 3:
            return f"(conj {self.coll(d - 1)} {self.num(d - 1)})"
        if k == 4:
            return f"(vec (for [{(x := self.fresh('x'))} (range {self.r.randint(0, 8)})" \
                   f"{self.with_ints([x], lambda: ' :when ' + self.test(d - 1) if self.chance(0.4) else '')}] " \
                   f"{self.with_ints([x], lambda: self.num(d - 1))}))"
        return f"(remove {self.pred_value(d)} {self.coll(d - 1)})"

    def map_(self, d: int) -> str:
        if d <= 0 or self.chance(0.4):
            return self.pick(["{:a 1 :b 2}", '{"a" 1 :c {:a 5}}', "{}", "nil", "{0 :z 1 -1}", "[5 6 7]"])
        return f"(assoc {self.map_(d - 1)} {self.pick(KEYS)} {self.num(d - 1)})"

    def string(self, d: int) -> str:
        if d <= 0 or self.chance(0.35):
            return self.pick(STRS)
        k = self.r.randrange(7)
        s = lambda: self.string(d - 1)  # noqa: E731
        if k == 0:
            return f"(str {s()} {self.num(d - 1)})"
        if k == 1:
            return f"({self.pick(STR_FNS)} {s()})"
        if k == 2:
            return f"(subs {s()} {self.pick(['0', '1', '2'])})"
        if k == 3:
            return f"(clojure.string/join {self.pick(SEPS)} (clojure.string/split {s()} #\",\"))"
        if k == 4:
            return f"(clojure.string/join \"-\" {self.coll(d - 1)})"
        if k == 5:
            return f"(if {self.test(d - 1)} {s()} {s()})"
        return f"(name {self.pick(NAMEABLE)})"

    def fn_value(self, d: int) -> str:
        k = self.r.randrange(6)
        if k == 0:
            return self.pick(["inc", "dec", "-", "abs"])
        if k == 1 and self.fns:
            ones = [n for n, a in self.fns if a == 1]
            if ones:
                return self.pick(ones)
        if k == 2:
            return f"#(+ % {self.leaf()})"
        x = self.fresh("x")
        return f"(fn [{x}] {self.with_ints([x], lambda: self.num(d - 1))})"

    def pred_value(self, d: int) -> str:
        if self.chance(0.3):
            return self.pick(["odd?", "even?", "pos?", "neg?", "zero?"])
        x = self.fresh("x")
        return f"(fn [{x}] {self.with_ints([x], lambda: self.test(d - 1))})"

    # -------------------------------------------------------------- loops, growth, closures
    def loop(self, d: int) -> str:
        i, acc, n = self.fresh("i"), self.fresh("acc"), self.r.randint(0, 40)
        kind = self.pick(["int", "int", "float", "big", "vec", "map", "closures"])
        init = {"int": self.pick(["0", "1", "-5"]), "float": "0.0", "big": "9223372036854775807",
                "vec": "[]", "map": "{}", "closures": "[]"}[kind]
        with self.scope(ints=[i]):
            if kind in ("int", "big"):
                with self.scope(ints=[acc]):
                    step = self.num(d)
            elif kind == "float":
                step = f"(+ {acc} (* 0.5 {self.num(d - 1)}))"
            elif kind == "vec":
                step = f"(conj {acc} {self.num(d - 1)})"
            elif kind == "map":
                step = f"(assoc {acc} (mod {i} {self.pick(['3', '5', '100'])}) {self.num(d - 1)})"
            else:
                x = self.fresh("x")
                step = f"(conj {acc} (fn [{x}] {self.with_ints([x], lambda: self.num(d - 1))}))"
            stop = self.pick([f"(< {i} {n})", f"(>= {i} {n})", f"(< {n} {i} 100)", f"(not= {i} {n})"])
        done = acc if kind != "closures" else f"(mapv (fn [f] (f {self.leaf()})) {acc})"
        if stop.startswith("(>=") or stop.startswith("(<  "):
            return f"(loop [{i} 0 {acc} {init}] (if {stop} {done} (recur (inc {i}) {step})))"
        return f"(loop [{i} 0 {acc} {init}] (if {stop} (recur (inc {i}) {step}) {done}))"

    def aliasing(self, d: int) -> str:
        a, b, c = self.fresh("a"), self.fresh("b"), self.fresh("c")
        k = self.r.randrange(3)
        if k == 0:
            return f"(let [{a} {{:x 1}} {b} {a} {c} (assoc {b} :y {self.num(d - 1)})] [{a} {b} {c}])"
        if k == 1:
            return (f"(loop [i 0 {a} [] {b} []] (if (< i {self.r.randint(1, 20)}) "
                    f"(recur (inc i) (conj {a} i) (if (odd? i) {a} {b})) [{a} {b}]))")
        return (f"(reduce (fn [m x] (let [m2 (assoc m x (count m))] (if (= x {self.r.randint(0, 9)}) m m2))) "
                f"{{}} (range {self.r.randint(0, 12)}))")

    def probes(self, d: int) -> str:
        m = self.map_(d)
        k = self.r.randrange(4)
        if k == 0:
            return f"(get-in {m} [{self.pick([':a', ':c'])} {self.pick([':a', ':b'])}] {self.leaf()})"
        if k == 1:
            return f"({self.pick([':a', ':b', ':c'])} {m})"
        if k == 2:
            return f"(get {m} {self.pick(KEYS + [self.leaf()])})"
        return f"(nth {self.pick(['[1 2 3]', '(vec (range 5))', m])} {self.leaf()} {self.pick(['nil', '0', ':none'])})"

    def pmap(self, d: int) -> str:
        return f"(vec (pmap {self.fn_value(d)} {self.pick(['[1 2 3]', '(range 6)', '[0 -1 nil]'])}))"

    def expr(self, d: int) -> str:
        k = self.r.randrange(12)
        if k < 4:
            return self.num(d)
        if k == 4:
            return self.test(d)
        if k < 7:
            return self.loop(d)
        if k == 7:
            return self.aliasing(d)
        if k == 8:
            return self.probes(d)
        if k == 9:
            return self.string(d)
        if k == 10:
            return self.coll(d)
        return self.pmap(d) if self.chance(0.3) else self.num(d)

    # -------------------------------------------------------------- definitions and the case
    def defn(self, name: str, arity: int, d: int) -> str:
        params = [self.fresh("p") for _ in range(arity)]
        with self.scope(ints=params):
            kind = self.r.randrange(4)
            if kind == 0 and arity == 1:   # self-recursion on a shrinking argument
                p = params[0]
                body = (f"(if (< {p} {self.pick(['1', '10', '2'])}) {self.num(1)} "
                        f"({self.pick(['+', '-', '*'])} {self.num(1)} ({name} ({self.pick(['quot', 'dec'])} {p} "
                        f"{'10' if self.chance(0.5) else '1'}))))")
                body = body.replace(f"(dec {p} 10)", f"(dec {p})").replace(f"(dec {p} 1)", f"(dec {p})")
            elif kind == 1:
                body = self.num(d)
            elif kind == 2:
                body = f"(do (when (= {params[0]} {self.leaf()}) (println \"at\" {params[0]})) {self.num(d)})"
            else:
                body = self.loop(d)
        return f"(defn {name} [{' '.join(params)}] {body})"

    def mutual(self) -> str:
        f, g = self.fresh("f"), self.fresh("g")
        self.fns.append((f, 1))
        base, step = self.pick(["0", "1", "n"]), self.pick(["1", "2"])
        return (f"(declare {g}) (defn {f} [n] (if (<= n 0) {base} ({g} (- n {step}))))"
                f" (defn {g} [n] (+ {self.pick(['1', 'n', '(* n 2)'])} ({f} (dec n))))")

    def case(self, single: bool = False) -> Case:
        """A case; `single`: one program (its definitions included) run once."""
        c = self._case()
        if single:
            c = Case([(" ".join(src for src, _runs in c.evals[:2]), 1)], c.limits)
        return c

    def _case(self) -> Case:
        evals = []
        defs = []
        for _ in range(self.r.randint(0, 2)):
            name, arity = self.fresh("f"), self.pick([1, 1, 2])
            defs.append(self.defn(name, arity, 2))
            self.fns.append((name, arity))
        if self.chance(0.2):
            defs.append(self.mutual())
        if defs:
            evals.append((" ".join(defs), 1))
        calls = []
        for _ in range(self.r.randint(1, 3)):
            calls.append(self.expr(self.r.randint(1, 3)))
        if self.fns and self.chance(0.5):
            name, arity = self.pick(self.fns)
            if arity == 1:
                calls.append(f"(mapv {name} (range {self.r.randint(-3, 0)} {self.r.randint(20, 30)}))")
        body = calls[0] if len(calls) == 1 else f"[{' '.join(calls)}]"
        evals.append((body, self.pick([1, 1, 3, 5])))
        if self.fns and self.chance(0.3):   # a helper redefined, then the same program again
            name, arity = self.pick(self.fns)
            evals.append((self.defn(name, arity, 1), 1))
            evals.append((body, self.pick([1, 3])))
        limits = {}
        if self.chance(0.2):
            limits["memory_bytes"] = self.pick([1, 200, 2_000, 20_000, 200_000])
        if self.chance(0.1):
            limits["loop_limit"] = self.pick([5, 30])
        return Case(evals, limits)


def case(seed: int, single: bool = False) -> Case:
    return CaseGen(random.Random(seed)).case(single)


# ------------------------------------------------------------------ shrinking

_TOKEN = re.compile(r'"(?:\\.|[^"\\])*"|#"(?:\\.|[^"\\])*"|[()\[\]{}]|#\{|#\(|[^\s()\[\]{}"]+')
_CLOSE = {"(": ")", "[": "]", "{": "}", "#{": "}", "#(": ")"}


def _parse(text: str) -> list:
    """Forms of `text` as nested lists [opener, items...] and atoms (strings)."""
    stack: list = [["top"]]
    for tok in _TOKEN.findall(text):
        if tok in _CLOSE:
            stack.append([tok])
        elif tok in (")", "]", "}") and len(stack) > 1:
            done = stack.pop()
            stack[-1].append(done)
        else:
            stack[-1].append(tok)
    while len(stack) > 1:
        done = stack.pop()
        stack[-1].append(done)
    return stack[0][1:]


def _unparse(form) -> str:
    if isinstance(form, str):
        return form
    return form[0] + " ".join(_unparse(x) for x in form[1:]) + _CLOSE[form[0]]


def _paths(forms, prefix=()):
    for i, f in enumerate(forms):
        yield prefix + (i,)
        if isinstance(f, list):
            yield from _paths(f[1:], prefix + (i,))


def _replace(forms, path, new):
    forms = list(forms)
    i = path[0]
    if len(path) == 1:
        if new is None:
            del forms[i]
        else:
            forms[i] = new
        return forms
    node = forms[i]
    forms[i] = [node[0]] + _replace(node[1:], path[1:], new)
    return forms


def _get(forms, path):
    f = forms[path[0]]
    for i in path[1:]:
        f = f[1:][i]
    return f


def _candidates(form):
    """Smaller forms to try in place of `form`: its parts, then leaves."""
    if isinstance(form, list):
        for part in form[1:]:
            yield part
        for leaf in ("0", "nil", "1"):
            yield leaf
    elif form not in ("0", "nil"):
        yield "0"


def shrink(c: Case, still_fails, budget: int = 400) -> Case:
    """A smaller case for which `still_fails(case)` holds (greedy, at most `budget` attempts)."""
    tries = [0]

    def ok(candidate):
        tries[0] += 1
        return tries[0] <= budget and still_fails(candidate)
    for i in reversed(range(len(c.evals))):   # drop evaluations, then runs
        if len(c.evals) > 1 and ok(Case(c.evals[:i] + c.evals[i + 1:], c.limits)):
            c = Case(c.evals[:i] + c.evals[i + 1:], c.limits)
    for i, (src, runs) in enumerate(c.evals):
        for fewer in (1, 3):
            if fewer < runs and ok(Case(c.evals[:i] + [(src, fewer)] + c.evals[i + 1:], c.limits)):
                c = Case(c.evals[:i] + [(src, fewer)] + c.evals[i + 1:], c.limits)
                break
    progress = True
    while progress and tries[0] < budget:
        progress = False
        for i, (src, runs) in enumerate(c.evals):
            forms = _parse(src)
            for path in list(_paths(forms)):
                try:
                    target = _get(forms, path)
                except (IndexError, TypeError):
                    continue
                for new in [None, *_candidates(target)]:
                    trial = _replace(forms, path, new)
                    text = " ".join(_unparse(f) for f in trial)
                    if text and ok(Case(c.evals[:i] + [(text, runs)] + c.evals[i + 1:], c.limits)):
                        c = Case(c.evals[:i] + [(text, runs)] + c.evals[i + 1:], c.limits)
                        forms, progress = trial, True
                        break
                if progress or tries[0] >= budget:
                    break   # (the paths are stale after a change)
            if progress:
                break
    return c


def same_failure(diff):
    """A `still_fails` for `shrink`: the case still differs in the configuration of `diff`
    (an internal error stays one)."""
    config, _i, want, _got = diff

    def still(c: Case) -> bool:
        try:
            found = check(c, [config])
        except Exception:  # noqa: BLE001 - a harness failure on a mangled candidate is not the bug
            return False
        if want is None:
            return any(d[2] is None for d in found)
        return any(d[0] == config and d[2] is not None for d in found)
    return still


if __name__ == "__main__":  # pragma: no cover - a quick look at a few cases
    for seed in range(int(sys.argv[1]) if len(sys.argv) > 1 else 5):
        print(case(seed).text(), "\n")


# ------------------------------------------------------------------ the campaign

HANG_S = 300   # a case with no outcome after this long is a hang: reported, and the campaign ends


def _hang_watch(seed: int, i: int, c: Case, out):
    """A timer that reports case `i` as a hang (with its text) and ends the process (status 3)."""
    import os
    import threading

    def fire():
        print(f"HANG (seed {seed}, case {i}): no outcome after {HANG_S} s\n{c.text()}\n", file=out, flush=True)
        os._exit(3)
    t = threading.Timer(HANG_S, fire)
    t.daemon = True
    t.start()
    return t


def _short(o, most: int = 600) -> str:
    text = repr(o)
    return text if len(text) <= most else text[:most] + f"... ({len(text)} characters)"


def campaign(seed: int, programs: int | None, minutes: float | None, start: int = 0, show: int = 10,
             configs=None, single: bool = False, out=sys.stdout, progress=sys.stderr) -> int:
    """Check cases `start`, `start + 1`, ... of `seed` until `programs` are done or `minutes` pass
    (`single`: each case one program run once); print each difference with its shrunk
    reproduction. Returns the number of failing cases."""
    import time
    t0 = time.perf_counter()
    deadline = t0 + minutes * 60 if minutes else None
    failing, done, evals = 0, 0, 0
    i = start
    while (programs is None or done < programs) and (deadline is None or time.perf_counter() < deadline):
        c = CaseGen(random.Random(seed * 1_000_000_007 + i)).case(single)
        watch = _hang_watch(seed, i, c, out)
        diffs = check(c, configs)
        watch.cancel()
        done += 1
        evals += sum(runs for _src, runs in c.evals)
        if diffs:
            failing += 1
            if failing <= show:
                small = shrink(c, same_failure(diffs[0]))
                again = check(small, [diffs[0][0]])   # once: a difference that does not repeat keeps the original
                config, idx, want, got = again[0] if again else diffs[0]
                shown, note = (small, "") if again else (c, " (did not repeat: the case as generated)")
                print(f"DIFFERENCE (seed {seed}, case {i}, {len(diffs)} outcome(s); first in {config}, "
                      f"outcome {idx}){note}:\n{shown.text()}\n  general: {_short(want)}\n  {config}: {_short(got)}\n",
                      file=out, flush=True)
        if done % 1000 == 0:
            print(f"  {done} cases ({i + 1 - start} from {start}), {failing} failing, "
                  f"{time.perf_counter() - t0:.0f} s", file=progress, flush=True)
        i += 1
    wall = time.perf_counter() - t0
    print(f"seed {seed}: cases {start}..{i - 1} ({done} cases, {evals} evaluation runs per configuration), "
          f"configurations {', '.join(configs or CONFIGS)}; failing cases {failing}; {wall:.0f} s",
          file=out, flush=True)
    return failing
