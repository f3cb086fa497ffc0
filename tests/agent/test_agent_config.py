"""Scenarios A31-A34: transcript bound, option validation, consolidation notices."""
from __future__ import annotations

import json

import pytest

from ptclisp.lib.arguments import graphemes

from agent_helpers import calls, run_entry, tool_messages

TRICKY_TASK = 'Say "hi" \\ then\nnewline é \u2028 🧪 done'


def encoded_chars(request: dict) -> int:
    """Length of the request as the loop measures it: graphemes of the compact JSON text."""
    return len(graphemes(json.dumps(request, ensure_ascii=False, separators=(",", ":"))))


def test_a31_transcript_bound_is_checked_before_sending():
    out, provider, _ = run_entry("run-outcome", calls("(return 1)"), {"max_turns": 1}, task=TRICKY_TASK)
    assert out.ok
    size = encoded_chars(provider.requests[0])
    out, provider, _ = run_entry("run-outcome", calls("(return 1)"), {"max_turns": 1, "max_transcript_chars": size},
                                 task=TRICKY_TASK)
    assert out.value == {"status": "returned", "value": 1}
    out, provider, _ = run_entry("run-outcome", calls("(return 1)"),
                                 {"max_turns": 1, "max_transcript_chars": size - 1}, task=TRICKY_TASK)
    assert (out.error.kind, out.error.reason) == ("workflow_failed", "runtime_limit_exceeded")
    assert out.error.details == {"limit": "max_transcript_chars", "limit_value": size - 1}
    assert provider.requests == []


@pytest.mark.parametrize("cfg, details", [
    ({"max_turns": 0}, {"option": "max_turns", "min": 1, "max": 128, "value": 0}),
    ({"max_turns": 129}, {"option": "max_turns", "min": 1, "max": 128, "value": 129}),
    ({"max_turns": "nope"}, {"option": "max_turns", "min": 1, "max": 128, "type": "string"}),
    ({"max_turns": 1.5}, {"option": "max_turns", "min": 1, "max": 128, "type": "float"}),
    ({"max_observation_chars": 65537}, {"option": "max_observation_chars", "min": 1, "max": 65536, "value": 65537}),
    ({"max_program_chars": 1000001}, {"option": "max_program_chars", "min": 1, "max": 1000000, "value": 1000001}),
    ({"max_transcript_chars": 0}, {"option": "max_transcript_chars", "min": 1, "max": 1000000, "value": 0}),
])
def test_a32_invalid_options_abort_before_any_request(cfg, details):
    out, provider, _ = run_entry("run-outcome", calls("(return 1)"), cfg)
    assert (out.error.kind, out.error.reason) == ("workflow_failed", "invalid_agent_config")
    assert out.error.details == details
    assert "nope" not in out.error.message
    assert provider.requests == [] and out.usage["subordinate_evaluations"] == 0


@pytest.mark.parametrize("cfg", [{"max_turns": 1}, {"max_turns": 128}, {"max_observation_chars": 65536},
                                 {"unknown_key": True}])
def test_a32_boundary_values_and_unknown_keys_are_accepted(cfg):
    out, _, _ = run_entry("run-outcome", calls("(return 1)"), cfg)
    assert out.value == {"status": "returned", "value": 1}


@pytest.mark.parametrize("cfg, kind, reason", [
    ({"max_turns": 2, "consolidate_at_turns_remaining": 3}, "invalid-agent-config", "invalid-consolidation-threshold"),
    ({"mission": ""}, "invalid-agent-config", "invalid-mission"),
    ({"mission": 7}, "invalid-agent-config", "invalid-mission"),
    ({"mission": "nope"}, "mission-unavailable", None),
])
def test_a33_config_failures_are_explicit(cfg, kind, reason):
    out, provider, _ = run_entry("run-outcome", calls("(return 1)"), cfg)
    assert (out.error.kind, out.error.reason) == ("workflow_failed", "explicit_failure")
    assert out.error.details.get("failure_kind") == kind
    assert out.error.details.get("failure_reason") == reason
    assert provider.requests == []


def test_a34_consolidation_notices():
    script = calls("1", "2", "3", "(return 4)")
    out, provider, _ = run_entry("run-outcome", script, {"max_turns": 4, "consolidate_at_turns_remaining": 2})
    assert out.value == {"status": "returned", "value": 4}
    notices = [provider.requests[0]["messages"][0]["content"]] + \
        [tool_messages(provider.requests[i])[-1] for i in (1, 2, 3)]
    assert "TURN BUDGET: 4 turns remain" in notices[0] and "CONSOLIDATE:" not in notices[0]
    assert "TURN BUDGET: 3 turns remain" in notices[1] and "CONSOLIDATE:" not in notices[1]
    assert "TURN BUDGET: 2 turns remain" in notices[2] and "CONSOLIDATE:" in notices[2]
    assert "FINAL TURN:" in notices[3] and "CONSOLIDATE:" not in notices[3]
    assert len({r["system"] for r in provider.requests}) == 1
