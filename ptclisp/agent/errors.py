"""Typed failures of an agent run.

Owns `HostAbort` (raised inside a host binding to end the whole workflow
evaluation with a typed diagnostic; Lisp code cannot catch it because the
language has no exception handling, and it unwinds through prelude calls
like any evaluation error) and `RunError` (what a Python caller sees when a
run did not succeed).  Imports errors only.
"""
from __future__ import annotations

import attrs

from ..errors import PtcError

#: The reasons a host abort may carry (docs/spec/agent-library.md §3.9).
ABORT_REASONS = frozenset({
    "invalid_agent_config", "runtime_limit_exceeded", "model_output_truncated",
    "result_contract_failed", "llm_provider_failed",
})


class HostAbort(PtcError):
    """Ends the workflow evaluation: `reason` is the abort reason, `details` safe JSON data."""

    def __init__(self, reason: str, message: str, details: dict | None = None):
        if reason not in ABORT_REASONS:
            raise ValueError(f"unknown abort reason {reason!r}")
        super().__init__(reason, message, details=dict(details or {}))
        self.reason = reason


@attrs.define(slots=True)
class RunError:
    """Why a run failed.

    kind:    "workflow_failed" for every failure of the workflow, except
             "limit_exceeded" for an exhausted model-call quota.
    reason:  the abort reason ("runtime_limit_exceeded", "invalid_agent_config",
             "model_output_truncated", "result_contract_failed",
             "llm_provider_failed"), "explicit_failure" for a `fail` of the
             workflow, "capability_quota" for a quota, "value_not_json"
             (`AgentOutcome.json_error`) when the workflow finished with a value
             that has no JSON form (details: error_kind), or the error kind of an
             ordinary evaluation error ("type_error", ...).
    details: JSON data; never contains model-program values.
    """

    kind: str
    reason: str
    message: str
    details: dict = attrs.Factory(dict)

    def __str__(self) -> str:
        return f"{self.kind}/{self.reason}: {self.message}"
