"""The `ptclisp` command: repl, run, eval, check, fmt, bench, agent, mcp.

    ptclisp repl  [--prelude FILE]... [--data FILE.json] [--tools module:attr]
    ptclisp run   FILE.clj [same flags] [--json]
                  [--model ALIAS=PROVIDER:MODEL]... [--replay FILE | --record FILE] [--trace FILE]
                  (a model flag runs FILE as an agent workflow: see ptclisp/agent/cli.py)
    ptclisp eval  EXPR     [same flags] [--json]
    ptclisp check FILE.clj... [--prelude FILE]... [--tools module:attr]
    ptclisp fmt   FILE.clj... [--check] [--diff]
    ptclisp bench lang|agent ...   (ptclisp/bench.py, ptclisp/bench_agent/cli.py)
    ptclisp agent TASK ...         (ptclisp/agent/cli.py)
    ptclisp mcp serve [...]        (ptclisp/mcp/server.py)

Exit codes. run/eval: 0 value or `return`, 1 `fail`, 2 error. check: 1 when
it found problems. fmt --check: 1 when a file would change. Any command: 2
for bad usage or unreadable input, 130 when interrupted. A user mistake
never shows a Python traceback (set PTCLISP_DEBUG=1 to see one for a bug).

The top of the layers: imports api, jsonout, meter, printer and
cli_common (helpers shared with the other command modules); lazily the
REPL, the source tools (`ptclisp.tooling`: check, fmt), the prelude loader,
tools, and the command modules `ptclisp.agent.cli`, `ptclisp.bench_agent.cli`,
`ptclisp.bench` and `ptclisp.mcp.server`. Nothing in the package imports this module.
"""
from __future__ import annotations

import argparse
import difflib
import os
import sys

from . import api
from .cli_common import UsageError, lenient_output, load_data, load_tools, read_text
from .jsonout import JsonValueError, to_json, write_json
from .meter import Limits
from .printer import preview


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
    status = result.status
    if as_json:
        rec = {"status": status, "prints": result.prints, "duration_ms": round(result.duration_ms, 3)}
        if result.error is not None:
            e = result.error
            rec["error"] = {"kind": e.kind, "message": e.message,
                            "line": e.span.line if e.span else None, "column": e.span.col if e.span else None}
        else:
            try:
                rec["value"] = to_json(result.value)       # the rules of docs/json.md
            except JsonValueError as e:                    # an error record, exit 2: never a guess
                what = "fail value" if status == "failed" else "value"
                status = rec["status"] = "error"
                rec["error"] = {"kind": e.kind, "message": f"the {what} cannot be given as JSON: {e.message}",
                                "line": None, "column": None}
        write_json(sys.stdout, rec)
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
    return {"ok": 0, "returned": 0, "failed": 1}.get(status, 2)


def cmd_run(args) -> int:
    source = read_text(args.file)
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
    from .prelude import PreludeError
    from .tooling.check import check_sources, compile_preludes
    from .tools import ToolSet
    try:  # compiled, never run: check evaluates nothing
        attached = compile_preludes([(p, read_text(p, "--prelude ")) for p in args.prelude or ()])
    except PreludeError as exc:
        where = f" at {exc.span}" if exc.span else ""
        raise UsageError(f"--prelude: Error ({exc.kind}): {exc.message}{where}") from None
    tools = load_tools(args.tools)
    names = ["<stdin>" if path == "-" else path for path in args.files]
    found = check_sources([(name, read_text(path)) for name, path in zip(names, args.files)], attached,
                          tools=ToolSet(tools).names() if tools else None)
    total = 0
    for name, problems in zip(names, found):
        for p in problems:
            print(p.render(name))
        total += len(problems)
    if total:
        n = len(args.files)
        print(f"{total} problem{'s' * (total != 1)} in {n} file{'s' * (n != 1)}", file=sys.stderr)
    return 1 if total else 0


# ---------------------------------------------------------------------- fmt

def cmd_fmt(args) -> int:
    from .tooling.formatter import FormatError, format_source
    changed = 0
    for path in args.files:
        text = read_text(path)
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

def build_parser() -> argparse.ArgumentParser:
    """The `ptclisp` parser: one subcommand per `_add_*` function below."""
    p = argparse.ArgumentParser(
        prog="ptclisp", description="PTC-Lisp: run, evaluate, explore, check and format programs.",
        epilog="Run 'ptclisp COMMAND --help' for a command's options. With no command on a terminal, "
               "ptclisp starts the REPL.")
    sub = p.add_subparsers(dest="command", metavar="COMMAND")
    for add in (_add_repl, _add_run, _add_eval, _add_check, _add_fmt, _add_bench, _add_agent, _add_mcp):
        add(sub)
    return p


def _session_flags(sp, json_flag=True) -> None:
    """The flags of every command that evaluates: --prelude, --data, --tools, --timeout-ms (and --json)."""
    sp.add_argument("--prelude", metavar="FILE", action="append",
                    help="attach a prelude file and its exports (repeatable)")
    sp.add_argument("--data", metavar="FILE.json", help="a JSON object whose keys become data/<name>")
    sp.add_argument("--tools", metavar="module:attr", action="append",
                    help="grant Python tools: a dict name -> callable/ptclisp.Tool, or a list of "
                         "ptclisp.Tool (repeatable; the current directory is importable)")
    sp.add_argument("--timeout-ms", type=int, default=5000, metavar="MS",
                    help="wall-clock limit per evaluation (default 5000)")
    if json_flag:
        sp.add_argument("--json", action="store_true",
                        help="print one JSON record: status, value or error, prints, duration")


def _add_repl(sub) -> None:
    r = sub.add_parser("repl", help="interactive session (reads forms from stdin when it is not a terminal)",
                       description="Start an interactive PTC-Lisp session. Enter evaluates once the brackets "
                                   "balance; :help lists the commands. When stdin is not a terminal the forms "
                                   "are read from it and their results printed (exit 2 if any failed).")
    _session_flags(r, json_flag=False)
    r.add_argument("--preview-chars", type=int, default=2048, metavar="N",
                   help="show at most N characters of each value (64-65536, default 2048); a larger budget "
                        "also shows more items of each collection (N/128, at least 16)")
    r.set_defaults(func=cmd_repl)


def _add_run(sub) -> None:
    r = sub.add_parser("run", help="run a program file",
                       description="Run a PTC-Lisp program file and print its value. "
                                   "Exit 0 on a value or return, 1 on fail, 2 on an error.")
    r.add_argument("file", metavar="FILE.clj", help="program file ('-' reads stdin)")
    _session_flags(r)
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


def _add_eval(sub) -> None:
    e = sub.add_parser("eval", help="evaluate one expression",
                       description="Evaluate PTC-Lisp source given on the command line and print its value. "
                                   "Exit 0 on a value or return, 1 on fail, 2 on an error.")
    e.add_argument("expr", metavar="EXPR", help="the program text, e.g. '(+ 1 2)'")
    _session_flags(e)
    e.set_defaults(func=cmd_eval)


def _add_check(sub) -> None:
    c = sub.add_parser("check", help="report static errors without running",
                       description="Read and analyze each top-level form without running anything; print "
                                   "every problem as file:line:col: kind: message. Exit 1 if there are any. "
                                   "A file that starts with (ns ...) is checked as a prelude, and the programs "
                                   "checked with it may use its exports.")
    c.add_argument("files", metavar="FILE.clj", nargs="+", help="files to check ('-' reads stdin)")
    c.add_argument("--prelude", metavar="FILE", action="append",
                   help="resolve this prelude's exports in the checked files (repeatable; compiled, not run)")
    c.add_argument("--tools", metavar="module:attr", action="append",
                   help="check tool/ names against these tools (without it any tool name passes)")
    c.set_defaults(func=cmd_check, data=None, timeout_ms=5000)


def _add_fmt(sub) -> None:
    f = sub.add_parser("fmt", help="format source in the canonical layout",
                       description="Rewrite files in the canonical layout: structural indentation and spacing. "
                                   "Line breaks you chose, comments and single blank lines are kept; the "
                                   "result reads back to the same forms.")
    f.add_argument("files", metavar="FILE.clj", nargs="+", help="files to format ('-': stdin to stdout)")
    f.add_argument("--check", action="store_true", help="change nothing; exit 1 if a file would change")
    f.add_argument("--diff", action="store_true", help="print a unified diff instead of writing files")
    f.set_defaults(func=cmd_fmt)


def _add_bench(sub) -> None:
    b = sub.add_parser("bench", help="benchmarks: interpreter workloads (lang) or LLM task suites (agent)",
                       description="ptclisp bench lang [...]: time interpreter workloads against plain Python. "
                                   "ptclisp bench agent [...]: run LLM task suites and score them. "
                                   "Run 'ptclisp bench lang --help' or 'ptclisp bench agent --help'.")
    b.add_argument("suite", choices=("lang", "agent"), help="which benchmark family")
    b.add_argument("rest", nargs=argparse.REMAINDER, help="options of that family")
    b.set_defaults(func=cmd_bench)


def _add_agent(sub) -> None:
    a = sub.add_parser("agent", help="answer a task with an LLM agent writing PTC-Lisp", add_help=False,
                       description="Run the agent loop on a task (see 'ptclisp agent --help').")
    a.add_argument("rest", nargs=argparse.REMAINDER)
    a.set_defaults(func=cmd_agent)


def _add_mcp(sub) -> None:
    from .mcp.server import add_mcp_command  # the flags and the command live there (ptclisp/mcp/server.py)
    add_mcp_command(sub)


def cmd_bench(args) -> int:
    if args.suite == "agent":
        from .bench_agent.cli import cli_main
        return cli_main(args.rest)
    from .bench import main as bench_main
    return bench_main(args.rest)


def cmd_agent(args) -> int:
    from .agent.cli import cli_main
    return cli_main(args.rest)


def main(argv=None) -> int:
    """Run the `ptclisp` command with `argv` (default: sys.argv[1:]); returns the exit code."""
    with lenient_output():
        return _main(argv)


def _main(argv) -> int:
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
    except UnicodeDecodeError as exc:  # stdin in an encoding that cannot hold the text (PYTHONIOENCODING=ascii)
        print(f"ptclisp: cannot read standard input as {exc.encoding}: {exc.reason}; PTC-Lisp source is "
              f"UTF-8 (set PYTHONIOENCODING=utf-8)", file=sys.stderr)
        return 2
    except Exception as exc:  # noqa: BLE001 - a bug: one line, the traceback only on request
        if os.environ.get("PTCLISP_DEBUG"):
            raise
        print(f"ptclisp: internal error ({type(exc).__name__}: {exc}); this is a bug. "
              f"Set PTCLISP_DEBUG=1 to see the traceback.", file=sys.stderr)
        return 2


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
