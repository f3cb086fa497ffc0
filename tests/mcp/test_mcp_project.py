"""Agent projects with MCP servers: [mcp.NAME] sections and --mcp on `run DIR` / `repl --project`.

The servers are real: mcp-server-time from PyPI (the test extra installs it; skipped without it).
"""
from __future__ import annotations

import io
import json
import pathlib

import pytest

from mcp_client_helpers import need_sdk, script

need_sdk()

from ptclisp import exit_codes as X  # noqa: E402
from ptclisp.commands.main import main  # noqa: E402

#: In a mission a tool call answers {:status :ok :value ...}, the server's JSON with string keys.
PROGRAM = ('(return (get-in (tool/time.convert_time {:source_timezone "UTC" :time "12:00" '
           ':target_timezone "Asia/Tokyo"}) [:value "target" "datetime"]))')


def make_project(root: pathlib.Path, mcp_section: str, mission_mcp: str = '["time"]') -> pathlib.Path:
    """A task project whose scripted model writes PROGRAM once; its one mission names `mission_mcp`."""
    p = root / "P"
    (p / "models").mkdir(parents=True)
    (p / "models" / "main.script.json").write_text(json.dumps([PROGRAM]))
    (p / "ptclisp.toml").write_text(f'''
[project]
name = "clock"

[models.main]
provider = "scripted"
model = "models/main.script.json"

{mcp_section}

[missions.default]
mcp = {mission_mcp}

[entry]
task = "What time is noon UTC in Tokyo?"
max_turns = 2
''')
    return p


@pytest.fixture(scope="module")
def time_command() -> list[str]:
    return [*script("mcp-server-time", "mcp_server_time"), "--local-timezone", "UTC"]


@pytest.fixture
def offline(monkeypatch, tmp_path):
    for name in ("OPENAI_API_KEY", "ANTHROPIC_API_KEY"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.chdir(tmp_path)
    return tmp_path


def test_a_project_with_an_mcp_time_section_runs(offline, time_command, capsys):
    p = make_project(offline, f"[mcp.time]\ncommand = {json.dumps(time_command)}\n"
                              f'effects = {{ convert_time = "read" }}')
    assert main(["validate", str(p)]) == X.OK
    capsys.readouterr()
    assert main(["run", str(p), "--json"]) == X.OK
    rec = json.loads(capsys.readouterr().out)
    assert rec["ok"] and rec["value"].endswith("T21:00:00+09:00")


def test_run_dir_takes_mcp_flags_for_every_mission(offline, time_command, capsys):
    p = make_project(offline, "", mission_mcp="[]")
    capsys.readouterr()
    assert main(["run", str(p), "--mcp", "time=" + " ".join(time_command)]) == X.OK
    assert json.loads(capsys.readouterr().out).endswith("T21:00:00+09:00")


def test_an_mcp_flag_may_not_shadow_a_project_server(offline, time_command, capsys):
    p = make_project(offline, f"[mcp.time]\ncommand = {json.dumps(time_command)}")
    capsys.readouterr()
    assert main(["run", str(p), "--mcp", "time=" + " ".join(time_command)]) == X.USAGE
    assert "already has an [mcp.time] server" in capsys.readouterr().err


def test_a_project_server_that_cannot_start_exits_4_naming_it(offline, capsys):
    p = make_project(offline, '[mcp.time]\ncommand = ["/nonexistent/mcp-server"]')
    capsys.readouterr()
    assert main(["run", str(p), "--envelope"]) == X.PROVIDER_NOT_READY
    got = capsys.readouterr()
    doc = json.loads(got.out)
    assert doc["exit_code"] == 4 and doc["error"]["kind"] == "provider_not_ready"
    assert doc["error"]["reason"] == "mcp_start_failed"
    line, = got.err.strip().splitlines()
    assert "MCP server time" in line and "/nonexistent/mcp-server" in line


def test_repl_in_a_project_mission_has_its_mcp_tools(offline, time_command, capsys, monkeypatch):
    p = make_project(offline, f"[mcp.time]\ncommand = {json.dumps(time_command)}")
    monkeypatch.setattr("sys.stdin", io.StringIO(PROGRAM.replace("(return ", "(do ") + "\n"))
    assert main(["repl", "--project", str(p), "--mission", "default"]) == 0
    assert "T21:00:00+09:00" in capsys.readouterr().out


def test_agent_envelope_for_an_mcp_server_that_cannot_start(offline, capsys):
    (offline / "s.json").write_text(json.dumps(["1"]))
    assert main(["agent", "t", "--model", f"m=scripted:{offline / 's.json'}", "--mcp", "bad=/nonexistent",
                 "--envelope"]) == X.PROVIDER_NOT_READY
    doc = json.loads(capsys.readouterr().out)
    assert doc["error"]["kind"] == "provider_not_ready" and doc["error"]["reason"] == "mcp_start_failed"
