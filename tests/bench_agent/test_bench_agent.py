"""LLM task benchmarks (ptclisp.bench_agent): suite, validators, statistics, runner, reports.

The end-to-end tests run the whole harness offline with the scripted
reference model: the baseline must score 100 %, the built-in `wrong`
variant must score exactly as designed (level 1 right, level 2 wrong, level
3 split over three failure styles), a recording must replay byte for byte,
and the HTML report must render its charts in headless Chromium (skipped
when chromium is not on PATH).
"""
from __future__ import annotations

import json
import pathlib
import shutil
import subprocess
import sys
import time
from collections import Counter

import pytest

import ptclisp
from ptclisp.bench_agent import load_suite, run_task
from ptclisp.bench_agent import runs as runs_mod
from ptclisp.commands.bench_agent import cli_main
from ptclisp.bench_agent import stats
from ptclisp.bench_agent.metrics import summarize
from ptclisp.bench_agent.models import SABOTAGE_MARKER, ReferenceModel, parse_model, spoil
from ptclisp.bench_agent.report import html_report, terminal_table
from ptclisp.bench_agent.suite import SuiteError, parse_manifest
from ptclisp.bench_agent.validate import ValidatorError, check, check_spec
from ptclisp.bench_agent.variants import VariantError, parse_variant
from ptclisp.interchange.json_out import to_json
from ptclisp.providers import ProviderError, ScriptedProvider
from ptclisp.providers.spec import ModelSpecError

SUITE = load_suite("data-qa")
SUITE_DIR = pathlib.Path(ptclisp.__file__).parent / "bench_agent" / "suites" / "data-qa"
CHROMIUM = shutil.which("chromium")


# ---------------------------------------------------------------------------------------------
# the built-in suite
# ---------------------------------------------------------------------------------------------
def test_committed_suite_matches_the_seeded_generator():
    proc = subprocess.run([sys.executable, str(SUITE_DIR / "generate.py"), "--check"], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr


def test_suite_shape():
    sizes = {name: len(json.loads((SUITE_DIR / "data" / f"{name}.json").read_text())) for name in
             ("products", "orders", "employees", "expenses")}
    assert sizes == {"products": 500, "orders": 1000, "employees": 200, "expenses": 800}
    levels = Counter(t.level for t in SUITE.tasks)
    assert len(SUITE.tasks) >= 30 and set(levels) == {1, 2, 3} and min(levels.values()) >= 10
    assert {s["type"] for s in (t.validator for t in SUITE.tasks)} == {
        "exact", "tolerance", "range", "set", "sequence", "lisp"}
    assert all(t.reference and t.answer_schema for t in SUITE.tasks)
    assert any(len(t.data_files) >= 2 for t in SUITE.tasks)          # cross-dataset joins exist


@pytest.mark.parametrize("task", SUITE.tasks, ids=[t.id for t in SUITE.tasks])
def test_reference_solution_passes_its_validator(task):
    session = ptclisp.Session(context=SUITE.data_for(task), limits=ptclisp.Limits(timeout_ms=20_000),
                              strict_data=True)
    for program in task.reference:
        result = session.eval(program)
        assert result.status in ("ok", "returned"), (program, result.error)
    assert result.status == "returned"
    passed, note = check(task.validator, to_json(result.value))
    assert passed, note


def _manifest(**task_over):
    task = {"id": "t1", "level": 1, "question": "How many?", "data": ["xs"],
            "validator": {"type": "exact", "expected": 3}}
    task.update(task_over)
    return {"format": "ptclisp-bench-suite/1", "name": "mini", "datasets": {"xs": "xs.json"}, "tasks": [task]}


@pytest.mark.parametrize("change, message", [
    ({"id": "bad id!"}, "id must match"),
    ({"data": ["nope"]}, "not in the datasets table"),
    ({"data": {"xs": "../outside.json"}}, "outside the suite directory"),
    ({"validator": {"type": "close-enough"}}, "validator must be"),
    ({"validator": {"type": "tolerance", "expected": 1}}, "needs 'abs' and/or 'rel'"),
    ({"validator": {"type": "lisp", "predicate": "(= 1"}}, "does not parse"),
    ({"question": "  "}, "question must be"),
    ({"reference": [""]}, "reference must be"),
    ({"max_turns": 0}, "max_turns must be"),
])
def test_manifest_errors_name_the_problem(tmp_path, change, message):
    with pytest.raises(SuiteError, match=message):
        parse_manifest(_manifest(**change), tmp_path)


def test_manifest_rejects_duplicate_ids(tmp_path):
    m = _manifest()
    m["tasks"].append(dict(m["tasks"][0]))
    with pytest.raises(SuiteError, match="duplicate id"):
        parse_manifest(m, tmp_path)


def test_custom_suite_directory_loads_data(tmp_path):
    (tmp_path / "xs.json").write_text("[1, 2, 3]")
    (tmp_path / "manifest.json").write_text(json.dumps(_manifest()))
    suite = load_suite(str(tmp_path))
    assert suite.data_for(suite.tasks[0]) == {"xs": [1, 2, 3]}
    assert suite.select(levels=[2]) == [] and suite.select(ids=["t"]) == suite.tasks


# ---------------------------------------------------------------------------------------------
# validators
# ---------------------------------------------------------------------------------------------
@pytest.mark.parametrize("spec, answer, passed", [
    ({"type": "exact", "expected": 3}, 3, True),
    ({"type": "exact", "expected": 3}, 3.0, True),
    ({"type": "exact", "expected": 1}, True, False),
    ({"type": "exact", "expected": "a"}, "a ", False),
    ({"type": "exact", "expected": {"a": 1, "b": [1, 2]}}, {"b": [1, 2], "a": 1}, True),
    ({"type": "exact", "expected": {"a": 1}}, {"a": 1, "c": 2}, False),
    ({"type": "tolerance", "expected": 10.0, "abs": 0.5}, 10.4, True),
    ({"type": "tolerance", "expected": 10.0, "abs": 0.5}, 10.6, False),
    ({"type": "tolerance", "expected": 100.0, "rel": 0.01}, 100.9, True),
    ({"type": "tolerance", "expected": 1.0, "abs": 1}, "1", False),
    ({"type": "range", "min": 0, "max": 1}, 1, True),
    ({"type": "range", "min": 0, "max": 1}, 1.01, False),
    ({"type": "range", "min": 0}, -1, False),
    ({"type": "set", "expected": ["a", "b"]}, ["b", "a"], True),
    ({"type": "set", "expected": ["a", "b"]}, ["a", "b", "c"], False),
    ({"type": "set", "expected": [1, 2]}, [2.0, 1], True),
    ({"type": "sequence", "expected": ["a", "b"]}, ["b", "a"], False),
    ({"type": "sequence", "expected": ["a", "b"]}, ["a", "b"], True),
    ({"type": "sequence", "expected": [1.0, 2.0], "abs": 0.1}, [1.05, 1.95], True),
    ({"type": "lisp", "predicate": "(even? data/answer)"}, 4, True),
    ({"type": "lisp", "predicate": "(even? data/answer)"}, 5, False),
    ({"type": "lisp", "predicate": "(= (count data/answer) (get data/expected \"n\"))", "expected": {"n": 2}},
     ["x", "y"], True),
    ({"type": "lisp", "predicate": "(+ data/answer 1)"}, "text", False),   # an error in the predicate fails
])
def test_validators(spec, answer, passed):
    check_spec(spec)
    assert check(spec, answer)[0] is passed


def test_validator_spec_errors():
    for bad in ({"type": "set", "expected": "ab"}, {"type": "range"}, {"type": "lisp", "predicate": ""}, None):
        with pytest.raises(ValidatorError):
            check_spec(bad)


# ---------------------------------------------------------------------------------------------
# statistics
# ---------------------------------------------------------------------------------------------
def test_wilson_interval():
    lo, hi = stats.wilson(0, 10)
    assert lo == 0.0 and hi == pytest.approx(0.2775, abs=1e-4)
    lo, hi = stats.wilson(36, 36)
    assert hi == 1.0 and lo == pytest.approx(0.9036, abs=1e-4)
    lo, hi = stats.wilson(5, 10)
    assert lo == pytest.approx(0.2366, abs=1e-4) and hi == pytest.approx(0.7634, abs=1e-4)
    assert stats.wilson(0, 0) == (0.0, 1.0)


@pytest.mark.parametrize("b, c, p", [(0, 0, 1.0), (3, 3, 1.0), (0, 5, 0.0625), (1, 9, 0.021484375),
                                     (24, 0, 2 / 2 ** 24)])
def test_mcnemar_exact(b, c, p):
    assert stats.mcnemar_exact(b, c) == pytest.approx(p)


def test_bootstrap_is_seeded_and_brackets_the_difference():
    a = [1] * 30 + [0] * 10
    b = [1] * 20 + [0] * 20
    lo, hi = stats.bootstrap_diff(a, b, seed=7)
    assert (lo, hi) == stats.bootstrap_diff(a, b, seed=7)
    assert lo <= -0.25 <= hi and hi < 0
    same = stats.bootstrap_diff(a, a)
    assert same == (0.0, 0.0)


def test_paired_counts():
    r = stats.paired([1, 1, 0, 0, 1], [1, 0, 1, 0, 0])
    assert (r["both_pass"], r["only_a"], r["only_b"], r["neither"]) == (1, 2, 1, 1)
    assert r["diff"] == pytest.approx(-0.2)
    with pytest.raises(ValueError):
        stats.paired([1], [1, 0])


# ---------------------------------------------------------------------------------------------
# models and variants
# ---------------------------------------------------------------------------------------------
def test_parse_model():
    assert parse_model("ref=scripted:reference").spec == "scripted:reference"
    assert parse_model("openai:gpt-4o-mini").name == "gpt-4o-mini"
    for bad in ("ref=scripted:other", "Bad Name=openai:x", "x=nowhere:y"):
        with pytest.raises(ModelSpecError):
            parse_model(bad)


def test_parse_variant(tmp_path):
    assert parse_variant("base=none").preludes == ()
    wrong = parse_variant("bad=builtin:wrong")
    assert wrong.preludes and any(SABOTAGE_MARKER in n for n in wrong.notes())
    (tmp_path / "helpers.clj").write_text('(ns bench.helpers "Helpers.")\n(defn twice "Doubles." [x] (* 2 x))\n')
    (tmp_path / "variant.json").write_text('{"agent": {"max_turns": 3}}')
    v = parse_variant(f"h={tmp_path}")
    assert v.agent == {"max_turns": 3} and "(bench.helpers/twice x) - Doubles." in v.notes()
    fp = v.fingerprint()
    (tmp_path / "helpers.clj").write_text('(ns bench.helpers "Changed.")\n(defn twice [x] (* 2 x))\n')
    assert parse_variant(f"h={tmp_path}").fingerprint() != fp
    for bad in ("x=builtin:nope", "x=/no/such/file.clj"):
        with pytest.raises(VariantError):
            parse_variant(bad)


def test_variant_can_replace_the_agent_prompt(tmp_path):
    (tmp_path / "prompt.clj").write_text(
        '(ns agent.prompt "A replacement prompt.")\n'
        '(defn initial-state [cfg] {:revision 0})\n'
        '(defn render [state] (str "CUSTOM_PROMPT_" (get state :revision)))\n'
        '(defn transition [state event] (assoc state :revision (inc (get state :revision))))\n')
    (tmp_path / "variant.json").write_text('{"replace": {"agent.prompt": "prompt.clj"}}')
    variant = parse_variant(f"custom={tmp_path}")
    assert variant.preludes == () and set(variant.replace) == {"agent.prompt"}
    provider = ScriptedProvider([_call("(count data/xs)"), _call("(return *1)", 2)])
    out = run_task("How many?", {"xs": [1, 2]}, provider, variant, {"max_turns": 3}, "ptc")
    assert out["answer"] == 2
    assert [r["system"] for r in provider.requests] == ["CUSTOM_PROMPT_0", "CUSTOM_PROMPT_1"]


@pytest.mark.parametrize("value", [3, 2.5, "a", True, ["a", "b"], ["a"], {"k": 1.0}])
def test_spoil_changes_the_answer(value):
    assert spoil(value) != value


def test_reference_model_sends_the_reference_programs():
    task = SUITE.task("l2-median-salary")
    model = ReferenceModel(task, SUITE, "ptc")
    r1 = model({"system": "x", "messages": [{"role": "user", "content": "q"}]})
    assert r1["tool_calls"][0]["args"]["program"] == task.reference[0]
    assert r1["tokens"]["input"] > 0 and r1["tokens"]["cache_creation"] > 0
    history = [{"role": "user", "content": "q"}, {"role": "assistant", "content": None, "tool_calls": r1["tool_calls"]},
               {"role": "tool", "tool_call_id": "call-1", "content": "ok"}]
    r2 = model({"system": "x", "messages": history})
    assert r2["tool_calls"][0]["args"]["program"] == task.reference[1]
    assert r2["tokens"]["cache_read"] > 0


# ---------------------------------------------------------------------------------------------
# run_task: the adapter's contract
# ---------------------------------------------------------------------------------------------
def _call(program, i=1):
    return {"content": None, "tool_calls": [{"id": f"c{i}", "name": "run_ptc_lisp", "args": {"program": program}}]}


def test_run_task_answers_through_the_agent_loop():
    provider = ScriptedProvider([_call("(count data/xs)"), _call("(return (* 2 *1))", 2)])
    out = run_task("Double the count.", {"xs": [1, 2, 3]}, provider, None, {"max_turns": 4}, "ptc",
                   answer_schema={"type": "integer"}, model_name="m")
    assert out["status"] == "answered" and out["answer"] == 6
    assert out["turns"] == 2 and out["evaluations"] == 2 and out["engine"] == "agent-host"
    assert "data/xs" in out["trace"]["system"] and len(provider.requests) == 2


@pytest.mark.parametrize("script, kind, reason", [
    ([_call("(+ 1 {})")] * 2, "turn_limit", "evaluation-error"),
    ([_call("(count data/xs)")] * 2, "turn_limit", "intermediate-result"),
    ([{"content": "It is 3.", "tool_calls": []}] * 2, "turn_limit", "protocol-error"),
    ([_call('(return "three")')] * 2, "contract_failure", "result_contract_failed"),
    ([_call('(fail "no idea")')], "model_failed", "model-program-failed"),
    ([ProviderError("rate_limited", "slow down")], "provider_failure", "rate_limited"),
    ([], "provider_failure", "unavailable"),
])
def test_run_task_failure_kinds(script, kind, reason):
    out = run_task("How many?", {"xs": [1, 2, 3]}, ScriptedProvider(script), None, {"max_turns": 2}, "ptc",
                   answer_schema={"type": "integer"})
    assert out["status"] == "failed"
    assert (out["failure"]["kind"], out["failure"]["reason"].replace("_", "-")) == (kind, reason.replace("_", "-"))


def test_run_task_json_tools_mode():
    answers = [{"content": None, "tool_calls": [{"id": "a", "name": "get_records", "args": {"dataset": "xs"}}]},
               {"content": "Done.", "tool_calls": [{"id": "b", "name": "submit_answer", "args": {"answer": 3}}]}]
    provider = ScriptedProvider(answers)
    out = run_task("How many?", {"xs": [{"v": 1}, {"v": 2}, {"v": 3}]}, provider, None, {"max_turns": 3},
                   "json-tools", answer_schema={"type": "integer"})
    assert out["status"] == "answered" and out["answer"] == 3 and out["turns"] == 2
    tool_msg = provider.requests[1]["messages"][-1]
    assert tool_msg["role"] == "tool" and '"records":[{"v":1},{"v":2},{"v":3}]' in tool_msg["content"]


@pytest.mark.parametrize("script, kind, reason", [
    ([{"content": "3", "tool_calls": []}] * 2, "turn_limit", "protocol_error"),
    ([{"content": None, "tool_calls": [{"id": "a", "name": "get_records", "args": {"dataset": "xs"}}]}] * 2,
     "turn_limit", "intermediate_result"),
    ([{"content": None, "tool_calls": [{"id": "a", "name": "drop_table", "args": {}}]}] * 2,
     "turn_limit", "tool_error"),
    ([{"content": None, "tool_calls": [{"id": "a", "name": "submit_answer", "args": {"answer": "3"}}]}] * 2,
     "contract_failure", "result_contract"),
])
def test_json_tools_failure_kinds(script, kind, reason):
    out = run_task("How many?", {"xs": [1, 2, 3]}, ScriptedProvider(script), None, {"max_turns": 2}, "json-tools",
                   answer_schema={"type": "integer"})
    assert (out["failure"]["kind"], out["failure"]["reason"]) == (kind, reason)


@pytest.mark.parametrize("mode", ["ptc", "json-tools"])
def test_run_time_limit_ends_a_slow_run(mode):
    def slow(request):
        time.sleep(0.2)
        if mode == "ptc":
            return _call("(count data/xs)")
        return {"content": None, "tool_calls": [{"id": "a", "name": "get_records", "args": {"dataset": "xs"}}]}
    out = run_task("How many?", {"xs": [1]}, ScriptedProvider(slow), None, {"max_turns": 50, "time_limit_s": 0.5}, mode)
    assert (out["failure"]["kind"], out["failure"]["reason"]) == ("time_limit", "run_time_limit")
    assert 1 <= out["turns"] < 50


# ---------------------------------------------------------------------------------------------
# end to end: the scripted reference model, the baseline and the wrong variant
# ---------------------------------------------------------------------------------------------
def _designed_wrong_counts():
    """What the `wrong` variant is designed to produce on the suite (see models.ReferenceModel)."""
    counts = Counter()
    for t in SUITE.tasks:
        style = ReferenceModel(t, SUITE, "ptc").sabotage_style()
        counts[style] += 1
    return counts


@pytest.fixture(scope="module")
def e2e(tmp_path_factory):
    out = tmp_path_factory.mktemp("bench") / "out"
    rc = cli_main(["--suite", "data-qa", "--model", "ref=scripted:reference", "--variant", "base=none",
                   "--variant", "bad=builtin:wrong", "--workers", "4", "--out", str(out), "--quiet"])
    assert rc == 0
    return out, json.loads((out / "results.json").read_text())


def test_reference_model_scores_100_percent_and_wrong_variant_scores_as_designed(e2e):
    out, results = e2e
    by = {c["config"]: c for c in results["configs"]}
    base, bad = by["ref/base/ptc"], by["ref/bad/ptc"]
    n = len(SUITE.tasks)
    assert (base["runs"], base["passed"], base["failures"]) == (n, n, {})
    assert base["pass_rate_ci95"][1] == 1.0 and base["pass_rate_ci95"][0] < 1.0
    designed = _designed_wrong_counts()
    assert bad["passed"] == designed["correct"]
    assert bad["failures"] == {"wrong_answer": designed["wrong"],
                               "turn_limit:intermediate_result": designed["stall"],
                               "turn_limit:protocol_error": designed["prose"],
                               "contract_failure": designed["contract"]}
    assert bad["by_level"]["1"]["pass_rate"] == 1.0 and bad["by_level"]["2"]["passed"] == 0
    assert base["tokens"]["total"]["input"] > 0 and base["turns"]["mean"] >= 1


def test_paired_comparison_detects_the_wrong_variant(e2e):
    _, results = e2e
    (cmp,) = [c for c in results["comparisons"] if c["what"] == "variant"]
    discordant = len(SUITE.tasks) - _designed_wrong_counts()["correct"]
    assert (cmp["a"], cmp["b"], cmp["only_a"], cmp["only_b"]) == ("ref/base/ptc", "ref/bad/ptc", discordant, 0)
    assert cmp["mcnemar_p"] == pytest.approx(2 / 2 ** discordant)
    lo, hi = cmp["diff_ci95"]
    assert lo <= cmp["diff"] <= hi < 0


def test_every_run_left_outcome_trace_and_timing(e2e):
    out, _ = e2e
    outcomes = list((out / "runs").rglob("outcome.json"))
    assert len(outcomes) == 2 * len(SUITE.tasks)
    rec = json.loads(outcomes[0].read_text())
    assert set(rec) >= {"run", "status", "answer", "failure", "turns", "tokens", "score"}
    assert (outcomes[0].parent / "trace.json").exists() and (outcomes[0].parent / "timing.json").exists()
    table = (out / "table.txt").read_text()
    assert "ref/base/ptc" in table and "McNemar" in table


def test_rerun_resumes_finished_runs(e2e, monkeypatch, tmp_path):
    shared, results = e2e
    out = tmp_path / "out"
    shutil.copytree(shared, out)        # the rerun adds a run: not to the directory the other tests read
    calls = []
    real = runs_mod.run_task
    monkeypatch.setattr(runs_mod, "run_task", lambda *a, **k: calls.append(a) or real(*a, **k))
    assert cli_main(["--model", "ref=scripted:reference", "--variant", "base=none", "--variant", "bad=builtin:wrong",
                     "--out", str(out), "--quiet"]) == 0
    assert calls == []
    again = json.loads((out / "results.json").read_text())
    assert [c["passed"] for c in again["configs"]] == [c["passed"] for c in results["configs"]]
    # a new repeat index runs, the finished ones are still skipped
    assert cli_main(["--model", "ref=scripted:reference", "--variant", "base=none", "--task", "l1-remote",
                     "--repeat", "2", "--out", str(out), "--quiet"]) == 0
    assert len(calls) == 1


@pytest.mark.skipif(CHROMIUM is None, reason="needs chromium on PATH")
def test_html_report_renders_its_charts_in_headless_chromium(e2e, tmp_path):
    out, _ = e2e
    page = out / "report.html"
    assert "<script src" not in page.read_text() and "http" not in page.read_text().split("<svg", 1)[0]
    proc = subprocess.run([CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                           f"--user-data-dir={tmp_path / 'profile'}", "--dump-dom", page.as_uri()],
                          capture_output=True, text=True, timeout=120)
    dom = proc.stdout
    assert 'data-charts-rendered="4"' in dom, proc.stderr[-2000:]
    for chart in ("chart-pass-rate", "chart-tokens", "chart-turns", "chart-outcomes"):
        tag = dom.split(f'id="{chart}"', 1)[1].split(">", 1)[0]
        assert 'data-rendered="yes"' in tag and 'data-marks-drawn="0"' not in tag


# ---------------------------------------------------------------------------------------------
# modes, record/replay, provider failures
# ---------------------------------------------------------------------------------------------
SUBSET = ["--task", "l1-electronics", "--task", "l2-median", "--task", "l3-top-products", "--task", "l3-best-region",
          "--task", "l3-top-customers"]


def test_json_tools_baseline_costs_more_tokens_than_ptc(tmp_path):
    assert cli_main(["--model", "ref=scripted:reference", "--mode", "ptc", "--mode", "json-tools", *SUBSET,
                     "--out", str(tmp_path), "--quiet"]) == 0
    results = json.loads((tmp_path / "results.json").read_text())
    by = {c["config"]: c for c in results["configs"]}
    assert by["ref/base/ptc"]["pass_rate"] == by["ref/base/json-tools"]["pass_rate"] == 1.0
    (cmp,) = [c for c in results["comparisons"] if c["what"] == "mode"]
    assert cmp["mean_tokens_b"]["input"] > 5 * cmp["mean_tokens_a"]["input"]


def test_recorded_benchmark_replays_byte_identically(tmp_path):
    common = ["--model", "ref=scripted:reference", "--variant", "base=none", "--variant", "bad=builtin:wrong",
              "--mode", "ptc", "--mode", "json-tools", *SUBSET, "--quiet", "--workers", "3"]
    first, second = tmp_path / "rec", tmp_path / "rep"
    assert cli_main([*common, "--out", str(first), "--record"]) == 0
    assert cli_main([*common, "--out", str(second), "--replay", str(first)]) == 0
    files = sorted(p.relative_to(first) for p in (first / "runs").rglob("*.json") if p.name != "timing.json")
    assert len(files) == 2 * 2 * 5 * 2          # variants x modes x tasks x (outcome, trace)
    for rel in files:
        assert (first / rel).read_bytes() == (second / rel).read_bytes(), rel
    assert not list((second / "runs").rglob("replay.jsonl"))


def test_replay_without_a_recording_is_a_provider_failure(tmp_path):
    rec = tmp_path / "rec"
    assert cli_main(["--model", "ref=scripted:reference", "--task", "l1-electronics", "--out", str(rec), "--record",
                     "--quiet"]) == 0
    assert cli_main(["--model", "ref=scripted:reference", "--task", "l1-remote", "--out", str(tmp_path / "rep"),
                     "--replay", str(rec), "--quiet"]) == 0
    rec2 = json.loads(next((tmp_path / "rep" / "runs").rglob("outcome.json")).read_text())
    assert rec2["score"]["kind"] == "provider_failure" and rec2["score"]["reason"] == "not_found"


def test_unavailable_model_is_reported_as_provider_failure(tmp_path):
    assert cli_main(["--model", "down=scripted:unavailable", "--level", "1", "--out", str(tmp_path), "--quiet"]) == 0
    results = json.loads((tmp_path / "results.json").read_text())
    (cfg,) = results["configs"]
    assert cfg["passed"] == 0 and cfg["failures"] == {"provider_failure:unavailable": cfg["runs"]}


def test_prices_give_a_cost(tmp_path):
    prices = tmp_path / "prices.json"
    prices.write_text(json.dumps({"ref": {"input": 1.0, "output": 2.0, "cached": 0.5}}))
    assert cli_main(["--model", "ref=scripted:reference", "--task", "l1-electronics", "--out", str(tmp_path / "o"),
                     "--prices", str(prices), "--quiet"]) == 0
    (cfg,) = json.loads((tmp_path / "o" / "results.json").read_text())["configs"]
    t = cfg["tokens"]["total"]
    expected = ((t["input"] - t["cache_read"]) * 1.0 + t["cache_read"] * 0.5 + t["output"] * 2.0) / 1e6
    assert cfg["cost"]["total"] == pytest.approx(expected) and expected > 0


@pytest.mark.parametrize("argv, message", [
    (["--model", "x=scripted:nope"], "scripted models"),
    (["--variant", "v=/no/such.clj"], "neither"),
    (["--suite", "no-such-suite"], "no suite"),
    (["--task", "zzz"], "no task matches"),
    (["--ray-address", "127.0.0.1:1"], "needs --executor ray"),
    (["--model", "a=scripted:reference", "--model", "a=scripted:unavailable"], "share a name"),
])
def test_cli_usage_errors(argv, message, capsys, tmp_path):
    assert cli_main([*argv, "--out", str(tmp_path)]) == 2
    assert message in capsys.readouterr().err


def test_module_entry_point_lists_tasks():
    proc = subprocess.run([sys.executable, "-m", "ptclisp.bench_agent", "--list", "--level", "3"],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0
    lines = proc.stdout.strip().splitlines()
    assert len(lines) == sum(1 for t in SUITE.tasks if t.level == 3) and all("level 3" in ln for ln in lines)


def test_report_functions_on_a_hand_made_result():
    def rec(task, passed, variant, kind="passed"):
        return {"run": {"model": "m", "model_spec": "scripted:reference", "variant": variant, "variant_spec": "none",
                        "mode": "ptc", "task": task, "level": 1, "tags": [], "repeat": 1},
                "turns": 2, "llm_calls": 2, "protocol_errors": 0,
                "tokens": {"input": 100, "output": 10, "cache_read": 50, "cache_creation": 0},
                "provider_cost": None, "engine": "agent-host", "wall_s": 0.5,
                "score": {"passed": passed, "kind": kind, "reason": None, "note": ""}}
    records = [rec("a", True, "x"), rec("b", True, "x"), rec("a", True, "y"), rec("b", False, "y", "wrong_answer")]
    results = summarize(records)
    assert [c["pass_rate"] for c in results["configs"]] == [1.0, 0.5]
    assert results["configs"][1]["failures"] == {"wrong_answer": 1}
    text = terminal_table(results)
    assert "m/y/ptc vs m/x/ptc" in text
    page = html_report(results)
    assert page.count("<svg") == 4 and "m/y/ptc" in page and "<script>" in page
