"""MCP both ways: PTC-Lisp as an MCP server (server.py) and MCP tools inside PTC-Lisp."""
