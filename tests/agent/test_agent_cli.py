"""`cli_main`: the agent command line, driven by a replay fixture recorded from a scripted run."""
from __future__ import annotations

import json

from ptclisp.agent import AgentHost, cli_main
from ptclisp.providers import RecordingProvider, ScriptedProvider

from agent_helpers import calls

TASK = "Add one to forty-one."


def record(tmp_path, programs, cfg):
    path = tmp_path / "fixture.jsonl"
    provider = RecordingProvider(ScriptedProvider(calls(*programs)), str(path))
    host = AgentHost(models={"m": provider})
    out = host.run_entry("agent.main/run", {"task": TASK, "agent": cfg})
    return path, out


def test_cli_replays_a_recorded_run(tmp_path, capsys):
    path, recorded = record(tmp_path, ["(defn add-one [x] (+ x 1))", "(return (add-one 41))"], {"max_turns": 2})
    assert recorded.ok and recorded.value == 42
    code = cli_main([TASK, "--model", f"m=replay:{path}", "--max-turns", "2"])
    assert code == 0
    assert json.loads(capsys.readouterr().out) == 42


def test_cli_json_record_and_limit_exit_code(tmp_path, capsys):
    path, recorded = record(tmp_path, ["(+ 1 1)"], {"max_turns": 1})
    assert recorded.error.reason == "runtime_limit_exceeded"
    code = cli_main(["--model", f"m=replay:{path}", "--task", TASK, "--max-turns", "1", "--json"])
    assert code == 6
    record_out = json.loads(capsys.readouterr().out)
    assert record_out["ok"] is False and record_out["error"]["reason"] == "runtime_limit_exceeded"


def test_cli_usage_errors(capsys):
    assert cli_main(["--task", "x"]) == 2
    assert cli_main(["--model", "m=nope:x", "--task", "x"]) == 2
    assert "ptclisp agent:" in capsys.readouterr().err


def test_cli_invalid_agent_config_exit_code(tmp_path, capsys):
    path, _ = record(tmp_path, ["(return 1)"], {"max_turns": 1})
    assert cli_main(["--model", f"m=replay:{path}", "--task", TASK, "--max-turns", "0"]) == 2


APP = '''(ns app.agent "An application workflow.")
(defn solve "Solve the input task in one turn." [input]
  (agent.core/run-value (get input "task") (assoc (get input "agent") "max_turns" 1)))
'''


def test_cli_workflow_entry_through_the_main_cli(tmp_path, capsys):
    from ptclisp.cli import main
    app = tmp_path / "app.clj"
    app.write_text(APP)
    path = tmp_path / "fixture.jsonl"
    recorder = RecordingProvider(ScriptedProvider(calls("(return 7)")), str(path))
    recorded = AgentHost(models={"m": recorder}, workflow=[APP]).run_entry("app.agent/solve",
                                                                           {"task": TASK, "agent": {}})
    assert recorded.ok and recorded.value == 7
    code = main(["agent", TASK, "--workflow", str(app), "--entry", "app.agent/solve", "--model", f"m=replay:{path}"])
    assert code == 0
    assert json.loads(capsys.readouterr().out) == 7
