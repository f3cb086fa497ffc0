"""Scenarios A35-A38 and A45: the system prompt, the Available API, the model key, the prompt seam."""
from __future__ import annotations

import json
import re

from ptclisp.agent import Capability, Mission

from agent_helpers import call, calls, make_host, run_entry

ECHO_SCHEMA = {"type": "object", "required": ["value"], "properties": {"value": {"type": "string"}}}


def system_for(missions) -> str:
    _, provider, _ = run_entry("run-outcome", calls("(return 1)"), {"max_turns": 1}, missions=missions)
    return provider.requests[0]["system"]


def api_section(system: str) -> str:
    return system[system.index("\nAvailable API\n") + 1:]


def test_a35_empty_mission_has_a_one_line_api_section():
    system = system_for(None)
    section = api_section(system)
    lines = section.rstrip("\n").split("\n")
    assert lines[0] == "Available API" and len(lines) == 2 and lines[1].startswith("- ")
    assert system.endswith(section) and section.endswith("\n")


def test_a36_data_entries_show_shapes_never_values():
    data = {"cash_usd": 1250000, "active": True, "notes": ["private value sentinel"], "input": {"a": 1},
            "rows": [{"id": 1, "tag": "secret-a"}, {"id": 2, "note": None}], "empty": []}
    system = system_for({"default": Mission(data=data)})
    api = api_section(system)
    assert re.search(r"- Value: data/cash_usd\n  Type: :int\n", api)
    assert re.search(r"- Value: data/active\n  Type: :bool\n", api)
    assert re.search(r"- Value: data/notes\n  Type: \[:string\]\n", api)           # the items' type, sampled
    assert re.search(r"- Value: data/input\n  Type: \{a :int\}\n", api)            # keys and their types
    # a key missing from some sampled items is optional; a null makes a type nullable
    assert re.search(r"- Value: data/rows\n  Type: \[\{id :int, tag\? :string, note\? nil\}\]\n", api)
    assert re.search(r"- Value: data/empty\n  Type: \[:any\?\]\n", api)
    assert "1250000" not in system and "private value sentinel" not in system and "secret-a" not in system


def test_a36_data_is_readable_by_programs():
    out, _, _ = run_entry("run-outcome", calls("(return (* 2 data/cash_usd))"), {"max_turns": 1},
                          missions={"default": Mission(data={"cash_usd": 21})})
    assert out.value["value"] == 42


ECHO_PRELUDE = '''
(ns echo "Echo helpers: send a value through the native echo tool.")
(defn say "Echo one string back." {:signature "(value :string) -> :any"} [value]
  (tool/native-echo {"value" value}))
'''


def echo_capability():
    return Capability("native-echo", lambda a: a["value"], description="Echo the value back.",
                      input_schema=ECHO_SCHEMA, effect="read")


def test_a37_direct_tool_entry():
    api = api_section(system_for({"default": Mission(capabilities=[echo_capability()])}))
    assert '- Call: (tool/native-echo {"value" value})' in api
    assert "envelope" in api
    assert "Effect: read" in api and "Docs: Echo the value back." in api


def test_a37_prelude_facade_hides_raw_tools():
    mission = Mission(capabilities=[echo_capability()], preludes=[ECHO_PRELUDE])
    api = api_section(system_for({"default": mission}))
    assert "- Call: (echo/say value)" in api
    assert "Type: (value :string) -> :any?" in api
    assert "(tool/native-echo" not in api
    assert "- echo: Echo helpers: send a value through the native echo tool." in api
    assert "Docs: Echo one string back." in api


def test_a37_facade_is_callable_by_programs():
    mission = Mission(capabilities=[echo_capability()], preludes=[ECHO_PRELUDE])
    out, _, _ = run_entry("run-outcome", calls('(return (get (echo/say "hi") :value))'), {"max_turns": 1},
                          missions={"default": mission})
    assert out.value == {"status": "returned", "value": "hi"}


def test_a37_schema_constraints_and_docs_are_rendered():
    lookup = Capability("lookup", lambda a: a, effect="write", input_schema={
        "type": "object", "required": ["id"],
        "properties": {"id": {"type": "integer", "minimum": 1, "title": "Id", "description": "The record id"},
                       "note": {"type": ["string", "null"], "maxLength": 10}}},
        output_schema={"type": "object", "properties": {"x": {"type": "integer", "minimum": 0}}})
    api = api_section(system_for({"default": Mission(capabilities=[lookup])}))
    assert '- Call: (tool/lookup {"id" id})' in api
    assert "Type: (arguments {id :int, note? :string?}) -> {x? :int}" in api
    assert 'arguments["id"] >= 1' in api and 'arguments["note"] length <= 10' in api and 'return["x"] >= 0' in api
    assert 'Schema docs: arguments["id"]: Id — The record id' in api
    assert "Effect: write" in api


def test_a38_model_alias_is_sent_and_stripped():
    out, provider, _ = run_entry("run-outcome", calls("1", "(return 2)"), {"max_turns": 2, "model": "m"})
    assert out.value == {"status": "returned", "value": 2}
    assert len(provider.requests) == 2
    assert all("model" not in r for r in provider.requests)      # the router strips it


def test_a38_request_carries_model_key():
    captured = []

    class Spy:
        def request(self, req):
            captured.append(req)
            program = "1" if len(captured) == 1 else "(return 2)"
            return {"status": "ok", "value": {"content": None, "model": "m", "tool_calls": [
                {"id": f"c{len(captured)}", "name": "run_ptc_lisp", "args": {"program": program}}]}}

        def close(self):
            pass

    host, _ = make_host([])
    host.router = Spy()
    out = host.eval('(agent.core/run-outcome "t" {"max_turns" 2 "model" "m"})')
    assert out.value == {"status": "returned", "value": 2}
    assert [r.get("model") for r in captured] == ["m", "m"]


CUSTOM_PROMPT = '''(ns agent.prompt)
(defn initial-state [cfg] {:revision 0})
(defn render [state] (str "CUSTOM_PROMPT_" (get state :revision)))
(defn transition [state event] (assoc state :revision (inc (get state :revision))))
'''


def test_a45_custom_prompt_seam():
    host, provider = make_host([{"content": "prose"}, call("c", "(return 1)")],
                               replace={"agent.prompt": CUSTOM_PROMPT})
    out = host.eval('(agent.core/run-outcome "t" {"max_turns" 2})')
    assert out.value == {"status": "returned", "value": 1}
    assert [r["system"] for r in provider.requests] == ["CUSTOM_PROMPT_0", "CUSTOM_PROMPT_1"]


def test_a45_broken_prompt_seam_fails_the_workflow():
    broken = CUSTOM_PROMPT.replace('(str "CUSTOM_PROMPT_" (get state :revision))', '""')
    host, provider = make_host(calls("(return 1)"), replace={"agent.prompt": broken})
    out = host.eval('(agent.core/run-outcome "t" {"max_turns" 2})')
    assert out.error.details == {"failure_kind": "invalid-prompt", "failure_reason": "invalid-render"}
    assert provider.requests == []


def test_model_context_json_is_deterministic():
    host, _ = make_host([], missions={"default": Mission(data={"b": 1, "a": "x"}, capabilities=[echo_capability()])})
    a = host.eval('(tool/kernel-mission-model-context {"mission" "default"})').value
    b = host.eval('(tool/kernel-mission-model-context {"mission" "default"})').value
    assert a == b
    doc = json.loads(a["value"])
    assert doc["schema_version"] == 2
    assert [e["form"] for e in doc["entries"]] == sorted(e["form"] for e in doc["entries"])


def test_data_shapes_are_sampled_and_bounded():
    from ptclisp.agent.context import SHAPE_FIELDS, type_of_data
    rows = [{"id": i, "name": f"n{i}", "tags": ["a"], "extra": {"x": 1.5}} for i in range(500)]
    shape = type_of_data(rows)
    fields = shape["items"]["fields"]
    assert [f["name"] for f in fields] == ["id", "name", "tags", "extra"]
    assert all(f["required"] for f in fields)              # a budget that runs out never makes keys optional
    wide = type_of_data({f"k{i}": i for i in range(1000)})
    assert len(wide["fields"]) == SHAPE_FIELDS
    deep = type_of_data([[[[[[1]]]]]])
    assert deep["items"]["items"]["items"]["items"] == {"kind": "array", "nullable": False,
                                                        "items": {"kind": "any", "nullable": True}}
    assert type_of_data([1, 2.5])["items"]["kind"] == "number" and type_of_data([1, "a"])["items"]["kind"] == "any"
