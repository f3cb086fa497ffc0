"""The workloads of `ptclisp bench lang`: each as a PTC-Lisp program and as the same work in plain Python.

The keys are those of docs/performance.md (a-j, d2, k, t). Each `w_*` builder takes `quick`
(reduced sizes for tests and smoke runs) and returns {column: Impl}; `WORKLOADS` lists them
with their targets (issue 18's: ratios of ptclisp's minimum to plain Python's).
"""
from __future__ import annotations

import itertools
import json
import os
import random
import subprocess
import sys
import tempfile
from collections import Counter, defaultdict

from ..api import Session, run
from ..interchange.python import to_python
from .agent_turn import w_agent_turn
from .harness import BIG, BenchError, Impl, Workload, _child_env, process_impl, ptc_program, script, size

# ------------------------------------------------------------------ a. recursion

def fib_src(n: int) -> str:
    return f"(defn fib [n] (if (< n 2) n (+ (fib (- n 1)) (fib (- n 2))))) (fib {n})"


def w_fib(quick):
    n = size(quick, 25, 15)

    def fib(k):
        return k if k < 2 else fib(k - 1) + fib(k - 2)
    return {"python": Impl(lambda: fib(n)), "ptclisp": ptc_program(fib_src(n))}


# ------------------------------------------------------------------ b. loop/recur

def loop_src(n: int) -> str:
    return f"(loop [i 1 acc 0] (if (> i {n}) acc (recur (inc i) (+ acc i))))"


def w_loop(quick):
    n = size(quick, 1_000_000, 10_000)

    def total():
        acc = 0
        for i in range(1, n + 1):
            acc += i
        return acc
    return {"python": Impl(total), "ptclisp": ptc_program(loop_src(n))}


# ------------------------------------------------------------------ c. maps: build, filter, group, aggregate

CATS = ["books", "games", "food", "tools", "toys"]


def maps_src(n: int) -> str:
    cats = " ".join(f'"{c}"' for c in CATS)
    return f"""
(let [cats [{cats}]
      items (mapv (fn [i] {{:id i :price (mod (* i 37) 101) :cat (nth cats (mod i 5))}}) (range {n}))]
  (->> items
       (filter #(> (:price %) 20))
       (group-by :cat)
       (map (fn [[cat vs]] [cat {{:count (count vs) :total (reduce + (map :price vs))}}]))
       (into {{}})))"""


def w_maps(quick):
    n = size(quick, 10_000, 500)

    def py():
        items = [{"id": i, "price": (i * 37) % 101, "cat": CATS[i % 5]} for i in range(n)]
        groups = defaultdict(list)
        for it in items:
            if it["price"] > 20:
                groups[it["cat"]].append(it)
        return {cat: {"count": len(vs), "total": sum(it["price"] for it in vs)} for cat, vs in groups.items()}
    return {"python": Impl(py), "ptclisp": ptc_program(maps_src(n))}


# ------------------------------------------------------------------ d. strings

WORDS = ["alpha", "beta", "gamma", "delta", "epsilon", "zeta", "eta", "theta", "iota", "kappa", "lambda", "mu"]


def lines_data(n: int) -> list:
    rnd = random.Random(7)
    return [" ".join(rnd.choice(WORDS) for _ in range(8)) for _ in range(n)]


STRINGS_SRC = """
(let [words (mapcat (fn [line] (split (upper-case line) " ")) data/lines)
      joined (mapv (fn [line] (join "-" (split line " "))) data/lines)]
  {:lines (count joined) :chars (reduce + (map count joined)) :freq (frequencies words)})"""


def w_strings(quick):
    lines = lines_data(size(quick, 10_000, 500))
    return {"python": Impl(strings_py(lines)), "ptclisp": ptc_program(STRINGS_SRC, {"lines": lines})}


SPLIT_RE_SRC = """
(let [words (mapcat (fn [line] (str/split (upper-case line) #" ")) data/lines)
      joined (mapv (fn [line] (join "-" (str/split line #" "))) data/lines)]
  {:lines (count joined) :chars (reduce + (map count joined)) :freq (frequencies words)})"""


def strings_py(lines: list):
    """Plain Python's d and d2: the same pieces with `str.split`."""
    def py():
        words = [w for line in lines for w in line.upper().split(" ")]
        joined = ["-".join(line.split(" ")) for line in lines]
        return {"lines": len(joined), "chars": sum(len(j) for j in joined), "freq": dict(Counter(words))}
    return py


def w_split_regex(quick):
    """d with the separator written as a regex literal, `(str/split line #" ")`, as models write it."""
    lines = lines_data(size(quick, 10_000, 500))
    return {"python": Impl(strings_py(lines)), "ptclisp": ptc_program(SPLIT_RE_SRC, {"lines": lines})}


# ------------------------------------------------------------------ e. sort-by + take

def rows_data(n: int) -> list:
    rnd = random.Random(11)
    return [{"id": i, "score": rnd.random(), "name": f"item-{i}"} for i in range(n)]


SORT_SRC = "(take 10 (sort-by :score data/rows))"


def w_sort(quick):
    rows = rows_data(size(quick, 50_000, 1000))
    return {"python": Impl(lambda: sorted(rows, key=lambda r: r["score"])[:10]),
            "ptclisp": ptc_program(SORT_SRC, {"rows": rows})}


# ------------------------------------------------------------------ f. many small programs

def small_program(i: int) -> str:
    """The i-th of the many small, distinct programs of workload f."""
    return f"(let [xs [{i} {i + 1} {i + 2} {i + 3}]] (->> xs (filter odd?) (map (fn [x] (* x x))) (reduce + {i})))"


def w_programs(quick):
    n = size(quick, 1000, 50)
    # every repetition evaluates programs never seen before (one counter per column, so the
    # warm-up runs of both columns see the same programs and their answers can be compared)
    py_salt = itertools.count()   # run_many keeps the PTC column's own counter

    def py_src(i):
        return f"sum((x * x for x in [{i}, {i + 1}, {i + 2}, {i + 3}] if x % 2 == 1), {i})"

    def py():
        base = next(py_salt) * n
        return sum(eval(py_src(base + k), {}) for k in range(n))  # noqa: S307 - our own text
    return {"python": Impl(py), "ptclisp": Impl(run_many(n, limits=BIG))}


# ------------------------------------------------------------------ g. persistent growth

def grow_src(k: int) -> str:
    return (f"(loop [i 0 m {{}} v []] (if (< i {k}) (recur (inc i) (assoc m i (* 2 i)) (conj v i)) "
            f"[(count m) (count v)]))")


def grow_size(n: int, quick: bool) -> int:
    return n // 10 if quick else n


def w_grow(n):
    def build(quick):
        k = grow_size(n, quick)

        def py():
            m, v = {}, []
            for i in range(k):
                m[i] = 2 * i
                v.append(i)
            return [len(m), len(v)]
        return {"python": Impl(py), "ptclisp": ptc_program(grow_src(k))}
    return build


# ------------------------------------------------------------------ h. a session across turns

def session_programs(n: int) -> tuple[list, list]:
    """n small PTC programs that define and reuse values, and the same turns in Python."""
    ptc, py = ["(def total 0) (def items [])"], ["total = 0\nitems = []"]
    for i in range(1, n - 1):
        if i % 3 == 0:
            ptc.append(f"(def total (+ total {i}))")
            py.append(f"total = total + {i}")
        elif i % 3 == 1:
            ptc.append(f"(def items (conj items {i}))")
            py.append(f"items.append({i})")
        else:
            ptc.append(f"(defn f{i} [n] (+ n total (count items))) (f{i} {i})")
            py.append(f"def f{i}(n):\n    return n + total + len(items)\nf{i}({i})")
    ptc.append("[total (count items) (reduce + items)]")
    py.append("result = [total, len(items), sum(items)]")
    return ptc, py


def w_session(quick):
    ptc, py = session_programs(size(quick, 200, 20))

    def run_py():
        ns: dict = {}
        for src in py:
            exec(compile(src, "<turn>", "exec"), ns)  # noqa: S102 - our own text
        return ns["result"]

    def run_ptc():
        s = Session(limits=BIG)
        r = None
        for src in ptc:
            r = s.eval(src)
            if not r.ok:
                raise BenchError(str(r.error))
        return r.value
    return {"python": Impl(run_py), "ptclisp": Impl(run_ptc, to_python)}


# ------------------------------------------------------------------ i. cold start

def w_startup(quick):
    exe = script("ptclisp")
    cmd = [exe] if exe else [sys.executable, "-m", "ptclisp.commands.main"]
    return {"python": process_impl([sys.executable, "-c", "print(1+2)"]),
            "ptclisp": process_impl(cmd + ["eval", "(+ 1 2)"])}


# ------------------------------------------------------------------ j. memory of a session holding JSON data

def json_records(target_bytes: int) -> list:
    rnd = random.Random(3)
    tags = ["red", "green", "blue", "urgent", "later", "internal", "public"]
    cities = ["Lund", "Oslo", "Turku", "Aarhus", "Tartu", "Riga"]
    out, size, i = [], 2, 0
    while size < target_bytes:
        rec = {"id": i, "name": f"user-{i}", "email": f"user{i}@example.com", "active": i % 3 == 0,
               "score": round(rnd.random() * 100, 3), "tags": rnd.sample(tags, 3),
               "address": {"city": rnd.choice(cities), "zip": f"{i % 100000:05d}"}}
        out.append(rec)
        size += len(json.dumps(rec)) + 2
        i += 1
    return out


_MEM_PY = """
import json, sys, tracemalloc
text = open(sys.argv[1], encoding="utf-8").read()
tracemalloc.start()
data = json.loads(text)
cur, peak = tracemalloc.get_traced_memory()
print(json.dumps({"peak": peak, "retained": cur, "n": len(data)}))
"""

_MEM_PTC = """
import json, sys, tracemalloc
import ptclisp
text = open(sys.argv[1], encoding="utf-8").read()
big = ptclisp.Limits(loop_limit=10**7, timeout_ms=60000, memory_bytes=10**9)
ptclisp.Session(context={"x": [1]}).eval("(count data/x)")  # lazily built tables are not data
tracemalloc.start()
s = ptclisp.Session(context={"rows": json.loads(text)}, limits=big)
r = s.eval("(count data/rows)")
cur, peak = tracemalloc.get_traced_memory()
print(json.dumps({"peak": peak, "retained": cur, "n": r.value}))
"""


def memory_impl(code: str, path: str, detail: dict, cmd: list | None = None) -> Impl:
    env = _child_env()

    def go():
        out = subprocess.run((cmd or [sys.executable, "-c", code]) + [path], capture_output=True, text=True,
                             env=env, timeout=300)
        if out.returncode != 0:
            raise BenchError(out.stderr.strip()[-300:])
        rec = json.loads(out.stdout.strip().splitlines()[-1])
        detail.update(rec)
        return rec["peak"]
    return Impl(go, measures=True, detail=detail)


_TMP: list = []


def json_file(quick: bool) -> str:
    mb = 0.2 if quick else 10
    fd, path = tempfile.mkstemp(prefix="ptclisp-bench-", suffix=".json")
    with os.fdopen(fd, "w", encoding="utf-8") as fh:
        json.dump(json_records(int(mb * 1_000_000)), fh)
    _TMP.append(path)
    return path


def w_memory(quick):
    path = json_file(quick)
    return {"python": memory_impl(_MEM_PY, path, {}), "ptclisp": memory_impl(_MEM_PTC, path, {})}


# ------------------------------------------------------------------ k. a process-isolated run

def k_runs(quick: bool) -> int:
    """Runs per sample of workload k (its times are per run)."""
    return 2 if quick else 10


def run_many(n: int, **run_options):
    """n `ptclisp.run(text, **run_options)`s of f's small programs, each text new; their sum.

    Workload f runs them with raised limits; k with `isolation="process"`, and its reference column
    the same runs in process."""
    salt = itertools.count()

    def go():
        base = next(salt) * n
        total = 0
        for k in range(n):
            r = run(small_program(base + k), **run_options)
            if not r.ok:
                raise BenchError(str(r.error))
            total += r.value
        return total
    return go


def w_isolated(quick):
    n = k_runs(quick)
    return {"python": Impl(run_many(n)), "ptclisp": Impl(run_many(n, isolation="process"))}


WORKLOADS = [
    Workload("a", "fib 25 (defn, recursion)", w_fib, target=3),
    Workload("b", "loop/recur sum 1..1e6", w_loop, target=3),
    Workload("c", "10k maps: filter, group-by, count+sum", w_maps, target=2),
    Workload("d", "10k strings: split, join, upper-case, frequencies", w_strings, target=2),
    Workload("d2", "d with (str/split line #\" \") (a regex literal)", w_split_regex, target=2),
    Workload("e", "sort-by + take 10 on 50k maps", w_sort, target=2),
    Workload("f", "read+analyze+eval 1,000 small programs", w_programs, target=3),
    Workload("g20", "grow map+vector 20k (assoc/conj)", w_grow(20_000)),
    Workload("g80", "grow map+vector 80k (assoc/conj)", w_grow(80_000)),
    Workload("h", "Session: 200 successive def/reuse turns", w_session),
    Workload("i", "cold start `ptclisp eval '(+ 1 2)'`", w_startup, target=4, about_ms=70),
    Workload("j", "peak memory: Session holding 10 MB JSON", w_memory, target=2, unit="MB",
             max_reps=2),
    Workload("k", "run(isolation=\"process\") of a small program, per run (python column: run in process)",
             w_isolated, target=10, about_ms=1, per_sample=k_runs),
    Workload("t", "agent turn: 300-line program, 1 MB JSON, 20 tool calls, pmap", w_agent_turn),
]
GROWTH_LIMIT = 5.5  # 80k/20k time ratio; linear growth is ~4x
