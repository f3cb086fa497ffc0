"""MCP (Model Context Protocol) both ways, on the official `mcp` SDK (the `ptclisp[mcp]` extra).

* `ptclisp.mcp.client`: the tools of MCP servers granted to programs as
  `tool/SERVER.TOOL` (`MCPServerSpec`, `MCPTools`).
* `ptclisp.commands.mcp_flags`: the `--mcp NAME=COMMAND ARGS...` / `--mcp NAME=URL` flags
  of the commands (`add_mcp_flags`, `open_mcp_tools`).

The server behind `ptclisp mcp serve` is app.py, service.py, sessions.py, discovery.py;
the command itself is ptclisp/commands/mcp.py.

Importing this package (or `client`, or the flags) does not import the SDK; it is
loaded when a server is first connected, so ptclisp works without the extra.
"""
