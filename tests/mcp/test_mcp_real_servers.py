"""Real third-party MCP servers as ptclisp tools: mcp-server-time and mcp-server-git from PyPI (the test
extra installs both; they work offline), and the npm reference server when Node has it installed."""
from __future__ import annotations

import json
import shutil
import subprocess

import pytest

from mcp_client_helpers import git_repo, need_sdk, script

need_sdk()

import ptclisp  # noqa: E402
from ptclisp import Limits  # noqa: E402
from ptclisp.mcp.client import MCPServerSpec, MCPTools  # noqa: E402

CONVERT = ('(tool/time.convert_time {:source_timezone "UTC" :time "12:00" :target_timezone %s})')


@pytest.fixture(scope="module")
def time_tools():
    cmd = script("mcp-server-time", "mcp_server_time")
    with MCPTools([MCPServerSpec("time", command=[*cmd, "--local-timezone", "UTC"])]) as mcp:
        yield mcp


def run(mcp, src):
    return ptclisp.run(src, tools=mcp.tools, limits=Limits(timeout_ms=10_000))


def test_time_server_tools_are_granted_read_only_with_schemas(time_tools):
    tools = time_tools.tools
    assert sorted(tools) == ["time.convert_time", "time.get_current_time"]
    assert all(t.effect == "read" for t in tools.values())     # readOnlyHint
    assert set(tools["time.convert_time"].input_schema["required"]) == {"source_timezone", "time",
                                                                         "target_timezone"}


def test_convert_time(time_tools):
    r = run(time_tools, f'(get-in {CONVERT % json.dumps("Asia/Tokyo")} [:target :datetime])')
    assert r.status == "ok", r.error
    assert r.value.endswith("T21:00:00+09:00")


def test_pmap_over_three_conversions(time_tools):
    r = run(time_tools, '(pmap #(get-in (tool/time.convert_time {:source_timezone "UTC" :time "12:00" '
                        ':target_timezone %}) [:target :timezone]) ["Asia/Tokyo" "Europe/Paris" "America/Lima"])')
    assert r.status == "ok", r.error
    assert ptclisp.to_python(r.value) == ["Asia/Tokyo", "Europe/Paris", "America/Lima"]


def test_a_bad_time_zone_is_a_typed_error_naming_it(time_tools):
    r = run(time_tools, CONVERT % '"Mars/Olympus_Mons"')
    assert r.status == "error"
    assert (r.error.kind, r.error.span.line, r.error.span.col) == ("tool_error", 1, 1)
    assert "Mars/Olympus_Mons" in r.error.message and "tool/time.convert_time" in r.error.message


def test_a_missing_argument_is_caught_by_the_input_schema(time_tools):
    r = run(time_tools, '(tool/time.convert_time {:time "12:00"})')
    assert r.error.kind == "invalid_tool_args"
    assert "source_timezone" in r.error.message


def test_git_server_over_a_temporary_repository(tmp_path):
    repo = git_repo(tmp_path / "repo")
    cmd = script("mcp-server-git", "mcp_server_git")
    with MCPTools([MCPServerSpec("git", command=[*cmd, "--repository", str(repo)])]) as mcp:
        tools = mcp.tools
        assert tools["git.git_log"].effect == "read" and tools["git.git_commit"].effect == "write"
        src = (f'(let [repo {json.dumps(str(repo))}]\n'
               f'  {{:status (tool/git.git_status {{:repo_path repo}})\n'
               f'   :log (tool/git.git_log {{:repo_path repo :max_count 1}})}})')
        r = run(mcp, src)
        assert r.status == "ok", r.error
        value = ptclisp.to_python(r.value)
        assert "first commit" in value["log"]
        assert "nothing to commit" in value["status"]
        bad = run(mcp, '(tool/git.git_log {:repo_path "/no/such/repo"})')
        assert bad.status == "error" and bad.error.kind == "tool_error"
        assert "tool/git.git_log" in bad.error.message


def _everything_command():
    """The npm reference server, when it is installed where Node finds it offline; else skip."""
    exe = shutil.which("mcp-server-everything")
    if exe:
        return [exe, "stdio"]
    npm = shutil.which("npm")
    node = shutil.which("node")
    if npm and node:
        try:
            root = subprocess.run([npm, "root", "-g"], capture_output=True, text=True, timeout=20).stdout.strip()
        except (OSError, subprocess.TimeoutExpired):
            root = ""
        entry = f"{root}/@modelcontextprotocol/server-everything/dist/index.js"
        if root and shutil.os.path.exists(entry):
            return [node, entry, "stdio"]
    pytest.skip("@modelcontextprotocol/server-everything is not installed for Node (npm install -g)")


def test_npm_reference_server_everything():
    cmd = _everything_command()
    with MCPTools([MCPServerSpec("ev", command=cmd)], connect_timeout_s=60) as mcp:
        assert "ev.echo" in mcp.tools
        r = run(mcp, '(tool/ev.echo {:message "hi"})')
        assert r.status == "ok", r.error
        assert "hi" in json.dumps(ptclisp.to_python(r.value))
