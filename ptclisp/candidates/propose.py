"""`candidate propose`: a debugging agent reads failed runs and proposes a change to one component.

The debugging agent is itself a PTC-Lisp agent run by our own loop (`agent.main/run` on an
AgentHost): its mission holds

    data/failures     the failed runs: {:task :kind :note :answer :run}, from a trial's or a
                      `bench agent` output (runs/**/outcome.json, scored) or from a trace directory
                      (runs whose status is not ok)
    data/components   {id: current source} of the components it may change
    tools             the read-only analysis tools over the trace directory (ptclisp.trace.analysis)
    preludes          `analysis` and the shipped navigation prelude `debug` (debugger/navigate.clj)

and its answer must satisfy the result schema (debugger/proposal.schema.json):
{component, source, rationale}.  The task text is debugger/task.md.  All three are shipped files
and each can be replaced (`--task-file`, `--prelude`, `--schema`).  The proposal becomes a
candidate exactly as `candidate new` makes one, with origin `proposed`.
Imports the agent host, the providers, the trace analysis tools, components, store.
"""
from __future__ import annotations

import json
import pathlib
from importlib import resources

from . import store
from .components import CandidateError, all_ids, current, parse_id

MAX_FAILURES = 50


def shipped(name: str) -> str:
    return resources.files("ptclisp.candidates").joinpath("debugger", name).read_text(encoding="utf-8")


def failures(runs: pathlib.Path) -> tuple[list, str | None]:
    """(failed runs, the trace directory their traces are in) of a bench/trial output or a trace directory."""
    outcomes = sorted(runs.glob("runs/**/outcome.json"))
    if outcomes:
        out, trace_dir = [], None
        for f in outcomes:
            rec = store.read_json(f)
            if not rec or rec.get("score", {}).get("passed", True):
                continue
            tr = store.read_json(f.with_name("timing.json")) or {}
            run = (tr.get("trace_run") or {})
            trace_dir = trace_dir or run.get("dir")
            out.append({"task": rec["run"]["task"], "variant": rec["run"]["variant"], "kind": rec["score"]["kind"],
                        "note": rec["score"].get("note") or "", "answer": rec.get("answer"),
                        "run": run.get("id")})
        return out[:MAX_FAILURES], trace_dir
    from ..trace.reader import load_runs
    out = []
    for r in load_runs(str(runs)):
        s = r.summary()
        if s["status"] not in ("ok", "returned", "running"):
            err = s.get("error") or {}
            out.append({"task": s.get("task"), "variant": None, "kind": err.get("reason") or err.get("kind") or
                        s["status"], "note": "", "answer": None, "run": s["id"]})
    return out[:MAX_FAILURES], str(runs)


def _provider(model: str):
    from ..bench_agent.models import ModelEntry
    from ..providers import ModelRouter, build_provider, parse_model_spec
    try:
        name, sep, text = model.partition("=")
        if not sep:
            raise ValueError("expected ALIAS=PROVIDER:MODEL")
        entry = ModelEntry(name, text)
        spec = parse_model_spec(text)
        if spec.provider == "scripted":
            from ..providers.scripted_file import load_script
            provider = build_provider(spec, scripts={spec.model: load_script(spec.model)})
        else:
            provider = build_provider(spec)
    except Exception as e:  # noqa: BLE001 - a spec, key or script that cannot make a provider
        raise CandidateError(f"--model {model}: {e}", 4 if "key" in str(e).lower() else 2) from None
    return entry, ModelRouter({entry.name: provider}, max_total_calls=None)


def _read(path: str | None, name: str) -> str:
    if path is None:
        return shipped(name)
    try:
        return pathlib.Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as e:
        raise CandidateError(f"{path}: cannot read: {getattr(e, 'strerror', None) or e}", 2) from None


def propose(project, runs_dir: str, model: str, *, component: str | None = None, max_turns: int = 8,
            task_file: str | None = None, prelude_file: str | None = None, schema_file: str | None = None,
            trace: dict | None = None) -> dict:
    """Run the debugging agent; the candidate record its proposal became.

    `trace` ({"dir", "inspect"}) writes the debugging agent's own run there (ptclisp.trace)."""
    from ..agent import AgentHost, Mission
    from ..trace.analysis import analysis_tools, prelude_source
    runs = pathlib.Path(runs_dir)
    if not runs.is_dir():
        raise CandidateError(f"--runs {runs_dir}: no such directory", 2)
    failed, trace_dir = failures(runs)
    if not failed:
        raise CandidateError(f"--runs {runs_dir}: no failed runs there: nothing to propose", 5)
    ids = [parse_id(component).id] if component else all_ids(project.doc)
    sources = {cid: current(project, parse_id(cid)).text for cid in ids}
    try:
        schema = json.loads(_read(schema_file, "proposal.schema.json"))
    except ValueError as e:
        raise CandidateError(f"--schema: not JSON: {e}", 2) from None
    task = _read(task_file, "task.md").replace("{components}", " or ".join(ids))
    tools = list(analysis_tools(trace_dir).values()) if trace_dir else []
    from ..prelude import Component
    navigate = Component(_read(prelude_file, "navigate.clj"), prelude_file or "debugger/navigate.clj")
    mission = Mission(data={"failures": failed, "components": sources}, capabilities=tools,
                      preludes=[Component(prelude_source(), "ptclisp.preludes/analysis.clj"), navigate])
    entry, router = _provider(model)
    writer = None
    if trace is not None:
        from ..trace import TraceWriter
        writer = TraceWriter(trace["dir"], inspect=bool(trace.get("inspect")),
                             meta={"command": "candidate propose", "runs": str(runs)})
    host = AgentHost(models=router, missions={"default": mission}, result_schema=schema, trace=writer)
    try:
        out = host.run_entry("agent.main/run", {"task": task, "agent": {"max_turns": max_turns}})
    finally:
        host.close()
    if out.json_error is not None:
        raise CandidateError(f"the debugging agent failed: {out.json_error.reason}: {out.json_error.message}", 5)
    value = out.value if isinstance(out.value, dict) else {}
    cid = value.get("component")
    if cid not in ids:
        raise CandidateError(f"the debugging agent proposed a change to {cid!r}, not one of {', '.join(ids)}", 5)
    origin = {"kind": "proposed", "runs": str(runs.resolve()), "model": entry.spec,
              "rationale": str(value.get("rationale", "")), "failures": len(failed)}
    return store.create(project, parse_id(cid), value["source"], origin)
