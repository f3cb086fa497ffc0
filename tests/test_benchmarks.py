"""Smoke test of the benchmark runner (no timing assertions).

`--quick` runs every workload once at reduced size; the test checks that the
run completes, that every column agrees with plain Python's answer, and that
the table and the JSON record name every workload.
"""
import json
import os
import subprocess
import sys

from ptclisp import bench

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def test_quick_run_covers_every_workload(tmp_path, capsys):
    out = tmp_path / "bench.json"
    rc = bench.main(["--quick", "--columns", "ptclisp", "--json", str(out)])
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
    assert bench.main(["--only", "nope"]) == 2
    assert "unknown workload" in capsys.readouterr().err


def test_python_dash_m_benchmarks_entry_point():
    env = dict(os.environ, PYTHONPATH=ROOT + os.pathsep + os.environ.get("PYTHONPATH", ""))
    out = subprocess.run([sys.executable, "-m", "benchmarks", "--quick", "--only", "a,h", "--columns", "ptclisp"],
                         cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    assert "fib 25" in out.stdout and "Session: 200" in out.stdout


def test_the_program_cache_can_be_turned_off(capsys):
    # the Session is told not to keep built programs: every repetition compiles again
    assert bench.main(["--quick", "--only", "c", "--columns", "ptclisp", "--no-program-cache"]) == 0
    assert bench.PROGRAM_CACHE == [False]
    assert "10k maps" in capsys.readouterr().out
    bench.main(["--quick", "--only", "a", "--columns", "ptclisp"])
    assert bench.PROGRAM_CACHE == [True]


def test_a_session_without_program_cache_builds_every_time(monkeypatch):
    from ptclisp import Session, session
    calls = []
    real = session.analyze_source
    monkeypatch.setattr(session, "analyze_source", lambda *a: calls.append(1) or real(*a))
    s = Session(program_cache=False)
    for _ in range(3):
        assert s.eval("(+ 1 2)").value == 3
    assert len(calls) == 3
