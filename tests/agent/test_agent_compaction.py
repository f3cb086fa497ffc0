"""Compaction: a long task whose observations outgrow the transcript budget finishes, every request inside it."""
from __future__ import annotations

import json

from hypothesis import given, settings, strategies as st

from ptclisp.agent.compaction import BudgetExceeded, exchanges, fit, request_chars

from agent_helpers import calls, make_host

BUDGET = 9000
# eleven programs that each print a ~750-character observation and define a value, then one that returns
PROGRAMS = [f'(def x{i} {i}) (apply str (map (fn [_] "{chr(97 + i)}") (range 700)))' for i in range(11)] + \
    ["(return (+ x3 x10))"]


def _run(cfg=None, **kw):
    host, provider = make_host(calls(*PROGRAMS), **kw)
    agent = {"max_turns": 12, "max_transcript_chars": BUDGET, **(cfg or {})}
    return host.run_entry("agent.main/run", {"task": "t", "agent": agent}), provider


def _paired(messages):
    """True when every tool message answers the assistant call just before it (nothing split)."""
    for i, m in enumerate(messages):
        if m["role"] == "tool":
            prev = messages[i - 1]
            if prev["role"] != "assistant" or prev["tool_calls"][0]["id"] != m["tool_call_id"]:
                return False
    return True


def test_without_compaction_the_task_dies_at_the_budget():
    out, provider = _run({"compaction": False})
    assert out.error.details == {"limit": "max_transcript_chars", "limit_value": BUDGET}
    assert len(provider.requests) < 12


def test_a_twelve_turn_task_completes_by_compaction_with_every_request_inside_the_budget():
    out, provider = _run()
    assert out.ok and out.value == 13                   # x3 + x10: definitions survive the summaries
    assert len(provider.requests) == 12
    assert all(request_chars(r) <= BUDGET for r in provider.requests)
    comps = [e for e in out.events if e["type"] == "compaction"]
    assert comps and out.usage["compactions"] == len(comps)
    for e in comps:
        assert e["after_chars"] <= BUDGET < e["before_chars"] or e["after_chars"] < e["before_chars"]
        assert e["budget_chars"] == BUDGET and e["trigger_chars"] == int(BUDGET * 0.85)
        assert e["kept_last"] >= 1 and e["turns_summarized"][0] == 1 and e["fallback_trimmer"] is True
    for r in provider.requests:
        assert r["messages"][0]["content"].startswith("t\n\n")       # the task is always there
        assert _paired(r["messages"])
        assert r["system"] == provider.requests[0]["system"]        # and the system prompt, whole
    last = provider.requests[-1]["messages"]
    assert "<untrusted_ptc_output source=\"compaction\">" in last[1]["content"]
    assert '(range 700)))' in json.dumps(last[-2])                   # the last exchange is verbatim


def test_compaction_at_moves_the_trigger():
    early, p1 = _run({"compaction_at": 0.5})
    late, p2 = _run()
    first = lambda out: min(e["turn"] for e in out.events if e["type"] == "compaction")  # noqa: E731
    assert first(early) < first(late)
    assert early.value == late.value == 13 and all(request_chars(r) <= BUDGET for r in p1.requests)


def test_the_trace_keeps_every_turn_and_records_the_compaction(tmp_path):
    from ptclisp.trace import TraceWriter
    from ptclisp.trace.reader import load_run
    out, _ = _run(trace=TraceWriter(tmp_path, inspect=True))
    (run_dir,) = [p for p in tmp_path.iterdir() if p.is_dir()]
    events = [json.loads(x) for x in (run_dir / "events.jsonl").read_text().splitlines()]
    requests = [e for e in events if e["kind"] == "model_request"]
    # the canonical history: each request keeps every earlier message and adds the new ones
    assert [e["messages"] for e in requests] == [1 + 2 * i for i in range(12)]
    assert all(e["kept_messages"] == e["messages"] - e["new_messages"] for e in requests)
    comp = [e for e in events if e["kind"] == "compaction"]
    assert comp and all("summary" not in e for e in comp)        # the summary is private evidence
    run = load_run(tmp_path, run_dir.name)
    programs = [t.get("program") for t in run.turns()]
    assert programs == PROGRAMS
    evidence = [json.loads(x) for x in (run_dir / "private" / "evidence.jsonl").read_text().splitlines()]
    assert any("EARLIER TURNS" in (x.get("summary") or "") for x in evidence)


# ------------------------------------------------------------------ the compact hook

def _policy(body: str) -> str:
    return f'(ns my.compact "Summaries.")\n(defn compact [turns budget] {body})\n'


def test_a_compact_hook_writes_the_summary_and_pins_a_turn():
    policy = _policy('{"summary" (str "SUMMARY of " (count turns) " turns") "pin" [0]}')
    out, provider = _run(policy=[policy])
    assert out.ok and out.value == 13
    assert all(request_chars(r) <= BUDGET for r in provider.requests)
    comps = [e for e in out.events if e["type"] == "compaction"]
    hooked = [e for e in comps if not e["fallback_trimmer"]]
    assert hooked and all(e["pins"] == [1] for e in hooked)
    sent = [r for r in provider.requests if "SUMMARY of" in json.dumps(r)]
    assert sent
    # the pinned first exchange is there verbatim, after the summary
    assert "(def x0 0)" in json.dumps(sent[0]["messages"][2])


def test_a_compact_hook_that_misbehaves_or_does_not_fit_leaves_the_structural_trimmer():
    for body, reason in (("(/ 1 0)", "crash"), ('{"summary" 5}', "malformed_result"),
                         ('{"summary" "s" "pin" [0 1 2 3 4 5 6 7 8 9]}', None)):
        out, provider = _run(policy=[_policy(body)])
        assert out.ok and out.value == 13, body
        assert all(request_chars(r) <= BUDGET for r in provider.requests)
        comps = [e for e in out.events if e["type"] == "compaction"]
        assert comps and comps[-1]["fallback_trimmer"] is True
        fallbacks = [e["reason"] for e in out.events if e["type"] == "policy_fallback"]
        assert (reason in fallbacks) if reason else not fallbacks


# ------------------------------------------------------------------ fit, directly

def _request(sizes):
    msgs = [{"role": "user", "content": "task"}]
    for i, n in enumerate(sizes):
        msgs.append({"role": "assistant", "content": None,
                     "tool_calls": [{"id": f"c{i}", "name": "run_ptc_lisp", "args": {"program": "p" * 5}}]})
        msgs.append({"role": "tool", "tool_call_id": f"c{i}", "content": "o" * n})
    return {"system": "s" * 50, "messages": msgs, "tools": []}


@settings(max_examples=60, deadline=None)
@given(st.lists(st.integers(0, 900), min_size=0, max_size=14), st.integers(600, 6000),
       st.sampled_from([0.5, 0.85, 1.0]))
def test_fit_sends_a_request_inside_the_budget_or_refuses(sizes, budget, at):
    req = _request(sizes)
    try:
        sent, comp = fit(req, budget, at, True)
    except BudgetExceeded:
        head, units = exchanges(req["messages"])
        minimal = {**req, "messages": head + units[-1]} if units else req
        assert request_chars(minimal) > budget * 0.5 or request_chars(req) > budget
        return
    assert request_chars(sent) <= budget
    assert sent["messages"][0] == req["messages"][0] and sent["system"] == req["system"]
    assert _paired(sent["messages"])
    if comp is not None:
        assert comp.after_chars == request_chars(sent) and comp.before_chars == request_chars(req)
        assert sent["messages"][-2:] == req["messages"][-2:]     # the last exchange is never summarized
    else:
        assert sent is req
