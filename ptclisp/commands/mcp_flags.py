"""The `--mcp` flags of the commands that evaluate (eval, run, repl, agent, bench agent, mcp serve).

    add_mcp_flags(parser)          adds --mcp, --mcp-allow, --mcp-hide, --mcp-effect, --mcp-connect-timeout
    with open_mcp_tools(args) as mcp:
        tools = mcp.merged(python_tools)   # the Python tools plus tool/NAME.TOOL of every server

    --mcp NAME=COMMAND ARGS...     a stdio server (the value is split like a shell command line)
    --mcp NAME=URL                 a streamable HTTP server (http:// or https://)
    --mcp-allow NAME.TOOL          grant only the allowed tools of server NAME (repeatable)
    --mcp-hide NAME.TOOL           never grant this tool (repeatable)
    --mcp-effect NAME.TOOL=EFFECT  read, write or unknown, instead of the tool's annotations (repeatable)

A server that cannot be started raises `MCPStartError` (the commands print it
as one line and exit with `exit_codes.PROVIDER_NOT_READY`, 4); bad flag values
raise `UsageError` (exit 2). Imports ptclisp.commands.common, mcp.client and the standard
library; only command modules import this one.
"""
from __future__ import annotations

import contextlib

from typing import TYPE_CHECKING

from .common import UsageError

if TYPE_CHECKING:
    from ..mcp.client import MCPTools
    from ..mcp.client_specs import MCPServerSpec

__all__ = ["add_mcp_flags", "open_mcp_tools", "specs_from_args", "quiet_sdk_log", "MCPStartError"]


def __getattr__(name: str):
    # MCPStartError lives in client_specs (light, but a command without --mcp never needs it)
    if name == "MCPStartError":
        from ..mcp.client_specs import MCPStartError
        return MCPStartError
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def add_mcp_flags(parser) -> None:
    """Add the MCP client flags to an argparse parser (as a group of their own)."""
    g = parser.add_argument_group("MCP servers", "Grant the tools of MCP servers as tool/NAME.TOOL.")
    g.add_argument("--mcp", action="append", default=[], metavar="NAME=COMMAND|URL",
                   help="an MCP server: NAME=COMMAND ARGS... (stdio; split like a shell command line) or "
                        "NAME=URL (streamable HTTP); its tools become tool/NAME.TOOL (repeatable)")
    g.add_argument("--mcp-allow", action="append", default=[], metavar="NAME.TOOL",
                   help="grant only the allowed tools of server NAME (repeatable)")
    g.add_argument("--mcp-hide", action="append", default=[], metavar="NAME.TOOL",
                   help="do not grant this tool (repeatable)")
    g.add_argument("--mcp-effect", action="append", default=[], metavar="NAME.TOOL=EFFECT",
                   help="the tool's effect: read, write or unknown, instead of its annotations (repeatable)")
    g.add_argument("--mcp-connect-timeout", type=float, default=30.0, metavar="SECONDS",
                   help="how long a server may take to start and answer the handshake (default 30)")


def _tool_ref(text: str, flag: str, names: set) -> tuple[str, str]:
    server, dot, tool = text.partition(".")
    if not dot or not server or not tool:
        raise UsageError(f"{flag} expects NAME.TOOL, got {text!r}")
    if server not in names:
        raise UsageError(f"{flag} {text}: no --mcp server is named {server!r}")
    return server, tool


def specs_from_args(args) -> list[MCPServerSpec]:
    """The server specs of the parsed flags (UsageError for a malformed one)."""
    if not any(getattr(args, flag, None) for flag in ("mcp", "mcp_allow", "mcp_hide", "mcp_effect")):
        return []
    from ..mcp.client_specs import MCPServerSpec, parse_mcp_arg  # light: no asyncio, no SDK
    specs = []
    for text in getattr(args, "mcp", None) or ():
        try:
            specs.append(parse_mcp_arg(text))
        except ValueError as exc:
            raise UsageError(str(exc)) from None
    names = {s.name for s in specs}
    if len(names) != len(specs):
        raise UsageError("two --mcp servers share a name")
    allow: dict = {}
    hide: dict = {}
    effects: dict = {}
    for text in getattr(args, "mcp_allow", None) or ():
        server, tool = _tool_ref(text, "--mcp-allow", names)
        allow.setdefault(server, []).append(tool)
    for text in getattr(args, "mcp_hide", None) or ():
        server, tool = _tool_ref(text, "--mcp-hide", names)
        hide.setdefault(server, []).append(tool)
    for text in getattr(args, "mcp_effect", None) or ():
        ref, eq, effect = text.partition("=")
        server, tool = _tool_ref(ref, "--mcp-effect", names)
        if not eq or effect not in ("read", "write", "unknown"):
            raise UsageError(f"--mcp-effect {text}: expected NAME.TOOL=read|write|unknown")
        effects.setdefault(server, {})[tool] = effect
    out = []
    for s in specs:
        try:
            out.append(MCPServerSpec(s.name, command=s.command, url=s.url, allow=allow.get(s.name, ()),
                                     hide=hide.get(s.name, ()), effects=effects.get(s.name, {})))
        except ValueError as exc:
            raise UsageError(str(exc)) from None
    return out


class _Opened:
    """What `open_mcp_tools` yields: the tools of the servers (none without --mcp)."""

    def __init__(self, mcp: "MCPTools | None"):
        self.mcp = mcp

    @property
    def tools(self) -> dict:
        return self.mcp.tools if self.mcp is not None else {}

    def __iter__(self):
        return iter(list(self.tools.values()))

    def merged(self, tools: dict | None) -> dict | None:
        """`tools` (the --tools dict, or None) plus the MCP tools; a name in both is a UsageError."""
        extra = self.tools
        if not extra:
            return tools
        out = dict(tools or {})
        for name, tool in extra.items():
            if name in out:
                raise UsageError(f"tool/{name} is granted by --tools and by --mcp; rename one")
            out[name] = tool
        return out


@contextlib.contextmanager
def open_mcp_tools(args):
    """Start the servers of the parsed --mcp flags for the duration of a command.

    Yields an object with `.tools` (`"NAME.TOOL" -> ptclisp.Tool`) and
    `.merged(python_tools)`. Raises `MCPStartError` when a server cannot be
    started or listed. The SDK's own log records are kept off the command's
    stderr meanwhile (failures reach the user as the one-line errors above).
    """
    specs = specs_from_args(args)
    if not specs:
        yield _Opened(None)
        return
    from ..mcp.client import MCPTools  # the event loop and the SDK: only when a server is named
    with quiet_sdk_log(), MCPTools(specs, connect_timeout_s=getattr(args, "mcp_connect_timeout", 30.0)) as mcp:
        yield _Opened(mcp)


@contextlib.contextmanager
def quiet_sdk_log():
    """Keep the MCP SDK's log records off the command's stderr for the block (failures reach the user as
    one-line errors instead)."""
    import logging
    log = logging.getLogger("mcp")
    saved = (log.propagate, list(log.handlers))
    log.propagate = False
    log.handlers = [logging.NullHandler()]
    try:
        yield
    finally:
        log.propagate, log.handlers = saved[0], saved[1]
