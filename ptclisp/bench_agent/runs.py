"""One run of the benchmark matrix: its spec, running it, scoring it and storing its files.

A run is one task x model x variant x mode x repeat (`RunSpec`; `plan`
lists them).  `perform` runs one spec and returns its outcome, trace and
wall time without writing anything but a recording; `store` scores it
(`score`, by the task's validator) and writes its directory under the output
directory::

    runs/<model>/<variant>/<mode>/<task>/r<k>/
        outcome.json   what happened and its score (written last: its presence means "finished")
        trace.json     the final transcript (long texts cut) and per-turn events
        timing.json    wall time and, with --trace-dir, the run's trace directory (kept apart so
                       outcome and trace are byte-identical on replay)
        replay.jsonl   the model's answers, when recording (ptclisp.providers fixture format)

Both executors use these: the thread pool of runner.py in this process and
the Ray tasks of ray_executor.py in a worker.  Imports runner_adapter,
models, validate, runlog.
"""
from __future__ import annotations

import hashlib
import json
import os
import pathlib
import threading
import time

import attrs

from .models import ModelEntry, provider_for
from .runlog import RunLog
from .runner_adapter import run_task
from .validate import check


def dump(obj) -> str:
    """The JSON text of every file the bench writes: sorted keys, one-space indent, UTF-8."""
    return json.dumps(obj, indent=1, sort_keys=True, ensure_ascii=False) + "\n"


def write_atomic(path: pathlib.Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.{threading.get_ident()}.tmp")
    tmp.write_text(text, encoding="utf-8")
    os.replace(tmp, path)


def task_fingerprint(task) -> str:
    blob = json.dumps({"q": task.question, "v": task.validator, "s": task.answer_schema,
                       "d": sorted(task.data_files), "r": list(task.reference)}, sort_keys=True)
    return hashlib.sha256(blob.encode()).hexdigest()[:12]


@attrs.frozen
class RunSpec:
    model: ModelEntry
    variant: object          # variants.Variant
    mode: str
    task: object             # suite.Task
    repeat: int

    @property
    def rel_dir(self) -> str:
        return f"runs/{self.model.name}/{self.variant.name}/{self.mode}/{self.task.id}/r{self.repeat}"

    def identity(self) -> dict:
        return {"model": self.model.name, "model_spec": self.model.spec, "variant": self.variant.name,
                "variant_spec": self.variant.spec, "variant_fingerprint": self.variant.fingerprint(),
                "mode": self.mode, "task": self.task.id, "task_fingerprint": task_fingerprint(self.task),
                "level": self.task.level, "tags": list(self.task.tags), "repeat": self.repeat}


def plan(tasks, models, variants, modes, repeat: int) -> list[RunSpec]:
    return [RunSpec(m, v, mode, t, r) for m in models for v in variants for mode in modes
            for t in tasks for r in range(1, repeat + 1)]


def score(task, outcome: dict) -> dict:
    """`{"passed", "kind", "reason", "note"}`: kind is "passed", "wrong_answer" or the failure kind."""
    if outcome["status"] == "answered":
        ok, note = check(task.validator, outcome["answer"])
        return {"passed": ok, "kind": "passed" if ok else "wrong_answer", "reason": None, "note": note}
    failure = outcome.get("failure") or {}
    return {"passed": False, "kind": failure.get("kind") or "harness_error", "reason": failure.get("reason"),
            "note": failure.get("message") or ""}


def perform(spec: RunSpec, suite, *, record_to: str | None = None, replay_from: str | None = None,
            limits: dict | None = None, provider_options: dict | None = None,
            tools=(), trace: dict | None = None) -> tuple[dict, object, float]:
    """Run one spec and return `(outcome without its trace, trace, wall seconds)`.

    `tools` (ptclisp.Tool objects, e.g. of --mcp servers) are granted to the
    mission's programs in ptc mode.

    Writes nothing but the recording at `record_to` (when given).  Both
    executors call this: the thread pool in-process, Ray inside a worker
    (ray_executor.py); the caller stores the result with `store`.
    """
    task = spec.task
    run_limits = {**suite.limits_for(task), **{k: v for k, v in (limits or {}).items() if v is not None}}
    started = time.monotonic()
    try:
        provider = provider_for(spec.model, task, suite, spec.mode, record_to=record_to, replay_from=replay_from,
                                options=(provider_options or {}).get(spec.model.name))
        run_trace = None if trace is None else {**trace, "meta": {"bench_run": spec.rel_dir}}
        outcome = run_task(task.question, suite.data_for(task), provider, spec.variant, run_limits, spec.mode,
                           answer_schema=task.answer_schema, model_name=spec.model.name, tools=tools,
                           trace=run_trace)
    except Exception as e:  # noqa: BLE001 - e.g. a provider that cannot be built (missing key, bad fixture)
        outcome = RunLog("harness").outcome(kind="provider_failure" if "provider" in type(e).__module__ else
                                            "harness_error", reason=type(e).__name__, message=str(e))
    wall = time.monotonic() - started
    trace = outcome.pop("trace", None)
    return outcome, trace, wall


def store(spec: RunSpec, out: pathlib.Path, outcome: dict, trace, wall: float) -> dict:
    """Score one finished run, write its files under `out` (outcome.json last) and return its record."""
    run_dir = out / spec.rel_dir
    trace_run = outcome.pop("trace_run", None)      # differs on every run: kept beside the wall time
    record_obj = {"run": spec.identity(), **outcome, "score": score(spec.task, outcome)}
    write_atomic(run_dir / "trace.json", dump(trace))
    timing = {"wall_s": round(wall, 4), **({"trace_run": trace_run} if trace_run else {})}
    write_atomic(run_dir / "timing.json", dump(timing))
    write_atomic(run_dir / "outcome.json", dump(record_obj))
    record_obj["wall_s"] = round(wall, 4)
    if trace_run:
        record_obj["trace_run"] = trace_run
    return record_obj


