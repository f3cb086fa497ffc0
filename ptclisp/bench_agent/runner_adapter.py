"""The one place the benchmark touches the agent library.

    run_task(question, data, model, variant, limits, mode, answer_schema=None, model_name="model") -> outcome

* `question` - the task text given to the model.
* `data` - `{name: JSON value}`; in `ptc` mode each becomes `data/<name>` of
  the mission, in `json-tools` mode a dataset behind `get_records`.
* `model` - a provider object (anything with `complete(request) -> dict`, see
  ptclisp.providers) or a `PROVIDER:MODEL` spec string.
* `variant` - a `variants.Variant` (mission preludes, agent config overrides,
  workflow prelude replacements) or None for the baseline.
* `limits` - `{"max_turns": int, "time_limit_s": float, "eval_timeout_ms": int?}`.
* `mode` - `"ptc"` (the model writes PTC-Lisp programs over the mission data,
  one `run_ptc_lisp` call per turn) or `"json-tools"` (jsontools.py).
* `tools` - ptclisp.Tool objects (e.g. of --mcp servers) granted to the
  mission's programs in `ptc` mode.
* `answer_schema` - optional JSON Schema the final answer must satisfy
  (the result contract); a violation is fed back and, when turns run out,
  ends the run as `contract_failure`.
* `trace` - optional `{"dir", "inspect", "meta"}`: in `ptc` mode the run
  writes a trace directory there (ptclisp.trace) and the outcome names it.

The outcome is a plain JSON dict::

    {"status": "answered" | "failed",
     "answer": <JSON value or None>,
     "failure": None | {"kind": <FAILURE_KINDS>, "reason": str | None, "message": str},
     "turns": int, "llm_calls": int, "evaluations": int, "protocol_errors": int,
     "tokens": {"input", "output", "cache_read", "cache_creation"}, "provider_cost": float | None,
     "engine": "agent-host" | "json-tools",
     "trace": {"system", "tools", "messages", "events"},
     "trace_run"?: {"dir", "id"}}        # ptc mode with `trace`: the run's directory under --trace-dir

Failure kinds: `turn_limit` (reason: intermediate_result, evaluation_error,
protocol_error, tool_error, terminal_source_required, ...),
`provider_failure` (reason: the provider's, e.g. unavailable, not_found),
`contract_failure`, `model_failed` (the program called `fail` or broke
irrecoverably), `time_limit`, `truncated` (output cap), `agent_failure`
(any other typed failure of the agent run), `harness_error` (a bug here).
Whether an answer is *correct* is not decided here (see validate.py).

`ptc` mode runs the shipped agent loop: `AgentHost.run_entry("agent.main/run",
{"task": question, "agent": cfg})` with one mission `default` holding the
data and the variant's preludes, the variant's workflow replacements (e.g. a
custom `agent.prompt`), the answer schema as the result contract, and the
time limits as `AgentLimits`.  The model is routed under `model_name`;
token counts come from the router, the transcript from the last request.
Imports ptclisp.agent (lazily), ptclisp.providers, jsontools, runlog.
"""
from __future__ import annotations

import json

from ..providers import ModelRouter, build_provider
from .jsontools import run_json_tools
from .runlog import RunLog

MODES = ("ptc", "json-tools")
DEFAULT_EVAL_TIMEOUT_MS = 10_000


def run_task(question: str, data: dict, model, variant=None, limits: dict | None = None, mode: str = "ptc", *,
             answer_schema: dict | None = None, model_name: str = "model", tools=(), trace: dict | None = None) -> dict:
    """Run one task once; never raises for model or provider misbehaviour (see module docstring)."""
    limits = dict(limits or {})
    agent_cfg = dict(getattr(variant, "agent", None) or {})
    max_turns = int(agent_cfg.get("max_turns") or limits.get("max_turns") or 6)
    time_limit_s = limits.get("time_limit_s")
    if mode not in MODES:
        raise ValueError(f"unknown mode {mode!r}; expected one of {', '.join(MODES)}")
    provider = build_provider(model) if isinstance(model, str) else model
    notes = variant.notes() if variant is not None else []
    try:
        if mode == "json-tools":
            return run_json_tools(question, data, provider, model_name=model_name, notes=notes,
                                  max_turns=max_turns, time_limit_s=time_limit_s, answer_schema=answer_schema)
        return _run_agent_host(question, data, provider, variant, limits, max_turns, answer_schema, model_name,
                               tools, trace)
    except Exception as e:  # noqa: BLE001 - a harness bug must become a recorded outcome, not a lost run
        log = RunLog("harness")
        return log.outcome(kind="harness_error", reason=type(e).__name__, message=str(e))


class _Capture:
    """Wraps a provider to keep the last request and response (for the trace's transcript)."""

    def __init__(self, inner):
        self.inner = inner
        self.kind = getattr(inner, "kind", "provider")
        self.last_request = None
        self.last_response = None

    def complete(self, request: dict) -> dict:
        self.last_request = request
        self.last_response = None
        response = self.inner.complete(request)
        self.last_response = response
        return response

    def close(self):
        if hasattr(self.inner, "close"):
            self.inner.close()


#: RunError reasons of agent.main/run -> outcome failure kinds (docs/spec/agent-library.md §3.9).
_ABORT_KINDS = {"result_contract_failed": "contract_failure", "llm_provider_failed": "provider_failure",
                "capability_quota": "provider_failure", "model_output_truncated": "truncated"}


def _failure_of(error) -> tuple[str, str | None]:
    """(kind, reason) of a RunError from agent.main/run."""
    details = error.details or {}
    if error.reason == "runtime_limit_exceeded":
        if details.get("limit") == "agent_turns":
            return "turn_limit", str(details.get("limit_reason") or "turn_limit")
        return "agent_failure", str(details.get("limit") or error.reason)
    if error.reason == "explicit_failure":
        kind = details.get("failure_kind")
        if kind in ("model-program-failed", "non-retryable-evaluation"):
            return "model_failed", kind
        return "agent_failure", kind
    if error.reason == "llm_provider_failed":
        return "provider_failure", str(details.get("reason") or details.get("provider_reason") or error.reason)
    if error.reason == "timeout":
        return "time_limit", "run_time_limit"
    if error.reason in _ABORT_KINDS:
        return _ABORT_KINDS[error.reason], error.reason
    return "agent_failure", error.reason


def _plain_events(events: list) -> list:
    """Host events without timings (so a replayed run's trace is byte-identical to the recorded one)."""
    out = []
    for e in events:
        e = {k: v for k, v in e.items() if k not in ("duration_ms",)}
        try:
            json.dumps(e)
        except (TypeError, ValueError):
            e = {k: str(v) for k, v in e.items()}
        out.append(e)
    return out


def _run_agent_host(question, data, provider, variant, limits, max_turns, answer_schema, model_name, tools=(),
                    trace=None):
    from ..agent import AgentHost, AgentLimits, Mission
    from ..prelude import Component
    from ..trace import TraceWriter
    log = RunLog("agent-host", limits.get("time_limit_s"))
    capture = _Capture(provider)
    router = ModelRouter({model_name: capture}, max_total_calls=None)
    time_ms = int(1000 * (limits.get("time_limit_s") or 600))
    eval_ms = min(int(limits.get("eval_timeout_ms") or DEFAULT_EVAL_TIMEOUT_MS), time_ms)
    replace = {}
    for ns, path in (getattr(variant, "replace", None) or {}).items():
        with open(path, encoding="utf-8") as f:
            replace[ns] = f.read()
    mission = Mission(data=data, preludes=list(getattr(variant, "preludes", ()) or ()), capabilities=list(tools))
    cfg = {**(getattr(variant, "agent", None) or {}), "max_turns": max_turns}
    writer = None
    try:
        if trace is not None:
            writer = TraceWriter(trace["dir"], inspect=bool(trace.get("inspect")),
                                 meta={"command": "bench agent", **(trace.get("meta") or {})})
        policy = []
        for path in getattr(variant, "policy", None) or ():
            with open(path, encoding="utf-8") as f:
                policy.append(Component(f.read(), path))
        host = AgentHost(models=router, missions={"default": mission}, replace=replace or None, policy=policy,
                         result_schema=answer_schema, trace=writer,
                         limits=AgentLimits(workflow_timeout_ms=time_ms, evaluation_timeout_ms=eval_ms))
    except Exception as e:  # noqa: BLE001 - a variant whose preludes do not compile or attach
        return log.outcome(kind="agent_failure", reason=getattr(e, "kind", type(e).__name__), message=str(e))
    try:
        out = host.run_entry("agent.main/run", {"task": question, "agent": cfg})
    finally:
        host.close()
    usage = router.usage()
    tokens = usage["tokens"].get(model_name, {})
    for k in log.tokens:
        log.tokens[k] = int(tokens.get(k, 0))
    if "total_cost" in tokens:
        log.cost = tokens["total_cost"]
    log.llm_calls = usage["calls"].get(model_name, 0)
    log.turns = log.llm_calls
    log.evaluations = out.usage.get("subordinate_evaluations", 0)
    log.protocol_errors = out.usage.get("agent_protocol_errors", 0)
    log.events = _plain_events(out.events)
    req = capture.last_request or {}
    messages = list(req.get("messages") or [])
    if capture.last_response is not None:
        r = capture.last_response
        messages.append({"role": "assistant", "content": r.get("content"), "tool_calls": r.get("tool_calls") or []})
    log.transcript(req.get("system"), req.get("tools"), messages)
    error = out.json_error                  # an answer with no JSON form is a failure, never a null answer
    if error is None:
        outcome = log.outcome(answered=True, answer=out.value)
    else:
        kind, reason = _failure_of(error)
        outcome = log.outcome(kind=kind, reason=reason, message=error.message)
    if writer is not None and writer.last_run is not None:
        outcome["trace_run"] = {"dir": writer.directory, "id": writer.last_run.run_id}
    return outcome
