"""Plain Python tools: argument schemas from signatures (ptclisp.agent.python_tools) and the fenced-block
protocol for models without tool calling (ptclisp.agent.textprotocol)."""
from __future__ import annotations

from typing import Literal, Optional, TypedDict

import pytest

from ptclisp.providers import ScriptedProvider
from ptclisp.agent.python_tools import calling_convention, capability_for, schema_of
from ptclisp.agent.textprotocol import TextProtocol, fenced_program


class Query(TypedDict, total=False):
    city: str
    days: int


def by_keywords(city: str, days: int = 1, *, units: Literal["metric", "imperial"] = "metric") -> dict:
    """Forecast for a city."""
    return {"city": city, "days": days, "units": units}


def with_kwargs(name: str, **extra):
    return {"name": name, **extra}


def typed_map(args: Query):
    return args


@pytest.mark.parametrize("hint,schema", [
    (int, {"type": "integer"}), (float, {"type": "number"}), (str, {"type": "string"}), (bool, {"type": "boolean"}),
    (list[int], {"type": "array", "items": {"type": "integer"}}),
    (dict[str, float], {"type": "object", "additionalProperties": {"type": "number"}}),
    (Optional[str], {"type": ["string", "null"]}),
    (list[str] | None, {"type": ["array", "null"], "items": {"type": "string"}}),
    (Literal[1, 2], {"type": "integer", "enum": [1, 2]}),
    (Literal["a", 1], {"enum": ["a", 1]}),
    (tuple[int, ...], {"type": "array", "items": {"type": "integer"}}),
    (object, {}),
])
def test_hints_become_json_schema(hint, schema):
    assert schema_of(hint) == schema


def test_keyword_parameters_are_properties_and_required_without_default():
    call, schema = calling_convention(by_keywords)
    assert schema == {"type": "object", "additionalProperties": False, "required": ["city"],
                      "properties": {"city": {"type": "string"}, "days": {"type": "integer"},
                                     "units": {"type": "string", "enum": ["metric", "imperial"]}}}
    assert call({"city": "Oslo", "units": "imperial"}) == {"city": "Oslo", "days": 1, "units": "imperial"}
    cap = capability_for("forecast", by_keywords)
    assert cap.description == "Forecast for a city." and cap.input_schema == schema


def test_kwargs_open_the_schema_and_a_typed_dict_describes_the_map():
    call, schema = calling_convention(with_kwargs)
    assert schema["additionalProperties"] is True and schema["required"] == ["name"]
    assert call({"name": "x", "y": 1}) == {"name": "x", "y": 1}
    call, schema = calling_convention(typed_map)
    assert call is typed_map                                    # one argument map: called as it is
    assert schema == {"type": "object", "properties": {"city": {"type": "string"}, "days": {"type": "integer"}}}


@pytest.mark.parametrize("fn", [lambda args: args, len, print])
def test_one_map_tools_and_builtins_are_left_as_they_are(fn):
    call, schema = calling_convention(fn)
    assert call is fn and schema is None


def test_fenced_programs_are_found_with_their_narration():
    assert fenced_program("First:\n```clojure\n(+ 1 2)\n```\nthen more") == ("(+ 1 2)", "First:")
    assert fenced_program("```\n(return 1)\n```") == ("(return 1)", None)
    assert fenced_program("no code here") == (None, None)
    assert fenced_program("```python\nprint(1)\n```") == (None, None)


def test_text_protocol_rewrites_requests_and_answers():
    inner = ScriptedProvider([{"content": "```clj\n(return 1)\n```", "finish_reason": "stop"},
                              {"content": "I refuse."}])
    proto = TextProtocol(inner)
    request = {"system": "S", "tools": [{"type": "function"}], "messages": [
        {"role": "user", "content": "task"},
        {"role": "assistant", "content": None,
         "tool_calls": [{"id": "c1", "name": "run_ptc_lisp", "args": {"program": "(+ 1 1)"}}]},
        {"role": "tool", "tool_call_id": "c1", "content": "2"}]}
    answer = proto.complete(request)
    assert answer["tool_calls"] == [{"id": "text-1", "name": "run_ptc_lisp", "args": {"program": "(return 1)"}}]
    assert answer["finish_reason"] == "tool_calls"
    sent = inner.requests[0]
    assert "tools" not in sent and sent["system"].startswith("S\n\n")
    assert sent["messages"][1] == {"role": "assistant", "content": "```clojure\n(+ 1 1)\n```"}
    assert sent["messages"][2] == {"role": "user", "content": "2"}
    assert proto.complete(request) == {"content": "I refuse."}      # no block: passed through unchanged
