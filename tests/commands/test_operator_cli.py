"""The commands as a user runs them: each test starts `python -m ptclisp` in a fresh process.

A fresh process is the point: nothing evaluated earlier in the test process (loaded builtin
families, imported modules, caches) can make a command pass that fails for a user.
Issue #30 (the operator round): check, --tools, limit flags, data names, the scripted REPL,
hostile documents and documents before credentials.
"""
import json
import os
import pathlib
import re
import subprocess
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]


def ptclisp(*argv, cwd=ROOT, stdin: bytes | str | None = None, env=None, timeout=60):
    """Run `python -m ptclisp ARGV` in `cwd`; returns the CompletedProcess (text stdout and stderr)."""
    full_env = {**os.environ, "PYTHONPATH": str(ROOT), **(env or {})}
    full_env.pop("PTCLISP_DEBUG", None)
    data = stdin.encode() if isinstance(stdin, str) else stdin
    done = subprocess.run([sys.executable, "-m", "ptclisp", *argv], cwd=cwd, input=data, capture_output=True,
                          env=full_env, timeout=timeout)
    done.stdout, done.stderr = (done.stdout.decode("utf-8", "replace"), done.stderr.decode("utf-8", "replace"))
    return done


# ------------------------------------------------------------------ 1. check in a fresh process

def test_check_a_prelude_file_in_a_fresh_process():
    done = ptclisp("check", "examples/order_helpers.clj")
    assert (done.returncode, done.stdout, done.stderr) == (0, "", "")


def test_check_every_shipped_prelude_in_a_fresh_process():
    files = sorted(str(p.relative_to(ROOT)) for p in (ROOT / "preludes").glob("*.clj"))
    assert len(files) >= 12
    done = ptclisp("check", *files)
    assert (done.returncode, done.stdout, done.stderr) == (0, "", "")


def test_check_a_program_with_its_prelude_in_a_fresh_process():
    done = ptclisp("check", "examples/orders_with_prelude.clj", "--prelude", "examples/order_helpers.clj")
    assert (done.returncode, done.stdout, done.stderr) == (0, "", "")


def test_check_a_workflow_file_knows_the_agent_library(tmp_path):
    done = ptclisp("check", "examples/agent/orders_agent.clj")
    assert (done.returncode, done.stdout) == (0, "")
    (tmp_path / "wf.clj").write_text('(agent.core/run-valu "task")\n(llm/nope)\n')
    done = ptclisp("check", "wf.clj", cwd=tmp_path)
    assert done.returncode == 1
    lines = done.stdout.splitlines()
    assert lines[0].startswith("wf.clj:1:2: ") and "agent.core/run-valu is not a public export" in lines[0]
    assert lines[1].startswith("wf.clj:2:2: ")


def test_a_plain_program_does_not_see_the_agent_library(tmp_path):
    (tmp_path / "p.clj").write_text("(inc 1)\n(agent/x 1)\n")
    done = ptclisp("check", "p.clj", cwd=tmp_path)
    assert done.returncode == 1 and done.stdout.startswith("p.clj:2:2: ")


# ------------------------------------------------------------------ 2. one tool-binding path

TYPED_TOOLS = '''
def customer(customer_id: str):
    """Look a customer up."""
    return {"id": customer_id, "name": "Ada"}


def by_map(args):
    return args.get("x")


TOOLS = {"customer": customer, "by_map": by_map}
'''


def test_eval_tools_calls_a_typed_function_with_keywords(tmp_path):
    (tmp_path / "typed_tools.py").write_text(TYPED_TOOLS)
    done = ptclisp("eval", "--tools", "typed_tools:TOOLS", '(tool/customer {:customer_id "c01"})', cwd=tmp_path)
    assert (done.returncode, done.stdout, done.stderr) == (0, '{"id" "c01" "name" "Ada"}\n', "")
    done = ptclisp("eval", "--tools", "typed_tools:TOOLS", "(tool/by_map {:x 5})", cwd=tmp_path)
    assert (done.returncode, done.stdout) == (0, "5\n")


def test_eval_tools_checks_the_signature_types(tmp_path):
    (tmp_path / "typed_tools.py").write_text(TYPED_TOOLS)
    done = ptclisp("eval", "--tools", "typed_tools:TOOLS", "(tool/customer {:customer_id 5})", cwd=tmp_path)
    assert done.returncode == 2
    assert done.stderr.startswith("<eval>:1:1: Error (invalid_tool_args): tool/customer: invalid argument at "
                                  "customer_id: 5 is not of type 'string'")


def test_the_api_binds_a_typed_function_as_the_cli_does():
    import ptclisp as api
    ns: dict = {}
    exec(TYPED_TOOLS, ns)
    result = api.run('(tool/customer {:customer-id "c02"})', tools=ns["TOOLS"])
    assert result.error is None and dict(result.value) == {"id": "c02", "name": "Ada"}


# ------------------------------------------------------------------ 3. limit flags

LOOP_5000 = "(loop [i 0] (if (< i 5000) (recur (inc i)) i))"


def test_eval_loop_limit_flag_raises_the_limit():
    done = ptclisp("eval", LOOP_5000)
    assert done.returncode == 2 and "Error (loop_limit_exceeded): loop exceeded 1000 iterations" in done.stderr
    done = ptclisp("eval", "--loop-limit", "100000", LOOP_5000)
    assert (done.returncode, done.stdout) == (0, "5000\n")


def test_run_and_repl_take_the_limit_flags(tmp_path):
    (tmp_path / "big.clj").write_text("(count (vec (range 200000)))\n")
    done = ptclisp("run", "big.clj", "--memory-bytes", "1000", cwd=tmp_path)
    assert done.returncode == 2 and "memory" in done.stderr
    done = ptclisp("run", "big.clj", "--memory-bytes", "100000000", "--loop-limit", "1000000", cwd=tmp_path)
    assert (done.returncode, done.stdout) == (0, "200000\n")
    done = ptclisp("repl", "--loop-limit", "100000", cwd=tmp_path, stdin=LOOP_5000 + "\n")
    assert (done.returncode, done.stdout.strip()) == (0, "5000")


def test_a_limit_flag_out_of_range_is_a_usage_error():
    done = ptclisp("eval", "--memory-bytes", "0", "1")
    assert done.returncode == 2
    assert "argument --memory-bytes: it must be between 1 and 2**62; got 0" in done.stderr
    done = ptclisp("eval", "--loop-limit", "many", "1")
    assert done.returncode == 2 and "argument --loop-limit: expected a whole number, got 'many'" in done.stderr
    done = ptclisp("eval", "--max-tool-calls", "none", "(+ 1 2)")
    assert (done.returncode, done.stdout) == (0, "3\n")


def test_limit_flags_are_refused_where_they_do_not_apply(tmp_path):
    done = ptclisp("run", str(tmp_path), "--loop-limit", "5")
    assert done.returncode == 2 and "--loop-limit applies to programs run without a model" in done.stderr


def test_mcp_serve_shares_the_limit_flags():
    done = ptclisp("mcp", "serve", "--help")
    assert done.returncode == 0
    for flag in ("--memory-bytes", "--loop-limit", "--max-tool-calls", "--max-result-bytes", "--recursion-limit"):
        assert flag in done.stdout
    assert "(default 1000000)" in done.stdout.split("--max-result-bytes N", 2)[2]


# ------------------------------------------------------------------ 4. unknown data names

ORDERS = '{"orders": [{"id": 1}, {"id": 2}], "customers": []}'


def test_eval_a_misspelt_data_name_is_an_error_naming_the_closest(tmp_path):
    (tmp_path / "orders.json").write_text(ORDERS)
    done = ptclisp("eval", "--data", "orders.json", "(count data/order)", cwd=tmp_path)
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.splitlines()[0] == ("<eval>:1:8: Error (runtime_error): data/order is not available (did you "
                                           "mean data/orders?). Available: data/customers, data/orders")
    done = ptclisp("eval", "--data", "orders.json", "--lenient-data", "(count data/order)", cwd=tmp_path)
    assert (done.returncode, done.stdout) == (0, "0\n")


def test_run_and_repl_refuse_a_misspelt_data_name(tmp_path):
    (tmp_path / "orders.json").write_text(ORDERS)
    (tmp_path / "p.clj").write_text("(count data/orders)\n(count data/custmers)\n")
    done = ptclisp("run", "p.clj", "--data", "orders.json", cwd=tmp_path)
    assert done.returncode == 2 and "p.clj:2:8: Error (runtime_error): data/custmers is not available (did you " \
                                    "mean data/customers?)" in done.stderr
    done = ptclisp("repl", "--data", "orders.json", cwd=tmp_path, stdin="(count data/orders)\ndata/ordres\n")
    assert done.returncode == 2 and done.stdout == "2\n" and "(did you mean data/orders?)" in done.stderr


def test_mcp_serve_refuses_a_misspelt_data_name(tmp_path):
    pytest.importorskip("mcp")
    import anyio
    from mcp import Client, StdioServerParameters
    (tmp_path / "orders.json").write_text(ORDERS)
    results = {}

    async def go(*extra):
        params = StdioServerParameters(command=sys.executable, args=["-m", "ptclisp", "mcp", "serve", "--data",
                                                                    "orders.json", *extra], cwd=str(tmp_path),
                                       env={**os.environ, "PYTHONPATH": str(ROOT)})
        with anyio.fail_after(120):         # a generous bound: a server that never answers fails the test
            async with Client(params) as client:
                r = await client.call_tool("run_ptc_lisp", {"program": "(count data/order)"})
                results[extra] = r

    anyio.run(go)
    strict = results[()]
    assert strict.is_error and strict.structured_content["error"]["message"].startswith(
        "data/order is not available (did you mean data/orders?)")
    anyio.run(go, "--lenient-data")
    lenient = results[("--lenient-data",)]
    assert not lenient.is_error and lenient.structured_content["value"] == 0


# ------------------------------------------------------------------ 5. the scripted REPL

def jsonl(text: str) -> list[dict]:
    return [json.loads(line) for line in text.splitlines()]


def test_repl_script_evaluates_loads_and_expressions_in_order(tmp_path):
    (tmp_path / "lib.clj").write_text("(defn sq [x] (* x x))\n")
    done = ptclisp("repl", "-l", "lib.clj", "-e", '(sq 4) (str "a" 1)', "-e", '(println "hi")', "--format", "jsonl",
                   cwd=tmp_path)
    assert (done.returncode, done.stderr) == (0, "")
    records = jsonl(done.stdout)
    assert [(r["input"], r["status"], r["value"], r["text"], r["prints"]) for r in records] == [
        ("-l lib.clj", "ok", None, "#'sq", []), ("-e 1", "ok", 16, "16", []), ("-e 1", "ok", "a1", '"a1"', []),
        ("-e 2", "ok", None, "nil", ["hi"])]


def test_repl_script_stops_at_the_first_error_unless_asked(tmp_path):
    done = ptclisp("repl", "-e", "(inc 1)", "-e", "(inc 1) (/ 1 0)", "-e", "(inc 2)", "--format", "jsonl")
    assert done.returncode == 2
    records = jsonl(done.stdout)
    assert [r["status"] for r in records] == ["ok", "ok", "error"]
    assert records[-1]["error"] == {"kind": "arithmetic_error", "message": "/: division by zero", "line": 1,
                                    "column": 9}
    done = ptclisp("repl", "-e", "(/ 1 0)", "-e", "(fail :x)", "-e", "(inc 2)", "--continue-on-error",
                   "--format", "jsonl")
    assert done.returncode == 2 and [r["status"] for r in jsonl(done.stdout)] == ["error", "failed", "ok"]
    done = ptclisp("repl", "-e", "(fail :x)", "-e", "(inc 2)")
    assert (done.returncode, done.stdout, done.stderr) == (1, "", "Failed: :x\n")


def test_repl_script_text_format_names_the_expression():
    done = ptclisp("repl", "-e", "1", "-e", "(inc ]")
    assert done.returncode == 2 and done.stdout == "1\n"
    assert done.stderr.splitlines()[0].startswith("<-e 2>:1:6: Error (parse_error): mismatched ']'")


# ------------------------------------------------------------------ 6. session limits

def test_max_evaluations_ends_a_piped_or_scripted_session():
    done = ptclisp("repl", "--max-evaluations", "2", stdin="1\n2\n3\n")
    assert (done.returncode, done.stdout) == (6, "1\n2\n")
    assert done.stderr == "session ended: --max-evaluations 2 reached (2 evaluations done)\n"
    done = ptclisp("repl", "--max-evaluations", "1", "-e", "1 2", "--format", "jsonl")
    records = jsonl(done.stdout)
    assert done.returncode == 6 and [r["status"] for r in records] == ["ok", "ended"]
    assert records[1]["error"]["kind"] == "session_limit" and "--max-evaluations 1" in records[1]["error"]["message"]


def test_session_timeout_ends_a_session_and_bounds_its_evaluation():
    done = ptclisp("repl", "--session-timeout-ms", "300", "--loop-limit", "1000000000000",
                   stdin="(def x 1)\n(loop [] (recur))\n(+ 1 1)\n", timeout=30)
    assert done.returncode == 6 and done.stdout == "#'x\n"
    assert "Error (timeout)" in done.stderr
    assert done.stderr.splitlines()[-1].startswith("session ended: --session-timeout-ms 300 reached")


# ------------------------------------------------------------------ 7. piped input

def test_a_piped_reader_error_names_its_own_line():
    done = ptclisp("repl", stdin="1\n(inc ]\n")
    assert done.returncode == 2 and done.stdout == "1\n"
    assert done.stderr.splitlines() == [
        "<stdin>:2:6: Error (parse_error): mismatched ']' at line 2, column 6: the list opened at line 2, column 1 "
        "needs ')'", "   2 | (inc ]", "     |      ^"]


def test_piped_invalid_utf8_is_reported_as_such():
    done = ptclisp("repl", stdin=b"1\n(inc \xe6)\n(+ 1 2)\n")
    assert done.returncode == 2 and done.stdout == "1\n3\n"
    assert done.stderr == ("<stdin>:2:6: Error (invalid_utf8): the input is not UTF-8 text: byte 0xe6 at line 2, "
                           "column 6 (invalid continuation byte); PTC-Lisp source is UTF-8\n")
    assert "udce6" not in done.stderr


def test_source_shows_a_repl_definition(tmp_path):
    done = ptclisp("repl", stdin="(defn f [x]\n  (inc x))\n(source f)\n(source g)\n")
    assert done.returncode == 0
    assert done.stdout == "#'f\n(defn f [x]\n  (inc x))\nnil\nNo source available for g\nnil\n"
    (tmp_path / "lib.clj").write_text("(def limit 10)\n")
    done = ptclisp("repl", "-l", "lib.clj", "-e", "(source limit)", cwd=tmp_path)
    assert (done.returncode, done.stdout) == (0, "#'limit\n(def limit 10)\nnil\n")


# ------------------------------------------------------------------ 8. validate runs no project code

def tools_project(tmp_path) -> pathlib.Path:
    done = ptclisp("init", "proj", "--example", "tools", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    proj = tmp_path / "proj"
    with open(proj / "tools.py", "a") as fh:
        fh.write(f"\nopen({str(tmp_path / 'RAN')!r}, 'w').write('imported')\n")
    return proj


def test_validate_does_not_import_the_python_tools(tmp_path):
    proj = tools_project(tmp_path)
    done = ptclisp("validate", "proj", cwd=tmp_path)
    assert (done.returncode, done.stdout.strip()) == (0, "proj/ptclisp.toml: valid")
    assert not (tmp_path / "RAN").exists()
    done = ptclisp("doctor", "proj", cwd=tmp_path)          # doctor may import
    assert done.returncode == 0 and (tmp_path / "RAN").read_text() == "imported"
    assert proj.is_dir()


def test_validate_reports_a_tool_it_cannot_find_or_call_from_the_source(tmp_path):
    proj = tools_project(tmp_path)
    toml = (proj / "ptclisp.toml").read_text()
    (proj / "ptclisp.toml").write_text(toml.replace('python = "tools:exchange_rate"', 'python = "this:s"'))
    done = ptclisp("validate", "proj", cwd=tmp_path)
    assert done.returncode == 3 and "Beautiful is better" not in done.stdout + done.stderr
    assert "/tools/exchange_rate/python: this:s is a str, not a function or ptclisp.Tool [rule: tool_unresolved]" \
        in done.stderr
    (proj / "ptclisp.toml").write_text(toml.replace('python = "tools:exchange_rate"', 'python = "tools:nope"'))
    done = ptclisp("validate", "proj", cwd=tmp_path)
    assert done.returncode == 3 and "tools:nope: tools has no attribute 'nope'" in done.stderr
    assert not (tmp_path / "RAN").exists()


def test_the_inspected_schema_is_the_imported_one(tmp_path):
    """The schema validate reads from the source equals the one importing gives (tool_calling)."""
    import importlib.util

    from ptclisp.project.inspect_tools import _schema
    from ptclisp.host.calling import calling_convention
    src = ("from typing import Optional\n"
           "def a(customer_id: str, n: int = 1, *, tags: list[str] | None = None): pass\n"
           "def b(args): pass\n"
           "def c(args: dict): pass\n"
           "def d(x: float, y: Optional[bool] = None, **rest): pass\n")
    (tmp_path / "m.py").write_text(src)
    spec = importlib.util.spec_from_file_location("m_inspected", tmp_path / "m.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    import ast
    tree = ast.parse(src)
    for node in tree.body[1:]:
        static = _schema(node.args)
        live = calling_convention(getattr(module, node.name))[1]
        if live is not None:   # the source gives the types, not the items' types
            for prop in live["properties"].values():
                prop.pop("items", None)
        assert static == live, node.name


# ------------------------------------------------------------------ 9. hostile documents

def hostile_project(tmp_path, edit) -> str:
    assert ptclisp("init", "h", cwd=tmp_path).returncode == 0
    toml = tmp_path / "h" / "ptclisp.toml"
    toml.write_text(edit(toml.read_text()))
    return "h"


@pytest.mark.parametrize("edit, message", [
    (lambda s: s.replace("max_turns = 8", "max_turns = " + "9" * 5001),
     "not valid TOML: Exceeds the limit (4300 digits) for integer string conversion"),
    (lambda s: "x = " + "[" * 100_000 + "]" * 100_000 + "\n" + s, "not valid TOML: arrays or tables nested too deeply"),
    (lambda s: s.replace("max_turns = 8", "max_turns = " + "9" * 30),
     "/limits/max_turns: not valid TOML: an integer outside the 64-bit range TOML allows"),
])
@pytest.mark.parametrize("command", ["validate", "run"])
def test_a_hostile_project_file_is_exit_3(tmp_path, edit, message, command):
    done = ptclisp(command, hostile_project(tmp_path, edit), cwd=tmp_path, timeout=30)
    assert done.returncode == 3, done.stderr
    assert message in done.stderr and "internal error" not in done.stderr


def test_a_fifo_or_a_device_named_in_a_project_is_exit_3(tmp_path):
    proj = hostile_project(tmp_path, lambda s: s.replace('"data/orders.json"', '"data/fifo"'))
    os.mkfifo(tmp_path / proj / "data" / "fifo")
    done = ptclisp("validate", proj, cwd=tmp_path, timeout=30)
    assert done.returncode == 3
    assert "data/fifo: not a regular file (a FIFO): only regular files are read [rule: file_missing]" in done.stderr


@pytest.mark.parametrize("argv", [["run", "{f}"], ["eval", "--prelude", "{f}", "1"], ["check", "{f}"],
                                  ["check", "p.clj", "--prelude", "{f}"], ["repl", "-l", "{f}"],
                                  ["run", "h", "--env-file", "{f}"]])
@pytest.mark.parametrize("which", ["fifo", "/dev/zero"])
def test_a_fifo_or_a_device_named_on_the_command_line_is_refused_at_once(tmp_path, argv, which):
    if which == "/dev/zero" and not os.path.exists("/dev/zero"):
        pytest.skip("no /dev/zero here")
    os.mkfifo(tmp_path / "fifo")
    (tmp_path / "p.clj").write_text("1\n")
    if "h" in argv:
        hostile_project(tmp_path, lambda s: s)
    done = ptclisp(*(a.format(f=which) for a in argv), cwd=tmp_path, timeout=30)
    kind = "a FIFO" if which == "fifo" else "a character device"
    assert done.returncode == 3     # a named file that is not a document: an invalid document (exit classes)
    assert f"not a regular file ({kind}): only regular files are read" in done.stderr
    assert "internal error" not in done.stderr


def test_a_document_over_the_size_bound_is_refused(tmp_path):
    from ptclisp.interchange.documents import DocumentError, read_document
    (tmp_path / "big.clj").write_bytes(b"1" * 101)
    with pytest.raises(DocumentError, match="larger than 100 bytes"):
        read_document(tmp_path / "big.clj", max_bytes=100)
    assert read_document(tmp_path / "big.clj", max_bytes=101) == b"1" * 101


# ------------------------------------------------------------------ 10. documents before credentials

NO_KEYS = {"OPENAI_API_KEY": "", "ANTHROPIC_API_KEY": ""}


def test_an_invalid_schema_without_a_key_is_exit_3_naming_the_schema(tmp_path):
    (tmp_path / "bad.schema.json").write_text('{"type": "bogus"}')
    done = ptclisp("agent", "task", "--model", "main=openai:gpt-4o-mini", "--schema", "bad.schema.json",
                   cwd=tmp_path, env=NO_KEYS)
    assert done.returncode == 3
    assert done.stderr.startswith("ptclisp agent: --schema bad.schema.json is not a valid JSON Schema")
    done = ptclisp("agent", "task", "--model", "main=openai:gpt-4o-mini", cwd=tmp_path, env=NO_KEYS)
    assert done.returncode == 4 and "no API key configured" in done.stderr


def test_a_project_with_an_invalid_result_schema_and_no_key_is_exit_3(tmp_path):
    def live(s):
        return s.replace('provider = "scripted"', 'provider = "openai"').replace(
            'model = "models/main.script.json"', 'model = "gpt-4o-mini"')
    proj = hostile_project(tmp_path, live)
    (tmp_path / proj / "schemas" / "result.schema.json").write_text('{"type": "bogus"}')
    done = ptclisp("run", proj, cwd=tmp_path, env=NO_KEYS)
    assert done.returncode == 3 and "result.schema.json: /type: not a valid JSON Schema" in done.stderr


# ------------------------------------------------------------------ 11. envelopes, refusals, trace files

def test_a_traced_run_keeps_its_envelope_and_counts_refused_calls(tmp_path):
    import glob
    import stat as st
    script = str(ROOT / "examples" / "agent" / "orders_agent.script.json")
    done = ptclisp("agent", "Top region?", "--model", f"main=scripted:{script}", "--data",
                   str(ROOT / "examples" / "orders.json"), "--max-calls", "main=1", "--trace-dir", "t",
                   "--trace", "trace.jsonl", cwd=tmp_path)
    assert done.returncode == 6, done.stderr
    assert "1 capability call refused" in done.stderr
    (run_dir,) = glob.glob(str(tmp_path / "t" / "*"))
    doc = json.loads(pathlib.Path(run_dir, "envelope.json").read_text())
    assert (doc["ok"], doc["exit_code"], doc["error"]["reason"]) == (False, 6, "capability_quota")
    assert doc["usage"]["capability_refusals"] == 1 and doc["usage"]["calls"] == 1
    assert st.S_IMODE(os.stat(pathlib.Path(run_dir, "envelope.json")).st_mode) == 0o600
    assert st.S_IMODE(os.stat(tmp_path / "trace.jsonl").st_mode) == 0o600


def test_the_kept_envelope_is_the_envelope_document(tmp_path):
    import glob
    ex = ROOT / "examples"
    argv = ["run", str(ex / "agent" / "orders_agent.clj"), "--data", str(ex / "orders.json"),
            "--replay", str(ex / "agent" / "orders_agent.replay.jsonl")]
    done = ptclisp(*argv, "--trace-dir", "t", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    (run_dir,) = glob.glob(str(tmp_path / "t" / "*"))
    kept = json.loads(pathlib.Path(run_dir, "envelope.json").read_text())
    printed = json.loads(ptclisp(*argv, "--envelope", cwd=tmp_path).stdout)
    assert kept["ok"] is True and kept["value"] == printed["value"] == {
        "paid_orders": 26, "paid_revenue": 5696.85, "region": "north"}
    assert kept["usage"]["capability_refusals"] == 0 and set(kept) == set(printed)


def test_trace_file_replacing_a_readable_file_is_owner_only(tmp_path):
    ex = ROOT / "examples"
    (tmp_path / "trace.jsonl").write_text("old")
    os.chmod(tmp_path / "trace.jsonl", 0o644)
    done = ptclisp("run", str(ex / "agent" / "orders_agent.clj"), "--data", str(ex / "orders.json"),
                   "--replay", str(ex / "agent" / "orders_agent.replay.jsonl"), "--trace", "trace.jsonl", cwd=tmp_path)
    assert done.returncode == 0
    assert os.stat(tmp_path / "trace.jsonl").st_mode & 0o777 == 0o600
    assert (tmp_path / "trace.jsonl").read_text().startswith("{")


# ------------------------------------------------------------------ 13. for coding agents

@pytest.mark.parametrize("example, mission", [("orders", "default"), ("workflow", "regions")])
def test_init_writes_agents_md_whose_commands_work(tmp_path, example, mission):
    done = ptclisp("init", "proj", "--example", example, cwd=tmp_path)
    assert done.returncode == 0 and "AGENTS.md" in done.stdout + done.stderr
    text = (tmp_path / "proj" / "AGENTS.md").read_text()
    for needle in ("`ptclisp validate proj`", "`ptclisp run proj`", "## Exit classes", "3 an invalid document",
                   "## Testing", "--replay answers.jsonl", "## Traces", "--trace-dir traces",
                   f"--mission {mission}"):
        assert needle in text, needle
    assert ptclisp("validate", "proj", cwd=tmp_path).returncode == 0     # what it says to run first works
    done = ptclisp("run", "proj", "--envelope", cwd=tmp_path)
    assert done.returncode == 0 and json.loads(done.stdout)["ok"] is True


def test_docs_agent_guide_prints_a_guide_for_coding_agents():
    done = ptclisp("docs", "agent-guide")
    assert done.returncode == 0 and done.stdout.startswith("# A guide for coding agents working with ptclisp")
    for needle in ("ptclisp check", "--format jsonl", "ptclisp validate", "## Exit statuses", "--trace-dir"):
        assert needle in done.stdout
    assert "agent-guide" in ptclisp("docs").stdout


def test_docs_search_lists_pages_and_lines():
    done = ptclisp("docs", "--search", "GROUP-BY")
    assert done.returncode == 0
    lines = done.stdout.splitlines()
    assert "functions:" in lines[0] and all(re.match(r"^[a-z-]+:\d+: ", line) for line in lines)
    assert any("group-by" in line.lower() for line in lines)
    assert "read one with 'ptclisp docs PAGE'" in done.stderr
    done = ptclisp("docs", "--search", "no-such-term-xyzzy")
    assert (done.returncode, done.stdout) == (1, "") and "no page mentions 'no-such-term-xyzzy'" in done.stderr


# ------------------------------------------------------------------ 14. small ones

def test_bench_agent_help_shows_a_single_percent_sign():
    done = ptclisp("bench", "agent", "--help")
    assert done.returncode == 0 and "Wilson 95% intervals" in done.stdout and "%%" not in done.stdout


def test_the_readme_demo_output_is_what_the_command_prints():
    readme = (ROOT / "README.md").read_text()
    shown = re.search(r"It prints `(\{[^`]+\})`", readme).group(1)
    ex = ROOT / "examples"
    done = ptclisp("agent", "Which region had the highest paid revenue, and how much? Return region, paid_revenue "
                   "(rounded to cents) and paid_orders.", "--data", str(ex / "orders.json"), "--schema",
                   str(ex / "agent" / "answer.schema.json"), "--replay", str(ex / "agent" / "orders_agent.replay.jsonl"))
    assert done.returncode == 0
    assert list(json.loads(shown).items()) == list(json.loads(done.stdout).items())   # same keys, same order


def test_docs_name_no_path_a_clone_lacks():
    for rel in ("docs/conformance.md", "examples/agent/README.md"):
        text = (ROOT / rel).read_text()
        for path in re.findall(r"`((?:\.\./)?shared/[^`\s]+)`", text):
            pytest.fail(f"{rel} points at {path}, which a clone does not have")
        assert "../shared/conformance/run.py --show" not in text


def test_run_file_with_a_model_prints_json_like_the_other_agent_commands(tmp_path):
    ex = ROOT / "examples"
    done = ptclisp("run", str(ex / "agent" / "orders_agent.clj"), "--data", str(ex / "orders.json"),
                   "--replay", str(ex / "agent" / "orders_agent.replay.jsonl"), cwd=tmp_path)
    assert done.returncode == 0
    assert json.loads(done.stdout) == {"paid_orders": 26, "paid_revenue": 5696.85, "region": "north"}
    assert done.stderr.startswith("top region: north\n")          # the workflow's prints go to stderr
    plain = ptclisp("eval", '{"a" 1}')
    assert plain.stdout == '{"a" 1}\n'                               # a plain program: Lisp notation


def test_max_evaluations_ends_an_interactive_session(tmp_path):
    """In a pseudo-terminal (pexpect and a VT100 emulator, as tests/repl/test_repl.py drives the REPL)."""
    sys.path.insert(0, str(ROOT / "tests" / "repl"))   # the emulated screen of tests/repl/test_repl.py
    from test_repl import Screen
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PROMPT_TOOLKIT", "NO_COLOR", "PTCLISP"))}
    env.update(TERM="xterm-256color", HOME=str(tmp_path), PTCLISP_HISTORY=str(tmp_path / "history"),
               PYTHONPATH=str(ROOT))
    term = Screen(["--max-evaluations", "1"], tmp_path, env)
    try:
        term.wait(lambda lines: any(line.startswith("ptc>") for line in lines), "the prompt")
        term.type("(+ 1 2)\r")
        term.wait_line("3")
        term.type("(+ 3 4)\r")
        import time

        import pexpect
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:      # the session ends: read the screen until the process closes
            try:
                term.pump()
            except pexpect.EOF:
                break
        assert any("session ended: --max-evaluations 1 reached" in line for line in term.lines()), term.text()
        assert "7" not in term.lines()
        term.child.close()
        assert term.child.exitstatus == 6
    finally:
        term.child.terminate(force=True)
