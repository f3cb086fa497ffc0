"""What a host embedding ptclisp may rely on (docs/security.md, "What a host may rely on").

* limits: `Limits` refuses values that cannot be honoured, and nothing one
  evaluation brings can switch off the clock of another (the watchdog thread
  survives and is restarted);
* a session runs one evaluation at a time: re-entry from a tool or another
  thread is refused without touching the running evaluation's undo log or meter;
* importing and running changes no interpreter setting (recursion limit,
  integer digit limit);
* what a host passes in is checked at the call, in one place;
* the host's Ctrl-C propagates; an unexpected Python exception is an
  `internal_error` with its traceback for the host, never a guessed user
  error and never text on the host's streams.
"""
from __future__ import annotations

import json
import logging
import math
import subprocess
import sys
import textwrap
import threading
import time

import pytest

import ptclisp
from ptclisp import Limits, Session
from ptclisp.runtime import meter as M

FIB = "(defn f [n] (if (< n 2) n (+ (f (- n 1)) (f (- n 2))))) (f 40)"  # hours of work, if nothing stops it
SPIN = "(loop [i 0] (recur (inc i)))"
HANG_S = 30.0  # a hang guard far above every budget below, not a speed assertion


def guarded(fn):
    """fn() on another thread; fails the test instead of hanging it when fn never returns."""
    box: list = []

    def go():
        try:
            box.append(fn())
        except BaseException as exc:  # noqa: BLE001 - handed back to the test
            box.append(exc)

    t = threading.Thread(target=go, daemon=True)
    t.start()
    t.join(HANG_S)
    assert box, "no answer: the evaluation's limits did not stop it"
    if isinstance(box[0], BaseException):
        raise box[0]
    return box[0]


def assert_cooperative_timeout(r):
    """A timeout the meter raised itself (the clock flag was set), not the hard stop's backstop."""
    assert r.status == "error" and r.error.kind == "timeout", r.error
    assert not r.error.details.get("hard_stop"), "only the hard stop ended it: the deadline flag was never set"


def run_python(code: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True, text=True,
                          timeout=120)


# ------------------------------------------------------------------ 1. limits

@pytest.mark.parametrize("field, value, exc", [
    ("timeout_ms", 10 ** 14, ValueError),
    ("timeout_ms", float("inf"), ValueError),
    ("timeout_ms", float("nan"), ValueError),
    ("timeout_ms", 0, ValueError),
    ("timeout_ms", -5, ValueError),
    ("timeout_ms", "200", TypeError),
    ("timeout_ms", True, TypeError),
    ("pmap_timeout_ms", 10 ** 30, ValueError),
    ("compile_timeout_ms", -1, ValueError),
    ("regex_timeout_ms", float("inf"), ValueError),
    ("memory_bytes", 0, ValueError),
    ("memory_bytes", 1e6, TypeError),
    ("memory_bytes", 10 ** 400, ValueError),
    ("loop_limit", -1, ValueError),
    ("loop_limit", None, TypeError),
    ("max_parallel_workers", -2, ValueError),
    ("recursion_limit", 0, ValueError),
    ("isolation", "elsewhere", ValueError),
])
def test_limits_refuse_values_they_cannot_honour(field, value, exc):
    with pytest.raises(exc) as e:
        Limits(**{field: value})
    assert f"Limits.{field}" in str(e.value)
    assert len(str(e.value)) < 300  # a huge number is described, not printed
    lim = Limits()
    with pytest.raises(exc):
        setattr(lim, field, value)  # set later: checked as well
    assert getattr(lim, field) == getattr(Limits(), field)


def test_none_is_no_limit_where_documented():
    lim = Limits(timeout_ms=None, compile_timeout_ms=None, pmap_timeout_ms=None, max_tool_calls=None,
                 max_result_bytes=None)
    assert ptclisp.run("(+ 1 2)", limits=lim).value == 3
    assert Limits(max_tool_calls=0, loop_limit=0, max_prints=0).max_tool_calls == 0  # zero of these: none allowed


def test_the_largest_timeout_is_waited_for_and_timeouts_still_hold():
    assert ptclisp.run("(+ 1 2)", limits=Limits(timeout_ms=M.MAX_TIME_MS)).value == 3
    assert_cooperative_timeout(guarded(lambda: ptclisp.run(FIB, limits=Limits(timeout_ms=500))))


def test_a_limit_forced_past_validation_cannot_stop_the_watchdog():
    # the issue's reproduction, with the validators bypassed: a deadline far beyond what the
    # OS can wait for reaches the watchdog's condition wait
    lim = Limits()
    object.__setattr__(lim, "timeout_ms", 10 ** 14)
    assert ptclisp.run("(+ 1 2)", limits=lim).value == 3
    time.sleep(0.05)  # let the watchdog start waiting for that deadline
    assert M._WATCHDOG._thread is not None and M._WATCHDOG._thread.is_alive()
    assert_cooperative_timeout(guarded(lambda: ptclisp.run(FIB, limits=Limits(timeout_ms=500))))


class _Unexpirable:
    """A meter-like object whose expiry raises: whatever happens inside the watchdog's loop."""

    def __init__(self, exc):
        self.exc = exc

    @property
    def expired(self):
        return False

    @expired.setter
    def expired(self, _value):
        raise self.exc


def _wait_for(predicate, seconds=10.0):
    end = time.monotonic() + seconds
    while not predicate():
        assert time.monotonic() < end, "condition not reached"
        time.sleep(0.01)


def test_an_exception_inside_the_watchdog_loop_does_not_end_it():
    assert ptclisp.run("1").ok  # the watchdog is running
    thread = M._WATCHDOG._thread
    wid = M._WATCHDOG.watch(_Unexpirable(ValueError("boom")), time.monotonic())
    _wait_for(lambda: wid not in M._WATCHDOG._live)  # processed (and its exception contained)
    assert M._WATCHDOG._thread is thread and thread.is_alive()
    assert_cooperative_timeout(guarded(lambda: ptclisp.run(FIB, limits=Limits(timeout_ms=500))))


def test_a_watchdog_that_ended_is_started_again(monkeypatch):
    monkeypatch.setattr(threading, "excepthook", lambda _args: None)  # the thread's end is intended here
    assert ptclisp.run("1").ok
    restarts = M._WATCHDOG.restarts
    M._WATCHDOG.watch(_Unexpirable(SystemExit()), time.monotonic())  # not an Exception: it ends the thread
    _wait_for(lambda: M._WATCHDOG._thread is None)
    assert_cooperative_timeout(guarded(lambda: ptclisp.run(FIB, limits=Limits(timeout_ms=500))))
    assert M._WATCHDOG.restarts == restarts + 1


def test_the_hard_stop_thread_also_expires_overdue_meters():
    from ptclisp.runtime.guards import ENFORCER
    m = M.Meter(Limits())
    m.deadline = time.monotonic() - 1.0  # overdue, and never shown to the watchdog
    fake_tid = -12345
    ENFORCER.arm(fake_tid, m)
    try:
        ENFORCER.poke()
        _wait_for(lambda: m.expired)
    finally:
        ENFORCER.disarm(fake_tid)


def test_cli_refuses_an_absurd_timeout_as_a_usage_error():
    for bad in ("99999999999999", "0", "-5", "1e3"):
        p = subprocess.run([sys.executable, "-m", "ptclisp.commands.main", "eval", "--timeout-ms", bad, "(+ 1 2)"],
                           capture_output=True, text=True, timeout=120)
        assert p.returncode == 2, (bad, p.stderr)
        assert "--timeout-ms" in p.stderr and "Traceback" not in p.stderr
    p = subprocess.run([sys.executable, "-m", "ptclisp.commands.main", "eval", "--timeout-ms", "200", "(+ 1 2)"],
                       capture_output=True, text=True, timeout=120)
    assert p.returncode == 0 and p.stdout.strip() == "3"


# ------------------------------------------------------------------ 4. one evaluation at a time

def _reentrant_session(**kw):
    inner = []
    s = Session(tools={"reenter": lambda args: inner.append(s.eval("(def b 2) :inner")) or "back"}, **kw)
    return s, inner


def test_reentry_from_a_tool_is_refused_and_the_outer_evaluation_rolls_back():
    s, inner = _reentrant_session()
    r = s.eval("(def a 1) (tool/reenter {}) (fail :boom)")
    assert r.status == "failed"
    assert "a" not in s.definitions and "b" not in s.definitions
    (ir,) = inner
    assert ir.status == "error" and ir.error.kind == "runtime_error"
    assert ir.error.details == {"reason": "session_busy"}
    assert s.eval("(def a 1) a").value == 1  # the session is free again afterwards


def test_reentry_does_not_replace_the_outer_evaluations_clock():
    s, inner = _reentrant_session(limits=Limits(timeout_ms=500, loop_limit=10 ** 12))
    r = guarded(lambda: s.eval("(tool/reenter {}) " + SPIN))
    assert_cooperative_timeout(r)
    assert inner[0].error.details == {"reason": "session_busy"}


def test_a_tool_may_evaluate_in_another_session():
    other = Session()
    s = Session(tools={"ask": lambda args: other.eval("(def seen 1) (+ 40 2)").value},
                limits=Limits(timeout_ms=500, loop_limit=10 ** 12))
    assert s.eval("(def a (tool/ask {})) a").value == 42
    assert other.definitions == {"seen": 1} and s.definitions == {"a": 42}
    assert_cooperative_timeout(guarded(lambda: s.eval("(tool/ask {}) " + SPIN)))  # the outer clock still runs


def test_another_thread_gets_busy_while_a_session_evaluates():
    entered, release = threading.Event(), threading.Event()

    def block(_args):
        entered.set()
        release.wait(10)
        return 1

    s = Session(tools={"block": block})
    box = []
    t = threading.Thread(target=lambda: box.append(s.eval("(def a (tool/block {})) a")))
    t.start()
    try:
        assert entered.wait(10)
        r = s.eval("(def a 99) a")
        assert r.status == "error" and r.error.details == {"reason": "session_busy"}
    finally:
        release.set()
        t.join(10)
    assert box[0].value == 1 and s.definitions == {"a": 1}


def test_a_mission_session_is_busy_for_a_second_thread_too():
    from ptclisp.agent import AgentLimits, Capability, Mission, MissionSession
    entered, release = threading.Event(), threading.Event()

    def block(_args):
        entered.set()
        release.wait(10)
        return {"ok": 1}

    ms = MissionSession("m", Mission(capabilities=[Capability("block", block, effect="read")]), AgentLimits(),
                        lambda: {})
    t = threading.Thread(target=lambda: ms.eval("(tool/block {})"))
    t.start()
    try:
        assert entered.wait(10)
        ev = ms.eval("1")
        assert (ev.outcome, ev.reason) == ("busy", "evaluation_in_progress")
    finally:
        release.set()
        t.join(10)


# ------------------------------------------------------------------ 5. interpreter settings

def test_import_and_evaluations_leave_the_interpreters_settings_alone():
    p = run_python("""
        import json, sys
        sys.setrecursionlimit(2345)
        sys.set_int_max_str_digits(1000)
        def now():
            return [sys.getrecursionlimit(), sys.get_int_max_str_digits()]
        seen = {"before": now()}
        import ptclisp
        from ptclisp import Limits
        seen["import"] = now()
        programs = {
            "ok": "(+ 1 2)",
            "error": "(+ 1 :a)",
            "deep": "(defn f [n] (if (= n 0) 0 (inc (f (dec n))))) (f 20000)",
            "timeout": "(loop [i 0] (recur (inc i)))",
            "pmap": "(pmap (fn [x] (reduce + (range x))) (range 50))",
            "pmap error": "(pmap (fn [x] (/ 1 (- x 3))) (range 8))",
            "big int": "(count (str (reduce *' (range 1 3000))))",
            "prelude": None,
        }
        lim = Limits(timeout_ms=300, loop_limit=10**9)
        for name, src in programs.items():
            if src is None:
                r = ptclisp.run("(u/f 2)", preludes='(ns u "u") (defn f "f" [x] (* x 2))')
            else:
                r = ptclisp.run(src, limits=lim)
            seen[name] = now() + [r.status, r.error.kind if r.error else r.value if type(r.value) is int else None]
        s = ptclisp.Session(limits=lim)
        s.eval("(def x 1)"); s.eval("(fail 2)"); s.eval("(defn g [n] (if (= n 0) 0 (inc (g (dec n))))) (g 9000)")
        seen["session"] = now()
        print(json.dumps(seen))
    """)
    assert p.returncode == 0 and p.stderr == "", p.stderr
    seen = json.loads(p.stdout)
    for step, values in seen.items():
        assert values[:2] == [2345, 1000], (step, values)
    assert seen["ok"][2:] == ["ok", 3]
    assert seen["deep"][2:] == ["error", "memory_exceeded"]  # the budget applied during the run
    assert seen["timeout"][2:] == ["error", "timeout"]
    assert seen["pmap error"][2:] == ["error", "pmap_error"]
    assert seen["big int"][2:] == ["ok", 9128]  # printed although the host allows only 1000 digits
    assert seen["prelude"][2:] == ["ok", 4]


@pytest.mark.parametrize("digits", [640, 4300, 0])
def test_big_integers_print_whatever_the_hosts_digit_limit(digits):
    before = sys.get_int_max_str_digits()
    sys.set_int_max_str_digits(digits)
    try:
        fact = math.factorial(2999)
        r = ptclisp.run("(let [b (reduce *' (range 1 3000))] [(str b) (pr-str (- b))])")
        text = r.value[0]
        assert len(text) == 9128 and text.startswith("13831198678126") and text.endswith("0" * 10)
        assert r.value[1] == "-" + text
        assert ptclisp.pr_str(fact) == text
        r = ptclisp.run('(json/parse-string (str "[" (reduce *\' (range 1 3000)) "]"))')
        assert len(r.value) == 1 and r.value[0] == fact
        assert sys.get_int_max_str_digits() == digits
    finally:
        sys.set_int_max_str_digits(before)


def test_a_cached_tool_takes_a_huge_integer_argument():
    calls = []
    tool = ptclisp.Tool("echo", lambda args: calls.append(args) or args, cache=True)
    r = ptclisp.run("(let [b (reduce *' (range 1 3000))] "
                    "[(= b (:x (tool/echo {:x b}))) (= b (:x (tool/echo {:x b}))) (tool/echo {:x {\"i\" (str b)}})])",
                    tools=[tool])
    assert r.status == "ok", r.error
    assert r.value[:2] == [True, True] and len(calls) == 2  # the repeated call was served from the cache


def test_schema_checks_describe_a_huge_integer_by_its_size():
    tool = ptclisp.Tool("t", lambda args: args, input_schema={"type": "object", "properties": {"x": {"maximum": 5}}})
    r = ptclisp.run("(tool/t {:x (reduce *' (range 1 3000))})", tools=[tool])
    assert r.error.kind == "invalid_tool_args"
    assert "<an integer of 30320 bits> is greater than the maximum of 5" in r.error.message
    assert (r.error.span.line, r.error.span.col) == (1, 1)
    from ptclisp.agent import AgentLimits, Capability, Mission, MissionSession, ResultContract
    cap = Capability("c", lambda args: args, input_schema={"type": "object", "properties": {"x": {"type": "string"}}},
                     effect="read")
    ev = MissionSession("m", Mission(capabilities=[cap]), AgentLimits(), lambda: {}).eval(
        "(tool/c {:x (reduce *' (range 1 3000))})")
    assert ev.outcome == "continued" and ev.value.lookup(ptclisp.read_string(":reason")).name == "invalid_arguments"
    assert ResultContract({"type": "string"}).check(math.factorial(3000))["valid?"] is False


def test_a_mission_may_return_a_huge_integer():
    from ptclisp.agent import AgentLimits, Mission, MissionSession
    ms = MissionSession("m", Mission(), AgentLimits(), lambda: {})
    ev = ms.eval("(return (reduce *' (range 1 3000)))")
    assert ev.outcome == "returned" and ev.value == math.factorial(2999)  # its size is measured, not refused


def test_an_error_message_about_a_huge_integer_stays_short():
    r = ptclisp.run("(let [b (reduce *' (range 1 3000))] (assoc [1] b 2))")
    assert r.error.kind == "runtime_error" and "30320 bits" in r.error.message
    assert (r.error.span.line, r.error.span.col) == (1, 37)
    for src in ("(bit-set 1 (- b))", "(partition-all (- b) [1])", '(format "%c" b)', "(.substring \"abc\" b)"):
        r = ptclisp.run(f"(let [b (reduce *' (range 1 3000))] {src})")
        assert r.status == "error" and r.error.kind != "internal_error", (src, r.error)
        assert len(r.error.message) < 200


# ------------------------------------------------------------------ 8. what a host passes in

def test_bad_context_is_a_clear_error_at_the_call():
    r = ptclisp.run("data/x", context=[1, 2])
    assert r.status == "error" and r.error.kind == "type_error"
    assert r.error.message.startswith("context must be a dict") and "got list" in r.error.message
    with pytest.raises(TypeError, match="context must be a dict"):
        Session(context=[1, 2])
    with pytest.raises(TypeError, match="context keys must be strings"):
        Session(context={1: 2})


def test_limits_may_be_a_dict():
    assert ptclisp.run("(+ 1 2)", limits={"timeout_ms": 5000}).value == 3
    assert_cooperative_timeout(guarded(lambda: ptclisp.run(SPIN, limits={"timeout_ms": 500, "loop_limit": 10 ** 9})))
    assert Session(limits={"loop_limit": 7}).limits.loop_limit == 7
    r = ptclisp.run("1", limits={"timeout": 5})
    assert r.error.kind == "type_error" and "unknown Limits field timeout" in r.error.message
    assert ptclisp.run("1", limits={"timeout_ms": -5}).error.message.startswith("Limits.timeout_ms")
    assert ptclisp.run("1", limits=5).error.message.startswith("limits must be a ptclisp.Limits")
    assert Session().eval("1", limits={"max_depth": 0}).error.kind == "type_error"
    with pytest.raises(ValueError, match="Limits.memory_bytes"):
        Session(limits={"memory_bytes": -1})


PRELUDE = '(ns u "Utilities.")\n(defn twice "Doubles x." [x] (* 2 x))\n'


def test_one_prelude_may_be_given_as_one_string(tmp_path):
    path = tmp_path / "u.clj"
    path.write_text(PRELUDE)
    assert ptclisp.run("(u/twice 4)", preludes=str(path)).value == 8
    assert ptclisp.run("(u/twice 4)", preludes=path).value == 8
    assert ptclisp.run("(u/twice 4)", preludes=PRELUDE).value == 8
    assert Session(preludes=PRELUDE).eval("(u/twice 5)").value == 10
    r = ptclisp.run("1", preludes=42)
    assert r.error.kind == "type_error" and "preludes must be" in r.error.message


def test_other_inputs_are_checked_at_the_call():
    assert "tools must be a dict" in ptclisp.run("1", tools=5).error.message
    assert "strict_data must be True or False" in ptclisp.run("1", strict_data="yes").error.message
    with pytest.raises(TypeError, match="tools must be a dict"):
        Session(tools="t")


def test_missions_and_agent_hosts_check_the_same_inputs():
    from ptclisp.agent import AgentHost, AgentLimits, Mission
    from ptclisp.providers import ScriptedProvider
    with pytest.raises(TypeError, match="Mission.data must be a dict"):
        Mission(data=[1, 2])
    with pytest.raises(TypeError, match="Mission.capabilities must be a list"):
        Mission(capabilities=print)
    assert Mission(preludes=PRELUDE).preludes == [PRELUDE]
    with pytest.raises(ValueError, match="Limits.timeout_ms"):
        AgentHost(models={"m": ScriptedProvider([])}, limits=AgentLimits(evaluation_timeout_ms=10 ** 14))
    host = AgentHost(models={"m": ScriptedProvider([])}, workflow=PRELUDE)
    assert host.eval("(u/twice 3)").value == 6
    with pytest.raises(TypeError, match="data must be a dict"):
        host.eval("1", data=[1])


def test_bad_input_never_prints_to_the_hosts_streams():
    p = run_python("""
        import ptclisp
        print(ptclisp.run("data/x", context=[1, 2]).error.kind)
        print(ptclisp.run("1", limits={"timeout_ms": 5000}).value)
        try:
            ptclisp.Session(context=[1, 2])
        except TypeError:
            print("TypeError")
    """)
    assert p.stdout.split() == ["type_error", "1", "TypeError"]
    assert p.stderr == ""


# ------------------------------------------------------------------ 10. the host's interrupts and Python exceptions

def test_keyboard_interrupt_in_a_tool_propagates_and_rolls_back():
    def interrupt(_args):
        raise KeyboardInterrupt

    s = Session(tools={"interrupt": interrupt})
    with pytest.raises(KeyboardInterrupt):
        s.eval("(def a 1) (tool/interrupt {}) 2")
    assert "a" not in s.definitions and s.history == []
    assert M._local.meter is None
    assert s.eval("(def a 3) a").value == 3  # not left busy
    with pytest.raises(KeyboardInterrupt):
        ptclisp.run("(tool/interrupt {})", tools={"interrupt": interrupt})
    with pytest.raises(KeyboardInterrupt):  # raised by a tool in a parallel worker: still the host's
        s.eval("(def b 1) (pmap (fn [i] (tool/interrupt {:i i})) (range 4))")
    assert "b" not in s.definitions


def test_a_signal_interrupt_during_a_running_program_propagates():
    import _thread
    if threading.current_thread() is not threading.main_thread():
        pytest.skip("signals are delivered to the main thread")

    def ctrl_c(_args):
        _thread.interrupt_main()  # as if the user pressed Ctrl-C while the program runs
        return 1

    with pytest.raises(KeyboardInterrupt):
        ptclisp.run("(tool/ctrl-c {}) " + SPIN, tools={"ctrl-c": ctrl_c},
                    limits=Limits(timeout_ms=5000, loop_limit=10 ** 12))


def test_system_exit_in_a_tool_propagates():
    def leave(_args):
        raise SystemExit(3)

    s = Session(tools={"leave": leave})
    with pytest.raises(SystemExit):
        s.eval("(def a 1) (tool/leave {})")
    assert s.definitions == {}


def test_an_unexpected_python_exception_is_an_internal_error_with_its_traceback(caplog):
    # a host callable handed in as data fails with a TypeError of its own: that is not the program's
    # type error, and no message of it is parsed into one
    def broken(_x):
        return len(5)

    with caplog.at_level(logging.ERROR, logger="ptclisp"):
        r = ptclisp.run("((identity data/f) 1)", context={"f": broken})
    assert r.error.kind == "internal_error"
    assert r.error.details["exception"] == "TypeError: object of type 'int' has no len()"
    assert "in broken" in r.error.details["traceback"]
    (rec,) = [x for x in caplog.records if x.name == "ptclisp"]
    assert rec.exc_info and rec.exc_info[0] is TypeError
    r = ptclisp.run("((identity data/f) 1)", context={"f": lambda _x: 1 / 0})
    assert r.error.kind == "internal_error"  # not a guessed arithmetic_error


def test_internal_errors_reach_no_stream_of_the_host():
    p = run_python("""
        import ptclisp
        r = ptclisp.run("((identity data/f) 1)", context={"f": lambda x: len(5)})
        print(r.error.kind, "traceback" in r.error.details)
    """)
    assert p.stdout.split() == ["internal_error", "True"]
    assert p.stderr == ""


@pytest.mark.parametrize("src, kind, col", [
    ("(let [f 5] (f 1))", "not_callable", 12),
    ("(defn foo [a] a) (foo 1 2)", "arity_mismatch", 18),
    ("(reduce inc [1 2])", "arity_error", 1),
    ("(apply max [])", "arity_error", 1),
    ("((juxt filterv) 1 2 3)", "arity_error", 1),  # raised in the runtime's juxt, on a factory-made builtin
    ("(let [f map] (f))", "arity_error", 14),
])
def test_calls_the_program_made_keep_their_user_errors(src, kind, col):
    r = ptclisp.run(src)
    assert r.error.kind == kind, r.error
    assert (r.error.span.line, r.error.span.col) == (1, col)


def test_arity_errors_name_the_builtin_even_from_a_parallel_worker():
    r = ptclisp.run("((juxt filterv) 1 2 3)")
    assert r.error.message == "filter or filterv or remove called with the wrong number of arguments (expects 2)"
    r = ptclisp.run("(pmap inc [1] [2])")
    assert r.error.kind == "pmap_error" and r.error.details["reason"] == "arity_error", r.error


def test_a_prelude_exports_wrong_arity_is_the_programs_error():
    src = '(ns u "u")\n(defn f "f" {:signature "(a :int) -> :int"} [a] a)\n(defn g "g" [a] (a 1))\n'
    r = ptclisp.run("(apply u/f [1 2])", preludes=[src])  # raised in the export's contract check
    assert r.error.kind == "arity_mismatch", r.error
    assert ptclisp.run("(u/g 5)", preludes=[src]).error.kind == "not_callable"  # raised in prelude code


def test_the_repl_keeps_its_own_ctrl_c_handling(monkeypatch):
    from ptclisp.repl import terminal
    from ptclisp.repl.headless import Repl, ReplConfig

    def interrupt(_args):
        raise KeyboardInterrupt  # as if Ctrl-C arrived while the program ran

    repl = Repl(ReplConfig(tools={"interrupt": interrupt}))
    with pytest.raises(KeyboardInterrupt):  # Repl.handle lets it through ...
        repl.handle("(do (def a 1) (tool/interrupt {}))")
    assert "a" not in repl.session.definitions

    inputs = iter(["(do (def b 2) (tool/interrupt {}))", "(def c 3) c"])

    class Prompt:
        def prompt(self):
            try:
                return next(inputs)
            except StopIteration:
                raise EOFError from None

    shown: list = []
    term = terminal.Terminal.__new__(terminal.Terminal)
    term.repl, term.prompt = repl, Prompt()
    monkeypatch.setattr(term, "banner", lambda: None, raising=False)
    monkeypatch.setattr(term, "show", shown.extend, raising=False)
    assert term.run() == 0  # ... and the terminal turns it into a line and goes on
    assert ("error", "Interrupted.") in shown and ("value", "3") in shown
    assert repl.session.definitions == {"c": 3}


_TRACED_IMPORT = r'''
import sys
def tracer(frame, event, arg):
    frame.f_locals  # what a debugger does: holders are added to every local
    return tracer
sys.settrace(tracer)
import ptclisp.values.ownership as o
ours = sys.gettrace() is tracer
sys.settrace(None)
print(o.OWNED_REFS, o.OWNED_GROWTH, ours)
'''


def test_the_handed_over_count_is_measured_without_the_hosts_tracer_and_the_tracer_is_kept():
    import subprocess
    plain = subprocess.run([sys.executable, "-c", "import ptclisp.values.ownership as o; print(o.OWNED_REFS)"],
                           capture_output=True, text=True, check=True).stdout.split()
    traced = subprocess.run([sys.executable, "-c", _TRACED_IMPORT], capture_output=True, text=True,
                            check=True).stdout.split()
    assert traced == [plain[0], "True", "True"]
