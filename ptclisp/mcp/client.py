"""The tools of MCP servers, granted to programs as `tool/SERVER.TOOL`.

    from ptclisp.mcp.client import MCPServerSpec, MCPTools

    specs = [MCPServerSpec("time", command=["mcp-server-time", "--local-timezone", "UTC"])]
    with MCPTools(specs) as mcp:                      # starts the servers, lists their tools
        r = ptclisp.run('(tool/time.convert_time {:source_timezone "UTC" :time "12:00" '
                        ':target_timezone "Asia/Tokyo"})', tools=mcp.tools)
    # leaving the block closes the connections and stops the servers

Owns `MCPServerSpec` (one server: a stdio command or a streamable HTTP URL,
plus the tools to allow or hide, renames and effect overrides), `MCPTools`
(the connections and the `ptclisp.Tool` objects standing for the servers'
tools), `parse_mcp_arg` (the `NAME=COMMAND ARGS...` / `NAME=URL` syntax) and
`MCPStartError` (a server that could not be started or listed).

How a call runs. `MCPTools` keeps one asyncio event loop on a background
thread and one connection per server; a tool call hands the request to that
loop and waits for its answer on the calling thread, so calls from several
`pmap` workers are in flight on one connection at once. The wait is bounded
by the calling evaluation (`ptclisp.tools.time_left` / `check_stop`): at the
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
is connected. Imports attrs, ptclisp.errors, ptclisp.tools and, in
`_memory_left`, ptclisp.meter.
"""
from __future__ import annotations

import asyncio
import collections
import concurrent.futures
import functools
import json
import os
import re
import shlex
import threading
import time

import attrs

from ..errors import PtcError
from ..tools import EFFECTS, Tool, check_stop, time_left

__all__ = ["MCPServerSpec", "MCPTools", "MCPStartError", "parse_mcp_arg"]

#: A server or local tool name: it becomes part of `tool/NAME.TOOL`.
_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_-]*$")
#: What a server's tool name may hold to be granted under its own name.
_TOOL_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_.-]*$")
_POLL_S = 0.05          # a waiting call re-checks the evaluation's stop flag this often
_STDERR_LINES = 20      # lines of a server's stderr kept for error messages
_CLOSE_S = 8.0          # how long close() waits for the servers to shut down


class MCPStartError(Exception):
    """A server could not be started, connected or listed (one line, names the server)."""


# ---------------------------------------------------------------------- specs

def _command(value):
    if value is None:
        return None
    if isinstance(value, str):
        value = shlex.split(value)
    value = tuple(value)
    if not value or not all(isinstance(v, str) for v in value):
        raise ValueError("an MCP server command must be a non-empty list of strings")
    return value


def _names(value) -> tuple:
    if isinstance(value, str):
        return (value,)
    return tuple(value or ())


@attrs.define(slots=True)
class MCPServerSpec:
    """One MCP server: how to reach it and which of its tools to grant.

    name:    the NAME of `tool/NAME.TOOL` (letters, digits, `_`, `-`).
    command: a stdio server's command line (a list, or a string split like a shell).
    url:     a streamable HTTP server's endpoint (http:// or https://); exactly one of command/url.
    allow:   only these tools (server tool names); empty: all.
    hide:    never these tools.
    rename:  server tool name -> the TOOL part of its ptclisp name.
    effects: server tool name -> "read" | "write" | "unknown" (overrides the annotations).
    env:     extra environment variables for a stdio server (it inherits only HOME, PATH, ... otherwise).
    cwd:     working directory of a stdio server.
    headers: HTTP headers for a URL server (e.g. Authorization).
    """

    name: str
    command: tuple | None = attrs.field(default=None, converter=_command)
    url: str | None = None
    allow: tuple = attrs.field(default=(), converter=_names)
    hide: tuple = attrs.field(default=(), converter=_names)
    rename: dict = attrs.field(factory=dict, converter=dict)
    effects: dict = attrs.field(factory=dict, converter=dict)
    env: dict | None = None
    cwd: str | None = None
    headers: dict | None = None

    def __attrs_post_init__(self):
        if not isinstance(self.name, str) or not _NAME.match(self.name):
            raise ValueError(f"MCP server name {self.name!r} must be letters, digits, '_' or '-' "
                             f"(it becomes tool/NAME.TOOL)")
        if (self.command is None) == (self.url is None):
            raise ValueError(f"MCP server {self.name}: give exactly one of command and url")
        if self.url is not None and not re.match(r"^https?://", str(self.url)):
            raise ValueError(f"MCP server {self.name}: url must start with http:// or https://, got {self.url!r}")
        for tool, effect in self.effects.items():
            if effect not in EFFECTS:
                raise ValueError(f"MCP server {self.name}: effect of {tool} must be one of "
                                 f"{', '.join(EFFECTS)}, got {effect!r}")
        for tool, new in self.rename.items():
            if not isinstance(new, str) or not _NAME.match(new):
                raise ValueError(f"MCP server {self.name}: cannot rename {tool} to {new!r} "
                                 f"(letters, digits, '_' or '-')")

    def describe(self) -> str:
        """The command line or URL, for messages."""
        return self.url if self.url is not None else shlex.join(self.command)


def parse_mcp_arg(text: str) -> MCPServerSpec:
    """`NAME=COMMAND ARGS...` (a stdio server, split like a shell command line) or `NAME=URL` (streamable HTTP)."""
    name, sep, value = text.partition("=")
    name, value = name.strip(), value.strip()
    if not sep or not name or not value:
        raise ValueError(f"--mcp expects NAME=COMMAND ARGS... or NAME=URL, got {text!r}")
    if re.match(r"^https?://", value):
        return MCPServerSpec(name, url=value)
    try:
        command = shlex.split(value)
    except ValueError as exc:
        raise ValueError(f"--mcp {name}: cannot split the command line: {exc}") from None
    return MCPServerSpec(name, command=command)


# ---------------------------------------------------------------------- tools and results

def _effect(annotations) -> str:
    if annotations is None:
        return "unknown"
    if getattr(annotations, "read_only_hint", None) is True:
        return "read"
    if getattr(annotations, "read_only_hint", None) is False or getattr(annotations, "destructive_hint", None):
        return "write"
    return "unknown"


def _arg_names(schema):
    """(schema as ptclisp sees it, map ptclisp argument name -> server argument name).

    ptclisp passes argument keys with `-` turned into `_`, so a top-level property
    `max-count` is offered as `max_count` and renamed back for the call.
    """
    if not isinstance(schema, dict) or not isinstance(schema.get("properties"), dict):
        return schema, {}
    renames = {k.replace("-", "_"): k for k in schema["properties"] if isinstance(k, str) and "-" in k}
    renames = {a: b for a, b in renames.items() if a not in schema["properties"]}
    if not renames:
        return schema, {}
    back = {b: a for a, b in renames.items()}
    out = dict(schema)
    out["properties"] = {back.get(k, k): v for k, v in schema["properties"].items()}
    if isinstance(schema.get("required"), list):
        out["required"] = [back.get(k, k) for k in schema["required"]]
    return out, renames


def _b64_size(data) -> int:
    if not isinstance(data, str):
        return 0
    n = len(data.rstrip())
    return max(0, n * 3 // 4 - data.rstrip()[-2:].count("="))


def _not_json_constant(name):
    raise ValueError(name)


def _text_value(text: str, room):
    room(len(text))
    s = text.strip()
    if s and (s[0] in '{["-' or s[0].isdigit() or s in ("true", "false", "null")):
        try:
            return json.loads(s, parse_constant=_not_json_constant)
        except ValueError:
            pass
    return text


def _block_value(block, room):
    kind = getattr(block, "type", None)
    if kind == "text":
        return _text_value(block.text, room)
    if kind in ("image", "audio"):
        return {"type": kind, "mime_type": block.mime_type, "size": _b64_size(block.data)}
    if kind == "resource":
        res = block.resource
        out = {"type": "resource", "uri": str(res.uri), "mime_type": getattr(res, "mime_type", None)}
        if getattr(res, "text", None) is not None:
            room(len(res.text))
            out["text"] = res.text
        else:
            out["size"] = _b64_size(getattr(res, "blob", None))
        return out
    if kind == "resource_link":
        out = {"type": "resource_link", "uri": str(block.uri), "name": getattr(block, "name", None),
               "mime_type": getattr(block, "mime_type", None)}
        if getattr(block, "size", None) is not None:
            out["size"] = block.size
        return out
    return {"type": str(kind)}


def _error_text(result) -> str:
    parts = [b.text for b in (result.content or ()) if getattr(b, "type", None) == "text" and b.text]
    return " ".join(" ".join(parts).split())[:1000] or "the tool reported an error without a message"


def _memory_left() -> int | None:
    """Bytes the calling evaluation may still allocate (None outside an evaluation's budget)."""
    from .. import meter as M
    m = M.current()
    return max(0, m.budget - m.allocated) if m.budget < (1 << 61) else None


def _first_leaf(exc: BaseException) -> BaseException:
    while isinstance(exc, BaseExceptionGroup) and exc.exceptions:
        exc = exc.exceptions[0]
    return exc


def _one_line(text: str, limit: int = 300) -> str:
    text = " ".join(str(text).split())
    return text if len(text) <= limit else text[:limit - 1] + "…"


# ---------------------------------------------------------------------- one connection

class _StderrTail:
    """A pipe for a stdio server's stderr; a thread keeps its last lines (bounded memory)."""

    def __init__(self):
        r, w = os.pipe()
        self.writer = os.fdopen(w, "w", encoding="utf-8", errors="replace")
        self.lines: collections.deque = collections.deque(maxlen=_STDERR_LINES)
        threading.Thread(target=self._read, args=(r,), name="ptclisp-mcp-stderr", daemon=True).start()

    def _read(self, fd):
        with os.fdopen(fd, "rb") as f:
            while True:
                chunk = f.readline(4096)
                if not chunk:
                    return
                line = chunk.decode("utf-8", "replace").strip()
                if line:
                    self.lines.append(line)

    def close_writer(self):
        try:
            self.writer.close()
        except OSError:
            pass

    def last(self) -> str:
        lines = list(self.lines)
        return _one_line(lines[-1], 200) if lines else ""


class _Conn:
    """One live connection: the SDK client, the task holding it open, the server's stderr."""

    def __init__(self):
        self.client = None
        self.task = None
        self.stop = None        # asyncio.Event: set to close the connection
        self.stderr = None
        self.dead = False

    def tail(self) -> str:
        last = self.stderr.last() if self.stderr is not None else ""
        return f" (its last stderr line: {last})" if last else ""


class _NotSent(Exception):
    """The connection was already closed: the request never reached the server."""


class _Lost(Exception):
    """The connection ended (or broke) while the request was in flight."""


# ---------------------------------------------------------------------- one server

class _Server:
    """One server's connection (reconnected on demand), its tool listing and its ptclisp tools."""

    def __init__(self, owner: "MCPTools", spec: MCPServerSpec):
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
            if not _TOOL_NAME.match(local):
                skipped.append(t.name)
                continue
            effect = spec.effects.get(t.name) or _effect(t.annotations)
            idempotent = getattr(t.annotations, "idempotent_hint", None) is True
            retry_ok = effect == "read" or (effect != "write" and idempotent)
            schema, renames = _arg_names(t.input_schema)
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
        leaf = _first_leaf(exc)
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
            return MCPStartError(f"{where} closed the connection during the handshake{conn.tail()}")
        text = _one_line(str(leaf)) or type(leaf).__name__
        return MCPStartError(f"{where} could not be connected: {type(leaf).__name__}: {text}{conn.tail()}")

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
            if self.pending is None:
                self.pending = self.owner._submit(self._open())
                self.pending.add_done_callback(self._opened)
            return self.pending

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
                                             f"connection before the call is sent{conn.tail()}",
                               details={"tool": ptc_name, "server": self.name, "reason": "server_lost"}) from None
            except _Lost as exc:
                self.drop(conn)
                if retry_ok and not lost_once:
                    lost_once = True
                    continue
                why = str(exc) or "closed the connection during the call"
                raise PtcError("tool_error", f"tool/{ptc_name}: MCP server {self.name} {why}{conn.tail()}",
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
                                         f"{_one_line(exc.message)}",
                           details={"tool": self._ptc(mcp_name), "server": self.name, "reason": "protocol_error",
                                    "code": exc.code}) from None
        except (PtcError, asyncio.CancelledError):
            raise
        except RuntimeError as exc:  # the SDK's checks of a result (output schema)
            raise PtcError("tool_error", f"tool/{self._ptc(mcp_name)}: {_one_line(exc)}",
                           details={"tool": self._ptc(mcp_name), "server": self.name,
                                    "reason": "invalid_result"}) from None
        except Exception as exc:  # noqa: BLE001 - a broken transport
            leaf = _first_leaf(exc)
            if type(leaf).__name__ == "ValidationError":
                raise PtcError("tool_error", f"tool/{self._ptc(mcp_name)}: MCP server {self.name} sent a malformed "
                                             f"result", details={"tool": self._ptc(mcp_name), "server": self.name,
                                                                  "reason": "invalid_result"}) from None
            raise _Lost(f"connection failed during the call ({type(leaf).__name__}: {_one_line(leaf, 120)})") \
                from None

    def _ptc(self, mcp_name: str) -> str:
        return f"{self.name}.{self.spec.rename.get(mcp_name, mcp_name)}"

    def _value(self, result, mcp_name: str, ptc_name: str):
        if result.is_error:
            text = _error_text(result)
            raise PtcError("tool_error", f"tool/{ptc_name}: {text}",
                           details={"tool": ptc_name, "server": self.name, "reason": "is_error", "message": text})
        room = self._room(ptc_name)
        if result.structured_content is not None:
            return result.structured_content
        values = [_block_value(b, room) for b in (result.content or ())]
        if not values:
            return None
        return values[0] if len(values) == 1 else values

    def _room(self, ptc_name: str):
        left = _memory_left()

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
