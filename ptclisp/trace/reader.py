"""A trace directory read back: runs, their summaries and their turns (for the view and analysis).

Owns `list_run_ids(dir)`, `load_run(dir, id)` -> `Run`, `load_runs(dir)`,
and on a `Run`: `.summary()` (the row of the runs list) and `.turns()`
(one dict per model turn, public facts merged with private evidence when
the run has some).  Nothing here writes; a malformed or partial line (a
run that crashed mid-write) is skipped and counted in `bad_lines`, and so is
a record whose fields do not have the types the writer gives them
(`well_typed`: a count that is not a number, a kind that is not a string, ...),
so the view never renders a crafted field as anything but what it should be.
`load_run(..., include_private=False)` reads the public events only.  A run
id is only ever a direct child directory whose name matches `RUN_ID_RE`,
so an id given by a user cannot name a path elsewhere.  Imports trace.writer
(file names) only.
"""
from __future__ import annotations

import json
import os
import time

from .writer import PRIVATE_DIR, PRIVATE_FILE, PUBLIC_FILE, RUN_ID_RE

#: A run without `run_end` whose log changed this recently is shown as running, else as incomplete.
RUNNING_WINDOW_S = 120
TASK_SUMMARY_CHARS = 120


class TraceReadError(ValueError):
    """A trace directory or run that cannot be read (the message says which and why)."""


def list_run_ids(directory) -> list[str]:
    """The run ids under `directory`, oldest first (ids start with their UTC start time)."""
    try:
        names = os.listdir(directory)
    except FileNotFoundError:
        raise TraceReadError(f"no trace directory {directory}") from None
    except NotADirectoryError:
        raise TraceReadError(f"{directory} is not a directory") from None
    except OSError as e:
        raise TraceReadError(f"cannot read {directory}: {e.strerror or e}") from None
    return sorted(n for n in names if RUN_ID_RE.match(n) and os.path.isfile(os.path.join(directory, n, PUBLIC_FILE)))


# the types of the fields the writer produces, by field name, at any depth of a record
_INT_FIELDS = frozenset({"seq", "turn", "prints", "kept_messages", "new_messages", "new_chars", "system_chars",
                         "request_bytes", "content_chars", "other_tool_calls", "line", "col", "chars", "lines",
                         "bytes", "calls", "input_tokens", "output_tokens", "cached_tokens", "unreported_calls",
                         "input", "output", "cached", "cache_write", "capability_refusals", "task_chars"})
_NUM_FIELDS = frozenset({"t_ms", "duration_ms", "cost_usd"})
_STR_FIELDS = frozenset({"kind", "status", "reason", "alias", "model", "provider", "finish_reason", "sha256", "ts",
                         "started", "command", "outcome", "mission", "name", "effect", "run_id", "namespace",
                         "origin", "exception", "role", "type"})
_DICT_FIELDS = frozenset({"error", "tokens", "program", "models", "preludes", "limits", "task", "source",
                          "missions", "by_alias", "by_model", "value"})
_PRIVATE_STR = frozenset({"content", "message", "observation", "system"})
_MAX_CHECK_DEPTH = 12


def _typed(key, value, depth: int, private: bool) -> bool:
    if value is None:
        return True
    if private:
        if key in _PRIVATE_STR or key in ("program", "task"):
            return type(value) is str
        if key == "prints":
            return isinstance(value, list) and all(type(p) is str for p in value)
        if key == "messages":
            return isinstance(value, list)
        if key in ("seq", "turn", "t_ms", "ts", "kind"):
            return _typed(key, value, depth, False)
        return True            # arguments, results and values are data: shown as JSON text, escaped
    if key in _INT_FIELDS and type(value) is not int:
        return False
    if key in _NUM_FIELDS and type(value) not in (int, float):
        return False
    if key in _STR_FIELDS and type(value) is not str:
        return False
    if key in _DICT_FIELDS and not isinstance(value, dict):
        return False
    if key in ("tool_calls", "messages", "tools") and type(value) is not int:
        return False
    if key == "usage" and not (isinstance(value, dict) or value == "unreported"):
        return False
    if depth < _MAX_CHECK_DEPTH and isinstance(value, dict):
        return all(_typed(k, v, depth + 1, False) for k, v in value.items())
    if depth < _MAX_CHECK_DEPTH and isinstance(value, list):
        return all(_typed(None, v, depth + 1, False) for v in value)
    return True


def well_typed(record: dict, private: bool = False) -> bool:
    """Do the fields of a public event (or, with `private`, an evidence record) have the writer's types?"""
    if private:
        return type(record.get("seq")) is int and all(_typed(k, v, 1, True) for k, v in record.items())
    return type(record.get("kind")) is str and all(_typed(k, v, 1, False) for k, v in record.items())


def _read_jsonl(path, private: bool = False) -> tuple[list[dict], int]:
    out, bad = [], 0
    with open(path, encoding="utf-8", errors="replace") as f:
        for line in f:
            line = line.strip()
            if not line:
                continue
            try:
                rec = json.loads(line)
            except ValueError:
                bad += 1
                continue
            if isinstance(rec, dict) and well_typed(rec, private):
                out.append(rec)
            else:
                bad += 1
    return out, bad


def load_run(directory, run_id: str, include_private: bool = True) -> "Run":
    if not isinstance(run_id, str) or not RUN_ID_RE.match(run_id):
        raise TraceReadError(f"{run_id!r} is not a run id")
    path = os.path.join(directory, run_id)
    public = os.path.join(path, PUBLIC_FILE)
    if not os.path.isfile(public):
        raise TraceReadError(f"no run {run_id} in {directory}")
    try:
        events, bad = _read_jsonl(public)
        mtime = os.path.getmtime(public)
    except OSError as e:
        raise TraceReadError(f"cannot read run {run_id}: {e.strerror or e}") from None
    private = None
    ppath = os.path.join(path, PRIVATE_DIR, PRIVATE_FILE)
    if include_private and os.path.isfile(ppath):
        try:
            records, pbad = _read_jsonl(ppath, private=True)
            private = {r.get("seq"): r for r in records}
            bad += pbad
        except OSError:               # evidence we may not read: shown as absent
            private = None
    return Run(run_id, path, events, private, bad, mtime)


def load_runs(directory, include_private: bool = True) -> list["Run"]:
    return [load_run(directory, rid, include_private) for rid in list_run_ids(directory)]


class Run:
    """One run's events (public) and evidence (private, or None)."""

    def __init__(self, run_id, path, events, private, bad_lines, mtime):
        self.id, self.path, self.events, self.private = run_id, path, events, private
        self.bad_lines = bad_lines
        self.mtime = mtime

    @property
    def has_private(self) -> bool:
        return self.private is not None

    def evidence(self, event: dict) -> dict:
        """The private record of a public event ({} when there is none)."""
        if self.private is None:
            return {}
        return self.private.get(event.get("seq")) or {}

    def first(self, kind: str) -> dict | None:
        return next((e for e in self.events if e.get("kind") == kind), None)

    def last(self, kind: str) -> dict | None:
        return next((e for e in reversed(self.events) if e.get("kind") == kind), None)

    # ------------------------------------------------------------------ summary
    def status(self) -> str:
        end = self.last("run_end")
        if end is not None:
            return end.get("status") or "failed"
        return "running" if time.time() - self.mtime < RUNNING_WINDOW_S else "incomplete"

    def task_text(self) -> str | None:
        start = self.first("run_start")
        if start is None:
            return None
        task = self.evidence(start).get("task")
        if isinstance(task, str):
            return task
        req = self.first("model_request")          # a workflow file: its first user message
        if req is not None:
            for m in self.evidence(req).get("messages") or []:
                if isinstance(m, dict) and m.get("role") == "user" and isinstance(m.get("content"), str):
                    return m["content"]
        return None

    def summary(self) -> dict:
        start = self.first("run_start") or {}
        end = self.last("run_end")
        usage = (end or {}).get("usage") or self._usage_so_far()
        task = self.task_text()
        summary_text = None
        if task is not None:
            first_line = task.strip().splitlines()[0] if task.strip() else ""
            summary_text = first_line[:TASK_SUMMARY_CHARS] + ("..." if len(first_line) > TASK_SUMMARY_CHARS else "")
        evals = [e for e in self.events if e.get("kind") == "evaluation"]
        error_kinds = [e["error"]["kind"] for e in evals if isinstance(e.get("error"), dict) and e["error"].get("kind")]
        failed_turns = [e.get("turn") for e in evals if isinstance(e.get("error"), dict)]
        models = start.get("models") or {}
        resolved = sorted({m.get("model") for m in models.values() if isinstance(m, dict) and m.get("model")})
        last_t = self.events[-1].get("t_ms", 0) if self.events else 0
        # the usage record counts the calls that came back with an answer; a call that failed at the provider
        # is a call too (one the router refused for a quota never reached a provider: not a call)
        failed_calls = sum(1 for e in self.events if e.get("kind") == "model_response" and e.get("status") == "error"
                           and (e.get("error") or {}).get("kind") != "limit_exceeded")
        err = (end or {}).get("error")
        return {
            "id": self.id, "status": self.status(), "command": start.get("command"),
            "started": start.get("started") or start.get("ts"),
            "duration_ms": (end or {}).get("duration_ms", last_t),
            "task": summary_text, "task_sha256": (start.get("task") or {}).get("sha256"),
            "task_chars": (start.get("task") or {}).get("chars"),
            "aliases": sorted(models), "model": ", ".join(resolved) or None,
            "turns": max([e.get("turn", 0) for e in self.events if isinstance(e.get("turn"), int)] or [0]),
            "calls": (usage.get("calls") or 0) + failed_calls, "failed_calls": failed_calls,
            "input_tokens": usage.get("input_tokens", 0),
            "output_tokens": usage.get("output_tokens", 0), "cached_tokens": usage.get("cached_tokens", 0),
            "unreported_calls": usage.get("unreported_calls", 0), "cost_usd": usage.get("cost_usd"),
            "error": {"kind": err.get("kind"), "reason": err.get("reason")} if isinstance(err, dict) else None,
            "error_kinds": error_kinds, "failed_turns": failed_turns,
            "private": self.has_private, "bad_lines": self.bad_lines,
        }

    def _usage_so_far(self) -> dict:
        """Calls and tokens from the responses written so far (a run still going, or one that crashed)."""
        u = {"calls": 0, "input_tokens": 0, "output_tokens": 0, "cached_tokens": 0, "unreported_calls": 0,
             "cost_usd": None}
        for e in self.events:
            if e.get("kind") == "model_response" and e.get("status") == "ok":
                u["calls"] += 1
                t = e.get("tokens")
                if isinstance(t, dict):
                    u["input_tokens"] += t.get("input", 0)
                    u["output_tokens"] += t.get("output", 0)
                    u["cached_tokens"] += t.get("cached", 0)
                else:
                    u["unreported_calls"] += 1
        return u

    # ------------------------------------------------------------------ turns
    def turns(self) -> list[dict]:
        """One dict per model turn, in order (see module docstring); private fields only with evidence."""
        turns: dict[int, dict] = {}
        order: list[int] = []

        def get(n):
            if n not in turns:
                turns[n] = {"turn": n, "request": None, "response": None, "evaluation": None, "tool_calls": [],
                            "annotations": [], "policy": []}
                order.append(n)
            return turns[n]

        for e in self.events:
            n = e.get("turn")
            if not isinstance(n, int) or n < 1:
                continue
            t = get(n)
            kind = e.get("kind")
            ev = self.evidence(e)
            if kind == "model_request":
                t["request"] = _strip(e)
                if self.has_private:
                    t["sent"] = ev.get("messages") or []
                    if "system" in ev:
                        t["system"] = ev.get("system")
            elif kind == "model_response":
                t["response"] = _strip(e)
                if self.has_private:
                    t["text"] = ev.get("content")
                    t["program"] = ev.get("program")
            elif kind == "evaluation":
                t["evaluation"] = _strip(e)
                if self.has_private:
                    t["program"] = ev.get("program", t.get("program"))
                    t["message"] = ev.get("message")
                    t["prints"] = ev.get("prints") or []
                    t["observation"] = ev.get("observation")
                    if "value" in ev:
                        t["value"] = ev.get("value")
            elif kind == "tool_call":
                call = _strip(e)
                if self.has_private:
                    call["args"], call["result"] = ev.get("args"), ev.get("result")
                t["tool_calls"].append(call)
            elif kind in ("annotation", "abort"):
                t["annotations"].append(_strip(e))
            elif kind in ("policy_fallback", "compaction"):
                t["policy"].append(_strip(e))
        out = [turns[n] for n in order]
        if self.has_private:            # what the next request added after replaying the call: the feedback
            for a, b in zip(out, out[1:]):
                a["feedback"] = [m for m in b.get("sent") or []
                                 if isinstance(m, dict) and m.get("role") in ("tool", "user")]
        return out

    def outcome(self) -> dict:
        """The run_end facts (plus the private value, message and prints when present)."""
        end = self.last("run_end")
        if end is None:
            return {"status": self.status()}
        out = _strip(end)
        if "value" in out:
            out["value_info"] = out.pop("value")       # type, bytes, digest: the value itself is private
        ev = self.evidence(end)
        for k in ("value", "message", "prints", "details"):
            if k in ev:
                out["private_" + k if k == "details" else k] = ev[k]
        return out

    def preludes(self) -> dict:
        return (self.first("run_start") or {}).get("preludes") or {}


def _strip(e: dict) -> dict:
    return {k: v for k, v in e.items() if k not in ("seq",)}
