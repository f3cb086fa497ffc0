"""Host limits of an agent run (docs/spec/agent-library.md §6.7).

Owns `AgentLimits`: a `ptclisp.Limits` whose own fields bound each mission
evaluation, plus the ceilings the host enforces around the agent loop (time
of the whole workflow, evaluation and source-check counts, retained memory
and history, result and capability sizes, capability quotas). Every field
is checked when set, by the validators `Limits` uses. The loop's own
options (`max_turns`, ...) are separate: they come from the Lisp config and
never raise these. Imports meter only.
"""
from __future__ import annotations

import attrs

from ..runtime.meter import Limits, amount_validator, time_ms_validator


@attrs.define(slots=True, init=False)
class AgentLimits(Limits):
    """`Limits` of one mission evaluation (as `Limits`, except a 30 s `timeout_ms`) and of the agent run.

    `evaluation_timeout_ms` and `evaluation_allocation_bytes` (the names of
    docs/spec/agent-library.md §6.7) are `timeout_ms` and `memory_bytes`: accepted and
    readable under both names.
    """

    timeout_ms: int | None = attrs.field(default=30_000, validator=time_ms_validator())
    workflow_timeout_ms: int = attrs.field(default=600_000, validator=time_ms_validator(None))
    subordinate_evaluations: int = attrs.field(default=128, validator=amount_validator(0))
    subordinate_source_checks: int = attrs.field(default=128, validator=amount_validator(0))
    subordinate_source_bytes: int = attrs.field(default=131_072, validator=amount_validator())
    evaluation_memory_bytes: int = attrs.field(default=2_000_000, validator=amount_validator())
    evaluation_history_bytes: int = attrs.field(default=1_000_000, validator=amount_validator())
    terminal_result_bytes: int = attrs.field(default=1_000_000, validator=amount_validator())
    mission_capability_calls: int = attrs.field(default=256, validator=amount_validator(0))
    mission_capability_calls_per_name: int = attrs.field(default=128, validator=amount_validator(0))
    capability_argument_bytes: int = attrs.field(default=262_144, validator=amount_validator())
    capability_result_bytes: int = attrs.field(default=1_000_000, validator=amount_validator())

    def __init__(self, *, evaluation_timeout_ms=None, evaluation_allocation_bytes=None, **fields):
        for alias, name, value in (("evaluation_timeout_ms", "timeout_ms", evaluation_timeout_ms),
                                   ("evaluation_allocation_bytes", "memory_bytes", evaluation_allocation_bytes)):
            if value is not None:
                if name in fields:
                    raise TypeError(f"AgentLimits: {alias} and {name} are the same limit; give one of them")
                fields[name] = value
        self.__attrs_init__(**fields)

    @property
    def evaluation_timeout_ms(self) -> int | None:
        """The time limit of one mission evaluation (`timeout_ms`)."""
        return self.timeout_ms

    @property
    def evaluation_allocation_bytes(self) -> int:
        """The allocation budget of one mission evaluation (`memory_bytes`)."""
        return self.memory_bytes

    def mission_eval_limits(self) -> Limits:
        """The language limits of one mission evaluation, as a plain `Limits`."""
        return Limits(**{f.name: getattr(self, f.name) for f in attrs.fields(Limits)})

    def workflow_limits(self) -> Limits:
        """The language limits of the trusted workflow evaluation (the loop itself)."""
        return Limits(timeout_ms=self.workflow_timeout_ms, memory_bytes=1 << 40, loop_limit=100_000,
                      max_print_chars=100_000, max_program_bytes=10_000_000)
