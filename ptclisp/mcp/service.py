"""The calls of `ptclisp mcp serve`, independent of MCP: `PtcService` and what it returns.

`PtcService.run(program, session)` evaluates a program with the server's
data, preludes, Python tools and upstream MCP tools under the per-call limits,
on its own evaluation thread, and returns an `Outcome` (structured content
plus a readable text); `describe(search)` answers discovery (discovery.py).
The command line is server.py; app.py binds this service to the SDK's
`MCPServer`. Imports the public API, jsonout and the package's sessions,
discovery and language_facts modules.
"""
from __future__ import annotations

import json
import threading
import time
from typing import Callable

import attrs

from .. import Limits, Session, from_python, pr_str
from .. import run as ptc_run
from ..exit_codes import UsageError
from ..interchange.json_out import JsonValueError, dumps, to_json
from . import language_facts
from .discovery import Catalog
from .sessions import SessionStore, check_name

#: Stack of each evaluation thread: room for the recursion Limits allow, whatever the platform default.
STACK_BYTES = 16 << 20
#: The server waits for an evaluation at most its timeout plus the hard stop's grace period plus this
#: (the evaluation's own deadline, hard stop and abandoned tool calls end it long before; this is the
#: backstop for an in-process evaluation stuck where it cannot be stopped, and for an isolated worker,
#: which the host kills at twice its budget).
GRACE_S = 2.0
#: At most this many ledger entries are returned; each entry's result at most this much JSON text.
MAX_LEDGER_ENTRIES = 50
MAX_LEDGER_RESULT_CHARS = 4_000
#: At most this many characters of printed lines are returned per call.
MAX_PRINT_RESPONSE_CHARS = 100_000
#: An error's readable text shows at most this many of the lines printed before it.
MAX_ERROR_PRINT_LINES = 20
#: run_ptc_lisp's description names at most this many data keys and tools (describe_ptc_lisp lists all).
MAX_NAMES_IN_DESCRIPTION = 20
#: How often idle sessions are swept (at most; a shorter --session-ttl sweeps more often).
SWEEP_EVERY_S = 30.0

RUN_DESCRIPTION = (
    "Run a PTC-Lisp program (a small Clojure-like language) and return the value of its last form as JSON, "
    "with what it printed and the tool calls it made. Programs read data as data/NAME and call granted tools "
    "as (tool/NAME {:arg value}); call describe_ptc_lisp first to see the data, tools and functions available. "
    "Pass `session` (any name you choose) to keep definitions (def, defn) between calls; without it every call "
    "starts from a fresh namespace. Errors come back with is_error, the error kind, message, line and column."
)
DESCRIBE_DESCRIPTION = (
    "Describe what PTC-Lisp programs run by run_ptc_lisp may use: the data keys with their shapes, the granted "
    "tools with their call forms and input schemas, the prelude exports, the special forms and the functions by "
    "category. With `search` (a word such as \"group\" or \"upper\"), the signatures and one-line docs of the "
    "matching functions, tools, exports and data keys."
)


# ---------------------------------------------------------------------- configuration

@attrs.define
class ServeConfig:
    """What every call of one server runs with."""

    data: dict | None = None
    preludes: list = attrs.Factory(list)          # prelude Components (read once at start)
    tools: dict = attrs.Factory(dict)             # name -> ptclisp.Tool (Python tools and upstream MCP tools)
    limits: Limits = attrs.Factory(lambda: Limits(timeout_ms=5000, max_result_bytes=1_000_000))
    isolation: str = "process"
    session_ttl_s: float = 900.0
    max_sessions: int = 32
    session_memory_bytes: int = 50_000_000
    max_concurrent: int = 4
    strict_data: bool = True                      # an unknown data/ name is an error naming the closest one


@attrs.define
class Outcome:
    """One call's answer: the structured content, a readable text and whether it is an error."""

    structured: dict
    text: str
    is_error: bool


# ---------------------------------------------------------------------- evaluation threads

def _on_eval_thread(fn: Callable[[], object], wait_s: float, on_end: Callable[[], None] | None = None):
    """Run `fn` on a new daemon thread with a deep stack; (finished, value). A raised exception is re-raised.

    `on_end()` runs on that thread when `fn` has ended, also when that is after this call gave up
    waiting (the server releases the evaluation's slot there, so an evaluation that could not be
    stopped holds its slot for as long as it runs)."""
    box: dict = {}

    def target():
        try:
            box["value"] = fn()
        except BaseException as exc:  # noqa: BLE001 - handed back to the caller
            box["error"] = exc
        finally:
            if on_end is not None:
                on_end()

    t = threading.Thread(target=target, name="ptclisp-mcp-eval", daemon=True)
    with language_facts.STACK_LOCK:  # the size is process-wide; set it just for this thread
        old = threading.stack_size(STACK_BYTES)
        try:
            t.start()
        except BaseException:
            if on_end is not None:
                on_end()
            raise
        finally:
            threading.stack_size(old)
    t.join(wait_s)
    if t.is_alive():
        return False, None
    if "error" in box:
        raise box["error"]
    return True, box.get("value")


# ---------------------------------------------------------------------- the service

class PtcService:
    """The calls of one server, independent of MCP: `run(program, session)` and `catalog`."""

    def __init__(self, config: ServeConfig, clock: Callable[[], float] = time.monotonic):
        if config.isolation not in ("thread", "process"):
            raise ValueError(f"isolation must be 'thread' or 'process', got {config.isolation!r}")
        self.config = config
        self.limits = attrs.evolve(config.limits, isolation="thread")
        self.tools = dict(config.tools)
        self.context = from_python(config.data or {})
        self.store = SessionStore(self._new_session, config.session_ttl_s, config.max_sessions, clock)
        self._slots = threading.BoundedSemaphore(config.max_concurrent)
        if config.isolation == "process":   # --max-concurrent evaluations at once: as many worker processes
            from ..isolation.process import POOL
            if POOL.max_workers < config.max_concurrent:
                POOL.configure(max_workers=config.max_concurrent)
        self.catalog = Catalog(self._discovery_run, list((config.data or {}).keys()), self.tools,
                               limits=self._limits_record(), sessions=self._sessions_record())

    # ------------------------------------------------------------------ set-up

    def _new_session(self) -> Session:
        return Session(context=self.context, tools=self.tools, limits=self.limits,
                       preludes=list(self.config.preludes) or None, strict_data=self.config.strict_data)

    def check(self) -> None:
        """Build one session now, so a prelude that does not compile fails at start (raises UsageError)."""
        from ..errors import PtcError
        try:
            self._new_session()
        except PtcError as exc:
            where = f" at {exc.span}" if exc.span else ""
            raise UsageError(f"--prelude: Error ({exc.kind}): {exc.message}{where}") from None
        except (ValueError, TypeError) as exc:
            raise UsageError(str(exc)) from None

    def _wait_s(self) -> float:
        ms = self.limits.timeout_ms
        if ms is None:
            return 600.0 + GRACE_S
        budget = ms / 1000.0
        if self.config.isolation == "process":   # the host kills the worker at twice its budget
            return 2 * budget + 0.5 + GRACE_S
        return budget + min(0.5, max(0.02, budget / 4)) + GRACE_S

    def _limits_record(self) -> dict:
        lim = self.limits
        return {"timeout_ms": lim.timeout_ms, "memory_bytes": lim.memory_bytes, "max_tool_calls": lim.max_tool_calls,
                "max_result_bytes": lim.max_result_bytes, "loop_limit": lim.loop_limit,
                "max_print_chars": lim.max_print_chars, "isolation": self.config.isolation}

    def _sessions_record(self) -> dict:
        if self.config.isolation == "process":
            return {"available": False, "why": "the server evaluates each call in a child process (--isolation "
                                               "process, the default; --isolation thread keeps sessions)"}
        return {"available": True, "idle_expiry_s": self.config.session_ttl_s, "max_sessions": self.config.max_sessions,
                "max_memory_bytes": self.config.session_memory_bytes}

    # ------------------------------------------------------------------ calls

    def run(self, program: str, session: str | None = None) -> Outcome:
        """Evaluate `program` (in the session named `session`, if given); never raises for bad input."""
        t0 = time.perf_counter()
        if not isinstance(program, str):
            return _error_outcome("type_error", "program must be a string", t0)
        if session is None:
            return self._bounded(lambda: self._run_fresh(program), program, None, t0)
        if self.config.isolation == "process":
            return _error_outcome("invalid_session", "sessions are not available on this server: it evaluates "
                                  "every call in a child process (--isolation process, the default); call without "
                                  "`session`, or start the server with --isolation thread to keep definitions", t0)
        try:
            check_name(session)
            entry, note = self.store.open(session)
        except ValueError as exc:
            return _error_outcome("invalid_session", str(exc), t0)
        record = {"name": session, "new": entry.calls == 0}
        if note:
            record["note"] = f"this is a new session: the previous session named {session!r} was discarded because {note}"
        return self._bounded(lambda: self._run_in(entry, program), program, record, t0, entry=entry)

    def _bounded(self, call, program: str, session_record: dict | None, t0: float, entry=None) -> Outcome:
        wait_s = self._wait_s()
        if not self._slots.acquire(timeout=wait_s):
            return _error_outcome("busy", f"the server is running {self.config.max_concurrent} evaluations "
                                  f"(--max-concurrent) and none finished in time; try again", t0, session_record)
        finished, result = _on_eval_thread(call, wait_s, self._slots.release)
        if not finished:
            if entry is not None:
                self.store.drop(entry.name, "its last evaluation did not stop in time")
            out = _error_outcome("timeout", f"the evaluation did not stop within {wait_s:g} s: it is stuck where "
                                 f"it cannot be interrupted and still runs in the server, holding one of the "
                                 f"--max-concurrent slots until it ends (--isolation process would have "
                                 f"stopped it)" + ("; its session was discarded" if entry is not None else ""),
                                 t0, session_record)
            out.structured["error"]["still_running"] = True
            return out
        if result is None:  # the session was busy past the wait
            return _error_outcome("busy", f"session {entry.name!r} is running another call that did not finish "
                                  "in time; try again", t0, session_record)
        if entry is not None:
            self.store.touch(entry)
            if result.status != "error":
                self._bound_session(entry, session_record)
        return outcome_of(result, program, session_record)

    def _run_fresh(self, program: str):
        if self.config.isolation == "process":
            return ptc_run(program, context=self.config.data, tools=self.tools, limits=self.limits,
                           preludes=list(self.config.preludes) or None, isolation="process",
                           strict_data=self.config.strict_data)
        return self._new_session().eval(program)

    def _run_in(self, entry, program: str):
        if not entry.lock.acquire(timeout=self._wait_s()):
            return None
        try:
            return entry.session.eval(program)
        finally:
            entry.lock.release()

    def _bound_session(self, entry, record: dict) -> None:
        cap = self.config.session_memory_bytes
        total = 0
        for value in entry.session.definitions.values():
            total += language_facts.printed_size(value, cap - total + 1)
            if total > cap:
                reason = (f"its definitions grew past about {cap} bytes (--session-memory-bytes); "
                          f"keep smaller values in session definitions")
                if self.store.drop(entry.name, reason):
                    record["note"] = (f"this session was discarded after this call: {reason}. The next call "
                                      f"with this name starts a new session")
                    record["discarded"] = True
                return

    def _discovery_run(self, program: str):
        """Run one of discovery's own programs in a fresh evaluation of the server's environment."""
        try:
            finished, result = _on_eval_thread(lambda: self._new_session().eval(program), self._wait_s())
        except Exception:  # noqa: BLE001 - discovery shows less rather than failing
            return None
        return result if finished else None

    def run_description(self) -> str:
        """run_ptc_lisp's description: RUN_DESCRIPTION and the names this server grants (at most
        MAX_NAMES_IN_DESCRIPTION of each kind), so a client that shows only tool descriptions still sees them."""
        def names(items: list[str]) -> str:
            shown = ", ".join(items[:MAX_NAMES_IN_DESCRIPTION])
            more = len(items) - MAX_NAMES_IN_DESCRIPTION
            return shown + (f" and {more} more" if more > 0 else "")

        data = [f"data/{k}" for k in (self.config.data or {}) if isinstance(k, str)]
        tools = sorted(f"tool/{n}" for n, t in self.tools.items() if not t.private)
        parts = [f"data: {names(data)}" if data else "no data", f"tools: {names(tools)}" if tools else "no tools"]
        return f"{RUN_DESCRIPTION} This server grants {'; '.join(parts)}."

    def describe(self, search: str | None = None) -> dict:
        if search is not None and search.strip():
            return self.catalog.search(search)
        return self.catalog.overview()

    def sweep(self) -> list[str]:
        return self.store.sweep()


# ---------------------------------------------------------------------- results

def _error_outcome(kind: str, message: str, t0: float, session_record: dict | None = None) -> Outcome:
    structured = {"status": "error", "error": {"kind": kind, "message": message, "line": None, "column": None},
                  "prints": [], "tool_calls": [], "duration_ms": round((time.perf_counter() - t0) * 1000, 3),
                  "session": session_record}
    return Outcome(structured, f"Error ({kind}): {message}", True)


def _plain(x):
    """JSON data for a ledger field: the one conversion, else its printed form."""
    try:
        return to_json(x)
    except JsonValueError:
        return pr_str(x) if not isinstance(x, str) else x


def _bounded_json(x, entry: dict):
    """`x` as JSON data, or its JSON text cut to MAX_LEDGER_RESULT_CHARS (marking `entry` truncated)."""
    data = _plain(x)
    text = json.dumps(data, ensure_ascii=False, default=str)
    if len(text) <= MAX_LEDGER_RESULT_CHARS:
        return data
    entry["truncated"] = True
    return text[:MAX_LEDGER_RESULT_CHARS] + "..."


def _ledger(records) -> tuple[list, int]:
    """The first MAX_LEDGER_ENTRIES tool calls as JSON records (args and results bounded); and how many more."""
    out = []
    for rec in records[:MAX_LEDGER_ENTRIES]:
        entry = {"tool": rec.name, "duration_ms": round(rec.duration_ms, 3)}
        entry["args"] = _bounded_json(rec.args, entry)
        if rec.error is not None:
            entry["error"] = str(rec.error)[:MAX_LEDGER_RESULT_CHARS]
        else:
            entry["result"] = _bounded_json(rec.result, entry)
            if getattr(rec, "truncated", False):
                entry["truncated"] = True
        if getattr(rec, "cached", False):
            entry["cached"] = True
        if getattr(rec, "abandoned", False):   # the evaluation stopped waiting for it: its effect is unknown
            entry["abandoned"] = True
        out.append(entry)
    return out, max(0, len(records) - MAX_LEDGER_ENTRIES)


def _bounded_prints(prints: list, budget: int) -> tuple[list, int]:
    """The printed lines that fit in `budget` characters (the last one cut); and how many lines were left out."""
    out, used = [], 0
    for i, line in enumerate(prints):
        if used + len(line) > budget:
            if budget - used > 0:
                out.append(line[:budget - used] + "...")
            return out, len(prints) - len(out)
        out.append(line)
        used += len(line)
    return out, 0


def outcome_of(result, program: str, session_record: dict | None = None,
               max_print_chars: int = MAX_PRINT_RESPONSE_CHARS) -> Outcome:
    """The structured content and text of a `ptclisp.Result` (the rules of the module docstring).

    At most `max_print_chars` characters of printed lines and MAX_LEDGER_ENTRIES tool calls are
    returned; `prints_omitted` and `tool_calls_omitted` count what was left out.
    """
    tool_calls, omitted = _ledger(list(result.tool_calls or ()))
    prints, prints_omitted = _bounded_prints(list(result.prints or ()), max_print_chars)
    rec: dict = {"status": result.status, "value": None, "prints": prints,
                 "tool_calls": tool_calls, "duration_ms": round(result.duration_ms, 3), "session": session_record}
    if prints_omitted:
        rec["prints_omitted"] = prints_omitted
    if omitted:
        rec["tool_calls_omitted"] = omitted
    error = None
    if result.status == "error":
        e = result.error
        error = {"kind": e.kind, "message": e.message,
                 "line": e.span.line if e.span else None, "column": e.span.col if e.span else None}
    else:
        try:
            rec["value"] = to_json(result.value)
        except JsonValueError as exc:
            what = "fail value" if result.status == "failed" else "value"
            shown = pr_str(result.value)
            shown = shown if len(shown) <= 120 else shown[:120] + "..."
            kept = ("; the evaluation itself succeeded and its definitions are kept in this session"
                    if session_record is not None and result.status != "failed" else "")
            rec["status"] = "error"
            error = {"kind": exc.kind, "message": f"the {what} {shown} cannot be given as JSON: {exc.message}{kept}",
                     "line": None, "column": None}
        else:
            if result.status == "failed":
                error = {"kind": "fail", "message": "the program called fail with " + _preview(rec["value"]),
                         "line": None, "column": None}
    if error is not None:
        rec["error"] = error
        span = result.error.span if result.status == "error" else None
        return Outcome(rec, _error_text(error, program, rec, span), True)
    return Outcome(rec, dumps(rec), False)


def _preview(value, limit: int = 300) -> str:
    text = json.dumps(value, ensure_ascii=False)
    return text if len(text) <= limit else text[:limit] + "..."


def _error_text(error: dict, program: str, rec: dict, span=None) -> str:
    where = f" at line {error['line']}, column {error['column']}" if error["line"] else ""
    lines = [f"Error ({error['kind']}){where}: {error['message']}"]
    if span is not None:
        lines += language_facts.caret_lines(program, span)
    if rec["prints"]:
        shown = rec["prints"][:MAX_ERROR_PRINT_LINES]
        more = len(rec["prints"]) - len(shown) + rec.get("prints_omitted", 0)
        lines += ["", "Printed before the error:", *shown]
        if more:
            lines.append(f"... and {more} more lines")
    if rec["tool_calls"]:
        lines += ["", f"Tool calls made: {len(rec['tool_calls']) + rec.get('tool_calls_omitted', 0)} "
                      f"(see tool_calls in the structured result)"]
    note = (rec.get("session") or {}).get("note")
    if note:
        lines += ["", note]
    return "\n".join(lines)


# ---------------------------------------------------------------------- command line

