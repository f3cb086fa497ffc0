"""`ptclisp agent` and `ptclisp run FILE --model`: flags, exit codes, replay/record, traces, the shipped example.

Models are scripted (`scripted:FILE`), replayed from files recorded in the
test, or an OpenAI-compatible fake served on 127.0.0.1 (for the trace's
credential redaction); nothing leaves the machine.
"""
from __future__ import annotations

import http.server
import json
import pathlib
import shlex
import subprocess
import sys
import threading

import pytest

from ptclisp.agent import AgentHost
from ptclisp.commands.agent import cli_main
from ptclisp.commands.main import main
from ptclisp.providers import RecordingProvider, ScriptedProvider

from agent_helpers import calls

ROOT = pathlib.Path(__file__).resolve().parents[2]
TASK = "Add one to forty-one."

TOOLS_MODULE = '''
import ptclisp

def lookup(args):
    """Find a user by id."""
    return {"id": args["id"], "name": "Ada"}

TOOLS = {"lookup": lookup}
TOOL_LIST = [ptclisp.Tool("lookup", lookup, description="Find a user.", effect="read")]
'''
PRELUDE = '(ns stats "Small statistics helpers.")\n(defn total "Sum of xs." [xs] (reduce + xs))\n'


@pytest.fixture
def work(tmp_path, monkeypatch):
    (tmp_path / "agent_cli_tools.py").write_text(TOOLS_MODULE, encoding="utf-8")
    (tmp_path / "stats.clj").write_text(PRELUDE, encoding="utf-8")
    (tmp_path / "data.json").write_text(json.dumps({"xs": [1, 2, 3]}), encoding="utf-8")
    (tmp_path / "list.json").write_text("[1, 2]", encoding="utf-8")
    (tmp_path / "schema.json").write_text(json.dumps({"type": "object", "required": ["answer"],
                                                      "properties": {"answer": {"type": "integer"}}}))
    monkeypatch.chdir(tmp_path)
    monkeypatch.syspath_prepend(str(tmp_path))
    return tmp_path


def script(path: pathlib.Path, *answers) -> str:
    """Write a scripted-model file and return the --model value for alias m."""
    path.write_text(json.dumps(list(answers)), encoding="utf-8")
    return f"m=scripted:{path}"


def record(tmp_path, programs, cfg):
    path = tmp_path / "fixture.jsonl"
    provider = RecordingProvider(ScriptedProvider(calls(*programs)), str(path))
    out = AgentHost(models={"m": provider}).run_entry("agent.main/run", {"task": TASK, "agent": cfg})
    return path, out


def read_trace(path) -> list[dict]:
    return [json.loads(line) for line in pathlib.Path(path).read_text(encoding="utf-8").splitlines()]


# ------------------------------------------------------------------ running and exit codes

def test_replays_a_recorded_run(tmp_path, capsys):
    path, recorded = record(tmp_path, ["(defn add-one [x] (+ x 1))", "(return (add-one 41))"], {"max_turns": 2})
    assert recorded.ok and recorded.value == 42
    assert cli_main([TASK, "--model", f"m=replay:{path}", "--max-turns", "2"]) == 0
    assert json.loads(capsys.readouterr().out) == 42


def test_data_tools_and_prelude_reach_the_models_programs(work, capsys):
    program = '(return {"sum" (stats/total data/xs) "name" (get-in (tool/lookup {"id" 7}) [:value "name"])})'
    model = script(work / "s.json", program)
    code = main(["agent", "Sum and look up.", "--model", model, "--data", "data.json",
                 "--tools", "agent_cli_tools:TOOLS", "--prelude", "stats.clj", "--trace", "t.jsonl"])
    assert code == 0
    assert json.loads(capsys.readouterr().out) == {"sum": 6, "name": "Ada"}
    system = next(e for e in read_trace(work / "t.jsonl") if e["type"] == "request")["request"]["system"]
    assert "stats/total" in system and "data/xs" in system


@pytest.mark.parametrize("data_arg", ["@data.json", '{"xs": [1, 2, 3]}'])
def test_data_also_accepts_at_file_and_inline_json(work, capsys, data_arg):
    model = script(work / "s.json", "(return (reduce + data/xs))")
    assert cli_main(["t", "--model", model, "--data", data_arg]) == 0
    assert json.loads(capsys.readouterr().out) == 6


def test_tool_list_form_is_granted(work, capsys):
    model = script(work / "s.json", '(return (get-in (tool/lookup {"id" 1}) [:value "id"]))')
    assert cli_main(["t", "--model", model, "--tools", "agent_cli_tools:TOOL_LIST"]) == 0
    assert json.loads(capsys.readouterr().out) == 1


NO_MATCH = '{"schema_version":1,"request_hash":"sha256:' + "0" * 64 + '","response":{"content":"x"}}\n'


@pytest.mark.parametrize("answers,extra,reason", [
    (["(+ 1 1)"], ["--max-turns", "1"], "runtime_limit_exceeded"),                      # turn limit
    (['(return {"answer" "no"})'], ["--max-turns", "1", "--schema", "schema.json"], "result_contract_failed"),
    (None, [], "llm_provider_failed"),                                  # the replay file lacks the request
])
def test_subject_and_provider_failures_exit_5(work, capsys, answers, extra, reason):
    if answers is None:
        (work / "r.jsonl").write_text(NO_MATCH)
        model = "m=replay:r.jsonl"
    else:
        model = script(work / "s.json", *answers)
    code = cli_main(["t", "--model", model, "--json", *extra])
    assert code == 5                                         # the run failed (exit classes: ptclisp.exit_codes)
    assert json.loads(capsys.readouterr().out)["error"]["reason"] == reason


def test_schema_is_the_result_contract(work, capsys):
    model = script(work / "s.json", '(return {"answer" "no"})', '(return {"answer" 42})')
    assert cli_main(["t", "--model", model, "--schema", "schema.json"]) == 0
    assert json.loads(capsys.readouterr().out) == {"answer": 42}


@pytest.mark.parametrize("argv,message", [
    (["t"], "--model"),                                                   # no model at all
    (["t", "--model", "m=nope:x"], "unknown provider"),
    (["t", "--model", "m=replay:missing.jsonl"], "cannot read --model m=replay:missing.jsonl: No such file"),
    (["t", "--replay", "missing.jsonl"], "cannot read --replay missing.jsonl: No such file or directory"),
    (["t", "--replay", "a.jsonl", "--record", "b.jsonl"], "not allowed with"),
    (["t", "--model", "m=scripted:missing.json"], "cannot read"),
    (["t", "--model", "m=scripted:s.json", "--data", "missing.json"], "cannot read --data"),
    (["t", "--model", "m=scripted:s.json", "--data", "list.json"], "JSON object"),
    (["t", "--model", "m=scripted:s.json", "--schema", "missing.json"], "cannot read --schema"),
    (["t", "--model", "m=scripted:s.json", "--tools", "nomodule:X"], "no module"),
    (["t", "--model", "m=scripted:s.json", "--prelude", "missing.clj"], "cannot read --prelude"),
    (["t", "--model", "m=scripted:s.json", "--max-turns", "0"], "max_turns"),   # invalid agent config
    (["--model", "m=scripted:s.json"], "give a TASK"),
    (["t", "--model", "m=scripted:s.json", "--record", "nodir/r.jsonl"], "cannot write"),
    (["t", "--model", "m=scripted:s.json", "--trace", "nodir/t.jsonl"], "cannot write --trace"),
])
def test_host_errors_exit_2(work, capsys, argv, message):
    script(work / "s.json", "(return 1)")
    assert cli_main(argv) == 2
    assert message in capsys.readouterr().err


# ------------------------------------------------------------------ replay and record

def test_record_then_replay_without_the_model(work, capsys):
    model = script(work / "s.json", "(def x 41)", "(return (inc x))")
    assert cli_main([TASK, "--model", model, "--record", "rec.jsonl"]) == 0
    assert json.loads(capsys.readouterr().out) == 42
    assert len((work / "rec.jsonl").read_text().splitlines()) == 2
    # --replay replaces every model, even one that would need the network and a key
    assert cli_main([TASK, "--model", "m=openai:gpt-4o-mini", "--replay", "rec.jsonl"]) == 0
    assert json.loads(capsys.readouterr().out) == 42
    assert cli_main([TASK, "--replay", "rec.jsonl"]) == 0            # no --model: one alias, "main"
    assert json.loads(capsys.readouterr().out) == 42
    # a request the file does not hold is a not_found provider failure
    assert cli_main(["A different task.", "--replay", "rec.jsonl"]) == 5
    err = capsys.readouterr().err
    assert "llm_provider_failed" in err and "not_found" in err and "request_hash" in err


# ------------------------------------------------------------------ trace

class _FakeOpenAI(http.server.BaseHTTPRequestHandler):
    """Answers every chat completion with one call; its narration echoes the Authorization header."""

    def do_POST(self):  # noqa: N802 - http.server's naming
        self.rfile.read(int(self.headers.get("Content-Length", 0)))
        body = json.dumps({
            "choices": [{"finish_reason": "tool_calls", "message": {
                "content": f"header was {self.headers.get('Authorization')}",
                "tool_calls": [{"id": "c1", "type": "function", "function": {
                    "name": "run_ptc_lisp", "arguments": json.dumps({"program": "(return 42)"})}}]}}],
            "usage": {"prompt_tokens": 10, "completion_tokens": 5}}).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


@pytest.fixture
def fake_openai():
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _FakeOpenAI)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}/v1"
    server.shutdown()
    server.server_close()


def test_trace_logs_the_run_and_never_the_api_key(work, capsys, monkeypatch, fake_openai):
    key = "sk-test-0123456789abcdefSECRET"
    monkeypatch.setenv("OPENAI_API_KEY", key)
    monkeypatch.setenv("OPENAI_BASE_URL", fake_openai)
    code = cli_main(["t", "--model", "m=openai:fake-model", "--data", "data.json", "--trace", "run.jsonl"])
    assert code == 0
    assert json.loads(capsys.readouterr().out) == 42
    text = (work / "run.jsonl").read_text(encoding="utf-8")
    assert key not in text and "0123456789abcdef" not in text
    events = read_trace(work / "run.jsonl")
    types = [e["type"] for e in events]
    assert types[0] == "run" and types[-1] == "outcome"
    assert {"request", "response", "evaluation"} <= set(types)
    response = next(e for e in events if e["type"] == "response")["response"]
    assert response["tool_calls"][0]["args"] == {"program": "(return 42)"}
    assert "[REDACTED]" in response["content"]                 # the echoed key was scrubbed
    assert events[-1]["ok"] is True and events[-1]["value"] == 42


# ------------------------------------------------------------------ extra flags kept

APP = '''(ns app.agent "An application workflow.")
(defn solve "Solve the input task in one turn." [input]
  (agent.core/run-value (get input "task") (assoc (get input "agent") "max_turns" 1)))
'''


def test_workflow_entry_through_the_main_cli(tmp_path, capsys):
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


# ------------------------------------------------------------------ ptclisp run FILE --model

WORKFLOW = '''(def answer (agent.core/run-value "Sum data/xs." {"max_turns" 2}))
(println "the agent answered" answer)
{:answer answer :twice (* 2 answer)}
'''


def test_run_a_workflow_file_with_a_model(work, capsys):
    (work / "agent.clj").write_text(WORKFLOW)
    model = script(work / "s.json", "(return (reduce + data/xs))")
    code = main(["run", "agent.clj", "--model", model, "--data", "data.json", "--record", "rec.jsonl",
                 "--trace", "t.jsonl"])
    assert code == 0
    captured = capsys.readouterr()      # the value as JSON on stdout, the workflow's prints on stderr (as run DIR)
    assert json.loads(captured.out) == {"answer": 6, "twice": 12} and captured.out.startswith("{\n  ")
    assert captured.err.splitlines()[0] == "the agent answered 6"
    assert {"request", "response", "outcome"} <= {e["type"] for e in read_trace(work / "t.jsonl")}
    assert main(["run", "agent.clj", "--replay", "rec.jsonl", "--data", "data.json", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["value"] == {"answer": 6, "twice": 12}


def test_run_workflow_exit_codes(work, capsys):
    (work / "agent.clj").write_text(WORKFLOW)
    model = script(work / "s.json", "(+ 1 1)", "(+ 2 2)")
    assert main(["run", "agent.clj", "--model", model]) == 5                  # turn limit: the agent failed
    assert "runtime_limit_exceeded" in capsys.readouterr().err
    (work / "bad.clj").write_text("(+ 1 :x)")
    assert main(["run", "bad.clj", "--model", model]) == 5                    # an error in the workflow: it failed
    assert "bad.clj:1:1: Error (workflow_failed/type_error)" in capsys.readouterr().err
    (work / "broken.clj").write_text("(+ 1")
    assert main(["run", "broken.clj", "--model", model]) == 3                 # unreadable source: invalid document
    assert main(["run", "agent.clj", "--trace", "t.jsonl"]) == 2              # --trace alone names no model
    assert main(["run", "agent.clj", "--model", "m=nope:x"]) == 2
    assert "--trace needs a model" in capsys.readouterr().err


# ------------------------------------------------------------------ the shipped example

def _readme_first_command() -> list[str]:
    """The `ptclisp ...` part of the first set-up command in README.md."""
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    block = text.split("```sh\n", 1)[1].split("```", 1)[0].strip()
    assert block.startswith("python3 -m venv .venv && .venv/bin/pip install -q -e . && .venv/bin/ptclisp agent ")
    return shlex.split(block.split("&& .venv/bin/ptclisp ", 1)[1])


EXPECTED = {"region": "north", "paid_revenue": 5696.85, "paid_orders": 26}


def test_readme_example_agent_answers_from_the_shipped_replay():
    argv = _readme_first_command()
    proc = subprocess.run([sys.executable, "-m", "ptclisp.commands.main", *argv], cwd=ROOT, capture_output=True,
                          text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout) == EXPECTED
    # the answer is right for the shipped data, not just what was recorded
    orders = json.loads((ROOT / "examples/orders.json").read_text())["orders"]
    paid = [o for o in orders if o["status"] == "paid" and o["region"] == EXPECTED["region"]]
    assert len(paid) == EXPECTED["paid_orders"]
    assert round(sum(o["amount"] for o in paid), 2) == EXPECTED["paid_revenue"]


def test_example_workflow_file_runs_from_the_same_replay(capsys, monkeypatch):
    monkeypatch.chdir(ROOT)
    code = main(["run", "examples/agent/orders_agent.clj", "--data", "examples/orders.json",
                 "--replay", "examples/agent/orders_agent.replay.jsonl", "--json"])
    assert code == 0
    assert json.loads(capsys.readouterr().out)["value"] == EXPECTED


def test_example_recording_is_reproducible_from_its_script(tmp_path, monkeypatch, capsys):
    """Re-recording both forms from the shipped script gives the shipped replay file, byte for byte.

    The agent command shows the model the result schema, the workflow form has none, so their first
    requests differ and the file holds both recordings (examples/agent/README.md).
    """
    monkeypatch.chdir(ROOT)
    argv = _readme_first_command()
    i = argv.index("--replay")
    out = tmp_path / "again.jsonl"
    scripted = "main=scripted:examples/agent/orders_agent.script.json"
    argv[i:i + 2] = ["--model", scripted, "--record", str(out)]
    assert cli_main(argv[1:]) == 0
    assert json.loads(capsys.readouterr().out) == EXPECTED
    assert main(["run", "examples/agent/orders_agent.clj", "--data", "examples/orders.json", "--model", scripted,
                 "--record", str(out)]) == 0
    assert out.read_text() == (ROOT / "examples/agent/orders_agent.replay.jsonl").read_text()
