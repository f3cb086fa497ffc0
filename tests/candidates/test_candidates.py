"""Improving an agent (issue 27): candidate new / gate / trial / promote / list / show / propose,
`run P --candidate ID`, and the records' JSON Schemas.

The model is the fake OpenAI-compatible server of tests/fake_openai.py over real HTTP, in its
prompt-sensitive mode: it explores on the first turn and then answers right only when the
feedback it got says "Check the value", so a better agent.feedback text really wins the trial.
Every command runs in a subprocess, as a person would run it.
"""
from __future__ import annotations

import json
import os
import pathlib
import subprocess
import sys
import tomllib

import jsonschema
import pytest

from ptclisp.candidates.components import ComponentRef, doc_with
from ptclisp.candidates.promote import edited
from ptclisp.interchange.schemas import load_schema

from fake_openai import FakeOpenAI, feedback_sensitive

ROOT = pathlib.Path(__file__).resolve().parents[2]
SHIPPED_FEEDBACK = (ROOT / "preludes" / "agent.feedback.clj").read_text(encoding="utf-8")
ANCHOR = '"Definitions created by this program stay available to later programs."'
TRIGGER = "Check the value"
TASK = "How many records are in data/items? Answer with an integer."


@pytest.fixture(scope="module")
def llm():
    with FakeOpenAI() as server:
        server.respond(feedback_sensitive(first="(count data/items)", trigger=TRIGGER,
                                          good="(return (count data/items))",
                                          bad="(return (inc (count data/items)))"))
        yield server


def cli(*args, cwd=None, check=None) -> subprocess.CompletedProcess:
    env = {**os.environ, "OPENAI_API_KEY": "test-key", "PYTHONPATH": str(ROOT)}
    env.pop("OPENAI_BASE_URL", None)
    proc = subprocess.run([sys.executable, "-m", "ptclisp", *map(str, args)], capture_output=True, text=True,
                          env=env, cwd=cwd, timeout=300)
    if check is not None:
        assert proc.returncode == check, (proc.returncode, proc.stdout, proc.stderr)
    return proc


def make_project(root: pathlib.Path, url: str) -> pathlib.Path:
    p = root / "P"
    (p / "data").mkdir(parents=True)
    (p / "suite" / "data").mkdir(parents=True)
    (p / "preludes").mkdir()
    (p / "ptclisp.toml").write_text(f"""# counts records
[project]
name = "counter"

[models.main]
provider = "openai"
model = "fake"
base_url = "{url}"
price = {{ input = 1.0, output = 2.0 }}

[tools.lookup]
python = "tools:lookup"
effect = "write"

[tools.peek]
python = "tools:peek"
effect = "read"

[missions.default]
data = {{ items = "data/items.json" }}
tools = ["lookup", "peek"]
preludes = ["preludes/helpers.clj"]   # the mission's helpers

[entry]
task = "{TASK}"
max_turns = 3

[bench]
suite = "suite"
""", encoding="utf-8")
    (p / "tools.py").write_text('def lookup(id: int) -> dict:\n    """Change a record."""\n    return {"id": id}\n\n\n'
                                'def peek(id: int) -> dict:\n    """Read a record."""\n    return {"id": id}\n')
    (p / "preludes" / "helpers.clj").write_text(
        '(ns helpers "Helpers for counting.")\n\n(defn size "How many items." [xs] (count xs))\n\n'
        '(defn first-id "The first item\'s record." [xs] (tool/peek {"id" (first xs)}))\n', encoding="utf-8")
    (p / "data" / "items.json").write_text("[1, 2, 3, 4]")
    tasks = []
    for name, items in (("a", [1, 2, 3]), ("b", [1, 2, 3, 4, 5]), ("c", [7])):
        (p / "suite" / "data" / f"{name}.json").write_text(json.dumps(items))
        tasks.append({"id": f"count-{name}", "question": TASK, "data": {"items": f"data/{name}.json"},
                      "validator": {"type": "exact", "expected": len(items)}})
    (p / "suite" / "manifest.json").write_text(json.dumps({
        "format": "ptclisp-bench-suite/1", "name": "counting", "defaults": {"max_turns": 3, "time_limit_s": 60},
        "tasks": tasks}))
    return p


@pytest.fixture
def project(tmp_path, llm):
    return make_project(tmp_path, llm.url)


def feedback_file(tmp_path: pathlib.Path, name: str, extra: str) -> pathlib.Path:
    assert ANCHOR in SHIPPED_FEEDBACK
    f = tmp_path / f"{name}.clj"
    f.write_text(SHIPPED_FEEDBACK.replace(ANCHOR, ANCHOR[:-1] + "\\n" + extra + '"'), encoding="utf-8")
    return f


def new(project, component, file) -> str:
    out = cli("candidate", "new", project, "--component", component, "--file", file, "--json", check=0)
    return json.loads(out.stdout)["id"]


def statuses(project) -> dict:
    return {r["id"]: r["status"] for r in json.loads(cli("candidate", "list", project, "--json", check=0).stdout)}


def trial(project, cid, *extra, check=0):
    return cli("candidate", "trial", project, cid, "--model", f"main=openai:fake@{_url(project)}", "--quiet", *extra,
               check=check)


def _url(project) -> str:
    return tomllib.loads((project / "ptclisp.toml").read_text())["models"]["main"]["base_url"]


# ------------------------------------------------------------------ done-when: the whole cycle

def test_a_text_only_candidate_passes_the_gate_wins_3_to_0_and_is_promoted(project, tmp_path):
    cid = new(project, "agent.feedback", feedback_file(tmp_path, "better", TRIGGER + " against the question."))
    assert statuses(project) == {cid: "new"}
    before = (project / "ptclisp.toml").read_text()
    out = cli("candidate", "gate", project, cid, check=0)
    assert out.stdout.strip() == f"{cid}: gate passed (agent.feedback)"
    assert statuses(project) == {cid: "gated"}
    out = trial(project, cid)
    assert "incumbent  0/3 passed (0%, Wilson 95% 0-56%)" in out.stdout
    assert "candidate  3/3 passed (100%, Wilson 95% 44-100%)" in out.stdout
    assert "only incumbent 0, only candidate 3, diff +100.0 pts, McNemar exact p = 0.25" in out.stdout
    assert "failures: wrong_answer 3" in out.stdout and "main/candidate/ptc vs main/incumbent/ptc" in out.stdout
    assert (project / "ptclisp.toml").read_text() == before            # a trial never changes the project
    tdir = project / ".ptclisp" / "candidates" / cid / "trials" / "t1"
    assert (tdir / "report.html").read_text().startswith("<!DOCTYPE html>")
    record = json.loads((tdir / "trial.json").read_text())
    jsonschema.validate(record, load_schema("trial"))
    assert record["arms"]["candidate"]["cost_usd"] == pytest.approx(3 * (200 * 1.0 + 40 * 2.0) / 1e6)
    assert statuses(project) == {cid: "trialled"}

    out = cli("candidate", "promote", project, cid, check=0)
    assert f"components/agent.feedback.{cid}.clj" in out.stdout and "not worse (+100.0 pts" in out.stdout
    doc = tomllib.loads((project / "ptclisp.toml").read_text())
    assert doc["agent"]["replace"] == {"agent.feedback": f"components/agent.feedback.{cid}.clj"}
    assert (project / "ptclisp.toml").read_text().startswith(before)   # comments and order kept, one table added
    assert cli("validate", project, check=0).stdout.strip().endswith("valid")
    assert statuses(project) == {cid: "promoted"}
    lines = (project / ".ptclisp" / "promotions.jsonl").read_text().splitlines()
    promotion = json.loads(lines[0])
    jsonschema.validate(promotion, load_schema("promotion"))
    assert (promotion["candidate"], promotion["previous_source"], promotion["trial"]["id"]) == \
        (cid, "ptclisp.preludes/agent.feedback.clj", "t1")
    assert json.loads((project / ".ptclisp" / "candidates" / cid / "candidate.json").read_text())["base"]["sha256"] \
        == promotion["base_sha256"]
    # the promoted feedback is what the project now runs with: the model answers right
    assert json.loads(cli("run", project, check=0).stdout) == 4
    assert cli("candidate", "promote", project, cid, check=3).stderr.strip().endswith("is already promoted")


def test_an_effect_widening_candidate_fails_the_gate_and_cannot_be_promoted(project, tmp_path):
    text = SHIPPED_FEEDBACK.replace("(defn- closing-marker-escaped [s]",
                                    '(defn- closing-marker-escaped [s]\n  (tool/lookup {"id" 1})')
    f = tmp_path / "widen.clj"
    f.write_text(text)
    cid = new(project, "agent.feedback", f)
    out = cli("candidate", "gate", project, cid, check=3)
    lines = out.stderr.strip().splitlines()
    assert lines == [f"{cid}: tool_call: calls tool/lookup, which the base never calls",
                     f"{cid}: write_tool: calls tool/lookup (effect write); the base calls no write tool"]
    assert statuses(project) == {cid: "failed gate"}
    before = (project / "ptclisp.toml").read_text()
    out = cli("candidate", "promote", project, cid, check=3)
    assert out.stderr.strip() == (f"ptclisp candidate promote: {cid} does not pass the gate: tool_call: calls "
                                  f"tool/lookup, which the base never calls (and 1 more: run 'ptclisp candidate gate')")
    assert (project / "ptclisp.toml").read_text() == before
    assert not (project / ".ptclisp" / "promotions.jsonl").exists()


def test_a_candidate_made_against_the_old_base_is_stale_after_another_is_promoted(project, tmp_path):
    winner = new(project, "agent.feedback", feedback_file(tmp_path, "better", TRIGGER + "."))
    other_file = feedback_file(tmp_path, "other", "Keep going.")
    other = new(project, "agent.feedback", other_file)
    cli("candidate", "gate", project, other, check=0)
    trial(project, winner)
    cli("candidate", "promote", project, winner, check=0)
    assert statuses(project) == {winner: "promoted", other: "stale"}
    out = cli("candidate", "gate", project, other, check=3)
    assert out.stderr.startswith(f"{other}: stale: the project's agent.feedback changed since this candidate was made")
    assert "stale" in cli("candidate", "trial", project, other, "--model", "m=openai:x@http://127.0.0.1:9/v1",
                          check=3).stderr
    out = cli("candidate", "promote", project, other, check=3)
    assert f"{other} does not pass the gate: stale:" in out.stderr
    # rebased: the same file made again against the current (promoted) source
    again = new(project, "agent.feedback", other_file)
    assert again != other
    rec = json.loads(cli("candidate", "show", project, again, "--json", check=0).stdout)
    assert rec["rebased_from"] == other and rec["status"] == "new"
    cli("candidate", "gate", project, again, check=0)


def test_propose_turns_the_failed_runs_of_a_trial_into_a_candidate(project, tmp_path):
    base = new(project, "agent.feedback", feedback_file(tmp_path, "noop", "Keep going."))
    trial(project, base, "--trace-dir", tmp_path / "traces", "--inspect")
    tdir = project / ".ptclisp" / "candidates" / base / "trials" / "t1"
    with FakeOpenAI() as debugger:                # the debugging agent's model: a script over real HTTP
        debugger.program('(def f (first (filter (fn [x] (= "incumbent" (get x :variant))) (debug/failures))))')
        debugger.program('(debug/turn (get f :run) 2)')
        debugger.program('(return {"component" "agent.feedback" "rationale" "the value is never checked" '
                         '"source" (replace (debug/component "agent.feedback") "stay available to later programs." '
                         '"stay available to later programs.\\nCheck the value against the question.")})')
        out = cli("candidate", "propose", project, "--runs", tdir, "--model", f"dbg=openai:fake@{debugger.url}",
                  "--component", "agent.feedback", "--trace-dir", tmp_path / "debugger-traces", "--json", check=0)
        second = json.dumps(debugger.requests[2]["messages"])
    rec = json.loads(out.stdout)
    jsonschema.validate(rec, load_schema("candidate"))
    assert rec["origin"]["kind"] == "proposed" and rec["origin"]["failures"] == 6
    assert rec["origin"]["rationale"] == "the value is never checked"
    assert "(return (inc (count data/items)))" in second      # the navigation showed the failed program
    source = (project / ".ptclisp" / "candidates" / rec["id"] / "source.clj").read_text()
    assert "Check the value against the question." in source
    cli("candidate", "gate", project, rec["id"], check=0)
    assert statuses(project)[rec["id"]] == "gated"
    [own] = list((tmp_path / "debugger-traces").iterdir())          # the debugging agent's own run, traced
    assert '"command":"candidate propose"' in (own / "events.jsonl").read_text()


def test_propose_without_failed_runs_says_so(project, tmp_path):
    cid = new(project, "agent.feedback", feedback_file(tmp_path, "better", TRIGGER + "."))
    trial(project, cid)
    runs = tmp_path / "only-passes"
    src = project / ".ptclisp" / "candidates" / cid / "trials" / "t1" / "runs" / "main" / "candidate"
    (runs / "runs" / "main").mkdir(parents=True)
    os.rename(src, runs / "runs" / "main" / "candidate")
    out = cli("candidate", "propose", project, "--runs", runs, "--model", "dbg=openai:x@http://127.0.0.1:9/v1",
              check=5)
    assert out.stderr.strip().endswith("no failed runs there: nothing to propose")


# ------------------------------------------------------------------ run --candidate, thresholds, show

def test_run_with_a_candidate_in_place_changes_nothing(project, tmp_path):
    cid = new(project, "agent.feedback", feedback_file(tmp_path, "better", TRIGGER + "."))
    before = (project / "ptclisp.toml").read_text()
    assert json.loads(cli("run", project, check=0).stdout) == 5
    assert json.loads(cli("run", project, "--candidate", cid, check=0).stdout) == 4
    assert (project / "ptclisp.toml").read_text() == before
    assert "no candidate 'c-0000000000'" in cli("run", project, "--candidate", "c-0000000000", check=2).stderr


def test_promotion_refuses_without_a_trial_and_below_the_thresholds(project, tmp_path):
    cid = new(project, "agent.feedback", feedback_file(tmp_path, "better", TRIGGER + "."))
    out = cli("candidate", "promote", project, cid, check=3)
    assert f"{cid} has no trial against the current agent.feedback" in out.stderr
    trial(project, cid)
    out = cli("candidate", "promote", project, cid, "--require-p", "0.05", check=3)
    assert out.stderr.strip() == (f"ptclisp candidate promote: {cid} is not promoted: trial t1: no improvement at "
                                  f"McNemar p <= 0.05 (diff +100.0 pts, p = 0.25)")
    worse = new(project, "agent.feedback", feedback_file(tmp_path, "worse", "Keep going."))
    # the incumbent loses nothing against a no-op: diff 0 < --min-delta 0.5
    record = json.loads(trial(project, worse, "--json").stdout)      # --json: one record with both arms
    jsonschema.validate(record, load_schema("trial"))
    assert (record["arms"]["incumbent"]["passed"], record["arms"]["candidate"]["passed"]) == (0, 0)
    assert record["comparison"]["mcnemar_p"] == 1.0
    out = cli("candidate", "promote", project, worse, "--min-delta", "0.5", check=3)
    assert "pass rate is +0.0 pts against the incumbent, below --min-delta +50.0 pts" in out.stderr
    assert not (project / ".ptclisp" / "promotions.jsonl").exists()
    out = cli("candidate", "show", project, cid, check=0).stdout
    assert out.startswith(f"{cid}  trialled  agent.feedback") and "McNemar exact p = 0.25" in out
    assert "+Check the value." in out or "Check the value." in out


def test_a_mission_prelude_candidate_is_promoted_beside_the_old_file(project, tmp_path):
    f = tmp_path / "helpers.clj"
    f.write_text((project / "preludes" / "helpers.clj").read_text().replace('"How many items."',
                                                                            '"How many items there are."'))
    cid = new(project, "prelude:preludes/helpers.clj", f)
    cli("candidate", "gate", project, cid, check=0)
    trial(project, cid)
    cli("candidate", "promote", project, cid, check=0)
    doc = tomllib.loads((project / "ptclisp.toml").read_text())
    assert doc["missions"]["default"]["preludes"] == [f"preludes/helpers.{cid}.clj"]
    assert (project / "preludes" / "helpers.clj").exists()                   # the old one is kept
    assert "# the mission's helpers" in (project / "ptclisp.toml").read_text()
    cli("validate", project, check=0)


# ------------------------------------------------------------------ policy candidates ([agent] policy hooks)

POLICY_NS = '(ns loop.policy "How the loop talks back to the model.")\n\n'
UNHELPFUL = POLICY_NS + '(defn render-feedback "Feedback after a turn." [turn state] "Keep going.")\n'
HELPFUL = POLICY_NS + ('(defn render-feedback "Feedback after a turn." [turn state]\n'
                       f'  (str "{TRIGGER} against the question. " (get turn "text")))\n')


def with_policy(project) -> pathlib.Path:
    """The project with a loop policy whose render-feedback hook says nothing useful."""
    (project / "policies").mkdir()
    (project / "policies" / "terse.clj").write_text(UNHELPFUL, encoding="utf-8")
    with (project / "ptclisp.toml").open("a", encoding="utf-8") as fh:
        fh.write('\n[agent]\npolicy = ["policies/terse.clj"]   # the loop\'s feedback policy\n')
    cli("validate", project, check=0)
    return project


def test_a_policy_candidate_passes_the_gate_wins_3_to_0_and_is_promoted_into_agent_policy(project, tmp_path):
    with_policy(project)
    f = tmp_path / "helpful.clj"
    f.write_text(HELPFUL, encoding="utf-8")
    cid = new(project, "policy:policies/terse.clj", f)
    assert cli("candidate", "gate", project, cid, check=0).stdout.strip() == \
        f"{cid}: gate passed (policy:policies/terse.clj)"
    before = (project / "ptclisp.toml").read_text()
    assert json.loads(cli("run", project, check=0).stdout) == 5                      # the incumbent policy misleads
    assert json.loads(cli("run", project, "--candidate", cid, check=0).stdout) == 4  # the candidate's hook in place
    assert (project / "ptclisp.toml").read_text() == before
    out = trial(project, cid)
    assert "incumbent  0/3 passed (0%, Wilson 95% 0-56%)" in out.stdout
    assert "candidate  3/3 passed (100%, Wilson 95% 44-100%)" in out.stdout
    assert "only incumbent 0, only candidate 3, diff +100.0 pts, McNemar exact p = 0.25" in out.stdout
    record = json.loads((project / ".ptclisp" / "candidates" / cid / "trials" / "t1" / "trial.json").read_text())
    jsonschema.validate(record, load_schema("trial"))
    assert (project / "ptclisp.toml").read_text() == before

    out = cli("candidate", "promote", project, cid, check=0)
    assert f"policies/terse.{cid}.clj" in out.stdout and "not worse (+100.0 pts" in out.stdout
    text = (project / "ptclisp.toml").read_text()
    assert tomllib.loads(text)["agent"]["policy"] == [f"policies/terse.{cid}.clj"]
    assert text == before.replace('"policies/terse.clj"', f'"policies/terse.{cid}.clj"')  # one string changed
    assert (project / "policies" / "terse.clj").read_text() == UNHELPFUL              # the old file is kept
    assert (project / "policies" / f"terse.{cid}.clj").read_text() == HELPFUL
    assert cli("validate", project, check=0).stdout.strip().endswith("valid")
    promotion = json.loads((project / ".ptclisp" / "promotions.jsonl").read_text().splitlines()[0])
    jsonschema.validate(promotion, load_schema("promotion"))
    assert (promotion["component"], promotion["previous_source"], promotion["new_source"]) == \
        ("policy:policies/terse.clj", "policies/terse.clj", f"policies/terse.{cid}.clj")
    assert json.loads(cli("run", project, check=0).stdout) == 4                      # the project now runs it
    assert statuses(project) == {cid: "promoted"}


@pytest.mark.parametrize("body, rules, message", [
    # an effect-widening policy: it calls a (write) tool, which policy code may never do
    ('(defn render-feedback [turn state] (str (tool/lookup {"id" 1})))\n', ["policy", "tool_call", "write_tool"],
     "policy: loop.policy/render-feedback names tool/lookup, but policy code runs without tools"),
    # a misspelt hook: the policy exports none of the hooks, so it would silently do nothing
    ('(defn render-feedbak [turn state] "Check the value.")\n', ["policy", "exports"],
     "policy: the policy exports none of the hooks render-feedback, render-prompt, project-context, compact"),
])
def test_a_policy_candidate_the_host_would_refuse_fails_the_gate(project, tmp_path, body, rules, message):
    with_policy(project)
    f = tmp_path / "bad.clj"
    f.write_text(POLICY_NS + body, encoding="utf-8")
    cid = new(project, "policy:policies/terse.clj", f)
    out = cli("candidate", "gate", project, cid, check=3)
    lines = out.stderr.strip().splitlines()
    assert [line.split(": ")[1] for line in lines] == rules, lines
    assert lines[0] == f"{cid}: {message}"
    assert statuses(project) == {cid: "failed gate"}
    before = (project / "ptclisp.toml").read_text()
    out = cli("candidate", "promote", project, cid, check=3)
    assert out.stderr.startswith(f"ptclisp candidate promote: {cid} does not pass the gate: {message}")
    assert (project / "ptclisp.toml").read_text() == before
    assert not (project / "policies" / f"terse.{cid}.clj").exists()


def test_a_policy_trial_arm_carries_the_candidate_policy_to_a_ray_worker(project, tmp_path, monkeypatch):
    """The candidate arm's bench Variant has the candidate file in place of the named policy (the other arm the
    project's), and a Ray Bundle carries it: the worker runs it where the file does not exist."""
    from ptclisp.bench_agent.models import parse_model
    from ptclisp.bench_agent.ray_executor import Bundle, run_in_worker
    from ptclisp.bench_agent.runs import plan
    from ptclisp.bench_agent.suite import load_suite
    from ptclisp.candidates.components import arm, parse_id
    from ptclisp.project import load_project
    monkeypatch.setenv("OPENAI_API_KEY", "test-key")
    without_tools(project)
    with_policy(project)
    f = tmp_path / "helpful.clj"
    f.write_text(HELPFUL, encoding="utf-8")
    cid = new(project, "policy:policies/terse.clj", f)
    p = load_project(str(project))
    source = project / ".ptclisp" / "candidates" / cid / "source.clj"
    variants = [arm(p, "incumbent"), arm(p, "candidate", (parse_id("policy:policies/terse.clj"), str(source)))]
    assert variants[0].policy == (str(project / "policies" / "terse.clj"),)
    assert variants[1].policy == (str(source),) and not variants[1].preludes and not variants[1].replace
    suite = load_suite(str(project / "suite"))
    specs = plan(suite.tasks[:1], [parse_model(f"main=openai:fake@{_url(project)}")], variants, ["ptc"], 1)
    bundle = Bundle.of(suite, specs)
    source.rename(tmp_path / "elsewhere.clj")
    outcomes = [run_in_worker(s, bundle, record=False, replay=None, limits=None, provider_options=None)["outcome"]
                for s in specs]
    assert [o["answer"] for o in outcomes] == [4, 3], outcomes


# ------------------------------------------------------------------ the gate's rules one by one

HELPERS = '(ns helpers "Helpers for counting.")\n\n'


@pytest.mark.parametrize("body, rule, message", [
    ('(defn size "How many items." [xs n] (count xs))\n(defn first-id [xs] (tool/peek {"id" (first xs)}))',
     "exports", "helpers/size takes 2 argument(s), the base 1"),
    ('(defn first-id [xs] (tool/peek {"id" (first xs)}))', "exports", "helpers/size is gone"),
    ('(defn- size [xs] (count xs))\n(defn first-id [xs] (tool/peek {"id" (first xs)}))',
     "visibility", "helpers/size is private; the base exports it"),
    ('(defn size {:visibility :discoverable} [xs] (count xs))\n(defn first-id [xs] (tool/peek {"id" (first xs)}))',
     "visibility", "helpers/size is :visibility discoverable, the base prompt"),
    ('(defn size [xs] (count xs))\n(defn first-id {:requires [\"tool:lookup\"]} [xs] (tool/peek {"id" (first xs)}))',
     "grant", "helpers/first-id requires tool:lookup"),
    ('(defn size [xs] (count xs))\n(defn first-id [xs] (tool/peek {"id" (first xs)}))\n'
     '(defn mark [x] (tool/lookup {"id" x}))', "tool_call", "calls tool/lookup, which the base never calls"),
    ('(defn size [xs & more] (count xs))\n(defn first-id [xs] (tool/peek {"id" (first xs)}))', None, None),
    ('(defn size [xs] (count xs)\n', "compile", "Error (parse_error)"),
    ('(defn size [xs] (cnt xs))\n(defn first-id [xs] (tool/peek {"id" (first xs)}))', "compile",
     "unbound_var: Unable to resolve symbol: cnt"),
])
def test_gate_rules(project, tmp_path, body, rule, message):
    f = tmp_path / "c.clj"
    f.write_text(HELPERS + body + "\n")
    cid = new(project, "prelude:preludes/helpers.clj", f)
    out = cli("candidate", "gate", project, cid)
    if rule is None:
        assert out.returncode == 0, out.stderr
        return
    assert out.returncode == 3
    lines = out.stderr.strip().splitlines()
    assert any(line.startswith(f"{cid}: {rule}: ") and message in line for line in lines), lines


def test_gate_namespace_and_size_rules(project, tmp_path):
    f = tmp_path / "renamed.clj"
    f.write_text('(ns helpers2 "x")\n(defn size [xs] (count xs))\n')
    cid = new(project, "prelude:preludes/helpers.clj", f)
    assert f"{cid}: namespace: defines helpers2; the base defines helpers" in \
        cli("candidate", "gate", project, cid, check=3).stderr
    big = tmp_path / "big.clj"
    big.write_text((project / "preludes" / "helpers.clj").read_text() + ";" + "x" * 20000 + "\n")
    cid = new(project, "prelude:preludes/helpers.clj", big)
    assert f"{cid}: size: 20" in cli("candidate", "gate", project, cid, check=3).stderr


def test_unknown_components_and_candidates_are_usage_errors(project, tmp_path):
    f = tmp_path / "x.clj"
    f.write_text("(ns x)\n")
    out = cli("candidate", "new", project, "--component", "kernel", "--file", f, check=2)
    assert "--component 'kernel': expected agent.feedback, agent.prompt, agent.core, prelude:FILE" in out.stderr
    out = cli("candidate", "new", project, "--component", "prelude:nope.clj", "--file", f, check=3)
    assert "nope.clj is not in the project's [missions] preludes (it has: preludes/helpers.clj)" in out.stderr
    out = cli("candidate", "new", project, "--component", "policy:p.clj", "--file", f, check=3)
    assert "p.clj is not in the project's [agent] policy" in out.stderr
    assert "no candidate 'c-1'" in cli("candidate", "gate", project, "c-1", check=2).stderr
    assert cli("candidate", "list", project, check=0).stdout.strip() == f"no candidates in {project}"


def test_validate_checks_agent_replace_and_bench_suite(project):
    toml = project / "ptclisp.toml"
    toml.write_text(toml.read_text().replace('suite = "suite"', 'suite = "nosuite"') +
                    '\n[agent]\nreplace = { "agent.feedback" = "components/missing.clj" }\n')
    err = cli("validate", project, check=3).stderr
    assert "/agent/replace/agent.feedback: components/missing.clj" in err and "/bench/suite: nosuite" in err
    toml.write_text(toml.read_text().replace('"agent.feedback" =', '"kernel" ='))
    assert "/agent/replace" in cli("validate", project, check=3).stderr


# ------------------------------------------------------------------ editing ptclisp.toml

@pytest.mark.parametrize("text", [
    '[project]\nname = "x"\n',
    '[project]\nname = "x"\n\n[agent]  # the loop\n',
    '[project]\nname = "x"\n\n[agent]\nreplace = { "agent.prompt" = "p.clj" }\n',
    '[project]\nname = "x"\n\n[agent]\nreplace = {}\n',
    '[project]\nname = "x"\n\n[agent.replace]\n"agent.prompt" = "p.clj"\n',
    '[project]\nname = "x"\n\n[agent]\nreplace = { "agent.feedback" = "old.clj" }  # was\n',
])
def test_promotion_edits_the_document_and_nothing_else(text):
    ref = ComponentRef("agent.feedback", "agent", "agent.feedback")
    doc = tomllib.loads(text)
    new_text = edited(text, doc, ref, "components/f.clj")
    assert tomllib.loads(new_text) == doc_with(doc, ref, "components/f.clj")
    assert all(line in new_text for line in text.splitlines() if line.startswith("#") or "# " in line
               and "old.clj" not in line)


# ------------------------------------------------------------------ shipped schemas and docs

@pytest.mark.parametrize("page", ["candidate-schema", "trial-schema", "promotion-schema"])
def test_the_record_schemas_are_printed_by_docs(page):
    schema = json.loads(cli("docs", page, check=0).stdout)
    jsonschema.Draft202012Validator.check_schema(schema)


def test_the_candidates_docs_page_and_help():
    assert "candidate promote" in cli("docs", "candidates", check=0).stdout
    out = cli("candidate", "--help", check=0).stdout
    assert "propose" in out and "exit status" in out


def without_tools(project) -> None:
    """The entry mission without its Python tools and the prelude calling them (Ray workers get neither)."""
    toml = project / "ptclisp.toml"
    toml.write_text(toml.read_text().replace('tools = ["lookup", "peek"]\n', "").replace(
        'preludes = ["preludes/helpers.clj"]   # the mission\'s helpers\n', ""))


def test_trial_on_ray(project, tmp_path):
    pytest.importorskip("ray")
    without_tools(project)
    cid = new(project, "agent.feedback", feedback_file(tmp_path, "better", TRIGGER + "."))
    rec = json.loads(trial(project, cid, "--executor", "ray", "--json").stdout)
    assert rec["executor"] == "ray" and rec["arms"]["candidate"]["passed"] == 3


def test_the_trial_arms_carry_their_sources_to_a_ray_worker(project, tmp_path, monkeypatch):
    """Without Ray itself: the Bundle a trial sends holds the candidate's source, and the worker function
    runs the candidate arm from it even where the candidate's file does not exist."""
    from ptclisp.bench_agent.models import parse_model
    from ptclisp.bench_agent.ray_executor import Bundle, run_in_worker
    from ptclisp.bench_agent.runs import plan
    from ptclisp.bench_agent.suite import load_suite
    from ptclisp.candidates.components import arm, parse_id
    from ptclisp.project import load_project
    monkeypatch.setenv("OPENAI_API_KEY", "test-key")
    without_tools(project)
    cid = new(project, "agent.feedback", feedback_file(tmp_path, "better", TRIGGER + "."))
    p = load_project(str(project))
    source = project / ".ptclisp" / "candidates" / cid / "source.clj"
    variants = [arm(p, "incumbent"), arm(p, "candidate", (parse_id("agent.feedback"), str(source)))]
    suite = load_suite(str(project / "suite"))
    specs = plan(suite.tasks[:1], [parse_model(f"main=openai:fake@{_url(project)}")], variants, ["ptc"], 1)
    bundle = Bundle.of(suite, specs)
    source.rename(tmp_path / "elsewhere.clj")
    outcomes = [run_in_worker(s, bundle, record=False, replay=None, limits=None, provider_options=None)["outcome"]
                for s in specs]
    assert [o["answer"] for o in outcomes] == [4, 3], outcomes          # count-a has 3 items: the incumbent answers one too many


def test_a_ray_trial_refuses_a_project_whose_mission_grants_python_tools(project, tmp_path):
    from ptclisp.candidates.components import CandidateError
    from ptclisp.candidates.trial import run_trial
    from ptclisp.project import load_project
    cid = new(project, "agent.feedback", feedback_file(tmp_path, "better", TRIGGER + "."))
    with pytest.raises(CandidateError, match=r"--executor ray: the entry mission grants Python tools \(lookup, peek\)"):
        run_trial(load_project(str(project)), cid, suite_path=None, model="m=openai:x", executor="ray")


def test_new_records_the_run_it_came_from(project, tmp_path):
    f = feedback_file(tmp_path, "better", TRIGGER + ".")
    (tmp_path / "traces" / "20260101T000000Z-abc123").mkdir(parents=True)
    out = cli("candidate", "new", project, "--component", "agent.feedback", "--file", f, "--from-run",
              "20260101T000000Z-abc123", "--runs", tmp_path / "traces", "--json", check=0)
    rec = json.loads(cli("candidate", "show", project, json.loads(out.stdout)["id"], "--json", check=0).stdout)
    assert rec["origin"] == {"kind": "runs", "file": str(f), "runs": str(tmp_path / "traces"),
                             "run": "20260101T000000Z-abc123"}
    out = cli("candidate", "new", project, "--component", "agent.feedback", "--file", f, "--from-run", "nope",
              "--runs", tmp_path / "traces", check=2)
    assert "--from-run nope: no such run under" in out.stderr
