"""Smoke test of the benchmark runner (no timing assertions).

`--quick` runs every workload once at reduced size; the test checks that the
run completes, that every column agrees with plain Python's answer, and that
the table and the JSON record name every workload.
"""
import json
import os
import subprocess
import sys

import pytest

from ptclisp import bench
from ptclisp.commands import bench as bench_command

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def test_quick_run_covers_every_workload(tmp_path, capsys):
    out = tmp_path / "bench.json"
    rc = bench_command.main(["--quick", "--columns", "ptclisp", "--json", str(out)])
    table = capsys.readouterr().out
    rec = json.loads(out.read_text())
    assert rc == 0, table
    assert [w["key"] for w in rec["workloads"]] == [w.key for w in bench.WORKLOADS]
    for w in rec["workloads"]:
        assert w["name"] in table
        for name in ("python", "ptclisp"):
            col = w["columns"][name]
            assert col["error"] is None, (w["key"], name, col["error"])
            assert col["min"] > 0
        assert w["ratios"]["ptclisp"]["min"] > 0
    assert set(rec["growth"]) == {"python", "ptclisp"}
    assert "growth 80k/20k" in table


def test_unknown_workload_is_a_usage_error(capsys):
    assert bench_command.main(["--only", "nope"]) == 2
    assert "unknown workload" in capsys.readouterr().err


def test_python_dash_m_benchmarks_entry_point():
    env = dict(os.environ, PYTHONPATH=ROOT + os.pathsep + os.environ.get("PYTHONPATH", ""))
    out = subprocess.run([sys.executable, "-m", "benchmarks", "--quick", "--only", "a,h", "--columns", "ptclisp"],
                         cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    assert "fib 25" in out.stdout and "Session: 200" in out.stdout


def test_the_program_cache_can_be_turned_off(capsys):
    # the Session is told not to keep built programs: every repetition compiles again
    assert bench_command.main(["--quick", "--only", "c", "--columns", "ptclisp", "--no-program-cache"]) == 0
    assert bench.PROGRAM_CACHE == [False]
    assert "10k maps" in capsys.readouterr().out
    bench_command.main(["--quick", "--only", "a", "--columns", "ptclisp"])
    assert bench.PROGRAM_CACHE == [True]


def test_a_session_without_program_cache_builds_every_time(monkeypatch):
    from ptclisp import Session, pipeline
    calls = []
    real = pipeline.read_program
    monkeypatch.setattr(pipeline, "read_program", lambda *a, **k: calls.append(1) or real(*a, **k))
    s = Session(program_cache=False)
    for _ in range(3):
        assert s.eval("(+ 1 2)").value == 3
    assert len(calls) == 3


# ------------------------------------------------------------------ issue 18's rows and modes

def test_new_rows_agree_with_plain_python_in_both_modes(tmp_path, capsys):
    # d2 (regex-literal split), k (a process-isolated run against the same run in process) and
    # t (an agent turn); once with a Session per column, once with every sample a ptclisp.run
    for mode in ([], ["--fresh"]):
        out = tmp_path / "rows.json"
        rc = bench_command.main(["--quick", "--only", "d2,k,t", "--columns", "ptclisp", "--json", str(out)] + mode)
        table = capsys.readouterr().out
        rec = json.loads(out.read_text())
        assert rc == 0, table
        assert rec["meta"]["fresh"] is bool(mode)
        assert [w["key"] for w in rec["workloads"]] == ["d2", "k", "t"]
        for w in rec["workloads"]:
            for name in ("python", "ptclisp"):
                assert w["columns"][name]["error"] is None, (mode, w["key"], name, w["columns"][name]["error"])
        k = rec["workloads"][1]
        assert k["per_sample"] == 2 and k["target"] == 10 and k["about_ms"] == 1
        assert "<= 10x (~1 ms)" in table and '#" "' in table


def test_fresh_mode_runs_every_sample_as_its_own_program():
    # a Session keeps the turn history (*1); ptclisp.run starts from nothing every time
    src = "(if (nil? *1) 1 (inc *1))"
    try:
        bench.FRESH[0] = False
        in_session = bench.ptc_program(src)
        bench.FRESH[0] = True
        fresh = bench.ptc_program(src)
    finally:
        bench.FRESH[0] = False
    assert [in_session.run() for _ in range(3)] == [1, 2, 3]
    assert [fresh.run() for _ in range(3)] == [1, 1, 1]


def test_the_agent_turn_makes_20_tool_calls_and_3_pmaps_and_matches_python():
    from ptclisp import run
    from ptclisp.bench.agent_turn import TURN_SRC, ptc_tools, python_turn, turn_data
    from ptclisp.interchange.python import to_python
    data = turn_data(quick=True)
    r = run(TURN_SRC, context=data, tools=ptc_tools(), limits=bench.BIG)
    assert r.ok, r.error
    assert len(r.tool_calls) == 20
    assert [p.type for p in r.pmap_calls] == ["pmap"] * 3
    assert sorted({c.name for c in r.tool_calls}) == ["customer-tiers", "fx-rates", "inventory", "send-report",
                                                     "shipment", "tickets"]
    value = to_python(r.value)
    assert value == python_turn()(data)
    assert value["report"].startswith("Operations review 2026-01 to 2026-06")
    assert len(TURN_SRC.splitlines()) >= 300


def _old_record(quick: bool) -> dict:
    """A results file from before issue 18: no d2, k or t rows (benchmarks/results/wave1.json)."""
    with open(os.path.join(ROOT, "benchmarks", "results", "wave1.json"), encoding="utf-8") as fh:
        rec = json.load(fh)
    rec["meta"]["quick"] = quick
    return rec


def test_baseline_without_the_new_rows_is_compared_row_by_row(tmp_path, capsys):
    old = _old_record(quick=True)
    assert not {"d2", "k", "t"} & {w["key"] for w in old["workloads"]}
    old["workloads"].append({"key": "x"})             # an unreadable row is skipped
    path = tmp_path / "old.json"
    path.write_text(json.dumps(old))
    assert bench_command.main(["--quick", "--only", "a,d2", "--columns", "ptclisp", "--baseline", str(path)]) == 0
    out = capsys.readouterr().out
    cmp = out[out.index("| | workload | before | now | change |"):]
    assert "| a | fib 25" in cmp
    assert "| d2 |" in cmp and "(new)" in cmp


def test_baseline_of_the_other_kind_of_run_is_not_compared(tmp_path, capsys):
    path = tmp_path / "old.json"
    path.write_text(json.dumps(_old_record(quick=False)))
    assert bench_command.main(["--quick", "--only", "a", "--columns", "ptclisp", "--baseline", str(path)]) == 0
    captured = capsys.readouterr()
    assert "differ in --quick; not compared" in captured.err
    assert "| before |" not in captured.out


def test_compare_marks_rows_missing_from_the_record():
    row = {"key": "t", "name": "agent turn", "unit": "ms", "columns": {"ptclisp": {"min": 5.0, "error": None}},
           "ratios": {"ptclisp": {"min": 2.5, "median": 2.6}}}
    text = bench.compare([row], {"workloads": []})
    assert "| t | agent turn | (new) | 5.0 ms |  |  | 2.50x |" in text


def _benchmarks_package():
    if ROOT not in sys.path:
        sys.path.insert(0, ROOT)
    import benchmarks
    return benchmarks


def test_monty_columns_are_absent_when_monty_is_not_installed(monkeypatch, capsys):
    import importlib.util
    benchmarks = _benchmarks_package()
    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec",
                        lambda name, *a: None if name.split(".")[0] == "pydantic_monty" else real(name, *a))
    assert benchmarks.monty.available() is False
    assert benchmarks.main(["--quick", "--only", "a"]) == 0
    header = capsys.readouterr().out.split("\n| a |")[0]
    assert "| ptclisp |" in header and "monty" not in header


def test_monty_columns_agree_with_plain_python_when_installed(capsys):
    pytest.importorskip("pydantic_monty")
    benchmarks = _benchmarks_package()
    assert benchmarks.main(["--quick", "--only", "a,c,d2,k,t", "--columns", "monty,monty-fresh"]) == 0, \
        capsys.readouterr().out


def test_gc_reports_the_collector_time_of_each_column(tmp_path, capsys):
    import gc as _gc

    from ptclisp.bench import runner
    out = tmp_path / "gc.json"
    callbacks = list(_gc.callbacks)
    assert bench_command.main(["--quick", "--only", "c,b", "--columns", "ptclisp", "--gc", "--json", str(out)]) == 0
    table = capsys.readouterr().out
    assert "Time in the cyclic garbage collector" in table
    rows = {w["key"]: w for w in json.loads(out.read_text())["workloads"]}
    for key in ("b", "c"):
        for name in ("python", "ptclisp"):
            col = rows[key]["columns"][name]
            assert col["gc_median"] >= 0 and 0 <= col["gc_share"] <= 1
            assert col["gc_median"] <= col["median"]
    assert _gc.callbacks == callbacks and runner.COLLECTOR == [None]   # the clock is removed after the run
    bench_command.main(["--quick", "--only", "b", "--columns", "ptclisp"])
    assert "cyclic garbage collector" not in capsys.readouterr().out


def test_the_collector_clock_adds_up_collections():
    import gc as _gc

    from ptclisp.bench.runner import CollectorClock
    clock = CollectorClock()
    clock.install()
    try:
        _gc.collect()
        _gc.collect()
    finally:
        clock.remove()
    first = clock.seconds
    assert first > 0
    _gc.collect()   # not installed any more: not counted
    assert clock.seconds == first
