"""`ptclisp agent ...`: run the agent library from the command line.

Owns `cli_main(argv) -> exit code` and `build_parser()`.  The lead wires it
into `ptclisp/cli.py` as the `agent` subcommand; until then it runs as
`python -m ptclisp.agent ...`.

    ptclisp agent "Sum data/xs" --model m=openai:gpt-4o-mini --data '{"xs": [1, 2, 3]}'
    ptclisp agent --model m=replay:fixture.jsonl --input @input.json --result-schema @schema.json
    ptclisp agent "..." --workflow app.clj --entry app.agent/solve --model m=anthropic:claude-sonnet-4-5
    ptclisp agent --model m=openai:gpt-4o-mini --eval '(agent.core/run-outcome "task" {"max_turns" 4})'

Exit codes: 0 success; 1 workflow failure; 2 bad command line or invalid
agent config; 6 a limit ended the run (turns, transcript, output
truncation, model-call quota); 7 result contract not met.
Output: the final value as JSON on stdout (with --json: a record with ok,
value, error and usage); the error on stderr.  Imports the agent host and
the provider specs.
"""
from __future__ import annotations

import argparse
import json
import sys

EXIT_OK, EXIT_FAILED, EXIT_USAGE, EXIT_LIMIT, EXIT_CONTRACT = 0, 1, 2, 6, 7
_LIMIT_REASONS = {"runtime_limit_exceeded", "model_output_truncated", "capability_quota"}


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="ptclisp agent", description="Run the PTC-Lisp agent loop against a model.")
    p.add_argument("task_text", nargs="?", metavar="TASK", help="the task text (same as --task)")
    p.add_argument("--workflow", action="append", default=[], metavar="FILE",
                   help="workflow prelude attached after the agent library (repeatable)")
    p.add_argument("--model", action="append", default=[], metavar="ALIAS=PROVIDER:MODEL",
                   help="a model alias (repeatable); providers: openai, anthropic, replay (MODEL = fixture path)")
    p.add_argument("--default-model", metavar="ALIAS", help="alias used when the config names none")
    p.add_argument("--max-calls", action="append", default=[], metavar="ALIAS=N", help="per-alias call quota")
    p.add_argument("--max-tokens", type=int, help="output token cap passed to HTTP providers")
    task = p.add_mutually_exclusive_group()
    task.add_argument("--task", help="the task text (input {\"task\": TEXT, \"agent\": CONFIG})")
    task.add_argument("--input", metavar="JSON|@FILE", help="the whole input map of the entry")
    task.add_argument("--eval", metavar="EXPR", help="evaluate a workflow expression instead of calling an entry")
    p.add_argument("--entry", default="agent.main/run", help="workflow export to call (default agent.main/run)")
    p.add_argument("--agent", metavar="JSON|@FILE", help="agent config map (max_turns, model, ...)")
    p.add_argument("--max-turns", type=int, help="shortcut for the agent config's max_turns")
    p.add_argument("--data", metavar="JSON|@FILE", help="mission data: an object whose keys become data/<key>")
    p.add_argument("--mission-prelude", action="append", default=[], metavar="FILE",
                   help="prelude attached to the default mission (repeatable)")
    p.add_argument("--result-schema", metavar="JSON|@FILE", help="JSON Schema the final value must satisfy")
    p.add_argument("--replace", action="append", default=[], metavar="ID=FILE",
                   help="replace a shipped prelude, e.g. agent.prompt=my_prompt.clj")
    p.add_argument("--trace", metavar="FILE", help="write every event as a JSON line to FILE")
    p.add_argument("--json", action="store_true", help="print a JSON record with ok, value, error and usage")
    return p


def _json_arg(text: str | None, what: str):
    if text is None:
        return None
    try:
        if text.startswith("@"):
            with open(text[1:], encoding="utf-8") as f:
                return json.load(f)
        return json.loads(text)
    except (OSError, ValueError) as e:
        raise SystemExit(_usage(f"{what}: {e}")) from None


def _usage(msg: str) -> int:
    print(f"ptclisp agent: {msg}", file=sys.stderr)
    return EXIT_USAGE


def _pairs(items, what, convert=str) -> dict:
    out = {}
    for item in items:
        key, sep, value = item.partition("=")
        if not sep or not key:
            raise SystemExit(_usage(f"{what} expects KEY=VALUE, got {item!r}"))
        try:
            out[key] = convert(value)
        except ValueError:
            raise SystemExit(_usage(f"{what}: bad value in {item!r}")) from None
    return out


def _read(path: str) -> str:
    try:
        with open(path, encoding="utf-8") as f:
            return f.read()
    except OSError as e:
        raise SystemExit(_usage(f"cannot read {path}: {e.strerror}")) from None


def exit_code(error) -> int:
    if error is None:
        return EXIT_OK
    if error.reason == "result_contract_failed":
        return EXIT_CONTRACT
    if error.reason in _LIMIT_REASONS:
        return EXIT_LIMIT
    if error.reason == "invalid_agent_config" or error.details.get("failure_kind") == "invalid-agent-config":
        return EXIT_USAGE
    return EXIT_FAILED


def cli_main(argv=None) -> int:
    """Run `ptclisp agent` with `argv` (without the program name); returns the exit code."""
    from ..prelude import PreludeError
    from ..providers import ModelSpecError, router_from_specs
    from .host import AgentHost
    from .mission import Mission

    args = build_parser().parse_args(argv)
    if args.task_text is not None:
        if args.task is not None or args.input is not None or args.eval is not None:
            return _usage("give the task once: as TASK, --task, --input or --eval")
        args.task = args.task_text
    try:
        return _run(args, AgentHost, Mission, router_from_specs)
    except SystemExit as e:
        return int(e.code) if isinstance(e.code, int) else EXIT_USAGE
    except (ModelSpecError, PreludeError, ValueError, TypeError) as e:
        return _usage(str(e))


def _run(args, AgentHost, Mission, router_from_specs) -> int:
    from ..providers import parse_alias_spec
    if not args.model:
        return _usage("at least one --model ALIAS=PROVIDER:MODEL is required")
    options = {"max_tokens": args.max_tokens} if args.max_tokens else {}
    provider_options = {}
    for text in args.model:
        alias, spec = parse_alias_spec(text)
        if spec.provider in ("openai", "anthropic"):
            provider_options[alias] = options
    router = router_from_specs(args.model, default=args.default_model,
                               max_calls=_pairs(args.max_calls, "--max-calls", int) or None,
                               provider_options=provider_options)
    data = _json_arg(args.data, "--data")
    if data is not None and not isinstance(data, dict):
        return _usage("--data must be a JSON object")
    mission = Mission(data=data or {}, preludes=[_read(p) for p in args.mission_prelude])
    replace = {k: _read(v) for k, v in _pairs(args.replace, "--replace").items()}
    trace = open(args.trace, "a", encoding="utf-8") if args.trace else None  # noqa: SIM115 - closed below

    def on_event(event):
        if trace is not None:
            trace.write(json.dumps(event, ensure_ascii=False, default=str) + "\n")

    try:
        host = AgentHost(router, {"default": mission}, workflow=[_read(p) for p in args.workflow],
                         replace=replace, result_schema=_json_arg(args.result_schema, "--result-schema"),
                         on_event=on_event)
        if args.eval is not None:
            out = host.eval(args.eval)
        else:
            out = host.run_entry(args.entry, _input(args))
        host.close()
    finally:
        if trace is not None:
            trace.close()
    return _report(out, args.json)


def _input(args) -> dict:
    if args.input is not None:
        value = _json_arg(args.input, "--input")
        if not isinstance(value, dict):
            raise SystemExit(_usage("--input must be a JSON object"))
        return value
    if args.task is None:
        raise SystemExit(_usage("give a TASK, --input or --eval"))
    cfg = _json_arg(args.agent, "--agent") or {}
    if not isinstance(cfg, dict):
        raise SystemExit(_usage("--agent must be a JSON object"))
    if args.max_turns is not None:
        cfg["max_turns"] = args.max_turns
    return {"task": args.task, "agent": cfg}


def _report(out, as_json: bool) -> int:
    err = out.error
    if as_json:
        record = {"ok": out.ok, "value": out.value,
                  "error": None if err is None else {"kind": err.kind, "reason": err.reason,
                                                     "message": err.message, "details": err.details},
                  "usage": out.usage}
        print(json.dumps(record, ensure_ascii=False, default=str))
    elif out.ok:
        print(json.dumps(out.value, ensure_ascii=False, indent=2) if out.value is not None else "nil")
    if err is not None:
        print(f"Error ({err.kind}/{err.reason}): {err.message}", file=sys.stderr)
        if err.details:
            print(json.dumps(err.details, ensure_ascii=False, default=str), file=sys.stderr)
    return exit_code(err)
