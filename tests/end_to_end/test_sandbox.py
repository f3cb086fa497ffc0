"""Hostile programs: nothing of the host is reachable, every resource attack ends in a typed error.

Each program must come back as a `Result` whose error kind is one of the
expected ones (or, for the harmless cases, a plain value), and the process
must stay healthy afterwards (see the autouse fixture). Timings are not
asserted here; benchmarks/fuzz.py reports the worst time over budget.
"""
from __future__ import annotations

import os
import sys
import tempfile
import threading
import time

import pytest

import ptclisp
from ptclisp import Limits
from ptclisp.runtime import meter as M
from ptclisp.runtime import guards
from ptclisp.runtime.guards import ENFORCER

# a file a hostile program tries to write (never created: no program can reach the file system)
SENTINEL = os.path.join(tempfile.gettempdir(), "ptclisp-sandbox-escape")
# where the package lives: no error message may name it
PACKAGE_HOME = os.path.dirname(os.path.dirname(os.path.abspath(ptclisp.__file__)))
REP = "(defn rep [n x] (mapv (fn [_] x) (range n))) "  # PTC has no (repeat n x)


def _echo(args):
    return {"ok": True, "keys": sorted(args)}


_BIG = {"rows": [{"id": i, "name": "x" * 50} for i in range(20000)]}

TOOLS = {"t": _echo, "big": lambda args: _BIG}


@pytest.fixture(autouse=True)
def healthy_process():
    env = {k: v for k, v in os.environ.items() if k != "PYTEST_CURRENT_TEST"}
    cwd = os.getcwd()
    threads = threading.active_count()
    recursion_limit, digits = sys.getrecursionlimit(), sys.get_int_max_str_digits()
    yield
    assert getattr(M._local, "meter", None) is None, "an evaluation left its meter installed"
    assert sys.getrecursionlimit() == recursion_limit, "the host's recursion limit was not restored"
    assert sys.get_int_max_str_digits() == digits
    assert threading.get_ident() not in ENFORCER._armed, "an evaluation left its thread armed for a hard stop"
    # workers a stopped pmap abandoned unwind on their own (the hard stop reaches them); a loaded machine
    # may need a moment, but none may stay armed
    deadline = time.monotonic() + 10
    while ENFORCER._armed and time.monotonic() < deadline:
        time.sleep(0.01)
    assert not ENFORCER._armed, "a parallel worker stayed armed for a hard stop"
    assert {k: v for k, v in os.environ.items() if k != "PYTEST_CURRENT_TEST"} == env and os.getcwd() == cwd
    assert not os.path.exists(SENTINEL)
    # idle parallel workers may stay around (they are reused), but nothing else may pile up
    assert threading.active_count() <= threads + 10
    r = ptclisp.run("(reduce + (map inc [1 2 3]))")
    assert r.status == "ok" and r.value == 9


def check(src, kinds, limits=None, tools=TOOLS, **kw):
    r = ptclisp.run(src, tools=tools, limits=limits or Limits(timeout_ms=1000), **kw)
    assert isinstance(r, ptclisp.Result)
    if kinds is None:
        assert r.status != "error", r.error
    else:
        assert r.status == "error", f"expected an error, got {r.status} {r.value!r}"
        assert r.error.kind in kinds, r.error
        assert r.error.kind != "internal_error"
    return r


NOT_HERE = {"unbound_var", "invalid_form", "unsupported_java_class", "unsupported_java_member",
            "unsupported_method", "parse_error", "invalid_arity"}

# ------------------------------------------------------------------ reaching the host

HOST_ACCESS = [
    # Java interop: only a fixed table of classes and members exists
    '(.getClass "x")', '(. "x" getClass)', '(.__class__ "x")', '(.-__class__ "x")', '(.__init__ "x")',
    "(.__globals__ inc)", "(.__code__ (fn [x] x))", "(.__dict__ {})", "(.__subclasses__ 1)",
    "(java.lang.Runtime/getRuntime)", '(.exec (Runtime/getRuntime) "ls")', '(System/getenv "HOME")',
    "(System/getenv)", '(System/getProperty "user.home")', "(System/exit 0)", '(Class/forName "java.lang.Runtime")',
    '(new java.io.File "/etc/passwd")', '(java.io.File. "/etc/passwd")', "(Thread/sleep 100000)",
    "(Thread. (fn [] 1))", "(java.lang.System/exit 1)", '(java.nio.file.Files/readAllLines "/etc/passwd")',
    '(ProcessBuilder. ["ls"])', "(java.net.URL. \"http://example.com\")",
    # files, processes, network, eval, namespaces, vars, macros, state
    f'(spit "{SENTINEL}" "y")', '(slurp "/etc/passwd")', '(load-file "/etc/passwd")', '(load-string "(+ 1 2)")',
    "(eval '(+ 1 2))", '(eval (read-string "(+ 1 2)"))', '(read-string "(+ 1 2)")', "(resolve 'inc)",
    "(ns-resolve 'clojure.core 'inc)", "(var inc)", "(find-var 'clojure.core/inc)", "(intern 'user 'x 1)",
    "(alter-var-root #'inc (constantly 1))", "(import 'java.io.File)", "(require 'clojure.java.io)",
    "(ns foo (:import java.io.File))", "(in-ns 'clojure.core)", "(defmacro m [] 1)",
    "(set! *warn-on-reflection* true)", "(binding [*out* nil] 1)", "(future 1)", "(agent 1)", "(add-watch (atom 1) :k inc)",
    "(locking 1 2)", "(clojure.core/eval 1)", '(core/slurp "x")', '(clojure.java.shell/sh "ls")',
    '(sh "ls")', "(shutdown-agents)", "(meta inc)", "(with-meta [1] {:a 1})", "(vary-meta [1] assoc :a 1)",
    "^{:tag String} [1]", "(def clojure.core/inc 1)",
    # names of the generated code's globals and of Python builtins are not PTC names
    '(__import__ "os")', "__builtins__", "(__builtins__)", "_m", "(_m)", "_ns", "(_ns)", "_data",
    '(_tool "t" [])', "(_tool_ref \"t\")", "_hist", "(_hist 1)", "(len [1])", "(isinstance 1 2)",
    '(getattr inc "__globals__")', "(globals)", "(locals)", "(vars)", '(open "/etc/passwd")',
    '(exec "import os")', '(compile "1" "x" "eval")', "b_map", "(b_map inc [1])", "_c0", "__ptc_main__",
    "(__ptc_factory__)", "_rt_ds_seq", "(_Return 1)", "(_PtcError 1)", "(__class__)", "object", "(object)",
    "__name__", "__file__", "__loader__", "(breakpoint)", "(help)", "(exit)", "(quit)",
]


@pytest.mark.parametrize("src", HOST_ACCESS)
def test_the_host_is_out_of_reach(src):
    check(src, NOT_HERE)


@pytest.mark.parametrize("src", [
    # Python-looking names are ordinary PTC names: locals, parameters and definitions
    "(let [_m 1 _ns 2 __builtins__ 3 __import__ 4 type 5] [_m _ns __builtins__ __import__ type])",
    "(let [_ns {}] (def x 1) x)",
    "((fn [_m] (+ 1 2)) 5)",
    "((fn [__builtins__ _data _tool] (inc 1)) 5 6 7)",
    "(do (def _m 1) (def _ns 2) (def __builtins__ 3) (+ _m _ns __builtins__))",
    "(do (def inc 5) inc)",
    "(do (def type 1) type)",
    "(defn __import__ [x] x) (__import__ \"os\")",
    "(let [b_map 1 _c0 2 l1_x 3] (+ b_map _c0 l1_x))",
    # keyword and data/tool names that look like attributes are just data
    "(get {} :__class__)", "(:__globals__ inc)", '(:__class__ "x")', "(get inc :__globals__)",
    '(get "abc" :__class__)', "(get-in inc [:__globals__ :os])", "data/__class__", "data/__dict__",
    '(json/parse-string "{\\"__class__\\": {\\"__init__\\": 1}}")',
    # introspection only knows the registry and definitions
    '(source "/etc/passwd")', "(doc __import__)", '(apropos "__")', "(dir 'os)", "(export-meta 'os/path)",
    # format and str are not Python format strings
    '(format "{0.__class__}" "x")', '(format "{}" "x")', '(str "{0.__class__.__mro__}")',
    '(format "%s" inc)', "(str inc)", "(pr-str (fn [x] x))",
    # tools receive plain data
    '(tool/t {"__class__" 1 :__init__ 2})',
])
def test_python_looking_names_are_only_data(src):
    check(src, None)


def test_definitions_cannot_shadow_the_generated_code_globals():
    s = ptclisp.Session(context={"x": 1}, tools=TOOLS)
    for src in ("(def _m 0)", "(def _ns 0)", "(def _data 0)", "(def _tool 0)", "(def __builtins__ 0)"):
        assert s.eval(src).status == "ok"
    r = s.eval("[(+ data/x 1) (tool/t {:a 1}) (loop [i 0] (if (< i 10) (recur (inc i)) i))]")
    assert r.status == "ok", r.error
    assert ptclisp.to_python(r.value)[0] == 2


@pytest.mark.parametrize("src, kinds", [
    ('(format "%(x)s" {:x 1})', {"runtime_error"}),
    ('(format "%999999999d" 1)', {"runtime_error"}),
    ('(format "%.99999999f" 1.0)', {"runtime_error"}),
    ('(keyword "__class__")', {"runtime_error", None}),
    ('(re-find #"(?{print(1)})" "a")', {"invalid_form", "runtime_error", "type_error"}),
    ('(re-find (re-pattern "(?P<x>a)(?P=x)") "aa")', {None, "runtime_error"}),
    ("(tool/t {:f inc})", {"invalid_tool_args"}),
    ("(tool/t {:x (fn [] 1)})", {"invalid_tool_args"}),
    ("(tool/t inc)", {"invalid_tool_args"}),
    ("(tool/__init__ {})", {"unknown_tool"}),
    ("(data/__init__)", {"not_callable"}),
    ('(json/generate-string {:a inc})', {"type_error"}),
])
def test_odd_inputs_fail_typed(src, kinds):
    r = ptclisp.run(src, tools=TOOLS)
    got = r.error.kind if r.error else None
    assert got in kinds, r.error


def test_error_messages_do_not_carry_host_objects():
    for src in ("(inc nil)", "(tool/t {:f inc})", "((fn [x] x))", "(nth 5 0)", "(apply max [])"):
        r = ptclisp.run(src, tools=TOOLS)
        assert r.status == "error"
        for leak in ("<function", "0x", "Traceback", PACKAGE_HOME, "site-packages", "object at"):
            assert leak not in r.error.message, (src, r.error.message)


def test_a_host_tool_exception_becomes_a_typed_error():
    def broken(args):
        raise RuntimeError("host trouble")
    r = ptclisp.run("(tool/broken {})", tools={"broken": broken})
    assert r.error.kind == "tool_error"
    r = ptclisp.run("(pmap (fn [i] (tool/broken {:i i})) [1 2])", tools={"broken": broken})
    assert r.error.kind == "pmap_error" and r.error.details["reason"] == "tool_error"


# ------------------------------------------------------------------ exhausting resources

NEST = "(loop [v [] i 0] (if (< i 900) (recur [v] (inc i)) v))"

EXHAUSTION = [
    # time
    ("(loop [i 0] (recur (inc i)))", Limits(timeout_ms=200, loop_limit=10**12), {"timeout"}),
    ("(defn f [n] (if (= n 0) 0 (+ (f (dec n)) (f (dec n))))) (f 40)", Limits(timeout_ms=200), {"timeout"}),
    # builtins looping over builtins never pass a deadline check: the hard stop ends them
    ("(count (map reduce (mapv (fn [_] +) (range 100)) (let [r (range 1000000)] (mapv (fn [_] r) (range 100)))))",
     Limits(timeout_ms=300), {"timeout"}),
    ("(reduce (partial reduce +) 0 (let [r (range 1000000)] (mapv (fn [_] r) (range 100))))", Limits(timeout_ms=300),
     {"timeout"}),
    ("(count (for [i (range 1000) j (range 1000)] [i j]))", Limits(timeout_ms=300), {"timeout", "memory_exceeded"}),
    ('(re-find (re-pattern "(a|aa)+$") (apply str (conj (rep 5000 "a") "b")))', Limits(timeout_ms=1000),
     {"type_error", "timeout"}),
    ("(let [v (loop [v {} i 0] (if (< i 999) (recur {v v} (inc i)) v))] (count (str v)))", Limits(timeout_ms=300),
     {"timeout", "memory_exceeded"}),
    # memory
    ("(range 100000000)", None, {"memory_exceeded"}),
    ('(apply str (rep 1000000 "abcdefghij"))', None, {"memory_exceeded"}),
    ("(reduce * (range 1 100000))", None, {"memory_exceeded"}),
    ("(loop [x 2 i 0] (if (< i 40) (recur (* x x) (inc i)) x))", None, {"memory_exceeded"}),
    ("(loop [s \"x\" i 0] (if (< i 100) (recur (str s s) (inc i)) (count s)))", None, {"memory_exceeded"}),
    ("(mapv (fn [x] (vec (range 10000))) (range 10000))", None, {"memory_exceeded"}),
    ("(zipmap (range 1000000) (range 1000000))", None, {"memory_exceeded"}),
    ("(for [i (range 1000) j (range 1000) k (range 1000)] 1)", None, {"memory_exceeded", "timeout"}),
    ('(parse-long (apply str (rep 1000000 "9")))', None, {"memory_exceeded"}),
    # recursion
    ("(defn f [] (f)) (f)", None, {"memory_exceeded"}),
    ("(defn f [x] (map f [x])) (f 0)", None, {"memory_exceeded"}),
    ("(defn f [x] (reduce (fn [a b] (f b)) 0 [x])) (f 0)", None, {"memory_exceeded"}),
    ("((fn [f] (f f)) (fn [f] (f f)))", None, {"memory_exceeded"}),
    ("(#(%1 %1) #(%1 %1))", None, {"memory_exceeded"}),
    ("(defn f [x] (pmap f [x])) (f 0)", None, {"parallel_capacity_exceeded"}),
    # loops
    ("(loop [] (recur))", None, {"loop_limit_exceeded"}),
    ("(defn f [n] (if (< n 0) n (recur (inc n)))) (f 0)", None, {"loop_limit_exceeded"}),
    # output
    ("(doseq [i (range 100000)] (println i))", Limits(timeout_ms=5000), {"memory_exceeded"}),
    ('(doseq [i (range 100)] (println (apply str (rep 100000 "x"))))', None, {"memory_exceeded"}),
    # what tools and workers hand back is paid for by the caller (no amplification past the budget)
    # (a generous deadline: on a loaded machine the budget, not the clock, must be what ends them)
    ("(loop [acc [] i 0] (if (< i 200) (recur (conj acc (tool/big {:i i})) (inc i)) (count acc)))",
     Limits(timeout_ms=30_000), {"memory_exceeded"}),
    ("(loop [acc [] i 0] (if (< i 6) (recur (conj acc (pmap (fn [_] (vec (range 300000))) (range 8))) (inc i)) 0))",
     Limits(timeout_ms=30_000, pmap_timeout_ms=30_000), {"memory_exceeded"}),
    # tool calls and workers
    ("(doseq [i (range 10)] (tool/t {:i i}))", Limits(max_tool_calls=3), {"tool_call_limit_exceeded"}),
    ("(pmap (fn [i] (tool/t {:i i})) (range 10))", Limits(max_tool_calls=3), {"tool_call_limit_exceeded"}),
    ("(pmap (fn [x] (pmap inc [x])) (range 8))", None, {"parallel_capacity_exceeded"}),
    ("(pmap (fn [x] (pcalls #(pmap inc [x]))) (range 4))", Limits(max_parallel_workers=4),
     {"parallel_capacity_exceeded"}),
    # deep nesting: in source, in data, in JSON
    ("(" * 100 + ")" * 100, None, {"parse_error"}),
    ("[" * 100 + "]" * 100, None, {"parse_error"}),
    ("{:a " * 70 + "1" + "}" * 70, None, {"parse_error"}),
    ("(-> 1 " + " ".join(["inc"] * 200000) + ")", None, {"memory_exceeded", "invalid_form"}),
    ('(json/parse-string (str (apply str (rep 100000 "[")) (apply str (rep 100000 "]"))))', None, None),
    ('(json/parse-string (str (apply str (rep 50000 "{\\"a\\":")) "1" (apply str (rep 50000 "}"))))', None, None),
    (f"(str {NEST})", None, None),
    (f"(json/generate-string {NEST})", None, None),
    (f"(clojure.walk/postwalk identity {NEST})", None, None),
    (f"(let [v {NEST}] (= v v))", None, None),
    # sizes of the program itself
    ("(+ 1 2)" + " " * 1_100_000, None, {"program_too_large"}),
    ("[" + " ".join(f":k{i}" for i in range(20000)) + "]", None, {"symbol_limit_exceeded"}),
    # the value handed back
    ("(vec (range 100000))", Limits(max_result_bytes=1000), {"runtime_limit_exceeded"}),
]


@pytest.mark.parametrize("src, limits, kinds", EXHAUSTION, ids=[s[:50] for s, _, _ in EXHAUSTION])
def test_resource_attacks_end_typed(src, limits, kinds):
    if "(rep " in src:
        src = REP + src
    r = ptclisp.run(src, tools=TOOLS, limits=limits or Limits())
    if kinds is None:  # a harmless value or a typed error
        assert r.error is None or r.error.kind in {"memory_exceeded", "parse_error", "type_error", "runtime_error"}, \
            r.error
    else:
        assert r.status == "error" and r.error.kind in kinds, r.error


def test_the_hard_stop_is_what_ends_a_builtin_bound_loop():
    before = ENFORCER.delivered
    r = ptclisp.run("(reduce (partial reduce +) 0 (let [r (range 1000000)] (mapv (fn [_] r) (range 100))))",
                    limits=Limits(timeout_ms=200))
    assert r.error.kind == "timeout"
    assert r.error.details.get("hard_stop") is True
    assert ENFORCER.delivered == before + 1


def test_a_session_survives_every_attack():
    s = ptclisp.Session(tools=TOOLS)
    assert s.eval("(def keep [1 2 3])").status == "ok"
    for src, limits, _ in EXHAUSTION[:12]:
        s.eval(REP + src if "(rep " in src else src, limits=limits)
    r = s.eval("(conj keep 4)")
    assert ptclisp.to_python(r.value) == [1, 2, 3, 4]
    assert ptclisp.to_python(s.eval("keep").value) == [1, 2, 3]


def test_parallel_attacks_leave_no_busy_workers_behind():
    lim = Limits(timeout_ms=300)
    ptclisp.run("(pmap (fn [_] (reduce (partial reduce +) 0 (let [r (range 1000000)] (mapv (fn [_] r) (range 100))))) [1 2])",
                limits=lim)
    r = ptclisp.run("(pmap inc (range 8))", limits=Limits(max_parallel_workers=8))
    assert r.status == "ok"


def _frame_in(filename: str, name: str, inner=None):
    """A live frame of a function called `name` (`Class.method` for a method) whose code claims to come
    from `filename`."""
    ns: dict = {}
    cls, _, fname = name.rpartition(".")
    text = f"def {fname}(cb):\n    return cb()\n"
    if cls:
        text = f"class {cls}:\n    @staticmethod\n    " + text.replace("\n    ", "\n        ")
    exec(compile(text, filename, "exec"), ns)  # noqa: S102 - test scaffolding
    fn = getattr(ns[cls], fname) if cls else ns[fname]
    return fn(inner or (lambda: sys._getframe(1)))


_VALUES = guards._VALUES[0] + ("values.py" if guards._VALUES[0].endswith("/") else "")


@pytest.mark.parametrize("filename, name, ok", [
    ("<ptc>", "fn__f", True),
    (guards._LIB + "seqs.py", "mapping", True),
    (guards._INTERP, "ptc_fn", True),
    (_VALUES, "hk", True),
    (_VALUES, "Map.lookup", True),
    (_VALUES, "Vector.conj", False),       # may be halfway through extending a value in place
    (_VALUES, "Map.assoc", False),
    (_VALUES, "lookup", False),            # matched by qualified name: a function called lookup is not Map.lookup
    (guards._PKG + "/host/tools.py", "call", False),   # host tool code runs under here
    (guards._PKG + "/session.py", "evaluate", False),
    ("/somewhere/host_app.py", "handler", False),
])
def test_where_a_hard_stop_may_land(filename, name, ok):
    assert guards._interruptible(_frame_in(filename, name)) is ok


def test_the_safe_functions_of_values_are_checked_when_the_guards_load(monkeypatch):
    guards._check_values_safe()
    monkeypatch.setattr(guards, "_VALUES_SAFE", guards._VALUES_SAFE | {"Vector.no_such_method"})
    with pytest.raises(ImportError, match="not functions of ptclisp.values: Vector.no_such_method"):
        guards._check_values_safe()


@pytest.mark.parametrize("below, name", [
    (_VALUES, "Vector.conj"),                      # halfway through extending a value in place
    (guards._PKG + "/host/tools.py", "call"),           # a tool call in progress (its ledger entry is not written yet)
])
def test_no_hard_stop_above_an_unsafe_frame(below, name):
    top = _frame_in(below, name, lambda: _frame_in(guards._LIB + "seqs.py", "mapping"))
    assert guards._interruptible(top) is False
