"""Bookkeeping shared by the task loops: usage counters, events, the transcript and the outcome dict.

`RunLog` collects what one run did (LLM calls, tokens, evaluations,
protocol errors, per-turn events, the last transcript) and turns it into
the outcome dict documented in runner_adapter.  Trace message texts are
capped at `MAX_TRACE_TEXT` characters (raw-record tool results can be
hundreds of kilobytes); the cut is marked.  Imports nothing from ptclisp.
"""
from __future__ import annotations

import copy
import time

TOKEN_KEYS = ("input", "output", "cache_read", "cache_creation")
MAX_TRACE_TEXT = 4000

#: Failure kinds an outcome may carry (scoring adds "wrong_answer").
FAILURE_KINDS = ("turn_limit", "provider_failure", "contract_failure", "model_failed", "time_limit",
                 "truncated", "agent_failure", "harness_error")


def clip(text, limit: int = MAX_TRACE_TEXT):
    if isinstance(text, str) and len(text) > limit:
        return text[:limit] + f"... [trace cut: {len(text)} chars]"
    return text


def clip_messages(messages: list) -> list:
    out = []
    for m in messages:
        m = dict(m)
        if "content" in m:
            m["content"] = clip(m["content"])
        if m.get("tool_calls"):
            calls = []
            for c in m["tool_calls"]:
                c = copy.deepcopy(c)
                args = c.get("args")
                if isinstance(args, dict):
                    c["args"] = {k: clip(v) for k, v in args.items()}
                calls.append(c)
            m["tool_calls"] = calls
        out.append(m)
    return out


class RunLog:
    def __init__(self, engine: str, time_limit_s: float | None = None):
        self.engine = engine
        self.started = time.monotonic()
        self.deadline = None if time_limit_s is None else self.started + time_limit_s
        self.turns = 0
        self.llm_calls = 0
        self.evaluations = 0
        self.protocol_errors = 0
        self.tokens = {k: 0 for k in TOKEN_KEYS}
        self.cost = None
        self.events: list = []
        self.system = None
        self.tools = None
        self.messages: list = []

    # -- accounting ------------------------------------------------------------------------------
    def remaining_s(self) -> float | None:
        return None if self.deadline is None else self.deadline - time.monotonic()

    def expired(self) -> bool:
        r = self.remaining_s()
        return r is not None and r <= 0

    def add_usage(self, response: dict) -> None:
        self.llm_calls += 1
        tokens = response.get("tokens") or {}
        for k in TOKEN_KEYS:
            v = tokens.get(k)
            if isinstance(v, int) and not isinstance(v, bool):
                self.tokens[k] += v
        cost = tokens.get("total_cost")
        if isinstance(cost, (int, float)) and not isinstance(cost, bool):
            self.cost = (self.cost or 0.0) + cost

    def event(self, kind: str, **fields) -> None:
        self.events.append({"turn": self.turns, "kind": kind, **fields})

    def transcript(self, system, tools, messages) -> None:
        self.system, self.tools, self.messages = system, tools, messages

    # -- results ---------------------------------------------------------------------------------
    def outcome(self, *, answer=None, answered: bool = False, kind: str | None = None, reason: str | None = None,
                message: str | None = None) -> dict:
        if not answered and kind not in FAILURE_KINDS:
            raise ValueError(f"unknown failure kind {kind!r}")
        return {
            "status": "answered" if answered else "failed",
            "answer": answer if answered else None,
            "failure": None if answered else {"kind": kind, "reason": reason, "message": clip(message or "", 1000)},
            "turns": self.turns, "llm_calls": self.llm_calls, "evaluations": self.evaluations,
            "protocol_errors": self.protocol_errors, "tokens": dict(self.tokens), "provider_cost": self.cost,
            "engine": self.engine,
            "trace": {"system": self.system, "tools": self.tools, "messages": clip_messages(self.messages),
                      "events": self.events},
        }
