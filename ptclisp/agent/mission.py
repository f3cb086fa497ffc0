"""Missions: where model-written programs run.

Owns `Capability` (an application tool granted to a mission, with declared
effect and schemas), `Mission` (data, capabilities and preludes of one
mission), `MissionTools` (the mission's `tool/` table: envelopes, quotas,
effect tracking, the identity of the last capability result) and
`MissionSession` (one per mission and run: holds a `ptclisp.Session`, adds
commit-time size ceilings, classification of each evaluation into the
evaluation map agent.core reads, source checks).

A mission program reaches only its data, its capabilities, its preludes
and two reserved safe reads (`tool/runtime-usage`, `tool/runtime-remaining`);
the workflow bindings (`tool/llm-request`, `tool/kernel-eval`, ...) are not
in its tool table and the workflow preludes are not attached, so neither
the model nor the loop can be reached from inside.
Imports session, the pipeline, reader forms, tools, inputs and the agent data helpers.
"""
from __future__ import annotations

import itertools
import json
import time
from typing import Callable

import attrs

from ..runtime import meter as M
from ..errors import FailSignal, PtcError, ReturnSignal
from ..reader.forms import List, Sym
from ..host.inputs import as_preludes, check_context, check_flag, check_inputs
from ..values.intstr import brief_ints, int_text
from ..pipeline import check_program, transact
from ..session import Session, environment
from ..host.tool_threads import Abandoned, abandoned_note, call_tool
from ..host.tools import HOST_EXCEPTIONS, Tool, ToolCallRecord, ToolSet, build_args
from ..values import Keyword, Map, Set, Vector
from .envelopes import K, envelope_error, envelope_ok, from_json, kwmap, try_project
from .limits import AgentLimits
from .observation import observe

EFFECTS = ("read", "write", "unknown")
RESERVED_READS = ("runtime-usage", "runtime-remaining")
#: Error kinds that say "the program ran out of a resource" rather than "the program is wrong".
RESOURCE_KINDS = frozenset({"timeout", "memory_exceeded", "loop_limit_exceeded", "compile_memory_exceeded",
                            "tool_call_limit_exceeded", "prelude_contract_error"})
MAX_MESSAGE_CHARS = 4096


@attrs.define(slots=True)
class Capability:
    """An application function a mission program may call as `(tool/<name> {...})`.

    `fn(args: dict) -> JSON data`; raise `ProviderError(reason, details,
    retryable)` for a typed failure.  `effect` drives retry decisions:
    "read" is safe to repeat, "write" and "unknown" (the default) are not.
    """

    name: str
    fn: Callable
    description: str = ""
    input_schema: dict | None = None
    output_schema: dict | None = None
    effect: str = "unknown"

    def __attrs_post_init__(self):
        if self.effect not in EFFECTS:
            raise ValueError(f"capability {self.name}: effect must be one of {EFFECTS}")
        if self.name in RESERVED_READS:
            raise ValueError(f"capability name {self.name!r} is reserved")


@attrs.define(slots=True)
class Mission:
    """What one mission offers generated programs.

    data:         JSON-like dict; each key becomes `data/<key>` (strict: an
                  unknown name is an error).
    capabilities: `Capability` objects (or `ptclisp.Tool`, taken as a capability).
    preludes:     prelude sources/components for the mission namespace(s),
                  in the form `ptclisp.prelude.attach_preludes` accepts.
    """

    data: dict | None = None
    capabilities: list = attrs.Factory(list)
    preludes: list = attrs.Factory(list)
    strict_data: bool = True

    def __attrs_post_init__(self):
        # the same checks as ptclisp.run / Session (ptclisp/host/inputs.py): wrong input fails here, not mid-run
        check_context(self.data, "Mission.data")
        check_flag(self.strict_data, "Mission.strict_data")
        self.preludes = as_preludes(self.preludes, "Mission.preludes")
        if isinstance(self.capabilities, (Capability, Tool, str, bytes, dict)) \
                or not hasattr(self.capabilities, "__iter__"):
            raise TypeError(f"Mission.capabilities must be a list of Capability or Tool objects, "
                            f"got {type(self.capabilities).__name__}")
        self.capabilities = list(self.capabilities)
        for c in self.capabilities:
            as_capability(c)


def as_capability(c) -> Capability:
    if isinstance(c, Capability):
        return c
    if isinstance(c, Tool):
        return Capability(c.name, c.fn, c.description, c.input_schema, None, c.effect)
    raise TypeError(f"mission capabilities must be Capability or Tool objects, got {type(c).__name__}")


# ------------------------------------------------------------------ the mission tool table

class MissionTools(ToolSet):
    """Capabilities as envelope-returning tools, with effect tracking for retry decisions."""

    def __init__(self, capabilities, limits: AgentLimits, usage: Callable[[], dict]):
        self.caps: dict[str, Capability] = {}
        for c in capabilities or ():
            c = as_capability(c)
            if c.name in self.caps:
                raise ValueError(f"capability {c.name!r} is granted twice")
            self.caps[c.name] = c
        tools = {name: Tool(name, c.fn, description=c.description, effect=c.effect) for name, c in self.caps.items()}
        for name in RESERVED_READS:
            tools[name] = Tool(name, _never, description="reserved runtime read", effect="read")
        super().__init__(tools)
        self.limits = limits
        self._usage = usage
        self.validators = {name: _validator(c.input_schema) for name, c in self.caps.items() if c.input_schema}
        self.calls_total = 0
        self.calls_by_name: dict[str, int] = {}
        self.refusals = 0    # capability calls refused before the capability ran (quota, arguments, size)
        self.begin()

    def begin(self):
        """Reset the per-evaluation activity record."""
        self.activity: list[str] = []      # effects of the capability calls of this evaluation
        self.last_result = None            # the exact envelope object most recently returned
        self.exchanges: list = []          # (ToolCallRecord, envelope) per call, for traces

    @property
    def unsafe(self) -> bool:
        return any(e != "read" for e in self.activity)

    def call(self, name: str, args: tuple):
        cap = self.caps.get(name)
        if cap is None and name not in RESERVED_READS:
            return super().call(name, args)          # unknown tool: the base class reports it
        meter = M.current()
        payload = build_args(name, args)
        self._count(meter)
        meter.check()
        rec = ToolCallRecord(name, payload, timestamp=time.time(), effect=cap.effect if cap else "read")
        t0 = time.perf_counter()
        if cap is None:
            self.activity.append("read")
            result = envelope_ok(self._reserved(name))
        else:
            try:
                result = self._call_capability(cap, payload, meter)
            except Abandoned as stop:  # the evaluation stopped while the capability ran (tool_runner.py)
                rec.abandoned, rec.error = True, abandoned_note(stop)
                self._record(meter, rec, t0)
                self.exchanges.append((rec, None))
                raise stop.error from None
        rec.result = "ok" if result.lookup(K("status")) is K("ok") else "error"
        self._record(meter, rec, t0)
        self.exchanges.append((rec, result))
        self.last_result = result
        meter.check()
        return result

    def _reserved(self, name: str):
        usage = self._usage()
        if name == "runtime-usage":
            return from_json(usage)
        return from_json({"mission_capability_calls": max(self.limits.mission_capability_calls - self.calls_total, 0)})

    def _call_capability(self, cap: Capability, payload: dict, meter) -> Map:
        quota = self._admit(cap.name)
        if quota is not None:
            self.refusals += 1
            return quota
        violations = self._violations(cap.name, payload)
        if violations:
            self.refusals += 1
            return envelope_error("protocol_error", "invalid_arguments", details=from_json(violations),
                                  **{"retryable?": False})
        if _json_size(payload) > self.limits.capability_argument_bytes:
            self.refusals += 1
            return envelope_error("limit_exceeded", "capability_argument_bytes",
                                  details=kwmap({"limit": K("capability_argument_bytes"),
                                                 "limit_value": self.limits.capability_argument_bytes}),
                                  **{"retryable?": False})
        self.activity.append(cap.effect)
        try:
            raw = call_tool(meter, cap.fn, payload)
        except (PtcError, ReturnSignal, FailSignal, Abandoned, *HOST_EXCEPTIONS):
            raise
        except BaseException as exc:  # noqa: BLE001 - a failing capability is an error envelope
            return _exception_envelope(exc)
        ok, projected = try_project(raw)
        if not ok or _json_size(projected) > self.limits.capability_result_bytes:
            return envelope_error("provider_error", "invalid_result",
                                  details="the capability returned data that is not JSON or is too large",
                                  **{"retryable?": False})
        if cap.output_schema and not _validator(cap.output_schema).is_valid(brief_ints(projected)):
            return envelope_error("provider_error", "invalid_result",
                                  details="the capability result does not match its declared output schema",
                                  **{"retryable?": False})
        return envelope_ok(from_json(projected))

    def _admit(self, name: str) -> Map | None:
        lim = self.limits
        if self.calls_total >= lim.mission_capability_calls:
            return _quota("mission_capability_calls", lim.mission_capability_calls, name)
        if self.calls_by_name.get(name, 0) >= lim.mission_capability_calls_per_name:
            return _quota("mission_capability_calls_per_name", lim.mission_capability_calls_per_name, name)
        self.calls_total += 1
        self.calls_by_name[name] = self.calls_by_name.get(name, 0) + 1
        return None

    def _violations(self, name: str, payload: dict) -> list[dict]:
        v = self.validators.get(name)
        if v is None:
            return []
        out = []
        for e in sorted(v.iter_errors(brief_ints(payload)), key=lambda e: list(e.absolute_path))[:8]:
            item = {"constraint": e.validator}
            path = [str(p) for p in e.absolute_path]
            if e.validator == "required" and isinstance(e.validator_value, list):
                missing = [r for r in e.validator_value if isinstance(e.instance, dict) and r not in e.instance]
                path = path + missing[:1]
            if path:
                item["argument"] = ".".join(path)
            if e.validator in _SMALL_BOUNDS and isinstance(e.validator_value, (int, float, str)):
                item["expected"] = e.validator_value
            out.append(item)
        return out


def _never(_args):  # pragma: no cover - reserved reads are answered by MissionTools.call
    raise AssertionError("reserved read called through the base tool path")


_SMALL_BOUNDS = frozenset({"type", "minLength", "maxLength", "minimum", "maximum", "exclusiveMinimum",
                           "exclusiveMaximum", "minItems", "maxItems", "minProperties", "maxProperties",
                           "multipleOf", "format"})


def _validator(schema: dict):
    import jsonschema
    cls = jsonschema.validators.validator_for(schema, default=jsonschema.Draft202012Validator)
    cls.check_schema(schema)
    return cls(schema)


@attrs.frozen(slots=True)
class JsonForm:
    """The one JSON projection of a value a mission program ended with (`return`/`fail`): the plain
    JSON data (`data.project`, docs/json.md), the bytes of its compact text (what the size ceilings
    weigh), and, on demand, the Lisp data it reads back as (what the evaluation map carries)."""

    data: object
    size: int

    def lisp(self):
        return from_json(self.data)


def json_form(value) -> JsonForm | None:
    """`value`'s JsonForm, or None when it has no JSON form (a function, NaN, ...)."""
    ok, data = try_project(value)
    return JsonForm(data, _json_size(data)) if ok else None


def _json_size(x) -> int:
    """Bytes of the compact JSON text of `x` (1 << 62 when it has none)."""
    try:
        return len(json.dumps(x, ensure_ascii=False, separators=(",", ":")).encode("utf-8"))
    except ValueError:  # maybe an integer longer than the interpreter's digit limit allows json to write
        pass
    except (TypeError, RecursionError):
        return 1 << 62
    try:
        n = [0]
        text = json.dumps(_long_ints_as_text(x, n), ensure_ascii=False, separators=(",", ":"))
        return len(text.encode("utf-8")) - 2 * n[0]  # each such integer was written with two quotes
    except (TypeError, ValueError, RecursionError):
        return 1 << 62


def _long_ints_as_text(x, n: list):
    """`x` with every integer of more than 64 bits replaced by its decimal text (counted in n[0])."""
    if type(x) is int and x.bit_length() > 64:
        n[0] += 1
        return int_text(x)
    if isinstance(x, dict):
        return {k: _long_ints_as_text(v, n) for k, v in x.items()}
    if isinstance(x, list):
        return [_long_ints_as_text(v, n) for v in x]
    return x


def _quota(limit: str, value: int, name: str) -> Map:
    return envelope_error("limit_exceeded", "capability_quota",
                          details=kwmap({"limit": K(limit), "name": name, "limit_value": value}),
                          **{"retryable?": False})


def _exception_envelope(exc: BaseException) -> Map:
    from ..providers.errors import ProviderError
    if isinstance(exc, ProviderError):
        return envelope_error("provider_error", exc.reason, details=exc.details, **{"retryable?": exc.retryable})
    return envelope_error("provider_error", "unavailable",
                          details=f"the capability failed unexpectedly ({type(exc).__name__})",
                          **{"retryable?": True})


# ------------------------------------------------------------------ evaluation records

@attrs.define(slots=True)
class Evaluation:
    """The classified result of one mission evaluation (docs/spec/agent-library.md §2.3)."""

    outcome: str
    value: object = None
    prints: list = attrs.Factory(list)
    kind: str | None = None
    reason: str | None = None
    details: dict = attrs.Factory(dict)
    capability_activity: bool = False
    unsafe_activity: bool = False
    capability_failure: bool = False
    retryable: bool | None = None
    observation: str | None = None
    preview: dict | None = None
    evaluation_id: int = 0
    duration_ms: float = 0.0
    continuation_effect: str = "preserved"
    error_line: int | None = None      # where an evaluation error is, for traces (not in the Lisp map)
    error_col: int | None = None
    exchanges: list = attrs.Factory(list)   # (ToolCallRecord, envelope) of each capability call, for traces

    def to_lisp(self) -> Map:
        """The keyword-keyed evaluation map agent.core reads."""
        m: dict = {"outcome": K(self.outcome), "evaluation_id": self.evaluation_id,
                   "duration_ms": round(self.duration_ms, 3), "continuation_effect": K(self.continuation_effect)}
        if self.outcome in ("continued", "returned", "failed"):
            if self.observation is not None:
                m["observation"] = self.observation
                preview = dict(self.preview)
                preview["caps_hit"] = [K(c) for c in preview.get("caps_hit", ())]
                m["preview"] = kwmap({k: from_json(v) for k, v in preview.items()})
            if self.observation is None or self.outcome != "continued":
                m["value"] = self.value
                m["prints"] = from_json(self.prints)
        if self.kind is not None:
            m["kind"] = K(self.kind)
        if self.reason is not None:
            m["reason"] = K(self.reason)
        if self.details:
            m["details"] = _details_to_lisp(self.details)
        if self.outcome not in ("busy", "limit_exceeded", "continued", "returned"):
            m["capability_activity?"] = self.capability_activity
        if self.outcome == "failed":
            m["capability_failure?"] = self.capability_failure
        if self.retryable is not None:
            m["retryable?"] = self.retryable
        return kwmap(m)


def _details_to_lisp(details: dict) -> Map:
    out = {}
    for k, v in details.items():
        out[k] = K(v) if k == "phase" and isinstance(v, str) else from_json(v)
    return kwmap(out)


# ------------------------------------------------------------------ the session

_IDS = itertools.count(1)


class MissionSession:
    """One mission's evaluation state for one run: a `ptclisp.Session` over the mission's data,
    capabilities and preludes (`session`, its Environment `env`), under the mission limits of
    `AgentLimits`.

    Its `eval` classifies each evaluation into an `Evaluation` (the map
    agent.core reads) rather than returning a `Result`, and adds the
    commit-time ceilings: retained definitions, history and terminal values
    larger than their limits roll the evaluation back. Its `check` reads and
    analyzes a program as `eval` would compile it (ptclisp.pipeline), without running it.
    Mission data the language cannot hold raises the typed PtcError itself (the agent host reports it).
    """

    def __init__(self, name: str, mission: Mission, limits: AgentLimits, usage: Callable[[], dict]):
        self.name = name
        self.mission = mission
        self.tools = MissionTools(mission.capabilities, limits, usage)
        self.limits, preludes = check_inputs(mission.data, self.tools, limits, mission.preludes, mission.strict_data)
        self.env = environment(mission.data, self.tools, mission.strict_data, preludes, input_error=_as_is)
        self.session = Session.over(self.env, self.limits, preludes)
        self.evaluations = 0
        self.source_checks = 0
        self._context_json: str | None = None
        self._admitted: tuple | None = None   # (returned value, its JsonForm) from `_admit`

    @classmethod
    def alone(cls, name: str, mission: Mission, limits: AgentLimits) -> "MissionSession":
        """The exact environment a mission's programs run in, outside an agent run (nothing used yet):
        for checking that a mission builds, and for a REPL in it."""
        usage = {"llm_calls": {}, "subordinate_evaluations": 0}
        return cls(name, mission, limits, lambda: dict(usage))

    @property
    def definitions(self) -> dict:
        """The mission's committed definitions, name -> a copy of the value."""
        return self.session.definitions

    @property
    def history(self) -> list:
        """Copies of the mission's `*1 *2 *3`, oldest first."""
        return self.session.history

    # -- evaluation
    def eval(self, source: str, observation_chars: int | None = None) -> Evaluation:
        """Run one program transactionally and classify the outcome."""
        if not self.env.busy.acquire(blocking=False):  # (a capability calling back in, another thread)
            return Evaluation("busy", reason="evaluation_in_progress")
        try:
            if len(source.encode("utf-8", "surrogatepass")) > self.limits.subordinate_source_bytes:
                return Evaluation("result_exceeded", kind="result_exceeded", reason="subordinate_source_bytes",
                                  details={"limit_value": self.limits.subordinate_source_bytes},
                                  evaluation_id=next(_IDS))
            return self._eval(source, observation_chars)
        finally:
            self.env.busy.release()

    def _eval(self, source: str, observation_chars: int | None) -> Evaluation:
        tools = self.tools
        tools.begin()
        self.evaluations += 1
        self._admitted = None
        res = transact(self.env, source, self.limits, admit=self._admit)
        ev = Evaluation("continued", evaluation_id=next(_IDS), duration_ms=res.duration_ms,
                        prints=list(res.prints), capability_activity=bool(tools.activity),
                        unsafe_activity=tools.unsafe, exchanges=list(tools.exchanges))
        if res.status == "error":
            span = res.error.span
            if span is not None:
                ev.error_line, ev.error_col = span.line, span.col
            refused = res.error.details.get(_REFUSED)
            if refused is not None:
                return self._limit_failure(ev, *refused)
            return self._error(ev, res.error.kind, res.error.message)
        if res.status == "failed":
            ev.outcome = "failed"
            ev.capability_failure = tools.last_result is not None and res.value is tools.last_result
            ev.retryable = not tools.unsafe
            form = json_form(res.value)
            if form is not None and form.size > self.limits.terminal_result_bytes:
                return self._limit_failure(ev, "result_exceeded", "terminal_result_bytes",
                                           self.limits.terminal_result_bytes)
            ev.value = form.lisp() if form is not None else res.value
            return ev
        if res.status == "returned":
            ev.outcome = "returned"
            ev.continuation_effect = "committed_without_history"
            # the projection `_admit` made (and found within terminal_result_bytes), not a second one
            form = self._admitted[1] if self._admitted is not None and self._admitted[0] is res.value \
                else json_form(res.value)
            ev.value = form.lisp() if form is not None else res.value
        else:
            ev.continuation_effect = "committed_with_history"
            ev.value = res.value
        if observation_chars is not None:
            ev.observation, ev.preview = observe(res.value, ev.prints, observation_chars)
        return ev

    def _admit(self, status: str, value):
        """The commit-time ceilings, checked before the evaluation commits: retained definitions, the
        history with this value, a returned value's size. A breach refuses the commit (a rollback)."""
        lim = self.limits
        if retained_size(list(self.env.ns.values()), lim.evaluation_memory_bytes) > lim.evaluation_memory_bytes:
            raise _refusal("memory_exceeded", "evaluation_memory_bytes", lim.evaluation_memory_bytes)
        if status == "ok":
            history = (self.env.history + [value])[-3:]
            if retained_size(history, lim.evaluation_history_bytes) > lim.evaluation_history_bytes:
                raise _refusal("history_exceeded", "evaluation_history_bytes", lim.evaluation_history_bytes)
            return
        form = json_form(value)
        self._admitted = (value, form)   # the returned value's one projection, for `_eval`
        if form is not None and form.size > lim.terminal_result_bytes:
            raise _refusal("result_exceeded", "terminal_result_bytes", lim.terminal_result_bytes)

    def _error(self, ev: Evaluation, kind: str, message: str) -> Evaluation:
        ev.outcome = "evaluation_error"
        ev.kind = kind
        ev.value = None
        ev.details = {"message": message[:MAX_MESSAGE_CHARS], "capability_activity?": ev.capability_activity}
        if ev.unsafe_activity:
            ev.retryable = False
        elif kind in RESOURCE_KINDS:
            ev.retryable = True
        return ev

    def _limit_failure(self, ev: Evaluation, outcome: str, reason: str, limit: int) -> Evaluation:
        ev.outcome = outcome
        ev.kind = outcome
        ev.reason = reason
        ev.value = None
        ev.continuation_effect = "preserved"
        ev.details = {"phase": "commit", "limit": reason, "limit_value": limit,
                      "capability_activity?": ev.capability_activity}
        ev.retryable = not ev.unsafe_activity
        return ev

    # -- source checks
    def check(self, source: str, require_terminal: bool = False) -> dict:
        """Parse and analyze `source` against the committed state without running it."""
        self.source_checks += 1
        if len(source.encode("utf-8", "surrogatepass")) > self.limits.subordinate_source_bytes:
            return {"outcome": "limit_exceeded", "reason": "subordinate_source_bytes"}
        try:
            check_program(source, self.env.analyzer_env(), self.limits,
                          _terminal_required if require_terminal else None)
        except PtcError as e:
            return _invalid(e.kind, e.message)
        return {"outcome": "valid", "source_bytes": len(source.encode("utf-8", "surrogatepass"))}


# the details key of a commit refused by MissionSession._admit: (outcome, limit name, limit value)
_REFUSED = "mission_commit_refused"


def _refusal(outcome: str, reason: str, limit: int) -> PtcError:
    return PtcError(outcome, f"the evaluation exceeds {reason} ({limit}) and was rolled back",
                    details={_REFUSED: (outcome, reason, limit)})


def _as_is(e: PtcError) -> PtcError:
    """Mission data the language cannot hold: the typed error itself (the agent host reports it)."""
    return e


def _terminal_required(forms) -> None:
    if not _is_terminal(forms):
        raise PtcError("terminal_source_required",
                       "the program must be exactly one top-level (return ...) or (fail ...) form")


def _invalid(kind: str, message: str) -> dict:
    return {"outcome": "invalid", "diagnostic": {"kind": kind, "message": message[:MAX_MESSAGE_CHARS]}}


def _is_terminal(forms) -> bool:
    if len(forms) != 1 or type(forms[0]) is not List or not forms[0].items:
        return False
    head = forms[0].items[0]
    return type(head) is Sym and head.ns is None and head.name in ("return", "fail")


# ------------------------------------------------------------------ retained size

_FN_BYTES = 256


def retained_size(values: list, cap: int) -> int:
    """An estimate of the bytes `values` keep alive; stops counting once `cap` is passed."""
    total = 0
    stack = list(values)
    seen: set[int] = set()
    while stack and total <= cap:
        x = stack.pop()
        t = type(x)
        if x is None or t is bool:
            total += 8
        elif t is int:
            total += 28 + (x.bit_length() // 8)
        elif t is float:
            total += 24
        elif t is str:
            total += 49 + len(x.encode("utf-8", "surrogatepass"))
        elif t is Keyword:
            total += 8
        elif t in (Vector, Map, Set):
            if id(x) in seen:
                total += 8
                continue
            seen.add(id(x))
            if t is Vector:
                items = x.lst()
                total += 56 + 8 * len(items)
                stack.extend(items)
            elif t is Map:
                total += 64 + 40 * len(x)
                for k, v in x.items():
                    stack.append(k)
                    stack.append(v)
            else:
                members = x.members()
                total += 64 + 40 * len(members)
                stack.extend(members)
        else:
            total += _FN_BYTES
    return total
