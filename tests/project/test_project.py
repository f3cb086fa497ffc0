"""Agent projects (issue 17): ptclisp.toml, init, validate, doctor, models, run DIR, repl --project.

Every shipped example runs offline (scripted models); live models are the fake OpenAI-compatible
server of tests/fake_openai.py on 127.0.0.1.
"""
from __future__ import annotations

import io
import json
import pathlib

import jsonschema
import pytest

from ptclisp import exit_codes as X
from ptclisp.commands.main import main
from ptclisp.interchange.schemas import load_schema
from ptclisp.project import load_project
from ptclisp.commands.project import context_text
from ptclisp.project.init import EXAMPLES
from ptclisp.project.validate import validate

from fake_openai import FakeOpenAI

EXPECTED = {
    "orders": {"region": "north", "paid_revenue": 5696.85, "paid_orders": 26},
    "tools": {"customer_id": "c01", "name": "Ada Lovelace", "tier": "gold", "total_eur": 396.29},
    "workflow": {"region": "north", "region_revenue": 5696.85, "category": "garden", "category_revenue": 1856.21},
}


@pytest.fixture
def offline(monkeypatch, tmp_path):
    """No key, no base URL: anything that would need the network fails."""
    for name in ("OPENAI_API_KEY", "ANTHROPIC_API_KEY", "OPENAI_BASE_URL", "ANTHROPIC_BASE_URL"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.chdir(tmp_path)
    return tmp_path


def new_project(root: pathlib.Path, example="orders", name="P") -> pathlib.Path:
    assert main(["init", str(root / name), "--example", example]) == 0
    return root / name


def edit(path: pathlib.Path, old: str, new: str) -> None:
    text = path.read_text()
    assert old in text, old
    path.write_text(text.replace(old, new))


# ------------------------------------------------------------------ done-when: init, run, validate, doctor, models

@pytest.mark.parametrize("example", list(EXAMPLES))
def test_init_then_run_prints_a_value_offline(offline, capsys, example):
    p = new_project(offline, example)
    capsys.readouterr()
    assert main(["run", str(p)]) == X.OK
    assert json.loads(capsys.readouterr().out) == EXPECTED[example]
    assert main(["validate", str(p)]) == X.OK
    assert main(["doctor", str(p)]) == X.OK
    assert main(["models", str(p)]) == X.OK


def test_a_broken_line_makes_validate_exit_3_naming_the_file(offline, capsys):
    p = new_project(offline)
    with open(p / "ptclisp.toml", "a") as fh:
        fh.write("this is = not [ toml\n")
    capsys.readouterr()
    assert main(["validate", str(p)]) == X.INVALID_DOCUMENT
    err = capsys.readouterr().err
    assert f"{p / 'ptclisp.toml'}: not valid TOML" in err and "[rule: toml_syntax]" in err and "line" in err
    assert main(["run", str(p)]) == X.INVALID_DOCUMENT          # nothing runs from an invalid project
    assert "toml_syntax" in capsys.readouterr().err


def test_init_refuses_a_directory_that_is_not_empty(offline, capsys):
    (offline / "full").mkdir()
    (offline / "full" / "x").write_text("")
    assert main(["init", str(offline / "full")]) == X.USAGE
    assert "not empty" in capsys.readouterr().err


# ------------------------------------------------------------------ validate: file, pointer, rule

BROKEN = [
    # (edit of ptclisp.toml, pointer, rule)
    (('provider = "scripted"', 'provider = "gpt"'), "/models/main/provider", "enum"),
    (("max_turns = 8", "max_turns = 500"), "/limits/max_turns", "maximum"),
    (('data = { orders = "data/orders.json" }', 'data = { orders = "data/missing.json" }'),
     "/missions/default/data/orders", "file_missing"),
    (('mission = "default"', 'mission = "nowhere"'), "/entry/mission", "unknown_reference"),
    (("[missions.default]", "[missions.default]\ntools = [\"nope\"]"), "/missions/default/tools/0",
     "unknown_reference"),
    (("[project]", "[project]\ncolour = \"red\""), "/project", "additionalProperties"),
    (("[limits]", "[mcp.time]\ncommand = [\"mcp-server-time\"]\n\n[limits]"), "/mcp", None),
    (("[limits]", "[mcp.time]\ncommand = [\"mcp-server-time\"]\nrename = { get_current_time = \"no w\" }"
                  "\n\n[limits]"), "/mcp/time", "mcp_invalid"),
]


@pytest.mark.parametrize("change,ptr,rule", BROKEN, ids=[b[1] for b in BROKEN])
def test_validate_names_file_pointer_and_rule(offline, capsys, change, ptr, rule):
    from ptclisp.project.load import mcp_available
    if ptr.startswith("/mcp/") and not mcp_available():
        pytest.skip("the MCP SDK is not installed: [mcp] is refused as a whole")
    p = new_project(offline)
    edit(p / "ptclisp.toml", *change)
    capsys.readouterr()
    if rule is None and mcp_available():  # [mcp]: a valid server section when the MCP SDK is installed
        assert main(["validate", str(p)]) == X.OK
        return
    assert main(["validate", str(p)]) == X.INVALID_DOCUMENT
    err = capsys.readouterr().err
    line = next(line for line in err.splitlines() if f": {ptr}: " in line)
    assert line.startswith(str(p / "ptclisp.toml"))
    if rule is None:                     # [mcp]: validated by the schema, refused when MCP is not installed
        assert "MCP support not installed" in line and "[rule: mcp_unavailable]" in line
    else:
        assert line.endswith(f"[rule: {rule}]")


def test_validate_compiles_preludes_imports_tools_and_checks_documents(offline, capsys):
    p = new_project(offline, "workflow")
    (p / "preludes" / "sales.clj").write_text('(ns sales "x")\n(defn f [x] (+ x')
    (p / "workflow.clj").write_text("(agent.core/no-such-function 1)\n")
    (p / "models" / "analyst.script.json").write_text("{not json")
    assert main(["validate", str(p)]) == X.INVALID_DOCUMENT
    err = capsys.readouterr().err
    assert f"{p / 'preludes' / 'sales.clj'}: /missions/categories/preludes: " in err and "prelude_error" in err
    assert f"{p / 'workflow.clj'}: " in err and "[rule: workflow_error]" in err
    assert f"{p / 'models' / 'analyst.script.json'}: " in err and "[rule: script_invalid]" in err

    t = new_project(offline, "tools", "T")
    edit(t / "ptclisp.toml", 'python = "tools:customer"', 'python = "tools:nobody"')
    (t / "schemas" / "result.schema.json").write_text('{"type": 12}')
    capsys.readouterr()
    assert main(["validate", str(t)]) == X.INVALID_DOCUMENT
    err = capsys.readouterr().err
    assert "/tools/customer/python: tools:nobody: tools has no attribute 'nobody' [rule: tool_unresolved]" in err
    assert f"{t / 'schemas' / 'result.schema.json'}: /type: not a valid JSON Schema" in err


def test_validate_reads_replay_fixtures(offline, capsys):
    p = new_project(offline)
    (p / "run.jsonl").write_text('{"schema_version": 1}\n')
    edit(p / "ptclisp.toml", 'provider = "scripted"\nmodel = "models/main.script.json"',
         'provider = "replay"\nmodel = "run.jsonl"')
    assert main(["validate", str(p)]) == X.INVALID_DOCUMENT
    err = capsys.readouterr().err
    assert f"{p / 'run.jsonl'}: line 1: " in err and "[rule: request_hash_invalid]" in err


def test_two_projects_with_a_tools_module_each_stay_apart(offline, capsys):
    a, b = new_project(offline, "tools", "A"), new_project(offline, "tools", "B")
    edit(b / "tools.py", '"Ada Lovelace"', '"Someone Else"')
    capsys.readouterr()
    assert main(["run", str(a)]) == X.OK
    assert json.loads(capsys.readouterr().out)["name"] == "Ada Lovelace"
    assert main(["run", str(b)]) == X.OK
    assert json.loads(capsys.readouterr().out)["name"] == "Someone Else"


# ------------------------------------------------------------------ models, doctor

def live(p: pathlib.Path, url: str, key_env: str = "OPENAI_API_KEY") -> None:
    edit(p / "ptclisp.toml", 'provider = "scripted"\nmodel = "models/main.script.json"',
         f'provider = "openai"\nmodel = "fake-model"\nbase_url = "{url}"\napi_key_env = "{key_env}"\n'
         f'params = {{ temperature = 0, max_tokens = 512 }}\nprice = {{ input = 1.0, output = 2.0 }}')


def test_models_lists_aliases_without_endpoints_or_keys(offline, capsys, monkeypatch):
    p = new_project(offline)
    live(p, "http://127.0.0.1:9/v1", "MY_KEY")
    monkeypatch.setenv("MY_KEY", "sk-secret-value-123456")
    capsys.readouterr()
    assert main(["models", str(p)]) == X.OK
    out = capsys.readouterr().out
    assert out.startswith("main  openai:fake-model  (default)") and "temperature=0" in out
    assert "127.0.0.1" not in out and "MY_KEY" not in out and "sk-secret" not in out
    assert main(["models", str(p), "--json"]) == X.OK
    assert json.loads(capsys.readouterr().out)["main"]["price"] == {"input": 1.0, "output": 2.0}


def test_doctor_names_a_missing_key_and_never_prints_one(offline, capsys, monkeypatch):
    p = new_project(offline)
    live(p, "http://127.0.0.1:9/v1", "MY_KEY")
    capsys.readouterr()
    assert main(["doctor", str(p)]) == X.PROVIDER_NOT_READY
    assert "no API key configured (set MY_KEY)" in capsys.readouterr().err
    (offline / "creds.env").write_text("MY_KEY=sk-secret-value-123456\n")
    assert main(["doctor", str(p), "--env-file", str(offline / "creds.env")]) == X.OK
    out = capsys.readouterr().out
    assert "key present in MY_KEY" in out and "sk-secret" not in out


def test_doctor_connect_tells_ready_refused_and_no_tool_calling(offline, capsys, monkeypatch):
    p = new_project(offline)
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-0123456789")
    with FakeOpenAI() as llm:
        live(p, llm.url)
        llm.program("(return 1)").error(401, body={"error": {"type": "invalid_api_key"}}).text("pong")
        capsys.readouterr()
        assert main(["doctor", str(p), "--connect"]) == X.OK
        assert "ready (answered with a tool call)" in capsys.readouterr().out
        assert llm.requests[0]["tools"][0]["function"]["name"] == "ping"
        assert main(["doctor", str(p), "--connect"]) == X.PROVIDER_NOT_READY
        err = capsys.readouterr().err
        assert "the key was refused" in err and "HTTP 401" in err and "sk-test" not in err
        assert main(["doctor", str(p), "--connect"]) == X.PROVIDER_NOT_READY
        assert "no tool calling" in capsys.readouterr().err


# ------------------------------------------------------------------ run DIR

def test_run_a_live_project_with_prices_envelope_and_api_key_env(offline, capsys, monkeypatch):
    p = new_project(offline)
    monkeypatch.setenv("MY_KEY", "sk-test-0123456789")
    with FakeOpenAI() as llm:
        live(p, llm.url, "MY_KEY")
        llm.program('(return {"region" "north" "paid_revenue" 1.5 "paid_orders" 2})')
        capsys.readouterr()
        assert main(["run", str(p), "--envelope"]) == X.OK
        doc = json.loads(capsys.readouterr().out)
        jsonschema.validate(doc, load_schema("envelope"))
        assert doc["value"]["region"] == "north"
        assert doc["usage"]["cost_usd"] == pytest.approx((100 * 1.0 + 20 * 2.0) / 1_000_000)
        assert doc["usage"]["by_model"]["fake-model"]["calls"] == 1            # the resolved model, no endpoint
        assert doc["usage"]["by_alias"]["main"]["model"] == "fake-model"
        body = llm.requests[0]
        assert body["temperature"] == 0 and body["max_tokens"] == 512
        assert llm.headers[0]["authorization"] == "Bearer sk-test-0123456789"
        # the first request shows the result contract of [schemas] result and the data's shape
        system = llm.system(0)
        assert "Result contract" in system and "paid_orders :int" in system
        assert "[{id :int, customer :string, category :string, region :string, amount :float, status :string}]" \
            in system


def test_run_input_is_checked_and_becomes_data_input(offline, capsys):
    p = new_project(offline, "workflow")
    (p / "schemas").mkdir()
    (p / "schemas" / "input.schema.json").write_text(json.dumps(
        {"type": "object", "required": ["region"], "properties": {"region": {"type": "string"}}}))
    with open(p / "ptclisp.toml", "a") as fh:
        fh.write('\n[schemas]\ninput = "schemas/input.schema.json"\n')
    (p / "workflow.clj").write_text('(str "asked about " (get data/input "region"))\n')
    (offline / "in.json").write_text('{"region": "south"}')
    (offline / "bad.json").write_text('{"region": 7}')
    capsys.readouterr()
    assert main(["run", str(p), "--input", str(offline / "in.json")]) == X.OK
    assert json.loads(capsys.readouterr().out) == "asked about south"
    assert main(["run", str(p), "--input", str(offline / "bad.json")]) == X.INVALID_DOCUMENT
    assert "/region: 7 is not of type 'string'" in capsys.readouterr().err
    assert main(["run", str(p)]) == X.USAGE
    assert "this project takes an input: add --input FILE.json" in capsys.readouterr().err


def test_run_mission_and_flags_that_do_not_apply(offline, capsys):
    p = new_project(offline)
    capsys.readouterr()
    assert main(["run", str(p), "--mission", "nowhere"]) == X.USAGE
    assert "no such mission" in capsys.readouterr().err
    assert main(["run", str(p), "--model", "m=scripted:x.json"]) == X.USAGE
    assert "--model does not apply to a project" in capsys.readouterr().err
    w = new_project(offline, "workflow", "W")
    capsys.readouterr()
    assert main(["run", str(w), "--mission", "regions"]) == X.USAGE
    assert main(["run", str(offline / "nothing-here")]) == X.USAGE


def test_run_project_output_and_json(offline, capsys):
    p = new_project(offline)
    capsys.readouterr()
    assert main(["run", str(p), "--output", str(offline / "answer.json")]) == X.OK
    assert json.loads((offline / "answer.json").read_text()) == EXPECTED["orders"]
    assert main(["run", str(p), "--output", str(offline / "answer.json")]) == X.OUTPUT_FAILED
    assert main(["run", str(p), "--json"]) == X.OK
    rec = json.loads(capsys.readouterr().out)
    assert rec["ok"] is True and rec["value"] == EXPECTED["orders"] and rec["exit_code"] == 0


def test_limits_lower_the_hosts_ceilings(offline, capsys):
    p = new_project(offline)
    edit(p / "ptclisp.toml", "max_turns = 8", "max_turns = 1\nmax_evaluations = 5\nmemory_bytes = 2000000")
    edit(p / "ptclisp.toml", "max_turns = 4", "max_turns = 1")
    project = load_project(str(p))
    limits = project.agent_limits(cli_timeout_ms=50_000)
    assert (limits.workflow_timeout_ms, limits.subordinate_evaluations, limits.evaluation_allocation_bytes) == \
        (50_000, 5, 2_000_000)
    assert project.agent_limits().workflow_timeout_ms == 120_000
    capsys.readouterr()
    assert main(["run", str(p)]) == X.RUN_FAILED                 # one turn is not enough for the script
    assert "runtime_limit_exceeded" in capsys.readouterr().err


def test_traces_dir_gets_one_trace_directory_per_run(offline, capsys):
    p = new_project(offline)
    edit(p / "ptclisp.toml", '# [traces]\n# dir = "traces"', '[traces]\ndir = "traces"\ninspect = true')
    capsys.readouterr()
    assert main(["run", str(p), "--json"]) == X.OK
    got = capsys.readouterr()
    rec = json.loads(got.out)
    run_dir = p / "traces" / rec["trace"]["run_id"]
    assert rec["trace"]["dir"] == str(p / "traces") and run_dir.is_dir()
    summary = got.err.strip().splitlines()[-1]                     # the usage summary names the trace
    assert summary.startswith("ptclisp run: 3 model calls") and summary.endswith(f"; trace P/traces/{run_dir.name}")
    events = [json.loads(line) for line in (run_dir / "events.jsonl").read_text().splitlines()]
    assert events[0]["command"] == "run" and events[-1]["status"] == "ok" and all("ts" in e for e in events)
    assert (run_dir / "private" / "evidence.jsonl").stat().st_mode & 0o077 == 0     # [traces] inspect = true
    assert main(["run", str(p), "--trace-dir", str(offline / "elsewhere")]) == X.OK   # the flag wins
    assert len([d for d in (offline / "elsewhere").iterdir() if d.is_dir()]) == 1
    assert len([d for d in (p / "traces").iterdir() if d.is_dir()]) == 1


# ------------------------------------------------------------------ repl --project

def repl(argv, text: str, monkeypatch, capsys) -> tuple[int, str, str]:
    monkeypatch.setattr("sys.stdin", io.StringIO(text))
    code = main(["repl", *argv])
    got = capsys.readouterr()
    return code, got.out, got.err


def test_repl_in_a_mission_is_the_models_environment(offline, capsys, monkeypatch):
    p = new_project(offline, "tools")
    capsys.readouterr()
    code, out, err = repl(["--project", str(p), "--mission", "default"],
                          '(count data/orders)\n(get (tool/customer {"customer_id" "c03"}) :value)\n'
                          '(tool/customer {"customer_id" 3})\ndata/nothing\n:context\n', monkeypatch, capsys)
    lines = out.splitlines()
    assert lines[0] == "10"
    assert lines[1] == '{"customer_id" "c03" "name" "Alan Turing" "tier" "gold"}'
    assert ":reason :invalid_arguments" in lines[2]             # the envelope a model's program would get
    assert "data/nothing" in err                                  # strict data, as for the model
    assert "Available API" in out and '(tool/customer {"customer_id" customer_id})' in out
    assert "Result contract" in out and code == 2


def test_repl_context_is_what_the_model_gets(offline, capsys):
    p = new_project(offline)
    project = load_project(str(p))
    missions = {n: project.mission(n) for n in project.mission_names()}
    text = context_text(project, "default", missions, project.agent_limits())
    from ptclisp.agent import AgentHost
    from ptclisp.providers import ScriptedProvider
    provider = ScriptedProvider([{"content": None, "tool_calls": [
        {"id": "c1", "name": "run_ptc_lisp", "args": {"program": "(return 1)"}}]}])
    host = AgentHost({"m": provider}, missions, result_schema=project.schema("result"),
                     limits=project.agent_limits())
    host.run_entry("agent.core/run-value", "t", {"max_turns": project.max_turns()})
    assert provider.requests[0]["system"] == text


def test_repl_workflow_form_has_live_models(offline, capsys, monkeypatch):
    p = new_project(offline, "workflow")
    capsys.readouterr()
    code, out, err = repl(["--project", str(p)],
                          '(get (agent.core/run-value "t" {"mission" "regions" "model" "analyst"}) "region")\n',
                          monkeypatch, capsys)
    assert (code, out.strip(), err) == (0, '"north"', "")


# ------------------------------------------------------------------ the schema itself

def test_project_schema_is_a_json_schema_and_matches_the_examples(offline):
    import tomllib
    schema = load_schema("project")
    jsonschema.Draft202012Validator.check_schema(schema)
    for example in EXAMPLES:
        p = new_project(offline, example, f"S-{example}")
        jsonschema.validate(tomllib.loads((p / "ptclisp.toml").read_text()), schema)
        project, problems = validate(str(p))
        assert problems == []
