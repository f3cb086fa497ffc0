"""`--executor ray`: the benchmark's runs as Ray tasks, for work that outgrows one machine.

Needs the optional extra (`pip install 'ptclisp[ray]'`); every node of the
cluster needs ptclisp installed, and provider API keys in its environment
when live models are used.

Each pending run becomes one Ray task (one CPU) that calls
`runs.perform`, the same per-run function the thread pool calls, and
sends back the outcome, the trace and the wall time.  The driver alone
writes under `--out` (`runs.store`), so resume, progress and reports work
exactly as with threads.  Nothing a worker reads has to be on a shared
disk: the driver sends the task data, the variants' prelude files and, with
`--replay`, each run's recording; a worker uses its own copy of a file only
when it holds the same text at the same path, and otherwise writes the text
to a scratch directory for the length of the run.  With `--record` the
worker records into scratch and returns the text, which the driver saves as
the run's replay.jsonl.

The Ray instance: one the calling process has already initialised is used
as it is; otherwise `ray.init(address)` connects to the cluster named by
`address` or RAY_ADDRESS, else to one started on this machine with
`ray start`, else starts a local instance.  At the end the
command calls `ray.shutdown()` only when it did the init itself, which stops
a local instance it started and merely disconnects from a cluster.

A run whose Ray task is lost (a worker or node dies, the task is cancelled)
is reported as `harness_error` with the Ray exception's name as reason, but
no outcome.json is written for it, so a rerun of the command retries it.
Imports runs, runlog, suite; ray lazily.  runner.py calls `run_on_ray`; nothing
here imports runner.py.
"""
from __future__ import annotations

import logging
import os
import pathlib
import tempfile

import attrs

from . import runs
from .runlog import RunLog
from .suite import Suite

EXTRA_HINT = "--executor ray needs Ray: pip install 'ptclisp[ray]'"


class RayUnavailable(RuntimeError):
    """Ray is not installed, or the cluster cannot be reached (the message says which)."""


def import_ray():
    try:
        import ray
    except ImportError:
        raise RayUnavailable(EXTRA_HINT) from None
    return ray


# ------------------------------------------------------------------------------------------------
# What the driver sends: a self-contained copy of every input a run reads from disk
# ------------------------------------------------------------------------------------------------
@attrs.frozen
class Bundle:
    """The suite (task list and the selected tasks' data) and the text of each variant file, by path."""
    suite_name: str
    suite_path: str
    description: str
    defaults: dict
    tasks: list
    data: dict          # data file path (as in Task.data_files) -> parsed JSON value
    files: dict         # prelude / replacement path -> text

    @classmethod
    def of(cls, suite, specs) -> "Bundle":
        data, files = {}, {}
        for spec in specs:
            values = suite.data_for(spec.task)
            for name, path in spec.task.data_files.items():
                data[path] = values[name]
            for path in (*spec.variant.preludes, *spec.variant.replace.values(), *spec.variant.policy):
                if path not in files:
                    files[path] = pathlib.Path(path).read_text(encoding="utf-8")
        return cls(suite.name, str(suite.path), suite.description, dict(suite.defaults), list(suite.tasks),
                   data, files)

    def suite(self) -> Suite:
        """A Suite whose data cache is already filled, so `data_for` never touches the disk."""
        return Suite(name=self.suite_name, path=pathlib.Path(self.suite_path), description=self.description,
                     defaults=self.defaults, tasks=self.tasks, cache=dict(self.data))


def _local_path(path: str, text: str, scratch: pathlib.Path, slot: str) -> str:
    """`path` when this node holds exactly `text` there, else a scratch copy with the same file name."""
    try:
        if pathlib.Path(path).read_text(encoding="utf-8") == text:
            return path
    except (OSError, UnicodeDecodeError):
        pass
    copy = scratch / slot / pathlib.Path(path).name
    copy.parent.mkdir(parents=True, exist_ok=True)
    copy.write_text(text, encoding="utf-8")
    return str(copy)


def _localize_variant(variant, files: dict, scratch: pathlib.Path):
    if not variant.preludes and not variant.replace and not variant.policy:
        return variant
    local = {p: _local_path(p, files[p], scratch, f"v{i}") for i, p in enumerate(files)
             if p in variant.preludes or p in variant.replace.values() or p in variant.policy}
    return attrs.evolve(variant, preludes=tuple(local[p] for p in variant.preludes),
                        replace={ns: local[p] for ns, p in variant.replace.items()},
                        policy=tuple(local[p] for p in variant.policy))


# ------------------------------------------------------------------------------------------------
# The worker side
# ------------------------------------------------------------------------------------------------
def run_in_worker(spec, bundle: Bundle, *, record: bool, replay: tuple | None, limits: dict | None,
                  provider_options: dict | None) -> dict:
    """One run inside a Ray worker: `{"outcome", "trace", "wall", "recording"}` (recording: text or None).

    `replay` is None (live model) or `(driver path, recording text or None when the run has none)`.
    """
    with tempfile.TemporaryDirectory(prefix="ptclisp-bench-") as tmp:
        scratch = pathlib.Path(tmp)
        local_spec = attrs.evolve(spec, variant=_localize_variant(spec.variant, bundle.files, scratch))
        replay_from = None
        if replay is not None:
            path, text = replay
            replay_from = (str(scratch / "no-recording" / "replay.jsonl") if text is None
                           else _local_path(path, text, scratch, "replay"))
        record_to = str(scratch / "record" / "replay.jsonl") if record else None
        outcome, trace, wall = runs.perform(local_spec, bundle.suite(), record_to=record_to,
                                              replay_from=replay_from, limits=limits,
                                              provider_options=provider_options)
        recording = None
        if record_to is not None and os.path.exists(record_to):
            recording = pathlib.Path(record_to).read_text(encoding="utf-8")
    return {"outcome": outcome, "trace": trace, "wall": wall, "recording": recording}


# ------------------------------------------------------------------------------------------------
# The driver side
# ------------------------------------------------------------------------------------------------
def _connect(ray, address: str | None) -> bool:
    """Make sure Ray is initialised; True when this call did the init (and so owes the shutdown)."""
    if ray.is_initialized():
        return False
    try:
        ray.init(address=address or None, logging_level=logging.WARNING)
    except (ConnectionError, RuntimeError, ValueError) as e:
        where = address or os.environ.get("RAY_ADDRESS") or "a local instance"
        raise RayUnavailable(f"cannot start or reach Ray at {where}: {e}") from None
    return True


def _lost(spec, error: Exception) -> dict:
    """The record of a run whose Ray task did not come back (not stored: a rerun retries it)."""
    outcome = RunLog("harness").outcome(kind="harness_error", reason=type(error).__name__, message=str(error))
    outcome.pop("trace", None)
    return {"run": spec.identity(), **outcome, "score": runs.score(spec.task, outcome), "wall_s": None}


def run_on_ray(specs: list, suite, out: pathlib.Path, *, record: bool = False,
               replay_dir: pathlib.Path | None = None, limits: dict | None = None,
               provider_options: dict | None = None, address: str | None = None):
    """Run `specs` as Ray tasks; yields `(index into specs, record)` as runs finish (stored already).

    Raises RayUnavailable before the first run when Ray is missing or unreachable.
    """
    if not specs:
        return                               # everything resumed: no need for Ray at all
    ray = import_ray()
    owns = _connect(ray, address)
    refs = {}
    try:
        bundle = ray.put(Bundle.of(suite, specs))
        remote = ray.remote(num_cpus=1)(run_in_worker)
        for i, spec in enumerate(specs):
            replay = None
            if replay_dir is not None:
                path = replay_dir / spec.rel_dir / "replay.jsonl"
                replay = (str(path), path.read_text(encoding="utf-8") if path.exists() else None)
            ref = remote.remote(spec, bundle, record=record, replay=replay, limits=limits,
                                provider_options=provider_options)
            refs[ref] = i
        waiting = list(refs)
        while waiting:
            ready, waiting = ray.wait(waiting, num_returns=1)
            if waiting:
                more, waiting = ray.wait(waiting, num_returns=len(waiting), timeout=0)
                ready += more
            for ref in ready:
                i = refs.pop(ref)
                yield i, _finish(ray, ref, specs[i], out, record)
    finally:
        for ref in refs:                     # left over after an interrupt or an error in the driver
            ray.cancel(ref, force=True)
        if owns:
            ray.shutdown()


def _finish(ray, ref, spec, out: pathlib.Path, record: bool) -> dict:
    try:
        result = ray.get(ref)
    except ray.exceptions.RayError as e:
        return _lost(spec, e)
    if record:
        target = out / spec.rel_dir / "replay.jsonl"
        if result["recording"] is not None:
            runs.write_atomic(target, result["recording"])
        elif target.exists():
            target.unlink()                  # a rerun records afresh
    return runs.store(spec, out, result["outcome"], result["trace"], result["wall"])
