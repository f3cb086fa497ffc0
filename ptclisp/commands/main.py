"""The `ptclisp` command: repl, run, eval, check, fmt, bench, agent, view, transcript, init, validate,
doctor, models, candidate, docs, mcp, lsp.

    ptclisp repl  [--prelude FILE]... [--data FILE.json] [--tools module:attr] [--project DIR [--mission M]]
    ptclisp run   FILE.clj [same flags] [--json]
                  [--model ALIAS=PROVIDER:MODEL]... [--replay FILE | --record FILE] [--trace FILE]
                  [--trace-dir DIR [--inspect]] [--price ALIAS=IN,OUT]...
                  [--envelope] [--output FILE] [--retries N] [--provider-timeout S] [--env-file FILE] ...
                  (a model flag runs FILE as an agent workflow: see ptclisp/commands/agent.py)
    ptclisp run   DIR [--input FILE] [--mission M] [same agent flags]   (an agent project: ptclisp/project/)
    ptclisp eval  EXPR     [same flags] [--json]
                  [--mcp NAME=COMMAND ARGS... | --mcp NAME=URL]... (also on repl and run: ptclisp/commands/mcp_flags.py)
    ptclisp check FILE.clj... [--prelude FILE]... [--tools module:attr]
    ptclisp fmt   FILE.clj... [--check] [--diff]
    ptclisp bench lang|agent ...   (ptclisp/commands/bench.py, ptclisp/commands/bench_agent.py)
    ptclisp agent TASK ...         (ptclisp/commands/agent.py)
    ptclisp view  DIR --static OUT.html | --port PORT    (ptclisp/commands/view.py)
    ptclisp transcript RUN_ID --runs DIR                 (ptclisp/commands/view.py)
    repl, run and eval take --runs DIR: the read-only `analysis` prelude over a trace directory
    ptclisp init DIR [--example NAME] | validate DIR | doctor DIR [--connect] | models DIR
    ptclisp candidate new|propose|gate|trial|promote|list|show DIR ...   (ptclisp/commands/candidates.py)
    ptclisp docs [PAGE]            (ptclisp/commands/docs.py)
    ptclisp --version              (also python -m ptclisp)
    ptclisp mcp serve [...]        (ptclisp/commands/mcp.py)
    ptclisp lsp [--debounce-ms MS] (ptclisp/commands/lsp.py: the language server of ptclisp/lsp/ over stdio)

Exit codes. run/eval of a program: 0 value or `return`, 1 `fail`, 2 error.
check: 1 when it found problems. fmt --check: 1 when a file would change.
The agent-running commands (agent, run with a model, run DIR) exit with the
classes of `ptclisp.exit_codes` (`ptclisp.commands.operate.EXIT_CLASSES`: 0 ok, 2 bad
arguments, 3 invalid document, 4 provider not ready, 5 run failed, 6 limit
hit, 7 output not written); validate 3 and doctor 3/4 likewise. Any command:
2 for bad usage or unreadable input (an unknown flag is shown with that
command's usage), 4 when an --mcp server cannot be started, 130 when
interrupted. A user mistake never shows a Python traceback (set
PTCLISP_DEBUG=1 to see one for a bug).

The top of the layers (with the other modules of ptclisp/commands/): imports api, meter, values,
exit_codes, ptclisp.commands.mcp_flags (the --mcp flags) and ptclisp.commands.common (helpers
shared with the other command modules); lazily jsonout and ptclisp.commands.operate (--json
records, exit classes, agent failures), the REPL, the source tools (`ptclisp.tooling`: check,
fmt), the prelude loader, tools, the trace flags (`ptclisp.commands.trace_flags`) and the
command modules beside it: agent, bench, bench_agent, candidates, docs, lsp, mcp, project,
view. `main` builds the parser of the named command alone, so `ptclisp eval` loads none
of the other commands' modules. Only `ptclisp.__main__` imports this module.
"""
from __future__ import annotations

import os
import sys

from .. import api
from ..errors import PtcError
from ..exit_codes import PROVIDER_NOT_READY, CommandFailure
from ..runtime.meter import MAX_TIME_MS, Limits
from ..values.preview import preview
from .common import (UsageError, add_limit_flags, lenient_output, limit_fields, limit_flags_given,
                     limits_from_args, load_data, load_tools, read_text)
from .mcp_flags import add_mcp_flags, open_mcp_tools


DEFAULT_TIMEOUT_MS = 5000


def _repl_config(args, mcp=None):
    from ..repl import ReplConfig
    preludes, tools = list(args.prelude or []), load_tools(args.tools)
    if getattr(args, "runs", None):                  # --runs DIR: the analysis prelude over a trace directory
        from .view import grant_analysis
        preludes, tools = grant_analysis(args.runs, preludes, tools)
    return ReplConfig(preludes=preludes, data=load_data(args.data),
                      tools=mcp.merged(tools) if mcp is not None else tools,
                      limits=limits_from_args(args, Limits(timeout_ms=args.timeout_ms or DEFAULT_TIMEOUT_MS)),
                      preview_chars=getattr(args, "preview_chars", 2048),
                      strict_data=not getattr(args, "lenient_data", False),
                      session_timeout_ms=getattr(args, "session_timeout_ms", None),
                      max_evaluations=getattr(args, "max_evaluations", None))


def _session(args, mcp=None):
    from ..repl.headless import new_session
    return new_session(_repl_config(args, mcp))


# ---------------------------------------------------------------------- run / eval

def _report(result, as_json: bool, source: str, source_name: str) -> int:
    status = result.status
    if as_json:
        from ..interchange.json_out import JsonValueError, to_json, write_json
        from .operate import run_record
        e = result.error
        error = value = None
        if e is not None:
            error = {"kind": e.kind, "reason": e.kind, "message": e.message, "details": {},
                     "line": e.span.line if e.span else None, "column": e.span.col if e.span else None}
        else:
            try:
                value = to_json(result.value)              # the rules of docs/json.md
            except JsonValueError as je:                   # an error record, exit 2: never a guess
                what = "fail value" if status == "failed" else "value"
                status = "error"
                error = {"kind": je.kind, "reason": je.kind,
                         "message": f"the {what} cannot be given as JSON: {je.message}", "details": {},
                         "line": None, "column": None}
            if status == "failed":
                error = {"kind": "failed", "reason": "explicit_failure", "message": "the program called fail",
                         "details": {}, "line": None, "column": None}
        code = {"ok": 0, "returned": 0, "failed": 1}.get(status, 2)
        write_json(sys.stdout, run_record(status=status, value=value, prints=result.prints, error=error,
                                          duration_ms=result.duration_ms, exit_code=code))
    else:
        for line in result.prints:
            print(line)
        sys.stdout.flush()
        if result.status == "error":
            from ..repl.headless import caret_lines
            e = result.error
            where = f"{source_name}:{e.span.line}:{e.span.col}: " if e.span else f"{source_name}: "
            print(f"{where}Error ({e.kind}): {e.message}", file=sys.stderr)
            if e.span:
                for _, text in caret_lines(source, e.span):
                    print(text, file=sys.stderr)
        elif result.status == "failed":
            print(f"fail: {preview(result.value)}", file=sys.stderr)
        else:
            try:
                text = api.pr_str(result.value)
            except PtcError as pe:   # a value too widely shared to write out (api.pr_str)
                print(f"{source_name}: Error ({pe.kind}): {pe.message}", file=sys.stderr)
                return 2
            print(text)
    return {"ok": 0, "returned": 0, "failed": 1}.get(status, 2)


def _no_limit_flags(args, where: str) -> None:
    """The limit flags (--memory-bytes, ...) are for programs run without a model: refuse them elsewhere."""
    given = limit_flags_given(args)
    if given:
        raise UsageError(f"{given[0]} applies to programs run without a model (eval, run FILE, repl); "
                         f"{where} has its own limits (the project's [limits], --timeout-ms)")


def cmd_run(args) -> int:
    if os.path.isdir(args.file) and getattr(args, "candidate", None):   # ptclisp run DIR --candidate ID
        from .candidates import cmd_run_candidate
        return cmd_run_candidate(args)
    if os.path.isdir(args.file):                  # a project directory: ptclisp run DIR
        _no_limit_flags(args, "run DIR")
        from .project import cmd_run_project
        return cmd_run_project(args)
    project_only = [flag for flag, value in (("--input", args.input), ("--mission", args.mission),
                                                 ("--candidate", getattr(args, "candidate", None))) if value]
    if project_only:
        raise UsageError(f"{project_only[0]} applies to a project directory (ptclisp run DIR)")
    source = read_text(args.file)
    if args.model or args.replay or args.record:  # an agent workflow: run it in the agent host's session
        if args.runs:
            raise UsageError("--runs is for programs run without a model (drop --model/--replay/--record)")
        _no_limit_flags(args, "a workflow run")
        from .agent import run_workflow_file, setup_errors
        from .mcp_flags import MCPStartError
        from .operate import usage_failure
        try:
            with open_mcp_tools(args) as mcp:
                return run_workflow_file(source, args.file, models=args.model or (), replay=args.replay,
                                         record=args.record, trace_path=args.trace, data=load_data(args.data),
                                         tool_specs=args.tools or (), preludes=args.prelude or (),
                                         as_json=args.json, opts=args, mcp_tools=list(mcp))
        except (UsageError, MCPStartError) as e:  # a bad --mcp flag (2), a server that cannot start (4)
            return usage_failure("ptclisp run", args, setup_errors(e, "ptclisp run"))
    agent_only = [flag for flag, value in (("--trace", args.trace), ("--trace-dir", args.trace_dir),
                                           ("--inspect", args.inspect), ("--price", args.price),
                                           ("--envelope", args.envelope), ("--output", args.output),
                                           ("--env-file", args.env_file), ("--text-protocol", args.text_protocol),
                                           ("--policy", args.policy))
                  if value]
    if agent_only:
        raise UsageError(f"{agent_only[0]} needs a model (it applies to agent runs): add --model "
                         f"ALIAS=PROVIDER:MODEL or --replay FILE")
    with open_mcp_tools(args) as mcp:
        session = _session(args, mcp)
        return _report(session.eval(source), args.json, source, args.file)


def cmd_eval(args) -> int:
    with open_mcp_tools(args) as mcp:
        session = _session(args, mcp)
        return _report(session.eval(args.expr), args.json, args.expr, "<eval>")


# ---------------------------------------------------------------------- repl

def cmd_repl(args) -> int:
    from ..repl import start
    if not 64 <= args.preview_chars <= 65536:
        raise UsageError("--preview-chars must be between 64 and 65536")
    if args.project:
        _no_limit_flags(args, "repl --project")
        from .project import cmd_repl_project
        return cmd_repl_project(args)
    if args.mission or args.env_file:
        raise UsageError(f"{'--mission' if args.mission else '--env-file'} needs --project DIR")
    with open_mcp_tools(args) as mcp:
        config = _repl_config(args, mcp)
        if args.script:           # -e EXPR / -l FILE: evaluate them in order and exit
            from ..repl import Repl
            from ..repl.script import run_script
            return run_script(Repl(config), args.script, fmt=args.format, continue_on_error=args.continue_on_error,
                              read_file=lambda path: read_text(path, "-l "))
        if args.format != "text" or args.continue_on_error:
            raise UsageError(f"{'--format' if args.format != 'text' else '--continue-on-error'} applies to "
                             f"-e EXPR / -l FILE")
        return start(config)


# ---------------------------------------------------------------------- check

def cmd_check(args) -> int:
    from ..prelude import PreludeError
    from ..tooling.check import check_sources, compile_preludes, uses_workflow_library, workflow_library
    from ..host.tools import ToolSet
    names = ["<stdin>" if path == "-" else path for path in args.files]
    texts = [read_text(path) for path in args.files]
    try:  # compiled, never run: check evaluates nothing
        # a workflow file (it names agent.core/..., llm/...) sees the shipped agent library, as `run --model` does
        attached = workflow_library() if any(uses_workflow_library(t) for t in texts) else {}
        attached = compile_preludes([(p, read_text(p, "--prelude ")) for p in args.prelude or ()], attached)
    except PreludeError as exc:
        where = f" at {exc.span}" if exc.span else ""
        raise UsageError(f"--prelude: Error ({exc.kind}): {exc.message}{where}") from None
    tools = load_tools(args.tools)
    found = check_sources(list(zip(names, texts)), attached, tools=ToolSet(tools).names() if tools else None)
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
    from ..tooling.formatter import FormatError, format_source
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
            import difflib
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
    import argparse
    try:
        ms = int(text)
        Limits(timeout_ms=ms)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number of milliseconds from 1 to {MAX_TIME_MS}, "
                                         f"got {text[:40]!r}") from None
    return ms


def build_parser(command: str | None = None):
    """The `ptclisp` parser: one subcommand per entry of `_COMMANDS` (an `_add_*` function below or `_added_by`).

    With `command` (a name in `_COMMANDS`) only that subcommand is built: what `main` does when the
    first argument names one, so a command does not import the modules of the other commands' flags.
    Its parse, usage and errors are those of the full parser, which has no other top-level option
    that takes a value.
    """
    import argparse
    from .. import __version__
    epilog = None
    if command is None:  # only the top-level --help shows it
        from .operate import EXIT_CLASSES
        epilog = ("Run 'ptclisp COMMAND --help' for a command's options. With no command on a terminal, "
                  "ptclisp starts the REPL.\n\nAgent-running commands (agent, run with a model, run DIR) "
                  "exit with these classes:\n" + EXIT_CLASSES.split("\n", 1)[1])
    p = argparse.ArgumentParser(
        prog="ptclisp", description="PTC-Lisp: run, evaluate, explore, check and format programs; run agent "
                                    "projects.", formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog=epilog)
    p.add_argument("--version", action="version", version=f"ptclisp {__version__}")
    sub = p.add_subparsers(dest="command", metavar="COMMAND")
    for name, add in _COMMANDS.items():
        if command is None or name == command:
            add(sub)
    for sp in sub.choices.values():          # an unknown flag is reported with that command's usage
        sp.set_defaults(_parser=sp)
    return p


def _session_flags(sp, json_flag=True) -> None:
    """The flags of every command that evaluates: --prelude, --data, --tools, --timeout-ms (and --json)."""
    sp.add_argument("--prelude", metavar="FILE", action="append",
                    help="attach a prelude file and its exports (repeatable)")
    sp.add_argument("--data", metavar="FILE.json", help="a JSON object whose keys become data/<name>")
    sp.add_argument("--lenient-data", action="store_true",
                    help="an unknown data/<name> is nil (default: an error naming the closest granted name)")
    sp.add_argument("--tools", metavar="module:attr", action="append",
                    help="grant Python tools: a dict name -> callable/ptclisp.Tool, or a list of "
                         "ptclisp.Tool (repeatable; the current directory is importable)")
    sp.add_argument("--timeout-ms", type=_timeout_ms, default=None, metavar="MS",
                    help=f"wall-clock limit per evaluation, tool calls included: a tool still running at the "
                         f"deadline is abandoned after a grace period (default {DEFAULT_TIMEOUT_MS}); of the whole "
                         f"agent run for a workflow or project (default 600000)")
    add_mcp_flags(sp)
    add_limit_flags(sp, title="limits of each evaluation (programs run without a model)")
    if json_flag:
        sp.add_argument("--json", action="store_true",
                        help="print one JSON record: status, value or error, prints, duration")


def _add_repl(sub) -> None:
    r = sub.add_parser("repl", help="interactive session (reads forms from stdin when it is not a terminal)",
                       description="Start an interactive PTC-Lisp session. Enter evaluates once the brackets "
                                   "balance; :help lists the commands. When stdin is not a terminal the forms "
                                   "are read from it and their results printed (exit 2 if any failed).")
    _session_flags(r, json_flag=False)
    r.add_argument("--project", metavar="DIR",
                   help="start inside an agent project: with --mission M, exactly the environment the "
                        "model's programs of mission M run in (:context shows the model context); without, "
                        "the project's workflow with its models live")
    r.add_argument("--mission", metavar="M", help="the project mission to enter (with --project)")
    r.add_argument("--env-file", metavar="FILE", help="credentials for the project's models (KEY=VALUE lines)")
    r.add_argument("--preview-chars", type=int, default=2048, metavar="N",
                   help="show at most N characters of each value (64-65536, default 2048); a larger budget "
                        "also shows more items of each collection (N/128, at least 16)")
    _runs_flag(r)
    _repl_script_flags(r)
    r.set_defaults(func=cmd_repl)


def _repl_script_flags(r) -> None:
    """repl's flags for scripts and agents: -e/-l in order, --format, --continue-on-error, session limits."""
    import argparse

    class Step(argparse.Action):   # -e and -l share one list, so their order is kept
        def __call__(self, parser, namespace, value, option_string=None):
            steps = list(getattr(namespace, "script", None) or [])
            steps.append((self.const, value))
            setattr(namespace, "script", steps)

    g = r.add_argument_group("scripted sessions (evaluate, print and exit: ptclisp/repl/script.py)")
    g.add_argument("-e", "--eval", dest="script", action=Step, const="eval", metavar="EXPR",
                   help="evaluate EXPR (each top-level form is one evaluation); repeatable, in order with -l")
    g.add_argument("-l", "--load", dest="script", action=Step, const="load", metavar="FILE",
                   help="evaluate FILE as one program, as :load does; repeatable, in order with -e")
    g.add_argument("--format", choices=("text", "jsonl"), default="text",
                   help="text (default): as the piped REPL prints; jsonl: one JSON object per evaluation "
                        "(input, status, value, text, prints, error with kind, message, line, column)")
    g.add_argument("--continue-on-error", action="store_true",
                   help="go on after an error or fail (default: the first one stops the script; exit 2 or 1)")
    lim = r.add_argument_group("session limits (piped, interactive or scripted; exit 6 when one ends the session)")
    lim.add_argument("--session-timeout-ms", type=_positive("--session-timeout-ms"), metavar="MS",
                     help="end the session this long after it started (each evaluation is bounded by what is left)")
    lim.add_argument("--max-evaluations", type=_positive("--max-evaluations"), metavar="N",
                     help="end the session after N evaluations (top-level forms and loaded files)")


def _positive(flag: str):
    import argparse

    def parse(text: str) -> int:
        try:
            n = int(text)
        except ValueError:
            n = 0
        if not 1 <= n <= MAX_TIME_MS:
            raise argparse.ArgumentTypeError(f"expected a whole number from 1 to {MAX_TIME_MS}, got {text[:40]!r}")
        return n
    parse.__name__ = flag
    return parse


def _add_run(sub) -> None:
    import argparse
    from .operate import EXIT_CLASSES
    r = sub.add_parser("run", help="run a program file or an agent project",
                       formatter_class=argparse.RawDescriptionHelpFormatter,
                       description="Run a PTC-Lisp program file and print its value "
                                   "(exit 0 on a value or return, 1 on fail, 2 on an error), or run an agent "
                                   "project: ptclisp run DIR [--input FILE] [--mission M].",
                       epilog="With a model (a workflow) or a project directory the exit status is a class:\n"
                              + EXIT_CLASSES.split("\n", 1)[1])
    r.add_argument("file", metavar="FILE.clj|DIR", help="program file ('-' reads stdin) or project directory")
    _session_flags(r)
    _runs_flag(r)
    agent_flags = r.add_argument_group(
        "agent workflows", "With --model, --replay or --record the file runs as an agent workflow (it may call "
        "agent.core/run-value ...): --data is data/<name> for both the file and the model's mission, --tools go "
        "to the mission (the model's programs), --prelude to the workflow. "
        "The exit status is then a class (see below).")
    agent_flags.add_argument("--model", metavar="ALIAS=PROVIDER:MODEL", action="append",
                             help="a model alias (repeatable; the first is the default), e.g. fast=openai:gpt-4o-mini")
    replay = agent_flags.add_mutually_exclusive_group()
    replay.add_argument("--replay", metavar="FILE", help="serve every model from this replay file (no network)")
    replay.add_argument("--record", metavar="FILE", help="add every model answer to this replay file "
                                                          "(answers already in it are kept)")
    agent_flags.add_argument("--policy", metavar="FILE", action="append", default=[],
                             help="a loop policy prelude: its exports render-feedback, render-prompt, project-context and compact are hooks of the agent loop, each with the shipped behaviour as fallback (repeatable; ptclisp docs agent)")
    agent_flags.add_argument("--trace", metavar="FILE", help="JSON Lines log of the run, credentials redacted "
                                                            "(an existing FILE is overwritten)")
    from .trace_flags import add_trace_flags
    add_trace_flags(agent_flags)
    from .operate import add_operation_flags
    add_operation_flags(r, timeout_ms=False, title="agent runs (a workflow file or a project)")
    from .project import add_project_run_flags
    add_project_run_flags(r)
    r.set_defaults(func=cmd_run)


def _add_eval(sub) -> None:
    e = sub.add_parser("eval", help="evaluate one expression",
                       description="Evaluate PTC-Lisp source given on the command line and print its value. "
                                   "Exit 0 on a value or return, 1 on fail, 2 on an error.")
    e.add_argument("expr", metavar="EXPR", help="the program text, e.g. '(+ 1 2)'")
    _session_flags(e)
    _runs_flag(e)
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
    import argparse
    b = sub.add_parser("bench", help="benchmarks: interpreter workloads (lang) or LLM task suites (agent)",
                       description="ptclisp bench lang [...]: time interpreter workloads against plain Python. "
                                   "ptclisp bench agent [...]: run LLM task suites and score them. "
                                   "Run 'ptclisp bench lang --help' or 'ptclisp bench agent --help'.")
    b.add_argument("suite", choices=("lang", "agent"), help="which benchmark family")
    b.add_argument("rest", nargs=argparse.REMAINDER, help="options of that family")
    b.set_defaults(func=cmd_bench)


def _add_agent(sub) -> None:
    import argparse
    a = sub.add_parser("agent", help="answer a task with an LLM agent writing PTC-Lisp", add_help=False,
                       description="Run the agent loop on a task (see 'ptclisp agent --help').")
    a.add_argument("rest", nargs=argparse.REMAINDER)
    a.set_defaults(func=cmd_agent)


def _runs_flag(sp) -> None:
    """--runs DIR (repl, run, eval): `ptclisp.commands.view.grant_analysis` grants it when the command runs."""
    sp.add_argument("--runs", metavar="DIR",
                    help="grant the read-only analysis prelude over this trace directory: (analysis/runs), "
                         "(analysis/open id), (analysis/turns id), (analysis/programs id), ...")


def _add_view(sub) -> None:
    from .view import add_view_parser
    add_view_parser(sub, cmd_view)


def _add_transcript(sub) -> None:
    from .view import add_transcript_parser
    add_transcript_parser(sub, cmd_transcript)


def cmd_view(args) -> int:
    from .view import run_view
    return run_view(args)


def cmd_transcript(args) -> int:
    from .view import run_transcript
    return run_transcript(args)


def _added_by(module: str, function: str):
    """A `_COMMANDS` entry for a command whose subparser is built by `function` of ptclisp/commands/<module>.py;
    that module is imported only when the subcommand is built."""
    def add(sub) -> None:
        from importlib import import_module
        getattr(import_module(f".{module}", __package__), function)(sub)
    return add


def cmd_bench(args) -> int:
    if args.suite == "agent":
        from .bench_agent import cli_main
        return cli_main(args.rest)
    from .bench import main as bench_main
    return bench_main(args.rest)


def cmd_agent(args) -> int:
    from .agent import cli_main
    return cli_main(args.rest)


# name -> the function adding its subparser, in the order `ptclisp --help` lists them
_COMMANDS = {"repl": _add_repl, "run": _add_run, "eval": _add_eval, "check": _add_check, "fmt": _add_fmt,
             "bench": _add_bench, "agent": _add_agent, "view": _add_view, "transcript": _add_transcript,
             "init": _added_by("project", "add_init"), "validate": _added_by("project", "add_validate"),
             "doctor": _added_by("project", "add_doctor"), "models": _added_by("project", "add_models"),
             "candidate": _added_by("candidates", "add_candidate"), "docs": _added_by("docs", "add_docs"),
             "mcp": _added_by("mcp", "add_mcp_command"), "lsp": _added_by("lsp", "add_lsp")}


def _mcp_start_error():
    from ..mcp.client_specs import MCPStartError
    return MCPStartError


def main(argv=None) -> int:
    """Run the `ptclisp` command with `argv` (default: sys.argv[1:]); returns the exit code."""
    with lenient_output():
        return _main(argv)


def entry() -> int:
    """The process entry point (the `ptclisp` console script, `python -m ptclisp`): `main()`, then
    `gc.freeze()` before the interpreter exits, so its shutdown does not walk every object the
    command loaded (about 10 ms of a cold start). Python does not promise finalizers of objects
    still alive at exit anyway; the process ends right after and the OS frees its memory. A host
    calling `main` in its own process is not affected."""
    code = main()
    import gc
    gc.freeze()
    return code


def _bare_eval(raw: list):
    """`ptclisp eval EXPR` with no flag: the namespace argparse gives it (a test compares the two),
    without importing argparse or building a parser; None for any other command line."""
    if len(raw) != 2 or raw[0] != "eval" or raw[1].startswith("-"):
        return None
    from types import SimpleNamespace
    return SimpleNamespace(command="eval", expr=raw[1], prelude=None, data=None, tools=None, timeout_ms=None,
                           mcp=[], mcp_allow=[], mcp_hide=[], mcp_effect=[], mcp_connect_timeout=30.0,
                           json=False, runs=None, lenient_data=False, func=cmd_eval, **{f.name: None for f in limit_fields()})


def _parse(raw: list, argv):
    """The parsed command line, or the exit code when argparse ended it (--help, a usage error)."""
    import argparse
    parser = build_parser(raw[0] if raw and raw[0] in _COMMANDS else None)
    try:
        if raw and raw[0] == "agent":  # its options (including --help) belong to the agent command
            args = argparse.Namespace(func=cmd_agent, rest=raw[1:])
        else:
            args, extra = parser.parse_known_args(argv)
            if extra:  # with the usage of the command it was given to, not the top-level one
                getattr(args, "_parser", parser).error(f"unrecognized arguments: {' '.join(extra)}")
    except SystemExit as exc:  # --help, --version, or a usage error argparse already explained
        return exc.code if isinstance(exc.code, int) else 2
    if not getattr(args, "func", None):
        if sys.stdin.isatty() and argv is None:
            return build_parser("repl").parse_args(["repl"])
        parser.print_help()
        return 2
    return args


def _main(argv) -> int:
    raw = sys.argv[1:] if argv is None else list(argv)
    args = _bare_eval(raw) or _parse(raw, argv)
    if isinstance(args, int):
        return args
    from ..repl import SetupError
    try:
        return args.func(args)
    except (UsageError, SetupError) as exc:
        print(f"ptclisp: {exc}", file=sys.stderr)
        return getattr(exc, "code", 2)   # 3 for a named file that is not a document (RefusedDocument)
    # MCPStartError is imported only when an exception reaches its clause (an except clause's
    # expression is evaluated then), so a command that never loads the MCP client does not import it
    except _mcp_start_error() as exc:  # an --mcp server could not be started or listed
        print(f"ptclisp: {exc}", file=sys.stderr)
        return PROVIDER_NOT_READY
    except CommandFailure as exc:  # an invalid document (3), a provider not ready (4), an output failure (7)
        print(f"ptclisp: {exc.message}", file=sys.stderr)
        return exc.code
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
    sys.exit(entry())
