"""The Python face of the agent library.

Owns `AgentHost` (assembles the workflow preludes, the missions, the model
router, the optional result contract, the limits and an event callback,
and runs workflow programs against them), `WorkflowSession` (a workflow
namespace kept across evaluations, for REPL-style use) and `AgentOutcome`
(what a run gives back, with failures mapped to `RunError` as in
docs/spec/agent-library.md §3.9).

    host = AgentHost(models={"m": ScriptedProvider([...])})
    out = host.run_entry("agent.main/run", {"task": "...", "agent": {"max_turns": 4}})
    out = host.eval('(agent.core/run-outcome "task" {"max_turns" 4})')
    out.ok, out.value, out.error, out.usage, out.events

With `trace=ptclisp.trace.TraceWriter(dir)` every run (each `eval`,
`run_entry`, or `WorkflowSession.eval`) writes its trace directory as it
goes (docs/observability.md); `prices=` sets the prices behind `usage`'s cost.

Trust model: the workflow (shipped preludes plus any workflow component the
application adds) is trusted code; mission programs are not.  The private
bindings that end a run with a typed abort are callable only from the
namespace `agent.core` (checked when the workflow preludes are attached);
this is a weaker guarantee than a signed shipped source, since an
application that supplies its own `agent.core` is trusted to do so.
Imports the agent modules, session, prelude and providers.
"""
from __future__ import annotations

import attrs

from ..pipeline import Result, evaluate
from ..session import Environment
from ..host.inputs import as_preludes, check_context
from ..interchange.json_out import JsonValueError, to_json
from ..prelude import PreludeError, as_component, attach_preludes
from ..values import Keyword, Map
from .bindings import PRIVATE, PRIVATE_OWNER, AgentRun, WorkflowTools
from .envelopes import try_project
from .errors import RunError
from .library import components as library_components
from .limits import AgentLimits
from .mission import Mission
from .policy import PolicyGate, PolicySet
from .policy_setup import check_final_value, check_hooks, gate_components, policy_components
from .result_contract import ResultContract
from .run_options import OptionError, RunOptions


@attrs.define(slots=True)
class AgentOutcome:
    """The result of one workflow evaluation.

    ok:     the workflow finished with a value (`return` or its last value).
    value:  that value as plain JSON data (`ptclisp.interchange.json_out.to_json`, docs/json.md);
            None only for nil. When the value has no JSON form (a function, NaN,
            two keys that become one string) reading `value` raises that
            JsonValueError (naming what and where): never a silent None.
    value_error: that JsonValueError, or None; check it to avoid the raise.
    raw:    the Lisp value (keywords and all), e.g. a `run-outcome` map.
    error:  RunError when not ok.
    usage:  counters: llm_calls per alias, subordinate_evaluations, agent_protocol_errors, ..., and
            the usage record of ptclisp.trace.usage: calls, input_tokens, output_tokens,
            cached_tokens, unreported_calls, cost_usd, by_alias, by_model (docs/observability.md), and
            the policy gate's policy_calls, policy_fallbacks and compactions.
    events: annotations and host events, in order.
    missions: the mission sessions of the run (definitions, history) for inspection.
    """

    ok: bool
    _value: object = attrs.field(default=None, alias="value")
    raw: object = None
    error: RunError | None = None
    usage: dict = attrs.Factory(dict)
    events: list = attrs.Factory(list)
    prints: list = attrs.Factory(list)
    missions: dict = attrs.Factory(dict)
    result: Result | None = None
    value_error: JsonValueError | None = None

    @property
    def value(self):
        e = self.value_error
        if e is not None:
            raise JsonValueError(e.kind, e.message, e.path)
        return self._value

    @property
    def json_error(self) -> RunError | None:
        """What a JSON consumer reports: `error`, or a `value_not_json` RunError when the value has no JSON form."""
        if self.error is not None or self.value_error is None:
            return self.error
        e = self.value_error
        return RunError("workflow_failed", "value_not_json",
                        f"the workflow's value cannot be given as JSON: {e.message}", {"error_kind": e.kind})

    @property
    def policy_fallbacks(self) -> int:
        """How many policy calls of the run fell back to the shipped behaviour (`policy_fallback` events)."""
        return sum(1 for e in self.events if e.get("type") == "policy_fallback")

    def annotations(self, kind: str = "agent-action") -> list[dict]:
        """The data of every annotation of `kind`."""
        return [e["data"] for e in self.events if e.get("type") == kind]


def _router(models):
    from ..providers import ModelRouter
    if isinstance(models, ModelRouter):
        return models
    if isinstance(models, dict):
        return ModelRouter(models)
    raise TypeError("models must be a ptclisp.providers.ModelRouter or a dict alias -> provider")


class AgentHost:
    """Everything an agent run needs, assembled once and reused for each run.

    models:         ModelRouter, or {alias: provider}.
    missions:       {name: Mission}; default: one empty mission "default".
    workflow:       extra workflow prelude components (paths, sources or
                    `ptclisp.prelude.Component`), attached after the library.
    library:        shipped components to select (their dependency closure is added).
    replace:        {shipped id: source}, e.g. a custom "agent.prompt".
    policy:         policy preludes (paths, sources or Components) whose exports render-feedback,
                    render-prompt, project-context and compact are hooks of the loop (ptclisp.agent.policy).
    agent_options:  the agent options the host holds every run to (merged under run_entry's "agent" map).
    result_schema:  JSON Schema the final value of run-result-value / agent.main must satisfy.
    limits:         AgentLimits.
    on_event:       callable receiving each event dict as it happens.
    workflow_tools: extra tools granted to workflow code (never to missions).
    trace:          a `ptclisp.trace.TraceWriter`: each run gets its own trace directory there.
    prices:         a `ptclisp.trace.PriceBook` or {alias: {"input", "output", "cached_input"?}} (USD per
                    million tokens) for the cost in `usage`; models not named there are priced from
                    `ptclisp.trace.PRICES`.
    """

    def __init__(self, models, missions: dict | None = None, *, workflow=(), library=("agent.main",),
                 replace: dict | None = None, result_schema: dict | None = None,
                 limits: AgentLimits | None = None, on_event=None, workflow_tools=None, trace=None,
                 prices=None, policy=(), agent_options: dict | None = None):
        from ..trace import PriceBook, TraceWriter
        if trace is not None and not isinstance(trace, TraceWriter):
            raise TypeError(f"trace must be a ptclisp.trace.TraceWriter, got {type(trace).__name__}")
        self.trace = trace
        self.prices = prices if isinstance(prices, PriceBook) or prices is None else PriceBook(prices)
        self.router = _router(models)
        self.missions = dict(missions) if missions is not None else {"default": Mission()}
        for name, m in self.missions.items():
            if not isinstance(name, str) or not name.strip():
                raise ValueError(f"mission names must be non-blank strings, got {name!r}")
            if not isinstance(m, Mission):
                raise TypeError(f"mission {name!r} must be a ptclisp.agent.Mission")
        workflow = as_preludes(workflow, "workflow")
        self.components = library_components(tuple(library), replace) + [as_component(c) for c in workflow]
        self.policy_components = policy_components(as_preludes(policy, "policy"))
        self.replace = dict(replace or {})
        self._policy = None                       # the PolicySet, made with the first run
        if agent_options is not None and not isinstance(agent_options, dict):
            raise TypeError("agent_options must be a dict of agent options")
        self.agent_options = dict(agent_options or {})
        RunOptions.parse(self.agent_options)      # an option out of range is a ValueError now
        self.contract = ResultContract(result_schema) if result_schema is not None else None
        self.limits = limits if limits is not None else AgentLimits()
        if not isinstance(self.limits, AgentLimits):
            raise TypeError(f"limits must be a ptclisp.agent.AgentLimits, got {type(self.limits).__name__}")
        self.limits.mission_eval_limits()  # a value out of range is a ValueError now, not in the middle of a run
        self.limits.workflow_limits()
        self.on_event = on_event
        self.workflow_tools = workflow_tools
        # fail early on a broken bundle, mission or policy (compiled namespaces are cached for later runs)
        run, _ = self._new_run()
        if self.policy_components:
            check_hooks(run.gate)

    # ------------------------------------------------------------------ assembly
    def _new_run(self) -> tuple[AgentRun, Environment]:
        run = AgentRun(self.missions, self.limits, self.router, self.contract, self.on_event)
        run.prices = self.prices
        tools = WorkflowTools(run, self.workflow_tools)
        env = Environment({}, tools)
        attach_preludes(env, self.components)
        _check_private_bindings(env)
        if self._policy is None:
            self._policy = PolicySet(gate_components(self.replace), self.policy_components, WorkflowTools.BINDINGS)
        run.gate = PolicyGate(self._policy, run.emit, run.turn)
        run.set_options(RunOptions.parse(self.agent_options), host=True)
        return run, env

    def session(self) -> "WorkflowSession":
        """A workflow namespace kept across evaluations (missions and usage persist with it)."""
        run, env = self._new_run()
        return WorkflowSession(self, run, env)

    # ------------------------------------------------------------------ running
    def eval(self, source: str, data: dict | None = None, *, task: str | None = None) -> AgentOutcome:
        """Evaluate a workflow program in a fresh run; `data` becomes `data/<name>`.

        `task` (the task text, when there is one) and `source` go only into a trace's private evidence.
        """
        return self._eval(source, data, task, source)

    def _eval(self, source: str, data, task, entry, options=None, check=None) -> AgentOutcome:
        check_context(data, "data")
        run, env = self._new_run()
        if options is not None:
            try:
                run.set_options(RunOptions.parse({**self.agent_options, **options}, loop=True), host=True)
            except OptionError as e:
                return AgentOutcome(False, error=RunError("workflow_failed", "invalid_agent_config", e.message,
                                                          e.details))
        if data:
            from ..interchange.python import from_python
            env.context = from_python(data)
        return _traced_eval(self, run, env, source, task=task, entry=entry, check=check)

    def run_entry(self, ref: str, *args) -> AgentOutcome:
        """Call a workflow export such as "agent.main/run" with JSON-like arguments."""
        if not isinstance(ref, str) or "/" not in ref:
            raise ValueError("ref must name an export as ns/name")
        first = args[0] if args else None
        task = first.get("task") if isinstance(first, dict) and isinstance(first.get("task"), str) else None
        options = None
        if ref == "agent.main/run" and isinstance(first, dict):
            options = first.get("agent") if isinstance(first.get("agent"), dict) else {}
        check = self.contract if ref == "agent.main/run" else None
        return self._eval(f"(apply {ref} data/args)", {"args": list(args)}, task, None, options, check)

    def close(self):
        self.router.close()


class WorkflowSession:
    """One workflow namespace and one run's missions, kept across evaluations."""

    def __init__(self, host: AgentHost, run: AgentRun, env: Environment):
        self.host, self.run, self.env = host, run, env

    def eval(self, source: str) -> AgentOutcome:
        """Evaluate in this session; with a trace, each evaluation is one traced run (its source private)."""
        self.run.abort = None
        return _traced_eval(self.host, self.run, self.env, source, task=None, entry=source)


def _traced_eval(host: AgentHost, run: AgentRun, env: Environment, source: str, *, task, entry,
                 check=None) -> AgentOutcome:
    """Evaluate `source` in `env`; with `host.trace`, write the run's trace as it goes. `check`: a result
    contract the value must satisfy (the host's own check of agent.main/run's value)."""
    def outcome():
        out = _outcome(run, evaluate(env, source, host.limits.workflow_limits()))
        if check is not None and out.ok:
            check_final_value(check, out)
        return out
    if host.trace is None:
        return outcome()
    from ..trace.hooks import start_run_trace
    trace = start_run_trace(host, run, env, task=task, source=entry)
    if trace is None:                       # the trace could not be started: the run goes on untraced
        return outcome()
    run.trace = trace
    try:
        out = outcome()
    except BaseException as e:
        trace.crash(e)
        raise
    finally:
        run.trace = None
    err = out.json_error
    trace.finish(ok=err is None, error=err, value=out.value if err is None else None, prints=out.prints,
                 usage=out.usage)
    return out


def _check_private_bindings(env: Environment):
    """Refuse a workflow bundle in which a namespace other than agent.core names a private binding."""
    private = set(PRIVATE)
    for ns_name, table in env.preludes.items():
        if ns_name == PRIVATE_OWNER:
            continue
        for def_name, tools in table.instance.compiled.tools.items():
            used = private & set(tools)
            if used:
                raise PreludeError("private_tool_unauthorized",
                                   f"{ns_name}/{def_name} names tool/{sorted(used)[0]}, which only "
                                   f"{PRIVATE_OWNER} may use", namespace=ns_name, ref=f"{ns_name}/{def_name}")


# ------------------------------------------------------------------ outcome mapping

def _name(x):
    return x.name if type(x) is Keyword else x if isinstance(x, str) else None


def _run_error(run: AgentRun, res: Result) -> RunError:
    if res.status == "error":
        err = res.error
        abort = run.abort
        if abort is not None and err.kind == abort.reason:
            return RunError("workflow_failed", abort.reason, abort.message, dict(abort.details))
        return RunError("workflow_failed", err.kind, err.message, {})
    v = res.value
    if type(v) is Map:
        kind, reason = _name(v.lookup("kind")), _name(v.lookup("reason"))
        if v.lookup("status") is Keyword("error") and kind == "limit_exceeded" and reason == "capability_quota":
            ok, details = try_project(v.lookup("details"))
            return RunError("limit_exceeded", "capability_quota", "a model-call quota is exhausted",
                            details if ok and isinstance(details, dict) else {})
        if v.lookup("ok") is False and kind is not None:
            details = {"failure_kind": kind}
            if type(v.lookup("reason")) is Keyword:
                details["failure_reason"] = reason
            return RunError("workflow_failed", "explicit_failure", f"the workflow failed: {kind}", details)
    return RunError("workflow_failed", "explicit_failure", "the workflow failed", {})


def _outcome(run: AgentRun, res: Result) -> AgentOutcome:
    common = dict(usage=run.usage_snapshot(), events=list(run.events), prints=list(res.prints),
                  missions=dict(run.sessions), result=res)
    if res.status in ("ok", "returned"):
        try:
            return AgentOutcome(True, to_json(res.value), res.value, **common)
        except JsonValueError as e:
            return AgentOutcome(True, None, res.value, value_error=e, **common)
    return AgentOutcome(False, None, res.value, _run_error(run, res), **common)
