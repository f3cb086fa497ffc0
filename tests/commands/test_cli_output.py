"""What the `ptclisp` command writes: --json records by the rules of docs/json.md, and any text on any stream."""
import io
import json
import os
import subprocess
import sys

import pytest

from ptclisp.commands.main import main

# (program, exit code, status, value)  for values with a JSON form
JSON_VALUES = [
    ("#{2 1}", 0, "ok", [1, 2]),
    ("{:a 1 :b #{1}}", 0, "ok", {"a": 1, "b": [1]}),
    ("{:k :v}", 0, "ok", {"k": "v"}),
    ("(frequencies [1 1 2])", 0, "ok", {"1": 2, "2": 1}),
    ("{nil 1 true 2 1.5 3}", 0, "ok", {"null": 1, "true": 2, "1.5": 3}),
    ("[{:a [#{:x}]}]", 0, "ok", [{"a": [["x"]]}]),
    ("(return #{:r})", 0, "returned", ["r"]),
    ("(fail {:why #{1}})", 1, "failed", {"why": [1]}),
]


@pytest.mark.parametrize("src,code,status,expected", JSON_VALUES, ids=[c[0] for c in JSON_VALUES])
def test_eval_json_values(capsys, src, code, status, expected):
    assert main(["eval", src, "--json"]) == code
    rec = json.loads(capsys.readouterr().out)
    assert rec["status"] == status and rec["value"] == expected


# (program, error kind, message fragment)  for values without one: an error record, exit 2
JSON_REFUSED = [
    ("##NaN", "type_error", "the value cannot be given as JSON: ##NaN has no JSON form"),
    ("[1 ##Inf]", "type_error", "##Inf has no JSON form at [1]"),
    ('{1 2 "1" 3}', "public_projection_collision", 'map keys 1 and "1" both become the JSON key "1"'),
    ('{:a {:a 1 "a" 2}}', "public_projection_collision", "at [:a]"),
    ("{:f inc}", "type_error", "a function has no JSON form at [:f]"),
    ("(fail {:f inc})", "type_error", "the fail value cannot be given as JSON: a function"),
]


@pytest.mark.parametrize("src,kind,fragment", JSON_REFUSED, ids=[c[0] for c in JSON_REFUSED])
def test_eval_json_refuses_what_json_cannot_carry(capsys, src, kind, fragment):
    assert main(["eval", "(println 1) " + src, "--json"]) == 2
    got = capsys.readouterr()
    rec = json.loads(got.out)                        # one line: a record, never a guess or a traceback
    assert got.out.count("\n") == 1 and got.err == ""
    assert rec["status"] == "error" and rec["value"] is None and rec["ok"] is False and rec["prints"] == ["1"]
    assert rec["error"]["kind"] == kind and fragment in rec["error"]["message"]


def test_run_json_uses_the_same_conversion(tmp_path, capsys):
    (tmp_path / "p.clj").write_text("(def xs [1 1 2])\n(frequencies xs)\n", encoding="utf-8")
    (tmp_path / "bad.clj").write_text("{:x ##NaN}\n", encoding="utf-8")
    assert main(["run", str(tmp_path / "p.clj"), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["value"] == {"1": 2, "2": 1}
    assert main(["run", str(tmp_path / "bad.clj"), "--json"]) == 2
    rec = json.loads(capsys.readouterr().out)
    assert rec["error"]["kind"] == "type_error" and "##NaN has no JSON form at [:x]" in rec["error"]["message"]


def test_text_output_is_unchanged_by_json_rules(capsys):
    assert main(["eval", "{:f #{1} 1 ##NaN}"]) == 0
    assert capsys.readouterr().out == "{1 ##NaN :f #{1}}\n"


def test_deep_values_are_written(capsys):
    assert main(["eval", "(reduce (fn [a _] [a]) [] (range 3000))", "--json"]) == 0
    assert '"value": ' + "[" * 3001 in capsys.readouterr().out


# ------------------------------------------------------------------ streams that cannot hold the text

def _ascii_streams(monkeypatch):
    out = io.TextIOWrapper(io.BytesIO(), encoding="ascii", errors="strict")
    err = io.TextIOWrapper(io.BytesIO(), encoding="ascii", errors="strict")
    monkeypatch.setattr(sys, "stdout", out)
    monkeypatch.setattr(sys, "stderr", err)
    return out, err


def _text(stream) -> str:
    stream.flush()
    return stream.buffer.getvalue().decode("ascii")


def test_ascii_streams_get_escapes_and_are_restored(monkeypatch):
    out, err = _ascii_streams(monkeypatch)
    assert main(["eval", '(println "日本") (fail "é")']) == 1
    assert _text(out) == "\\u65e5\\u672c\n"
    assert _text(err) == 'fail: "\\xe9"\n'
    assert out.errors == "strict" and err.errors == "strict"      # the caller's streams as they were


def test_ascii_stdout_json_stays_valid_json(monkeypatch):
    out, _ = _ascii_streams(monkeypatch)
    assert main(["eval", '{"k" "é日本"}', "--json"]) == 0
    text = _text(out)
    assert "\\u65e5" in text and json.loads(text)["value"] == {"k": "é日本"}


def _run(args, env_extra, stdin=None):
    env = dict(os.environ, **env_extra)
    return subprocess.run([sys.executable, "-m", "ptclisp.commands.main", *args], input=stdin, capture_output=True,
                          timeout=120, env=env)


ASCII = {"PYTHONIOENCODING": "ascii"}
C_LOCALE = {"LC_ALL": "C", "LANG": "C", "PYTHONCOERCECLOCALE": "0", "PYTHONUTF8": "0", "PYTHONIOENCODING": ""}
NIHON = '(json/parse-string "\\"\\\\u65e5\\\\u672c\\"")'     # ASCII source for the string "日本"


@pytest.mark.parametrize("env", [ASCII, C_LOCALE], ids=["PYTHONIOENCODING=ascii", "LC_ALL=C"])
def test_a_real_process_writes_any_text(env):
    proc = _run(["eval", NIHON], env)
    assert (proc.returncode, proc.stdout, proc.stderr) == (0, b'"\\u65e5\\u672c"\n', b"")
    proc = _run(["eval", f"(fail {NIHON})"], env)
    assert (proc.returncode, proc.stderr) == (1, b'fail: "\\u65e5\\u672c"\n')
    proc = _run(["eval", NIHON, "--json"], env)
    assert proc.returncode == 0 and json.loads(proc.stdout)["value"] == "日本"


def test_a_real_process_with_non_ascii_argument():
    proc = _run(["eval", '"日本"'], ASCII)
    assert (proc.returncode, proc.stdout, proc.stderr) == (0, b'"\\u65e5\\u672c"\n', b"")


def test_piped_repl_writes_any_text():
    proc = _run(["repl"], ASCII, stdin=f"(println {NIHON})\n{NIHON}\n".encode())
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == b'\\u65e5\\u672c\nnil\n"\\u65e5\\u672c"\n'


def test_undecodable_stdin_is_a_one_line_error():
    proc = _run(["run", "-"], ASCII, stdin='(str "日本")'.encode())
    assert proc.returncode == 2
    assert proc.stderr.decode().startswith("ptclisp: cannot read standard input as ascii")
    assert b"internal error" not in proc.stderr and b"Traceback" not in proc.stderr


def test_importing_and_running_leaves_the_streams_alone():
    code = ("import sys; before = (sys.stdout.errors, sys.stderr.errors)\n"
            "import ptclisp, ptclisp.commands.main, ptclisp.agent\n"
            "ptclisp.run('(+ 1 2)')\n"
            "print(before == (sys.stdout.errors, sys.stderr.errors), sys.stdout.errors)\n")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120,
                          env=dict(os.environ, **ASCII))
    assert proc.stdout == "True strict\n", proc.stderr
