"""Where a policy comes from: a project's [agent] table (checked by validate) and bench agent variants."""
from __future__ import annotations

import json
import os
import pathlib
import shutil
import subprocess
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "ptclisp" / "project" / "examples" / "orders"
POLICY = '(ns my.policy "Keep the shipped texts.")\n(defn render-feedback [turn state] nil)\n'


def _cli(args, cwd):
    env = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY")}
    return subprocess.run([sys.executable, "-m", "ptclisp.commands.main", *args], cwd=cwd, capture_output=True, text=True,
                          timeout=120, env=env)


@pytest.fixture
def project(tmp_path):
    p = tmp_path / "P"
    shutil.copytree(EXAMPLE, p)
    (p / "policy.clj").write_text(POLICY)
    return p


def _with_agent_table(p: pathlib.Path, table: str):
    text = (p / "ptclisp.toml").read_text()
    (p / "ptclisp.toml").write_text(text.replace("[schemas]", table + "\n\n[schemas]"))


def test_a_project_policy_runs_its_hooks_and_validates(project, tmp_path):
    _with_agent_table(project, '[agent]\npolicy = ["policy.clj"]\ncompaction_at = 0.9')
    assert _cli(["validate", str(project)], tmp_path).returncode == 0
    proc = _cli(["run", str(project), "--trace-dir", "traces"], tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["region"] == "north"
    (run_dir,) = [d for d in (tmp_path / "traces").iterdir() if d.is_dir()]
    events = [json.loads(x) for x in (run_dir / "events.jsonl").read_text().splitlines()]
    assert any(e["kind"] == "policy_call" and e.get("hook") == "render-feedback" for e in events)


@pytest.mark.parametrize("table, rule", [
    ('[agent]\npolicy = ["nohooks.clj"]', "policy_error"),
    ('[agent]\npolicy = ["missing.clj"]', None),
    ('[agent]\ncompaction_at = 3', None),
    ('[agent]\npolcy = ["policy.clj"]', None),
])
def test_validate_refuses_a_bad_agent_table(project, tmp_path, table, rule):
    (project / "nohooks.clj").write_text('(ns my.other)\n(defn render-feedbak [turn state] "x")\n')
    _with_agent_table(project, table)
    proc = _cli(["validate", str(project)], tmp_path)
    assert proc.returncode != 0
    assert "/agent" in proc.stderr
    if rule:
        assert f"[rule: {rule}]" in proc.stderr and "render-feedback" in proc.stderr


def test_a_policy_flag_needs_a_model_on_a_plain_run(tmp_path):
    (tmp_path / "p.clj").write_text("(+ 1 2)")
    (tmp_path / "policy.clj").write_text(POLICY)
    proc = _cli(["run", "p.clj", "--policy", "policy.clj"], tmp_path)
    assert proc.returncode == 2 and "--policy needs a model" in proc.stderr


def test_bench_agent_measures_a_policy_variant(tmp_path):
    from ptclisp.bench_agent.variants import VariantError, parse_variant
    (tmp_path / "policy.clj").write_text(POLICY)
    v = parse_variant(f"terse=policy:{tmp_path / 'policy.clj'}")
    assert v.policy == (str((tmp_path / "policy.clj").resolve()),) and not v.preludes
    with pytest.raises(VariantError):
        parse_variant("x=policy:nope.clj")
    proc = _cli(["bench", "agent", "--model", "ref=scripted:reference", "--variant", "base=none",
                 "--variant", "terse=policy:policy.clj", "--task", "l1-electronics", "--out", "out", "--quiet"],
                tmp_path)
    assert proc.returncode == 0, proc.stderr
    results = json.loads((tmp_path / "out" / "results.json").read_text())
    by = {c["config"]: c for c in results["configs"]}
    assert by["ref/terse/ptc"]["pass_rate"] == by["ref/base/ptc"]["pass_rate"] == 1.0


def test_run_dir_and_bench_agent_take_a_policy_flag(project, tmp_path):
    proc = _cli(["run", str(project), "--policy", str(project / "policy.clj"), "--trace-dir", "traces"], tmp_path)
    assert proc.returncode == 0, proc.stderr
    (run_dir,) = [d for d in (tmp_path / "traces").iterdir() if d.is_dir()]
    events = [json.loads(x) for x in (run_dir / "events.jsonl").read_text().splitlines()]
    assert any(e["kind"] == "policy_call" and e.get("hook") == "render-feedback" for e in events)
    from ptclisp.bench_agent.variants import BASELINE, VariantError, with_policy
    assert with_policy(BASELINE, [str(project / "policy.clj")]).policy == (str((project / "policy.clj").resolve()),)
    with pytest.raises(VariantError):
        with_policy(BASELINE, ["nope.clj"])
