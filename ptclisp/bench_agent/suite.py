"""Benchmark suites: a directory holding `manifest.json` and the data files it names.

Manifest (format `ptclisp-bench-suite/1`)::

    {"format": "ptclisp-bench-suite/1", "name": "data-qa", "description": "...",
     "defaults": {"max_turns": 6, "time_limit_s": 120},
     "datasets": {"orders": "data/orders.json", ...},            # optional name -> file table
     "tasks": [{"id": "l1-...", "level": 1, "tags": ["count"],
                "question": "How many ...? Answer with an integer.",
                "data": ["orders"]  |  {"orders": "data/orders.json"},
                "validator": {"type": "exact", "expected": 93},   # see validate.py
                "answer_schema": {"type": "integer"},              # optional result contract
                "reference": ["(return ...)"],                     # optional PTC-Lisp solution
                "max_turns": 8, "time_limit_s": 60}]}              # optional per-task limits

`data` lists dataset names (looked up in `datasets`) or maps a name to a
file relative to the suite directory; each file holds one JSON value that
the program sees as `data/<name>`.  `reference` is one program or a list
sent on successive turns by the scripted reference model.

`load_suite(name_or_path)` accepts a built-in suite name (`data-qa`) or a
directory / manifest path.  Imports validate.
"""
from __future__ import annotations

import json
import pathlib
import re
import threading
from importlib import resources
from typing import Any

import attrs

from .validate import ValidatorError, check_spec

FORMAT = "ptclisp-bench-suite/1"
_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$")
_DATA_NAME = re.compile(r"^[a-z][a-z0-9_-]*$")


class SuiteError(ValueError):
    """A suite cannot be found or its manifest breaks a rule (the message names the task and field)."""


@attrs.frozen
class Task:
    id: str
    level: int
    tags: tuple
    question: str
    data_files: dict          # data name -> absolute path
    validator: dict
    answer_schema: dict | None = None
    reference: tuple = ()
    max_turns: int | None = None
    time_limit_s: float | None = None


@attrs.define
class Suite:
    name: str
    path: pathlib.Path
    description: str
    defaults: dict
    tasks: list
    _cache: dict = attrs.field(factory=dict, repr=False)
    _lock: threading.Lock = attrs.field(factory=threading.Lock, repr=False)

    def task(self, task_id: str) -> Task:
        for t in self.tasks:
            if t.id == task_id:
                return t
        raise KeyError(task_id)

    def data_for(self, task: Task) -> dict:
        """`{name: value}` of the task's data files (each file parsed once per suite)."""
        out = {}
        for name, path in task.data_files.items():
            with self._lock:
                if path not in self._cache:
                    try:
                        self._cache[path] = json.loads(pathlib.Path(path).read_text(encoding="utf-8"))
                    except (OSError, ValueError) as e:
                        raise SuiteError(f"task {task.id}: cannot read data file {path}: {e}") from None
                out[name] = self._cache[path]
        return out

    def select(self, ids=None, levels=None, tags=None) -> list:
        """Tasks filtered by id (exact or prefix), level and tag (any of)."""
        chosen = []
        for t in self.tasks:
            if ids and not any(t.id == i or t.id.startswith(i) for i in ids):
                continue
            if levels and t.level not in levels:
                continue
            if tags and not set(tags) & set(t.tags):
                continue
            chosen.append(t)
        return chosen

    def limits_for(self, task: Task) -> dict:
        return {"max_turns": task.max_turns or self.defaults.get("max_turns", 6),
                "time_limit_s": task.time_limit_s or self.defaults.get("time_limit_s", 120)}


def builtin_suites() -> list[str]:
    root = resources.files("ptclisp.bench_agent") / "suites"
    return sorted(p.name for p in root.iterdir() if (p / "manifest.json").is_file())


def _locate(name_or_path: str) -> pathlib.Path:
    p = pathlib.Path(name_or_path)
    if p.is_file() and p.name.endswith(".json"):
        return p
    if p.is_dir():
        if (p / "manifest.json").is_file():
            return p / "manifest.json"
        raise SuiteError(f"{p} has no manifest.json")
    if "/" not in name_or_path and name_or_path in builtin_suites():
        root = resources.files("ptclisp.bench_agent") / "suites" / name_or_path / "manifest.json"
        return pathlib.Path(str(root))
    known = ", ".join(builtin_suites()) or "none"
    raise SuiteError(f"no suite {name_or_path!r}: give a directory with manifest.json or a built-in name ({known})")


def load_suite(name_or_path: str) -> Suite:
    manifest_path = _locate(name_or_path)
    try:
        manifest = json.loads(manifest_path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as e:
        raise SuiteError(f"cannot read {manifest_path}: {e}") from None
    return parse_manifest(manifest, manifest_path.parent)


def _want(cond: bool, where: str, msg: str) -> None:
    if not cond:
        raise SuiteError(f"{where}: {msg}")


def parse_manifest(manifest: Any, root: pathlib.Path) -> Suite:
    _want(isinstance(manifest, dict), "manifest", "must be a JSON object")
    _want(manifest.get("format") == FORMAT, "manifest", f"format must be {FORMAT!r}")
    name = manifest.get("name")
    _want(isinstance(name, str) and bool(_ID.match(name)), "manifest", "name must be a short identifier")
    datasets = manifest.get("datasets", {})
    _want(isinstance(datasets, dict), "manifest", "datasets must map names to files")
    defaults = manifest.get("defaults", {})
    _want(isinstance(defaults, dict), "manifest", "defaults must be an object")
    raw_tasks = manifest.get("tasks")
    _want(isinstance(raw_tasks, list) and raw_tasks, "manifest", "tasks must be a non-empty list")
    root = root.resolve()
    tasks, seen = [], set()
    for i, t in enumerate(raw_tasks):
        where = f"task #{i + 1}"
        _want(isinstance(t, dict), where, "must be an object")
        tid = t.get("id")
        _want(isinstance(tid, str) and bool(_ID.match(tid)), where, "id must match [A-Za-z0-9._-]{1,100}")
        where = f"task {tid}"
        _want(tid not in seen, where, "duplicate id")
        seen.add(tid)
        level = t.get("level", 1)
        _want(isinstance(level, int) and not isinstance(level, bool) and level >= 1, where, "level must be >= 1")
        tags = t.get("tags", [])
        _want(isinstance(tags, list) and all(isinstance(x, str) for x in tags), where, "tags must be strings")
        question = t.get("question")
        _want(isinstance(question, str) and question.strip() != "", where, "question must be a non-empty string")
        data = t.get("data", [])
        if isinstance(data, list):
            for n in data:
                _want(isinstance(n, str) and n in datasets, where, f"data name {n!r} is not in the datasets table")
            data = {n: datasets[n] for n in data}
        _want(isinstance(data, dict), where, "data must be a list of dataset names or a name -> file map")
        files = {}
        for n, rel in data.items():
            _want(bool(_DATA_NAME.match(n)), where, f"data name {n!r} must be lower-case ([a-z][a-z0-9_-]*)")
            _want(isinstance(rel, str), where, f"data file for {n!r} must be a path string")
            path = (root / rel).resolve()
            _want(root in path.parents, where, f"data file {rel!r} is outside the suite directory")
            files[n] = str(path)
        try:
            check_spec(t.get("validator"))
        except ValidatorError as e:
            raise SuiteError(f"{where}: {e}") from None
        schema = t.get("answer_schema")
        _want(schema is None or isinstance(schema, dict), where, "answer_schema must be a JSON Schema object")
        ref = t.get("reference", [])
        if isinstance(ref, str):
            ref = [ref]
        _want(isinstance(ref, list) and all(isinstance(p, str) and p.strip() for p in ref), where,
              "reference must be a program string or a list of them")
        for key in ("max_turns", "time_limit_s"):
            v = t.get(key)
            _want(v is None or (isinstance(v, (int, float)) and not isinstance(v, bool) and v > 0), where,
                  f"{key} must be a positive number")
        tasks.append(Task(id=tid, level=level, tags=tuple(tags), question=question, data_files=files,
                          validator=t["validator"], answer_schema=schema, reference=tuple(ref),
                          max_turns=t.get("max_turns"), time_limit_s=t.get("time_limit_s")))
    return Suite(name=name, path=root, description=manifest.get("description", ""), defaults=defaults,
                 tasks=tasks)
