"""Running the benchmark matrix: every planned run, resumable, on threads or on Ray.

`execute(specs, suite, out, ...)` returns the outcome records in `specs`
order.  A rerun skips every run whose outcome.json (runs.py) exists and was
produced by the same model spec, variant contents and task definition;
anything else runs (again).  Pending runs execute on a thread pool
(`workers`) or as Ray tasks (`executor="ray"`, ray_executor.py); either way
this process writes the files, and `Progress` draws a bar on stderr.
Imports runs and ray_executor.
"""
from __future__ import annotations

import concurrent.futures as cf
import json
import os
import pathlib
import sys
import threading
import time

from .ray_executor import run_on_ray
from .runs import RunSpec, perform, store


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


def execute_one(spec: RunSpec, suite, out: pathlib.Path, *, record: bool = False,
                replay_dir: pathlib.Path | None = None, limits: dict | None = None,
                provider_options: dict | None = None, tools=(), trace: dict | None = None) -> dict:
    run_dir = out / spec.rel_dir
    record_to = str(run_dir / "replay.jsonl") if record else None
    replay_from = str(replay_dir / spec.rel_dir / "replay.jsonl") if replay_dir is not None else None
    if record_to and os.path.exists(record_to):
        os.unlink(record_to)          # a rerun records afresh
    outcome, transcript, wall = perform(spec, suite, record_to=record_to, replay_from=replay_from, limits=limits,
                                        provider_options=provider_options, tools=tools, trace=trace)
    return store(spec, out, outcome, transcript, wall)


def execute(specs: list[RunSpec], suite, out: pathlib.Path, *, workers: int = 1, record: bool = False,
            replay_dir: pathlib.Path | None = None, limits: dict | None = None,
            progress: Progress | None = None, force: bool = False, provider_options: dict | None = None,
            executor: str = "threads", ray_address: str | None = None, tools=(), trace: dict | None = None) -> list:
    """Run (or resume) every spec; returns the outcome records in `specs` order.

    `executor="ray"` sends the pending runs to Ray (ray_executor.py; `workers` is then unused).
    `tools` (ptclisp.Tool objects, e.g. of --mcp servers) go to every run's mission (threads only).
    `trace` ({"dir", "inspect"}) writes each run's trace directory (threads only).
    """
    if trace is not None and executor == "ray":
        raise ValueError("trace directories are written by the process that runs the agent: not with Ray")
    out = pathlib.Path(out)
    results: list = [None] * len(specs)
    pending = []
    for i, spec in enumerate(specs):
        done = None if force else _load_done(out / spec.rel_dir / "outcome.json", spec)
        if done is not None:
            timing = _timing(out / spec.rel_dir / "timing.json")
            done["wall_s"] = timing.get("wall_s")
            if timing.get("trace_run"):
                done["trace_run"] = timing["trace_run"]
            results[i] = done
            if progress:
                progress.update(done["score"]["passed"], skipped=True)
        else:
            pending.append(i)

    def work(i):
        rec = execute_one(specs[i], suite, out, record=record, replay_dir=replay_dir, limits=limits,
                          provider_options=provider_options, tools=tools, trace=trace)
        if progress:
            progress.update(rec["score"]["passed"])
        return i, rec

    if executor == "ray":
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


def _timing(path: pathlib.Path) -> dict:
    try:
        timing = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return timing if isinstance(timing, dict) else {}
