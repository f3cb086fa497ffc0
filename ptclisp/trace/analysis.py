"""Run analysis in PTC-Lisp: the read-only tools behind the `analysis` prelude.

Owns `analysis_tools(directory)` -> {name: ptclisp.Tool} and `PRELUDE`
(the packaged `ptclisp.preludes/analysis.clj`, whose exports call them):

    (analysis/runs)                      run summaries, oldest first
    (analysis/runs {:status "failed"})   filtered: :status :model :error_kind :search
    (analysis/open id)                   one run: summary, preludes, turns, outcome
    (analysis/turns id)                  its turns (public facts: tokens, timings, outcomes, error positions)
    (analysis/programs id)               [{:turn :program}]         - only with private evidence
    (analysis/observations id)           [{:turn :observation :prints :message}] - likewise

Everything is read from the directory on each call (runs being written show
up), nothing is written, and a run id names only a run directory directly
under `directory`.  Results are maps with keyword keys.  Imports
ptclisp.Tool, trace.reader and trace.plain_data.
"""
from __future__ import annotations

from importlib import resources

from .plain_data import Keyword
from .reader import TraceReadError, load_run, load_runs

FILTER_KEYS = ("status", "model", "error_kind", "search")


def prelude_source() -> str:
    """The text of the `analysis` prelude."""
    return resources.files("ptclisp.preludes").joinpath("analysis.clj").read_text(encoding="utf-8")


def keywordize(x):
    """Plain data with every map key made a keyword (what the analysis functions return)."""
    if isinstance(x, dict):
        return {Keyword(k) if isinstance(k, str) else k: keywordize(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [keywordize(v) for v in x]
    return x


class _Failure(Exception):
    pass


def _id(args) -> str:
    rid = args.get("id") if isinstance(args, dict) else None
    if not isinstance(rid, str):
        raise _Failure("expected a run id string, e.g. (analysis/open \"20250101T120000Z-ab12cd\")")
    return rid


def _match(summary: dict, flt: dict) -> bool:
    if flt.get("status") is not None and summary["status"] != flt["status"]:
        return False
    if flt.get("model") is not None and flt["model"] not in (summary["model"] or "") \
            and flt["model"] not in summary["aliases"]:
        return False
    if flt.get("error_kind") is not None and flt["error_kind"] not in summary["error_kinds"] \
            and (summary["error"] or {}).get("kind") != flt["error_kind"] \
            and (summary["error"] or {}).get("reason") != flt["error_kind"]:
        return False
    if flt.get("search") is not None:
        hay = " ".join(str(x) for x in (summary["id"], summary["task"] or "", summary["model"] or "",
                                        " ".join(summary["error_kinds"]), summary["error"] or "")).lower()
        if str(flt["search"]).lower() not in hay:
            return False
    return True


def public_turn(t: dict) -> dict:
    """A turn's public facts in a compact shape."""
    resp, ev = t.get("response") or {}, t.get("evaluation") or {}
    err = ev.get("error") if isinstance(ev.get("error"), dict) else None
    return {"turn": t["turn"], "alias": resp.get("alias"), "model": resp.get("model"),
            "model_ms": resp.get("duration_ms"), "status": resp.get("status"),
            "finish_reason": resp.get("finish_reason"), "tokens": resp.get("tokens"),
            "usage_reported": isinstance(resp.get("tokens"), dict),
            "program_lines": (ev.get("program") or resp.get("program") or {}).get("lines"),
            "outcome": ev.get("outcome"), "eval_ms": ev.get("duration_ms"),
            "error": err, "prints": ev.get("prints"),
            "tool_calls": [{"name": c.get("name"), "status": c.get("status"), "duration_ms": c.get("duration_ms")}
                           for c in t.get("tool_calls") or []]}


def _with_private(directory, rid):
    run = load_run(directory, rid)
    if not run.has_private:
        raise _Failure(f"run {rid} has no private evidence (it was recorded without --inspect)")
    return run


def analysis_tools(directory) -> dict:
    """The tools granted by `ptclisp repl --runs DIR` (read-only views of `directory`)."""
    from .. import Tool
    directory = str(directory)

    def guarded(fn):
        def call(args):
            try:
                return keywordize(fn(args or {}))
            except (_Failure, TraceReadError) as e:
                raise ValueError(str(e)) from None
        return call

    def runs(args):
        flt = args.get("filter") or {}
        if not isinstance(flt, dict):
            raise _Failure("the filter must be a map such as {:status \"failed\"}")
        unknown = sorted(set(flt) - set(FILTER_KEYS))
        if unknown:
            raise _Failure(f"unknown filter key {unknown[0]!r}; use {', '.join(FILTER_KEYS)}")
        return [s for s in (r.summary() for r in load_runs(directory)) if _match(s, flt)]

    def open_run(args):
        run = load_run(directory, _id(args))
        return {**run.summary(), "preludes": run.preludes(), "turns": [public_turn(t) for t in run.turns()],
                "outcome": {k: v for k, v in run.outcome().items()
                            if k in ("status", "error", "turns", "duration_ms", "usage", "value_info")}}

    def turns(args):
        return [public_turn(t) for t in load_run(directory, _id(args)).turns()]

    def programs(args):
        run = _with_private(directory, _id(args))
        return [{"turn": t["turn"], "program": t.get("program")} for t in run.turns() if t.get("program") is not None]

    def observations(args):
        run = _with_private(directory, _id(args))
        return [{"turn": t["turn"], "outcome": (t.get("evaluation") or {}).get("outcome"),
                 "observation": t.get("observation"), "prints": t.get("prints") or [], "message": t.get("message")}
                for t in run.turns() if t.get("evaluation")]

    table = {"analysis-runs": (runs, "run summaries, optionally filtered"),
             "analysis-open": (open_run, "one run with its turns"),
             "analysis-turns": (turns, "the turns of a run"),
             "analysis-programs": (programs, "the programs of a run (private evidence)"),
             "analysis-observations": (observations, "what each program showed (private evidence)")}
    return {name: Tool(name, guarded(fn), description=doc, effect="read") for name, (fn, doc) in table.items()}
