"""Optional live smoke tests: the agent loop against a real model server.

* PTCLISP_LOCAL_LLM_URL: the base URL of a small local OpenAI-compatible model server (the
  `local_llm` fixture of tests/conftest.py).  Its programs are mostly wrong, so the test checks
  the protocol (real HTTP, real tool calls, typed outcome), not the answer.
* PTCLISP_LIVE_OPENAI_MODEL with OPENAI_API_KEY, PTCLISP_LIVE_ANTHROPIC_MODEL with
  ANTHROPIC_API_KEY: a real hosted model must solve a one-step task.
Each test is skipped when its server or credentials are absent.
"""
from __future__ import annotations

import os

import pytest

from ptclisp.agent import AgentHost, Mission
from ptclisp.providers import AnthropicMessages, ModelRouter, OpenAIChat

TASK = "Return the sum of the numbers in data/xs."


def test_local_model_drives_the_loop(local_llm):
    provider = OpenAIChat("smollm2", base_url=local_llm, api_key="local", max_tokens=96,
                          tool_choice="run_ptc_lisp", timeout_s=300)
    host = AgentHost(ModelRouter({"local": provider}), {"default": Mission(data={"xs": [1, 2, 3]})})
    out = host.eval(f'(agent.core/run-outcome "{TASK}" {{"max_turns" 2}})')
    assert out.usage["llm_calls"].get("local", 0) >= 1
    assert out.annotations()                                   # at least one turn was classified
    if out.ok:
        assert out.value["status"] in ("returned", "subject-failure", "provider-failure")
    else:
        assert out.error.reason in ("model_output_truncated", "runtime_limit_exceeded", "llm_provider_failed")


def _live(provider_env: str, key_env: str):
    model = os.environ.get(provider_env)
    return pytest.mark.skipif(not (model and os.environ.get(key_env)), reason=f"set {provider_env} and {key_env}")


def _solve(provider) -> None:
    host = AgentHost(ModelRouter({"live": provider}), {"default": Mission(data={"xs": [1, 2, 3]})})
    out = host.run_entry("agent.main/run", {"task": TASK, "agent": {"max_turns": 4}})
    assert out.ok, out.error
    assert out.value == 6


@_live("PTCLISP_LIVE_OPENAI_MODEL", "OPENAI_API_KEY")
def test_openai_solves_a_small_task():
    _solve(OpenAIChat(os.environ["PTCLISP_LIVE_OPENAI_MODEL"], max_tokens=1024))


@_live("PTCLISP_LIVE_ANTHROPIC_MODEL", "ANTHROPIC_API_KEY")
def test_anthropic_solves_a_small_task():
    _solve(AnthropicMessages(os.environ["PTCLISP_LIVE_ANTHROPIC_MODEL"], max_tokens=1024))
