"""The `ptclisp` command: run, eval, check, --help, and user errors without tracebacks."""
import argparse
import json
import os
import pathlib
import re
import signal
import subprocess
import sys
import time

import pytest

from ptclisp.commands.main import main

TOOLS_MODULE = '''
import ptclisp

def lookup(args):
    """Find a user by id."""
    return {"id": args["id"], "name": "Ada"}

TOOLS = {"lookup": lookup}
TOOL_LIST = [ptclisp.Tool("lookup", lookup, description="Find a user.")]
NOT_TOOLS = 42
'''


@pytest.fixture
def workdir(tmp_path, monkeypatch):
    (tmp_path / "mytools.py").write_text(TOOLS_MODULE, encoding="utf-8")
    (tmp_path / "boom.py").write_text("raise RuntimeError('broken at import')\n", encoding="utf-8")
    (tmp_path / "data.json").write_text(json.dumps({"xs": [1, 2, 3], "user": {"name": "Ada"}}), encoding="utf-8")
    (tmp_path / "list.json").write_text("[1, 2]", encoding="utf-8")
    (tmp_path / "broken.json").write_text("{\"a\": ", encoding="utf-8")
    (tmp_path / "ok.clj").write_text("(println \"sum\")\n(reduce + data/xs)\n", encoding="utf-8")
    (tmp_path / "fails.clj").write_text("(fail {:reason :nope})\n", encoding="utf-8")
    (tmp_path / "returns.clj").write_text("(return 7)\n(+ 1 :never)\n", encoding="utf-8")
    (tmp_path / "errs.clj").write_text("(def x 1)\n(let [a 1]\n  (+ a :b))\n", encoding="utf-8")
    (tmp_path / "util.clj").write_text('(ns util)\n(defn twice "Double it." [x] (* 2 x))\n', encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    monkeypatch.syspath_prepend(str(tmp_path))
    return tmp_path


# (argv, exit code, text expected on stdout, text expected on stderr)
COMMANDS = [
    (["run", "ok.clj", "--data", "data.json"], 0, "sum\n6\n", ""),
    (["run", "fails.clj"], 1, "", "fail: {:reason :nope}"),
    (["run", "returns.clj"], 0, "7\n", ""),
    (["run", "errs.clj"], 2, "", "errs.clj:3:3: Error (type_error): +: expected a number, got keyword"),
    (["eval", "(+ 1 2)"], 0, "3\n", ""),
    (["eval", "(:name data/user)", "--data", "data.json"], 0, '"Ada"\n', ""),
    (["eval", "(tool/lookup {:id 7})", "--tools", "mytools:TOOLS"], 0, '{"id" 7 "name" "Ada"}', ""),
    (["eval", "(:name (tool/lookup {:id 7}))", "--tools", "mytools:TOOL_LIST"], 0, '"Ada"', ""),
    (["eval", "(util/twice 21)", "--prelude", "util.clj"], 0, "42\n", ""),
    (["eval", "(/ 1 0)"], 2, "", "<eval>:1:1: Error (arithmetic_error)"),
    # user errors: one line, exit 2
    (["run", "missing.clj"], 2, "", "ptclisp: cannot read missing.clj: No such file or directory"),
    (["eval", "1", "--data", "missing.json"], 2, "", "cannot read --data missing.json"),
    (["eval", "1", "--data", "broken.json"], 2, "", "--data broken.json is not valid JSON"),
    (["eval", "1", "--data", "list.json"], 2, "", "must hold a JSON object"),
    (["eval", "1", "--tools", "nosuchmodule:TOOLS"], 2, "", "no module named 'nosuchmodule'"),
    (["eval", "1", "--tools", "mytools:MISSING"], 2, "", "mytools has no attribute 'MISSING'"),
    (["eval", "1", "--tools", "mytools:NOT_TOOLS"], 2, "", "expected a dict of tools or a list of ptclisp.Tool"),
    (["eval", "1", "--tools", "mytools"], 2, "", "expected module:attr"),
    (["eval", "1", "--tools", "boom:TOOLS"], 2, "", "importing boom failed: RuntimeError: broken at import"),
    (["eval", "1", "--prelude", "missing.clj"], 2, "", "ptclisp: "),
    (["repl", "--preview-chars", "5"], 2, "", "--preview-chars must be between 64 and 65536"),
]


@pytest.mark.parametrize("argv,code,out,err", COMMANDS, ids=[" ".join(c[0]) for c in COMMANDS])
def test_commands(workdir, capsys, argv, code, out, err):
    assert main(argv) == code
    got = capsys.readouterr()
    assert out in got.out
    assert err in got.err
    assert "Traceback" not in got.err


def test_run_error_shows_the_line_and_a_caret(workdir, capsys):
    main(["run", "errs.clj"])
    lines = capsys.readouterr().err.splitlines()
    source_line = next(line for line in lines if line.strip().startswith("3 |"))
    caret_line = lines[lines.index(source_line) + 1]
    assert source_line.endswith("  (+ a :b))")
    assert caret_line.index("^") == source_line.index("(+")


def test_json_record(workdir, capsys):
    assert main(["eval", "(println \"hi\") {:a [1 2]}", "--json"]) == 0
    rec = json.loads(capsys.readouterr().out)
    assert rec["status"] == "ok" and rec["value"] == {"a": [1, 2]} and rec["prints"] == ["hi"]
    assert main(["eval", "(+ 1 :a)", "--json"]) == 2
    rec = json.loads(capsys.readouterr().out)
    assert rec["error"]["kind"] == "type_error" and rec["error"]["line"] == 1


#: Every subcommand of `ptclisp` (the merged issues 15, 16 and 17 each added some).
COMMANDS = ["repl", "run", "eval", "check", "fmt", "bench", "agent", "view", "transcript", "init", "validate",
            "doctor", "models", "candidate", "docs", "mcp", "lsp"]


@pytest.mark.parametrize("command", [c for c in COMMANDS if c not in ("bench", "agent")])
def test_help_on_every_subcommand(capsys, command):
    assert main([command, "--help"]) == 0
    out = capsys.readouterr().out
    assert out.startswith(f"usage: ptclisp {command}")


def test_top_level_help_lists_every_command(capsys):
    from ptclisp.commands.main import build_parser
    sub = next(a for a in build_parser()._actions if isinstance(a, argparse._SubParsersAction))
    assert sorted(sub.choices) == sorted(COMMANDS)
    assert main(["--help"]) == 0
    listed = re.findall(r"^    (\w+)", capsys.readouterr().out, re.M)
    assert sorted(listed) == sorted(COMMANDS)


# ---------------------------------------------------------------- check

CHECKED = """(defn f [x]
  (+ x (g 1)))
(defn g [y] y)
(let [a] a)
(undefined-fn 1 2)
(map inc)
(f 1)
(if)
"""


def test_check_reports_every_form(workdir, capsys):
    (workdir / "bad.clj").write_text(CHECKED, encoding="utf-8")
    assert main(["check", "bad.clj"]) == 1
    out = capsys.readouterr().out.splitlines()
    # g is defined after f and still resolves; the four broken forms are each reported once
    assert [line.split(": ")[0] for line in out] == ["bad.clj:4:6", "bad.clj:5:2", "bad.clj:6:1", "bad.clj:8:1"]
    assert out[1].endswith("unbound_var: Unable to resolve symbol: undefined-fn in this context")


def test_check_clean_file_and_parse_error(workdir, capsys):
    assert main(["check", "ok.clj"]) == 0
    assert capsys.readouterr().out == ""
    (workdir / "open.clj").write_text("(def a 1)\n(defn f [x]\n  (inc x)\n", encoding="utf-8")
    assert main(["check", "open.clj"]) == 1
    assert capsys.readouterr().out.startswith("open.clj:2:1: parse_error: unclosed list")


def test_check_does_not_run_anything(workdir, capsys):
    (workdir / "loud.clj").write_text('(println "ran")\n(fail :x)\n', encoding="utf-8")
    assert main(["check", "loud.clj"]) == 0
    assert "ran" not in capsys.readouterr().out


def test_check_with_prelude_and_tools(workdir, capsys):
    (workdir / "uses.clj").write_text("(util/twice 1 2)\n(tool/lookup {:id 1})\n(tool/other {:a 1})\n",
                                      encoding="utf-8")
    assert main(["check", "uses.clj", "--prelude", "util.clj"]) == 1
    assert [line.split(": ")[0] for line in capsys.readouterr().out.splitlines()] == ["uses.clj:1:1"]
    assert main(["check", "uses.clj", "--prelude", "util.clj", "--tools", "mytools:TOOLS"]) == 1
    out = capsys.readouterr().out.splitlines()
    assert [line.split(": ")[0] for line in out] == ["uses.clj:1:1", "uses.clj:3:2"]
    assert "unknown_tool" in out[1]


# ---------------------------------------------------------------- as a real process

def _ptclisp() -> list[str]:
    return [sys.executable, "-m", "ptclisp.commands.main"]


@pytest.mark.parametrize("args", [
    ["run", "nope.clj"],
    ["eval", "1", "--tools", "nosuchmodule:X"],
    ["eval", "1", "--data", "broken.json"],
    ["fmt", "nope.clj"],
    ["check", "nope.clj"],
])
def test_no_traceback_in_a_real_process(workdir, args):
    proc = subprocess.run(_ptclisp() + args, capture_output=True, text=True, timeout=60, cwd=workdir)
    assert proc.returncode == 2
    assert proc.stderr.startswith("ptclisp: ") and "Traceback" not in proc.stderr


def test_tools_module_found_in_the_current_directory(workdir):
    script = pathlib.Path(sys.executable).with_name("ptclisp")
    if not script.exists():
        pytest.skip("console script not installed beside this Python")
    env = dict(os.environ, PYTHONPATH="")
    proc = subprocess.run([str(script), "eval", "(:name (tool/lookup {:id 1}))", "--tools", "mytools:TOOLS"],
                          capture_output=True, text=True, timeout=60, cwd=workdir, env=env)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == '"Ada"\n'


def test_ctrl_c_exits_quietly(workdir):
    (workdir / "slow.py").write_text(
        "import pathlib, time\npathlib.Path('started').write_text('1')\ntime.sleep(60)\nTOOLS = {}\n",
        encoding="utf-8")
    proc = subprocess.Popen(_ptclisp() + ["eval", "1", "--tools", "slow:TOOLS"], cwd=workdir,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        for _ in range(600):
            if (workdir / "started").exists():
                break
            time.sleep(0.05)
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=30)
    finally:
        proc.kill()
    assert proc.returncode == 130
    assert "Traceback" not in err
