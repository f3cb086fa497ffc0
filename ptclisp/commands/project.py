"""The project commands: init, validate, doctor, models, `run DIR` and `repl --project DIR`.

`ptclisp/commands/main.py` adds each subcommand with `add_<cmd>(sub)` and calls
`cmd_run_project` / `cmd_repl_project` when `run` is given a directory or
`repl` a --project.  Exit classes are those of `ptclisp.exit_codes`.
Imports the project modules, ptclisp.commands.operate, the agent command module
(router, trace, reporting), the REPL and (lazily) the prelude loader, the pipeline and the agent
host and the MCP client (`ptclisp.mcp.client`: [mcp] servers and --mcp).
"""
from __future__ import annotations

import argparse
import contextlib
import json
import sys

from .. import exit_codes as X
from ..interchange.json_out import write_json
from ..project.init import DEFAULT_EXAMPLE, EXAMPLES, init
from ..project.load import ALL_MISSIONS, Project, load_project
from . import operate
from .common import UsageError, read_text
from .operate import DocumentError

_HELP = argparse.RawDescriptionHelpFormatter


# ------------------------------------------------------------------ parsers

def add_init(sub) -> None:
    p = sub.add_parser("init", help="create an agent project from a shipped example", formatter_class=_HELP,
                       description="Create an agent project in DIR (new or empty) from a shipped example. Every "
                                   "example runs offline out of the box with a scripted model: "
                                   "'ptclisp init P && ptclisp run P'.",
                       epilog="examples:\n" + "\n".join(f"  {n:<9} {d}" for n, d in EXAMPLES.items()))
    p.add_argument("dir", metavar="DIR")
    p.add_argument("--example", default=DEFAULT_EXAMPLE, choices=list(EXAMPLES), metavar="NAME",
                   help=f"which example ({', '.join(EXAMPLES)}; default {DEFAULT_EXAMPLE})")
    p.set_defaults(func=cmd_init)


def add_validate(sub) -> None:
    p = sub.add_parser("validate", help="check an agent project without running it", formatter_class=_HELP,
                       description="Check DIR/ptclisp.toml against the project schema ('ptclisp docs "
                                   "project-schema') and everything it names: files exist and parse, JSON "
                                   "Schemas are valid, preludes compile, tools import, replay and script files "
                                   "follow their format, the workflow analyzes. Nothing runs, no model is "
                                   "called. Each problem is one line: file, key (JSON pointer), message, rule.",
                       epilog="exit status: 0 valid; 2 DIR is not a project; 3 problems found")
    p.add_argument("dir", metavar="DIR")
    p.set_defaults(func=cmd_validate)


def add_doctor(sub) -> None:
    p = sub.add_parser("doctor", help="check that a project can run here (validate, credentials, models)",
                       formatter_class=_HELP,
                       description="Everything 'ptclisp validate' checks, then the credentials of each model "
                                   "(the variable is named, its value never printed). With --connect, one tiny "
                                   "real request per model: a refused key, an unknown model, or a model without "
                                   "tool calling is reported.",
                       epilog="exit status: 0 ready; 2 DIR is not a project; 3 the project is invalid; "
                              "4 a model is not ready")
    p.add_argument("dir", metavar="DIR")
    p.add_argument("--connect", action="store_true", help="send one tiny request to each HTTP model")
    p.add_argument("--env-file", metavar="FILE", help="read credentials (KEY=VALUE lines) from FILE")
    p.add_argument("--provider-timeout", type=float, default=30.0, metavar="S",
                   help="seconds each --connect request may take (default 30)")
    p.set_defaults(func=cmd_doctor)


def add_models(sub) -> None:
    p = sub.add_parser("models", help="list a project's model aliases",
                       description="List the model aliases of DIR/ptclisp.toml and what each resolves to: "
                                   "provider, model, parameters and price (never endpoints or keys).")
    p.add_argument("dir", metavar="DIR")
    p.add_argument("--json", action="store_true", help="print them as one JSON object")
    p.set_defaults(func=cmd_models)


def add_project_run_flags(parser) -> None:
    g = parser.add_argument_group("projects", "ptclisp run DIR runs the entry of DIR/ptclisp.toml.")
    g.add_argument("--input", metavar="FILE.json",
                   help="the run's input (a JSON document, checked against [schemas] input): data/input for "
                        "the workflow and every mission")
    g.add_argument("--mission", metavar="M", help="run the task entry in mission M instead of [entry] mission")
    g.add_argument("--candidate", metavar="ID", help="run with candidate ID (ptclisp candidate) in place of its "
                                                     "component, for a look before a trial; nothing is written")
    # --trace-dir/--inspect/--price and --mcp are the run command's own flags: for a project they add to
    # [traces] (the flags win) and [mcp] (the servers of --mcp are granted to every mission)


# ------------------------------------------------------------------ init / validate / doctor / models

def cmd_init(args) -> int:
    files = init(args.dir, args.example)
    print(f"created {args.dir} from the {args.example} example ({len(files)} files):")
    for rel in files:
        print(f"  {rel}")
    print(f"next: ptclisp validate {args.dir} && ptclisp run {args.dir}")
    return X.OK


def cmd_validate(args) -> int:
    from ..project.validate import validate
    project, problems = validate(args.dir)
    if problems:
        for p in problems:
            print(p.render(), file=sys.stderr)
        n = len(problems)
        print(f"{n} problem{'s' * (n != 1)}", file=sys.stderr)
        return X.INVALID_DOCUMENT
    print(f"{project.file}: valid")
    return X.OK


def cmd_doctor(args) -> int:
    from ..project.doctor import doctor
    env = operate.environment(args.env_file)
    lines, code = doctor(args.dir, env, connect=args.connect, timeout_s=args.provider_timeout)
    stream = sys.stdout if code == X.OK else sys.stderr
    for line in lines:
        print(line, file=stream)
    return code


def describe_models(project: Project) -> dict:
    """alias -> {provider, model, params, context_window, price, default}: what `ptclisp models` shows (no
    endpoint, no key)."""
    out = {}
    for alias, m in project.models.items():
        rec = {"provider": m["provider"], "model": m["model"], "default": alias == project.default_alias}
        if m.get("params"):
            rec["params"] = dict(m["params"])
        if m.get("context_window") is not None:
            rec["context_window"] = int(m["context_window"])
        if m.get("price"):
            rec["price"] = dict(m["price"])
        out[alias] = rec
    return out


def cmd_models(args) -> int:
    project = load_project(args.dir)
    models = describe_models(project)
    if args.json:
        write_json(sys.stdout, models, indent=2)
        return X.OK
    width = max(len(a) for a in models)
    for alias, rec in models.items():
        extra = []
        if rec.get("params"):
            extra.append(" ".join(f"{k}={v}" for k, v in rec["params"].items()))
        if rec.get("context_window"):
            extra.append(f"context window {rec['context_window']} tokens")
        if rec.get("price"):
            p = rec["price"]
            extra.append(f"price in/out ${p['input']:g}/${p['output']:g} per 1M tokens")
        default = "  (default)" if rec["default"] else ""
        print(f"{alias:<{width}}  {rec['provider']}:{rec['model']}{default}"
              + (f"  [{'; '.join(extra)}]" if extra else ""))
    return X.OK


# ------------------------------------------------------------------ run DIR

PROG_RUN = "ptclisp run"


def _read_input(project: Project, path: str | None):
    if path is None:
        if project.schemas.get("input"):
            raise UsageError(f"this project takes an input: add --input FILE.json (its schema is "
                             f"{project.schemas['input']})")
        return None
    text = read_text(path, "--input ")
    try:
        value = json.loads(text)
    except ValueError as e:
        raise DocumentError(f"--input {path} is not valid JSON: {e}", "input_invalid") from None
    project.check_input(value, f"--input {path}")
    return value


def _refuse_flags(args) -> None:
    for flag, value in (("--model", args.model), ("--data", args.data), ("--tools", args.tools),
                        ("--prelude", args.prelude)):
        if value:
            raise UsageError(f"{flag} does not apply to a project: its ptclisp.toml names the models, data, "
                             f"tools and preludes")
    if getattr(args, "runs", None):
        raise UsageError("--runs is for programs run without a model, not for a project")


@contextlib.contextmanager
def mcp_tools(project: Project, missions, extra_specs=(), *, connect_timeout_s: float = 30.0):
    """{server: {tool name: Tool}} of the MCP servers the missions use, open for the block.

    Each [mcp.NAME] section the missions name becomes a `ptclisp.mcp.client.MCPServerSpec` (a stdio
    server runs in the project directory), started with `ptclisp.mcp.client.MCPTools`; `extra_specs`
    (the servers of --mcp flags) are started too, under the key `ALL_MISSIONS`: every mission gets
    them.  A server that cannot be started is NotReady (exit 4), naming it.
    """
    specs = project.mcp_specs(project.used_mcp(missions))
    for spec in extra_specs:
        if spec.name in project.mcp:
            raise UsageError(f"--mcp {spec.name}: the project already has an [mcp.{spec.name}] server")
    if not specs and not extra_specs:
        yield {}
        return
    from .mcp_flags import quiet_sdk_log
    from ..mcp.client import MCPStartError, MCPTools
    with quiet_sdk_log(), contextlib.ExitStack() as stack:
        out = {}
        for key, group in [(s.name, [s]) for s in specs] + ([(ALL_MISSIONS, list(extra_specs))] if extra_specs
                                                              else []):
            try:
                opened = stack.enter_context(MCPTools(group, connect_timeout_s=connect_timeout_s))
            except MCPStartError as e:       # its message names the server and why
                raise operate.NotReady(str(e), "mcp_start_failed") from None
            out[key] = dict(opened.tools)
        yield out


def _observe_flags(project: Project, args) -> None:
    """[traces] dir and inspect as --trace-dir / --inspect, unless the command line gave them."""
    if not getattr(args, "trace_dir", None) and project.traces.get("dir"):
        args.trace_dir = project.path(project.traces["dir"])
        if project.traces.get("inspect"):
            args.inspect = True


def build_host(project: Project, args, trace, env, *, input_value=None, mcp=None, missions=None, writer=None,
               prices=None):
    """The AgentHost a project run uses: its models (or --replay/--record), missions, schema and limits;
    `writer` (a ptclisp.trace.TraceWriter) and `prices` (a PriceBook) go to the host as they are."""
    from ..agent import AgentHost
    from .agent import build_router
    names = missions or project.mission_names()
    built = {n: project.mission(n, input_value=input_value, mcp_tools=mcp) for n in names}
    specs = project.model_specs()
    # the documents before the credentials: a broken schema or workflow prelude is exit 3 with or without a key
    result_schema, workflow = project.schema("result"), project.workflow_preludes()
    replay = getattr(args, "replay", None)
    if replay is None:
        operate.check_credentials(dict(specs), env, project.key_env())
    timeout_ms = getattr(args, "timeout_ms", None)
    limits = project.agent_limits(timeout_ms)
    router = build_router(specs, replay=replay, record=getattr(args, "record", None), trace=trace,
                          default=project.default_alias, max_calls=project.max_calls(), env=env,
                          provider_options=operate.provider_options(args, timeout_ms=limits.workflow_timeout_ms),
                          alias_options=project.alias_options(env), context_windows=project.context_windows(),
                          text_protocol=getattr(args, "text_protocol", False))
    router.max_total_calls = project.max_model_calls()
    from ..prelude import Component
    policy = project.policy_preludes() + [Component(read_text(p, "--policy "), p)
                                          for p in getattr(args, "policy", None) or ()]
    return AgentHost(router, built, workflow=workflow, result_schema=result_schema,
                     policy=policy, agent_options=project.agent_options(), replace=project.workflow_replacements(),
                     limits=limits, on_event=trace.write if trace is not None else None, trace=writer,
                     prices=prices)


def cmd_run_project(args, project: Project | None = None) -> int:
    """`ptclisp run DIR`; `project` (e.g. with a candidate in place) instead of loading DIR's."""
    from .agent import open_kit, setup_errors
    try:
        _refuse_flags(args)
        project = project or load_project(args.file)
        input_value = _read_input(project, args.input)
        task = project.entry.get("task")
        mission = args.mission or project.default_mission()
        if args.mission and task is None:
            raise UsageError("--mission applies to a task entry; this project's entry is a workflow program")
        if mission not in project.missions:
            raise UsageError(f"--mission {mission}: the project has no such mission "
                             f"(missions: {', '.join(project.missions)})")
        _observe_flags(project, args)
        extra_mcp = _mcp_flag_specs(args)
    except Exception as e:  # noqa: BLE001 - mapped to a class, or re-raised as a bug
        mapped = setup_errors(e, PROG_RUN)
        if mapped is None:
            raise
        return operate.usage_failure(PROG_RUN, args, mapped)
    try:
        with mcp_tools(project, None, extra_mcp,
                       connect_timeout_s=getattr(args, "mcp_connect_timeout", None) or 30.0) as mcp:
            try:
                kit = open_kit(args, lambda trace, env, writer, prices: build_host(
                                   project, args, trace, env, input_value=input_value, mcp=mcp, writer=writer,
                                   prices=prices),
                               command="run", project_prices=project.prices())
            except Exception as e:  # noqa: BLE001 - mapped to a class, or re-raised as a bug
                mapped = setup_errors(e, PROG_RUN)
                if mapped is None:
                    raise
                return operate.usage_failure(PROG_RUN, args, mapped)
            return _run(project, args, kit, task, mission, input_value)
    except (operate.CommandFailure, UsageError) as e:
        return operate.usage_failure(PROG_RUN, args, e)


def _mcp_flag_specs(args) -> list:
    """The MCPServerSpecs of the command line's --mcp flags (none without them)."""
    if not getattr(args, "mcp", None):
        return []
    from .mcp_flags import specs_from_args
    return specs_from_args(args)


def _run(project: Project, args, kit, task, mission, input_value) -> int:
    host = kit.host
    run_record = {"project": project.name, "entry": "task" if task else project.entry.get("workflow"),
                  "models": project.describe_models(), "replay": args.replay, "record": args.record}
    if task is not None:
        cfg = {"max_turns": project.max_turns(), "mission": mission}
        if project.entry.get("model"):
            cfg["model"] = project.entry["model"]
        out = kit.run(lambda: host.run_entry("agent.main/run", {"task": task, "agent": cfg}), run_record)
        where = ""
    else:
        source = project.workflow_source()
        data = {"input": input_value} if input_value is not None else None
        out = kit.run(lambda: host.eval(source, data), run_record)
        res = out.result
        span = res.error.span if res is not None and res.error is not None else None
        rel = project.entry["workflow"]
        where = f"{rel}:{span.line}:{span.col}: " if span else ""

    def print_text(show_value):
        for line in out.prints:               # a workflow's prints: stderr, so stdout is the value alone
            print(line, file=sys.stderr)
        if show_value:
            write_json(sys.stdout, out.value, indent=2)

    def record(err, code):
        from .agent import error_record
        res = out.result
        status = res.status if res is not None else ("ok" if err is None else "error")
        if err is not None and status in ("ok", "returned"):
            status = "error"
        return {**operate.run_record(status=status, value=out.value if err is None else None, prints=out.prints,
                                     error=error_record(err, res), usage=out.usage, exit_code=code,
                                     duration_ms=res.duration_ms if res is not None else None),
                **kit.trace_record()}

    return kit.finish(PROG_RUN, args, out, print_text=print_text, record=record, where=where)


# ------------------------------------------------------------------ repl --project

class _MissionSession:
    """A REPL session in a project mission: the mission's own environment (data, tools, preludes, strict
    lookup), each input one evaluation under the mission's evaluation limits."""

    def __init__(self, name, mission, limits):
        from ..agent.mission import MissionSession
        self.inner = MissionSession.alone(name, mission, limits)
        self.env = self.inner.env

    def eval(self, source: str):
        self.inner.tools.begin()
        from ..pipeline import evaluate
        return evaluate(self.env, source, self.inner.limits)  # AgentLimits: a Limits for each evaluation


class _WorkflowSession:
    """A REPL session in the project's workflow namespace, its models live."""

    def __init__(self, host):
        self.host = host
        self.inner = host.session()
        self.env = self.inner.env

    def eval(self, source: str):
        return self.inner.eval(source).result


def context_text(project: Project, mission: str, missions: dict, limits) -> str:
    """The system prompt a model turn in `mission` would get (the rendered model context)."""
    from ..agent import AgentHost
    from ..providers import ScriptedProvider
    host = AgentHost({"context": ScriptedProvider([])}, missions, result_schema=project.schema("result"),
                     replace=project.workflow_replacements(), limits=limits)
    cfg = {"mission": mission, "max_turns": project.max_turns(), "max_observation_chars": 2048,
           "max_program_chars": 64000}
    out = host.eval("(agent.prompt/render (agent.prompt/initial-state data/cfg))", {"cfg": cfg})
    if not out.ok or not isinstance(out.raw, str):
        return f"the model context cannot be rendered: {out.error}"
    return out.raw


def cmd_repl_project(args) -> int:
    """`ptclisp repl --project DIR [--mission M]`; the project's [mcp] servers (and --mcp's) run meanwhile."""
    if args.prelude or args.data or args.tools:
        raise UsageError("--prelude, --data and --tools do not apply with --project: its ptclisp.toml names them")
    project = load_project(args.project)
    with mcp_tools(project, None, _mcp_flag_specs(args),
                   connect_timeout_s=getattr(args, "mcp_connect_timeout", None) or 30.0) as mcp:
        return _repl_project(args, project, mcp)


def _repl_project(args, project: Project, mcp: dict) -> int:
    from ..repl import ReplConfig, start
    from ..repl.headless import SetupError
    from .trace_flags import prices_from_args
    env = operate.environment(args.env_file)
    limits = project.agent_limits(args.timeout_ms)
    missions = {n: project.mission(n, mcp_tools=mcp) for n in project.mission_names()}
    if args.mission is not None:
        if args.mission not in missions:
            raise UsageError(f"--mission {args.mission}: the project has no such mission "
                             f"(missions: {', '.join(missions)})")
        name = args.mission

        def factory():
            try:
                return _MissionSession(name, missions[name], limits)
            except Exception as e:  # noqa: BLE001 - a prelude or mission problem is one line
                raise SetupError(f"mission {name}: {e}") from None
        banner = f"project {project.name}, mission {name}: the environment the model's programs run in"
    else:
        name = project.default_mission()
        host_args = argparse.Namespace(replay=None, record=None, text_protocol=False, timeout_ms=args.timeout_ms,
                                       retries=operate.DEFAULT_RETRIES,
                                       provider_timeout=operate.DEFAULT_PROVIDER_TIMEOUT_S)
        try:
            host = build_host(project, host_args, None, env, mcp=mcp,
                              prices=prices_from_args(args, project.prices()))
        except operate.CommandFailure:
            raise
        except Exception as e:  # noqa: BLE001 - a setup problem is one line
            raise SetupError(str(e)) from None
        factory = lambda: _WorkflowSession(host)  # noqa: E731
        banner = f"project {project.name}, workflow namespace: agent.core/run-value and friends call the " \
                 f"project's models"
    def show_context(arg):
        mission = arg or name
        if mission not in missions:
            return f"no mission {mission!r} (missions: {', '.join(missions)})"
        return context_text(project, mission, missions, limits)

    commands = {":context": ("print the model context (system prompt) a model turn in the mission gets; "
                             ":context M for mission M", show_context)}
    config = ReplConfig(session_factory=factory, commands=commands, banner=banner,
                        preview_chars=args.preview_chars)
    return start(config)
