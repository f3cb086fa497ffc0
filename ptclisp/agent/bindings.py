"""The host bindings of the agent preludes: the workflow's `tool/` table.

Owns `AgentRun` (the host state of one workflow run: mission sessions,
usage counters, annotations, the abort that ended the run) and
`WorkflowTools`, the tool table a workflow evaluation is granted:

    llm-request                  the model router (the only route to a model)
    kernel-eval                  run a program in a mission session
    kernel-check-source          parse + analyze against a mission, no run
    kernel-mission-model-context the mission's model context JSON
    kernel-result-contract       validate a final value (raw, never echoed)
    workflow-annotate            record an annotation
    agent-loop-start             the loop declares its options (it may lower the host's limits, never raise them)
    agent-loop-end               the loop ended: what follows counts against the host's own view again
    policy-call                  call a policy function through the gate (ptclisp.agent.policy)
  private (only agent.core may name them; the host checks this at attach):
    kernel-result-contract-failure, kernel-runtime-limit-failure,
    kernel-agent-config-failure, kernel-llm-provider-failure  -> typed aborts
    kernel-agent-protocol-error                               -> counter

Bindings receive the Lisp argument map as it is (no projection), so the
contract bindings see the raw value and every binding controls its own
conversion; they answer with keyword-keyed envelopes (docs/spec/agent-library.md
§2.1).  Malformed arguments are answered with a protocol_error envelope,
never guessed at.  Imports the agent modules, tools, values and providers (the declared context
windows).
"""
from __future__ import annotations

import hashlib
import re
import time
from typing import Callable

from ..interchange.python import from_python
from ..errors import PtcError
from ..providers import RouterError
from ..providers.windows import CHARS_PER_TOKEN, declared_window, output_reserve, window_chars
from ..host.tools import Tool, ToolSet
from ..trace.usage import UsageMeter, provider_identity
from ..values import Keyword, Map, Vector
from .context import model_context
from .envelopes import K, NotJson, arg_map, envelope_error, envelope_ok, keywordize_envelope, kwmap, project
from .errors import HostAbort
from .mission import MissionSession
from .compaction import BudgetExceeded, fit
from .run_options import OptionError, RunOptions
from ..errors import logger

PRIVATE = ("kernel-result-contract-failure", "kernel-runtime-limit-failure", "kernel-agent-config-failure",
           "kernel-llm-provider-failure", "kernel-agent-protocol-error")
#: The only namespace allowed to name the private bindings.
PRIVATE_OWNER = "agent.core"
TURN_LIMIT_REASONS = ("turn-limit-exceeded", "intermediate-result", "evaluation-error", "protocol-error",
                      "terminal-source-required")
TRUNCATION_BINDINGS = ("configured", "adapter_default", "model_output_limit", "remaining_context")
_HASH_IN_TEXT = re.compile(r"sha256:[0-9a-f]{64}")
log = logger("ptclisp.agent")


_ABSENT = object()


def _kwdeep(x):
    """Plain data -> Lisp data whose map keys are keywords at every level."""
    if isinstance(x, dict):
        return Map({K(k): _kwdeep(v) for k, v in x.items()})
    if isinstance(x, (list, tuple)):
        return Vector([_kwdeep(v) for v in x])
    return from_python(x)


def _protocol(reason: str, details: str | None = None) -> Map:
    extra = {"details": details} if details else {}
    return envelope_error("protocol_error", reason, **extra)


def _get(m: Map, key: str, default=None):
    return m.lookup(key, default)


def _int(x) -> bool:
    return type(x) is int


class AgentRun:
    """The host side of one workflow run."""

    def __init__(self, missions: dict, limits, router, contract, on_event: Callable | None = None):
        self.limits = limits
        self.router = router
        self.contract = contract
        self.on_event = on_event
        self.events: list[dict] = []
        self.abort: HostAbort | None = None
        self.usage = {"llm_calls": {}, "llm_errors": 0, "subordinate_evaluations": 0,
                      "subordinate_source_checks": 0, "agent_protocol_errors": 0, "annotations": 0,
                      "llm_refusals": 0}
        self.sessions = {name: MissionSession(name, m, limits, self.usage_snapshot) for name, m in missions.items()}
        self._contexts: dict[str, str] = {}
        self._quota_proof: str | None = None
        self.tokens = UsageMeter()        # calls, tokens and cost per alias and model (ptclisp.trace.usage)
        self.prices = None                # a ptclisp.trace.PriceBook; None: the package's table
        self.trace = None                 # a ptclisp.trace.RunTrace while a traced run goes
        self.host_options = RunOptions()  # what the host was told (run_entry's "agent" options)
        self.options = self.host_options  # that, tightened by what the loop declared
        self.loop_requests = 0            # model requests since the loop started (the host's turn count)
        self.gate = None                  # the run's ptclisp.agent.policy.PolicyGate
        self._compaction = None
        self._budget_note: dict = {}      # what bound the last request's budget when it was not max_transcript_chars
        self.started = time.monotonic()
        self.policy_counts = {"policy_calls": 0, "policy_fallbacks": 0, "compactions": 0}

    def usage_snapshot(self) -> dict:
        """The run's counters plus the usage record of ptclisp.trace.usage (calls, tokens, cost, by_alias, by_model)."""
        u = dict(self.usage)
        u["llm_calls"] = dict(u["llm_calls"])
        u.update(self.policy_counts)
        # refused capability calls: llm-request calls the router refused (a quota), and the missions' tool
        # calls refused before the tool ran (a quota, invalid arguments, arguments too large)
        u["capability_refusals"] = u.pop("llm_refusals") + sum(
            getattr(s.tools, "refusals", 0) for s in getattr(self, "sessions", {}).values())
        u.update(self.tokens.snapshot(self.prices))
        return u

    def emit(self, event: dict):
        kind = event.get("type")
        if kind in ("policy_call", "policy_fallback"):
            self.policy_counts["policy_calls"] += 1
            self.policy_counts["policy_fallbacks"] += kind == "policy_fallback"
        elif kind == "compaction":
            self.policy_counts["compactions"] += 1
        self.events.append(event)
        if self.trace is not None:
            self.trace.host_event(event)
        if self.on_event is not None:
            try:
                self.on_event(event)
            except Exception as e:  # noqa: BLE001 - an observer must not change the run's outcome
                log.warning("agent on_event callback raised %s", type(e).__name__)

    def fail(self, reason: str, message: str, details: dict):
        """Record and raise the abort that ends this run."""
        self.abort = HostAbort(reason, message, details)
        self.emit({"type": "abort", "reason": reason, "details": details})
        raise self.abort

    # ------------------------------------------------------------------ llm-request
    def llm_request(self, arg: Map):
        try:
            request = project(arg)
        except NotJson:
            return envelope_error("provider_error", "invalid_request", details="the llm request is not JSON data",
                                  **{"retryable?": False})
        send = self._hold_request(request)
        turn = self.trace.model_request(request) if self.trace is not None else 0
        if send is not request:
            self.emit(self._compaction.event() | self._budget_note | {"turn": turn or self.loop_requests,
                                                                      "summary": self._compaction.summary})
        started = time.perf_counter()
        out = self.router.request(send)
        duration_ms = (time.perf_counter() - started) * 1000
        alias = out.get("value", {}).get("model") if out.get("status") == "ok" else out.get("model")
        calls = self.usage["llm_calls"]
        reached_provider = out.get("status") == "ok" or out.get("kind") == "provider_error"
        if alias is not None and reached_provider:      # router refusals never reach a provider
            calls[alias] = calls.get(alias, 0) + 1
        elif out.get("status") != "ok" and out.get("reason") == "capability_quota":
            self.usage["llm_refusals"] += 1
        kind, model = provider_identity(self.router, alias) if alias is not None else (None, None)
        tokens = None
        if out.get("status") == "ok":
            tokens = self.tokens.record(alias, model, out["value"].get("tokens"), kind)
        if self.trace is not None:
            self.trace.model_response(turn, alias, model, kind, out, duration_ms, tokens)
        event = {"type": "llm_request", "model": alias, "status": out.get("status")}
        if out.get("status") != "ok":
            self.usage["llm_errors"] += 1
            event.update(kind=out.get("kind"), reason=out.get("reason"))
            self.emit(event)
            return keywordize_envelope(out)
        self.emit(event)
        return envelope_ok(from_python(out["value"]))

    def _hold_request(self, request: dict) -> dict:
        """The host's checks before a model request, whatever the loop did: the deadline, the turn budget
        and the transcript budget, the lower of max_transcript_chars and the answering model's context
        window in characters (compacting the request when it nears it). Gives the request to send."""
        limit_ms = self.limits.workflow_timeout_ms
        if limit_ms is not None and (time.monotonic() - self.started) * 1000 > limit_ms:
            self.fail("runtime_limit_exceeded", f"the workflow ran past its deadline ({limit_ms} ms)",
                      {"limit": "workflow_timeout_ms", "limit_value": limit_ms})
        o = self.options
        if o.turns is not None and self.loop_requests >= o.turns:
            self.fail("runtime_limit_exceeded", f"the agent used all {o.turns} turns without returning a result "
                                                "(the host refused a further model request)",
                      {"limit": "agent_turns", "limit_value": o.turns, "limit_reason": "turn_limit_exceeded"})
        self.loop_requests += 1
        hook = None
        if self.gate is not None and self.gate.has_hook("compact"):
            hook = lambda turns, info: self.gate.call_hook("compact", [turns, info])  # noqa: E731
        window = self._context_window(request)
        budget = o.max_transcript_chars if window is None else min(o.max_transcript_chars, window[3])
        self._budget_note = {} if budget == o.max_transcript_chars else {"budget_limit": "context_window",
                                                                          "alias": window[0]}
        try:
            send, self._compaction = fit(request, budget, o.compaction_at, o.compaction, hook)
        except BudgetExceeded as e:
            if self._budget_note:
                alias, tokens, reserve, chars = window
                self.fail("runtime_limit_exceeded",
                          f"the next model request ({e.size} characters) would not fit the context window of "
                          f"model {alias} ({tokens} tokens: about {chars} characters of request after keeping "
                          f"{reserve} tokens for the answer, at {CHARS_PER_TOKEN} characters a token)",
                          {"limit": "context_window", "limit_value": tokens, "alias": alias})
            n = o.max_transcript_chars
            self.fail("runtime_limit_exceeded", f"the next model request would exceed max_transcript_chars ({n})",
                      {"limit": "max_transcript_chars", "limit_value": n})
        return send

    def _context_window(self, request: dict):
        """(alias, window tokens, output reservation, window in characters) of the alias the router will
        send `request` to (resolved as the router does: no model -> the default alias), or None when that
        model declares no window, the router will refuse the alias anyway, or the router is not a
        ModelRouter (a stand-in with only `request`)."""
        resolve, lookup = getattr(self.router, "resolve", None), getattr(self.router, "provider", None)
        if not callable(resolve) or not callable(lookup):
            return None
        try:
            alias = resolve(request["model"]) if "model" in request else resolve()
            provider = lookup(alias)
        except (RouterError, KeyError, TypeError):
            return None
        tokens, max_tokens = declared_window(provider)
        if tokens is None:
            return None
        return alias, tokens, output_reserve(tokens, max_tokens), window_chars(tokens, max_tokens)

    # ------------------------------------------------------------------ the loop's options and policy
    def agent_loop_start(self, arg: Map):
        ok, cfg = try_project_map(_get(arg, "options"))
        try:
            declared = RunOptions.parse(cfg if ok else {}, loop=True)
        except OptionError as e:
            self.fail("invalid_agent_config", e.message, e.details)
        self.set_options(self.host_options.tighter(declared))
        return envelope_ok(True)

    def agent_loop_end(self, arg: Map):
        """The loop ended with an outcome: later model requests of the workflow count against the host's view."""
        self.set_options(self.host_options)
        return envelope_ok(True)

    def set_options(self, options: RunOptions, host: bool = False):
        """Hold the run to `options` (with host=True: also the host's own view, from run_entry)."""
        if host:
            self.host_options = options
        self.options = options
        self.loop_requests = 0
        if self.gate is not None:
            self.gate.options.timeout_ms = options.policy_timeout_ms
            self.gate.options.memory_bytes = options.policy_memory_bytes
            self.gate.options.output_chars = options.max_transcript_chars

    def turn(self) -> int:
        return self.trace.turn if self.trace is not None else self.loop_requests

    def policy_call(self, arg: Map):
        from .policy import FUNCTIONS
        ref, args = _get(arg, "fn"), _get(arg, "args")
        if ref not in FUNCTIONS or type(args) is not Vector:
            return _protocol("invalid_policy_call", "expected {\"fn\" name \"args\" [...]}")
        return envelope_ok(policy_value(self, ref, args.lst()))

    # ------------------------------------------------------------------ missions
    def kernel_eval(self, arg: Map):
        kind, source, mission = _get(arg, "kind"), _get(arg, "source"), _get(arg, "mission")
        chars = _get(arg, "observation_chars")
        if kind != "source" or type(source) is not str or type(mission) is not str or \
                (chars is not None and not (_int(chars) and 1 <= chars <= 65_536)):
            return _protocol("invalid_kernel_eval_request", "expected {\"kind\" \"source\" \"source\" text "
                                                            "\"mission\" name \"observation_chars\" 1..65536?}")
        session = self.sessions.get(mission)
        if session is None:
            return _protocol("unknown_mission")
        if len(source) > self.options.max_program_chars:
            n = self.options.max_program_chars
            self.fail("runtime_limit_exceeded", f"the loop sent a program of {len(source)} characters, over "
                                                f"max_program_chars ({n})",
                      {"limit": "max_program_chars", "limit_value": n})
        limit = self.limits.subordinate_evaluations
        if self.usage["subordinate_evaluations"] >= limit:
            self._quota_proof = "quota:" + hashlib.sha256(f"{id(self)}:{time.monotonic_ns()}".encode()).hexdigest()
            return envelope_ok(kwmap({"outcome": K("limit_exceeded"), "reason": K("subordinate_evaluations"),
                                      "limit_value": limit, "limit_proof": self._quota_proof}))
        self.usage["subordinate_evaluations"] += 1
        ev = session.eval(source, chars)
        if self.trace is not None:
            self.trace.evaluation(mission, source, ev)
        self.emit({"type": "evaluation", "mission": mission, "outcome": ev.outcome, "kind": ev.kind,
                   "duration_ms": round(ev.duration_ms, 3)})
        return envelope_ok(ev.to_lisp())

    def kernel_check_source(self, arg: Map):
        source, mission, require = _get(arg, "source"), _get(arg, "mission"), _get(arg, "require")
        if type(source) is not str or type(mission) is not str or require not in (None, "terminal"):
            return _protocol("invalid_check_request")
        session = self.sessions.get(mission)
        if session is None:
            return _protocol("unknown_mission")
        if self.usage["subordinate_source_checks"] >= self.limits.subordinate_source_checks:
            return envelope_ok(kwmap({"outcome": K("limit_exceeded"), "reason": K("subordinate_source_checks")}))
        self.usage["subordinate_source_checks"] += 1
        res = session.check(source, require_terminal=require == "terminal")
        out = {"outcome": K(res["outcome"])}
        if res["outcome"] == "valid":
            out["source_hash"] = "sha256:" + hashlib.sha256(source.encode("utf-8", "surrogatepass")).hexdigest()
            out["source_bytes"] = res["source_bytes"]
        elif res["outcome"] == "invalid":
            d = res["diagnostic"]
            out["diagnostic"] = kwmap({"kind": K(d["kind"]), "message": d["message"], "details": Map({})})
        else:
            out["reason"] = K(res["reason"])
        return envelope_ok(kwmap(out))

    def kernel_mission_model_context(self, arg: Map):
        mission = _get(arg, "mission")
        if type(mission) is not str:
            return _protocol("invalid_context_request")
        session = self.sessions.get(mission)
        if session is None:
            return _protocol("unknown_mission")
        text = self._contexts.get(mission)
        if text is None:
            schema = self.contract.schema if self.contract is not None else None
            text = self._contexts[mission] = model_context(session, schema)
        return envelope_ok(text)

    # ------------------------------------------------------------------ result contract
    def kernel_result_contract(self, arg: Map):
        value = arg.lookup("value", _ABSENT)
        if value is _ABSENT:
            return _protocol("invalid_result_contract_request")
        if self.contract is None:
            return envelope_ok(kwmap({"enforced?": False, "valid?": True}))
        res = self.contract.check(value)
        return envelope_ok(kwmap({"enforced?": True, "valid?": res["valid?"], "details": _kwdeep(res["details"])}))

    def kernel_result_contract_failure(self, arg: Map):
        turns = _get(arg, "agent_turns")
        if not (_int(turns) and 1 <= turns <= 128):
            return _protocol("invalid_result_contract_failure")
        details = {"agent_turns": turns}
        if self.contract is not None:
            check = self.contract.check(_get(arg, "value"))
            v = check["details"].get("violations") or []
            if v:
                details["constraint"] = v[0].get("kind")
                details["path"] = v[0].get("segments", [])
            details["json_value"] = check["details"].get("json_value")
        self.fail("result_contract_failed",
                  f"the returned value still did not satisfy the application result contract after {turns} turns",
                  details)

    # ------------------------------------------------------------------ typed aborts
    def kernel_runtime_limit_failure(self, arg: Map):
        keys = sorted(k.name if type(k) is Keyword else str(k) for k, _ in arg.items())
        if keys == ["agent_turns", "reason"]:
            turns, reason = _get(arg, "agent_turns"), _get(arg, "reason")
            if _int(turns) and turns >= 1 and reason in TURN_LIMIT_REASONS:
                self.fail("runtime_limit_exceeded", f"the agent used all {turns} turns without returning a result "
                                                    f"({_TURN_LIMIT_HINTS[reason]})",
                          {"limit": "agent_turns", "limit_value": turns, "limit_reason": reason.replace("-", "_")})
        elif keys == ["max_transcript_chars"]:
            n = _get(arg, "max_transcript_chars")
            if _int(n) and n >= 1:
                self.fail("runtime_limit_exceeded", f"the next model request would exceed max_transcript_chars ({n})",
                          {"limit": "max_transcript_chars", "limit_value": n})
        elif keys == ["alias", "bindings", "max_tokens"]:
            alias, bindings, n = _get(arg, "alias"), _get(arg, "bindings"), _get(arg, "max_tokens")
            b = bindings.lst() if type(bindings) is Vector else None
            if type(alias) is str and _int(n) and 1 <= n <= 1_000_000 and b and \
                    all(x in TRUNCATION_BINDINGS for x in b):
                self.fail("model_output_truncated", f"model {alias} stopped at its output limit (max_tokens {n}) "
                                                    "before finishing a usable answer",
                          {"alias": alias, "limit": "max_tokens", "limit_value": n, "limit_bindings": list(b)})
        elif keys == ["alias"]:
            alias = _get(arg, "alias")
            if type(alias) is str:
                self.fail("model_output_truncated", f"model {alias} stopped at its output limit before finishing "
                                                    "a usable answer", {"alias": alias})
        elif keys == ["proof"]:
            proof = _get(arg, "proof")
            if self._quota_proof is not None and proof == self._quota_proof:
                n = self.limits.subordinate_evaluations
                self.fail("runtime_limit_exceeded", f"the run used all {n} mission evaluations",
                          {"limit": "subordinate_evaluations", "limit_value": n})
        return _protocol("invalid_runtime_limit_failure")

    def kernel_agent_config_failure(self, arg: Map):
        option, lo, hi = _get(arg, "option"), _get(arg, "min"), _get(arg, "max")
        value, typ = _get(arg, "value"), _get(arg, "type")
        if type(option) is not str or not _int(lo) or not _int(hi):
            return _protocol("invalid_agent_config_failure")
        details = {"option": option, "min": lo, "max": hi}
        if _int(value):
            details["value"] = value
            got = f", got {value}"
        elif type(typ) is str:
            details["type"] = typ
            got = f", got a {typ}"
        else:
            return _protocol("invalid_agent_config_failure")
        self.fail("invalid_agent_config", f"agent option {option} must be an integer from {lo} to {hi}{got}", details)

    def kernel_llm_provider_failure(self, arg: Map):
        envelope = _get(arg, "reason")
        if _get(arg, "ok") is not False or type(envelope) is not Map:
            return _protocol("invalid_llm_provider_failure")
        e = project(envelope) if _projectable(envelope) else {}
        details = {k: e.get(k) for k in ("kind", "reason", "retryable?", "model") if e.get(k) is not None}
        text = e.get("details") if isinstance(e.get("details"), str) else ""
        m = _HASH_IN_TEXT.search(text)
        if m:
            details["request_hash"] = m.group(0)
        if text:      # the provider's own short, credential-free account (HTTP status and endpoint host, ...)
            details["provider_message"] = text
        self.fail("llm_provider_failed", f"the model call failed ({details.get('kind', 'provider_error')}/"
                                         f"{details.get('reason', 'unknown')})" + (f": {text}" if text else ""),
                  details)

    def kernel_agent_protocol_error(self, arg: Map):
        self.usage["agent_protocol_errors"] += 1
        return True

    # ------------------------------------------------------------------ annotations
    def workflow_annotate(self, arg: Map):
        kind, data = _get(arg, "type"), _get(arg, "data")
        if type(kind) is not str or type(data) is not Map or not _projectable(data):
            return envelope_error("invalid_annotation", "invalid_workflow_annotation")
        clean = {k.replace("-", "_"): v for k, v in project(data).items()}
        self.usage["annotations"] += 1
        self.emit({"type": kind, "data": clean})
        return envelope_ok(True)


_TURN_LIMIT_HINTS = {
    "protocol-error": "the model kept answering without one usable tool call; check that the model supports "
                      "tool calling and that its max_tokens leaves room for a program",
    "intermediate-result": "the last programs kept exploring; raise max_turns or ask for less work per turn",
    "evaluation-error": "the last program failed; see the transcript for the error",
    "terminal-source-required": "the terminal-only phase kept receiving programs that were not one return or fail",
    "turn-limit-exceeded": "no turn was left",
}


def try_project_map(x):
    ok, v = (True, project(x)) if _projectable(x) else (False, None)
    return (ok and isinstance(v, dict)), v


def policy_value(run: "AgentRun", ref: str, args: list):
    """The gated value of policy function `ref` (see ptclisp.agent.feedback_hooks)."""
    from .feedback_hooks import gated
    return gated(run, ref, args)


def _projectable(x) -> bool:
    try:
        project(x)
        return True
    except NotJson:
        return False


class WorkflowTools(ToolSet):
    """The workflow's tool table: the agent host bindings plus any application workflow tools."""

    BINDINGS = {
        "llm-request": ("llm_request", "read"),
        "kernel-eval": ("kernel_eval", "unknown"),
        "kernel-check-source": ("kernel_check_source", "read"),
        "kernel-mission-model-context": ("kernel_mission_model_context", "read"),
        "kernel-result-contract": ("kernel_result_contract", "read"),
        "kernel-result-contract-failure": ("kernel_result_contract_failure", "read"),
        "kernel-runtime-limit-failure": ("kernel_runtime_limit_failure", "read"),
        "kernel-agent-config-failure": ("kernel_agent_config_failure", "read"),
        "kernel-llm-provider-failure": ("kernel_llm_provider_failure", "read"),
        "kernel-agent-protocol-error": ("kernel_agent_protocol_error", "read"),
        "workflow-annotate": ("workflow_annotate", "read"),
        "agent-loop-start": ("agent_loop_start", "read"),
        "agent-loop-end": ("agent_loop_end", "read"),
        "policy-call": ("policy_call", "read"),
    }

    def __init__(self, run: AgentRun, extra_tools=None):
        self.run = run
        self.bound = {name: getattr(run, method) for name, (method, _) in self.BINDINGS.items()}
        tools = {name: Tool(name, self.bound[name], description=f"agent host binding {name}", effect=effect,
                            private=name in PRIVATE)
                 for name, (_, effect) in self.BINDINGS.items()}
        extra = ToolSet(extra_tools).tools if extra_tools else {}
        clash = sorted(set(extra) & set(tools))
        if clash:
            raise ValueError(f"workflow tools may not reuse host binding names: {', '.join(clash)}")
        tools.update(extra)
        super().__init__(tools)

    def call(self, name: str, args: tuple):
        fn = self.bound.get(name)
        if fn is None:
            return super().call(name, args)
        arg = arg_map(args)
        if arg is None:
            raise PtcError("invalid_tool_args", f"tool/{name} takes one argument map", details={"tool": name})
        return fn(arg)
