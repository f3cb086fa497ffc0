"""Fuzz the evaluator with random programs over the builtin vocabulary.

Every program must come back from `ptclisp.run` as a `Result`: an escaped
Python exception, or an error of kind `internal_error`, is a bug ("escape");
a run that does not return within a generous wall-clock bound is a "hang".
The report also gives the worst time over the time budget and the peak
resident memory of the process.

    .venv/bin/python benchmarks/fuzz.py [--programs 20000] [--seed 1] [--timeout-ms 250] [--show 10]

With `--differential` (or `--minutes M`) it runs the differential campaign instead
(benchmarks/differential.py): every program under every configuration of the back ends
must give the general path's outcome; each difference is printed with its shrunk
reproduction, and the exit status is 1 if there was any (3 after a case that hangs,
printed with its text):

    .venv/bin/python -m benchmarks.fuzz --minutes 30 --seed S
    .venv/bin/python -m benchmarks.fuzz --differential --single --programs 20000 --seed 1   # CI (.ci/run)

Programs come from five generators, mixed:

* typed: expressions built to have plausible argument types (numbers into
  arithmetic, collections into sequence functions, functions into
  higher-order functions), so they get past the first type check and reach
  deeper code;
* untyped: any builtin applied to any values;
* forms: special forms (let, fn, loop/recur, cond, threading, for, pmap,
  tool calls, println, return/fail) around the other generators;
* mutated: a generated program with characters dropped, duplicated or replaced;
* text: random characters with a bias towards Lisp punctuation.

`ProgramGen(random.Random)` is also used by tests/end_to_end/test_fuzz.py.
"""
from __future__ import annotations

import argparse
import random
import resource
import string
import sys
import threading
import time

import ptclisp
from ptclisp import Limits, lib
from ptclisp.registry import builtins as R

lib.load()   # the generator draws builtin names from the registry

# ------------------------------------------------------------------ vocabulary

NUM1 = ["inc", "dec", "abs", "-", "double", "int", "sqrt", "floor", "ceil", "round", "bit-not"]
NUM2 = ["+", "-", "*", "/", "mod", "rem", "quot", "max", "min", "pow", "bit-and", "bit-or", "bit-xor",
        "bit-shift-left", "bit-shift-right"]
PRED1 = ["odd?", "even?", "pos?", "neg?", "zero?", "nil?", "some?", "number?", "string?", "keyword?",
         "map?", "vector?", "empty?", "int?", "float?", "NaN?", "infinite?"]
CMP2 = ["=", "not=", "<", ">", "<=", ">=", "compare"]
SEQ_FN = ["map", "filter", "remove", "keep", "mapcat", "take-while", "drop-while", "sort-by", "group-by",
          "partition-by", "distinct-by", "map-indexed", "every?", "some", "not-any?", "pmap"]
SEQ1 = ["first", "last", "rest", "next", "butlast", "reverse", "sort", "distinct", "flatten", "count", "seq",
        "vec", "set", "frequencies", "dedupe", "shuffle", "empty", "not-empty", "sum", "avg"]
SEQN = ["take", "drop", "take-last", "drop-last", "nth", "partition", "partition-all", "split-at"]
STR1 = ["str", "clojure.string/upper-case", "clojure.string/lower-case", "clojure.string/trim",
        "clojure.string/reverse", "count", "name", "keyword", "parse-long", "parse-double", "pr-str",
        "clojure.string/blank?", "seq", "clojure.string/split-lines"]
MAP_FN = ["keys", "vals", "count", "seq", "first", "into {}", "update-vals", "update-keys"]
KEYWORDS = [":a", ":b", ":id", ":name", ":tags", ":x", ":price", ":__class__"]
STRINGS = ['""', '"a"', '"hello world"', '"a,b,c"', '"Ünïcødé 😀"', '"  x  "', '"42"', '"3.5"', '"%s %d"',
           '"\\n"', '"(a|aa)+$"', '"{0.__class__}"', '"__import__"']
NUMBERS = ["0", "1", "-1", "2", "3", "7", "10", "100", "1000", "65", "2.5", "-0.0", "1e308", "##Inf", "##-Inf",
           "##NaN", "9223372036854775807", "99999999999999999999999", "1000000", "100000000", "0.1"]
SPECIAL_NAMES = ["_m", "_ns", "__builtins__", "__import__", "type", "_data", "b_map", "__class__"]


class ProgramGen:
    """Random PTC programs. `rng` is a `random.Random` (hypothesis passes its own)."""

    def __init__(self, rng: random.Random, max_depth: int = 4):
        self.r = rng
        self.max_depth = max_depth
        self.locals: list[str] = []
        self.n = 0
        self.all_builtins = sorted(R.BUILTINS)

    # -- helpers
    def pick(self, xs):
        return self.r.choice(xs)

    def chance(self, p: float) -> bool:
        return self.r.random() < p

    def fresh(self) -> str:
        self.n += 1
        base = self.pick(["x", "y", "acc", "item", "n"] + SPECIAL_NAMES)
        return f"{base}{self.n}" if self.chance(0.7) else base

    # -- typed expressions
    def num(self, d=0) -> str:
        if d >= self.max_depth or self.chance(0.35):
            if self.locals and self.chance(0.3):
                return self.pick(self.locals)
            return self.pick(NUMBERS)
        k = self.r.randrange(7)
        if k == 0:
            return f"({self.pick(NUM1)} {self.num(d + 1)})"
        if k == 1:
            return f"({self.pick(NUM2)} {self.num(d + 1)} {self.num(d + 1)})"
        if k == 2:
            return f"(count {self.coll(d + 1)})"
        if k == 3:
            return f"(reduce {self.pick(['+', '*', 'max', 'min', '-'])} {self.num(d + 1)} {self.vec(d + 1)})"
        if k == 4:
            return f"(if {self.boolean(d + 1)} {self.num(d + 1)} {self.num(d + 1)})"
        if k == 5:
            return f"(get {self.vec(d + 1)} {self.num(d + 1)} {self.num(d + 1)})"
        return f"(sum {self.vec(d + 1)})"

    def boolean(self, d=0) -> str:
        if d >= self.max_depth or self.chance(0.3):
            return self.pick(["true", "false", "nil"])
        k = self.r.randrange(5)
        if k == 0:
            return f"({self.pick(PRED1)} {self.any(d + 1)})"
        if k == 1:
            return f"({self.pick(CMP2)} {self.num(d + 1)} {self.num(d + 1)})"
        if k == 2:
            return f"(contains? {self.map_(d + 1)} {self.pick(KEYWORDS)})"
        if k == 3:
            return f"({self.pick(['and', 'or'])} {self.boolean(d + 1)} {self.boolean(d + 1)})"
        return f"(not {self.boolean(d + 1)})"

    def string(self, d=0) -> str:
        if d >= self.max_depth or self.chance(0.35):
            return self.pick(STRINGS)
        k = self.r.randrange(6)
        if k == 0:
            return f"(str {' '.join(self.any(d + 1) for _ in range(self.r.randrange(4)))})"
        if k == 1:
            return f"(subs {self.string(d + 1)} {self.num(d + 1)})"
        if k == 2:
            return f"(clojure.string/join {self.pick(STRINGS)} {self.vec(d + 1)})"
        if k == 3:
            return f"(format {self.pick(STRINGS)} {self.any(d + 1)})"
        if k == 4:
            return f"(clojure.string/replace {self.string(d + 1)} {self.pick(STRINGS)} {self.string(d + 1)})"
        return f"({self.pick(STR1)} {self.string(d + 1)})"

    def vec(self, d=0) -> str:
        if d >= self.max_depth or self.chance(0.3):
            if self.chance(0.5):
                return f"(range {self.r.randrange(0, 30)})"
            return "[" + " ".join(self.atom() for _ in range(self.r.randrange(6))) + "]"
        k = self.r.randrange(8)
        if k == 0:
            return f"({self.pick(['map', 'mapv', 'pmap'])} {self.fn1(d + 1)} {self.vec(d + 1)})"
        if k == 1:
            return f"({self.pick(['filter', 'remove', 'take-while', 'drop-while'])} {self.pred(d + 1)} {self.vec(d + 1)})"
        if k == 2:
            return f"({self.pick(SEQN)} {self.num(d + 1)} {self.vec(d + 1)})"
        if k == 3:
            return f"({self.pick(['sort', 'reverse', 'distinct', 'vec', 'flatten', 'rest', 'shuffle'])} {self.vec(d + 1)})"
        if k == 4:
            return f"(conj {self.vec(d + 1)} {self.any(d + 1)})"
        if k == 5:
            return f"(concat {self.vec(d + 1)} {self.vec(d + 1)})"
        if k == 6:
            return f"(for [{self._bind(self.vec(d + 1))}] {self.any(d + 1)})"
        return f"(range {self.num(d + 1)} {self.num(d + 1)})"

    def map_(self, d=0) -> str:
        if d >= self.max_depth or self.chance(0.35):
            pairs = " ".join(f"{k} {self.atom()}" for k in self.r.sample(KEYWORDS, self.r.randrange(4)))
            return "{" + pairs + "}"
        k = self.r.randrange(5)
        if k == 0:
            return f"(assoc {self.map_(d + 1)} {self.pick(KEYWORDS)} {self.any(d + 1)})"
        if k == 1:
            return f"(merge {self.map_(d + 1)} {self.map_(d + 1)})"
        if k == 2:
            return f"(group-by {self.fn1(d + 1)} {self.vec(d + 1)})"
        if k == 3:
            return f"(frequencies {self.vec(d + 1)})"
        return f"(zipmap {self.vec(d + 1)} {self.vec(d + 1)})"

    def coll(self, d=0) -> str:
        return self.pick([self.vec, self.map_, self.string])(d)

    def fn1(self, d=0) -> str:
        k = self.r.randrange(6)
        if k == 0 or d >= self.max_depth:
            return self.pick(NUM1 + ["str", "identity", "vector", "list"] + KEYWORDS)
        if k == 1:
            x = self.fresh()
            self.locals.append(x)
            try:
                return f"(fn [{x}] {self.num(d + 1)})"
            finally:
                self.locals.pop()
        if k == 2:
            return f"#(* % {self.num(d + 1)})"
        if k == 3:
            return f"(partial {self.pick(NUM2)} {self.num(d + 1)})"
        if k == 4:
            return f"(comp {self.fn1(d + 1)} {self.fn1(d + 1)})"
        return f"#(tool/t {{:x %}})"

    def pred(self, d=0) -> str:
        if self.chance(0.6) or d >= self.max_depth:
            return self.pick(PRED1)
        return f"#({self.pick(CMP2)} % {self.num(d + 1)})"

    def atom(self) -> str:
        return self.pick([self.pick(NUMBERS), self.pick(STRINGS), self.pick(KEYWORDS), "nil", "true", "false"])

    def any(self, d=0) -> str:
        return self.pick([self.num, self.string, self.vec, self.map_, self.boolean])(d)

    def _bind(self, value: str) -> str:
        x = self.fresh()
        self.locals.append(x)  # visible to the body generated right after (callers pop via program scope)
        return f"{x} {value}"

    # -- untyped: any builtin, any arguments
    def untyped(self, d=0) -> str:
        if d >= self.max_depth or self.chance(0.3):
            return self.pick([self.atom(), self.pick(self.all_builtins)])
        spec = R.BUILTINS[self.pick(self.all_builtins)]
        hi = spec.max_arity if spec.max_arity is not None else spec.min_arity + 3
        n = self.r.randint(spec.min_arity, max(spec.min_arity, min(hi, spec.min_arity + 3)))
        if self.chance(0.1):
            n = self.r.randrange(6)  # wrong arity on purpose
        args = [self.pick([self.untyped, self.any])(d + 1) for _ in range(n)]
        return f"({spec.name} {' '.join(args)})".replace(" )", ")")

    # -- special forms around expressions
    def form(self, d=0) -> str:
        k = self.r.randrange(22)
        e = lambda: self.pick([self.any, self.untyped])(d + 1)  # noqa: E731
        if k == 0:
            x = self.fresh()
            return f"(let [{x} {e()}] {self.with_local(x, e)})"
        if k == 1:
            return f"(if {self.boolean(d + 1)} {e()} {e()})"
        if k == 2:
            x = self.fresh()
            lim = self.pick(["10", "100", "5000", "100000"])
            return f"(loop [{x} 0] (if (< {x} {lim}) (recur (inc {x})) {x}))"
        if k == 3:
            return f"(cond {self.boolean(d + 1)} {e()} :else {e()})"
        if k == 4:
            return f"(-> {self.vec(d + 1)} {self.pick(SEQ1)} {self.pick(['count', 'str', 'vector', 'seq'])})"
        if k == 5:
            return f"(->> {self.vec(d + 1)} (map {self.fn1(d + 1)}) (filter {self.pred(d + 1)}))"
        if k == 6:
            f = self.fresh()
            x = self.fresh()
            body = f"(if (< {x} 1) 0 (+ {x} ({f} (dec {x}))))"
            return f"(defn {f} [{x}] {body}) ({f} {self.pick(['5', '50', '3000', '100000', '-1'])})"
        if k == 7:
            return f"(pcalls {' '.join('#' + '(' + self.pick(['identity', 'inc', 'str']) + ' ' + self.num(d + 1) + ')' for _ in range(self.r.randrange(4)))})"
        if k == 8:
            return f"(println {e()})"
        if k == 9:
            return f"({self.pick(['return', 'fail'])} {e()})"
        if k == 10:
            return f"(tool/t {{:a {e()}}})"
        if k == 11:
            x = self.fresh()
            return f"(doseq [{x} {self.vec(d + 1)}] (println {x}))"
        if k == 12:
            return f"(def {self.fresh()} {e()})"
        if k == 13:
            a, b = self.fresh(), self.fresh()
            return f"(let [{{:keys [{a} {b}]}} {self.map_(d + 1)}] {self.with_local(a, lambda: self.with_local(b, e))})"
        if k == 14:
            x, xs = self.fresh(), self.fresh()
            return f"(let [[{x} & {xs}] {self.vec(d + 1)}] [{x} {xs}])"
        if k == 15:
            rx = self.pick(['#"\\d+"', '#"[a-z]+"', '#"(a|aa)+$"', '#","', '#"(?i)A"', '#""'])
            return f"({self.pick(['re-find', 're-seq', 're-matches', 'clojure.string/split'])} {rx} {self.string(d + 1)})"
        if k == 16:
            return f"(json/parse-string (json/generate-string {self.any(d + 1)}))"
        if k == 17:
            return self.pick([f"(Math/sqrt {self.num(d + 1)})", f"(.indexOf {self.string(d + 1)} {self.string(d + 1)})",
                              f"(Integer/parseInt {self.string(d + 1)})", '(LocalDate/parse "2024-01-31")',
                              f"(.plusDays (LocalDate/parse \"2024-01-31\") {self.num(d + 1)})",
                              "(System/currentTimeMillis)", f"(Math/pow {self.num(d + 1)} {self.num(d + 1)})"])
        if k == 18:
            return f"({self.pick(['update', 'update-in'])} {self.map_(d + 1)} {self.pick([':a', '[:a :b]'])} {self.fn1(d + 1)})"
        if k == 19:
            return f"(get-in (assoc-in {self.map_(d + 1)} [:a :b] {e()}) [:a :b])"
        if k == 20:
            return f"(reduce (fn [acc x] (conj acc x)) [] {self.vec(d + 1)})"
        return f"(do {e()} {e()})"

    def with_local(self, x: str, make) -> str:
        self.locals.append(x)
        try:
            return make()
        finally:
            self.locals.pop()

    # -- whole programs
    def program(self) -> str:
        self.locals = []
        kind = self.r.random()
        if kind < 0.35:
            out = " ".join(self.any() for _ in range(self.r.randint(1, 3)))
        elif kind < 0.55:
            out = " ".join(self.untyped() for _ in range(self.r.randint(1, 3)))
        elif kind < 0.85:
            out = " ".join(self.form() for _ in range(self.r.randint(1, 3)))
        elif kind < 0.95:
            out = self.mutate(self.pick([self.any, self.form, self.untyped])())
        else:
            out = self.text()
        self.locals = []
        return out

    def mutate(self, src: str) -> str:
        chars = list(src)
        for _ in range(self.r.randint(1, 4)):
            if not chars:
                break
            i = self.r.randrange(len(chars))
            op = self.r.randrange(3)
            if op == 0:
                del chars[i]
            elif op == 1:
                chars.insert(i, chars[i])
            else:
                chars[i] = self.pick("()[]{}#%'`~@^\\\":;, \n0a")
        return "".join(chars)

    def text(self) -> str:
        alphabet = string.printable + "()[]{}#%:;\"\\" * 4 + "λ😀\u0000\ud800"
        return "".join(self.r.choice(alphabet) for _ in range(self.r.randrange(80)))


# ------------------------------------------------------------------ running

def tool_t(args):
    return {"ok": True, "n": len(args)}


TOOLS = {"t": tool_t}


class Outcome:
    __slots__ = ("src", "status", "kind", "ms", "escape")

    def __init__(self, src, status, kind, ms, escape=None):
        self.src, self.status, self.kind, self.ms, self.escape = src, status, kind, ms, escape


def run_one(src: str, limits: Limits, hang_s: float) -> Outcome | None:
    """Run one program on a helper thread; None when it did not come back within `hang_s`."""
    box: list = []

    def go():
        t0 = time.perf_counter()
        try:
            r = ptclisp.run(src, tools=TOOLS, limits=limits)
        except BaseException as exc:  # noqa: BLE001 - this is what we are looking for
            box.append(Outcome(src, "escape", type(exc).__name__, (time.perf_counter() - t0) * 1000, repr(exc)))
            return
        ms = (time.perf_counter() - t0) * 1000
        if not isinstance(r, ptclisp.Result):
            box.append(Outcome(src, "escape", "not a Result", ms, repr(r)[:200]))
        elif r.error is not None and r.error.kind == "internal_error":
            box.append(Outcome(src, "escape", "internal_error", ms, r.error.message))
        else:
            box.append(Outcome(src, r.status, r.error.kind if r.error else None, ms))

    t = threading.Thread(target=go, daemon=True)
    t.start()
    t.join(hang_s)
    return box[0] if box else None


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--programs", type=int, default=None, help="how many programs (default 20,000; with "
                    "--minutes, no count limit)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--differential", action="store_true",
                    help="the differential campaign (benchmarks/differential.py): every configuration of the back "
                         "ends against the general path; each difference is printed shrunk")
    ap.add_argument("--minutes", type=float, default=None, help="stop after this long (implies --differential)")
    ap.add_argument("--start", type=int, default=0, help="differential: the first case number of the seed "
                    "(chunks of one seed with different starts are different programs)")
    ap.add_argument("--single", action="store_true", help="differential: each case is one program run once "
                    "(no session across evaluations; the quick run CI makes)")
    ap.add_argument("--configs", default=None, help="differential: the comma-separated configurations to "
                    "compare with the general path (default: all)")
    ap.add_argument("--timeout-ms", type=int, default=250, help="the time budget of each program")
    ap.add_argument("--hang-s", type=float, default=10.0, help="a run not back after this long is a hang")
    ap.add_argument("--show", type=int, default=10, help="list this many escapes / slowest runs")
    a = ap.parse_args(argv)
    if a.differential or a.minutes is not None:
        from .differential import campaign
        programs = a.programs if a.programs is not None or a.minutes is not None else 20_000
        configs = a.configs.split(",") if a.configs else None
        return 1 if campaign(a.seed, programs, a.minutes, a.start, a.show, configs, a.single) else 0
    if a.programs is None:
        a.programs = 20_000
    rng = random.Random(a.seed)
    gen = ProgramGen(rng)
    limits = Limits(timeout_ms=a.timeout_ms)
    escapes, hangs, outcomes = [], [], []
    kinds: dict = {}
    t0 = time.perf_counter()
    for i in range(a.programs):
        src = gen.program()
        o = run_one(src, limits, a.hang_s)
        if o is None:
            hangs.append(src)
            continue
        outcomes.append(o)
        if o.status == "escape":
            escapes.append(o)
        key = o.kind or o.status
        kinds[key] = kinds.get(key, 0) + 1
        if (i + 1) % 2000 == 0:
            print(f"  {i + 1} programs, {len(escapes)} escapes, {len(hangs)} hangs, "
                  f"{time.perf_counter() - t0:.0f} s", file=sys.stderr, flush=True)
    wall = time.perf_counter() - t0
    over = sorted(outcomes, key=lambda o: o.ms, reverse=True)
    worst = over[0] if over else None
    peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"programs tried      {a.programs}")
    print(f"escapes             {len(escapes)}")
    print(f"hangs (> {a.hang_s:g} s)      {len(hangs)}")
    print(f"time budget         {a.timeout_ms} ms per program")
    if worst:
        print(f"worst time          {worst.ms:.0f} ms ({worst.ms - a.timeout_ms:+.0f} ms over budget, "
              f"{worst.ms / a.timeout_ms:.2f} x budget)")
    print(f"over budget         {sum(1 for o in outcomes if o.ms > a.timeout_ms)} runs")
    print(f"peak RSS            {peak_mb:.0f} MB")
    print(f"wall time           {wall:.0f} s")
    print("outcomes            " + ", ".join(f"{k} {v}" for k, v in sorted(kinds.items(), key=lambda kv: -kv[1])))
    for o in escapes[: a.show]:
        print(f"ESCAPE {o.kind}: {o.escape}\n    {o.src[:300]}")
    for src in hangs[: a.show]:
        print(f"HANG\n    {src[:300]}")
    print("slowest:")
    for o in over[: a.show]:
        print(f"  {o.ms:7.0f} ms  {o.kind or o.status:24} {o.src[:110]}")
    return 1 if escapes or hangs else 0


if __name__ == "__main__":
    sys.exit(main())
