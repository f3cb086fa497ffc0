"""Helpers for the agent-library acceptance scenarios (docs/spec/agent-library.md §7).

Every scenario runs the shipped preludes against a `ScriptedProvider` under
the alias "m", with one empty mission "default" unless a test says
otherwise.  Tests assert behaviour and message kinds (markers such as
`TURN BUDGET:` and keyword reasons), not the wording of our prompts.
"""
from __future__ import annotations

from ptclisp import from_python, pr_str
from ptclisp.agent import AgentHost
from ptclisp.providers import ScriptedProvider
from ptclisp.values import Keyword

K = Keyword


def call(call_id: str, program, content=None) -> dict:
    """A response with one run_ptc_lisp call."""
    return {"content": content,
            "tool_calls": [{"id": call_id, "name": "run_ptc_lisp", "args": {"program": program}}]}


def calls(*programs) -> list[dict]:
    """Responses with one call each, ids c1, c2, ..."""
    return [call(f"c{i + 1}", p) for i, p in enumerate(programs)]


def make_host(script, missions=None, **kw):
    provider = script if isinstance(script, ScriptedProvider) else ScriptedProvider(script or [])
    models = kw.pop("models", None) or {"m": provider}
    host = AgentHost(models=models, missions=missions, **kw)
    return host, provider


def lisp_cfg(cfg) -> str:
    """A Lisp literal for JSON-like data."""
    return pr_str(from_python(cfg))


def run_entry(entry: str, script, cfg: dict | None = None, task: str = "t", **kw):
    """Evaluate (agent.core/<entry> task cfg); returns (outcome, provider, host)."""
    host, provider = make_host(script, **kw)
    out = host.eval(f"(agent.core/{entry} {lisp_cfg(task)} {lisp_cfg(cfg or {})})")
    return out, provider, host


def tool_messages(request: dict) -> list[str]:
    return [m["content"] for m in request["messages"] if m["role"] == "tool"]


def last_content(request: dict) -> str:
    return request["messages"][-1]["content"]


def get(m, *path):
    """Walk a Lisp map by keyword names."""
    for p in path:
        m = m.lookup(K(p)) if not isinstance(p, int) else m.lst()[p]
    return m
