"""Scenario A46: the replay provider behind tool/llm-request, with the upstream fixture hash."""
from __future__ import annotations

import json

from ptclisp.providers import ReplayProvider

from agent_helpers import make_host

FIXTURE_HASH = "sha256:3c29804ab84643796ed03f89c0f781601913663255262c6991126bea306ac776"
WORKFLOW = '''(let [r (tool/llm-request {"system" "%s"
                                  "messages" [{"role" "user" "content" "What value is frozen?"}]})]
  (if (= :ok (get r :status)) (get r :value) (fail r)))'''


def fixture(tmp_path):
    path = tmp_path / "replay.jsonl"
    path.write_text(json.dumps({"schema_version": 1, "request_hash": FIXTURE_HASH,
                                "response": {"content": "Frozen answer"}}) + "\n")
    return ReplayProvider(str(path))


def test_a46_replay_hit(tmp_path):
    host, _ = make_host([], models={"frozen-model": fixture(tmp_path)})
    out = host.eval(WORKFLOW % "Reply with the frozen answer.")
    assert out.ok and out.value == {"content": "Frozen answer", "model": "frozen-model"}


def test_a46_replay_miss_is_a_value_then_a_failure(tmp_path):
    host, _ = make_host([], models={"frozen-model": fixture(tmp_path)})
    out = host.eval('(tool/llm-request {"system" "Something else." "messages" []})')
    assert out.ok
    assert (out.value["status"], out.value["kind"], out.value["reason"]) == ("error", "provider_error", "not_found")
    assert "sha256:" in out.value["details"] and FIXTURE_HASH not in out.value["details"]
    out = host.eval(WORKFLOW % "Something else.")
    assert not out.ok and out.error.reason == "explicit_failure"
