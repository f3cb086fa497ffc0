"""The host's own reading of the agent options: the limits it enforces whatever the loop does.

Owns `RunOptions.parse(cfg)`: from the agent options map (`{"max_turns" ...}`,
the `agent` of the input `agent.main/run` is given, or the map the loop
declares with `tool/agent-loop-start`) the turn budget, `max_program_chars`,
`max_transcript_chars`, compaction (`compaction`, `compaction_at`) and the
policy gate's limits (`policy_timeout_ms`, `policy_memory_bytes`).  An
option out of range is an `OptionError` naming it.  `tighter(other)`
combines the host's view with a declared one: a loop may lower a limit,
never raise it.  Imports nothing of the agent.
"""
from __future__ import annotations

import attrs

DEFAULT_TURNS = 4


class OptionError(ValueError):
    def __init__(self, option: str, message: str, details: dict):
        super().__init__(message)
        self.option, self.message, self.details = option, message, details


def _int(cfg: dict, name: str, default, lo: int, hi: int):
    v = cfg.get(name)
    if v is None:
        return default
    if type(v) is not int or not lo <= v <= hi:
        got = f"got {v}" if type(v) is int else f"got a {type(v).__name__}"
        raise OptionError(name, f"agent option {name} must be an integer from {lo} to {hi}, {got}",
                          {"option": name, "min": lo, "max": hi})
    return v


def _turns(cfg: dict):
    phases = cfg.get("phases")
    if isinstance(phases, list) and phases and all(isinstance(p, dict) and type(p.get("max_turns")) is int
                                                   for p in phases):
        return sum(p["max_turns"] for p in phases)
    if "max_turns" in cfg:
        return _int(cfg, "max_turns", DEFAULT_TURNS, 1, 128)
    return None


@attrs.define(slots=True, frozen=True)
class RunOptions:
    """What the host holds a run to. `turns` None: no turn budget (a workflow that is not the agent loop)."""

    turns: int | None = None
    max_program_chars: int = 64_000
    max_transcript_chars: int = 262_144
    compaction: bool = True
    compaction_at: float = 0.85
    policy_timeout_ms: int = 250
    policy_memory_bytes: int = 2_000_000
    given: frozenset = frozenset()

    @classmethod
    def parse(cls, cfg, *, loop: bool = False) -> "RunOptions":
        """The options of `cfg` (a dict; anything else counts as {}); `loop`: the turn budget defaults to 4."""
        cfg = cfg if isinstance(cfg, dict) else {}
        turns = _turns(cfg)
        if turns is None and loop:
            turns = DEFAULT_TURNS
        compaction = cfg.get("compaction", True)
        if type(compaction) is not bool:
            raise OptionError("compaction", "agent option compaction must be true or false",
                              {"option": "compaction"})
        at = cfg.get("compaction_at", 0.85)
        if type(at) not in (int, float) or type(at) is bool or not 0.1 <= at <= 1.0:
            raise OptionError("compaction_at", "agent option compaction_at must be a fraction from 0.1 to 1.0",
                              {"option": "compaction_at", "min": 0.1, "max": 1.0})
        return cls(turns=turns,
                   max_program_chars=_int(cfg, "max_program_chars", 64_000, 1, 1_000_000),
                   max_transcript_chars=_int(cfg, "max_transcript_chars", 262_144, 1, 1_000_000),
                   compaction=compaction, compaction_at=float(at),
                   policy_timeout_ms=_int(cfg, "policy_timeout_ms", 250, 1, 10_000),
                   policy_memory_bytes=_int(cfg, "policy_memory_bytes", 2_000_000, 10_000, 256_000_000),
                   given=frozenset(k for k in cfg if isinstance(k, str)))

    def tighter(self, other: "RunOptions") -> "RunOptions":
        """The host's view (self) combined with a loop's declared options: the lower of each limit; the
        compaction and gate settings the host was given win, else the declared ones."""
        def pick(name):
            return getattr(self, name) if name in self.given or name not in other.given else getattr(other, name)
        turns = [t for t in (self.turns, other.turns) if t is not None]
        return RunOptions(turns=min(turns) if turns else None,
                          max_program_chars=min(self.max_program_chars, other.max_program_chars),
                          max_transcript_chars=min(self.max_transcript_chars, other.max_transcript_chars),
                          compaction=pick("compaction"), compaction_at=pick("compaction_at"),
                          policy_timeout_ms=pick("policy_timeout_ms"),
                          policy_memory_bytes=pick("policy_memory_bytes"), given=self.given | other.given)
