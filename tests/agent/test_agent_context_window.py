"""The model's context window is a host limit (issue 26): `llm/request` compacts or refuses any request
over the answering model's declared window (in characters: CHARS_PER_TOKEN x the window less the output
reservation), besides max_transcript_chars; with ScriptedProvider in-process, and with `ptclisp run DIR`
in a subprocess against the fake OpenAI-compatible server of tests/fake_openai.py over real HTTP."""
from __future__ import annotations

import json
import os
import pathlib
import subprocess
import sys

import pytest

from ptclisp.agent import AgentHost
from ptclisp.agent.compaction import request_chars
from ptclisp.providers import (AnthropicMessages, DeclaredWindow, ModelRouter, OpenAIChat, RecordingProvider,
                               ScriptedProvider, declared_window, window_chars)

from agent_helpers import call, calls
from test_agent_host_limits import RECKLESS

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1]))
from fake_openai import FakeOpenAI  # noqa: E402

WINDOW = 4000                      # tokens; no max_tokens: a quarter is kept for the answer
CHARS = window_chars(WINDOW)       # (4000 - 1000) x 3 = 9000 characters of request
# eleven programs that each print a ~750-character observation and define a value, then one that returns
PROGRAMS = [f'(def x{i} {i}) (apply str (map (fn [_] "{chr(97 + i)}") (range 700)))' for i in range(11)] + \
    ["(return (+ x3 x10))"]


def _run(cfg=None, window=WINDOW):
    provider = ScriptedProvider(calls(*PROGRAMS), context_window=window)
    host = AgentHost(models={"m": provider})
    out = host.run_entry("agent.main/run", {"task": "t", "agent": {"max_turns": 12, **(cfg or {})}})
    return out, provider


# ------------------------------------------------------------------ the estimate

def test_the_estimate_keeps_max_tokens_or_a_quarter_for_the_answer_at_three_characters_a_token():
    assert CHARS == 9000
    assert window_chars(8000, 2000) == 18000
    assert window_chars(4000, 4000) == 0 == window_chars(4000, 9000)
    assert declared_window(AnthropicMessages("claude-x", api_key="k", context_window=10000)) == (10000, 4096)


def test_providers_declare_a_window_or_take_the_table_s():
    assert OpenAIChat("m", api_key="k", context_window=8192).context_window == 8192
    assert OpenAIChat("m", api_key="k").context_window is None                  # unknown model: no window
    assert OpenAIChat("gpt-4o-mini-2024-07-18", api_key="k").context_window == 128_000
    assert OpenAIChat("gpt-4o", api_key="k", context_window=1000).context_window == 1000   # declared wins
    assert AnthropicMessages("claude-sonnet-4-5", api_key="k").describe()["context_window"] == 200_000
    for bad in (0, -1, 1.5, True, "8192", 10**9):
        with pytest.raises(ValueError, match="context_window must be a positive integer"):
            ScriptedProvider([], context_window=bad)


def test_wrappers_pass_the_window_and_the_output_cap_on(tmp_path):
    inner = OpenAIChat("m", api_key="k", context_window=8192, max_tokens=512)
    assert declared_window(RecordingProvider(inner, tmp_path / "r.jsonl")) == (8192, 512)
    assert declared_window(RecordingProvider(inner, tmp_path / "r.jsonl", context_window=4096)) == (4096, 512)
    assert declared_window(DeclaredWindow(ScriptedProvider([]), 3000, 100)) == (3000, 100)


# ------------------------------------------------------------------ in-process, scripted model

def test_a_task_outgrowing_a_small_window_compacts_and_completes_inside_it():
    out, provider = _run()
    assert out.ok and out.value == 13                   # x3 + x10: definitions survive the summaries
    assert len(provider.requests) == 12
    assert max(request_chars(r) for r in provider.requests) <= CHARS < request_chars(provider.requests[0]) * 12
    comps = [e for e in out.events if e["type"] == "compaction"]
    assert comps and all(e["budget_chars"] == CHARS and e["after_chars"] <= CHARS for e in comps)
    assert all((e["budget_limit"], e["alias"]) == ("context_window", "m") for e in comps)


def test_without_compaction_the_window_ends_the_run_before_a_request_over_it_is_sent():
    out, provider = _run({"compaction": False})
    assert out.error.reason == "runtime_limit_exceeded"
    assert out.error.details == {"limit": "context_window", "limit_value": WINDOW, "alias": "m"}
    assert "context window of model m (4000 tokens: about 9000 characters" in out.error.message
    assert 1 < len(provider.requests) < 12 and all(request_chars(r) <= CHARS for r in provider.requests)


def test_the_lower_budget_is_the_one_that_holds():
    out, _ = _run({"compaction": False, "max_transcript_chars": 6000})          # below the window's 9000
    assert out.error.details == {"limit": "max_transcript_chars", "limit_value": 6000}
    out, provider = _run({"compaction": False}, window=1_000_000)             # far above max_transcript_chars
    assert out.ok and out.value == 13 and len(provider.requests) == 12


def test_an_output_reservation_that_takes_the_whole_window_refuses_the_first_request():
    provider = ScriptedProvider(calls("(return 1)"))
    host = AgentHost(models={"m": DeclaredWindow(provider, 4000, max_tokens=4000)})
    out = host.run_entry("agent.main/run", {"task": "t"})
    assert out.error.details == {"limit": "context_window", "limit_value": 4000, "alias": "m"}
    assert provider.requests == []


@pytest.mark.parametrize("compaction", [True, False])
def test_a_replaced_agent_core_cannot_get_past_the_window(compaction):
    provider = ScriptedProvider(lambda req: call("c", "(+ 1 1)"), context_window=WINDOW)
    host = AgentHost(models={"m": provider}, replace={"agent.core": RECKLESS})
    cfg = {"max_turns": 50, "pad": "x" * 1500, "compaction": compaction}
    out = host.run_entry("agent.main/run", {"task": "t", "agent": cfg})
    assert out.error.reason == "runtime_limit_exceeded"
    assert out.error.details == {"limit": "context_window", "limit_value": WINDOW, "alias": "m"}
    assert provider.requests and all(request_chars(r) <= CHARS for r in provider.requests)


def test_the_window_is_the_one_of_the_alias_the_router_picks():
    big = ScriptedProvider(lambda req: {"content": "ok"})
    small = ScriptedProvider(lambda req: {"content": "ok"}, context_window=1000)
    host = AgentHost(models=ModelRouter({"big": big, "small": small}, default="small"))
    text = '[{"role" "user" "content" (apply str (map (fn [_] "x") (range 5000)))}]'
    out = host.eval('(get (llm/request {"model" "big" "messages" %s}) "content")' % text)
    assert out.ok and out.value == "ok"                  # big declares no window: 5000 characters go
    for model in ('"model" "small" ', ""):                # named, or omitted: the default alias
        out = host.eval('(llm/request {%s"messages" %s})' % (model, text))
        assert out.error.details == {"limit": "context_window", "limit_value": 1000, "alias": "small"}
    assert (len(big.requests), len(small.requests)) == (1, 0)


# ------------------------------------------------------------------ over HTTP: a project run

KEY = "sk-test-0123456789"


def _project(root: pathlib.Path, url: str, *, compaction: bool = True, window=WINDOW) -> pathlib.Path:
    root.mkdir(exist_ok=True)
    (root / "ptclisp.toml").write_text(f'''[project]
name = "cw"

[models.main]
provider = "openai"
model = "fake-model"
base_url = "{url}"
context_window = {window}

[entry]
task = "t"
max_turns = 12

[agent]
compaction = {str(compaction).lower()}

[limits]
max_turns = 12
''')
    return root


def _cli(args, cwd):
    env = {**os.environ, "OPENAI_API_KEY": KEY}
    return subprocess.run([sys.executable, "-m", "ptclisp.commands.main", *args], cwd=cwd, capture_output=True, text=True,
                          timeout=120, env=env)


def _script(llm):
    for p in PROGRAMS:
        llm.program(p)


def _wire(body) -> int:
    return len(json.dumps(body, ensure_ascii=False, separators=(",", ":")))


def _read_chars(body) -> int:
    """Characters of what the model reads in a chat-completions body: message texts, tool-call names and
    arguments, and the tool definitions (the JSON framing of the transport left out)."""
    n = len(json.dumps(body.get("tools") or [], separators=(",", ":")))
    for m in body["messages"]:
        n += len(m.get("content") or "")
        n += sum(len(c["function"]["name"]) + len(c["function"]["arguments"]) for c in m.get("tool_calls") or [])
    return n


def test_a_project_run_over_http_compacts_to_the_window_and_completes(tmp_path):
    with FakeOpenAI() as llm:
        _script(llm)
        proc = _cli(["run", str(_project(tmp_path / "p", llm.url)), "--json", "--trace-dir", "traces"], tmp_path)
        bodies = list(llm.requests)
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["value"] == 13
    assert len(bodies) == 12 and max(_wire(b) for b in bodies) <= CHARS       # even with the wire's framing
    assert "EARLIER TURNS" in json.dumps(bodies[-1])
    (run_dir,) = [p for p in (tmp_path / "traces").iterdir() if p.is_dir()]
    events = [json.loads(x) for x in (run_dir / "events.jsonl").read_text().splitlines()]
    comps = [e for e in events if e["kind"] == "compaction"]
    assert comps and all((e["budget_limit"], e["alias"], e["budget_chars"]) == ("context_window", "main", CHARS)
                         for e in comps)


def test_without_compaction_a_project_run_over_http_fails_naming_the_window_and_sends_nothing_over_it(tmp_path):
    with FakeOpenAI() as llm:
        _script(llm)
        proc = _cli(["run", str(_project(tmp_path / "p", llm.url, compaction=False)), "--json"], tmp_path)
        bodies = list(llm.requests)
    from ptclisp import exit_codes as X
    record = json.loads(proc.stdout)
    assert proc.returncode == X.LIMIT_HIT
    assert record["error"]["reason"] == "runtime_limit_exceeded"
    assert record["error"]["details"] == {"limit": "context_window", "limit_value": WINDOW, "alias": "main"}
    assert "context window of model main" in proc.stderr
    # the refused request never reached the server: it got exactly the admitted ones, each inside the window
    assert 1 < len(bodies) == record["usage"]["llm_calls"]["main"] < 12
    assert all(_read_chars(b) <= CHARS for b in bodies)


def test_a_recorded_run_replays_with_the_same_compactions(tmp_path):
    with FakeOpenAI() as llm:
        _script(llm)
        project = _project(tmp_path / "p", llm.url)
        proc = _cli(["run", str(project), "--json", "--record", "run.jsonl"], tmp_path)
        assert proc.returncode == 0, proc.stderr
        recorded = json.loads(proc.stdout)["usage"]["compactions"]
        assert recorded > 0 and max(_wire(b) for b in llm.requests) <= CHARS   # --record keeps the window
    # no server now: every request must hash as recorded, so the replay must compact exactly the same way
    proc = _cli(["run", str(project), "--json", "--replay", "run.jsonl"], tmp_path)
    assert proc.returncode == 0, proc.stderr
    record = json.loads(proc.stdout)
    assert record["value"] == 13 and record["usage"]["compactions"] == recorded


# ------------------------------------------------------------------ validate and models

@pytest.mark.parametrize("value", ["0", "-5", '"big"', "1.5", "true", "1000000000"])
def test_validate_refuses_a_context_window_that_is_not_a_positive_integer(tmp_path, value):
    project = _project(tmp_path / "p", "http://127.0.0.1:9/v1", window=value)
    proc = _cli(["validate", str(project)], tmp_path)
    from ptclisp import exit_codes as X
    assert proc.returncode == X.INVALID_DOCUMENT
    line = next(x for x in proc.stderr.splitlines() if ": /models/main/context_window: " in x)
    assert line.startswith(str(project / "ptclisp.toml"))


def test_validate_accepts_a_context_window_and_models_shows_it(tmp_path):
    project = _project(tmp_path / "p", "http://127.0.0.1:9/v1", window=8192)
    assert _cli(["validate", str(project)], tmp_path).returncode == 0
    proc = _cli(["models", str(project)], tmp_path)
    assert proc.returncode == 0 and "context window 8192 tokens" in proc.stdout
    assert json.loads(_cli(["models", str(project), "--json"], tmp_path).stdout)["main"]["context_window"] == 8192
