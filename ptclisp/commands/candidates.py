"""`ptclisp candidate ...`: the command line of the improvement loop, and `ptclisp run P --candidate ID`.

    candidate new P --component ID --file F [--from-run RUN --runs DIR] [--json]
    candidate propose P --runs DIR --model ALIAS=PROVIDER:MODEL [--component ID] [--json]
    candidate gate P ID
    candidate trial P ID [--suite DIR] --model ALIAS=PROVIDER:MODEL [--repeat N] [--executor ray]
                         [--trace-dir DIR [--inspect]] [--json]
    candidate promote P ID [--require-p P] [--min-delta D]
    candidate list P [--json]
    candidate show P ID [--json]

Exit classes (ptclisp.exit_codes): 0 done; 2 usage (no such candidate, bad flags); 3 the gate or
a promotion rule refuses, an invalid project or a stale candidate; 4 a model not ready; 5 the
debugging agent failed or found nothing to do.  `ptclisp/commands/main.py` adds the parser with
`add_candidate(sub)` and sends `run DIR --candidate ID` to `cmd_run_candidate`.
Imports the candidates library, the project loader and commands.
"""
from __future__ import annotations

import argparse
import json
import os
import sys

from .. import exit_codes as X
from ..candidates import store
from ..candidates.components import CandidateError, parse_id
from .common import UsageError
from .operate import DocumentError

PROG = "ptclisp candidate"
EPILOG = """the loop:
  ptclisp candidate new P --component agent.feedback --file better-feedback.clj
  ptclisp candidate gate P ID
  ptclisp candidate trial P ID --suite suite/ --model main=openai:gpt-4o-mini --repeat 3
  ptclisp candidate promote P ID
components: agent.feedback, agent.prompt, agent.core, prelude:FILE (a mission prelude), policy:FILE
exit status: 0 done; 2 usage; 3 refused (gate, promotion rules, stale, invalid project); 4 model not
ready; 5 the debugging agent failed or found no failed runs
"""


def add_candidate(sub) -> None:
    p = sub.add_parser("candidate", help="improve an agent: candidates, gate, trial, promote",
                       formatter_class=argparse.RawDescriptionHelpFormatter, epilog=EPILOG,
                       description="Changes to a project's agent components, each recorded under "
                                   "P/.ptclisp/candidates/, checked by a static gate, trialled against the "
                                   "incumbent on a task suite and promoted into ptclisp.toml by a person.")
    cs = p.add_subparsers(dest="candidate_command", metavar="SUBCOMMAND")
    n = _subcommand(cs, "new", "record a candidate from a file")
    n.add_argument("--component", required=True, metavar="ID")
    n.add_argument("--file", required=True, metavar="F", help="the candidate's complete source")
    n.add_argument("--from-run", metavar="RUN", help="the run that prompted it (recorded as the origin)")
    n.add_argument("--runs", metavar="DIR", help="where that run is (a trace or bench directory)")
    n.add_argument("--json", action="store_true", help='print {"id": ...}')
    pr = _subcommand(cs, "propose", "let the debugging agent propose a candidate from failed runs")
    pr.add_argument("--runs", required=True, metavar="DIR",
                    help="a trial's directory (trials/tN), a bench agent --out directory or a trace directory")
    pr.add_argument("--model", required=True, metavar="ALIAS=PROVIDER:MODEL")
    pr.add_argument("--component", metavar="ID", help="the one component it may change (default: any)")
    pr.add_argument("--max-turns", type=int, default=8, help="turns of the debugging agent (default 8)")
    pr.add_argument("--task-file", metavar="F", help="replace the shipped task text (debugger/task.md)")
    pr.add_argument("--prelude", metavar="F", help="replace the shipped navigation prelude (debugger/navigate.clj)")
    pr.add_argument("--schema", metavar="F", help="replace the shipped result schema (debugger/proposal.schema.json)")
    _trace_flags(pr, "write the debugging agent's own run there")
    pr.add_argument("--json", action="store_true", help="print the candidate record")
    _subcommand(cs, "gate", "check a candidate statically (exit 3 with one line per broken rule)", candidate=True)
    t = _subcommand(cs, "trial", "run the incumbent and the candidate on a task suite, paired", candidate=True)
    t.add_argument("--suite", metavar="DIR", help="a bench agent suite (default: the project's [bench] suite)")
    t.add_argument("--model", required=True, metavar="ALIAS=PROVIDER:MODEL")
    t.add_argument("--repeat", type=int, default=1, help="runs per task and arm (default 1)")
    t.add_argument("--executor", choices=["threads", "ray"], default="threads",
                   help="run the arms here (threads) or as Ray tasks (needs ptclisp[ray])")
    t.add_argument("--ray-address", metavar="ADDRESS", help="with --executor ray: the cluster to use")
    _trace_flags(t, "write each run's trace directory there")
    t.add_argument("--quiet", action="store_true", help="no progress bar")
    t.add_argument("--json", action="store_true", help="print the trial record (both arms) as JSON")
    pm = _subcommand(cs, "promote", "write a gated, trialled candidate into ptclisp.toml", candidate=True)
    pm.add_argument("--require-p", type=float, metavar="P",
                    help="require an improvement with McNemar p <= P (default: not worse is enough)")
    pm.add_argument("--min-delta", type=float, default=0.0, metavar="D",
                    help="least pass-rate difference candidate - incumbent, 0..1 (default 0: not worse)")
    _subcommand(cs, "list", "every candidate and its status").add_argument("--json", action="store_true")
    _subcommand(cs, "show", "one candidate: record, status, gate, trials, diff",
                candidate=True).add_argument("--json", action="store_true")
    p.set_defaults(func=cmd_candidate, _parser=p)


def _subcommand(subparsers, name: str, help: str, *, candidate: bool = False):
    """A `candidate` subcommand taking the project directory P (and, with `candidate`, a candidate's ID)."""
    sp = subparsers.add_parser(name, help=help)
    sp.add_argument("dir", metavar="P")
    if candidate:
        sp.add_argument("id", metavar="ID")
    return sp


def _trace_flags(sp, trace_help: str) -> None:
    """--trace-dir DIR (what is written there: `trace_help`) and --inspect, of the subcommands that run agents."""
    sp.add_argument("--trace-dir", metavar="DIR", help=trace_help)
    sp.add_argument("--inspect", action="store_true", help="with --trace-dir: keep private evidence too")


def cmd_candidate(args) -> int:
    handlers = {"new": _new, "propose": _propose, "gate": _gate, "trial": _trial, "promote": _promote,
                "list": _list, "show": _show}
    if args.candidate_command is None:
        args._parser.print_help()
        return X.USAGE
    try:
        from ..project.load import load_project
        project = load_project(args.dir)
        return handlers[args.candidate_command](project, args)
    except CandidateError as e:
        print(f"{PROG} {args.candidate_command}: {e.message}", file=sys.stderr)
        return e.code
    except UsageError as e:
        print(f"{PROG} {args.candidate_command}: {e}", file=sys.stderr)
        return getattr(e, "code", X.USAGE)
    except DocumentError as e:
        print(f"{PROG} {args.candidate_command}: {e.message}", file=sys.stderr)
        return X.INVALID_DOCUMENT


def _dump(obj) -> None:
    print(json.dumps(obj, indent=1, sort_keys=True, ensure_ascii=False))


def _new(project, args) -> int:
    ref = parse_id(args.component)
    try:
        with open(args.file, encoding="utf-8") as fh:
            text = fh.read()
    except (OSError, UnicodeDecodeError) as e:
        raise CandidateError(f"--file {args.file}: {getattr(e, 'strerror', None) or e}", 2) from None
    if args.from_run and not args.runs:
        raise CandidateError("--from-run needs --runs DIR (where the run is)", 2)
    if args.runs and not os.path.isdir(args.runs):
        raise CandidateError(f"--runs {args.runs}: no such directory", 2)
    if args.from_run and not os.path.isdir(os.path.join(args.runs, args.from_run)):
        raise CandidateError(f"--from-run {args.from_run}: no such run under {args.runs} (a trace run id, or a "
                             f"bench run's runs/MODEL/VARIANT/MODE/TASK/rN)", 2)
    origin = {"kind": "runs" if args.runs else "file", "file": args.file}
    if args.runs:
        origin["runs"] = args.runs
    if args.from_run:
        origin["run"] = args.from_run
    rec = store.create(project, ref, text, origin)
    if args.json:
        _dump({"id": rec["id"]})
    else:
        print(rec["id"])
        rebased = f", rebased from {rec['rebased_from']}" if rec.get("rebased_from") else ""
        print(f"{rec['component']}: {rec['diff']['added']} lines added, {rec['diff']['removed']} removed "
              f"(base {rec['base']['sha256'][:12]}{rebased})", file=sys.stderr)
    return X.OK


def _propose(project, args) -> int:
    from ..candidates.propose import propose
    if args.inspect and not args.trace_dir:
        raise CandidateError("--inspect needs --trace-dir DIR", 2)
    trace = {"dir": os.path.abspath(args.trace_dir), "inspect": args.inspect} if args.trace_dir else None
    rec = propose(project, args.runs, args.model, component=args.component, max_turns=args.max_turns,
                  task_file=args.task_file, prelude_file=args.prelude, schema_file=args.schema, trace=trace)
    if args.json:
        _dump(rec)
    else:
        print(rec["id"])
        print(f"{rec['component']}: {rec['diff']['added']} lines added, {rec['diff']['removed']} removed; "
              f"rationale: {rec['origin']['rationale']}", file=sys.stderr)
    return X.OK


def _gate(project, args) -> int:
    from ..candidates.gate import gate_record
    rec = store.load(project, args.id)
    result = gate_record(project, rec, store.source(project, args.id))
    store.write_json(store.cdir(project, args.id) / "gate.json", result)
    if result["passed"]:
        print(f"{args.id}: gate passed ({rec['component']})")
        return X.OK
    for b in result["broken"]:
        print(f"{args.id}: {b['rule']}: {b['message']}", file=sys.stderr)
    return X.INVALID_DOCUMENT


def _trial(project, args) -> int:
    from ..candidates.trial import run_trial, summary_lines
    if args.repeat < 1:
        raise CandidateError("--repeat must be at least 1", 2)
    if args.inspect and not args.trace_dir:
        raise CandidateError("--inspect needs --trace-dir DIR", 2)
    if args.trace_dir and args.executor == "ray":
        raise CandidateError("--trace-dir works with --executor threads (a Ray worker may not see the directory)", 2)
    if args.executor == "ray":
        from ..bench_agent.ray_executor import RayUnavailable, import_ray
        try:
            import_ray()
        except RayUnavailable as e:
            raise CandidateError(str(e), 2) from None
    trace = {"dir": os.path.abspath(args.trace_dir), "inspect": args.inspect} if args.trace_dir else None
    t = run_trial(project, args.id, suite_path=args.suite, model=args.model, repeat=args.repeat,
                  executor=args.executor, trace=trace, quiet=args.quiet or args.json, ray_address=args.ray_address)
    table = t.pop("table")
    if args.json:
        _dump(t)
        return X.OK
    print(table)
    print()
    for line in summary_lines(t):
        print(line)
    print(f"\ntrial {t['id']}: {os.path.join(project.root, t['results'])}\nreport:   "
          f"{os.path.join(project.root, t['report'])}", file=sys.stderr)
    return X.OK


def _promote(project, args) -> int:
    from ..candidates.promote import promote
    rec = promote(project, args.id, require_p=args.require_p, min_delta=args.min_delta)
    print(f"{args.id}: promoted {rec['component']}: ptclisp.toml now names {rec['new_source']} (was "
          f"{rec['previous_source']}); {rec['verdict']}")
    return X.OK


def _row(project, rec) -> dict:
    trials = store.trials(project, rec["id"])
    last = trials[-1] if trials else None
    evidence = None
    if last is not None:
        a, b = last["arms"]["incumbent"], last["arms"]["candidate"]
        evidence = (f"{last['id']}: {b['passed']}/{b['runs']} vs {a['passed']}/{a['runs']}, "
                    f"p={last['comparison']['mcnemar_p']:.3g}")
    gate = store.read_json(store.cdir(project, rec["id"]) / "gate.json")
    return {"id": rec["id"], "component": rec["component"], "status": store.status(project, rec),
            "created": rec["created"], "origin": rec["origin"]["kind"], "trials": len(trials), "evidence": evidence,
            "gate": None if gate is None else {"passed": gate["passed"], "broken": [b["rule"] for b in gate["broken"]]}}


def _list(project, args) -> int:
    rows = [_row(project, store.load(project, cid)) for cid in store.ids(project)]
    if args.json:
        _dump(rows)
        return X.OK
    if not rows:
        print(f"no candidates in {project.root}")
        return X.OK
    for r in rows:
        gate = "" if r["gate"] is None or r["gate"]["passed"] else f"  broken: {', '.join(r['gate']['broken'])}"
        print(f"{r['id']}  {r['status']:<11}  {r['component']:<16}  {r['origin']:<8}  {r['created']}"
              f"{'  ' + r['evidence'] if r['evidence'] else ''}{gate}")
    return X.OK


def _show(project, args) -> int:
    rec = store.load(project, args.id)
    row = _row(project, rec)
    d = store.cdir(project, args.id)
    if args.json:
        _dump({**rec, "status": row["status"], "gate": store.read_json(d / "gate.json"),
               "trials": store.trials(project, args.id)})
        return X.OK
    print(f"{rec['id']}  {row['status']}  {rec['component']}")
    print(f"created  {rec['created']}  origin {rec['origin']['kind']}"
          + "".join(f" {k}={v}" for k, v in rec["origin"].items() if k != "kind" and k != "rationale"))
    if rec["origin"].get("rationale"):
        print(f"rationale  {rec['origin']['rationale']}")
    print(f"base     {rec['base']['sha256'][:12]}  {rec['base']['origin']}")
    print(f"source   {rec['source']['sha256'][:12]}  {d / 'source.clj'} ({rec['source']['bytes']} bytes)")
    if row["gate"] is not None:
        print(f"gate     {'passed' if row['gate']['passed'] else 'failed: ' + ', '.join(row['gate']['broken'])}")
    from ..candidates.trial import summary_lines
    for t in store.trials(project, args.id):
        print(f"trial {t['id']}  {t['time']}  suite {t['suite']['name']}  model {t['model']['spec']}  "
              f"repeat {t['repeat']}")
        for line in summary_lines(t):
            print(f"  {line}")
    print((d / "diff.patch").read_text(encoding="utf-8"), end="")
    return X.OK


def cmd_run_candidate(args) -> int:
    """`ptclisp run P --candidate ID`: the project run with the candidate's source in place (nothing written)."""
    from .project import cmd_run_project
    from ..project.load import Project, load_project
    from ..candidates.components import doc_with
    try:
        project = load_project(args.file)
        rec = store.load(project, args.candidate)
    except CandidateError as e:
        print(f"ptclisp run: {e.message}", file=sys.stderr)
        return e.code
    except DocumentError as e:
        print(f"ptclisp run: {e.message}", file=sys.stderr)
        return X.INVALID_DOCUMENT
    path = str(store.cdir(project, rec["id"]) / "source.clj")
    return cmd_run_project(args, project=Project(project.root, doc_with(project.doc, parse_id(rec["component"]), path)))
