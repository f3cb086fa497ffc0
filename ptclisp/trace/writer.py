"""Trace directories: one subdirectory per run, a public event log and, with inspect, private evidence.

Owns `TraceWriter(directory, inspect=False)` (`start_run(...)` -> `RunTrace`)
and `RunTrace`, which the agent host calls as the run goes:

    DIR/<run id>/events.jsonl               public: content-free, one JSON object per line
    DIR/<run id>/private/evidence.jsonl     with inspect: prompts, responses, programs,
                                            observations, tool arguments and results, values
    DIR/<run id>/envelope.json              the run's --envelope document (ok, value, error, usage,
                                            exit_code), written when the command ends; owner only
                                            (0600), since it holds the value

The run id is `YYYYMMDDTHHMMSSZ-xxxxxx` (UTC start time, random suffix), so
runs sort by start.  Every line is written and flushed when its event
happens, so a crash leaves a readable partial trace (a run without its
`run_end` event is reported as incomplete).  Every event has `seq`, `ts`
(UTC, ISO 8601, milliseconds), `t_ms` (milliseconds since the run started)
and `kind`; model and tool calls and evaluations carry `duration_ms`.

Public events hold kinds, timings, sizes, token counts, limits, error kinds
and positions and `sha256:` digests (16 hex digits) - never task text,
prompts, responses, program source, data, values or tool payloads; error
messages (which can quote data) are private too.  A private record carries
the `seq` of the public event it belongs to.  The private directory is
created 0700 and its file 0600 (owner only).  Every line of both files
passes through `ptclisp.providers.redact` with the credentials found in the
environment (variables named like *API_KEY*, *TOKEN*, *SECRET*, ...).

A model request record holds what is new since the previous request of the
run: the public event counts kept and new messages and their sizes, the
private record only the new messages (and the system prompt when it
changed).  Writing never changes a run's outcome: a failing disk is logged
and the trace stops.  Imports providers.redact, trace.usage and the
trace.plain_data.
"""
from __future__ import annotations

import datetime
import hashlib
import json
import os
import re
import secrets as _secrets
import threading
import time

from ..providers.redact import redact
from .plain_data import plain
from ..errors import logger

log = logger("ptclisp.trace")

#: Host events of the policy gate and compaction (ptclisp.agent.policy, ptclisp.agent.compaction): written
#: under their own kinds; every field is a name, a size, a duration or a digest (a summary is private).
POLICY_EVENTS = ("policy_call", "policy_fallback", "compaction")
PUBLIC_FILE = "events.jsonl"
PRIVATE_DIR = "private"
PRIVATE_FILE = "evidence.jsonl"
ENVELOPE_FILE = "envelope.json"
TRACE_FORMAT = "ptclisp-trace/1"
#: What a run directory name may look like (ids are never taken from elsewhere unchecked).
RUN_ID_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$")
#: Environment variables whose values never reach a trace.
SECRET_ENV = re.compile(r"(API_?KEY|TOKEN|SECRET|PASSWORD|CREDENTIAL)", re.I)
#: Failure details that are safe in public (scalars naming limits and kinds, never values).
SAFE_DETAILS = frozenset({"limit", "limit_value", "limit_reason", "alias", "failure_kind", "failure_reason",
                          "constraint", "agent_turns", "kind", "reason", "model", "retryable?", "error_kind",
                          "limit_bindings", "option", "min", "max", "type", "name", "request_hash"})


def env_secrets(env=None) -> list[str]:
    """Values of credential-named environment variables, raw and as they appear inside JSON strings."""
    env = os.environ if env is None else env
    values = []
    for name, value in env.items():
        if SECRET_ENV.search(name) and isinstance(value, str) and len(value) >= 4:
            values.append(value)
            values.append(json.dumps(value)[1:-1])
    return values


def digest(text) -> str:
    """`sha256:` and the first 16 hex digits of the UTF-8 text (or of its canonical JSON)."""
    if not isinstance(text, str):
        text = json.dumps(text, sort_keys=True, ensure_ascii=False, default=str)
    return "sha256:" + hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:16]


def now_iso() -> str:
    return datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def new_run_id() -> str:
    return time.strftime("%Y%m%dT%H%M%SZ", time.gmtime()) + "-" + _secrets.token_hex(3)


def safe_details(details) -> dict:
    """The scalar details of a failure whose names say they describe limits or kinds (never values)."""
    out = {}
    for k, v in (details or {}).items() if isinstance(details, dict) else ():
        if k in SAFE_DETAILS and (v is None or isinstance(v, (bool, int, float)) or
                                  (isinstance(v, str) and len(v) <= 200) or
                                  (isinstance(v, list) and all(isinstance(x, str) for x in v))):
            out[k] = v
    return out


def _lines(text) -> int:
    return len(text.splitlines()) if isinstance(text, str) else 0


def _chars(text) -> int:
    return len(text) if isinstance(text, str) else 0


def _json_bytes(x) -> int:
    try:
        return len(json.dumps(plain(x), ensure_ascii=False, separators=(",", ":")).encode("utf-8", "surrogatepass"))
    except (TypeError, ValueError, RecursionError):
        return -1


class TraceWriter:
    """A directory that receives one subdirectory per run.

    directory: created when missing.
    inspect:   also write private evidence (owner-only files).
    env:       where credentials to redact are looked up (default os.environ).
    meta:      extra public facts for every run's `run_start` (e.g. the command).
    """

    def __init__(self, directory, inspect: bool = False, *, env=None, meta: dict | None = None):
        self.directory = os.path.abspath(os.fspath(directory))
        os.makedirs(self.directory, exist_ok=True)
        if not os.access(self.directory, os.W_OK):
            raise PermissionError(f"cannot write in {self.directory}")
        self.inspect = bool(inspect)
        self.meta = dict(meta or {})
        self.secrets = env_secrets(env)
        self.last_run: RunTrace | None = None

    def start_run(self, run_id: str | None = None) -> "RunTrace":
        """Create the next run's directory and files (nothing is written into them yet)."""
        for _ in range(8):
            rid = run_id or new_run_id()
            try:
                run = RunTrace(self, rid)
            except FileExistsError:
                if run_id is not None:
                    raise
                continue
            self.last_run = run
            return run
        raise FileExistsError("could not find a free run id")


class RunTrace:
    """The trace of one run; every method writes its event at once and never raises."""

    def __init__(self, writer: TraceWriter, run_id: str):
        if not RUN_ID_RE.match(run_id):
            raise ValueError(f"invalid run id {run_id!r}")
        self.writer = writer
        self.run_id = run_id
        self.path = os.path.join(writer.directory, run_id)
        os.mkdir(self.path)
        self.inspect = writer.inspect
        self._lock = threading.Lock()
        self._seq = 0
        self._t0 = time.monotonic()
        self._pub = open(os.path.join(self.path, PUBLIC_FILE), "x", encoding="utf-8")  # noqa: SIM115
        self._priv = None
        if self.inspect:
            pdir = os.path.join(self.path, PRIVATE_DIR)
            os.mkdir(pdir, 0o700)
            os.chmod(pdir, 0o700)                 # whatever the umask
            fd = os.open(os.path.join(pdir, PRIVATE_FILE), os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
            os.fchmod(fd, 0o600)
            self._priv = os.fdopen(fd, "w", encoding="utf-8")
        self._broken = False
        self.turn = 0
        self._sent: list[str] = []                # canonical JSON of the messages of the last request
        self._system = None
        self._tools = None
        self.finished = False

    # ------------------------------------------------------------------ writing
    def _line(self, record: dict) -> str:
        text = json.dumps(record, ensure_ascii=False, separators=(",", ":"), default=str)
        return redact(text, self.writer.secrets)

    def write(self, kind: str, public: dict, private: dict | None = None) -> int:
        """Append one event (and its private record, when inspecting); returns its seq."""
        with self._lock:
            if self._broken:
                return -1
            self._seq += 1
            seq = self._seq
            head = {"seq": seq, "ts": now_iso(), "t_ms": round((time.monotonic() - self._t0) * 1000, 1),
                    "kind": kind}
            try:
                self._pub.write(self._line({**head, **public}) + "\n")
                self._pub.flush()
                if private is not None and self._priv is not None:
                    self._priv.write(self._line({**head, **private}) + "\n")
                    self._priv.flush()
            except (OSError, ValueError) as e:   # a full disk, a closed file: the run goes on untraced
                self._broken = True
                log.warning("trace %s stopped: %s", self.run_id, e)
            return seq

    def keep_envelope(self, doc: dict) -> None:
        """Write the run's --envelope document as envelope.json (0600, credentials redacted); never raises."""
        path = os.path.join(self.path, ENVELOPE_FILE)
        try:
            text = redact(json.dumps(doc, ensure_ascii=False, indent=2, default=str), self.writer.secrets)
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
            os.fchmod(fd, 0o600)
            with os.fdopen(fd, "w", encoding="utf-8") as fh:
                fh.write(text + "\n")
        except (OSError, ValueError, TypeError) as e:
            log.warning("trace %s: envelope not kept: %s", self.run_id, e)

    def close(self) -> None:
        with self._lock:
            for f in (self._pub, self._priv):
                if f is not None:
                    try:
                        f.close()
                    except OSError:
                        pass
            self._broken = True

    # ------------------------------------------------------------------ events
    def start(self, *, models: dict, limits: dict | None = None, preludes: dict | None = None,
              missions: dict | None = None, task: str | None = None, source: str | None = None,
              extra: dict | None = None) -> None:
        """`run_start`: models, limits, preludes; the task and workflow source only as sizes and digests."""
        public = {"format": TRACE_FORMAT, "run_id": self.run_id, "started": now_iso(), **self.writer.meta,
                  **(extra or {}), "models": models, "limits": limits or {}, "preludes": preludes or {},
                  "missions": missions or {}, "inspect": self.inspect}
        private = {}
        if task is not None:
            public["task"] = {"chars": _chars(task), "sha256": digest(task)}
            private["task"] = task
        if source is not None:
            public["source"] = {"chars": _chars(source), "lines": _lines(source), "sha256": digest(source)}
            private["source"] = source
        self.write("run_start", public, private)

    def model_request(self, request: dict) -> int:
        """`model_request` before a model call; returns the turn number (1, 2, ...) it opens."""
        try:
            messages = request.get("messages") if isinstance(request.get("messages"), list) else []
            texts = [json.dumps(m, sort_keys=True, ensure_ascii=False, default=str) for m in messages]
            system, tools = request.get("system"), request.get("tools")
        except Exception:  # noqa: BLE001 - a request the router will refuse anyway
            messages, texts, system, tools = [], [], None, None
        with self._lock:
            self.turn += 1
            turn = self.turn
            kept = 0
            for a, b in zip(self._sent, texts):
                if a != b:
                    break
                kept += 1
            self._sent = texts
            tools_text = json.dumps(tools, sort_keys=True, default=str) if tools is not None else None
            system_changed = system != self._system
            tools_changed = tools_text != self._tools
            self._system, self._tools = system, tools_text
        new = messages[kept:]
        public = {"turn": turn, "alias": request.get("model") if isinstance(request.get("model"), str) else None,
                  "messages": len(messages), "kept_messages": kept, "new_messages": len(new),
                  "new_roles": [m.get("role") for m in new if isinstance(m, dict)],
                  "new_chars": sum(_chars(m.get("content")) for m in new if isinstance(m, dict)),
                  "system_chars": _chars(system), "system_sha256": digest(system) if system is not None else None,
                  "system_changed": system_changed, "tools": len(tools) if isinstance(tools, list) else 0,
                  "request_bytes": _json_bytes(request)}
        private = {"turn": turn, "messages": plain(new)}
        if system_changed:
            private["system"] = system
        if tools_changed:
            private["tools"] = plain(tools)
        self.write("model_request", public, private)
        return turn

    def model_response(self, turn: int, alias, model, provider_kind, out: dict, duration_ms: float,
                       tokens: dict | None) -> None:
        """`model_response` after a model call: the router's envelope `out` (ok or error)."""
        public = {"turn": turn, "alias": alias, "model": model, "provider": provider_kind,
                  "duration_ms": round(duration_ms, 1), "status": out.get("status")}
        private = {"turn": turn}
        if out.get("status") == "ok":
            r = out.get("value") or {}
            calls = r.get("tool_calls") or []
            public.update(finish_reason=r.get("finish_reason"), content_chars=_chars(r.get("content")),
                          tool_calls=len(calls))
            if tokens is None:
                public["usage"] = "unreported"
            else:
                public["tokens"] = tokens
            programs = [c.get("args", {}).get("program") for c in calls
                        if isinstance(c, dict) and isinstance(c.get("args"), dict)]
            programs = [p for p in programs if isinstance(p, str)]
            if programs:
                p = programs[0]
                public["program"] = {"chars": _chars(p), "lines": _lines(p), "sha256": digest(p)}
            other = sum(1 for c in calls if not isinstance(c, dict) or c.get("name") != "run_ptc_lisp")
            if other:
                public["other_tool_calls"] = other         # their names are model output: private
            private.update(content=r.get("content"), tool_calls=plain(calls))
            if programs:
                private["program"] = programs[0]
        else:
            public["error"] = {"kind": out.get("kind"), "reason": out.get("reason"),
                               "retryable": out.get("retryable?")}
            private["error_details"] = plain(out.get("details"))
        self.write("model_response", public, private)

    def evaluation(self, mission: str, source: str, ev) -> None:
        """`evaluation` of one mission program (ev: ptclisp.agent.Evaluation), then its tool calls."""
        turn = self.turn
        details = getattr(ev, "details", None) or {}
        public = {"turn": turn, "mission": mission, "outcome": ev.outcome,
                  "duration_ms": round(getattr(ev, "duration_ms", 0.0) or 0.0, 1),
                  "program": {"chars": _chars(source), "lines": _lines(source), "sha256": digest(source)},
                  "prints": len(ev.prints or []), "print_chars": sum(_chars(p) for p in ev.prints or []),
                  "tool_calls": len(getattr(ev, "exchanges", None) or [])}
        if ev.kind is not None or ev.reason is not None:
            public["error"] = {"kind": ev.kind, "reason": ev.reason, "line": getattr(ev, "error_line", None),
                               "col": getattr(ev, "error_col", None)}
        if ev.retryable is not None:
            public["retryable"] = ev.retryable
        if ev.observation is not None:
            public["observation_chars"] = len(ev.observation)
            preview = ev.preview or {}
            public["truncated"] = bool(preview.get("truncated?"))
        if ev.outcome in ("continued", "returned", "failed") and ev.value is not None:
            public["value_bytes"] = _json_bytes(ev.value)
        limit = safe_details(details)
        if limit:
            public["details"] = limit
        private = {"turn": turn, "program": source, "prints": list(ev.prints or []),
                   "observation": ev.observation}
        if isinstance(details.get("message"), str):
            private["message"] = details["message"]
        if ev.value is not None:
            private["value"] = plain(ev.value)
        seq = self.write("evaluation", public, private)
        for rec, result in getattr(ev, "exchanges", None) or []:
            status = "abandoned" if getattr(rec, "abandoned", False) else \
                "ok" if getattr(rec, "result", None) == "ok" else "error"
            self.write("tool_call", {"turn": turn, "evaluation": seq, "mission": mission, "name": rec.name,
                                     "effect": rec.effect, "status": status,
                                     "duration_ms": round(rec.duration_ms or 0.0, 1),
                                     "args_bytes": _json_bytes(rec.args), "result_bytes": _json_bytes(result)},
                       {"turn": turn, "name": rec.name, "args": plain(rec.args), "result": plain(result)})

    def host_event(self, event: dict) -> None:
        """Annotations and aborts of the workflow (the loop's `agent-action` data is public; others by size)."""
        kind = event.get("type")
        if kind in ("llm_request", "evaluation"):       # written in full by model_*/evaluation
            return
        if kind in POLICY_EVENTS:
            public = {k: v for k, v in event.items() if k not in ("type", "summary") and
                      (isinstance(v, (int, float, str, bool)) or v is None or
                       (isinstance(v, list) and all(isinstance(x, int) for x in v)))}
            public.setdefault("turn", self.turn)
            private = {"turn": public["turn"], "summary": event["summary"]} if "summary" in event else None
            self.write(kind, public, private)
            return
        if kind == "abort":
            self.write("abort", {"turn": self.turn, "reason": event.get("reason"),
                                 "details": safe_details(event.get("details"))},
                       {"turn": self.turn, "details": plain(event.get("details"))})
            return
        data = event.get("data")
        if kind == "agent-action" and isinstance(data, dict):
            public = {k: v for k, v in data.items() if isinstance(v, (int, str, bool)) and
                      k in ("turn", "kind", "phase", "phase_turn", "mission")}
        else:
            public = {"keys": len(data) if isinstance(data, dict) else 0, "bytes": _json_bytes(data)}
        self.write("annotation", {"turn": self.turn, "type": kind if isinstance(kind, str) else None,
                                  "data": public},
                   {"turn": self.turn, "data": plain(data)})

    def finish(self, *, ok: bool, error=None, value=None, prints=(), usage: dict | None = None) -> None:
        """`run_end`: status, error kind/reason (message private), the value's size, usage; closes the files."""
        public = {"status": "ok" if ok else "failed", "turns": self.turn, "usage": usage or {},
                  "duration_ms": round((time.monotonic() - self._t0) * 1000, 1), "prints": len(prints or ())}
        private: dict = {"prints": list(prints or ())}
        if error is not None:
            public["error"] = {"kind": error.kind, "reason": error.reason, "details": safe_details(error.details)}
            private["message"] = error.message
            private["details"] = plain(error.details)
        if ok:
            public["value"] = {"bytes": _json_bytes(value), "sha256": digest(plain(value)),
                               "type": type(value).__name__}
            private["value"] = plain(value)
        self.write("run_end", public, private)
        self.finished = True
        self.close()

    def crash(self, exc: BaseException) -> None:
        """`run_end` for a run that ended by an exception of the host (the type only in public)."""
        self.write("run_end", {"status": "crashed", "turns": self.turn, "exception": type(exc).__name__,
                               "duration_ms": round((time.monotonic() - self._t0) * 1000, 1)},
                   {"message": str(exc)[:2000]})
        self.finished = True
        self.close()
