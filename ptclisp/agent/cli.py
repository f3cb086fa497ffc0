"""`ptclisp agent ...`, and the agent side of `ptclisp run FILE --model ...`.

Owns `cli_main(argv) -> exit code` (the `agent` subcommand), `build_parser()`,
`run_workflow_file(...)` (what `ptclisp run` calls when a model flag is given),
`build_router(...)` (model specs plus --replay / --record / --trace wrapping),
`load_script` (answers of a `scripted:FILE` model) and `Trace` (the redacted
JSON Lines event log).

    ptclisp agent "TASK" [--model ALIAS=PROVIDER:MODEL]... [--data FILE] [--tools module:attr]...
                  [--mcp NAME=COMMAND ARGS... | --mcp NAME=URL]...
                  [--prelude FILE]... [--max-turns N] [--schema FILE.json]
                  [--replay FILE | --record FILE] [--trace FILE]
                  [--trace-dir DIR [--inspect]] [--price ALIAS=IN,OUT]...
    ptclisp run agent.clj --model ALIAS=PROVIDER:MODEL [--replay FILE | --record FILE] [--trace FILE]
                  [--trace-dir DIR [--inspect]] [--price ALIAS=IN,OUT]...

PROVIDER is openai, anthropic, replay (MODEL is a replay file) or scripted
(MODEL is a JSON file of answers, see `load_script`).  The first --model is
the default alias.  Exit codes: 0 the run returned a value; 1 the subject or
a provider failed (turn limit, provider failure, result contract not met,
a `fail` of the workflow, ...); 2 a host error (bad flags, unreadable or
invalid files, invalid agent config, an error in workflow code); 4 an --mcp
server could not be started.  Every run ends with a one-line usage summary
(calls, tokens, cost) on stderr.
Imports the agent host and the providers (lazily), jsonout (every JSON it
writes, docs/json.md) and ptclisp.cli_common (`UsageError`, file reading,
the --tools loader) and ptclisp.trace.cli (the --trace-dir, --inspect and
--price flags).  Only command-line modules import this one: the
top-level `ptclisp/cli.py` and this package's `__main__`.
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import threading

from ..cli_common import UsageError, load_tools, read_text
from ..jsonout import JsonValueError, dumps, write_json
from ..trace.cli import add_trace_flags, print_summary, prices_from_args, writer_from_args

EXIT_OK, EXIT_FAILED, EXIT_HOST = 0, 1, 2
#: Run failures that mean "the subject or a provider did not deliver" (exit 1); others are host errors.
_SUBJECT_REASONS = frozenset({"runtime_limit_exceeded", "model_output_truncated", "result_contract_failed",
                              "llm_provider_failed", "capability_quota", "explicit_failure"})


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="ptclisp agent",
        description="Answer a task with a model that writes PTC-Lisp programs over your data.",
        epilog="Exit 0: the value was printed. Exit 1: the agent or a provider failed (turn limit, provider "
               "failure, result contract). Exit 2: bad flags, unreadable files or invalid configuration.")
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
                        help="call the models as usual and write every answer to this replay file")
    p.add_argument("--trace", metavar="FILE",
                   help="write the run to one JSON Lines file (whole requests and responses, evaluations, "
                        "outcome); credentials are redacted. --trace-dir is the structured alternative")
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
    extra.add_argument("--json", action="store_true", help="print a JSON record with ok, value, error and usage")
    from ..mcp.cli import add_mcp_flags
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
    from ..tools import Tool
    from .mission import Capability, as_capability
    tools = load_tools(list(tool_specs)) or {}
    caps = []
    for name, fn in tools.items():
        if isinstance(fn, Tool):
            caps.append(as_capability(fn) if fn.name == name else Capability(
                name, fn.fn, fn.description, fn.input_schema, None, fn.effect))
        else:
            doc = (getattr(fn, "__doc__", None) or "").strip()
            caps.append(Capability(name, fn, description=doc.splitlines()[0] if doc else ""))
    return caps


def load_script(path: str) -> list:
    """The answers of a `scripted:FILE` model, in order.

    FILE holds a JSON list.  Each item is a program (a string: the answer
    calls run_ptc_lisp with it), `{"program": ..., "content": narration?}`,
    or a complete provider response (any other object).
    """
    try:
        items = json.loads(_read(path, "scripted model file"))
    except ValueError as e:
        raise UsageError(f"scripted model file {path} is not valid JSON: {e}") from None
    if not isinstance(items, list) or not items:
        raise UsageError(f"scripted model file {path} must hold a non-empty JSON list of answers")
    out = []
    for i, item in enumerate(items, start=1):
        if isinstance(item, dict) and "program" in item:
            item, content = item["program"], item.get("content")
        else:
            content = None
        if isinstance(item, str):
            out.append({"content": content, "finish_reason": "tool_calls",
                        "tool_calls": [{"id": f"call-{i}", "name": "run_ptc_lisp", "args": {"program": item}}]})
        elif isinstance(item, dict):
            out.append(item)
        else:
            raise UsageError(f"scripted model file {path}: answer {i} must be a program string or an object")
    return out


# ------------------------------------------------------------------ trace

def _secrets(env=None) -> list[str]:
    from ..trace.writer import env_secrets       # one rule for both trace forms
    return env_secrets(env)


class Trace:
    """A JSON Lines event log; every line passes through `providers.redact` with the environment's secrets."""

    def __init__(self, path: str, env=None):
        from ..providers import redact
        self._redact = redact
        self._secrets = _secrets(env)
        self._lock = threading.Lock()
        try:
            self._file = open(path, "w", encoding="utf-8")  # noqa: SIM115 - closed by close()
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
        outer = self

        class Tap:
            kind = getattr(inner, "kind", "provider")

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
                 max_tokens: int | None = None, env=None):
    """The ModelRouter for the command line's --model specs.

    With `replay` every alias answers from that one file (no provider is
    built, so no network or key is needed); with no --model at all the
    single alias is "main".  With `record` each live provider is wrapped so
    all aliases write one replay file.  `trace` logs requests and responses.
    """
    from ..providers import (ModelRouter, ModelSpec, ReplayLoadError, ReplayProvider, build_provider,
                             parse_alias_spec)
    specs = [parse_alias_spec(text) for text in model_specs]
    if not specs:
        if replay is None:
            raise UsageError("give at least one --model ALIAS=PROVIDER:MODEL (or --replay FILE)")
        specs = [("main", ModelSpec("replay", replay))]
    aliases = [a for a, _ in specs]
    for a in aliases:
        if aliases.count(a) > 1:
            raise UsageError(f"--model alias {a!r} is given twice")
    try:
        shared = ReplayProvider(replay) if replay is not None else None
        recording = _SharedRecording(record) if record is not None else None
        providers = {}
        for alias, spec in specs:
            if shared is not None:
                provider = shared
            else:
                options = {"max_tokens": max_tokens} if max_tokens and spec.provider in ("openai", "anthropic") \
                    else {}
                scripts = {spec.model: load_script(spec.model)} if spec.provider == "scripted" else None
                provider = build_provider(spec, env=env, scripts=scripts, **options)
                if recording is not None:
                    provider = recording.wrap(provider)
            providers[alias] = _Traced(alias, provider, trace) if trace is not None else provider
    except ReplayLoadError as e:
        raise UsageError(str(e)) from None
    return ModelRouter(providers, default=default or aliases[0], max_calls=max_calls or None)


# ------------------------------------------------------------------ exit codes and output

def exit_code(error) -> int:
    """0 without error; 1 for a subject or provider failure; 2 for a host error."""
    if error is None:
        return EXIT_OK
    if error.reason == "invalid_agent_config" or error.details.get("failure_kind") == "invalid-agent-config":
        return EXIT_HOST
    return EXIT_FAILED if error.reason in _SUBJECT_REASONS else EXIT_HOST


def _error_record(err) -> dict | None:
    if err is None:
        return None
    return {"kind": err.kind, "reason": err.reason, "message": err.message, "details": err.details}


def _print_error(err, prog: str) -> None:
    print(f"{prog}: Error ({err.kind}/{err.reason}): {err.message}", file=sys.stderr)
    if err.details:
        write_json(sys.stderr, err.details)


def _usage(msg: str, prog: str = "ptclisp agent") -> int:
    print(f"{prog}: {msg}", file=sys.stderr)
    return EXIT_HOST


# ------------------------------------------------------------------ ptclisp agent

def cli_main(argv=None) -> int:
    """Run `ptclisp agent` with `argv` (without the program name); returns the exit code."""
    try:
        args = build_parser().parse_args(argv)
    except SystemExit as e:         # --help (0) or a usage error argparse already printed (2)
        return e.code if isinstance(e.code, int) else EXIT_HOST
    if args.task_text is not None:
        if args.task is not None or args.input is not None or args.eval is not None:
            return _usage("give the task once: as TASK, --task, --input or --eval")
        args.task = args.task_text
    if args.task is None and args.input is None and args.eval is None:
        return _usage('give a TASK, e.g. ptclisp agent "Which region sold most?" --data orders.json --model ...')
    from ..exitcodes import PROVIDER_NOT_READY
    from ..mcp.cli import MCPStartError, open_mcp_tools
    try:
        with open_mcp_tools(args) as mcp:
            return _run_agent(args, list(mcp))
    except UsageError as e:
        return _usage(str(e))
    except MCPStartError as e:  # an --mcp server could not be started or listed
        _usage(str(e))
        return PROVIDER_NOT_READY


def _run_agent(args, mcp_tools) -> int:
    trace = None
    try:
        trace = Trace(args.trace) if args.trace else None
        writer = writer_from_args(args, "agent")
        host, entry_input = _setup(args, trace, mcp_tools, writer)
    except (UsageError, ValueError, TypeError) as e:  # ModelSpecError, PreludeError, contract schema: ValueErrors
        if trace is not None:
            trace.close()
        return _usage(str(e))

    def action():
        for replayed in _replay_files(args):
            print(f"ptclisp agent: replaying recorded answers from {replayed} (no model is called)",
                  file=sys.stderr)
        return host.eval(args.eval) if args.eval is not None else host.run_entry(args.entry, entry_input)

    out = _traced(host, trace, {"task": args.task, "entry": args.entry if args.eval is None else None,
                                "models": _describe_models(args), "replay": args.replay, "record": args.record},
                  action)
    code = _report(out, args.json, writer)
    print_summary("ptclisp agent", out.usage, writer)
    return code


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
    from ..providers import parse_alias_spec
    if args.replay:
        return [args.replay]
    return sorted({spec.model for _, spec in map(parse_alias_spec, args.model) if spec.provider == "replay"})


def _describe_models(args) -> dict:
    from ..providers import parse_alias_spec
    return {alias: str(spec) for alias, spec in map(parse_alias_spec, args.model)} or {"main": "replay"}


def _setup(args, trace, mcp_tools=(), writer=None, project_prices=None):
    from .host import AgentHost
    from .mission import Mission
    prices = prices_from_args(args, project_prices)
    data = _data(args.data)
    mission = Mission(data=data or {}, capabilities=mission_capabilities(args.tools) + list(mcp_tools),
                      preludes=[_read(p, "--prelude") for p in args.prelude])
    router = build_router(args.model, replay=args.replay, record=args.record, trace=trace,
                          default=args.default_model, max_calls=_pairs(args.max_calls, "--max-calls", int),
                          max_tokens=args.max_tokens)
    replace = {k: _read(v, "--replace") for k, v in _pairs(args.replace, "--replace").items()}
    host = AgentHost(router, {"default": mission}, workflow=[_read(p, "--workflow") for p in args.workflow],
                     replace=replace, result_schema=load_json(args.schema, "--schema"),
                     on_event=trace.write if trace is not None else None, trace=writer, prices=prices)
    return host, (_input(args) if args.eval is None else None)


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


def _trace_record(writer) -> dict:
    """{"trace": {"dir", "run_id"}} when the run was traced with --trace-dir, else {}."""
    run = writer.last_run if writer is not None else None
    return {"trace": {"dir": writer.directory, "run_id": run.run_id}} if run is not None else {}


def _report(out, as_json: bool, writer=None) -> int:
    err = out.json_error                    # a value with no JSON form is an error here, never a null
    if as_json:
        write_json(sys.stdout, {"ok": err is None, "value": out.value if err is None else None,
                                "error": _error_record(err), "usage": out.usage, **_trace_record(writer)})
    elif err is None:
        if out.value is None:
            print("nil")
        else:
            write_json(sys.stdout, out.value, indent=2)
    if err is not None:
        _print_error(err, "ptclisp agent")
    return exit_code(err)


# ------------------------------------------------------------------ ptclisp run FILE --model ...

def run_workflow_file(source: str, source_name: str, *, models=(), replay=None, record=None, trace_path=None,
                      data=None, tool_specs=(), preludes=(), as_json: bool = False, mcp_tools=(), trace_dir=None,
                      inspect: bool = False, prices=(), project_prices=None) -> int:
    """Run a workflow program (e.g. one calling agent.core/run-value) with models; returns the exit code.

    `data` becomes both the program's data/<name> and the default mission's
    data; `tool_specs` are granted to the default mission (the model's
    programs), `preludes` are attached to the workflow after the agent
    library; `mcp_tools` (ptclisp.Tool objects of --mcp servers) go to the
    default mission too.  Prints the program's prints, then its value (or the error),
    then a one-line usage summary on stderr.  `trace_dir`/`inspect` write the
    run's trace directory, `prices` are --price texts, `project_prices`
    {alias: {input, output, ...}} (a project file's).
    """
    from .. import api
    from ..convert import from_python
    from .host import AgentHost
    from .mission import Mission
    prog = "ptclisp run"
    trace = None
    flags = argparse.Namespace(trace_dir=trace_dir, inspect=inspect, price=list(prices or ()))
    try:
        trace = Trace(trace_path) if trace_path else None
        writer = writer_from_args(flags, "run")
        price_table = prices_from_args(flags, project_prices)
        router = build_router(list(models), replay=replay, record=record, trace=trace)
        mission = Mission(data=data or {}, capabilities=mission_capabilities(tool_specs) + list(mcp_tools))
        host = AgentHost(router, {"default": mission}, workflow=[_read(p, "--prelude") for p in preludes],
                         on_event=trace.write if trace is not None else None, trace=writer,
                         prices=price_table)
    except (UsageError, ValueError, TypeError) as e:
        if trace is not None:
            trace.close()
        return _usage(str(e), prog)

    def action():
        session = host.session()
        if data:
            session.env.context = from_python(data)
        return session.eval(source)

    out = _traced(host, trace, {"file": source_name, "models": list(models), "replay": replay, "record": record},
                  action)
    if as_json:
        err = out.json_error
        write_json(sys.stdout, {"ok": err is None, "value": out.value if err is None else None,
                                "prints": out.prints, "error": _error_record(err), "usage": out.usage,
                                **_trace_record(writer)})
    else:
        err = out.error                     # the value is printed in Lisp form: it needs no JSON form
        for line in out.prints:
            print(line)
        if out.ok:
            print(api.pr_str(out.raw))
    if err is not None:
        res = out.result
        span = res.error.span if res is not None and res.error is not None else None
        where = f"{source_name}:{span.line}:{span.col}: " if span else f"{source_name}: "
        print(f"{where}Error ({err.kind}/{err.reason}): {err.message}", file=sys.stderr)
        if err.details:
            write_json(sys.stderr, err.details)
    print_summary(prog, out.usage, writer)
    return exit_code(err)
