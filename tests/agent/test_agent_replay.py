"""Scenario A46: the replay provider behind tool/llm-request, with the upstream fixture hash."""
from __future__ import annotations

import json

from ptclisp.agent import Capability, Mission, shipped_source
from ptclisp.providers import ProviderError, ReplayProvider

from agent_helpers import calls, make_host, run_entry

FIXTURE_HASH = "sha256:3c29804ab84643796ed03f89c0f781601913663255262c6991126bea306ac776"
WORKFLOW = '''(cap/unwrap! (tool/llm-request {"system" "%s"
                                "messages" [{"role" "user" "content" "What value is frozen?"}]}))'''


def replay_host(tmp_path):
    path = tmp_path / "replay.jsonl"
    path.write_text(json.dumps({"schema_version": 1, "request_hash": FIXTURE_HASH,
                                "response": {"content": "Frozen answer"}}) + "\n")
    host, _ = make_host([], models={"frozen-model": ReplayProvider(str(path))}, library=("agent.main", "cap"))
    return host


def test_a46_replay_hit(tmp_path):
    out = replay_host(tmp_path).eval(WORKFLOW % "Reply with the frozen answer.")
    assert out.ok and out.value == {"content": "Frozen answer", "model": "frozen-model"}


def test_a46_replay_miss_is_a_value_then_a_failure(tmp_path):
    host = replay_host(tmp_path)
    out = host.eval('(tool/llm-request {"system" "Something else." "messages" []})')
    assert out.ok
    assert (out.value["status"], out.value["kind"], out.value["reason"]) == ("error", "provider_error", "not_found")
    assert "sha256:" in out.value["details"] and FIXTURE_HASH not in out.value["details"]
    out = host.eval(WORKFLOW % "Something else.")
    assert not out.ok and out.error.reason == "explicit_failure"


def test_cap_unwrap_keeps_capability_failures_correctable():
    def missing(args):
        raise ProviderError("not_found", "no such row")
    mission = Mission(capabilities=[Capability("lookup", missing, effect="read")], preludes=[shipped_source("cap")])
    out, provider, _ = run_entry("run-outcome", calls("(cap/unwrap! (tool/lookup {}))", "(return 1)"),
                                 {"max_turns": 2}, missions={"default": mission})
    assert out.value == {"status": "returned", "value": 1}
    assert "reason=not_found" in provider.requests[1]["messages"][-1]["content"]
