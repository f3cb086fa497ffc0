"""Issue 16 end to end: trace directories, private evidence, usage and cost, view, analysis, transcript.

Two `ptclisp agent` runs against a fake OpenAI-compatible server on
127.0.0.1 (this module's own): one whose first program fails with a
type_error on line 2 and whose second program fixes it, one that uses both
of its turns without returning.  Each call reports 100 prompt and 20
completion tokens, so each run uses 200 input and 40 output tokens over two
calls.  The runs are made once per module (they write a trace directory the
other tests read).  Headless Chromium checks are in test_trace_view.py.
"""
from __future__ import annotations

import contextlib
import html
import http.server
import io
import json
import os
import pathlib
import re
import stat
import threading

import pytest

from ptclisp import exit_codes as X
from ptclisp.agent import AgentHost
from ptclisp.commands.main import main
from ptclisp.providers import ScriptedProvider
from ptclisp.trace import PriceBook, TraceWriter, UsageMeter, parse_price, price_book, summary_line
from ptclisp.trace.reader import load_run

API_KEY = "sk-test-TRACEKEY-0123456789abcdef"
FIX_TASK = "FIXME-marker: what is the sum of the order totals? (task words: periwinkle)"
LOOP_TASK = "LOOP-marker: explore the orders until you run out of turns (task words: marmalade)"
DATA = {"orders": [{"total": 5, "customer": "Zanzibar Quokka Ltd"}, {"total": 7, "customer": "Ophelia Brine"}]}
BROKEN = '(let [orders data/orders]\n  (+ (count orders) "total"))'
FIXED = '(return (reduce + (map #(get % "total") data/orders)))'
SCRIPTS = {"FIXME-marker": [BROKEN, FIXED], "LOOP-marker": ["(def n (count data/orders))", "(def m (* n 2))"]}
NARRATION = "Let me compute that (narration: tangerine)."
SECRET_WORDS = ("periwinkle", "marmalade", "Zanzibar", "Quokka", "Ophelia", "tangerine", "total", "orders",
                "reduce", "FIXME-marker", API_KEY, "TRACEKEY")


class FakeOpenAI(http.server.BaseHTTPRequestHandler):
    """Answers /v1/chat/completions from SCRIPTS, picked by the task marker and the turn."""

    def log_message(self, *args):
        pass

    def do_POST(self):  # noqa: N802
        length = int(self.headers.get("Content-Length") or 0)
        body = json.loads(self.rfile.read(length))
        self.server.auth.append(self.headers.get("Authorization"))
        messages = body["messages"]
        first_user = next(m["content"] for m in messages if m["role"] == "user")
        script = next(v for k, v in SCRIPTS.items() if k in first_user)
        turn = sum(1 for m in messages if m["role"] == "assistant")
        program = script[min(turn, len(script) - 1)]
        answer = {"id": f"chatcmpl-{turn}", "object": "chat.completion", "model": "gpt-4o-mini-2024-07-18",
                  "choices": [{"index": 0, "finish_reason": "tool_calls", "message": {
                      "role": "assistant", "content": NARRATION,
                      "tool_calls": [{"id": f"call_{turn}", "type": "function",
                                      "function": {"name": "run_ptc_lisp",
                                                   "arguments": json.dumps({"program": program})}}]}}],
                  "usage": {"prompt_tokens": 100, "completion_tokens": 20, "total_tokens": 120}}
        data = json.dumps(answer).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)


@contextlib.contextmanager
def fake_openai():
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), FakeOpenAI)
    server.auth = []
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield server
    finally:
        server.shutdown()
        server.server_close()


def run_cli(argv, env=None) -> tuple[int, str, str]:
    """`ptclisp argv` in this process; (exit code, stdout, stderr)."""
    out, err = io.StringIO(), io.StringIO()
    with pytest.MonkeyPatch.context() as mp:
        for k, v in (env or {}).items():
            mp.setenv(k, v)
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            code = main(argv)
    return code, out.getvalue(), err.getvalue()


@pytest.fixture(scope="module")
def traced(tmp_path_factory):
    """The two runs, made once: {"dir", "fix": (code, record, stderr), "loop": ..., "auth"}."""
    work = tmp_path_factory.mktemp("traced")
    (work / "data.json").write_text(json.dumps(DATA), encoding="utf-8")
    traces = work / "traces"
    out = {"dir": traces, "work": work}
    with fake_openai() as server:
        model = f"m=openai:gpt-4o-mini@http://127.0.0.1:{server.server_port}/v1"
        for name, task in (("fix", FIX_TASK), ("loop", LOOP_TASK)):
            code, stdout, stderr = run_cli(["agent", task, "--model", model, "--data", str(work / "data.json"),
                                            "--max-turns", "2", "--trace-dir", str(traces), "--inspect", "--json"],
                                           env={"OPENAI_API_KEY": API_KEY})
            out[name] = (code, json.loads(stdout), stderr)
        out["auth"] = list(server.auth)
    return out


def run_dirs(traces: pathlib.Path) -> list[pathlib.Path]:
    return sorted(p for p in traces.iterdir() if p.is_dir())


def events(run_dir: pathlib.Path) -> list[dict]:
    return [json.loads(line) for line in (run_dir / "events.jsonl").read_text(encoding="utf-8").splitlines()]


def evidence(run_dir: pathlib.Path) -> list[dict]:
    text = (run_dir / "private" / "evidence.jsonl").read_text(encoding="utf-8")
    return [json.loads(line) for line in text.splitlines()]


def by_id(traced, name) -> pathlib.Path:
    return traced["dir"] / traced[name][1]["trace"]["run_id"]


# ------------------------------------------------------------------ the runs and their usage

def test_both_runs_end_as_expected_and_report_their_trace(traced):
    code, rec, _ = traced["fix"]
    assert code == 0 and rec["ok"] is True and rec["value"] == 12
    code, rec, _ = traced["loop"]
    assert code == X.RUN_FAILED and rec["ok"] is False and rec["exit_code"] == code      # the turn limit
    assert (rec["error"]["reason"], rec["error"]["details"]["limit"]) == ("runtime_limit_exceeded", "agent_turns")
    assert {p.name for p in run_dirs(traced["dir"])} == {traced["fix"][1]["trace"]["run_id"],
                                                         traced["loop"][1]["trace"]["run_id"]}
    assert traced["auth"] == [f"Bearer {API_KEY}"] * 4           # the key did reach the server


@pytest.mark.parametrize("name", ["fix", "loop"])
def test_json_usage_counts_tokens_per_alias_and_model_with_cost(traced, name):
    usage = traced[name][1]["usage"]
    assert (usage["calls"], usage["input_tokens"], usage["output_tokens"]) == (2, 200, 40)
    assert (usage["cached_tokens"], usage["unreported_calls"]) == (0, 0)
    expected_cost = (200 * 0.15 + 40 * 0.60) / 1e6              # gpt-4o-mini in the package's price table
    assert usage["cost_usd"] == pytest.approx(expected_cost)
    assert usage["by_alias"]["m"]["model"] == "gpt-4o-mini"
    assert usage["by_alias"]["m"]["input_tokens"] == 200
    assert usage["by_model"]["gpt-4o-mini"]["calls"] == 2


@pytest.mark.parametrize("name", ["fix", "loop"])
def test_a_one_line_usage_summary_ends_stderr(traced, name):
    last = traced[name][2].strip().splitlines()[-1]
    assert last.startswith("ptclisp agent: 2 model calls, 200 input (0 cached) + 40 output tokens, $0.000054")
    assert f"trace {by_id(traced, name)}" in last or by_id(traced, name).name in last


# ------------------------------------------------------------------ the public trace

def test_every_public_event_has_ts_seq_and_kind_and_calls_have_durations(traced):
    for run_dir in run_dirs(traced["dir"]):
        evs = events(run_dir)
        assert [e["seq"] for e in evs] == list(range(1, len(evs) + 1))
        assert all(isinstance(e["ts"], str) and e["ts"].endswith("Z") for e in evs)
        kinds = [e["kind"] for e in evs]
        assert kinds[0] == "run_start" and kinds[-1] == "run_end"
        for e in evs:
            if e["kind"] in ("model_response", "evaluation", "tool_call"):
                assert isinstance(e["duration_ms"], (int, float)) and e["duration_ms"] >= 0


def test_public_files_hold_no_task_data_program_or_key(traced):
    for run_dir in run_dirs(traced["dir"]):
        text = (run_dir / "events.jsonl").read_text(encoding="utf-8")
        for word in SECRET_WORDS:
            assert word not in text, (run_dir.name, word)


def test_the_public_trace_has_the_error_kind_and_position(traced):
    evs = events(by_id(traced, "fix"))
    first_eval = next(e for e in evs if e["kind"] == "evaluation")
    assert first_eval["turn"] == 1 and first_eval["outcome"] == "evaluation_error"
    assert first_eval["error"] == {"kind": "type_error", "reason": None, "line": 2, "col": 3}
    response = next(e for e in evs if e["kind"] == "model_response")
    assert response["tokens"] == {"input": 100, "output": 20, "cached": 0, "cache_write": 0}
    assert response["model"] == "gpt-4o-mini" and response["program"]["lines"] == 2
    end = evs[-1]
    assert end["status"] == "ok" and end["usage"]["input_tokens"] == 200


def test_a_model_request_record_holds_only_what_is_new(traced):
    evs = events(by_id(traced, "fix"))
    first, second = [e for e in evs if e["kind"] == "model_request"]
    assert (first["kept_messages"], first["new_messages"], first["system_changed"]) == (0, 1, True)
    assert (second["kept_messages"], second["new_messages"], second["system_changed"]) == (1, 2, False)
    assert second["new_roles"] == ["assistant", "tool"]
    priv = {r["seq"]: r for r in evidence(by_id(traced, "fix"))}
    assert "system" in priv[first["seq"]] and "system" not in priv[second["seq"]]
    assert [m["role"] for m in priv[second["seq"]]["messages"]] == ["assistant", "tool"]


# ------------------------------------------------------------------ private evidence

def test_private_evidence_is_owner_only_and_holds_the_programs(traced):
    run_dir = by_id(traced, "fix")
    pdir, pfile = run_dir / "private", run_dir / "private" / "evidence.jsonl"
    assert stat.S_IMODE(os.stat(pdir).st_mode) == 0o700
    assert stat.S_IMODE(os.stat(pfile).st_mode) == 0o600
    text = pfile.read_text(encoding="utf-8")
    assert json.dumps(BROKEN)[1:-1] in text and json.dumps(FIXED)[1:-1] in text
    recs = evidence(run_dir)
    assert recs[0]["task"] == FIX_TASK
    ev = next(r for r in recs if r["kind"] == "evaluation")
    assert ev["program"] == BROKEN and "expected a number" in ev["message"]


def test_credentials_are_redacted_everywhere(traced):
    for run_dir in run_dirs(traced["dir"]):
        for path in (run_dir / "events.jsonl", run_dir / "private" / "evidence.jsonl"):
            assert API_KEY not in path.read_text(encoding="utf-8")


def test_without_inspect_there_is_no_private_directory(tmp_path):
    (tmp_path / "data.json").write_text(json.dumps(DATA), encoding="utf-8")
    with fake_openai() as server:
        code, out, err = run_cli(["agent", FIX_TASK, "--model",
                                  f"m=openai:gpt-4o-mini@http://127.0.0.1:{server.server_port}/v1",
                                  "--data", str(tmp_path / "data.json"), "--trace-dir", str(tmp_path / "t")],
                                 env={"OPENAI_API_KEY": API_KEY})
    assert code == 0 and out.strip() == "12"
    (run_dir,) = run_dirs(tmp_path / "t")
    assert not (run_dir / "private").exists()
    assert "200 input" in err.splitlines()[-1]


def test_inspect_without_trace_dir_is_a_usage_error(tmp_path):
    code, _, err = run_cli(["agent", "t", "--model", "m=scripted:x.json", "--inspect"])
    assert code == 2 and "--inspect needs --trace-dir" in err


def test_the_old_trace_file_still_works_beside_the_trace_dir(tmp_path):
    (tmp_path / "s.json").write_text(json.dumps(["(return 1)"]), encoding="utf-8")
    code, out, err = run_cli(["agent", "t", "--model", f"m=scripted:{tmp_path / 's.json'}",
                              "--trace", str(tmp_path / "t.jsonl"), "--trace-dir", str(tmp_path / "d")])
    assert code == 0
    kinds = [json.loads(line)["type"] for line in (tmp_path / "t.jsonl").read_text().splitlines()]
    assert "request" in kinds and "outcome" in kinds
    assert len(run_dirs(tmp_path / "d")) == 1
    assert "1 model call, 0 input (0 cached) + 0 output tokens, 1 without reported usage" in err


# ------------------------------------------------------------------ the static view

def test_static_view_shows_the_error_and_the_fixing_program_and_loads_nothing(traced, tmp_path):
    out = tmp_path / "v.html"
    code, _, _ = run_cli(["view", str(traced["dir"]), "--static", str(out)])
    assert code == 0
    page = out.read_text(encoding="utf-8")
    text = html.unescape(re.sub(r"<[^>]+>", "", page))
    assert FIXED in text and BROKEN.splitlines()[1] in text
    assert "type_error: +: expected a number" in text                  # the caret line under the error
    assert re.search(r'<span class="ln err" data-line="2">', page)      # the failing line is marked
    assert not re.search(r"""(src|href)\s*=\s*["']?\s*(https?:)?//""", page, re.I)
    assert "@import" not in page and "url(" not in page
    assert "connect-src 'none'" in page
    for name in ("fix", "loop"):
        assert traced[name][1]["trace"]["run_id"] in text


def test_the_view_escapes_what_the_model_wrote(tmp_path):
    (tmp_path / "s.json").write_text(json.dumps([{"program": '(return "<script>alert(1)</script>")',
                                                  "content": "<img src=x onerror=alert(2)>"}]), encoding="utf-8")
    run_cli(["agent", "t", "--model", f"m=scripted:{tmp_path / 's.json'}", "--trace-dir", str(tmp_path / "d"),
             "--inspect"])
    run_cli(["view", str(tmp_path / "d"), "--static", str(tmp_path / "v.html")])
    page = (tmp_path / "v.html").read_text(encoding="utf-8")
    assert "<script>alert" not in page and "<img src=x" not in page
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page and "&lt;img src=x onerror=alert(2)&gt;" in page


# ------------------------------------------------------------------ analysis and transcript

def test_repl_runs_counts_the_runs(traced, monkeypatch):
    monkeypatch.setattr("sys.stdin", io.StringIO("(count (analysis/runs))\n"))
    code, out, err = run_cli(["repl", "--runs", str(traced["dir"])])
    assert (code, out.strip()) == (0, "2"), err


def test_analysis_answers_which_runs_failed_at_which_turn_with_which_error(traced, monkeypatch):
    prog = traced["work"] / "q.clj"
    prog.write_text('(let [failed (analysis/runs {:status "failed"})\n'
                    '      fix (first (analysis/runs {:error_kind "type_error"}))]\n'
                    '  {:failed (mapv :id failed)\n'
                    '   :fix-turns (mapv (juxt :turn :outcome (comp :kind :error) (comp :line :error))\n'
                    '                    (analysis/turns (:id fix)))\n'
                    '   :programs (mapv :program (analysis/programs (:id fix)))\n'
                    '   :opened (:status (analysis/open (:id fix)))})\n', encoding="utf-8")
    code, out, err = run_cli(["run", str(prog), "--runs", str(traced["dir"]), "--json"])
    assert code == 0, err
    value = json.loads(out)["value"]
    assert value["failed"] == [traced["loop"][1]["trace"]["run_id"]]
    assert value["fix-turns"] == [[1, "evaluation_error", "type_error", 2], [2, "returned", None, None]]
    assert value["programs"] == [BROKEN, FIXED]
    assert value["opened"] == "ok"


def test_analysis_refuses_a_path_as_run_id_and_needs_evidence_for_programs(traced, tmp_path):
    code, out, _ = run_cli(["eval", '(analysis/open "../../etc")', "--runs", str(traced["dir"]), "--json"])
    rec = json.loads(out)
    assert code == 2 and rec["error"]["kind"] == "tool_error" and "not a run id" in rec["error"]["message"]


def test_transcript_prints_the_conversation(traced):
    code, out, _ = run_cli(["transcript", traced["fix"][1]["trace"]["run_id"], "--runs", str(traced["dir"])])
    assert code == 0
    assert FIX_TASK in out and BROKEN.splitlines()[1].strip() in out and FIXED in out
    assert "-> evaluation_error type_error at line 2, column 3" in out
    assert "== outcome: ok ==\n12" in out


def test_transcript_without_evidence_says_so(tmp_path):
    (tmp_path / "s.json").write_text(json.dumps(["(return 1)"]), encoding="utf-8")
    run_cli(["agent", "t", "--model", f"m=scripted:{tmp_path / 's.json'}", "--trace-dir", str(tmp_path / "d")])
    (run_dir,) = run_dirs(tmp_path / "d")
    code, _, err = run_cli(["transcript", run_dir.name, "--runs", str(tmp_path / "d")])
    assert code == 2 and "no private evidence" in err and "--inspect" in err


# ------------------------------------------------------------------ usage and prices

def test_usage_keeps_unreported_calls_apart_and_prices_per_alias():
    meter = UsageMeter()
    meter.record("fast", "gpt-4o-mini", {"input": 1000, "output": 100, "cache_read": 400}, "openai")
    meter.record("fast", "gpt-4o-mini", None, "openai")
    meter.record("big", "claude-sonnet-4-5-20250929", {"input": 10, "output": 5, "cache_read": 1000,
                                                       "cache_creation": 100}, "anthropic")
    u = meter.snapshot(price_book(cli_prices=["fast=1,2"]))
    assert (u["calls"], u["unreported_calls"]) == (3, 1)
    assert u["by_alias"]["fast"]["input_tokens"] == 1000 and u["by_alias"]["fast"]["cached_tokens"] == 400
    # Anthropic leaves cache reads and writes out of input_tokens: they are added back
    assert u["by_alias"]["big"]["input_tokens"] == 1110 and u["by_alias"]["big"]["cached_tokens"] == 1000
    assert u["by_alias"]["fast"]["cost_usd"] == pytest.approx((1000 * 1 + 100 * 2) / 1e6)   # --price, no cached price
    big = (10 * 3.0 + 1000 * 0.30 + 100 * 3.75 + 5 * 15.0) / 1e6
    assert u["by_model"]["claude-sonnet-4-5-20250929"]["cost_usd"] == pytest.approx(big)
    assert u["cost_usd"] == pytest.approx(1200 / 1e6 + big)
    assert "1 without reported usage (not counted), at least $0.0" in summary_line(u)


def test_an_unknown_price_is_null_never_zero():
    meter = UsageMeter()
    meter.record("local", "smollm2", {"input": 50, "output": 5}, "openai")
    u = meter.snapshot(PriceBook())
    assert u["cost_usd"] is None and u["by_alias"]["local"]["cost_usd"] is None
    assert "cost unknown" in summary_line(u)
    u = meter.snapshot(price_book({"local": {"input": 0.0, "output": 0.0}}))   # the project file's price
    assert u["cost_usd"] == 0.0


@pytest.mark.parametrize("text,message", [("fast", "ALIAS=IN,OUT"), ("fast=1", "IN,OUT"), ("fast=a,b", "numbers"),
                                          ("fast=-1,2", "non-negative")])
def test_bad_price_flags_are_usage_errors(text, message):
    with pytest.raises(ValueError, match=message):
        parse_price(text)
    code, _, err = run_cli(["agent", "t", "--model", "m=scripted:x.json", "--price", text])
    assert code == 2 and message in err


def test_agent_outcome_usage_has_the_shared_shape():
    provider = ScriptedProvider([{"content": None, "tool_calls": [{"id": "c", "name": "run_ptc_lisp",
                                                                   "args": {"program": "(return 1)"}}],
                                  "tokens": {"input": 7, "output": 3}}])
    out = AgentHost(models={"m": provider}, prices={"m": {"input": 1, "output": 1}}).run_entry(
        "agent.main/run", {"task": "one"})
    u = out.usage
    assert {k: u[k] for k in ("calls", "input_tokens", "output_tokens", "cached_tokens", "unreported_calls")} == \
        {"calls": 1, "input_tokens": 7, "output_tokens": 3, "cached_tokens": 0, "unreported_calls": 0}
    assert u["cost_usd"] == pytest.approx(10 / 1e6)
    assert u["by_alias"] == {"m": {"model": "scripted", "calls": 1, "input_tokens": 7, "output_tokens": 3,
                                   "cached_tokens": 0, "unreported_calls": 0, "cost_usd": pytest.approx(10 / 1e6)}}
    assert set(u["by_model"]) == {"scripted"}


# ------------------------------------------------------------------ more trace facts

TOOLS_MODULE = '''
def lookup(args):
    """Find a customer."""
    return {"name": "Ophelia Brine", "id": args["id"]}

TOOLS = {"lookup": lookup}
'''


def test_tool_calls_have_durations_in_public_and_payloads_in_private(tmp_path, monkeypatch):
    (tmp_path / "trace_tools_mod.py").write_text(TOOLS_MODULE, encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    (tmp_path / "s.json").write_text(json.dumps(['(return (tool/lookup {"id" 7}))']), encoding="utf-8")
    code, out, err = run_cli(["agent", "t", "--model", f"m=scripted:{tmp_path / 's.json'}", "--tools",
                              "trace_tools_mod:TOOLS", "--trace-dir", str(tmp_path / "d"), "--inspect"])
    assert code == 0, err
    (run_dir,) = run_dirs(tmp_path / "d")
    call = next(e for e in events(run_dir) if e["kind"] == "tool_call")
    assert (call["name"], call["status"], call["turn"]) == ("lookup", "ok", 1)
    assert call["duration_ms"] >= 0 and call["args_bytes"] > 0
    assert "Ophelia" not in (run_dir / "events.jsonl").read_text(encoding="utf-8")
    priv = next(r for r in evidence(run_dir) if r["kind"] == "tool_call")
    assert priv["args"] == {"id": 7} and priv["result"]["value"]["name"] == "Ophelia Brine"
    start = events(run_dir)[0]
    assert start["missions"]["default"]["capabilities"] == ["lookup"]


def test_a_workflow_file_run_writes_its_trace_dir(tmp_path):
    (tmp_path / "wf.clj").write_text('(agent.core/run-value "Return one." {"max_turns" 2})\n', encoding="utf-8")
    (tmp_path / "s.json").write_text(json.dumps(["(return 1)"]), encoding="utf-8")
    code, out, err = run_cli(["run", str(tmp_path / "wf.clj"), "--model", f"m=scripted:{tmp_path / 's.json'}",
                              "--trace-dir", str(tmp_path / "d"), "--inspect", "--json"])
    assert code == 0, err
    rec = json.loads(out)
    assert rec["usage"]["calls"] == 1 and rec["trace"]["run_id"]
    evs = events(tmp_path / "d" / rec["trace"]["run_id"])
    assert evs[0]["command"] == "run" and evs[0]["source"]["lines"] == 1 and evs[-1]["status"] == "ok"
    assert "Return one" not in (tmp_path / "d" / rec["trace"]["run_id"] / "events.jsonl").read_text()
    assert err.strip().splitlines()[-1].startswith("ptclisp run: 1 model call")


def test_trace_dir_needs_a_model_on_plain_run(tmp_path):
    (tmp_path / "p.clj").write_text("1\n", encoding="utf-8")
    code, _, err = run_cli(["run", str(tmp_path / "p.clj"), "--trace-dir", str(tmp_path / "d")])
    assert code == 2 and "--trace-dir needs a model" in err


def test_a_crashed_run_leaves_a_readable_partial_trace(tmp_path):
    writer = TraceWriter(tmp_path, inspect=False)
    run = writer.start_run()
    run.start(models={"m": {"provider": "scripted", "model": "scripted"}}, task="secret task")
    run.model_request({"messages": [{"role": "user", "content": "secret task"}]})
    run._pub.write('{"seq": 3, "kind": "model_resp')            # the process died in the middle of a line
    run._pub.flush()
    loaded = load_run(str(tmp_path), run.run_id)
    assert loaded.bad_lines == 1 and [e["kind"] for e in loaded.events] == ["run_start", "model_request"]
    assert loaded.summary()["status"] in ("running", "incomplete") and loaded.summary()["turns"] == 1
    run.close()


def test_bench_agent_links_failed_runs_to_their_traces(tmp_path):
    code, _, err = run_cli(["bench", "agent", "--model", "ref=scripted:reference", "--variant", "bad=builtin:wrong",
                            "--task", "l1-electronics", "--task", "l2-median", "--trace-dir", str(tmp_path / "t"),
                            "--out", str(tmp_path / "o"), "--quiet"])
    assert code == 0, err
    ids = {p.name for p in run_dirs(tmp_path / "t")}
    assert len(ids) == 2
    results = json.loads((tmp_path / "o" / "results.json").read_text())
    cells = [c for t in results["tasks"] for c in t["by_config"].values()]
    failed = [r["id"] for c in cells for r in c["trace_runs"] if not r["passed"]]
    assert failed and set(failed) <= ids
    report = (tmp_path / "o" / "report.html").read_text()
    for rid in failed:
        assert f'href="traces.html#run-{rid}"' in report
    view = (tmp_path / "o" / "traces.html").read_text()
    assert all(f'id="run-{rid}"' in view for rid in ids)


def test_a_trace_that_cannot_start_leaves_the_run_untraced(tmp_path, monkeypatch, caplog):
    writer = TraceWriter(tmp_path)

    def full_disk(run_id=None):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(writer, "start_run", full_disk)
    provider = ScriptedProvider([{"content": None, "tool_calls": [{"id": "c", "name": "run_ptc_lisp",
                                                                   "args": {"program": "(return 1)"}}]}])
    with caplog.at_level("WARNING", logger="ptclisp.trace"):
        out = AgentHost(models={"m": provider}, trace=writer).run_entry("agent.main/run", {"task": "one"})
    assert out.ok and out.value == 1 and out.usage["calls"] == 1
    assert "No space left on device" in caplog.text and list(tmp_path.iterdir()) == []


def test_runs_is_refused_beside_a_model(tmp_path):
    (tmp_path / "p.clj").write_text("1\n", encoding="utf-8")
    code, _, err = run_cli(["run", str(tmp_path / "p.clj"), "--model", "m=scripted:x.json", "--runs", str(tmp_path)])
    assert code == 2 and "--runs is for programs run without a model" in err
