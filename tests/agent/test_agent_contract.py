"""Scenarios A23-A25: the application result contract."""
from __future__ import annotations

from agent_helpers import calls, make_host, tool_messages

SCHEMA = {
    "type": "object", "additionalProperties": False, "required": ["decision", "evidence"],
    "properties": {
        "decision": {"const": "approve"},
        "evidence": {"type": "array", "minItems": 1, "items": {
            "type": "object", "additionalProperties": False, "required": ["resource"],
            "properties": {"resource": {"type": "string", "minLength": 1}}}}}}

INVALID = '(return {"decision" "approve" "evidence" [{"uri" "private-value"}]})'
VALID = '(return {"decision" "approve" "evidence" [{"resource" "doc-1"}]})'


def run_main(script, max_turns, schema=SCHEMA):
    host, provider = make_host(script, result_schema=schema)
    return host.run_entry("agent.main/run", {"task": "t", "agent": {"max_turns": max_turns}}), provider


def test_a23_contract_violation_is_fed_back_safely():
    out, provider = run_main(calls(INVALID, VALID), 2)
    assert out.ok and out.value == {"decision": "approve", "evidence": [{"resource": "doc-1"}]}
    feedback = tool_messages(provider.requests[1])[-1]
    assert "did not satisfy the application result contract" in feedback
    for word in ("allowed_keys", "missing_required", "resource"):
        assert word in feedback
    assert "uri" not in feedback and "private-value" not in feedback


def test_a24_contract_exhaustion_aborts_without_the_candidate():
    out, provider = run_main(calls(INVALID, INVALID), 2)
    assert (out.error.kind, out.error.reason) == ("workflow_failed", "result_contract_failed")
    assert out.error.details["agent_turns"] == 2
    assert "private-value" not in str(out.error) and "uri" not in str(out.error.details)
    assert len(provider.requests) == 2


def test_a25_keyword_keys_are_projected():
    schema = {"type": "object", "required": ["answer"], "properties": {"answer": {"type": "integer"}}}
    out, _ = run_main(calls("(return {:answer 42})"), 1, schema)
    assert out.ok and out.value == {"answer": 42}


def test_no_contract_always_passes():
    out, _ = run_main(calls('(return "anything")'), 1, None)
    assert out.ok and out.value == "anything"


def test_non_json_value_is_reported_as_such():
    out, provider = run_main(calls('(return {"answer" ##NaN})', '(return {"answer" 1})'), 2, {"type": "object"})
    feedback = tool_messages(provider.requests[1])[-1]
    assert ":json_value false" in feedback
    assert out.ok


def test_integer_keys_project_to_strings_and_validate():
    # (frequencies ...) has integer keys: JSON gives them as strings (docs/json.md), the contract sees an object
    schema = {"type": "object", "required": ["1"], "additionalProperties": {"type": "integer"}}
    out, provider = run_main(calls("(return (frequencies [1 1 2]))"), 1, schema)
    assert out.ok and out.value == {"1": 2, "2": 1}
    assert len(provider.requests) == 1


def test_enum_and_const_literals_are_not_echoed():
    schema = {"type": "object", "properties": {"color": {"enum": ["secret-red", "secret-blue"]}}}
    out, provider = run_main(calls('(return {"color" "green-candidate"})', '(return {"color" "secret-red"})'), 2,
                             schema)
    feedback = tool_messages(provider.requests[1])[-1]
    assert "secret-red" not in feedback and "green-candidate" not in feedback and "enum" in feedback
    assert out.ok
