"""`ptclisp mcp serve`: PTC-Lisp as an MCP server, on the official MCP SDK (`mcp` 2.x, `MCPServer`).

Tools the server offers:

* `run_ptc_lisp(program, session=None)`: evaluates `program` with the
  server's data (`--data`), preludes (`--prelude`), Python tools (`--tools`)
  and the tools of upstream MCP servers (`--mcp`). The structured result is
  `{status, value, prints, tool_calls, duration_ms, session}`; the value goes
  through the one PTC -> JSON conversion (`ptclisp.jsonout.to_json`). An
  error (or a value with no JSON form, or a `fail`) is an `is_error` result
  whose `error` holds kind, message, line and column, with a readable text
  content beside it. With a `session` name the definitions of earlier calls
  under that name are kept (sessions.py bounds their number, idle time and
  size); without one every call is a fresh run.
* `describe_ptc_lisp(search=None)`: what a program may use (discovery.py):
  the data keys with their shapes, the granted tools with their call forms,
  the prelude exports, the functions by category; with `search`, the
  signatures and docs of the matching ones. The same facts are resources:
  `ptclisp://functions`, `ptclisp://data`, `ptclisp://tools`.

Every call is bounded by the per-call limits (`--timeout-ms`,
`--memory-bytes`, `--max-tool-calls`, `--max-result-bytes`) and runs on its
own evaluation thread (a deep stack, at most `--max-concurrent` at once); the
server waits for it at most twice its deadline plus a grace period, so a
hostile program costs the server one call, never the server.
`--isolation process` evaluates each call in a child process under OS
limits (sessions then are not available: their definitions live in this
process).

Transports: stdio (default), or `--http [HOST:]PORT` (streamable HTTP at
`/mcp`; loopback unless `--allow-remote`, which requires a bearer token).

This module holds `PtcService` (the calls, independent of MCP) and the
command line; app.py binds the service to the SDK's `MCPServer` and is
imported only when a server is built, so `ptclisp mcp serve --help` works
without the SDK. Imports the public API, cli_common (this is a command
module), jsonout and the package's sessions, discovery and internals
modules.
"""
from __future__ import annotations

import argparse
import contextlib
import ipaddress
import json
import os
import secrets
import sys
import threading
import time
from typing import Callable

import attrs

from .. import Limits, Session, Tool, from_python, pr_str
from .. import run as ptc_run
from ..cli_common import UsageError, load_data, load_tools
from ..jsonout import JsonValueError, dumps, to_json
from . import internals
from .discovery import Catalog
from .sessions import SessionStore, check_name

#: Stack of each evaluation thread: room for the recursion Limits allow, whatever the platform default.
STACK_BYTES = 16 << 20
#: The server waits for an evaluation at most 2 x its timeout plus this (the evaluation's own
#: deadline and hard stop end it long before; this is the backstop for a tool that never returns).
GRACE_S = 10.0
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
    isolation: str = "thread"
    session_ttl_s: float = 900.0
    max_sessions: int = 32
    session_memory_bytes: int = 50_000_000
    max_concurrent: int = 4


@attrs.define
class Outcome:
    """One call's answer: the structured content, a readable text and whether it is an error."""

    structured: dict
    text: str
    is_error: bool


# ---------------------------------------------------------------------- evaluation threads

def _on_eval_thread(fn: Callable[[], object], wait_s: float):
    """Run `fn` on a new daemon thread with a deep stack; (finished, value). A raised exception is re-raised."""
    box: dict = {}

    def target():
        try:
            box["value"] = fn()
        except BaseException as exc:  # noqa: BLE001 - handed back to the caller
            box["error"] = exc

    t = threading.Thread(target=target, name="ptclisp-mcp-eval", daemon=True)
    with internals.STACK_LOCK:  # the size is process-wide; set it just for this thread
        old = threading.stack_size(STACK_BYTES)
        try:
            t.start()
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
        self.catalog = Catalog(self._discovery_run, list((config.data or {}).keys()), self.tools,
                               limits=self._limits_record(), sessions=self._sessions_record())

    # ------------------------------------------------------------------ set-up

    def _new_session(self) -> Session:
        return Session(context=self.context, tools=self.tools, limits=self.limits,
                       preludes=list(self.config.preludes) or None)

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
        return (2 * ms / 1000.0 if ms is not None else 600.0) + GRACE_S

    def _limits_record(self) -> dict:
        lim = self.limits
        return {"timeout_ms": lim.timeout_ms, "memory_bytes": lim.memory_bytes, "max_tool_calls": lim.max_tool_calls,
                "max_result_bytes": lim.max_result_bytes, "loop_limit": lim.loop_limit,
                "max_print_chars": lim.max_print_chars, "isolation": self.config.isolation}

    def _sessions_record(self) -> dict:
        if self.config.isolation == "process":
            return {"available": False, "why": "the server evaluates each call in a child process (--isolation process)"}
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
                                  "every call in a child process (--isolation process); call without `session`", t0)
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
        try:
            finished, result = _on_eval_thread(call, wait_s)
        finally:
            self._slots.release()
        if not finished:
            if entry is not None:
                self.store.drop(entry.name, "its last evaluation did not stop in time")
            return _error_outcome("timeout", f"the evaluation did not stop within {wait_s:g} s (a tool that does "
                                  "not return?)" + ("; its session was discarded" if entry is not None else ""),
                                  t0, session_record)
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
                           preludes=list(self.config.preludes) or None, isolation="process")
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
            total += internals.printed_size(value, cap - total + 1)
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
        lines += internals.caret_lines(program, span)
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

def add_serve_flags(p: argparse.ArgumentParser) -> None:
    """The flags of `ptclisp mcp serve`."""
    env = p.add_argument_group("what programs may use")
    env.add_argument("--data", metavar="FILE.json", help="a JSON object whose keys become data/<name>")
    env.add_argument("--prelude", metavar="FILE", action="append",
                     help="attach a prelude file and its exports (repeatable)")
    env.add_argument("--tools", metavar="module:attr", action="append",
                     help="grant Python tools: a dict name -> callable/ptclisp.Tool, or a list of ptclisp.Tool "
                          "(repeatable; the current directory is importable)")
    lim = p.add_argument_group("limits of each call")
    lim.add_argument("--timeout-ms", type=int, default=5000, metavar="MS",
                     help="wall-clock limit per evaluation (default 5000)")
    lim.add_argument("--memory-bytes", type=int, default=Limits().memory_bytes, metavar="N",
                     help=f"allocation budget per evaluation (default {Limits().memory_bytes})")
    lim.add_argument("--max-tool-calls", type=int, default=None, metavar="N",
                     help="tool calls per evaluation (default: no limit beyond the timeout)")
    lim.add_argument("--max-result-bytes", type=int, default=1_000_000, metavar="N",
                     help="largest value a call may return, about N bytes printed (default 1000000)")
    lim.add_argument("--isolation", choices=("thread", "process"), default="thread",
                     help="thread (default): evaluate in the server process under metered limits; process: "
                          "evaluate each call in a child process under OS limits (no sessions then)")
    lim.add_argument("--max-concurrent", type=int, default=4, metavar="N",
                     help="evaluations running at once; more calls wait (default 4)")
    ses = p.add_argument_group("sessions (run_ptc_lisp with a `session` name)")
    ses.add_argument("--session-ttl", type=float, default=900.0, metavar="SECONDS",
                     help="a session idle this long is discarded (default 900)")
    ses.add_argument("--max-sessions", type=int, default=32, metavar="N",
                     help="sessions kept at once; opening one more discards the least recently used (default 32)")
    ses.add_argument("--session-memory-bytes", type=int, default=50_000_000, metavar="N",
                     help="a session whose definitions grow past about N bytes is discarded (default 50000000)")
    tr = p.add_argument_group("transport (default: stdio)")
    tr.add_argument("--http", metavar="[HOST:]PORT",
                    help="serve streamable HTTP at http://HOST:PORT/mcp instead of stdio (HOST defaults to "
                         "127.0.0.1; PORT 0 picks a free port; the address is printed on stderr)")
    tr.add_argument("--allow-remote", action="store_true",
                    help="allow a non-loopback --http address; a bearer token is then required")
    tr.add_argument("--token-env", metavar="VAR",
                    help="require 'Authorization: Bearer <token>' with the token in environment variable VAR "
                         "(with --allow-remote and no --token-env, a token is generated and printed on stderr)")
    _add_upstream_flags(p)


def _client_api():
    """The MCP client's command-line helpers (`ptclisp.mcp.cli`: `add_mcp_flags`, `open_mcp_tools`), or None
    in a build without the client."""
    try:
        from .cli import add_mcp_flags, open_mcp_tools
    except ModuleNotFoundError as exc:
        if exc.name != f"{__package__}.cli":
            raise
        return None
    return add_mcp_flags, open_mcp_tools


def _add_upstream_flags(p: argparse.ArgumentParser) -> None:
    """--mcp (and the client's other flags) from the MCP client's helper; a placeholder without it."""
    api = _client_api()
    if api is not None:
        api[0](p)
        return
    g = p.add_argument_group("upstream MCP servers")
    g.add_argument("--mcp", metavar="NAME=COMMAND|URL", action="append",
                   help="grant the tools of an upstream MCP server as tool/NAME.TOOL (repeatable; "
                        "needs ptclisp's MCP client)")


@contextlib.contextmanager
def _upstream_tools(args):
    """The tools of the `--mcp` servers (connected for the life of the block), as name -> ptclisp.Tool."""
    api = _client_api()
    if api is None:
        if getattr(args, "mcp", None):
            raise UsageError("--mcp needs ptclisp's MCP client (ptclisp.mcp.cli), which this build lacks")
        yield {}
        return
    opened = api[1](args)
    if opened is None:
        yield {}
        return
    if hasattr(opened, "__enter__"):
        with opened as value:
            yield _as_tool_dict(value)
    else:
        yield _as_tool_dict(opened)


def _as_tool_dict(value) -> dict:
    tools = getattr(value, "tools", value)
    if not tools:
        return {}
    if isinstance(tools, dict):
        return dict(tools)
    return {t.name: t for t in tools}


def parse_http(text: str) -> tuple[str, int]:
    """(host, port) of `--http [HOST:]PORT` (`[::1]:PORT` for IPv6); raises UsageError."""
    host, port_text = "127.0.0.1", text.strip()
    if port_text.startswith("["):
        end = port_text.find("]")
        if end < 0 or port_text[end + 1:end + 2] != ":":
            raise UsageError(f"--http {text}: expected [IPV6]:PORT")
        host, port_text = port_text[1:end], port_text[end + 2:]
    elif ":" in port_text:
        host, _, port_text = port_text.rpartition(":")
        host = host or "127.0.0.1"
    if not port_text.isdigit() or not 0 <= int(port_text) <= 65535:
        raise UsageError(f"--http {text}: the port must be a number from 0 to 65535")
    return host, int(port_text)


def is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False  # any other name may resolve anywhere


def _check_args(args) -> None:
    for flag, value, low in (("--timeout-ms", args.timeout_ms, 1), ("--memory-bytes", args.memory_bytes, 1),
                             ("--max-result-bytes", args.max_result_bytes, 1), ("--max-sessions", args.max_sessions, 1),
                             ("--session-memory-bytes", args.session_memory_bytes, 1),
                             ("--max-concurrent", args.max_concurrent, 1), ("--max-tool-calls", args.max_tool_calls, 0)):
        if value is not None and value < low:
            raise UsageError(f"{flag} must be at least {low}, got {value}")
    if not args.session_ttl > 0:
        raise UsageError(f"--session-ttl must be a positive number of seconds, got {args.session_ttl:g}")
    if not args.http and (args.allow_remote or args.token_env):
        raise UsageError(f"{'--allow-remote' if args.allow_remote else '--token-env'} applies to --http only")


def _token(args, host: str) -> str | None:
    """The bearer token the HTTP server requires (None: none required); refuses a remote address without
    --allow-remote."""
    if not is_loopback(host) and not args.allow_remote:
        raise UsageError(f"--http {args.http}: {host} is not a loopback address; anyone who can reach it could run "
                         f"programs with this server's data and tools. Add --allow-remote (a bearer token is then "
                         f"required) or serve on 127.0.0.1")
    if args.token_env:
        token = os.environ.get(args.token_env, "")
        if not token:
            raise UsageError(f"--token-env {args.token_env}: the environment variable is not set or empty")
        if len(token) < 16:
            raise UsageError(f"--token-env {args.token_env}: the token is too short (at least 16 characters)")
        return token
    if args.allow_remote:
        token = secrets.token_urlsafe(32)
        print(f"ptclisp mcp serve: clients must send 'Authorization: Bearer {token}' (generated for this run; "
              f"set --token-env VAR to choose it)", file=sys.stderr, flush=True)
        return token
    return None


def config_from_args(args, upstream: dict) -> ServeConfig:
    """The ServeConfig of parsed `mcp serve` flags plus the upstream MCP tools."""
    from ..errors import PtcError
    data = load_data(args.data)
    preludes = []
    for path in args.prelude or ():
        try:
            preludes.append(internals.prelude_component(path))
        except PtcError as exc:
            raise UsageError(f"--prelude: Error ({exc.kind}): {exc.message}") from None
    tools: dict = {}
    for name, t in (load_tools(args.tools) or {}).items():
        tools[name] = t if isinstance(t, Tool) else Tool(name, t, description=(getattr(t, "__doc__", "") or "").strip())
    for name, t in upstream.items():
        if name in tools:
            raise UsageError(f"tool/{name} is granted twice (by --tools and by --mcp)")
        tools[name] = t
    limits = Limits(timeout_ms=args.timeout_ms, memory_bytes=args.memory_bytes, max_tool_calls=args.max_tool_calls,
                    max_result_bytes=args.max_result_bytes)
    return ServeConfig(data=data, preludes=preludes, tools=tools, limits=limits, isolation=args.isolation,
                       session_ttl_s=args.session_ttl, max_sessions=args.max_sessions,
                       session_memory_bytes=args.session_memory_bytes, max_concurrent=args.max_concurrent)


def cmd_serve(args) -> int:
    """`ptclisp mcp serve`: serve until the client closes stdin (stdio) or the process is interrupted (HTTP)."""
    _check_args(args)
    http = parse_http(args.http) if args.http else None
    token = _token(args, http[0]) if http else None
    try:
        import mcp.server.mcpserver  # noqa: F401
    except ImportError:
        raise UsageError("ptclisp mcp serve needs the MCP SDK: pip install 'ptclisp[mcp]'") from None
    with _upstream_tools(args) as upstream:
        config = config_from_args(args, upstream)
        try:
            service = PtcService(config)
        except (ValueError, TypeError) as exc:  # data that has no PTC form (ptclisp.from_python refused it)
            raise UsageError(f"--data {args.data}: {exc}") from None
        service.check()
        with _sweeper(service):
            if http is None:
                _serve_stdio(service)
            else:
                _serve_http(service, *http, token)
    return 0


def _serve_stdio(service: PtcService) -> None:
    import anyio

    from .app import build_server
    anyio.run(build_server(service).run_stdio_async)


@contextlib.contextmanager
def _sweeper(service: PtcService):
    """A daemon thread that expires idle sessions while the block runs."""
    stop = threading.Event()
    every = max(0.05, min(SWEEP_EVERY_S, service.config.session_ttl_s / 2))

    def loop():
        while not stop.wait(every):
            service.sweep()

    t = threading.Thread(target=loop, name="ptclisp-mcp-sweeper", daemon=True)
    t.start()
    try:
        yield
    finally:
        stop.set()


def _serve_http(service: PtcService, host: str, port: int, token: str | None) -> None:
    import socket

    import uvicorn

    from .app import build_server

    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((host, port))
        sock.listen(128)  # connections wait in the backlog until the server accepts them: the address printed
        #                   below is usable at once
    except OSError as exc:
        sock.close()
        raise UsageError(f"--http {host}:{port}: cannot listen there: {exc.strerror or exc}") from None
    bound = sock.getsockname()[1]
    shown = f"[{host}]" if ":" in host else host
    url = f"http://{shown}:{bound}"
    server = build_server(service, token=token, url=url)
    app = server.streamable_http_app(host=host)
    print(f"ptclisp mcp serve: serving MCP over streamable HTTP at {url}/mcp", file=sys.stderr, flush=True)
    config = uvicorn.Config(app, log_level="warning", access_log=False, lifespan="on")
    uvicorn.Server(config).run(sockets=[sock])


def cmd_mcp(args) -> int:
    """Dispatch `ptclisp mcp SUBCOMMAND`."""
    if getattr(args, "mcp_command", None) == "serve":
        return cmd_serve(args)
    raise UsageError("mcp: give a subcommand: 'ptclisp mcp serve' (see 'ptclisp mcp serve --help')")


def add_mcp_command(sub) -> None:
    """The `mcp` command and its `serve` subcommand (cli.py's `_add_mcp` calls this)."""
    m = sub.add_parser("mcp", help="the Model Context Protocol: serve PTC-Lisp to MCP clients",
                       description="Model Context Protocol commands. 'ptclisp mcp serve' offers PTC-Lisp to MCP "
                                   "clients (tools run_ptc_lisp and describe_ptc_lisp).")
    msub = m.add_subparsers(dest="mcp_command", metavar="SUBCOMMAND")
    s = msub.add_parser("serve", help="serve PTC-Lisp as an MCP server (stdio, or streamable HTTP with --http)",
                        description="Serve PTC-Lisp to MCP clients: the tool run_ptc_lisp runs a program with this "
                                    "server's data, preludes, Python tools and upstream MCP servers, and "
                                    "describe_ptc_lisp tells the client's model what it may call. Stdio by default; "
                                    "--http serves streamable HTTP at /mcp. Every call is bounded by the limits "
                                    "below; named sessions keep definitions between calls, bounded in number, idle "
                                    "time and size. Exit 2 on bad arguments.")
    add_serve_flags(s)
    m.set_defaults(func=cmd_mcp)
