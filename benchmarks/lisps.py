"""Columns for other Lisps on Python: hy and basilisp, each used only when it is installed.

They are measured, never depended on: install them into a separate venv for a
run (docs/performance.md says how). Each column evaluates program text the way
its language's users do (hy: `hy.read_many` + `hy.eval` into a module dict;
basilisp: read + compile + exec form by form into a namespace), so parse and
compile time are inside the timing, as they are for ptclisp. Hy programs are
written in Hy's own idiom (Python data and loops); basilisp reuses the
Clojure text of the ptclisp workloads with the host data converted to its
persistent collections outside the timing.
"""
from __future__ import annotations

import importlib.util
import itertools
import sys

from ptclisp import bench as B
from ptclisp.bench import BenchError, Impl, size


def available_columns() -> dict:
    """{column name: factory(workload key, quick) -> Impl | None} for the installed Lisps."""
    cols = {}
    if importlib.util.find_spec("hy") is not None:
        cols["hy"] = hy_column
    if importlib.util.find_spec("basilisp") is not None:
        cols["basilisp"] = basilisp_column
    return cols


# ------------------------------------------------------------------ hy

def _hy_eval(src: str, ns: dict):
    import hy
    val = None
    for form in hy.read_many(src):
        val = hy.eval(form, globals=ns)
    return val


def _hy_program(src: str, data: dict | None = None) -> Impl:
    def go():
        return _hy_eval(src, dict(data or {}))
    return Impl(go)


def hy_turns(n: int) -> list:
    """The session turns of workload h, in Hy."""
    out = ["(setv total 0) (setv items [])"]
    for i in range(1, n - 1):
        if i % 3 == 0:
            out.append(f"(setv total (+ total {i}))")
        elif i % 3 == 1:
            out.append(f"(.append items {i})")
        else:
            out.append(f"(defn f{i} [n] (+ n total (len items))) (f{i} {i})")
    out.append("[total (len items) (sum items)]")
    return out


HY_MAPS = """
(import collections [defaultdict])
(setv items (lfor i (range {n}) {{"id" i "price" (% (* i 37) 101) "cat" (get cats (% i 5))}}))
(setv groups (defaultdict list))
(for [it items] (when (> (get it "price") 20) (.append (get groups (get it "cat")) it)))
(dfor [cat vs] (.items groups) cat {{"count" (len vs) "total" (sum (gfor it vs (get it "price")))}})
"""

HY_STRINGS = """
(import collections [Counter])
(setv words (lfor line lines w (.split (.upper line) " ") w))
(setv joined (lfor line lines (.join "-" (.split line " "))))
{"lines" (len joined) "chars" (sum (gfor j joined (len j))) "freq" (dict (Counter words))}
"""


def hy_column(key: str, quick: bool) -> Impl | None:
    if key == "a":
        return _hy_program(f"(defn fib [n] (if (< n 2) n (+ (fib (- n 1)) (fib (- n 2))))) (fib {size(quick, 25, 15)})")
    if key == "b":
        n = size(quick, 1_000_000, 10_000)
        return _hy_program(f"(setv acc 0) (for [i (range 1 (+ {n} 1))] (+= acc i)) acc")
    if key == "c":
        return _hy_program(HY_MAPS.format(n=size(quick, 10_000, 500)), {"cats": B.CATS})
    if key in ("d", "d2"):  # d2 in Hy's idiom is d: `.split` on the separator
        return _hy_program(HY_STRINGS, {"lines": B.lines_data(size(quick, 10_000, 500))})
    if key == "e":
        rows = B.rows_data(size(quick, 50_000, 1000))
        return _hy_program('(cut (sorted rows :key (fn [r] (get r "score"))) 10)', {"rows": rows})
    if key == "f":
        import hy
        n = size(quick, 1000, 50)
        salt = itertools.count()

        def go():
            base = next(salt) * n
            return sum(hy.eval(hy.read(f"(sum (gfor x [{i} {i + 1} {i + 2} {i + 3}] :if (= (% x 2) 1) (* x x)) {i})"),
                               globals={}) for i in range(base, base + n))
        return Impl(go)
    if key in ("g20", "g80"):
        k = B.grow_size(20_000 if key == "g20" else 80_000, quick)
        return _hy_program(f"(setv m {{}} v []) (for [i (range {k})] (setv (get m i) (* 2 i)) (.append v i)) "
                           f"[(len m) (len v)]")
    if key == "h":
        turns = hy_turns(size(quick, 200, 20))

        def go():
            ns: dict = {}
            val = None
            for t in turns:
                val = _hy_eval(t, ns)
            return val
        return Impl(go)
    if key == "i":
        exe = B.script("hy")
        return B.process_impl([exe, "-c", "(print (+ 1 2))"]) if exe else None
    return None


# ------------------------------------------------------------------ basilisp

_BAS: dict = {}


def _basilisp():
    """Initialise basilisp once per process (its core compiles on the first run, then is cached)."""
    if not _BAS:
        sys.dont_write_bytecode = False  # let basilisp cache its compiled core for later runs
        from basilisp import main as bmain
        from basilisp.lang import compiler, reader, runtime
        from basilisp.lang import symbol as sym
        bmain.init()
        core = runtime.Namespace.get(runtime.CORE_NS_SYM)
        _BAS.update(compiler=compiler, reader=reader, runtime=runtime, sym=sym, core=core,
                    ctx=compiler.CompilerContext(filename="<bench>"), ids=itertools.count())
    return _BAS


def _bas_ns(data: dict | None = None):
    """A fresh namespace referring core and basilisp.string; host data becomes vars in namespace `data`."""
    b = _basilisp()
    rt, sym = b["runtime"], b["sym"]
    name = f"bench.n{next(b['ids'])}"
    with rt.ns_bindings(name) as ns:
        ns.refer_all(b["core"])
    _bas_eval("(require '[basilisp.string :as str :refer [split upper-case join]])", ns)
    if data:
        to_lisp = b["core"].find(sym.symbol("py->lisp")).value
        dns = rt.Namespace.get_or_create(sym.symbol("data"))
        for k, v in data.items():
            rt.Var.intern(dns, sym.symbol(k), to_lisp(v))
    return ns


def _bas_eval(src: str, ns):
    b = _basilisp()
    rt = b["runtime"]
    val = None
    with rt.ns_bindings(ns.name):
        for form in b["reader"].read_str(src, resolver=rt.resolve_alias):
            val = b["compiler"].compile_and_exec_form(form, b["ctx"], ns)
    return val


def _bas_plain(v):
    b = _basilisp()
    return b["core"].find(b["sym"].symbol("lisp->py")).value(v)


def _bas_program(src: str, data: dict | None = None) -> Impl:
    ns = _bas_ns(data)
    return Impl(lambda: _bas_eval(src, ns), _bas_plain)


def basilisp_column(key: str, quick: bool) -> Impl | None:
    if key == "a":
        return _bas_program(B.fib_src(size(quick, 25, 15)))
    if key == "b":
        return _bas_program(B.loop_src(size(quick, 1_000_000, 10_000)))
    if key == "c":
        return _bas_program(B.maps_src(size(quick, 10_000, 500)))
    if key == "d":
        return _bas_program(B.STRINGS_SRC, {"lines": B.lines_data(size(quick, 10_000, 500))})
    if key == "d2":
        return _bas_program(B.SPLIT_RE_SRC, {"lines": B.lines_data(size(quick, 10_000, 500))})
    if key == "e":
        return _bas_program(B.SORT_SRC, {"rows": B.rows_data(size(quick, 50_000, 1000))})
    if key == "f":
        n = size(quick, 1000, 50)
        salt = itertools.count()
        ns = _bas_ns()

        def go():
            base = next(salt) * n
            return sum(_bas_eval(B.small_program(i), ns) for i in range(base, base + n))
        return Impl(go)
    if key in ("g20", "g80"):
        return _bas_program(B.grow_src(B.grow_size(20_000 if key == "g20" else 80_000, quick)))
    if key == "h":
        turns, _ = B.session_programs(size(quick, 200, 20))

        def go():
            ns = _bas_ns()
            val = None
            for t in turns:
                val = _bas_eval(t, ns)
            return val
        return Impl(go, _bas_plain)
    if key == "i":
        exe = B.script("basilisp")
        return B.process_impl([exe, "run", "-c", "(println (+ 1 2))"]) if exe else None
    if key in ("j", "k", "t"):  # memory, process isolation and tools: nothing comparable in basilisp
        return None
    raise BenchError(f"no basilisp version of workload {key}")
