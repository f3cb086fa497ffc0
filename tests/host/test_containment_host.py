"""Containment at the host boundary (issue 24, items 5-7): blocking tools, deep data files, leaked threads.

Each reproduction runs under the default limits (1 s, 10 MB) in a child process, which prints one
JSON record: the error kind, the wall time of the evaluation, the tool ledger and the threads still
busy afterwards. The parent asserts the typed kind, a generous wall-time bound (the evaluation ends
within 3 s: the reproductions took 15 s or never ended before) and that no thread of the evaluation
keeps running. The command-line reproductions run `ptclisp` in a subprocess.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import ptclisp
from ptclisp import Limits
from ptclisp.interchange.python import MAX_DEPTH
from ptclisp.interchange.documents import DocumentError, read_document, read_document_text
from ptclisp.interchange.json_in import JsonTooDeep, parse, parse_iteratively

BOUND_S = 3.0

# what every child runs first: `busy()` names the threads still busy once the evaluation's threads
# had a moment to go back to their pools (service threads and idle pool threads are not busy)
CHILD = textwrap.dedent('''
    import json, sys, threading, time
    import ptclisp
    from ptclisp import Limits
    from ptclisp.parallel import POOL as PARALLEL
    from ptclisp.host.tool_threads import THREADS as TOOL_THREADS

    RELEASE = threading.Event()

    def block(args):               # a tool that blocks until the child lets it go
        RELEASE.wait(60)
        return {"late": True}

    def sleep15(args):             # the issue's reproduction
        time.sleep(15)
        return 1

    def busy():
        end = time.monotonic() + 2.0
        while True:
            names, pools = [], {PARALLEL: 0, TOOL_THREADS: 0}
            for t in threading.enumerate():
                if t is threading.main_thread() or t.name in ("ptclisp-hardstop", "ptclisp-watchdog"):
                    continue
                pool = next((p for p in pools if p.owns(t)), None)
                if pool is None:
                    names.append(t.name)
                else:
                    pools[pool] += 1
            names += [f"{p.name} x{n - p.size()}" for p, n in pools.items() if n > p.size()]
            if not names or time.monotonic() > end:
                return names
            time.sleep(0.01)

    def timed(fn):
        t0 = time.monotonic()
        r = fn()
        return r, time.monotonic() - t0

    def report(r, elapsed, **extra):
        err = r.error
        print(json.dumps({"status": r.status, "kind": err and err.kind, "details": err and err.details,
                          "elapsed": elapsed,
                          "ledger": [[c.name, c.abandoned, c.result] for c in r.tool_calls], **extra}))
''')


def child(body: str) -> dict:
    """Run CHILD + `body` in a fresh interpreter; the JSON record it printed last."""
    p = subprocess.run([sys.executable, "-c", CHILD + textwrap.dedent(body)], capture_output=True, text=True,
                       timeout=120)
    assert p.returncode == 0, p.stderr
    return json.loads(p.stdout.strip().splitlines()[-1])


def assert_timeout(rec: dict, bound: float = BOUND_S):
    assert rec["kind"] == "timeout", rec
    assert rec["elapsed"] < bound, rec


# ---------------------------------------------------------------------- item 5: blocking tools

def test_a_tool_sleeping_15_s_ends_the_run_at_its_deadline():
    rec = child('''
        r, el = timed(lambda: ptclisp.run("(tool/sleep {})", tools={"sleep": sleep15}))
        report(r, el)
    ''')
    assert_timeout(rec)
    assert rec["ledger"] == [["sleep", True, None]]


def test_an_abandoned_call_is_recorded_its_late_result_discarded_and_its_thread_freed():
    rec = child('''
        r, el = timed(lambda: ptclisp.run("(tool/block {})", tools={"block": block}))
        before = [[c.name, c.abandoned, c.result, c.error] for c in r.tool_calls]
        RELEASE.set()              # the tool returns now: nothing of that reaches the result
        report(r, el, before=before, busy=busy())
    ''')
    assert_timeout(rec)
    assert rec["ledger"] == [["block", True, None]]
    (name, abandoned, result, error), = rec["before"]
    assert "abandoned" in error and "unknown" in error
    assert rec["busy"] == []


def test_a_session_never_sees_an_abandoned_calls_late_result():
    rec = child('''
        s = ptclisp.Session(tools={"block": block})
        r, el = timed(lambda: s.eval("(def x (tool/block {})) x"))
        RELEASE.set()
        time.sleep(0.1)
        s.eval("(def y 2) y")
        report(r, el, defs=sorted(s.definitions), history=len(s.history), busy=busy())
    ''')
    assert_timeout(rec)
    assert rec["defs"] == ["y"] and rec["history"] == 1
    assert rec["busy"] == []


def test_blocking_tools_in_pmap_workers_end_at_the_deadline_and_are_all_recorded():
    rec = child('''
        r, el = timed(lambda: ptclisp.run("(pmap (fn [i] (tool/block {:i i})) (range 4))", tools={"block": block}))
        RELEASE.set()
        report(r, el, busy=busy())
    ''')
    assert_timeout(rec)
    assert rec["ledger"] == [["block", True, None]] * 4
    assert rec["busy"] == []


def test_a_blocking_tool_under_process_isolation_ends_at_the_workers_deadline():
    rec = child('''
        ptclisp.run("1", isolation="process")   # the fork server is started outside the measured run
        r, el = timed(lambda: ptclisp.run("(tool/sleep {})", tools={"sleep": sleep15}, isolation="process"))
        report(r, el)
    ''')
    assert_timeout(rec)
    assert "its process was stopped" not in json.dumps(rec)   # the worker's own deadline, not the host's kill
    assert rec["ledger"] == [["sleep", True, None]]


def test_a_blocking_mission_capability_ends_the_mission_evaluation():
    rec = child('''
        from ptclisp.agent import AgentLimits, Capability, Mission, MissionSession
        ms = MissionSession("m", Mission(capabilities=[Capability("block", block, effect="write")]),
                            AgentLimits(evaluation_timeout_ms=1000), lambda: {})
        t0 = time.monotonic()
        ev = ms.eval("(tool/block {})")
        el = time.monotonic() - t0
        RELEASE.set()
        print(json.dumps({"kind": ev.kind, "elapsed": el, "busy": busy(),
                          "exchanges": [[rec.name, rec.abandoned] for rec, _ in ev.exchanges]}))
    ''')
    assert_timeout(rec)
    assert rec["exchanges"] == [["block", True]]
    assert rec["busy"] == []


def test_a_tool_that_checks_the_deadline_keeps_its_own_error():
    # a cooperative tool returns within the grace period: its error is the evaluation's, nothing is abandoned
    rec = child('''
        from ptclisp.host.tools import check_stop
        def waiter(args):
            while True:
                check_stop()
                time.sleep(0.005)
        r, el = timed(lambda: ptclisp.run("(tool/wait {})", tools={"wait": waiter}))
        report(r, el)
    ''')
    assert_timeout(rec)
    assert rec["ledger"][0][:2] == ["wait", False]


class Unusual(BaseException):
    """A BaseException of the host's own, neither an Exception nor the host's Ctrl-C or exit."""


@pytest.mark.parametrize("make", [lambda: GeneratorExit("bye"), lambda: __import__("asyncio").CancelledError(),
                                  Unusual], ids=["GeneratorExit", "CancelledError", "Unusual"])
def test_a_tool_raising_a_base_exception_is_a_tool_error(make):
    raised = make()

    def tool(_args):
        raise raised

    r = ptclisp.run("(tool/t {})", tools={"t": tool})
    assert r.error.kind == "tool_error", r.error
    assert r.error.details == {"tool": "t", "exception": type(raised).__name__}
    assert r.tool_calls[0].error.startswith(type(raised).__name__)
    s = ptclisp.Session(tools={"t": tool})
    assert s.eval("(def a 1) (tool/t {})").error.kind == "tool_error" and s.definitions == {}


def test_a_mission_capability_raising_generator_exit_is_an_error_envelope():
    from ptclisp.agent import AgentLimits, Capability, Mission, MissionSession

    def gen_exit(_args):
        raise GeneratorExit

    ms = MissionSession("m", Mission(capabilities=[Capability("g", gen_exit, effect="read")]), AgentLimits(),
                        lambda: {})
    ev = ms.eval("(name (:status (tool/g {})))")
    assert (ev.outcome, ev.value) == ("continued", "error")


def test_an_evaluation_stopped_late_says_so():
    # a host function handed in as data is not a tool: it runs on the evaluating thread, where nothing
    # interrupts it, so the evaluation ends late and its timeout carries late_ms
    import time
    r = ptclisp.run("(do ((identity data/f) 1) ((identity data/f) 2))", context={"f": lambda x: time.sleep(0.6)},
                    limits=Limits(timeout_ms=100))
    assert r.error.kind == "timeout"
    assert r.error.details["late_ms"] >= 300
    r = ptclisp.run("(loop [i 0] (recur (inc i)))", limits=Limits(timeout_ms=100, loop_limit=10 ** 12))
    assert r.error.kind == "timeout" and "late_ms" not in r.error.details


# ---------------------------------------------------------------------- the command line

def cli(args, cwd, timeout=60):
    return subprocess.run([sys.executable, "-m", "ptclisp", *args], cwd=str(cwd), capture_output=True, text=True,
                          timeout=timeout)


def test_cli_eval_with_a_blocking_tool_ends_at_its_timeout(tmp_path):
    (tmp_path / "slow_tools.py").write_text("import time\nTOOLS = {'sleep': lambda a: time.sleep(15) or 1}\n")
    import time
    t0 = time.monotonic()
    p = cli(["eval", "--tools", "slow_tools:TOOLS", "--timeout-ms", "1000", "(tool/sleep {})"], tmp_path)
    assert time.monotonic() - t0 < 5   # the interpreter's start included; 15 s before
    assert p.returncode == 2 and "Error (timeout)" in p.stderr, p.stderr


def nested(depth: int) -> str:
    return '{"x": ' + "[" * (depth - 1) + "]" * (depth - 1) + "}"


@pytest.mark.parametrize("depth", [990, 5000, 9000, MAX_DEPTH])
def test_cli_reads_deep_data_as_the_api_does(tmp_path, depth):
    (tmp_path / "d.json").write_text(nested(depth))
    p = cli(["eval", "--data", "d.json", "(count data/x)"], tmp_path)
    assert (p.returncode, p.stdout.strip(), p.stderr) == (0, "1" if depth > 1 else "0", "")


def test_cli_refuses_data_nested_deeper_than_the_limit_in_one_line(tmp_path):
    (tmp_path / "d.json").write_text(nested(MAX_DEPTH + 1))
    p = cli(["eval", "--data", "d.json", "1"], tmp_path)
    assert p.returncode == 2
    assert p.stderr == "ptclisp: --data d.json: nested deeper than 10,000 levels (the limit for host data)\n"


@pytest.mark.parametrize("make", ["fifo", "/dev/zero", "dir"])
def test_cli_refuses_data_that_is_not_a_regular_file_at_once(tmp_path, make):
    if make == "fifo":
        path = str(tmp_path / "pipe")
        os.mkfifo(path)
        what = "a FIFO"
    elif make == "dir":
        path, what = str(tmp_path), "a directory"
    else:
        if not os.path.exists(make):
            pytest.skip("no /dev/zero here")
        path, what = make, "a character device"
    p = cli(["eval", "--data", path, "1"], tmp_path, timeout=30)   # never a hang
    assert p.returncode == 3   # not a document at all: an invalid document (issue 30, item 9)
    assert p.stderr == f"ptclisp: cannot read --data {path}: not a regular file ({what}): only regular files are read\n"


def test_mcp_serve_reads_its_data_with_the_same_rules(tmp_path):
    pytest.importorskip("mcp.server.mcpserver", reason="the mcp package (ptclisp[mcp]) is not installed")
    (tmp_path / "d.json").write_text(nested(MAX_DEPTH + 1))
    p = cli(["mcp", "serve", "--data", "d.json"], tmp_path)
    assert p.returncode == 2 and "nested deeper than 10,000 levels" in p.stderr and "internal" not in p.stderr
    from ptclisp.commands.common import load_data
    from ptclisp.mcp.service import PtcService, ServeConfig
    (tmp_path / "ok.json").write_text(nested(9000))
    service = PtcService(ServeConfig(data=load_data(str(tmp_path / "ok.json")), isolation="thread"))
    assert service.run("(count data/x)").structured["value"] == 1


# ---------------------------------------------------------------------- the readers

def test_a_file_larger_than_the_bound_is_refused(tmp_path):
    f = tmp_path / "big.json"
    f.write_bytes(b"x" * 101)
    assert read_document(str(f), 101) == b"x" * 101
    with pytest.raises(DocumentError, match="larger than 100 bytes"):
        read_document(str(f), 100)
    f.write_bytes(b"\xff")
    with pytest.raises(UnicodeDecodeError):
        read_document_text(str(f))
    with pytest.raises(FileNotFoundError):
        read_document(str(tmp_path / "missing"))


JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=5), inner, max_size=4),
    max_leaves=30)


@settings(max_examples=300, deadline=None)
@given(JSON, st.sampled_from([None, 1, 2]))
def test_the_iterative_parser_reads_what_json_loads_reads(value, indent):
    text = json.dumps(value, indent=indent)
    assert parse_iteratively(text) == json.loads(text)
    assert json.dumps(parse_iteratively(text)) == json.dumps(json.loads(text))   # key order and types


@pytest.mark.parametrize("text", ["", "[1,]", "{\"a\" 1}", "[1 2]", "{1: 2}", "[1] x", "nul", "[", "{\"a\":1,}",
                                  "\"abc", "[01]", "-", "[.5]"])
def test_the_iterative_parser_refuses_what_json_loads_refuses(text):
    with pytest.raises(json.JSONDecodeError):
        json.loads(text)
    with pytest.raises(json.JSONDecodeError):
        parse_iteratively(text)


def test_constants_and_duplicate_keys_as_json_loads():
    text = '{"a": [NaN, Infinity, -Infinity, 1e3, -0, 2.5], "a": {"b": true, "b": null}}'
    got, want = parse_iteratively(text), json.loads(text)
    assert json.dumps(got) == json.dumps(want)


def test_the_depth_bound_is_the_host_apis():
    ok = nested(MAX_DEPTH)
    data = parse(ok)
    assert ptclisp.run("(count data/x)", context=data).value == 1   # the API takes what the parser gave
    with pytest.raises(JsonTooDeep):
        parse(nested(MAX_DEPTH + 1))
    deeper = parse_iteratively(nested(MAX_DEPTH + 1), max_depth=MAX_DEPTH + 1)
    assert ptclisp.run("1", context=deeper).error.message.endswith("nested deeper than 10000 levels")


# ---------------------------------------------------------------------- item 7: mcp serve's isolation

def test_mcp_serve_isolates_by_default_and_thread_is_the_opt_out():
    from ptclisp.commands.main import build_parser
    from ptclisp.commands.mcp import config_from_args
    assert config_from_args(build_parser().parse_args(["mcp", "serve"]), {}).isolation == "process"
    args = build_parser().parse_args(["mcp", "serve", "--isolation", "thread"])
    assert config_from_args(args, {}).isolation == "thread"


def test_mcp_serve_in_thread_mode_reports_an_evaluation_it_cannot_stop_and_keeps_its_slot():
    import threading
    import time
    from ptclisp.mcp.service import PtcService, ServeConfig
    release = threading.Event()
    # a host function handed in as data holds the evaluating thread where nothing can stop it
    service = PtcService(ServeConfig(data={"f": lambda x: release.wait(30)}, isolation="thread", max_concurrent=1,
                                     limits=Limits(timeout_ms=100)))
    try:
        t0 = time.monotonic()
        out = service.run("((identity data/f) 1)")
        assert time.monotonic() - t0 < 5
        err = out.structured["error"]
        assert (err["kind"], err["still_running"]) == ("timeout", True) and "--max-concurrent" in err["message"]
        busy = service.run("(+ 1 2)")   # the stuck evaluation still holds the one slot
        assert busy.structured["error"]["kind"] == "busy"
    finally:
        release.set()
    end = time.monotonic() + 10
    while service.run("(+ 1 2)").structured.get("value") != 3:   # the slot is free once it ended
        assert time.monotonic() < end
        time.sleep(0.05)
