"""The commands over trace directories: `ptclisp view`, `ptclisp transcript`, and `--runs DIR`.

    ptclisp view DIR --static OUT.html     one self-contained HTML file
    ptclisp view DIR --port PORT           served on 127.0.0.1:PORT, updated live (0 = any free port)
    ptclisp transcript RUN_ID --runs DIR [--system]
    ptclisp repl|run|eval ... --runs DIR   grants the read-only `analysis` prelude over DIR

Owns `add_view_parser(sub, func)`, `run_view(args)`,
`add_transcript_parser(sub, func)`, `run_transcript(args)`,
and `grant_analysis(directory, preludes, tools)` (what `--runs` adds to a
session; the flag itself is defined in ptclisp/commands/main.py, so parsing it loads
nothing of the viewer).  Problems are `UsageError`s (exit 2).
Imports ptclisp.commands.common, trace (reader, analysis, transcript) and view.
"""
from __future__ import annotations

import os
import sys

from .common import UsageError


def add_view_parser(sub, func) -> None:
    v = sub.add_parser("view", help="look at agent runs recorded with --trace-dir (HTML, static or live)",
                       description="Show the runs of a trace directory (written by --trace-dir): a list of runs "
                                   "with status, task, model, turns, tokens, cost and duration, and for each run "
                                   "a timeline of its turns. --static writes one self-contained HTML file; "
                                   "--port serves the same view on 127.0.0.1 and updates it while runs are "
                                   "written.")
    v.add_argument("directory", metavar="DIR", help="a trace directory (--trace-dir of agent, run, bench agent)")
    how = v.add_mutually_exclusive_group(required=True)
    how.add_argument("--static", metavar="OUT.html", help="write the view to this HTML file")
    how.add_argument("--port", type=int, metavar="PORT", help="serve the view on 127.0.0.1:PORT (0: a free port)")
    v.set_defaults(func=func)


def run_view(args) -> int:
    from ..trace.reader import TraceReadError, load_runs
    from ..view.html import render_page
    directory = args.directory
    if not os.path.isdir(directory):
        raise UsageError(f"view: no trace directory {directory}")
    if args.static:
        try:
            page = render_page(directory, load_runs(directory))
        except TraceReadError as e:
            raise UsageError(f"view: {e}") from None
        try:
            with open(args.static, "w", encoding="utf-8") as f:
                f.write(page)
        except OSError as e:
            raise UsageError(f"view: cannot write {args.static}: {e.strerror or e}") from None
        print(f"ptclisp view: wrote {args.static}", file=sys.stderr)
        return 0
    if not 0 <= args.port <= 65535:
        raise UsageError("view: --port must be from 0 to 65535")
    from ..view.server import ViewServer
    try:
        server = ViewServer(directory, args.port)
    except OSError as e:
        raise UsageError(f"view: cannot listen on 127.0.0.1:{args.port}: {e.strerror or e}") from None
    print(f"ptclisp view: serving {directory} at {server.url} (public view; Ctrl-C to stop)\n"
          f"ptclisp view: with private evidence: {server.private_url}", file=sys.stderr, flush=True)
    try:
        server.serve_forever(poll_interval=0.25)
    except KeyboardInterrupt:
        pass
    finally:
        server.stopping.set()
        server.server_close()
    return 0


def add_transcript_parser(sub, func) -> None:
    t = sub.add_parser("transcript", help="print one recorded run's conversation (needs --inspect evidence)",
                       description="Print the conversation of one run recorded with --trace-dir DIR --inspect: "
                                   "the task, each turn's model text and program, the result or error, the "
                                   "feedback sent back, and the outcome.")
    t.add_argument("run_id", metavar="RUN_ID", help="the run's id (its directory name under DIR)")
    t.add_argument("--runs", required=True, metavar="DIR", help="the trace directory")
    t.add_argument("--system", action="store_true", help="also print the system prompt")
    t.set_defaults(func=func)


def run_transcript(args) -> int:
    from ..trace.reader import TraceReadError, load_run
    from ..trace.transcript import NoEvidence, transcript
    try:
        run = load_run(args.runs, args.run_id)
        text = transcript(run, system=args.system)
    except (TraceReadError, NoEvidence) as e:
        raise UsageError(f"transcript: {e}") from None
    sys.stdout.write(text)
    return 0


def grant_analysis(directory, preludes: list, tools):
    """`preludes` and `tools` plus the `analysis` prelude and its tools over `directory`."""
    from ..trace.analysis import analysis_tools, prelude_source
    if not os.path.isdir(directory):
        raise UsageError(f"--runs: no trace directory {directory}")
    granted = analysis_tools(directory)
    merged = dict(tools or {})
    clash = sorted(set(merged) & set(granted))
    if clash:
        raise UsageError(f"--runs: a --tools tool is already named {clash[0]}")
    merged.update(granted)
    return [*preludes, prelude_source()], merged
