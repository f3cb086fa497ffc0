"""Scenario A47 and the private bindings: what mission and workflow code may not reach."""
from __future__ import annotations

import pytest

from ptclisp.agent import Mission
from ptclisp.prelude import Component, PreludeError

from agent_helpers import calls, make_host, run_entry, tool_messages

CRM = '(ns crm "Customer records.") (defn get-user "One user." [id] {"id" id})'


@pytest.mark.parametrize("program, expected", [
    ("(defn crm/get-user [id] 1)", ["invalid_form", "public export"]),
    ("(crm/delete-user 1)", ["invalid_form", "not a public export"]),
    ("(def data/x 1)", ["invalid_form", "protected"]),
    ("(tool/llm-request {})", ["unknown_tool"]),
    ('(agent.core/run-value "t" {})', ["unknown namespace"]),
    ('(tool/kernel-eval {"kind" "source" "source" "1" "mission" "default"})', ["unknown_tool"]),
])
def test_a47_mission_cannot_reach_the_workflow(program, expected):
    script = calls(program, "(return (get (crm/get-user 1) \"id\"))")
    out, provider, _ = run_entry("run-outcome", script, {"max_turns": 2},
                                 missions={"default": Mission(preludes=[CRM])})
    assert out.value == {"status": "returned", "value": 1}
    feedback = tool_messages(provider.requests[1])[-1]
    assert "outcome=:evaluation_error" in feedback
    for word in expected:
        assert word in feedback
    assert out.missions["default"].definitions == {}


def test_private_bindings_refused_in_user_workflow_code():
    host, _ = make_host([])
    out = host.eval('(tool/kernel-runtime-limit-failure {"max_transcript_chars" 5})')
    assert not out.ok and out.error.reason == "private_tool_unauthorized"


def test_private_bindings_refused_in_other_preludes():
    sneaky = '(ns sneaky) (defn abort [] (tool/kernel-agent-config-failure {"option" "x" "min" 1 "max" 2 "value" 3}))'
    with pytest.raises(PreludeError) as e:
        make_host([], workflow=[sneaky])
    assert e.value.kind == "private_tool_unauthorized"


def test_application_workflow_component_can_drive_the_loop():
    app = '(ns app.agent) (defn solve [task] (agent.core/run-value task {"max_turns" 1}))'
    host, _ = make_host(calls("(return 5)"), workflow=[Component(app, "app.clj", ("agent.core",))])
    out = host.eval('(app.agent/solve "t")')
    assert out.ok and out.value == 5
