"""From scored run records to the numbers a report shows.

`summarize(records, prices=None)` groups records by configuration (model,
variant, mode) and returns the `results.json` structure: per configuration
pass rate with its 95 % Wilson interval, pass rate per level, turns (mean,
median, distribution), tokens (input, output, cached reads, cache writes;
totals and means per run), cost, wall time and failure kinds; per task the
pass count and mean tokens of each configuration; and paired comparisons:

* each variant against the first variant, per model and mode;
* `json-tools` against `ptc`, per model and variant (what PTC saves);
* each model against the first model, per variant and mode.

Pairs are (task, repeat) present in both configurations.  Each comparison
has exact McNemar p, the bootstrap 95 % interval of the pass-rate
difference (B - A) and the mean tokens of both sides.

Prices: `{model name or model spec: {"input": $, "output": $, "cached": $}}`
per million tokens.  Cost of a run = (input - cache_read) x input +
cache_read x cached (default: the input price) + output x output.  Without a
price for the model the provider-reported cost is used when there is one.
Imports stats.
"""
from __future__ import annotations

from collections import Counter, defaultdict

from . import stats

TOKEN_KEYS = ("input", "output", "cache_read", "cache_creation")
FAILURE_ORDER = ("wrong_answer", "turn_limit", "contract_failure", "provider_failure", "model_failed",
                 "time_limit", "truncated", "agent_failure", "harness_error")


def config_key(rec: dict) -> tuple:
    r = rec["run"]
    return r["model"], r["variant"], r["mode"]


def config_label(key: tuple) -> str:
    return "/".join(key)


def failure_label(score: dict) -> str | None:
    if score["passed"]:
        return None
    if score["kind"] == "turn_limit" and score.get("reason"):
        return f"turn_limit:{score['reason']}"
    if score["kind"] == "provider_failure" and score.get("reason"):
        return f"provider_failure:{score['reason']}"
    return score["kind"]


def run_cost(rec: dict, prices: dict | None) -> float | None:
    r = rec["run"]
    table = (prices or {}).get(r["model"]) or (prices or {}).get(r["model_spec"])
    if table:
        t = rec["tokens"]
        p_in = float(table.get("input", 0.0))
        p_cached = float(table.get("cached", p_in))
        p_out = float(table.get("output", 0.0))
        fresh = max(0, t.get("input", 0) - t.get("cache_read", 0))
        return (fresh * p_in + t.get("cache_read", 0) * p_cached + t.get("output", 0) * p_out) / 1e6
    return rec.get("provider_cost")


def _summary(recs: list, prices) -> dict:
    n = len(recs)
    k = sum(1 for r in recs if r["score"]["passed"])
    lo, hi = stats.wilson(k, n)
    turns = [r["turns"] for r in recs]
    tokens_total = {key: sum(r["tokens"].get(key, 0) for r in recs) for key in TOKEN_KEYS}
    costs = [run_cost(r, prices) for r in recs]
    known = [c for c in costs if c is not None]
    walls = [r["wall_s"] for r in recs if r.get("wall_s") is not None]
    failures = Counter(failure_label(r["score"]) for r in recs if not r["score"]["passed"])
    by_level = defaultdict(lambda: [0, 0])
    for r in recs:
        by_level[r["run"]["level"]][0] += int(r["score"]["passed"])
        by_level[r["run"]["level"]][1] += 1
    first = recs[0]["run"] if recs else {}
    return {
        "model": first.get("model"), "model_spec": first.get("model_spec"), "variant": first.get("variant"),
        "variant_spec": first.get("variant_spec"), "mode": first.get("mode"),
        "runs": n, "passed": k, "pass_rate": k / n if n else 0.0, "pass_rate_ci95": [lo, hi],
        "by_level": {str(lv): {"passed": a, "runs": b, "pass_rate": a / b} for lv, (a, b) in sorted(by_level.items())},
        "turns": {"mean": stats.mean(turns), "median": stats.median(turns), "max": max(turns, default=None),
                  "distribution": {str(t): c for t, c in sorted(Counter(turns).items())}},
        "llm_calls": sum(r["llm_calls"] for r in recs),
        "protocol_errors": sum(r.get("protocol_errors", 0) for r in recs),
        "tokens": {"total": tokens_total,
                   "mean_per_run": {key: (v / n if n else 0.0) for key, v in tokens_total.items()}},
        "cost": {"total": sum(known) if known else None, "mean_per_run": (sum(known) / len(known)) if known else None,
                 "priced_runs": len(known)},
        "wall_s": {"total": sum(walls) if walls else None, "mean": stats.mean(walls), "median": stats.median(walls)},
        "failures": {k2: failures[k2] for k2 in sorted(failures, key=_failure_rank)},
        "engines": sorted({r.get("engine", "?") for r in recs}),
    }


def _failure_rank(label: str):
    head = label.split(":")[0]
    return (FAILURE_ORDER.index(head) if head in FAILURE_ORDER else len(FAILURE_ORDER), label)


def _pair_key(rec: dict) -> tuple:
    return rec["run"]["task"], rec["run"]["repeat"]


def compare(a_recs: list, b_recs: list, label_a: str, label_b: str, what: str) -> dict | None:
    a = {_pair_key(r): r for r in a_recs}
    b = {_pair_key(r): r for r in b_recs}
    keys = sorted(set(a) & set(b))
    if not keys:
        return None
    xa = [int(a[k]["score"]["passed"]) for k in keys]
    xb = [int(b[k]["score"]["passed"]) for k in keys]
    result = stats.paired(xa, xb)

    def mean_tokens(side):
        return {t: stats.mean(side[k]["tokens"].get(t, 0) for k in keys) for t in ("input", "output")}
    result.update({"a": label_a, "b": label_b, "what": what, "mean_tokens_a": mean_tokens(a),
                   "mean_tokens_b": mean_tokens(b),
                   "mean_turns_a": stats.mean(a[k]["turns"] for k in keys),
                   "mean_turns_b": stats.mean(b[k]["turns"] for k in keys)})
    return result


def summarize(records: list, prices: dict | None = None, suite: dict | None = None) -> dict:
    groups: dict = defaultdict(list)
    order: list = []
    for rec in records:
        key = config_key(rec)
        if key not in groups:
            order.append(key)
        groups[key].append(rec)
    configs = [{"config": config_label(k), **_summary(groups[k], prices)} for k in order]

    tasks: dict = {}
    for rec in records:
        r = rec["run"]
        entry = tasks.setdefault(r["task"], {"task": r["task"], "level": r["level"], "tags": r["tags"], "by_config": {}})
        c = entry["by_config"].setdefault(config_label(config_key(rec)),
                                          {"runs": 0, "passed": 0, "tokens_input": 0, "tokens_output": 0, "turns": 0,
                                           "outcomes": []})
        c["runs"] += 1
        c["passed"] += int(rec["score"]["passed"])
        c["tokens_input"] += rec["tokens"].get("input", 0)
        c["tokens_output"] += rec["tokens"].get("output", 0)
        c["turns"] += rec["turns"]
        c["outcomes"].append(failure_label(rec["score"]) or "passed")
        if rec.get("trace_run"):           # the run's trace directory (bench agent --trace-dir)
            c.setdefault("trace_runs", []).append({"id": rec["trace_run"]["id"], "passed": rec["score"]["passed"]})
    for entry in tasks.values():
        for c in entry["by_config"].values():
            for f in ("tokens_input", "tokens_output", "turns"):
                c[f"mean_{f}"] = c.pop(f) / c["runs"]

    models = list(dict.fromkeys(k[0] for k in order))
    variants = list(dict.fromkeys(k[1] for k in order))
    modes = list(dict.fromkeys(k[2] for k in order))
    comparisons = []

    def add(ka, kb, what):
        if ka in groups and kb in groups:
            c = compare(groups[ka], groups[kb], config_label(ka), config_label(kb), what)
            if c:
                comparisons.append(c)

    for m in models:
        for mode in modes:
            for v in variants[1:]:
                add((m, variants[0], mode), (m, v, mode), "variant")
    if "ptc" in modes and "json-tools" in modes:
        for m in models:
            for v in variants:
                add((m, v, "ptc"), (m, v, "json-tools"), "mode")
    for v in variants:
        for mode in modes:
            for m in models[1:]:
                add((models[0], v, mode), (m, v, mode), "model")

    return {"format": "ptclisp-bench-results/1", "suite": suite or {}, "configs": configs,
            "tasks": sorted(tasks.values(), key=lambda t: (t["level"], t["task"])),
            "comparisons": comparisons, "prices": prices or {}}
