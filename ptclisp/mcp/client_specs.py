"""What an MCP server is, for the MCP client: `MCPServerSpec`, `parse_mcp_arg`, `MCPStartError`.

`MCPServerSpec` names one server (a stdio command or a streamable HTTP URL)
and the tools to allow or hide, renames and effect overrides; `parse_mcp_arg`
reads the `NAME=COMMAND ARGS...` / `NAME=URL` syntax of `--mcp`;
`MCPStartError` is a server that could not be started, connected or listed.
All three are re-exported by `ptclisp.mcp.client`. Imports attrs and
ptclisp.host.tools (the effect names).
"""
from __future__ import annotations

import re
import shlex

import attrs

from ..host.tools import EFFECTS

__all__ = ["MCPServerSpec", "MCPStartError", "parse_mcp_arg", "NAME", "TOOL_NAME"]

#: A server or local tool name: it becomes part of `tool/NAME.TOOL`.
NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_-]*$")
#: What a server's tool name may hold to be granted under its own name.
TOOL_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_.-]*$")


class MCPStartError(Exception):
    """A server could not be started, connected or listed (one line, names the server)."""


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
        if not isinstance(self.name, str) or not NAME.match(self.name):
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
            if not isinstance(new, str) or not NAME.match(new):
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

