"""The --mcp flags of the commands: eval, run, repl, agent (scripted model), bench agent."""
from __future__ import annotations

import json
import pathlib
import shlex
import subprocess
import sys

import pytest

from mcp_client_helpers import fixture_command, need_sdk, script

need_sdk()

from ptclisp.commands.agent import cli_main as agent_main  # noqa: E402
from ptclisp.commands.bench_agent import cli_main as bench_main  # noqa: E402
from ptclisp.commands.main import main  # noqa: E402

TOKYO = ('(get-in (tool/time.convert_time {:source_timezone "UTC" :time "12:00" :target_timezone "Asia/Tokyo"}) '
         '[:target :datetime])')


@pytest.fixture(scope="module")
def time_mcp() -> str:
    """The --mcp value of the time server, as in the issue: NAME=COMMAND ARGS..."""
    return "time=" + shlex.join([*script("mcp-server-time", "mcp_server_time"), "--local-timezone", "UTC"])


def test_eval_prints_the_converted_time(time_mcp, capsys):
    assert main(["eval", "--mcp", time_mcp, TOKYO]) == 0
    out = capsys.readouterr().out.strip()
    assert out.startswith('"') and out.endswith('T21:00:00+09:00"')


def test_eval_json_pmap_over_three_conversions(time_mcp, capsys):
    src = ('(pmap #(get-in (tool/time.convert_time {:source_timezone "UTC" :time "12:00" :target_timezone %}) '
           '[:target :timezone]) ["Asia/Tokyo" "Europe/Paris" "America/Lima"])')
    assert main(["eval", "--json", "--mcp", time_mcp, src]) == 0
    assert json.loads(capsys.readouterr().out)["value"] == ["Asia/Tokyo", "Europe/Paris", "America/Lima"]


def test_eval_bad_time_zone_is_a_typed_error(time_mcp, capsys):
    src = '(tool/time.convert_time {:source_timezone "UTC" :time "12:00" :target_timezone "Mars/Base"})'
    assert main(["eval", "--mcp", time_mcp, src]) == 2
    err = capsys.readouterr().err
    assert err.startswith("<eval>:1:1: Error (tool_error): tool/time.convert_time:")
    assert "Mars/Base" in err


def test_a_server_that_cannot_start_is_one_line_and_exit_4(capsys, tmp_path):
    missing = tmp_path / "nonexistent"
    assert main(["eval", "--mcp", f"bad={missing}", "1"]) == 4
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err == f"ptclisp: MCP server bad ({missing}) could not start: no such command '{missing}'\n"


@pytest.mark.parametrize("argv,message", [
    (["--mcp", "nonsense", "1"], "--mcp expects NAME=COMMAND ARGS... or NAME=URL"),
    (["--mcp", "a=x", "--mcp", "a=y", "1"], "two --mcp servers share a name"),
    (["--mcp", "a=x", "--mcp-allow", "b.tool", "1"], "no --mcp server is named 'b'"),
    (["--mcp", "a=x", "--mcp-hide", "tool", "1"], "--mcp-hide expects NAME.TOOL"),
    (["--mcp", "a=x", "--mcp-effect", "a.t=delete", "1"], "expected NAME.TOOL=read|write|unknown"),
])
def test_bad_mcp_flags_exit_2(capsys, argv, message):
    assert main(["eval", *argv]) == 2
    assert message in capsys.readouterr().err


def test_allow_hide_and_effect_flags(tmp_path, capsys):
    fx = "fx=" + shlex.join(fixture_command(tmp_path))
    src = "(tool/fx.hang {})"
    assert main(["eval", "--mcp", fx, "--mcp-allow", "fx.echo", src]) == 2      # not allowed: not granted
    assert "unknown_tool" in capsys.readouterr().err
    assert main(["eval", "--mcp", fx, "--mcp-hide", "fx.echo", "(tool/fx.echo {:value 1})"]) == 2
    assert "unknown_tool" in capsys.readouterr().err


def test_run_file_with_mcp_and_python_tools(time_mcp, tmp_path, capsys, monkeypatch):
    (tmp_path / "prog.clj").write_text(f"(str (tool/shout {{:s \"tokyo\"}}) \" \" {TOKYO})\n")
    (tmp_path / "my_tools.py").write_text("TOOLS = {'shout': lambda a: a['s'].upper()}\n")
    monkeypatch.chdir(tmp_path)
    assert main(["run", "prog.clj", "--tools", "my_tools:TOOLS", "--mcp", time_mcp]) == 0
    out = capsys.readouterr().out.strip()
    assert out.startswith('"TOKYO ') and out.endswith('T21:00:00+09:00"')


def test_repl_reads_forms_with_mcp_tools(time_mcp):
    root = pathlib.Path(__file__).resolve().parents[2]
    proc = subprocess.run([sys.executable, "-m", "ptclisp.commands.main", "repl", "--mcp", time_mcp],
                          input=f"(def t {TOKYO})\n(subs t 11 16)\n", capture_output=True, text=True,
                          timeout=60, cwd=root)
    assert proc.returncode == 0, proc.stderr
    assert '"21:00"' in proc.stdout


# ---------------------------------------------------------------------- the agent

def _script_file(path: pathlib.Path, *programs) -> str:
    path.write_text(json.dumps(list(programs)))
    return f"m=scripted:{path}"


def test_agent_offers_the_mcp_tool_and_runs_the_program_it_writes(time_mcp, tmp_path, capsys):
    model = _script_file(tmp_path / "answers.json",
                         f'(return (get-in (tool/time.convert_time {{"source_timezone" "UTC" "time" "12:00" '
                         f'"target_timezone" "Asia/Tokyo"}}) [:value :target :datetime]))')
    trace = tmp_path / "trace.jsonl"
    code = agent_main(["What time is noon UTC in Tokyo?", "--model", model, "--mcp", time_mcp,
                       "--trace", str(trace)])
    assert code == 0, capsys.readouterr().err
    assert json.loads(capsys.readouterr().out).endswith("T21:00:00+09:00")
    request = next(json.loads(line) for line in trace.read_text().splitlines()
                   if json.loads(line)["type"] == "request")["request"]
    system = request["system"] if isinstance(request["system"], str) else json.dumps(request["system"])
    assert "tool/time.convert_time" in system
    assert "source_timezone" in system                          # the signature, from the input schema
    assert "Convert time between timezones" in system           # the server's description


def test_agent_with_a_server_that_cannot_start_exits_4(tmp_path, capsys):
    model = _script_file(tmp_path / "answers.json", "(return 1)")
    assert agent_main(["t", "--model", model, "--mcp", f"bad={tmp_path / 'nope'}"]) == 4
    assert "could not start" in capsys.readouterr().err


def test_run_workflow_with_a_model_gets_the_mcp_tools(time_mcp, tmp_path, capsys):
    model = _script_file(tmp_path / "answers.json",
                         '(return (get-in (tool/time.convert_time {"source_timezone" "UTC" "time" "12:00" '
                         '"target_timezone" "Asia/Tokyo"}) [:value :target :timezone]))')
    (tmp_path / "wf.clj").write_text('(agent.core/run-value "Which zone?" {"max_turns" 1})\n')
    code = main(["run", str(tmp_path / "wf.clj"), "--model", model, "--mcp", time_mcp])
    captured = capsys.readouterr()
    assert code == 0, captured.err
    assert '"Asia/Tokyo"' in captured.out


def test_bench_agent_grants_mcp_tools_to_the_runs(time_mcp, tmp_path, capsys):
    out = tmp_path / "bench"
    code = bench_main(["--suite", "data-qa", "--model", "ref=scripted:reference", "--task", "l1-cancelled-orders",
                       "--out", str(out), "--quiet", "--mcp", time_mcp])
    assert code == 0, capsys.readouterr().err
    traces = list(out.rglob("trace.json"))
    assert traces and "tool/time.convert_time" in traces[0].read_text()


def test_bench_agent_refuses_mcp_with_ray(time_mcp, tmp_path, capsys):
    code = bench_main(["--suite", "data-qa", "--executor", "ray", "--out", str(tmp_path), "--mcp", time_mcp])
    assert code == 2
    assert "--mcp needs --executor threads" in capsys.readouterr().err
