"""The agent command line as a script would use it (issue 17), against a fake OpenAI-compatible server.

Exit classes (ptclisp.exit_codes), failure detail on stderr, retries, --envelope, --output, --env-file,
--text-protocol, --timeout-ms, what the first request shows (result schema, data shapes, tool schemas),
`run --json` records, --version and `python -m ptclisp`. The server is tests/fake_openai.py on 127.0.0.1.
"""
from __future__ import annotations

import json
import os
import pathlib
import re
import subprocess
import sys

import jsonschema
import pytest

from ptclisp import exit_codes as X
from ptclisp.commands.main import main
from ptclisp.interchange.schemas import load_schema

from fake_openai import FakeOpenAI

KEY = "sk-fake-0123456789abcdefSECRET"
TOOLS = '''
from typing import Literal

def lookup(id: int, note: str = "") -> dict:
    """Find a user by id."""
    return {"id": id, "name": "Ada", "note": note}

def scale(args):
    """Old style: one argument map."""
    return args["x"] * 2

def pick(colour: Literal["red", "blue"], sizes: list[int] | None = None):
    return colour

TOOLS = {"lookup": lookup, "scale": scale, "pick": pick}
'''
SCHEMA = {"type": "object", "required": ["paid_revenue"], "additionalProperties": False,
          "properties": {"paid_revenue": {"type": "number"}, "region": {"type": "string"}}}


@pytest.fixture
def llm():
    with FakeOpenAI() as server:
        yield server


@pytest.fixture
def work(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    (tmp_path / "data.json").write_text(json.dumps({"orders": [{"id": 1, "region": "north", "amount": 9.5},
                                                               {"id": 2, "region": "south", "amount": 3.0}]}))
    (tmp_path / "schema.json").write_text(json.dumps(SCHEMA))
    (tmp_path / "op_tools.py").write_text(TOOLS)
    return tmp_path


def agent(llm, *extra, task="Total the orders.") -> list[str]:
    return ["agent", task, "--model", f"m=openai:fake-model@{llm.url}", "--data", "data.json", *extra]


def failure_detail(err: str) -> list[str]:
    """The stderr lines of a failed run without its last line, the usage summary every run ends with."""
    lines = err.strip().splitlines()
    assert re.match(r"ptclisp agent: \d+ model calls?, ", lines[-1]), lines[-1]
    return lines[:-1]


# ------------------------------------------------------------------ exit classes and failure detail

def test_a_bad_flag_exits_2_with_the_commands_usage(work, capsys):
    assert main(["agent", "t", "--bogus"]) == X.USAGE
    assert "unrecognized arguments: --bogus" in capsys.readouterr().err
    assert main(["run", "x.clj", "--bogus"]) == X.USAGE
    err = capsys.readouterr().err
    assert err.startswith("usage: ptclisp run ") and "unrecognized arguments: --bogus" in err
    assert main(["eval", "1", "--bogus"]) == X.USAGE
    assert capsys.readouterr().err.startswith("usage: ptclisp eval ")


def test_a_missing_key_exits_4_naming_the_variable(work, llm, capsys, monkeypatch):
    monkeypatch.delenv("OPENAI_API_KEY")
    assert main(agent(llm)) == X.PROVIDER_NOT_READY
    err = capsys.readouterr().err
    assert "no API key configured (set OPENAI_API_KEY)" in err and len(err.strip().splitlines()) == 1
    assert llm.requests == []                                  # nothing was sent


def test_a_refused_key_exits_4_with_status_and_host(work, llm, capsys):
    llm.error(401, body={"error": {"type": "invalid_api_key"}})
    assert main(agent(llm)) == X.PROVIDER_NOT_READY
    err = capsys.readouterr().err
    assert "HTTP 401" in err and llm.host in err and "authentication_failed" in err
    assert KEY not in err and 1 <= len(failure_detail(err)) <= 2


def test_the_turn_limit_exits_5(work, llm, capsys):
    llm.program("(count data/orders)").program("(+ 1 1)")
    assert main(agent(llm, "--max-turns", "2")) == X.RUN_FAILED
    assert "runtime_limit_exceeded" in capsys.readouterr().err


def test_the_models_fail_reason_is_on_stderr(work, llm, capsys):
    llm.program('(fail "the orders have no dates, so a monthly total is impossible")')
    assert main(agent(llm)) == X.RUN_FAILED
    err = capsys.readouterr().err
    assert "the orders have no dates, so a monthly total is impossible" in err
    assert 1 <= len(failure_detail(err)) <= 2


def test_a_500_then_a_good_answer_succeeds(work, llm, capsys):
    llm.error(500, headers={"Retry-After": "0"}).program("(return (count data/orders))")
    assert main(agent(llm)) == X.OK
    assert json.loads(capsys.readouterr().out) == 2
    assert len(llm.requests) == 2


def test_persistent_5xx_exits_5_naming_status_and_host_after_the_retries(work, llm, capsys):
    for _ in range(3):
        llm.error(503, headers={"Retry-After": "0"})
    assert main(agent(llm, "--retries", "1")) == X.RUN_FAILED
    err = capsys.readouterr().err
    assert "HTTP 503" in err and llm.host in err
    assert len(llm.requests) == 2                              # the first call and one retry


def test_timeout_ms_bounds_the_whole_run(work, llm, capsys):
    llm.program("(return 1)", delay=30)                        # the server sits on the answer
    assert main(agent(llm, "--timeout-ms", "300")) == X.LIMIT_HIT
    assert "timeout" in capsys.readouterr().err


def test_timeout_ms_bounds_a_workflow_too(work, llm, capsys):
    (work / "w.clj").write_text('(agent.core/run-value "t" {"max_turns" 2})')
    llm.program("(return 1)", delay=30)
    code = main(["run", "w.clj", "--model", f"m=openai:fake-model@{llm.url}", "--timeout-ms", "300"])
    assert code == X.LIMIT_HIT


def test_an_invalid_schema_is_one_clear_line(work, llm, capsys):
    (work / "bad.schema.json").write_text('{"type": 12}')
    assert main(agent(llm, "--schema", "bad.schema.json")) == X.INVALID_DOCUMENT
    err = capsys.readouterr().err
    assert err.count("\n") == 1
    assert "--schema bad.schema.json is not a valid JSON Schema: 12 is not valid" in err


@pytest.mark.parametrize("flag", ["--prelude", "--replace"])
def test_a_broken_prelude_names_its_file(work, llm, capsys, flag):
    (work / "broken.clj").write_text('(ns helpers "Helpers.")\n(defn f [x] (+ x')
    arg = "broken.clj" if flag == "--prelude" else "agent.prompt=broken.clj"
    assert main(agent(llm, flag, arg)) == X.INVALID_DOCUMENT
    err = capsys.readouterr().err
    assert "broken.clj" in err and "parse_error" in err and "internal error" not in err


def test_a_missing_replay_file_names_the_file_and_the_reason(work, capsys):
    assert main(["agent", "t", "--replay", "nope.jsonl"]) == X.USAGE
    assert "cannot read --replay nope.jsonl: No such file or directory" in capsys.readouterr().err
    (work / "bad.jsonl").write_text("not json\n")
    assert main(["agent", "t", "--replay", "bad.jsonl"]) == X.INVALID_DOCUMENT
    assert "bad.jsonl" in capsys.readouterr().err


# ------------------------------------------------------------------ output

def test_output_writes_a_new_file_and_refuses_an_existing_one(work, llm, capsys):
    llm.program("(return {\"paid_revenue\" 12.5})")
    assert main(agent(llm, "--output", "answer.json")) == X.OK
    assert json.loads((work / "answer.json").read_text()) == {"paid_revenue": 12.5}
    assert capsys.readouterr().out == ""                       # the value went to the file
    assert main(agent(llm, "--output", "answer.json")) == X.OUTPUT_FAILED
    assert "answer.json already exists" in capsys.readouterr().err
    assert json.loads((work / "answer.json").read_text()) == {"paid_revenue": 12.5}
    assert len(llm.requests) == 1                              # refused before the run spent anything
    assert sorted(p.name for p in work.iterdir() if p.name.startswith(".ptclisp")) == []


def test_envelope_is_one_json_document_with_its_schema(work, llm, capsys):
    schema = load_schema("envelope")
    llm.program("(return 3)")
    assert main(agent(llm, "--envelope")) == X.OK
    doc = json.loads(capsys.readouterr().out)
    jsonschema.validate(doc, schema)
    assert doc["ok"] is True and doc["value"] == 3 and doc["exit_code"] == 0 and doc["error"] is None
    assert doc["usage"]["calls"] == 1 and doc["usage"]["input_tokens"] == 100
    assert doc["usage"]["by_alias"]["m"]["output_tokens"] == 20 and doc["usage"]["cost_usd"] is None

    llm.program('(fail "no")')
    assert main(agent(llm, "--envelope")) == X.RUN_FAILED
    doc = json.loads(capsys.readouterr().out)
    jsonschema.validate(doc, schema)
    assert doc["ok"] is False and doc["error"]["kind"] == "run_failed" and doc["exit_code"] == 5
    assert doc["error"]["reason"] == "explicit_failure" and doc["error"]["message"].endswith("(fail ...): no")


def test_envelope_also_for_failures_before_the_run(work, llm, capsys, monkeypatch):
    monkeypatch.delenv("OPENAI_API_KEY")
    assert main(agent(llm, "--envelope")) == X.PROVIDER_NOT_READY
    doc = json.loads(capsys.readouterr().out)
    jsonschema.validate(doc, load_schema("envelope"))
    assert doc["error"]["kind"] == "provider_not_ready" and "OPENAI_API_KEY" in doc["error"]["message"]


def test_return_nil_prints_null(work, llm, capsys):
    llm.program("(return nil)")
    assert main(agent(llm)) == X.OK
    assert capsys.readouterr().out == "null\n"


def test_env_file_supplies_the_key_and_the_trace_never_shows_it(work, llm, capsys, monkeypatch):
    monkeypatch.delenv("OPENAI_API_KEY")
    (work / "creds.env").write_text(f"# credentials\nexport OPENAI_API_KEY='{KEY}'\n")
    llm.program("(return 1)")
    assert main(agent(llm, "--env-file", "creds.env", "--trace", "t.jsonl")) == X.OK
    assert llm.headers[0]["authorization"] == f"Bearer {KEY}"
    assert KEY not in (work / "t.jsonl").read_text()
    assert main(agent(llm, "--env-file", "missing.env")) == X.USAGE
    assert "cannot read --env-file missing.env: No such file or directory" in capsys.readouterr().err


def test_trace_overwrites_and_record_keeps_earlier_answers(work, llm, capsys):
    (work / "t.jsonl").write_text("old line\n")
    llm.program("(return 1)").program("(return 2)")
    assert main(agent(llm, "--trace", "t.jsonl", "--record", "r.jsonl", task="first")) == X.OK
    assert "old line" not in (work / "t.jsonl").read_text()
    assert main(agent(llm, "--record", "r.jsonl", task="second")) == X.OK
    capsys.readouterr()
    for task, value in (("first", 1), ("second", 2)):          # both recordings are in the file
        assert main(["agent", task, "--data", "data.json", "--replay", "r.jsonl"]) == X.OK
        assert json.loads(capsys.readouterr().out) == value


# ------------------------------------------------------------------ the first request

def test_first_request_shows_result_schema_data_shape_and_tool_schemas(work, llm, capsys):
    llm.program('(return {"paid_revenue" 1.0})')
    assert main(agent(llm, "--schema", "schema.json", "--tools", "op_tools:TOOLS")) == X.OK
    system = llm.system(0)
    assert "Result contract" in system and "paid_revenue :float" in system and "region? :string" in system
    assert "data/orders" in system and "[{id :int, region :string, amount :float}]" in system
    assert '(tool/lookup {"id" id})' in system and "(arguments {id :int, note? :string})" in system
    assert "(arguments {colour :string, sizes? [:int]?})" in system and 'one of ["red","blue"]' in system
    assert "(tool/scale {})" in system                        # one argument map: no schema to show


def test_keyword_tools_are_called_with_their_arguments(work, llm, capsys):
    llm.program('(return [(get (tool/lookup {"id" 7}) :value) (get (tool/scale {"x" 2}) :value)])')
    assert main(agent(llm, "--tools", "op_tools:TOOLS")) == X.OK
    assert json.loads(capsys.readouterr().out) == [{"id": 7, "name": "Ada", "note": ""}, 4]
    llm.program('(tool/lookup {"id" "seven"})').program("(return 0)")
    assert main(agent(llm, "--tools", "op_tools:TOOLS")) == X.OK   # the bad call is refused, the model told
    capsys.readouterr()
    feedback = [m["content"] for m in llm.requests[-1]["messages"] if m["role"] == "tool"][-1]
    assert "invalid_arguments" in feedback and "id" in feedback


def test_contract_violations_are_listed_once(work, llm, capsys):
    llm.program('(return {"x" "a" "y" "b"})').program('(return {"paid_revenue" 2.0})')
    assert main(agent(llm, "--schema", "schema.json")) == X.OK
    feedback = [m["content"] for m in llm.requests[1]["messages"] if m["role"] == "tool"][-1]
    assert feedback.count(":kind \"additionalProperties\"") == 1 and feedback.count(":kind \"required\"") == 1


def test_text_protocol_accepts_a_fenced_block(work, llm, capsys):
    llm.text("I count them.\n```clojure\n(count data/orders)\n```").text("```clojure\n(return (* 10 *1))\n```")
    assert main(agent(llm, "--text-protocol")) == X.OK
    assert json.loads(capsys.readouterr().out) == 20
    first, second = llm.requests
    assert "tools" not in first and "fenced code block" in llm.system(0)
    assert all(m["role"] in ("system", "user", "assistant") for m in second["messages"])
    assert "```clojure\n(count data/orders)\n```" in second["messages"][2]["content"]


# ------------------------------------------------------------------ run --json, version, python -m

def test_run_json_has_one_record_shape(work, llm, capsys):
    (work / "p.clj").write_text("(+ 1 2)")
    (work / "w.clj").write_text('(println "hi") (agent.core/run-value "t" {"max_turns" 1})')
    assert main(["run", "p.clj", "--json"]) == 0
    program = json.loads(capsys.readouterr().out)
    llm.program("(return 5)")
    assert main(["run", "w.clj", "--model", f"m=openai:fake-model@{llm.url}", "--json"]) == 0
    workflow = json.loads(capsys.readouterr().out)
    assert set(program) == set(workflow) == {"status", "ok", "value", "prints", "error", "usage", "duration_ms",
                                             "exit_code"}
    assert (program["value"], workflow["value"], workflow["prints"]) == (3, 5, ["hi"])
    assert main(["run", "w.clj", "--model", f"m=openai:fake-model@{llm.url}", "--json"]) == X.RUN_FAILED
    failed = json.loads(capsys.readouterr().out)
    assert set(failed) == set(program) and failed["ok"] is False and failed["error"]["kind"] == "workflow_failed"


def test_version_and_python_m(capsys):
    from ptclisp import __version__
    assert main(["--version"]) == 0
    assert capsys.readouterr().out.strip() == f"ptclisp {__version__}"
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    root = pathlib.Path(__file__).resolve().parents[2]
    proc = subprocess.run([sys.executable, "-m", "ptclisp", "--version"], capture_output=True, text=True,
                          cwd=root, env=env, timeout=60)
    assert proc.returncode == 0 and proc.stdout.strip() == f"ptclisp {__version__}"
    proc = subprocess.run([sys.executable, "-m", "ptclisp", "eval", "(+ 1 2)"], capture_output=True, text=True,
                          cwd=root, env=env, timeout=60)
    assert proc.returncode == 0 and proc.stdout.strip() == "3"


def test_help_documents_the_exit_classes(capsys):
    for argv in (["--help"], ["agent", "--help"], ["run", "--help"]):
        assert main(argv) == 0
        out = capsys.readouterr().out
        assert "4  the provider is not ready" in out and "7  the output could not be written" in out


def test_provider_timeout_bounds_one_call(work, llm, capsys):
    llm.program("(return 1)", delay=30)
    assert main(agent(llm, "--provider-timeout", "0.2", "--retries", "0")) == X.RUN_FAILED
    assert "did not answer within 0.2s" in capsys.readouterr().err
    assert main(agent(llm, "--provider-timeout", "0")) == X.USAGE


def test_a_workflow_that_does_not_analyze_is_an_invalid_document(work, llm, capsys):
    (work / "w.clj").write_text('(println "start")\n(agent.core/no-such-thing 1)\n')
    assert main(["run", "w.clj", "--model", f"m=openai:fake-model@{llm.url}"]) == X.INVALID_DOCUMENT
    assert "w.clj:2:" in capsys.readouterr().err and llm.requests == []
