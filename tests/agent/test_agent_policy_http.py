"""Policy and compaction end to end: `ptclisp agent` / `run` in a subprocess against the fake
OpenAI-compatible server of tests/fake_openai.py over real HTTP on 127.0.0.1."""
from __future__ import annotations

import json
import os
import pathlib
import subprocess
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1]))
from fake_openai import FakeOpenAI  # noqa: E402

ROOT = pathlib.Path(__file__).resolve().parents[2]
KEY = "sk-test-0123456789"


def _cli(args, cwd):
    env = {**os.environ, "OPENAI_API_KEY": KEY}
    return subprocess.run([sys.executable, "-m", "ptclisp.commands.main", *args], cwd=cwd, capture_output=True, text=True,
                          timeout=120, env=env)


def _events(trace_dir: pathlib.Path) -> list[dict]:
    (run_dir,) = [p for p in trace_dir.iterdir() if p.is_dir()]
    return [json.loads(x) for x in (run_dir / "events.jsonl").read_text().splitlines()]


def _tool_texts(body: dict) -> list[str]:
    return [m["content"] for m in body["messages"] if m["role"] == "tool"]


def test_custom_render_feedback_text_reaches_the_model(tmp_path):
    (tmp_path / "policy.clj").write_text('(ns my.policy "Terse feedback.")\n'
                                         '(defn render-feedback [turn state]\n'
                                         '  (str "TERSE " (get turn "feedback") ": " (get turn "observation")))\n')
    with FakeOpenAI() as llm:
        llm.program("(+ 40 2)").program("(return 42)")
        proc = _cli(["agent", "t", "--model", f"m=openai:fake-model@{llm.url}", "--max-turns", "3",
                     "--policy", "policy.clj", "--json"], tmp_path)
        assert proc.returncode == 0, proc.stderr
        assert json.loads(proc.stdout)["value"] == 42
        (text,) = _tool_texts(llm.requests[1])
    assert text.startswith('<untrusted_ptc_output source="policy:render-feedback">\nTERSE observation: user=> 42')


def test_a_throwing_replacement_and_hook_leave_the_value_and_show_policy_fallback(tmp_path):
    from ptclisp.agent.library import shipped_source
    feedback = shipped_source("agent.feedback").replace("(let [preview (get evaluation :preview)",
                                                        "(let [_ (/ 1 0) preview (get evaluation :preview)")
    (tmp_path / "feedback.clj").write_text(feedback)
    (tmp_path / "policy.clj").write_text('(ns my.policy)\n(defn render-prompt [sections state] (tool/llm-request {}))\n')
    with FakeOpenAI() as llm:
        llm.program("(+ 40 2)").program("(return 42)")
        proc = _cli(["agent", "t", "--model", f"m=openai:fake-model@{llm.url}", "--max-turns", "3",
                     "--replace", "agent.feedback=feedback.clj", "--policy", "policy.clj",
                     "--trace-dir", "traces", "--json"], tmp_path)
        assert proc.returncode == 0, proc.stderr
        assert json.loads(proc.stdout)["value"] == 42
        assert "<untrusted_ptc_output source=\"evaluation\">\nuser=> 42" in _tool_texts(llm.requests[1])[0]
    fallbacks = [e for e in _events(tmp_path / "traces") if e["kind"] == "policy_fallback"]
    assert {(e.get("function") or e.get("hook"), e["reason"]) for e in fallbacks} == \
        {("agent.feedback/observation", "crash"), ("render-prompt", "tool_call")}
    assert json.loads(proc.stdout)["usage"]["policy_fallbacks"] == len(fallbacks)


def test_a_twelve_turn_workflow_file_completes_by_compaction_over_http(tmp_path):
    budget = 9000
    (tmp_path / "wf.clj").write_text('(agent.core/run-value "t" {"max_turns" 12 "max_transcript_chars" %d})\n'
                                     % budget)
    with FakeOpenAI() as llm:
        for i in range(11):
            llm.program(f'(def x{i} {i}) (apply str (map (fn [_] "{chr(97 + i)}") (range 700)))')
        llm.program("(return (+ x3 x10))")
        proc = _cli(["run", "wf.clj", "--model", f"m=openai:fake-model@{llm.url}", "--trace-dir", "traces",
                     "--json"], tmp_path)
        assert proc.returncode == 0, proc.stderr
        assert json.loads(proc.stdout)["value"] == 13
        bodies = list(llm.requests)
    events = _events(tmp_path / "traces")
    comps = [e for e in events if e["kind"] == "compaction"]
    assert len(bodies) == 12 and comps
    assert all(e["after_chars"] <= budget for e in comps)
    # what went over the wire shrank with the compaction: no body carries all eleven observations
    assert max(len(json.dumps(b)) for b in bodies) < 2 * budget
    assert "EARLIER TURNS" in json.dumps(bodies[-1])


def test_a_replaced_agent_core_cannot_exceed_the_turn_budget_over_http(tmp_path):
    (tmp_path / "core.clj").write_text('''(ns agent.core "Asks forever and checks nothing.")
(defn run-result-value [task cfg]
  (loop [n 0]
    (llm/request {"system" "s" "messages" [{"role" "user" "content" (str task n)}] "tools" []})
    (recur (inc n))))
''')
    with FakeOpenAI() as llm:
        for _ in range(6):
            llm.program("(+ 1 1)")
        proc = _cli(["agent", "t", "--model", f"m=openai:fake-model@{llm.url}", "--max-turns", "2",
                     "--replace", "agent.core=core.clj", "--json"], tmp_path)
        sent = len(llm.requests)
    record = json.loads(proc.stdout)
    assert record["error"]["reason"] == "runtime_limit_exceeded" and record["error"]["details"]["limit"] == "agent_turns"
    assert sent == 2 and proc.returncode != 0
