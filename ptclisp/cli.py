"""The `ptclisp` command: repl, run, eval, check, fmt.

    ptclisp repl  [--prelude FILE]... [--data FILE.json] [--tools module:attr]
    ptclisp run   FILE.clj [same flags] [--json]
                  [--model ALIAS=PROVIDER:MODEL]... [--replay FILE | --record FILE] [--trace FILE]
                  (a model flag runs FILE as an agent workflow: see ptclisp/agent/cli.py)
    ptclisp eval  EXPR     [same flags] [--json]
    ptclisp check FILE.clj...
    ptclisp fmt   FILE.clj... [--check] [--diff]

Exit codes. run/eval: 0 value or `return`, 1 `fail`, 2 error. check: 1 when
it found problems. fmt --check: 1 when a file would change. Any command: 2
for bad usage or unreadable input, 130 when interrupted. A user mistake
never shows a Python traceback (set PTCLISP_DEBUG=1 to see one for a bug).
"""
from __future__ import annotations

import argparse
import difflib
import importlib
import json
import os
import sys

from . import api
from .convert import to_python
from .meter import MAX_TIME_MS, Limits
from .printer import preview


class UsageError(Exception):
    """Bad arguments or unusable input files: one line on stderr, exit 2."""


# ---------------------------------------------------------------------- inputs

def _read_text(path: str, what: str = "") -> str:
    if path == "-":
        return sys.stdin.read()
    try:
        with open(path, encoding="utf-8") as fh:
            return fh.read()
    except OSError as exc:
        raise UsageError(f"cannot read {what}{path}: {exc.strerror or exc}") from None
    except UnicodeDecodeError as exc:
        raise UsageError(f"cannot read {what}{path}: not UTF-8 text ({exc.reason} at byte {exc.start})") from None


def load_data(path: str | None):
    """The --data file: a JSON object whose keys become data/<name>."""
    if not path:
        return None
    text = _read_text(path, "--data ")
    try:
        data = json.loads(text)
    except ValueError as exc:
        raise UsageError(f"--data {path} is not valid JSON: {exc}") from None
    if not isinstance(data, dict):
        raise UsageError(f"--data {path} must hold a JSON object (its keys become data/<name>), "
                         f"not a JSON {type(data).__name__}")
    return data


def load_tools(specs: list[str] | None):
    """Import each `module:attr` (a dict name -> callable or Tool, or a list of Tool) and merge them."""
    if not specs:
        return None
    from .tools import Tool
    merged: dict = {}
    for spec in specs:
        mod_name, sep, attr = spec.partition(":")
        if not sep or not mod_name or not attr:
            raise UsageError(f"--tools {spec}: expected module:attr, e.g. my_tools:TOOLS")
        if os.getcwd() not in sys.path and "" not in sys.path:
            sys.path.insert(0, os.getcwd())
        try:
            obj = importlib.import_module(mod_name)
        except ModuleNotFoundError as exc:
            if exc.name and (mod_name == exc.name or mod_name.startswith(exc.name + ".")):
                raise UsageError(f"--tools {spec}: no module named {mod_name!r} "
                                 f"(run from the directory that holds it, or set PYTHONPATH)") from None
            raise UsageError(f"--tools {spec}: importing {mod_name} failed: {exc}") from None
        except (Exception, SystemExit) as exc:  # noqa: BLE001 - the user's module raised while importing
            raise UsageError(f"--tools {spec}: importing {mod_name} failed: {type(exc).__name__}: {exc}") from None
        for part in attr.split("."):
            if not hasattr(obj, part):
                raise UsageError(f"--tools {spec}: {mod_name} has no attribute {attr!r}")
            obj = getattr(obj, part)
        if isinstance(obj, dict):
            for name, fn in obj.items():
                if not isinstance(name, str) or not (isinstance(fn, Tool) or callable(fn)):
                    raise UsageError(f"--tools {spec}: entry {name!r} must map a name to a callable or ptclisp.Tool")
                merged[name] = fn
        elif isinstance(obj, (list, tuple)):
            for t in obj:
                if not isinstance(t, Tool):
                    raise UsageError(f"--tools {spec}: a list of tools must hold ptclisp.Tool objects, "
                                     f"found {type(t).__name__}")
                merged[t.name] = t
        else:
            raise UsageError(f"--tools {spec}: expected a dict of tools or a list of ptclisp.Tool, "
                             f"found {type(obj).__name__}")
    return merged


def _repl_config(args):
    from .repl import ReplConfig
    return ReplConfig(preludes=list(args.prelude or []), data=load_data(args.data), tools=load_tools(args.tools),
                      limits=Limits(timeout_ms=args.timeout_ms),
                      preview_chars=getattr(args, "preview_chars", 2048))


def _session(args):
    from .repl.core import new_session
    return new_session(_repl_config(args))


# ---------------------------------------------------------------------- run / eval

def _report(result, as_json: bool, source: str, source_name: str) -> int:
    if as_json:
        rec = {"status": result.status, "prints": result.prints, "duration_ms": round(result.duration_ms, 3)}
        if result.error is not None:
            e = result.error
            rec["error"] = {"kind": e.kind, "message": e.message,
                            "line": e.span.line if e.span else None, "column": e.span.col if e.span else None}
        else:
            try:
                json.dumps(to_python(result.value))
                rec["value"] = to_python(result.value)
            except (TypeError, ValueError):
                rec["value"] = api.pr_str(result.value)
        print(json.dumps(rec, ensure_ascii=False))
    else:
        for line in result.prints:
            print(line)
        sys.stdout.flush()
        if result.status == "error":
            from .repl.core import caret_lines
            e = result.error
            where = f"{source_name}:{e.span.line}:{e.span.col}: " if e.span else f"{source_name}: "
            print(f"{where}Error ({e.kind}): {e.message}", file=sys.stderr)
            if e.span:
                for _, text in caret_lines(source, e.span):
                    print(text, file=sys.stderr)
        elif result.status == "failed":
            print(f"fail: {preview(result.value)}", file=sys.stderr)
        else:
            print(api.pr_str(result.value))
    return {"ok": 0, "returned": 0, "failed": 1}.get(result.status, 2)


def cmd_run(args) -> int:
    source = _read_text(args.file)
    if args.model or args.replay or args.record:  # an agent workflow: run it in the agent host's session
        from .agent.cli import run_workflow_file
        return run_workflow_file(source, args.file, models=args.model or (), replay=args.replay,
                                 record=args.record, trace_path=args.trace, data=load_data(args.data),
                                 tool_specs=args.tools or (), preludes=args.prelude or (), as_json=args.json)
    if args.trace:
        raise UsageError("--trace needs a model: add --model ALIAS=PROVIDER:MODEL or --replay FILE")
    session = _session(args)
    return _report(session.eval(source), args.json, source, args.file)


def cmd_eval(args) -> int:
    session = _session(args)
    return _report(session.eval(args.expr), args.json, args.expr, "<eval>")


# ---------------------------------------------------------------------- repl

def cmd_repl(args) -> int:
    from .repl import start
    if not 64 <= args.preview_chars <= 65536:
        raise UsageError("--preview-chars must be between 64 and 65536")
    return start(_repl_config(args))


# ---------------------------------------------------------------------- check

def cmd_check(args) -> int:
    from .analyzer import Env
    from .repl.check import check_source
    base = None
    if args.prelude or args.tools:
        env = _session(args).env
        base = Env(preludes=env.preludes, tools=env.tools.names() if args.tools else None)
    total = 0
    for path in args.files:
        problems = check_source(_read_text(path), base)
        for p in problems:
            print(p.render("<stdin>" if path == "-" else path))
        total += len(problems)
    if total:
        n = len(args.files)
        print(f"{total} problem{'s' * (total != 1)} in {n} file{'s' * (n != 1)}", file=sys.stderr)
    return 1 if total else 0


# ---------------------------------------------------------------------- fmt

def cmd_fmt(args) -> int:
    from .repl.formatter import FormatError, format_source
    changed = 0
    for path in args.files:
        text = _read_text(path)
        name = "<stdin>" if path == "-" else path
        try:
            out = format_source(text)
        except FormatError as exc:
            e = exc.error
            where = f"{name}:{e.span.line}:{e.span.col}" if e.span else name
            raise UsageError(f"{where}: cannot format: {e.kind}: {e.message}") from None
        if out == text:
            if path == "-" and not (args.check or args.diff):
                sys.stdout.write(out)
            continue
        changed += 1
        if args.diff:
            sys.stdout.writelines(difflib.unified_diff(text.splitlines(True), out.splitlines(True),
                                                       f"{name} (original)", f"{name} (formatted)"))
        if args.check:
            print(f"would reformat {name}", file=sys.stderr)
        elif path == "-":
            if not args.diff:
                sys.stdout.write(out)
        elif not args.diff:
            try:
                with open(path, "w", encoding="utf-8") as fh:
                    fh.write(out)
            except OSError as exc:
                raise UsageError(f"cannot write {path}: {exc.strerror or exc}") from None
            print(f"reformatted {name}", file=sys.stderr)
    return 1 if args.check and changed else 0


# ---------------------------------------------------------------------- parser

def _timeout_ms(text: str) -> int:
    """--timeout-ms: a whole number of milliseconds that `Limits.timeout_ms` accepts (a usage error otherwise)."""
    try:
        ms = int(text)
        Limits(timeout_ms=ms)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number of milliseconds from 1 to {MAX_TIME_MS}, "
                                         f"got {text[:40]!r}") from None
    return ms


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="ptclisp", description="PTC-Lisp: run, evaluate, explore, check and format programs.",
        epilog="Run 'ptclisp COMMAND --help' for a command's options. With no command on a terminal, "
               "ptclisp starts the REPL.")
    sub = p.add_subparsers(dest="command", metavar="COMMAND")

    def session_flags(sp, json_flag=True):
        sp.add_argument("--prelude", metavar="FILE", action="append",
                        help="attach a prelude file and its exports (repeatable)")
        sp.add_argument("--data", metavar="FILE.json", help="a JSON object whose keys become data/<name>")
        sp.add_argument("--tools", metavar="module:attr", action="append",
                        help="grant Python tools: a dict name -> callable/ptclisp.Tool, or a list of "
                             "ptclisp.Tool (repeatable; the current directory is importable)")
        sp.add_argument("--timeout-ms", type=_timeout_ms, default=5000, metavar="MS",
                        help="wall-clock limit per evaluation (default 5000)")
        if json_flag:
            sp.add_argument("--json", action="store_true",
                            help="print one JSON record: status, value or error, prints, duration")

    r = sub.add_parser("repl", help="interactive session (reads forms from stdin when it is not a terminal)",
                       description="Start an interactive PTC-Lisp session. Enter evaluates once the brackets "
                                   "balance; :help lists the commands. When stdin is not a terminal the forms "
                                   "are read from it and their results printed (exit 2 if any failed).")
    session_flags(r, json_flag=False)
    r.add_argument("--preview-chars", type=int, default=2048, metavar="N",
                   help="show at most N characters of each value (64-65536, default 2048)")
    r.set_defaults(func=cmd_repl)

    r = sub.add_parser("run", help="run a program file",
                       description="Run a PTC-Lisp program file and print its value. "
                                   "Exit 0 on a value or return, 1 on fail, 2 on an error.")
    r.add_argument("file", metavar="FILE.clj", help="program file ('-' reads stdin)")
    session_flags(r)
    agent_flags = r.add_argument_group(
        "agent workflows", "With --model, --replay or --record the file runs as an agent workflow (it may call "
        "agent.core/run-value ...): --data is data/<name> for both the file and the model's mission, --tools go "
        "to the mission (the model's programs), --prelude to the workflow. "
        "Exit 1 then means the agent or a provider failed.")
    agent_flags.add_argument("--model", metavar="ALIAS=PROVIDER:MODEL", action="append",
                             help="a model alias (repeatable; the first is the default), e.g. fast=openai:gpt-4o-mini")
    replay = agent_flags.add_mutually_exclusive_group()
    replay.add_argument("--replay", metavar="FILE", help="serve every model from this replay file (no network)")
    replay.add_argument("--record", metavar="FILE", help="write every model answer to this replay file")
    agent_flags.add_argument("--trace", metavar="FILE", help="JSON Lines log of the run, credentials redacted")
    r.set_defaults(func=cmd_run)

    e = sub.add_parser("eval", help="evaluate one expression",
                       description="Evaluate PTC-Lisp source given on the command line and print its value. "
                                   "Exit 0 on a value or return, 1 on fail, 2 on an error.")
    e.add_argument("expr", metavar="EXPR", help="the program text, e.g. '(+ 1 2)'")
    session_flags(e)
    e.set_defaults(func=cmd_eval)

    c = sub.add_parser("check", help="report static errors without running",
                       description="Read and analyze each top-level form without running anything; print "
                                   "every problem as file:line:col: kind: message. Exit 1 if there are any.")
    c.add_argument("files", metavar="FILE.clj", nargs="+", help="files to check ('-' reads stdin)")
    c.add_argument("--prelude", metavar="FILE", action="append", help="resolve this prelude's exports (repeatable)")
    c.add_argument("--tools", metavar="module:attr", action="append",
                   help="check tool/ names against these tools (without it any tool name passes)")
    c.set_defaults(func=cmd_check, data=None, timeout_ms=5000)

    f = sub.add_parser("fmt", help="format source in the canonical layout",
                       description="Rewrite files in the canonical layout: structural indentation and spacing. "
                                   "Line breaks you chose, comments and single blank lines are kept; the "
                                   "result reads back to the same forms.")
    f.add_argument("files", metavar="FILE.clj", nargs="+", help="files to format ('-': stdin to stdout)")
    f.add_argument("--check", action="store_true", help="change nothing; exit 1 if a file would change")
    f.add_argument("--diff", action="store_true", help="print a unified diff instead of writing files")
    f.set_defaults(func=cmd_fmt)

    b = sub.add_parser("bench", help="benchmarks: interpreter workloads (lang) or LLM task suites (agent)",
                       description="ptclisp bench lang [...]: time interpreter workloads against plain Python. "
                                   "ptclisp bench agent [...]: run LLM task suites and score them. "
                                   "Run 'ptclisp bench lang --help' or 'ptclisp bench agent --help'.")
    b.add_argument("suite", choices=("lang", "agent"), help="which benchmark family")
    b.add_argument("rest", nargs=argparse.REMAINDER, help="options of that family")
    b.set_defaults(func=cmd_bench)

    a = sub.add_parser("agent", help="answer a task with an LLM agent writing PTC-Lisp", add_help=False,
                       description="Run the agent loop on a task (see 'ptclisp agent --help').")
    a.add_argument("rest", nargs=argparse.REMAINDER)
    a.set_defaults(func=cmd_agent)
    return p


def cmd_bench(args) -> int:
    if args.suite == "agent":
        from .bench_agent import cli_main
        return cli_main(args.rest)
    from .bench import main as bench_main
    return bench_main(args.rest)


def cmd_agent(args) -> int:
    from .agent import cli_main
    return cli_main(args.rest)


def main(argv=None) -> int:
    parser = build_parser()
    raw = sys.argv[1:] if argv is None else list(argv)
    try:
        if raw and raw[0] == "agent":  # its options (including --help) belong to the agent command
            args = argparse.Namespace(func=cmd_agent, rest=raw[1:])
        else:
            args = parser.parse_args(argv)
    except SystemExit as exc:  # --help, or a usage error argparse already explained
        return exc.code if isinstance(exc.code, int) else 2
    if not getattr(args, "func", None):
        if sys.stdin.isatty() and argv is None:
            args = parser.parse_args(["repl"])
        else:
            parser.print_help()
            return 2
    from .repl import SetupError
    try:
        return args.func(args)
    except (UsageError, SetupError) as exc:
        print(f"ptclisp: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print(file=sys.stderr)
        return 130
    except BrokenPipeError:
        try:
            sys.stdout = open(os.devnull, "w")  # noqa: SIM115 - silence the flush at exit
        except OSError:
            pass
        return 0
    except Exception as exc:  # noqa: BLE001 - a bug: one line, the traceback only on request
        if os.environ.get("PTCLISP_DEBUG"):
            raise
        print(f"ptclisp: internal error ({type(exc).__name__}: {exc}); this is a bug. "
              f"Set PTCLISP_DEBUG=1 to see the traceback.", file=sys.stderr)
        return 2


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
