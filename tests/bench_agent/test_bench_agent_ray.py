"""`ptclisp bench agent --executor ray` against a local Ray instance.

The Ray tests skip when ray is not installed (it is the optional extra
ptclisp[ray], kept out of the `test` extra).  They start one local instance
for the module (2 CPUs, no dashboard), run a few data-qa tasks with the
scripted reference model through Ray and through the thread pool, and
require the same files byte for byte (timing.json aside).
"""
from __future__ import annotations

import importlib
import json
import logging
import os
import pathlib
import shutil
import subprocess
import sys

import pytest

from ptclisp.bench_agent import load_suite
from ptclisp.commands.bench_agent import cli_main
from ptclisp.bench_agent.models import parse_model
from ptclisp.bench_agent.ray_executor import Bundle, run_in_worker
from ptclisp.bench_agent.runs import plan
from ptclisp.bench_agent.validate import check
from ptclisp.bench_agent.variants import parse_variant

try:
    importlib.import_module("ray")
    HAVE_RAY = True
except ImportError:
    HAVE_RAY = False
needs_ray = pytest.mark.skipif(not HAVE_RAY, reason="needs the ptclisp[ray] extra")

SUITE = load_suite("data-qa")
TASKS = ["--task", "l1-electronics", "--task", "l2-median", "--task", "l3-best-region"]
COMMON = ["--model", "ref=scripted:reference", "--variant", "base=none", "--variant", "bad=builtin:wrong",
          "--mode", "ptc", "--mode", "json-tools", *TASKS]
RUNS = 2 * 2 * 3                      # variants x modes x tasks


@pytest.fixture(scope="module")
def ray_instance():
    import ray
    started = not ray.is_initialized()          # reuse (and leave running) one this process already has
    if started:
        ray.init(address="local", num_cpus=2, include_dashboard=False, logging_level=logging.WARNING)
    yield ray
    if started:
        ray.shutdown()


def _run_files(out: pathlib.Path) -> dict:
    return {str(p.relative_to(out)): p.read_bytes() for p in (out / "runs").rglob("*")
            if p.is_file() and p.name != "timing.json"}


@pytest.fixture(scope="module")
def both(ray_instance, tmp_path_factory):
    """The same recorded benchmark run on threads and on Ray."""
    root = tmp_path_factory.mktemp("ray-bench")
    threads, on_ray = root / "threads", root / "ray"
    assert cli_main([*COMMON, "--record", "--workers", "2", "--out", str(threads), "--quiet"]) == 0
    assert cli_main([*COMMON, "--record", "--executor", "ray", "--out", str(on_ray), "--quiet"]) == 0
    return threads, on_ray


@needs_ray
def test_ray_runs_give_the_same_files_as_threads(both):
    threads, on_ray = both
    mine, theirs = _run_files(on_ray), _run_files(threads)
    kinds = sorted({pathlib.Path(k).name for k in mine})
    assert kinds == ["outcome.json", "replay.jsonl", "trace.json"]
    assert len([k for k in mine if k.endswith("outcome.json")]) == RUNS
    assert sorted(mine) == sorted(theirs)
    for rel in mine:
        assert mine[rel] == theirs[rel], rel
    assert all((on_ray / pathlib.Path(k).parent / "timing.json").exists() for k in mine)


@needs_ray
def test_ray_scores_match_threads_and_the_wrong_variant_still_fails(both):
    threads, on_ray = both
    by = {c["config"]: c for c in json.loads((on_ray / "results.json").read_text())["configs"]}
    ref = {c["config"]: c for c in json.loads((threads / "results.json").read_text())["configs"]}
    assert {k: (c["passed"], c["failures"]) for k, c in by.items()} == \
           {k: (c["passed"], c["failures"]) for k, c in ref.items()}
    assert by["ref/base/ptc"]["passed"] == by["ref/base/json-tools"]["passed"] == 3
    assert by["ref/bad/ptc"]["passed"] == 1           # only the level-1 task survives the sabotage


@needs_ray
def test_command_leaves_an_instance_it_did_not_start_running(both, ray_instance):
    assert ray_instance.is_initialized()
    assert ray_instance.get(ray_instance.remote(lambda: 41 + 1).remote()) == 42


@needs_ray
def test_ray_replay_is_byte_identical_and_a_missing_recording_fails(both, tmp_path):
    threads, _ = both
    again = tmp_path / "again"
    assert cli_main([*COMMON, "--executor", "ray", "--replay", str(threads), "--out", str(again), "--quiet"]) == 0
    replayed = _run_files(again)
    assert len(replayed) == 2 * RUNS and not any(k.endswith("replay.jsonl") for k in replayed)
    for rel, text in replayed.items():
        assert text == (threads / rel).read_bytes(), rel
    lone = tmp_path / "lone"
    assert cli_main(["--model", "ref=scripted:reference", "--task", "l1-remote", "--executor", "ray",
                     "--replay", str(threads), "--out", str(lone), "--quiet"]) == 0
    rec = json.loads(next((lone / "runs").rglob("outcome.json")).read_text())
    assert (rec["score"]["kind"], rec["score"]["reason"]) == ("provider_failure", "not_found")


@needs_ray
def test_ray_rerun_resumes_finished_runs(both, capsys):
    _, on_ray = both
    before = {p: p.stat().st_mtime_ns for p in (on_ray / "runs").rglob("outcome.json")}
    assert cli_main([*COMMON, "--executor", "ray", "--out", str(on_ray)]) == 0
    assert f"{RUNS}/{RUNS} runs, 8 passed, {RUNS} resumed" in capsys.readouterr().err
    assert {p: p.stat().st_mtime_ns for p in before} == before


@needs_ray
def test_cli_connects_through_ray_address_and_leaves_the_cluster_up(ray_instance, tmp_path):
    env = {**os.environ, "RAY_ADDRESS": ray_instance.get_runtime_context().gcs_address}
    proc = subprocess.run([sys.executable, "-m", "ptclisp.bench_agent", "--executor", "ray", "--task",
                           "l1-electronics", "--out", str(tmp_path), "--quiet"],
                          capture_output=True, text=True, timeout=120, env=env)
    assert proc.returncode == 0, proc.stderr[-2000:]
    (cfg,) = json.loads((tmp_path / "results.json").read_text())["configs"]
    assert (cfg["runs"], cfg["passed"]) == (1, 1)
    assert ray_instance.get(ray_instance.remote(lambda: "up").remote()) == "up"


@needs_ray
def test_a_lost_ray_task_is_reported_but_not_stored(ray_instance, tmp_path):
    from ptclisp.bench_agent import ray_executor
    (spec,) = plan([SUITE.task("l1-electronics-count")], [parse_model("ref=scripted:reference")],
                   [parse_variant("base=none")], ["ptc"], 1)
    crash = ray_instance.remote(max_retries=0)(lambda: os._exit(3)).remote()
    rec = ray_executor._finish(ray_instance, crash, spec, tmp_path, record=False)
    assert (rec["score"]["kind"], rec["score"]["passed"], rec["wall_s"]) == ("harness_error", False, None)
    assert "Crashed" in rec["score"]["reason"] and rec["run"] == spec.identity()
    assert not (tmp_path / spec.rel_dir / "outcome.json").exists()     # a rerun retries it


def test_worker_needs_no_shared_disk(tmp_path):
    """A worker gets the task data and the prelude texts from the driver, not from the driver's paths."""
    suite_dir, variant_dir = tmp_path / "suite", tmp_path / "wrong"
    shutil.copytree(SUITE.path, suite_dir)
    shutil.copytree(pathlib.Path(parse_variant("x=builtin:wrong").preludes[0]).parent, variant_dir)
    suite = load_suite(str(suite_dir))
    variants = [parse_variant("base=none"), parse_variant(f"bad={variant_dir}")]
    specs = plan([suite.task("l2-median-salary")], [parse_model("ref=scripted:reference")], variants, ["ptc"], 1)
    bundle = Bundle.of(suite, specs)
    shutil.rmtree(suite_dir)                     # as on a node that never saw these files
    shutil.rmtree(variant_dir)
    results = [run_in_worker(spec, bundle, record=True, replay=None, limits=None, provider_options=None)
               for spec in specs]
    task = specs[0].task
    base, bad = (r["outcome"] for r in results)
    assert base["status"] == bad["status"] == "answered" and all(r["recording"] for r in results)
    assert check(task.validator, base["answer"])[0] is True
    assert check(task.validator, bad["answer"])[0] is False      # the shipped control prelude took effect


def test_missing_ray_is_a_usage_error(monkeypatch, capsys, tmp_path):
    monkeypatch.setitem(sys.modules, "ray", None)
    assert cli_main(["--executor", "ray", "--task", "l1-electronics", "--out", str(tmp_path)]) == 2
    assert "pip install 'ptclisp[ray]'" in capsys.readouterr().err
    assert not (tmp_path / "bench.json").exists()
