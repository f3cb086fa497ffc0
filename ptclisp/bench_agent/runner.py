"""Running the benchmark matrix: task x model x variant x mode x repeat.

Each run has its own directory under the output directory::

    runs/<model>/<variant>/<mode>/<task>/r<k>/
        outcome.json   what happened and its score (written last: its presence means "finished")
        trace.json     the final transcript (long texts cut) and per-turn events
        timing.json    wall time (kept apart so outcome and trace are byte-identical on replay)
        replay.jsonl   the model's answers, when recording (ptclisp.providers fixture format)

A rerun skips every run whose outcome.json exists and was produced by the
same model spec, variant contents and task definition; anything else runs
(again).  Runs execute on a thread pool (`workers`) or as Ray tasks
(`executor="ray"`, ray_executor.py); either way this process writes the
files, and progress goes to stderr.  Imports runner_adapter, models, validate.
"""
from __future__ import annotations

import concurrent.futures as cf
import hashlib
import json
import os
import pathlib
import sys
import threading
import time

import attrs

from .models import ModelEntry, provider_for
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


class Progress:
    """A plain-text progress bar on stderr (redrawn in place on a terminal, one line per 10 % otherwise)."""

    def __init__(self, total: int, stream=None, enabled: bool = True):
        self.total = total
        self.done = self.passed = self.skipped = 0
        self.stream = stream or sys.stderr
        self.enabled = enabled and total > 0
        self.tty = hasattr(self.stream, "isatty") and self.stream.isatty()
        self.started = time.monotonic()
        self._last_decile = -1
        self._lock = threading.Lock()

    def update(self, passed: bool, skipped: bool = False) -> None:
        with self._lock:
            self.done += 1
            self.passed += int(passed)
            self.skipped += int(skipped)
            if not self.enabled:
                return
            decile = self.done * 10 // self.total
            if self.tty or decile != self._last_decile or self.done == self.total:
                self._last_decile = decile
                self.stream.write(self.line() + ("\r" if self.tty and self.done < self.total else "\n"))
                self.stream.flush()

    def line(self) -> str:
        width = 30
        filled = width * self.done // self.total if self.total else width
        elapsed = time.monotonic() - self.started
        skipped = f", {self.skipped} resumed" if self.skipped else ""
        return (f"[{'#' * filled}{'.' * (width - filled)}] {self.done}/{self.total} runs, "
                f"{self.passed} passed{skipped}, {elapsed:.1f}s")


def _load_done(path: pathlib.Path, spec: RunSpec) -> dict | None:
    try:
        record = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if record.get("run") != spec.identity():
        return None
    return record


def perform(spec: RunSpec, suite, *, record_to: str | None = None, replay_from: str | None = None,
            limits: dict | None = None, provider_options: dict | None = None) -> tuple[dict, object, float]:
    """Run one spec and return `(outcome without its trace, trace, wall seconds)`.

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
        outcome = run_task(task.question, suite.data_for(task), provider, spec.variant, run_limits, spec.mode,
                           answer_schema=task.answer_schema, model_name=spec.model.name)
    except Exception as e:  # noqa: BLE001 - e.g. a provider that cannot be built (missing key, bad fixture)
        from .runlog import RunLog
        outcome = RunLog("harness").outcome(kind="provider_failure" if "provider" in type(e).__module__ else
                                            "harness_error", reason=type(e).__name__, message=str(e))
    wall = time.monotonic() - started
    trace = outcome.pop("trace", None)
    return outcome, trace, wall


def store(spec: RunSpec, out: pathlib.Path, outcome: dict, trace, wall: float) -> dict:
    """Score one finished run, write its files under `out` (outcome.json last) and return its record."""
    run_dir = out / spec.rel_dir
    record_obj = {"run": spec.identity(), **outcome, "score": score(spec.task, outcome)}
    write_atomic(run_dir / "trace.json", dump(trace))
    write_atomic(run_dir / "timing.json", dump({"wall_s": round(wall, 4)}))
    write_atomic(run_dir / "outcome.json", dump(record_obj))
    record_obj["wall_s"] = round(wall, 4)
    return record_obj


def execute_one(spec: RunSpec, suite, out: pathlib.Path, *, record: bool = False,
                replay_dir: pathlib.Path | None = None, limits: dict | None = None,
                provider_options: dict | None = None) -> dict:
    run_dir = out / spec.rel_dir
    record_to = str(run_dir / "replay.jsonl") if record else None
    replay_from = str(replay_dir / spec.rel_dir / "replay.jsonl") if replay_dir is not None else None
    if record_to and os.path.exists(record_to):
        os.unlink(record_to)          # a rerun records afresh
    outcome, trace, wall = perform(spec, suite, record_to=record_to, replay_from=replay_from, limits=limits,
                                   provider_options=provider_options)
    return store(spec, out, outcome, trace, wall)


def execute(specs: list[RunSpec], suite, out: pathlib.Path, *, workers: int = 1, record: bool = False,
            replay_dir: pathlib.Path | None = None, limits: dict | None = None,
            progress: Progress | None = None, force: bool = False, provider_options: dict | None = None,
            executor: str = "threads", ray_address: str | None = None) -> list:
    """Run (or resume) every spec; returns the outcome records in `specs` order.

    `executor="ray"` sends the pending runs to Ray (ray_executor.py; `workers` is then unused).
    """
    out = pathlib.Path(out)
    results: list = [None] * len(specs)
    pending = []
    for i, spec in enumerate(specs):
        done = None if force else _load_done(out / spec.rel_dir / "outcome.json", spec)
        if done is not None:
            done["wall_s"] = _wall(out / spec.rel_dir / "timing.json")
            results[i] = done
            if progress:
                progress.update(done["score"]["passed"], skipped=True)
        else:
            pending.append(i)

    def work(i):
        rec = execute_one(specs[i], suite, out, record=record, replay_dir=replay_dir, limits=limits, provider_options=provider_options)
        if progress:
            progress.update(rec["score"]["passed"])
        return i, rec

    if executor == "ray":
        from .ray_executor import run_on_ray
        for j, rec in run_on_ray([specs[i] for i in pending], suite, out, record=record, replay_dir=replay_dir,
                                 limits=limits, provider_options=provider_options, address=ray_address):
            results[pending[j]] = rec
            if progress:
                progress.update(rec["score"]["passed"])
    elif workers <= 1:
        for i in pending:
            _, results[i] = work(i)
    else:
        with cf.ThreadPoolExecutor(max_workers=workers, thread_name_prefix="bench") as pool:
            for i, rec in pool.map(work, pending):
                results[i] = rec
    return results


def _wall(path: pathlib.Path) -> float | None:
    try:
        return json.loads(path.read_text(encoding="utf-8")).get("wall_s")
    except (OSError, ValueError):
        return None
