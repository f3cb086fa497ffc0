"""A trial: the project's incumbent components against a candidate, paired, on a task suite.

The trial is the `bench agent` engine: two variants (`incumbent`, `candidate`: components.arm)
planned over the same tasks, model and repeats (bench_agent.runs.plan), executed on threads or
as Ray tasks (bench_agent.runner.execute), summarised and compared (bench_agent.metrics:
pass rates with Wilson intervals, exact McNemar, turns, tokens, cost, failure kinds) and
reported (bench_agent.report: the terminal table and report.html).  Its files go under the
candidate's `trials/tN/`; `trial.json` (ptclisp/schemas/trial.schema.json) is the record a
promotion reads.  Imports the bench library, components, store.
"""
from __future__ import annotations

import pathlib

from ..bench_agent.metrics import summarize
from ..bench_agent.models import parse_model
from ..bench_agent.report import html_report, terminal_table
from ..bench_agent.runner import Progress, execute
from ..bench_agent.runs import dump, plan, write_atomic
from ..bench_agent.suite import SuiteError, load_suite
from . import store
from .components import CandidateError, arm, current, parse_id, sha256

ARMS = ("incumbent", "candidate")


def resolve_suite(project, given: str | None):
    """The --suite, else the project's [bench] suite; a loaded Suite or CandidateError."""
    if given is None:
        rel = project.bench.get("suite")
        if rel is None:
            raise CandidateError("no suite: give --suite DIR or name one in the project's [bench] suite", 2)
        given = project.path(rel)
    try:
        return load_suite(given)
    except SuiteError as e:
        raise CandidateError(f"--suite: {e}", 2) from None


def run_trial(project, cid: str, *, suite_path: str | None, model: str, repeat: int = 1, executor: str = "threads",
              trace: dict | None = None, quiet: bool = False, ray_address: str | None = None) -> dict:
    """Run the trial; its record (stored as trials/tN/trial.json), with `table` (the printed statistics)."""
    rec = store.load(project, cid)
    ref = parse_id(rec["component"])
    base = current(project, ref)
    if sha256(base.text) != rec["base"]["sha256"]:
        raise CandidateError(f"{cid} is stale: the project's {ref.id} changed since it was made; make it again "
                             f"with 'candidate new' before a trial", 3)
    suite = resolve_suite(project, suite_path)
    try:
        entry = parse_model(model)
    except ValueError as e:
        raise CandidateError(f"--model: {e}", 2) from None
    source_path = str(store.cdir(project, cid) / "source.clj")
    variants = [arm(project, "incumbent"), arm(project, "candidate", (ref, source_path))]
    tasks = suite.tasks
    specs = plan(tasks, [entry], variants, ["ptc"], repeat)
    tdir = store.cdir(project, cid) / "trials"
    n = 1 + max((int(d.name[1:]) for d in tdir.iterdir() if d.name[1:].isdigit()), default=0) if tdir.is_dir() else 1
    out = tdir / f"t{n}"
    tools = _project_tools(project)
    if tools and executor == "ray":
        raise CandidateError(f"--executor ray: the entry mission grants Python tools "
                             f"({', '.join(t.name for t in tools)}), which stay in this process; use --executor "
                             f"threads", 2)
    records = execute(specs, suite, out, record=False, progress=Progress(len(specs), enabled=not quiet),
                      executor=executor, ray_address=ray_address, tools=tools, trace=trace)
    results = summarize(records, _prices(project, entry.name),
                        suite={"name": suite.name, "tasks": len(tasks), "repeat": repeat, "runs": len(records)})
    table = terminal_table(results)
    write_atomic(out / "results.json", dump(results))
    write_atomic(out / "report.html", html_report(results, title=f"ptclisp candidate trial: {cid} "
                                                                 f"({ref.id}) on {suite.name}"))
    write_atomic(out / "table.txt", table + "\n")
    record = _record(project, rec, n, suite, entry, repeat, executor, results, out, trace)
    store.validate_record("trial", record)
    store.write_json(out / "trial.json", record)
    return {**record, "table": table}


def _prices(project, alias: str) -> dict | None:
    """The bench price table for the trial's model: the project's [models.ALIAS] price, when the alias is one."""
    price = project.prices().get(alias)
    if price is None:
        return None
    return {alias: {"input": price["input"], "output": price["output"],
                    "cached": price.get("cached_input", price["input"])}}


def _project_tools(project) -> list:
    """The Python tools of the entry mission (so its preludes can call them in the suite's runs)."""
    spec = project.missions.get(project.default_mission()) or {}
    return [project.python_tool(t) for t in spec.get("tools") or ()]


def _arm(results: dict, name: str) -> dict:
    c = next(c for c in results["configs"] if c["variant"] == name)
    return {"runs": c["runs"], "passed": c["passed"], "pass_rate": c["pass_rate"],
            "pass_rate_ci95": c["pass_rate_ci95"], "turns_mean": c["turns"]["mean"],
            "tokens": {"input": c["tokens"]["total"]["input"], "output": c["tokens"]["total"]["output"]},
            "cost_usd": c["cost"]["total"], "failures": c["failures"]}


def _record(project, rec, n, suite, entry, repeat, executor, results, out: pathlib.Path, trace) -> dict:
    cmp = next(c for c in results["comparisons"] if c["what"] == "variant")
    comparison = {"pairs": cmp["pairs"], "both_pass": cmp["both_pass"], "only_incumbent": cmp["only_a"],
                  "only_candidate": cmp["only_b"], "neither": cmp["neither"], "diff": cmp["diff"],
                  "diff_ci95": cmp["diff_ci95"], "mcnemar_p": cmp["mcnemar_p"]}
    rel = out.relative_to(pathlib.Path(project.root).resolve()).as_posix()
    return {"format": "ptclisp-trial/1", "id": f"t{n}", "candidate": rec["id"], "component": rec["component"],
            "time": store.now(), "incumbent_sha256": rec["base"]["sha256"],
            "candidate_sha256": rec["source"]["sha256"],
            "suite": {"name": suite.name, "path": str(suite.path), "tasks": len(suite.tasks)},
            "model": {"name": entry.name, "spec": entry.spec}, "repeat": repeat, "executor": executor,
            "arms": {a: _arm(results, a) for a in ARMS}, "comparison": comparison,
            "report": f"{rel}/report.html", "results": f"{rel}/results.json",
            **({"trace_dir": trace["dir"]} if trace else {})}


def summary_lines(t: dict) -> list:
    """The trial's statistics in a few lines (after the bench table)."""
    lines = []
    for a in ARMS:
        s = t["arms"][a]
        lo, hi = s["pass_rate_ci95"]
        fails = ", ".join(f"{k} {v}" for k, v in s["failures"].items()) or "none"
        lines.append(f"{a:<9}  {s['passed']}/{s['runs']} passed ({100 * s['pass_rate']:.0f}%, Wilson 95% "
                     f"{100 * lo:.0f}-{100 * hi:.0f}%), {s['turns_mean']:.2f} turns/run, {s['tokens']['input']} in / "
                     f"{s['tokens']['output']} out tokens, failures: {fails}")
    c = t["comparison"]
    lines.append(f"paired     {c['pairs']} pairs: only incumbent {c['only_incumbent']}, only candidate "
                 f"{c['only_candidate']}, diff {100 * c['diff']:+.1f} pts, McNemar exact p = {c['mcnemar_p']:.4g}")
    return lines
