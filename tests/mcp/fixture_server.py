"""An MCP server (the SDK's `MCPServer`) that misbehaves on request, for the client tests.

    python fixture_server.py STATE_DIR                  # stdio
    python fixture_server.py STATE_DIR --http PORT      # streamable HTTP on 127.0.0.1:PORT/mcp

STATE_DIR receives the server's observations: `starts.log` (one line per
server process started), `calls.log` (one line per tool call started, with the
tool name) and `inflight.max` (the largest number of `slow` calls that were
running at the same time).
"""
import os
import sys

import anyio
from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.types import EmbeddedResource, ImageContent, TextContent, TextResourceContents, ToolAnnotations

STATE = sys.argv[1]
server = MCPServer("fixture", log_level="ERROR")
_inflight = {"now": 0, "max": 0}


def _log(name: str) -> None:
    with open(os.path.join(STATE, "calls.log"), "a", encoding="utf-8") as fh:
        fh.write(name + "\n")


@server.tool(annotations=ToolAnnotations(read_only_hint=True))
def echo(value: object) -> dict:
    """Give the value back, as structured content."""
    _log("echo")
    return {"value": value}


@server.tool(annotations=ToolAnnotations(read_only_hint=True))
def pid() -> int:
    """The server's process id."""
    return os.getpid()


@server.tool(annotations=ToolAnnotations(read_only_hint=True))
async def slow(seconds: float, tag: str = "") -> str:
    """Sleep, then answer with the tag; records how many slow calls overlap."""
    _log("slow")
    _inflight["now"] += 1
    _inflight["max"] = max(_inflight["max"], _inflight["now"])
    with open(os.path.join(STATE, "inflight.max"), "w", encoding="utf-8") as fh:
        fh.write(str(_inflight["max"]))
    try:
        await anyio.sleep(seconds)
    finally:
        _inflight["now"] -= 1
    return tag


@server.tool()
async def hang() -> str:
    """Never answer."""
    _log("hang")
    await anyio.sleep_forever()
    return ""


@server.tool(annotations=ToolAnnotations(read_only_hint=False, destructive_hint=True))
def crash_write() -> str:
    """Exit the server in the middle of the call (a write tool)."""
    _log("crash_write")
    print("fixture: crashing on purpose", file=sys.stderr, flush=True)
    os._exit(3)


@server.tool(annotations=ToolAnnotations(read_only_hint=True))
def crash_once() -> str:
    """Exit the server the first time it is called (per STATE_DIR), answer 'recovered' after."""
    _log("crash_once")
    marker = os.path.join(STATE, "crashed.once")
    if not os.path.exists(marker):
        open(marker, "w").close()
        os._exit(3)
    return "recovered"


@server.tool()
def fail(message: str) -> str:
    """Answer with is_error and the message."""
    _log("fail")
    raise ToolError(message)


@server.tool(annotations=ToolAnnotations(read_only_hint=True), structured_output=False)
def huge(size: int) -> str:
    """A text result of `size` characters."""
    _log("huge")
    return "x" * size


@server.tool(structured_output=False)
def plain(text: str) -> str:
    """Text content only (no structured content)."""
    return text


@server.tool(structured_output=False)
def media() -> list:
    """An image, a text resource and a text block."""
    return [ImageContent(type="image", data="aGVsbG8=", mime_type="image/png"),
            EmbeddedResource(type="resource", resource=TextResourceContents(uri="file:///notes.txt",
                                                                            mime_type="text/plain", text="hi")),
            TextContent(type="text", text="[1, 2]")]


@server.tool(name="max-count", structured_output=False)
def max_count(limit: int) -> str:
    """A tool whose name has a dash."""
    return str(limit)


@server.tool()
async def add_tool(name: str, ctx: Context) -> str:
    """Register a new tool `name` (it answers 'new') and announce the changed list."""
    def fresh() -> str:
        return "new"
    server.add_tool(fresh, name=name, description="added at run time")
    await ctx.notify_tools_changed()
    return "added"


if __name__ == "__main__":
    with open(os.path.join(STATE, "starts.log"), "a", encoding="utf-8") as fh:
        fh.write(f"{os.getpid()}\n")
    if len(sys.argv) > 3 and sys.argv[2] == "--http":
        server.run("streamable-http", host="127.0.0.1", port=int(sys.argv[3]))
    else:
        server.run("stdio")
