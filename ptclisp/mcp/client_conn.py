"""One MCP server's connection, for `ptclisp.mcp.client.MCPTools`: connecting, listing, calling.

`_Server` holds one server's connection (reconnected on demand), its tool
listing and the `ptclisp.Tool` objects standing for its tools; it runs its
coroutines on the owner's (`MCPTools`) event loop and waits for them on the
calling thread through the owner's `_wait`. `_Conn` is one live connection,
`_StderrTail` keeps the last lines a stdio server wrote to stderr, and
`_NotSent` / `_Lost` tell a call whose request never reached the server from
one lost in flight (see `ptclisp.mcp.client` for the retry rule). The SDK
(`mcp`) is imported inside the coroutines, when a server is connected.
Imports ptclisp.errors, ptclisp.host.tools, mcp.client_specs and mcp.client_results.
"""
from __future__ import annotations

import asyncio
import collections
import functools
import os
import threading

from ..errors import PtcError
from ..host.tools import Tool
from .client_results import arg_names, block_value, error_text, first_leaf, memory_left, one_line, tool_effect
from .client_specs import TOOL_NAME, MCPServerSpec, MCPStartError

_STDERR_LINES = 20      # lines of a server's stderr kept for error messages
_STDERR_GRACE_S = 2.0   # how long an error about a server that went away waits for its last stderr lines


class _StderrTail:
    """A pipe for a stdio server's stderr; a thread keeps its last lines (bounded memory)."""

    def __init__(self):
        r, w = os.pipe()
        self.writer = os.fdopen(w, "w", encoding="utf-8", errors="replace")
        self.lines: collections.deque = collections.deque(maxlen=_STDERR_LINES)
        self.finished = threading.Event()  # the pipe reached its end: every line is in
        threading.Thread(target=self._read, args=(r,), name="ptclisp-mcp-stderr", daemon=True).start()

    def _read(self, fd):
        try:
            with os.fdopen(fd, "rb") as f:
                while True:
                    chunk = f.readline(4096)
                    if not chunk:
                        return
                    line = chunk.decode("utf-8", "replace").strip()
                    if line:
                        self.lines.append(line)
        finally:
            self.finished.set()

    def close_writer(self):
        try:
            self.writer.close()
        except OSError:
            pass

    def last(self, wait: float = 0.0) -> str:
        """The last line written; with `wait`, first give the reader up to that many seconds to reach
        the end of the pipe (a server that just exited may still have lines in flight)."""
        if wait:
            self.finished.wait(wait)
        lines = list(self.lines)
        return one_line(lines[-1], 200) if lines else ""


class _Conn:
    """One live connection: the SDK client, the task holding it open, the server's stderr."""

    def __init__(self):
        self.client = None
        self.task = None
        self.stop = None        # asyncio.Event: set to close the connection
        self.stderr = None
        self.dead = False

    def tail(self, gone: bool = False) -> str:
        """' (its last stderr line: ...)' for an error message, or ''; once the server is `gone`, only
        after its remaining lines are in (up to `_STDERR_GRACE_S`)."""
        last = self.stderr.last(_STDERR_GRACE_S if gone else 0.0) if self.stderr is not None else ""
        return f" (its last stderr line: {last})" if last else ""


class _NotSent(Exception):
    """The connection was already closed: the request never reached the server."""


class _Lost(Exception):
    """The connection ended (or broke) while the request was in flight."""


# ---------------------------------------------------------------------- one server

class _Server:
    """One server's connection (reconnected on demand), its tool listing and its ptclisp tools."""

    def __init__(self, owner, spec: MCPServerSpec):  # owner: the `MCPTools` whose loop runs the connection
        self.owner = owner
        self.spec = spec
        self.name = spec.name
        self.lock = threading.RLock()  # re-entered when a connect future is already done at add_done_callback
        self.conn: _Conn | None = None
        self.pending = None                 # concurrent.futures.Future of a connect in progress
        self.tools: dict[str, Tool] = {}    # ptclisp name -> Tool
        self.meta: dict[str, tuple] = {}    # server tool name -> (effect, retry_ok, argument renames)
        self.skipped: list[str] = []        # server tools that cannot be named in PTC-Lisp
        self.listed_once = False

    # -- the listing
    def _set_listing(self, listing) -> None:
        spec = self.spec
        names = [t.name for t in listing]
        if not self.listed_once:
            self.listed_once = True
            for what, wanted in (("allow", spec.allow), ("hide", spec.hide), ("effects", spec.effects),
                                 ("rename", spec.rename)):
                unknown = [w for w in wanted if w not in names]
                if unknown:
                    raise MCPStartError(f"MCP server {self.name}: {what} names no tool of the server: "
                                        f"{', '.join(unknown)} (its tools: {', '.join(names) or 'none'})")
        tools, meta, skipped = {}, {}, []
        for t in listing:
            if (spec.allow and t.name not in spec.allow) or t.name in spec.hide:
                continue
            local = spec.rename.get(t.name, t.name)
            if not TOOL_NAME.match(local):
                skipped.append(t.name)
                continue
            effect = spec.effects.get(t.name) or tool_effect(t.annotations)
            idempotent = getattr(t.annotations, "idempotent_hint", None) is True
            retry_ok = effect == "read" or (effect != "write" and idempotent)
            schema, renames = arg_names(t.input_schema)
            ptc_name = f"{self.name}.{local}"
            description = (t.description or t.title or "").strip()
            fn = functools.partial(self.call, t.name, ptc_name)
            try:
                tool = Tool(ptc_name, fn, description=description, input_schema=schema, effect=effect)
            except (ValueError, TypeError):  # a schema jsonschema rejects: the server still checks its input
                tool = Tool(ptc_name, fn, description=description, effect=effect)
            tools[ptc_name] = tool
            meta[t.name] = (effect, retry_ok, renames)
        with self.lock:
            self.tools, self.meta, self.skipped = tools, meta, skipped

    async def _list(self, client) -> list:
        tools, cursor = [], None
        for _ in range(100):  # a paginator that never ends cannot hang the connect
            page = await client.list_tools(cursor=cursor, cache_mode="bypass")
            tools.extend(page.tools)
            cursor = page.next_cursor
            if not cursor:
                break
        return tools

    # -- connecting (runs on the loop)
    def _target(self, conn: _Conn):
        from mcp import StdioServerParameters
        spec = self.spec
        if spec.url is not None:
            if spec.headers:
                from mcp.client.streamable_http import streamable_http_client
                from mcp.shared._httpx_utils import create_mcp_http_client
                return streamable_http_client(spec.url, http_client=create_mcp_http_client(headers=spec.headers))
            return spec.url
        return StdioServerParameters(command=spec.command[0], args=list(spec.command[1:]), env=spec.env,
                                     cwd=spec.cwd)

    async def _open(self) -> tuple:
        loop = asyncio.get_running_loop()
        conn = _Conn()
        conn.stop = asyncio.Event()
        ready = loop.create_future()
        conn.task = loop.create_task(self._hold(conn, ready))
        timeout = self.owner.connect_timeout_s
        try:
            listing = await asyncio.wait_for(asyncio.shield(ready), timeout)
        except asyncio.TimeoutError:
            conn.task.cancel()
            raise MCPStartError(f"MCP server {self.name} ({self.spec.describe()}) did not complete its handshake "
                                f"within {timeout:g} s{conn.tail()}") from None
        return conn, listing

    async def _hold(self, conn: _Conn, ready) -> None:
        """Open the connection, list the tools, then keep it open until `conn.stop` is set."""
        from mcp import Client
        from mcp.types import Implementation

        from .. import __version__
        try:
            if self.spec.url is None:
                conn.stderr = _StderrTail()
                from mcp.client.stdio import stdio_client
                target = stdio_client(self._target(conn), errlog=conn.stderr.writer)
            else:
                target = self._target(conn)
            client = Client(target, client_info=Implementation(name="ptclisp", version=__version__),
                            message_handler=functools.partial(self._on_message, conn), cache=None)
            try:
                async with client:
                    if conn.stderr is not None:
                        conn.stderr.close_writer()
                    conn.client = client
                    listing = await self._list(client)
                    if not ready.done():
                        ready.set_result(listing)
                    listen = asyncio.get_running_loop().create_task(self._listen(conn, client))
                    try:
                        await conn.stop.wait()
                    finally:
                        listen.cancel()
            finally:
                if conn.stderr is not None:
                    conn.stderr.close_writer()
        except BaseException as exc:  # noqa: BLE001 - reported through `ready` or on the next call
            if not ready.done():
                ready.set_exception(self._start_error(exc, conn))
            if isinstance(exc, (asyncio.CancelledError, KeyboardInterrupt, SystemExit)):
                raise
        finally:
            conn.dead = True

    def _start_error(self, exc: BaseException, conn: _Conn) -> MCPStartError:
        leaf = first_leaf(exc)
        where = f"MCP server {self.name} ({self.spec.describe()})"
        if isinstance(leaf, MCPStartError):
            return leaf
        if isinstance(leaf, FileNotFoundError) and self.spec.url is None:
            return MCPStartError(f"{where} could not start: no such command {self.spec.command[0]!r}")
        if isinstance(leaf, PermissionError) and self.spec.url is None:
            return MCPStartError(f"{where} could not start: {self.spec.command[0]!r} is not executable")
        if isinstance(leaf, asyncio.CancelledError):
            return MCPStartError(f"{where}: the connection was cancelled")
        code = getattr(leaf, "code", None)
        if code == -32000 or type(leaf).__name__ in ("ClosedResourceError", "BrokenResourceError", "EndOfStream"):
            return MCPStartError(f"{where} closed the connection during the handshake{conn.tail(gone=True)}")
        text = one_line(str(leaf)) or type(leaf).__name__
        return MCPStartError(f"{where} could not be connected: {type(leaf).__name__}: {text}{conn.tail(gone=True)}")

    def _on_message(self, conn: _Conn, message) -> "asyncio.Future | None":
        async def handle():
            inner = getattr(message, "root", message)
            if getattr(inner, "method", None) == "notifications/tools/list_changed":
                await self._relist(conn)
        return handle()

    async def _listen(self, conn: _Conn, client) -> None:
        """On 2026-07-28 connections, tool-list changes arrive on a subscription stream."""
        try:
            caps = client.server_capabilities
            if not (caps.tools and getattr(caps.tools, "list_changed", None)):
                return
            async with client.listen(tools_list_changed=True) as sub:
                async for _event in sub:
                    await self._relist(conn)
        except Exception:  # noqa: BLE001 - best effort: an older protocol or a dropped stream
            return

    async def _relist(self, conn: _Conn) -> None:
        try:
            self._set_listing(await self._list(conn.client))
        except Exception:  # noqa: BLE001 - the old listing stays; calls still reach the server
            pass

    def _opened(self, fut) -> None:
        with self.lock:
            self.pending = None
            if not fut.cancelled() and fut.exception() is None:
                self.conn = fut.result()[0]

    def connect(self):
        """Start a connect (or join the one in progress); returns its future of (conn, listing)."""
        with self.lock:
            fut = self.pending
            if fut is None:
                # a future already done runs _opened at once (clearing `pending`): return this one, not `pending`
                fut = self.pending = self.owner._submit(self._open())
                fut.add_done_callback(self._opened)
            return fut

    def connection(self, ptc_name: str) -> _Conn:
        """The live connection, reconnecting (bounded by the evaluation) when the server went away."""
        with self.lock:  # one check-and-start, so callers that saw the same dead connection share one restart
            conn = self.conn
            if conn is not None and not conn.dead:
                return conn
            fut = self.connect()
        try:
            conn, listing = self.owner._wait(fut, ptc_name, self.name, cancel=False)
        except MCPStartError as exc:
            raise PtcError("tool_error", f"tool/{ptc_name}: {exc}",
                           details={"tool": ptc_name, "server": self.name, "reason": "server_unavailable"}) from None
        self._set_listing(listing)
        return conn

    def drop(self, conn: _Conn) -> None:
        """Forget a broken connection and close it (the server process is stopped)."""
        conn.dead = True
        with self.lock:
            if self.conn is conn:
                self.conn = None
        if conn.stop is not None:
            self.owner._call_soon(conn.stop.set)

    # -- a call (runs on the calling thread)
    def call(self, mcp_name: str, ptc_name: str, payload: dict):
        effect, retry_ok, renames = self.meta.get(mcp_name, ("unknown", False, {}))
        args = {renames.get(k, k): v for k, v in payload.items()} if renames else payload
        lost_once = False
        unsent = 0
        while True:
            conn = self.connection(ptc_name)
            fut = self.owner._submit(self._send(conn, mcp_name, args))
            try:
                result = self.owner._wait(fut, ptc_name, self.name)
            except _NotSent:
                self.drop(conn)
                unsent += 1
                if unsent < 3:
                    continue        # nothing reached the server: send it on a new connection
                raise PtcError("tool_error", f"tool/{ptc_name}: MCP server {self.name} keeps closing the "
                                             f"connection before the call is sent{conn.tail(gone=True)}",
                               details={"tool": ptc_name, "server": self.name, "reason": "server_lost"}) from None
            except _Lost as exc:
                self.drop(conn)
                if retry_ok and not lost_once:
                    lost_once = True
                    continue
                why = str(exc) or "closed the connection during the call"
                raise PtcError("tool_error", f"tool/{ptc_name}: MCP server {self.name} {why}{conn.tail(gone=True)}",
                               details={"tool": ptc_name, "server": self.name, "reason": "server_lost",
                                        "retried": lost_once}) from None
            return self._value(result, mcp_name, ptc_name)

    async def _send(self, conn: _Conn, mcp_name: str, args: dict):
        from mcp import MCPError
        dispatcher = getattr(conn.client.session, "_dispatcher", None) if conn.client is not None else None
        if conn.client is None or conn.dead or getattr(dispatcher, "_closed", False):
            raise _NotSent()
        try:
            return await conn.client.call_tool(mcp_name, args)
        except MCPError as exc:
            if exc.code == -32000:  # CONNECTION_CLOSED
                raise _Lost("closed the connection during the call") from None
            if "unknown tool" in str(exc.message).lower():
                asyncio.get_running_loop().create_task(self._relist(conn))
            raise PtcError("tool_error", f"tool/{self._ptc(mcp_name)}: MCP server {self.name} rejected the call: "
                                         f"{one_line(exc.message)}",
                           details={"tool": self._ptc(mcp_name), "server": self.name, "reason": "protocol_error",
                                    "code": exc.code}) from None
        except (PtcError, asyncio.CancelledError):
            raise
        except RuntimeError as exc:  # the SDK's checks of a result (output schema)
            raise PtcError("tool_error", f"tool/{self._ptc(mcp_name)}: {one_line(exc)}",
                           details={"tool": self._ptc(mcp_name), "server": self.name,
                                    "reason": "invalid_result"}) from None
        except Exception as exc:  # noqa: BLE001 - a broken transport
            leaf = first_leaf(exc)
            if type(leaf).__name__ == "ValidationError":
                raise PtcError("tool_error", f"tool/{self._ptc(mcp_name)}: MCP server {self.name} sent a malformed "
                                             f"result", details={"tool": self._ptc(mcp_name), "server": self.name,
                                                                  "reason": "invalid_result"}) from None
            raise _Lost(f"connection failed during the call ({type(leaf).__name__}: {one_line(leaf, 120)})") \
                from None

    def _ptc(self, mcp_name: str) -> str:
        return f"{self.name}.{self.spec.rename.get(mcp_name, mcp_name)}"

    def _value(self, result, mcp_name: str, ptc_name: str):
        if result.is_error:
            text = error_text(result)
            raise PtcError("tool_error", f"tool/{ptc_name}: {text}",
                           details={"tool": ptc_name, "server": self.name, "reason": "is_error", "message": text})
        room = self._room(ptc_name)
        if result.structured_content is not None:
            return result.structured_content
        values = [block_value(b, room) for b in (result.content or ())]
        if not values:
            return None
        return values[0] if len(values) == 1 else values

    def _room(self, ptc_name: str):
        left = memory_left()

        def room(nbytes: int):
            nonlocal left
            if left is None:
                return
            if nbytes > left:
                raise PtcError("memory_exceeded", f"tool/{ptc_name}: the result from MCP server {self.name} "
                                                  f"({nbytes} bytes) exceeds the evaluation's memory budget",
                               details={"tool": ptc_name, "requested_bytes": nbytes, "available_bytes": left})
            left -= nbytes
        return room

    def close(self) -> None:
        with self.lock:
            conn, self.conn = self.conn, None
            pending = self.pending
        if pending is not None:
            pending.cancel()
        if conn is not None:
            conn.dead = True
            if conn.stop is not None:
                self.owner._call_soon(conn.stop.set)
