"""`ptclisp agent ...`, and the agent side of `ptclisp run FILE --model ...`.

Owns `cli_main(argv) -> exit code` (the `agent` subcommand), `build_parser()`,
`run_workflow_file(...)` (what `ptclisp run` calls when a model flag is given),
`build_router(...)` (model specs plus --replay / --record / --trace wrapping,
provider timeouts and retries, --text-protocol; the answers of a `scripted:FILE`
model are read by ptclisp/providers/scripted_file.py), `load_schema` (--schema, checked to be a JSON Schema),
`mission_capabilities` (--tools) and `Trace` (the redacted JSON Lines event log).

    ptclisp agent "TASK" [--model ALIAS=PROVIDER:MODEL]... [--data FILE] [--tools module:attr]...
                  [--mcp NAME=COMMAND ARGS... | --mcp NAME=URL]...
                  [--prelude FILE]... [--max-turns N] [--schema FILE.json]
                  [--replay FILE | --record FILE] [--trace FILE]
                  [--trace-dir DIR [--inspect]] [--price ALIAS=IN,OUT]...
                  [--envelope] [--output FILE] [--retries N] [--provider-timeout S] [--timeout-ms MS]
                  [--env-file FILE] [--text-protocol]
    ptclisp run agent.clj --model ALIAS=PROVIDER:MODEL [--replay FILE | --record FILE] [--trace FILE]
                  [--trace-dir DIR [--inspect]] [--price ALIAS=IN,OUT]... [--mcp ...] ...

PROVIDER is openai, anthropic, replay (MODEL is a replay file) or scripted
(MODEL is a JSON file of answers, see `ptclisp.providers.scripted_file`).  The first --model is
the default alias.  Exit codes are the classes of `ptclisp.exit_codes`
(`ptclisp.commands.operate.EXIT_CLASSES`): 0 ok, 2 bad arguments, 3 an invalid
document, 4 the provider is not ready, 5 the workflow or agent failed, 6 a
limit was hit, 7 the output could not be written (an --mcp server that
cannot be started is class 4).  Every run ends with a one-line usage
summary (calls, tokens, cost) on stderr.
Imports the agent host and the providers (lazily), jsonout (every JSON it
writes, docs/json.md), ptclisp.commands.operate (exit classes, failure detail,
--envelope/--output), ptclisp.commands.trace_flags (--trace-dir, --inspect, --price,
the usage summary), ptclisp.commands.mcp_flags (the --mcp flags) and
ptclisp.commands.common (`UsageError`, file reading, the --tools loader).  Only
command modules import this one: `main.py` and `project.py` of ptclisp/commands/, and
the entry point ptclisp/agent/__main__.py.
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import threading
import time

from .. import exit_codes as X
from ..errors import PtcError
from ..interchange.json_out import JsonValueError, dumps, write_json
from ..trace.usage import usage_record
from . import operate
from .common import UsageError, load_tools, read_text
from .operate import CommandFailure, DocumentError, NotReady
from .trace_flags import add_trace_flags, print_summary, prices_from_args, writer_from_args


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="ptclisp agent", formatter_class=argparse.RawDescriptionHelpFormatter,
        description="Answer a task with a model that writes PTC-Lisp programs over your data.",
        epilog=operate.EXIT_CLASSES)
    p.add_argument("task_text", nargs="?", metavar="TASK", help="the task, in plain words")
    p.add_argument("--model", action="append", default=[], metavar="ALIAS=PROVIDER:MODEL",
                   help="a model alias (repeatable; the first is the default). PROVIDER: openai, anthropic, "
                        "replay (MODEL = replay file) or scripted (MODEL = JSON file of answers); "
                        "e.g. fast=openai:gpt-4o-mini")
    p.add_argument("--data", metavar="FILE.json",
                   help="JSON file holding an object; each key becomes data/<key> for the model's programs")
    p.add_argument("--tools", action="append", default=[], metavar="module:attr",
                   help="grant Python tools to the model's programs: a dict name -> callable/ptclisp.Tool "
                        "or a list of ptclisp.Tool (repeatable; the current directory is importable)")
    p.add_argument("--prelude", "--mission-prelude", dest="prelude", action="append", default=[],
                   metavar="FILE", help="a prelude whose exports the model's programs may call (repeatable)")
    p.add_argument("--max-turns", type=int, metavar="N", help="model turns before the run gives up (default 4)")
    p.add_argument("--schema", "--result-schema", dest="schema", metavar="FILE.json",
                   help="JSON Schema the returned value must satisfy (the result contract)")
    source = p.add_mutually_exclusive_group()
    source.add_argument("--replay", metavar="FILE",
                        help="serve every model from this replay file; nothing goes over the network and "
                             "a request the file does not hold is a not_found provider failure")
    source.add_argument("--record", metavar="FILE",
                        help="call the models as usual and add every answer to this replay file (answers "
                             "already in FILE are kept; the file is rewritten atomically after each answer)")
    p.add_argument("--trace", metavar="FILE",
                   help="write the run to one JSON Lines file (whole requests and responses, evaluations, "
                        "outcome); credentials are redacted; an existing FILE is overwritten. --trace-dir is "
                        "the structured alternative")
    add_trace_flags(p)
    extra = p.add_argument_group("more options")
    task = extra.add_mutually_exclusive_group()
    task.add_argument("--task", help="the task (instead of TASK)")
    task.add_argument("--input", metavar="FILE.json", help="the whole input map of the entry (JSON object)")
    task.add_argument("--eval", metavar="EXPR", help="evaluate a workflow expression instead of calling an entry")
    extra.add_argument("--workflow", action="append", default=[], metavar="FILE",
                       help="workflow prelude attached after the agent library (repeatable)")
    extra.add_argument("--entry", default="agent.main/run", help="workflow export to call (default agent.main/run)")
    extra.add_argument("--agent", metavar="FILE.json", help="agent config map (max_turns, model, ...)")
    extra.add_argument("--default-model", metavar="ALIAS", help="alias used when the config names none")
    extra.add_argument("--max-calls", action="append", default=[], metavar="ALIAS=N", help="per-alias call quota")
    extra.add_argument("--max-tokens", type=int, metavar="N", help="output token cap for openai/anthropic models")
    extra.add_argument("--replace", action="append", default=[], metavar="ID=FILE",
                       help="replace a shipped prelude, e.g. agent.prompt=my_prompt.clj")
    extra.add_argument("--policy", action="append", default=[], metavar="FILE",
                       help="a loop policy prelude: its exports render-feedback, render-prompt, project-context and compact are hooks of the agent loop, each with the shipped behaviour as fallback (repeatable; ptclisp docs agent)")
    extra.add_argument("--json", action="store_true", help="print a JSON record with ok, value, error and usage")
    operate.add_operation_flags(p)
    from .mcp_flags import add_mcp_flags
    add_mcp_flags(p)
    return p


# ------------------------------------------------------------------ inputs

def _read(path: str, what: str) -> str:
    return read_text(path, what + " ")


def load_json(arg: str | None, what: str, *, want_object: bool = True):
    """A JSON value named on the command line.

    `FILE` or `@FILE` reads a file; text starting with `{` is taken as
    inline JSON (a file name never starts with a brace, so this cannot be
    mistaken for one).
    """
    if arg is None:
        return None
    inline = arg.lstrip().startswith("{")
    text = arg if inline else _read(arg[1:] if arg.startswith("@") else arg, what)
    try:
        value = json.loads(text)
    except ValueError as e:
        raise UsageError(f"{what} {'(inline)' if inline else arg} is not valid JSON: {e}") from None
    if want_object and not isinstance(value, dict):
        raise UsageError(f"{what} must hold a JSON object, not a JSON {type(value).__name__}")
    return value


def _pairs(items, what, convert=str) -> dict:
    out = {}
    for item in items:
        key, sep, value = item.partition("=")
        if not sep or not key:
            raise UsageError(f"{what} expects KEY=VALUE, got {item!r}")
        try:
            out[key] = convert(value)
        except ValueError:
            raise UsageError(f"{what}: bad value in {item!r}") from None
    return out


def mission_capabilities(tool_specs) -> list:
    """`--tools module:attr` objects as mission capabilities (the loader of `ptclisp run --tools`)."""
    from ..agent.python_tools import capability_for
    from ..host.tools import Tool
    from ..agent.mission import Capability, as_capability
    tools = load_tools(list(tool_specs)) or {}
    caps = []
    for name, fn in tools.items():
        if isinstance(fn, Tool):
            caps.append(as_capability(fn) if fn.name == name else Capability(
                name, fn.fn, fn.description, fn.input_schema, None, fn.effect))
        else:
            caps.append(capability_for(name, fn))      # the argument schema from the signature and hints
    return caps


# ------------------------------------------------------------------ trace

def _secrets(env=None) -> list[str]:
    from ..trace.writer import env_secrets       # one rule for both trace forms
    return env_secrets(env)


class Trace:
    """A JSON Lines event log; every line passes through `providers.redact` with the environment's secrets.

    The file holds prompts, programs and values, so it is written owner-only (0600) like private
    evidence, also when it replaces an existing file."""

    def __init__(self, path: str, env=None):
        from ..providers import redact
        self._redact = redact
        self._secrets = _secrets(env)
        self._lock = threading.Lock()
        try:
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
            try:
                os.fchmod(fd, 0o600)            # an existing file keeps its mode otherwise
            except OSError:
                pass                            # not ours to change (another owner's writable file)
            self._file = os.fdopen(fd, "w", encoding="utf-8")  # noqa: SIM115 - closed by close()
        except OSError as e:
            raise UsageError(f"cannot write --trace {path}: {e.strerror or e}") from None

    def write(self, record: dict) -> None:
        """Append one record; PTC values in it are written by the rules of docs/json.md.

        A record holding something with no JSON form is written as its type
        and the reason instead (a trace line is never a guess).
        """
        try:
            line = dumps(record)
        except JsonValueError as e:
            kind = record.get("type") if isinstance(record.get("type"), str) else None
            line = dumps({"type": kind, "unencodable": e.message})
        line = self._redact(line, self._secrets)
        with self._lock:
            self._file.write(line + "\n")
            self._file.flush()

    def close(self) -> None:
        self._file.close()


class _Traced:
    """Writes each request and response (or provider failure) of one alias to the trace."""

    def __init__(self, alias: str, inner, trace: Trace):
        self.alias, self.inner, self.trace = alias, inner, trace
        self.kind = getattr(inner, "kind", "provider")

    def complete(self, request: dict) -> dict:
        from ..providers import LlmRequestError
        self.trace.write({"type": "request", "model": self.alias, "request": request})
        try:
            response = self.inner.complete(request)
        except LlmRequestError as e:
            self.trace.write({"type": "provider_error", "model": self.alias, "reason": e.reason,
                              "retryable": e.retryable, "details": e.details})
            raise
        self.trace.write({"type": "response", "model": self.alias, "response": response})
        return response

    def close(self) -> None:
        if hasattr(self.inner, "close"):
            self.inner.close()


class _SharedRecording:
    """One replay file written by every alias: each alias's provider is wrapped by `wrap`."""

    def __init__(self, path: str):
        from ..providers import RecordingProvider, ReplayLoadError
        self._lock = threading.Lock()
        self._current = None
        directory = os.path.dirname(os.path.abspath(path))
        if not os.path.isdir(directory) or not os.access(directory, os.W_OK):
            raise UsageError(f"--record {path}: cannot write in {directory}")
        try:
            self._recorder = RecordingProvider(self, path)
        except ReplayLoadError as e:
            raise UsageError(f"--record {path}: {e}") from None

    def complete(self, request):            # the recorder's inner provider: the alias being called
        return self._current.complete(request)

    def wrap(self, inner):
        from ..providers import declared_window
        outer = self

        class Tap:
            kind = getattr(inner, "kind", "provider")
            context_window, max_tokens = declared_window(inner)     # what the host holds requests to

            def complete(self, request):
                with outer._lock:            # one call at a time, so the recorder sees the right inner
                    outer._current = inner
                    return outer._recorder.complete(request)

            def close(self):
                if hasattr(inner, "close"):
                    inner.close()

        return Tap()


def build_router(model_specs, *, replay: str | None = None, record: str | None = None,
                 trace: Trace | None = None, default: str | None = None, max_calls: dict | None = None,
                 max_tokens: int | None = None, env=None, provider_options: dict | None = None,
                 alias_options: dict | None = None, text_protocol: bool = False, base_dir: str | None = None,
                 context_windows: dict | None = None):
    """The ModelRouter for the command line's --model specs.

    `model_specs` are `ALIAS=PROVIDER:MODEL` strings or (alias, ModelSpec)
    pairs.  With `replay` every alias answers from that one file (no
    provider is built, so no network or key is needed); with no --model at
    all the single alias is "main".  With `record` each live provider is
    wrapped so all aliases write one replay file.  `trace` logs requests and
    responses.  `provider_options` (timeouts, retries, the run's deadline)
    go to every HTTP provider, `alias_options[alias]` (temperature,
    max_tokens, api_key, ...) to that alias's; `text_protocol` wraps each
    provider in `ptclisp.agent.textprotocol.TextProtocol`.  `base_dir` resolves
    relative replay and script files (a project's directory).
    `context_windows[alias]` (tokens) declares that alias's context window;
    an alias served from a replay file keeps the window (and max_tokens) the
    live model would have had, so a replayed run compacts as the recorded one.

    A replay or script file that cannot be read is a UsageError naming the
    file and the reason; one that breaks its format is a DocumentError.
    """
    from ..providers import ModelRouter, ModelSpec, ReplayLoadError, ReplayProvider, build_provider
    from ..providers.scripted_file import load_script
    specs = parse_models(model_specs)
    if not specs:
        if replay is None:
            raise UsageError("give at least one --model ALIAS=PROVIDER:MODEL (or --replay FILE)")
        specs = [("main", ModelSpec("replay", replay))]
    aliases = [a for a, _ in specs]
    for a in aliases:
        if aliases.count(a) > 1:
            raise UsageError(f"--model alias {a!r} is given twice")

    def where(path):
        return path if base_dir is None or os.path.isabs(path) else os.path.join(base_dir, path)

    shared = _replay_provider(where(replay), "--replay") if replay is not None else None
    recording = _SharedRecording(record) if record is not None else None
    providers = {}
    for alias, spec in specs:
        window = (context_windows or {}).get(alias)
        if shared is not None or spec.provider == "replay":
            provider = shared if shared is not None else _replay_provider(where(spec.model),
                                                                          f"--model {alias}=replay:")
            provider = _replay_window(provider, spec, window, max_tokens, (alias_options or {}).get(alias, {}))
        else:
            options = {} if window is None else {"context_window": window}
            if spec.provider in ("openai", "anthropic"):
                options.update(provider_options or {})
                if max_tokens:
                    options["max_tokens"] = max_tokens
            options.update((alias_options or {}).get(alias, {}))
            scripts = {spec.model: load_script(where(spec.model))} if spec.provider == "scripted" else None
            try:
                provider = build_provider(spec, env=env, scripts=scripts, **options)
            except ReplayLoadError as e:
                raise DocumentError(f"model {alias}: {e}", e.rule) from None
            if recording is not None:
                provider = recording.wrap(provider)
        if text_protocol:
            from ..agent.textprotocol import TextProtocol
            provider = TextProtocol(provider)
        providers[alias] = _Traced(alias, provider, trace) if trace is not None else provider
    return ModelRouter(providers, default=default or aliases[0], max_calls=max_calls or None)


def _replay_window(provider, spec, window, max_tokens, alias_options: dict):
    """A replay provider standing for `spec`'s model, with the context window and output cap that model
    would have had live (declared, or the table's for a known openai/anthropic model), when it has one."""
    from ..providers import DeclaredWindow, known_context_window
    live = spec.provider in ("openai", "anthropic")
    window = window if window is not None else known_context_window(spec.model) if live else None
    if window is None:
        return provider
    cap = alias_options.get("max_tokens") or (max_tokens if live else None)
    if cap is None and spec.provider == "anthropic":
        from ..providers.anthropic import ADAPTER_DEFAULT_MAX_TOKENS
        cap = ADAPTER_DEFAULT_MAX_TOKENS
    return DeclaredWindow(provider, window, cap)


def parse_models(model_specs) -> list:
    """(alias, ModelSpec) pairs of `ALIAS=PROVIDER:MODEL` strings (pairs pass through)."""
    from ..providers import parse_alias_spec
    return [item if isinstance(item, tuple) else parse_alias_spec(item) for item in model_specs]


def _replay_provider(path: str, what: str):
    """A ReplayProvider for `path`: an unreadable file names the file and the OS reason (exit 2), a file
    that breaks the fixture format names the file, line and rule (exit 3)."""
    from ..providers import ReplayLoadError, ReplayProvider
    try:
        with open(path, "rb"):
            pass
    except OSError as e:
        raise UsageError(f"cannot read {what}{' ' if what.startswith('--replay') else ''}{path}: "
                         f"{e.strerror or e}") from None
    try:
        return ReplayProvider(path)
    except ReplayLoadError as e:
        raise DocumentError(f"{what}{' ' if what.startswith('--replay') else ''}{path}: {e}", e.rule) from None


def load_schema(arg: str | None, what: str = "--schema") -> dict | None:
    """The JSON Schema named by `arg` (file, @file or inline JSON), checked to be a valid schema.

    Unreadable: UsageError; not JSON, not an object or not a valid JSON
    Schema: DocumentError "--schema FILE is not a valid JSON Schema: ...".
    """
    if arg is None:
        return None
    import jsonschema
    try:
        schema = load_json(arg, what)
    except UsageError as e:
        if "is not valid JSON" in str(e) or "must hold a JSON object" in str(e):
            raise DocumentError(str(e), "schema_invalid") from None
        raise
    name = "(inline)" if arg.lstrip().startswith("{") else arg
    try:
        jsonschema.validators.validator_for(schema, default=jsonschema.Draft202012Validator).check_schema(schema)
    except jsonschema.SchemaError as e:
        at = "/".join(str(p) for p in e.absolute_path)
        raise DocumentError(f"{what} {name} is not a valid JSON Schema: {e.message}"
                            + (f" (at /{at})" if at else ""), "schema_invalid") from None
    return schema


# ------------------------------------------------------------------ exit codes and output

def exit_code(error, *, deadline_hit: bool = False) -> int:
    """The exit class of a run's error (`ptclisp.commands.operate.exit_class`)."""
    return operate.exit_class(error, deadline_hit=deadline_hit)


def error_record(err, result=None) -> dict | None:
    """The `error` member of a --json record: kind, reason, message, details (and line/column when known)."""
    if err is None:
        return None
    rec = {"kind": err.kind, "reason": err.reason, "message": err.message, "details": err.details}
    span = result.error.span if result is not None and result.error is not None else None
    if span is not None:
        rec["line"], rec["column"] = span.line, span.col
    return rec


_error_record = error_record


class RunKit:
    """What one agent-running command assembled: the host, its traces, its prices and the clock.

    `run(action, run_record)` evaluates `action()` with the --trace file's
    run and outcome records around it and closes everything; `finish(...)`
    then reports through `ptclisp.commands.operate.finish` with the exit class (the
    envelope's `usage` is the usage record of `ptclisp.trace.usage`, the
    --json record names the --trace-dir run) and prints the one-line usage
    summary on stderr.
    """

    def __init__(self, host, trace, started: float, writer=None, prices=None):
        self.host, self.trace = host, trace
        self.writer = writer            # the --trace-dir TraceWriter (None without it)
        self.prices = prices            # the PriceBook behind the usage record's cost
        self.started = started          # before the providers took their deadline from the clock

    def run(self, action, run_record: dict):
        return _traced(self.host, self.trace, run_record, action)

    @property
    def deadline_hit(self) -> bool:
        """Has the run's overall time limit passed (so a provider timeout is the limit, exit 6)?"""
        ms = self.host.limits.workflow_timeout_ms
        return (time.monotonic() - self.started) * 1000 >= ms * 0.99

    def trace_record(self) -> dict:
        """{"trace": {"dir", "run_id"}} when the run was traced with --trace-dir, else {}."""
        return _trace_record(self.writer)

    def finish(self, prog: str, args, out, **kw) -> int:
        run = self.writer.last_run if self.writer is not None else None
        keep = run.keep_envelope if run is not None else None   # DIR/<run>/envelope.json
        code = operate.finish(prog, args, out, usage=usage_record(out.usage), deadline_hit=self.deadline_hit,
                              keep_envelope=keep, **kw)
        print_summary(prog, out.usage, self.writer)
        return code


def _trace_record(writer) -> dict:
    run = writer.last_run if writer is not None else None
    return {"trace": {"dir": writer.directory, "run_id": run.run_id}} if run is not None else {}


def open_kit(args, make_host, *, env=None, command: str = "agent", project_prices=None):
    """Check --output, read --env-file, open --trace and --trace-dir, price the models, and build the host
    with `make_host(trace, env, writer, prices)` (it passes `writer` and `prices` to AgentHost as `trace=`
    and `prices=`); raises UsageError / CommandFailure (the trace is closed again on failure).

    `command` names the run in the trace directory; `project_prices` ({alias: {input, output, ...}}, a
    project file's) come between the package's price table and --price.
    """
    started = time.monotonic()
    operate.check_output_target(getattr(args, "output", None))
    env = operate.environment(getattr(args, "env_file", None)) if env is None else env
    prices = prices_from_args(args, project_prices)
    writer = writer_from_args(args, command, env=env)
    trace = Trace(args.trace, env) if getattr(args, "trace", None) else None
    try:
        host = make_host(trace, env, writer, prices)
    except BaseException:
        if trace is not None:
            trace.close()
        raise
    return RunKit(host, trace, started, writer, prices)


def setup_errors(exc: BaseException, prog: str = "ptclisp agent") -> Exception:
    """A setup exception as UsageError / CommandFailure with one clear line (None: not ours to map).

    An --mcp (or project [mcp]) server that cannot be started is NotReady (exit 4)."""
    from .mcp_flags import MCPStartError
    from ..prelude import PreludeError
    from ..providers import ModelSpecError
    if isinstance(exc, (UsageError, CommandFailure)):
        return exc
    if isinstance(exc, MCPStartError):
        return NotReady(str(exc), "mcp_start_failed")
    if isinstance(exc, PreludeError):
        return DocumentError(f"Error ({exc.kind}): {exc.message}" + (f" at {exc.span}" if exc.span else ""),
                             exc.kind)
    if isinstance(exc, ModelSpecError):
        return UsageError(str(exc))
    if isinstance(exc, (ValueError, TypeError)):
        return UsageError(str(exc))
    return None


# ------------------------------------------------------------------ ptclisp agent

PROG = "ptclisp agent"


def cli_main(argv=None) -> int:
    """Run `ptclisp agent` with `argv` (without the program name); returns the exit code."""
    try:
        args = build_parser().parse_args(argv)
    except SystemExit as e:         # --help (0) or a usage error argparse already printed (2)
        return e.code if isinstance(e.code, int) else X.USAGE
    if args.task_text is not None:
        if args.task is not None or args.input is not None or args.eval is not None:
            return operate.usage_failure(PROG, args, UsageError("give the task once: as TASK, --task, --input or "
                                                                "--eval"))
        args.task = args.task_text
    if args.task is None and args.input is None and args.eval is None:
        return operate.usage_failure(PROG, args, UsageError(
            'give a TASK, e.g. ptclisp agent "Which region sold most?" --data orders.json --model ...'))
    from .mcp_flags import MCPStartError, open_mcp_tools
    try:
        with open_mcp_tools(args) as mcp:
            return _run_agent(args, list(mcp))
    except (UsageError, MCPStartError) as e:    # a bad --mcp flag (2), a server that cannot start (4)
        return operate.usage_failure(PROG, args, setup_errors(e))


def _run_agent(args, mcp_tools) -> int:
    try:
        kit = open_kit(args, lambda trace, env, writer, prices: _setup(args, trace, env, mcp_tools, writer, prices))
        entry_input = _input(args) if args.eval is None else None
    except Exception as e:  # noqa: BLE001 - mapped to a class below, or re-raised as a bug
        mapped = setup_errors(e)
        if mapped is None:
            raise
        return operate.usage_failure(PROG, args, mapped)
    host = kit.host

    def action():
        for replayed in _replay_files(args):
            print(f"ptclisp agent: replaying recorded answers from {replayed} (no model is called)",
                  file=sys.stderr)
        return host.eval(args.eval) if args.eval is not None else host.run_entry(args.entry, entry_input)

    out = kit.run(action, {"task": args.task, "entry": args.entry if args.eval is None else None,
                           "models": _describe_models(args), "replay": args.replay, "record": args.record})
    return _report(out, args, kit)


def _traced(host, trace, run_record: dict, action):
    """Run `action()`, writing the run and outcome records to the trace; closes the host and the trace."""
    try:
        if trace is not None:
            trace.write({"type": "run", **run_record})
        out = action()
        if trace is not None:
            err = out.json_error
            trace.write({"type": "outcome", "ok": err is None, "value": out.value if err is None else None,
                         "error": _error_record(err), "usage": out.usage})
        return out
    finally:
        host.close()
        if trace is not None:
            trace.close()


def _replay_files(args) -> list[str]:
    if args.replay:
        return [args.replay]
    return sorted({spec.model for _, spec in parse_models(args.model) if spec.provider == "replay"})


def _describe_models(args) -> dict:
    try:
        return {alias: str(spec) for alias, spec in parse_models(args.model)} or {"main": "replay"}
    except ValueError:
        return {}


def _components(paths, what: str) -> list:
    """Prelude files as loader Components named by their path, so a broken one is named in its error."""
    from ..prelude import Component
    return [Component(_read(p, what), p) for p in paths]


def _setup(args, trace, env=None, mcp_tools=(), writer=None, prices=None):
    from ..agent.host import AgentHost
    from ..agent.limits import AgentLimits
    from ..agent.mission import Mission
    data = _data(args.data)
    mission = Mission(data=data or {}, capabilities=mission_capabilities(args.tools) + list(mcp_tools),
                      preludes=_components(args.prelude, "--prelude"))
    from ..prelude import Component
    # every document is read and checked before the credentials: a broken --schema is exit 3 naming it,
    # whether or not a key is configured
    replace = {k: Component(_read(v, "--replace"), v) for k, v in _pairs(args.replace, "--replace").items()}
    workflow = _components(args.workflow, "--workflow")
    result_schema = load_schema(args.schema, "--schema")
    if args.replay is None:
        operate.check_credentials(dict(parse_models(args.model)), env if env is not None else os.environ)
    router = build_router(args.model, replay=args.replay, record=args.record, trace=trace,
                          default=args.default_model, max_calls=_pairs(args.max_calls, "--max-calls", int),
                          max_tokens=args.max_tokens, env=env,
                          provider_options=operate.provider_options(args, timeout_ms=args.timeout_ms),
                          text_protocol=args.text_protocol)
    limits = AgentLimits(workflow_timeout_ms=args.timeout_ms) if args.timeout_ms else None
    return AgentHost(router, {"default": mission}, workflow=workflow,
                     replace=replace, result_schema=result_schema, limits=limits,
                     policy=_components(args.policy, "--policy"),
                     on_event=trace.write if trace is not None else None, trace=writer, prices=prices)


def _data(path: str | None):
    if path is None:
        return None
    return load_json(path, "--data")


def _input(args) -> dict:
    if args.input is not None:
        return load_json(args.input, "--input")
    cfg = load_json(args.agent, "--agent") or {}
    if args.max_turns is not None:
        cfg["max_turns"] = args.max_turns
    return {"task": args.task, "agent": cfg}


def _report(out, args, kit: RunKit) -> int:
    def print_text(show_value):
        if show_value:
            write_json(sys.stdout, out.value, indent=2)     # nil is JSON null

    def record(err, code):
        return {"ok": err is None, "value": out.value if err is None else None, "error": error_record(err),
                "usage": out.usage, "exit_code": code, **kit.trace_record()}

    return kit.finish(PROG, args, out, print_text=print_text, record=record)


# ------------------------------------------------------------------ ptclisp run FILE --model ...

#: The flags of an agent run that `run_workflow_file` takes from `opts` (with these defaults).
_RUN_DEFAULTS = (("envelope", False), ("output", None), ("retries", operate.DEFAULT_RETRIES),
                 ("provider_timeout", operate.DEFAULT_PROVIDER_TIMEOUT_S), ("timeout_ms", None),
                 ("env_file", None), ("text_protocol", False), ("trace_dir", None), ("inspect", False),
                 ("price", ()))


def run_workflow_file(source: str, source_name: str, *, models=(), replay=None, record=None, trace_path=None,
                      data=None, tool_specs=(), preludes=(), as_json: bool = False, opts=None,
                      mcp_tools=()) -> int:
    """Run a workflow program (e.g. one calling agent.core/run-value) with models; returns the exit class.

    `data` becomes both the program's data/<name> and the default mission's
    data; `tool_specs` are granted to the default mission (the model's
    programs), and so are `mcp_tools` (ptclisp.Tool objects of --mcp
    servers); `preludes` are attached to the workflow after the agent
    library.  `opts` carries the operation flags (--envelope, --output,
    --retries, --provider-timeout, --timeout-ms, --env-file, --text-protocol)
    and the observability flags (--trace-dir, --inspect, --price).
    Prints the program's prints, then its value (or the error), then a
    one-line usage summary on stderr.
    """
    from ..agent.host import AgentHost
    from ..agent.limits import AgentLimits
    from ..agent.mission import Mission
    prog = "ptclisp run"
    args = argparse.Namespace(**vars(opts)) if opts is not None else argparse.Namespace()
    for name, default in _RUN_DEFAULTS:
        if getattr(args, name, None) is None:
            setattr(args, name, default)
    args.trace, args.json = trace_path, as_json

    def make_host(trace, env, writer, prices):
        if replay is None:
            operate.check_credentials(dict(parse_models(models)), env)
        router = build_router(list(models), replay=replay, record=record, trace=trace, env=env,
                              provider_options=operate.provider_options(args, timeout_ms=args.timeout_ms),
                              text_protocol=args.text_protocol)
        mission = Mission(data=data or {}, capabilities=mission_capabilities(tool_specs) + list(mcp_tools))
        limits = AgentLimits(workflow_timeout_ms=args.timeout_ms) if args.timeout_ms else None
        return AgentHost(router, {"default": mission}, workflow=_components(preludes, "--prelude"), limits=limits,
                         policy=_components(getattr(args, "policy", None) or (), "--policy"),
                         on_event=trace.write if trace is not None else None, trace=writer, prices=prices)

    try:
        kit = open_kit(args, make_host, command="run")
    except Exception as e:  # noqa: BLE001 - mapped to a class below, or re-raised as a bug
        mapped = setup_errors(e, prog)
        if mapped is None:
            raise
        return operate.usage_failure(prog, args, mapped)
    return run_workflow_source(kit, args, source, source_name, data,
                               {"file": source_name, "models": list(models), "replay": replay, "record": record})


def run_workflow_source(kit: RunKit, args, source: str, source_name: str, data, run_record: dict,
                        prog: str = "ptclisp run") -> int:
    """Evaluate a workflow program in `kit`'s host and report it as every agent-running command does: the
    value as indented JSON on stdout (docs/json.md), the program's prints on stderr, so stdout is the value
    alone (--json: the run record of `ptclisp.commands.operate.run_record`, with the --trace-dir run). A plain
    program (`ptclisp run FILE` without a model) prints Lisp notation instead."""
    from .. import api
    from ..interchange.python import from_python
    host = kit.host

    def action():
        session = host.session()
        if data:
            session.env.context = from_python(data)
        return session.eval(source)

    out = kit.run(action, run_record)

    def print_text(show_value):
        for line in out.prints:                 # stderr, as run DIR: stdout is the value alone
            print(line, file=sys.stderr)
        if show_value:
            try:
                write_json(sys.stdout, out.value, indent=2)
            except PtcError as pe:   # a value too widely shared to write out
                print(f"Error ({pe.kind}): {pe.message}", file=sys.stderr)

    def record(err, code):
        res = out.result
        status = res.status if res is not None else ("ok" if err is None else "error")
        if err is not None and status in ("ok", "returned"):
            status = "error"                        # a value with no JSON form
        value = out.value if err is None else (operate.json_value(out.raw) if status == "failed" else None)
        return {**operate.run_record(status=status, value=value, prints=out.prints, error=error_record(err, res),
                                     duration_ms=res.duration_ms if res is not None else None, usage=out.usage,
                                     exit_code=code), **kit.trace_record()}

    res = out.result
    span = res.error.span if res is not None and res.error is not None else None
    where = f"{source_name}:{span.line}:{span.col}: " if span else f"{source_name}: "
    return kit.finish(prog, args, out, print_text=print_text, record=record, where=where)
