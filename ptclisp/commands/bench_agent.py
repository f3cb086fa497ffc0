"""`ptclisp bench agent ...`: argument parsing and the end-to-end run.

`cli_main(argv)` takes the arguments after `bench agent` and returns an exit
code: 0 when the benchmark ran (whatever the pass rate, unless
`--min-pass-rate` is given and some configuration falls below it), 2 for
bad usage, 4 when an --mcp server cannot be started.  Imports the package's library modules (suite, models,
variants, runs, runner, ray_executor, metrics, report) and providers.spec;
only `ptclisp/commands/main.py` and the entry point ptclisp/bench_agent/__main__.py
import it.  With --trace-dir each ptc-mode run writes its
trace directory (ptclisp.trace) and the output gets traces.html (the
static view, ptclisp.view), linked from report.html.
"""
from __future__ import annotations

import argparse
import json
import pathlib
import sys

from ..providers.spec import ModelSpecError
from ..bench_agent.metrics import summarize
from ..bench_agent.models import parse_model
from ..bench_agent.ray_executor import RayUnavailable, import_ray
from ..bench_agent.report import html_report, terminal_table
from ..bench_agent.runner import Progress, execute
from ..bench_agent.runner_adapter import MODES
from ..bench_agent.runs import dump, plan, write_atomic
from ..bench_agent.suite import SuiteError, builtin_suites, load_suite
from ..bench_agent.variants import BASELINE, VariantError, builtin_variants, parse_variant, with_policy
from .trace_flags import add_trace_flags

EPILOG = """examples:
  ptclisp bench agent --suite data-qa --model ref=scripted:reference
  ptclisp bench agent --suite data-qa --model ref=scripted:reference --variant base=none --variant bad=builtin:wrong
  ptclisp bench agent --suite data-qa --model mini=openai:gpt-4o-mini --mode ptc --mode json-tools \\
      --repeat 3 --workers 4 --record --out bench-out/mini
  ptclisp bench agent --suite data-qa --model mini=openai:gpt-4o-mini --replay bench-out/mini --out bench-out/again
"""


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="ptclisp bench agent", formatter_class=argparse.RawDescriptionHelpFormatter, epilog=EPILOG,
        description="Run an LLM task suite for every task x model x variant x mode x repeat and report pass "
                    "rates (Wilson 95% intervals), turns, tokens, cost, wall time, failure kinds and paired "
                    "comparisons (exact McNemar, bootstrap interval).")
    p.add_argument("--suite", default="data-qa",
                   help=f"suite directory or built-in name ({', '.join(builtin_suites())}; default data-qa)")
    p.add_argument("--model", action="append", metavar="NAME=PROVIDER:MODEL",
                   help="model under test (repeatable); providers: openai, anthropic, replay, scripted "
                        "(scripted:reference, scripted:unavailable)")
    p.add_argument("--variant", action="append", metavar="NAME=PRELUDE_OR_DIR",
                   help="variant (repeatable): a .clj mission prelude, policy:FILE.clj (a loop policy), a "
                        "directory, builtin:NAME "
                        f"({', '.join(builtin_variants())}) or none; default: one baseline 'base=none'")
    p.add_argument("--policy", action="append", default=[], metavar="FILE",
                   help="a loop policy prelude added to every variant (repeatable; ptclisp docs agent)")
    p.add_argument("--mode", action="append", choices=MODES,
                   help="ptc (PTC-Lisp programs; default) and/or json-tools (plain function calling)")
    p.add_argument("--repeat", type=int, default=1, help="runs per task and configuration (default 1)")
    p.add_argument("--workers", type=int, default=1, help="runs in parallel on threads (default 1)")
    p.add_argument("--executor", choices=["threads", "ray"], default="threads",
                   help="where runs execute: threads here (--workers) or Ray tasks, one CPU each "
                        "(needs the ptclisp[ray] extra)")
    p.add_argument("--ray-address", metavar="ADDRESS",
                   help="with --executor ray: the cluster to use (default: RAY_ADDRESS, else one started here with "
                        "`ray start`, else a new local instance that is stopped at the end)")
    p.add_argument("--out", metavar="DIR", help="output directory (default bench-out/<suite>)")
    p.add_argument("--task", action="append", metavar="ID", help="only these tasks (id or id prefix; repeatable)")
    p.add_argument("--level", action="append", type=int, help="only tasks of this level (repeatable)")
    p.add_argument("--tag", action="append", help="only tasks with this tag (repeatable)")
    p.add_argument("--max-turns", type=int, help="turn limit per run (default: the suite's)")
    p.add_argument("--time-limit", type=float, metavar="SECONDS", help="wall-clock limit per run (default: the suite's)")
    p.add_argument("--eval-timeout-ms", type=int, help="limit per evaluated program in ptc mode (default 10000)")
    rec = p.add_mutually_exclusive_group()
    rec.add_argument("--record", action="store_true", help="save each run's model answers as a replay fixture")
    rec.add_argument("--replay", metavar="DIR", help="answer from the fixtures recorded under DIR instead of the models")
    p.add_argument("--prices", metavar="FILE.json",
                   help='price table {"NAME or PROVIDER:MODEL": {"input": $, "output": $, "cached": $}} per 1M tokens')
    add_trace_flags(p, price=False)
    p.add_argument("--force", action="store_true", help="rerun runs that already finished")
    p.add_argument("--min-pass-rate", type=float, metavar="RATE",
                   help="exit 1 when any configuration's pass rate is below RATE (0..1)")
    p.add_argument("--list", action="store_true", help="list the selected tasks and exit")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    from .mcp_flags import add_mcp_flags
    add_mcp_flags(p)  # their tools go to every ptc-mode run's mission (threads executor)
    return p


def _fail(msg: str) -> int:
    print(f"ptclisp bench agent: {msg}", file=sys.stderr)
    return 2


class _Stop(Exception):
    """Ends the command with one line on stderr and an exit code (2: bad usage)."""

    def __init__(self, message: str, code: int = 2):
        super().__init__(message)
        self.code = code


def _check_flags(args) -> None:
    """Reject flag combinations that cannot run (before anything is loaded)."""
    if args.ray_address and args.executor != "ray":
        raise _Stop("--ray-address needs --executor ray")
    if args.mcp and args.executor == "ray":
        raise _Stop("--mcp needs --executor threads (MCP connections stay in this process)")
    if args.executor == "ray":
        try:
            import_ray()
        except RayUnavailable as e:
            raise _Stop(str(e)) from None
    if args.repeat < 1 or args.workers < 1:
        raise _Stop("--repeat and --workers must be at least 1")
    if args.inspect and not args.trace_dir:
        raise _Stop("--inspect needs --trace-dir DIR")
    if args.trace_dir and args.executor == "ray":
        raise _Stop("--trace-dir works with --executor threads (a Ray worker may not see the directory)")


def _selection(args):
    """(suite, models, variants, modes, tasks) the arguments name; names unique, at least one task."""
    try:
        suite = load_suite(args.suite)
        models = [parse_model(m) for m in (args.model or ["ref=scripted:reference"])]
        variants = [parse_variant(v) for v in args.variant] if args.variant else [BASELINE]
        if args.policy:
            variants = [with_policy(v, args.policy) for v in variants]
    except (SuiteError, ModelSpecError, VariantError) as e:
        raise _Stop(str(e)) from None
    for kind, items in (("model", models), ("variant", variants)):
        names = [x.name for x in items]
        if len(set(names)) != len(names):
            raise _Stop(f"two {kind}s share a name: {', '.join(names)}")
    modes = list(dict.fromkeys(args.mode or ["ptc"]))
    tasks = suite.select(args.task, args.level, args.tag)
    if not tasks:
        raise _Stop("no task matches the --task/--level/--tag selection")
    return suite, models, variants, modes, tasks


def _read_prices(args):
    """The --prices table (a dict), or None without the flag."""
    if not args.prices:
        return None
    try:
        prices = json.loads(pathlib.Path(args.prices).read_text(encoding="utf-8"))
    except (OSError, ValueError) as e:
        raise _Stop(f"cannot read --prices {args.prices}: {e}") from None
    if not isinstance(prices, dict):
        raise _Stop("--prices must hold a JSON object")
    return prices


def _run(args, specs, suite, out, replay, trace) -> list:
    """Execute the planned runs (with the --mcp servers' tools); their records."""
    from .common import UsageError
    from ..exit_codes import PROVIDER_NOT_READY
    from .mcp_flags import MCPStartError, open_mcp_tools
    limits = {"max_turns": args.max_turns, "time_limit_s": args.time_limit, "eval_timeout_ms": args.eval_timeout_ms}
    progress = Progress(len(specs), enabled=not args.quiet)
    try:
        with open_mcp_tools(args) as mcp:
            return execute(specs, suite, out, workers=args.workers, record=args.record, replay_dir=replay,
                           limits=limits, progress=progress, force=args.force, executor=args.executor,
                           ray_address=args.ray_address, tools=list(mcp), trace=trace)
    except (RayUnavailable, UsageError) as e:
        raise _Stop(str(e)) from None
    except MCPStartError as e:
        raise _Stop(str(e), PROVIDER_NOT_READY) from None


def _report(args, out, suite, tasks, records, prices, trace) -> int:
    """Write traces.html, results.json, report.html and table.txt; print the table; the exit code."""
    view = None
    if trace is not None:                   # the runs' traces as one page; the report links each failed run to it
        from ..trace.reader import load_runs
        from ..view.html import render_page
        view = "traces.html"
        write_atomic(out / view, render_page(trace["dir"], load_runs(trace["dir"])))
    results = summarize(records, prices, suite={"name": suite.name, "tasks": len(tasks), "repeat": args.repeat,
                                                "runs": len(records)})
    table = terminal_table(results)
    write_atomic(out / "results.json", dump(results))
    write_atomic(out / "report.html", html_report(results, title=f"ptclisp agent benchmark: {suite.name}",
                                                  trace_view=view))
    write_atomic(out / "table.txt", table + "\n")
    print(table)
    print(f"\nresults: {out / 'results.json'}\nreport:  {out / 'report.html'}", file=sys.stderr)
    if view is not None:
        print(f"traces:  {out / view} (ptclisp view {args.trace_dir} --port 8000 for the live view)", file=sys.stderr)
    if args.min_pass_rate is not None:
        low = [c["config"] for c in results["configs"] if c["pass_rate"] < args.min_pass_rate]
        if low:
            print(f"below --min-pass-rate {args.min_pass_rate}: {', '.join(low)}", file=sys.stderr)
            return 1
    return 0


def cli_main(argv=None) -> int:
    """Run `ptclisp bench agent` with these arguments; the exit code (see the module docstring)."""
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as e:
        return e.code if isinstance(e.code, int) else 2
    try:
        _check_flags(args)
        suite, models, variants, modes, tasks = _selection(args)
        if args.list:
            for t in tasks:
                print(f"{t.id}\tlevel {t.level}\t{','.join(t.tags)}\t{t.question}")
            return 0
        prices = _read_prices(args)
        out = pathlib.Path(args.out or f"bench-out/{suite.name}")
        replay = pathlib.Path(args.replay) if args.replay else None
        if replay is not None and not (replay / "runs").is_dir():
            raise _Stop(f"--replay {replay}: no recorded runs there")
        specs = plan(tasks, models, variants, modes, args.repeat)
        write_atomic(out / "bench.json", dump({
            "suite": suite.name, "models": [{"name": m.name, "spec": m.spec} for m in models],
            "variants": [{"name": v.name, "spec": v.spec, "fingerprint": v.fingerprint()} for v in variants],
            "modes": modes, "repeat": args.repeat, "tasks": [t.id for t in tasks]}))
        trace = {"dir": str(pathlib.Path(args.trace_dir).resolve()), "inspect": args.inspect} if args.trace_dir else None
        records = _run(args, specs, suite, out, replay, trace)
    except _Stop as e:
        _fail(str(e))
        return e.code
    return _report(args, out, suite, tasks, records, prices, trace)
