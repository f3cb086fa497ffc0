"""Agent outputs follow docs/json.md: `ptclisp agent`, `run FILE --model`, traces, AgentOutcome.value, bench records.

A model's final value that has no JSON form is an error everywhere, never a
silent null; integer keys (e.g. `frequencies`) become strings. Models are
scripted; nothing leaves the machine.
"""
from __future__ import annotations

import json
import math
import os
import pathlib
import subprocess
import sys

import pytest

from ptclisp.commands.agent import cli_main
from ptclisp.bench_agent import run_task
from ptclisp.commands.main import main
from ptclisp.interchange.json_out import JsonValueError
from ptclisp.providers import ScriptedProvider

from agent_helpers import calls, make_host


def script(tmp_path: pathlib.Path, program: str) -> str:
    path = tmp_path / "s.json"
    path.write_text(json.dumps([program]), encoding="utf-8")
    return f"m=scripted:{path}"


def read_trace(path) -> list[dict]:
    return [json.loads(line) for line in pathlib.Path(path).read_text(encoding="utf-8").splitlines()]


# (the model's final program, the JSON value delivered)
DELIVERED = [
    ("(return (frequencies [1 1 2]))", {"1": 2, "2": 1}),      # was printed as nil, exit 0
    ("(return #{2 1})", [1, 2]),
    ("(return {:a :b :c #{:d}})", {"a": "b", "c": ["d"]}),
    ("(return {true 1 nil 2})", {"true": 1, "null": 2}),
]


@pytest.mark.parametrize("program,expected", DELIVERED, ids=[d[0] for d in DELIVERED])
def test_agent_cli_delivers_json(tmp_path, capsys, program, expected):
    model = script(tmp_path, program)
    assert cli_main(["t", "--model", model, "--max-turns", "1"]) == 0
    assert json.loads(capsys.readouterr().out) == expected
    trace = tmp_path / "t.jsonl"
    assert cli_main(["t", "--model", model, "--max-turns", "1", "--json", "--trace", str(trace)]) == 0
    rec = json.loads(capsys.readouterr().out)
    assert rec["ok"] is True and rec["value"] == expected and rec["error"] is None
    outcome = read_trace(trace)[-1]
    assert outcome["type"] == "outcome" and outcome["value"] == expected


# (the model's final program, a fragment of the error message)
NOT_JSON = [
    ("(return ##NaN)", "##NaN has no JSON form"),
    ("(return {:x [##-Inf]})", "##-Inf has no JSON form at [:x 0]"),
    ("(return inc)", "a function has no JSON form"),
    ('(return {1 2 "1" 3})', 'map keys 1 and "1" both become the JSON key "1"'),
]


@pytest.mark.parametrize("program,fragment", NOT_JSON, ids=[n[0] for n in NOT_JSON])
def test_agent_cli_reports_a_value_without_json_form(tmp_path, capsys, program, fragment):
    model = script(tmp_path, program)
    assert cli_main(["t", "--model", model, "--max-turns", "1"]) == 5          # the agent's value is unusable
    got = capsys.readouterr()
    assert got.out == ""
    assert "Error (workflow_failed/value_not_json)" in got.err and fragment in got.err
    trace = tmp_path / "t.jsonl"
    assert cli_main(["t", "--model", model, "--max-turns", "1", "--json", "--trace", str(trace)]) == 5
    rec = json.loads(capsys.readouterr().out)
    assert rec["ok"] is False and rec["value"] is None
    assert rec["error"]["reason"] == "value_not_json" and fragment in rec["error"]["message"]
    outcome = read_trace(trace)[-1]
    assert outcome["ok"] is False and outcome["error"]["reason"] == "value_not_json"


def test_outcome_value_is_json_data_or_raises():
    host, _ = make_host(calls("(return {:n ##NaN})"))
    out = host.run_entry("agent.main/run", {"task": "t", "agent": {"max_turns": 1}})
    assert out.ok and out.error is None                     # the workflow did finish ...
    assert math.isnan(out.raw.lookup("n"))                  # ... with this Lisp value,
    with pytest.raises(JsonValueError, match=r"##NaN has no JSON form at \[:n\]"):
        out.value                                           # which has no JSON form: never a silent None
    assert out.value_error.kind == "type_error"
    assert out.json_error.reason == "value_not_json" and out.json_error.details == {"error_kind": "type_error"}

    host, _ = make_host(calls("(return (frequencies [:a :a]))"))
    out = host.run_entry("agent.main/run", {"task": "t", "agent": {"max_turns": 1}})
    assert out.value == {"a": 2} and out.value_error is None and out.json_error is None


def test_outcome_of_nil_is_none_without_error():
    host, _ = make_host(calls("(return nil)"))
    out = host.run_entry("agent.main/run", {"task": "t", "agent": {"max_turns": 1}})
    assert out.ok and out.value is None and out.json_error is None


WORKFLOW = '(def v (agent.core/run-value "t" {"max_turns" 1}))\n(println "got" v)\nv\n'


def test_run_workflow_file(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "w.clj").write_text(WORKFLOW, encoding="utf-8")
    model = script(tmp_path, "(return #{1 2})")
    assert main(["run", "w.clj", "--model", model, "--json"]) == 0
    rec = json.loads(capsys.readouterr().out)
    assert rec["ok"] is True and rec["value"] == [1, 2] and rec["prints"] == ["got [1 2]"]   # the mission projects returned values
    model = script(tmp_path, "(return inc)")
    assert main(["run", "w.clj", "--model", model, "--json"]) == 5
    rec = json.loads(capsys.readouterr().out)
    assert rec["ok"] is False and rec["value"] is None and rec["error"]["reason"] == "value_not_json"
    # one rule for agent-running commands: the value is JSON in text mode too, so a function is value_not_json
    assert main(["run", "w.clj", "--model", model]) == 5
    captured = capsys.readouterr()
    assert captured.out == "" and "value_not_json" in captured.err


def test_bench_record_of_a_value_without_json_form():
    out = run_task("t", {"xs": [1]}, ScriptedProvider(calls("(return ##Inf)")), None, {"max_turns": 1}, "ptc")
    assert out["status"] == "failed" and out["answer"] is None
    assert out["failure"]["kind"] == "agent_failure" and out["failure"]["reason"] == "value_not_json"
    out = run_task("t", {"xs": [1]}, ScriptedProvider(calls("(return (frequencies [1 1]))")), None,
                   {"max_turns": 1}, "ptc")
    assert out["status"] == "answered" and out["answer"] == {"1": 2}


def test_agent_module_entry_point_writes_any_text(tmp_path):
    model = script(tmp_path, '(return (json/parse-string "\\"\\\\u65e5\\""))')
    env = dict(os.environ, PYTHONIOENCODING="ascii")
    for extra in ([], ["--json"]):
        proc = subprocess.run([sys.executable, "-m", "ptclisp.agent", "t", "--model", model, *extra],
                              capture_output=True, timeout=120, env=env, cwd=tmp_path)
        assert proc.returncode == 0, proc.stderr
        assert b"\\u65e5" in proc.stdout
        got = json.loads(proc.stdout)
        assert (got["value"] if extra else got) == "日"


def test_trace_lines_follow_the_rules_and_never_guess(tmp_path):
    from ptclisp import run
    from ptclisp.commands.agent import Trace
    trace = Trace(str(tmp_path / "t.jsonl"), env={})
    trace.write({"type": "event", "data": run("{:a #{1} 2 :b}").value})
    trace.write({"type": "event", "data": {"x": float("nan")}})
    trace.close()
    first, second = read_trace(tmp_path / "t.jsonl")
    assert first == {"type": "event", "data": {"2": "b", "a": [1]}}
    assert second == {"type": "event", "unencodable": "##NaN has no JSON form at [\"data\" \"x\"]; "
                                                      "JSON has no NaN or infinity"}
