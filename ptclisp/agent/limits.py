"""Host limits of an agent run (agent-library.md §6.7).

Owns `AgentLimits`: the ceilings the host enforces around the agent loop
(time of the whole workflow and of each mission evaluation, evaluation and
source-check counts, retained memory and history, result and capability
sizes, capability quotas).  The loop's own options (`max_turns`, ...) are
separate: they come from the Lisp config and never raise these.  Imports
meter only.
"""
from __future__ import annotations

import attrs

from ..meter import Limits


@attrs.define(slots=True)
class AgentLimits:
    workflow_timeout_ms: int = 600_000
    evaluation_timeout_ms: int = 30_000
    evaluation_allocation_bytes: int = 10_000_000   # the per-evaluation allocation budget of a mission program
    loop_limit: int = 1000
    subordinate_evaluations: int = 128
    subordinate_source_checks: int = 128
    subordinate_source_bytes: int = 131_072
    evaluation_memory_bytes: int = 2_000_000
    evaluation_history_bytes: int = 1_000_000
    terminal_result_bytes: int = 1_000_000
    mission_capability_calls: int = 256
    mission_capability_calls_per_name: int = 128
    capability_argument_bytes: int = 262_144
    capability_result_bytes: int = 1_000_000

    def mission_eval_limits(self) -> Limits:
        """The language limits of one mission evaluation."""
        return Limits(timeout_ms=self.evaluation_timeout_ms, memory_bytes=self.evaluation_allocation_bytes,
                      loop_limit=self.loop_limit)

    def workflow_limits(self) -> Limits:
        """The language limits of the trusted workflow evaluation (the loop itself)."""
        return Limits(timeout_ms=self.workflow_timeout_ms, memory_bytes=1 << 40, loop_limit=100_000,
                      max_print_chars=100_000, max_program_bytes=10_000_000)
