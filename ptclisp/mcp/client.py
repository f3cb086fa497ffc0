"""The tools of MCP servers, granted to programs as `tool/SERVER.TOOL`.

    from ptclisp.mcp.client import MCPServerSpec, MCPTools

    specs = [MCPServerSpec("time", command=["mcp-server-time", "--local-timezone", "UTC"])]
    with MCPTools(specs) as mcp:                      # starts the servers, lists their tools
        r = ptclisp.run('(tool/time.convert_time {:source_timezone "UTC" :time "12:00" '
                        ':target_timezone "Asia/Tokyo"})', tools=mcp.tools)
    # leaving the block closes the connections and stops the servers

The public names: `MCPServerSpec` (one server: a stdio command or a
streamable HTTP URL, plus the tools to allow or hide, renames and effect
overrides), `MCPTools` (the connections and the `ptclisp.Tool` objects
standing for the servers' tools), `parse_mcp_arg` (the `NAME=COMMAND ARGS...`
/ `NAME=URL` syntax) and `MCPStartError` (a server that could not be started
or listed). This module holds `MCPTools` (the event loop, the servers
together, the bounded wait of a call); the rest lives beside it and is
re-exported here: `client_specs` (the spec, `parse_mcp_arg`,
`MCPStartError`), `client_conn` (one server's connection, listing and calls)
and `client_results` (results, effects and argument names as ptclisp sees
them).

How a call runs. `MCPTools` keeps one asyncio event loop on a background
thread and one connection per server; a tool call hands the request to that
loop and waits for its answer on the calling thread, so calls from several
`pmap` workers are in flight on one connection at once. The wait is bounded
by the calling evaluation (`ptclisp.host.tools.time_left` / `check_stop`): at the
deadline, or when a sibling worker failed, the request is cancelled and the
evaluation's error is raised. A server that exits or closes the connection
makes the call a `tool_error` naming it (with the last line it wrote to
stderr); the next call starts it again. A call whose request never reached
the server is simply sent again on the new connection; a call lost after it
was sent is repeated once only when the tool is read-only or declared
idempotent, never when its effect is "write".

Results. `structured_content` when the server gives it; otherwise each
content block: text parsed as JSON when it parses, else the text; images and
audio become `{"type", "mime_type", "size"}`, embedded resources
`{"type" "resource", "uri", "mime_type", "text" | "size"}`, resource links
`{"type" "resource_link", "uri", "name", "mime_type"}` (never the raw bytes).
One block gives its value, several a vector, none nil. An `is_error` result
or a protocol error is a `tool_error` whose message carries the server's text
and the tool's name.

Effects. `readOnlyHint` makes a tool "read"; `readOnlyHint: false` or
`destructiveHint: true` makes it "write"; otherwise "unknown". The spec's
`effects` override that.

The SDK (`mcp`, the `ptclisp[mcp]` extra) is imported when the first server
is connected. Imports ptclisp.errors, ptclisp.host.tools and mcp.client_specs,
client_conn and client_results.
"""
from __future__ import annotations

import asyncio
import concurrent.futures
import threading
import time

from ..errors import PtcError
from ..host.tools import check_stop, time_left
from .client_conn import _Server
from .client_results import arg_names as _arg_names  # noqa: F401 - tests check the renaming here
from .client_specs import MCPServerSpec, MCPStartError, parse_mcp_arg

__all__ = ["MCPServerSpec", "MCPTools", "MCPStartError", "parse_mcp_arg"]

_POLL_S = 0.05          # a waiting call re-checks the evaluation's stop flag this often
_CLOSE_S = 8.0          # how long close() waits for the servers to shut down


# ---------------------------------------------------------------------- the servers together

class MCPTools:
    """The tools of several MCP servers as `ptclisp.Tool` objects (a context manager).

    `MCPTools(specs)`: entering starts and connects every server and lists its
    tools (all servers at once; any failure closes the others and raises
    `MCPStartError`); leaving closes the connections and stops stdio servers.
    `.tools` is the dict `"NAME.TOOL" -> Tool` to pass as `tools=` to
    `ptclisp.run`, `Session` or a mission; iterating the object gives the same
    Tool objects, so `tools=mcp_tools` works too. The dict reflects the latest
    listing (servers may change their tools; read `.tools` again to see it).

    connect_timeout_s bounds starting a server and its handshake.
    call_timeout_s   bounds each call on top of the evaluation's deadline (None:
                     the evaluation alone bounds it; a call made outside any
                     evaluation then waits as long as the server takes).
    """

    def __init__(self, specs, *, connect_timeout_s: float = 30.0, call_timeout_s: float | None = None):
        self.specs = [s if isinstance(s, MCPServerSpec) else parse_mcp_arg(s) for s in specs]
        names = [s.name for s in self.specs]
        dup = sorted({n for n in names if names.count(n) > 1})
        if dup:
            raise ValueError(f"MCP server name given twice: {', '.join(dup)}")
        self.connect_timeout_s = connect_timeout_s
        self.call_timeout_s = call_timeout_s
        self.servers = {s.name: _Server(self, s) for s in self.specs}
        self._loop = None
        self._thread = None
        self._closed = False

    # -- lifecycle
    def __enter__(self) -> "MCPTools":
        self.open()
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def open(self) -> "MCPTools":
        """Start the event loop and connect every server (see the class docstring)."""
        if self._loop is not None:
            return self
        try:
            import mcp  # noqa: F401
        except ImportError:
            raise MCPStartError("MCP servers need the mcp package: pip install 'ptclisp[mcp]'") from None
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._run_loop, name="ptclisp-mcp", daemon=True)
        self._thread.start()
        futures = {name: srv.connect() for name, srv in self.servers.items()}
        errors = []
        for name, fut in futures.items():
            try:
                _conn, listing = fut.result(timeout=self.connect_timeout_s + 5)
                self.servers[name]._set_listing(listing)
            except concurrent.futures.TimeoutError:
                errors.append(MCPStartError(f"MCP server {name} did not start within {self.connect_timeout_s:g} s"))
            except MCPStartError as exc:
                errors.append(exc)
        if errors:
            self.close()
            raise errors[0]
        taken: dict = {}
        for srv in self.servers.values():
            for name in srv.tools:
                if name in taken:
                    self.close()
                    raise MCPStartError(f"two MCP tools would both be tool/{name}; rename one")
                taken[name] = srv
        return self

    def _run_loop(self) -> None:
        asyncio.set_event_loop(self._loop)
        try:
            self._loop.run_forever()
        finally:
            self._loop.close()

    def close(self) -> None:
        """Close every connection and stop the servers (bounded: stuck servers are killed)."""
        if self._closed:
            return
        self._closed = True
        loop = self._loop
        if loop is None:
            return
        for srv in self.servers.values():
            srv.close()

        async def drain():
            tasks = [t for t in asyncio.all_tasks() if t is not asyncio.current_task()]
            if tasks:
                await asyncio.wait(tasks, timeout=_CLOSE_S)
            for t in tasks:
                t.cancel()
        try:
            asyncio.run_coroutine_threadsafe(drain(), loop).result(timeout=_CLOSE_S + 2)
        except (concurrent.futures.TimeoutError, RuntimeError, concurrent.futures.CancelledError):
            pass
        loop.call_soon_threadsafe(loop.stop)
        self._thread.join(timeout=5)

    # -- what programs get
    @property
    def tools(self) -> dict:
        """`"NAME.TOOL" -> ptclisp.Tool` for every granted tool of every server (the latest listing)."""
        out = {}
        for srv in self.servers.values():
            with srv.lock:
                out.update(srv.tools)
        return out

    def __iter__(self):
        return iter(list(self.tools.values()))

    def __len__(self) -> int:
        return len(self.tools)

    def refresh(self) -> None:
        """List every connected server's tools again (servers that went away are left for the next call)."""
        for srv in self.servers.values():
            with srv.lock:
                conn = srv.conn
            if conn is not None and not conn.dead:
                fut = self._submit(srv._relist(conn))
                try:
                    fut.result(timeout=self.connect_timeout_s)
                except Exception:  # noqa: BLE001 - a timeout or a failure keeps the old listing
                    fut.cancel()

    # -- plumbing
    def _submit(self, coro) -> concurrent.futures.Future:
        if self._closed or self._loop is None:
            coro.close()
            raise PtcError("tool_error", "the MCP connections are closed", details={"reason": "closed"})
        return asyncio.run_coroutine_threadsafe(coro, self._loop)

    def _call_soon(self, fn) -> None:
        try:
            self._loop.call_soon_threadsafe(fn)
        except RuntimeError:  # the loop already stopped
            pass

    def _wait(self, fut: concurrent.futures.Future, ptc_name: str, server: str, cancel: bool = True):
        """The future's result, waited for within the calling evaluation's limits."""
        started = time.monotonic()
        limit = self.call_timeout_s
        while True:
            try:
                check_stop()
            except PtcError as exc:
                if cancel:
                    fut.cancel()
                if exc.kind == "timeout" and not exc.details.get("cancelled"):  # say what it was waiting for
                    raise PtcError("timeout", f"{exc.message} (waiting for tool/{ptc_name}, MCP server {server})",
                                   exc.span, {**exc.details, "tool": ptc_name, "server": server}) from None
                raise
            except BaseException:
                if cancel:
                    fut.cancel()
                raise
            left = time_left()
            if limit is not None:
                over = limit - (time.monotonic() - started)
                left = over if left is None else min(left, over)
            if left is not None and left <= 0:
                if cancel:
                    fut.cancel()
                if limit is not None and time_left() != 0:
                    raise PtcError("tool_error", f"tool/{ptc_name}: no answer from MCP server {server} within "
                                                 f"{limit:g} s", details={"tool": ptc_name, "server": server,
                                                                          "reason": "call_timeout"})
                raise PtcError("timeout", f"tool/{ptc_name}: no answer from MCP server {server} before the "
                                          f"evaluation's deadline",
                               details={"tool": ptc_name, "server": server, "phase": "tool_call"})
            if self._closed:
                fut.cancel()
                raise PtcError("tool_error", f"tool/{ptc_name}: the MCP connections are closed",
                               details={"tool": ptc_name, "server": server, "reason": "closed"})
            try:
                return fut.result(timeout=_POLL_S if left is None else min(_POLL_S, left))
            except concurrent.futures.TimeoutError:
                continue
            except concurrent.futures.CancelledError:
                raise PtcError("tool_error", f"tool/{ptc_name}: the call to MCP server {server} was cancelled",
                               details={"tool": ptc_name, "server": server, "reason": "cancelled"}) from None
