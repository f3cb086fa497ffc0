"""The MCP side of `ptclisp mcp serve`: a `PtcService` offered as an SDK `MCPServer`.

`build_server(service)` registers the tools `run_ptc_lisp` (with an output
schema: `RunRecord`) and `describe_ptc_lisp`, and the resources
`ptclisp://functions`, `ptclisp://data` and `ptclisp://tools`. With a
token, the streamable HTTP app answers only requests that carry
`Authorization: Bearer <token>` (`StaticTokenVerifier`, through the SDK's
own bearer-auth middleware: 401 without it).

Imports the MCP SDK (and pydantic, which it brings) at import time, so
server.py imports this module only when it builds a server. No
`from __future__ import annotations` here: the SDK reads the tool
functions' annotations at registration.
"""
import contextlib
import json
import logging
import secrets
from typing import Annotated, Any, Literal

from mcp.server.auth.provider import AccessToken
from mcp.server.auth.settings import AuthSettings
from mcp.server.mcpserver import MCPServer
from mcp.types import CallToolResult, TextContent, ToolAnnotations
from pydantic import BaseModel, ConfigDict, Field

from .. import __version__
from .discovery import INTRO
from .service import DESCRIBE_DESCRIPTION, PtcService


class ErrorRecord(BaseModel):
    kind: str
    message: str
    line: int | None = None
    column: int | None = None
    #: true when the server gave up waiting for an in-process evaluation that could not be stopped
    still_running: bool | None = None


class ToolCallRecord(BaseModel):
    model_config = ConfigDict(extra="allow")
    tool: str
    args: Any = None
    result: Any = None
    error: str | None = None
    duration_ms: float = 0.0


class SessionRecord(BaseModel):
    model_config = ConfigDict(extra="allow")
    name: str
    new: bool
    note: str | None = None


class RunRecord(BaseModel):
    """The outcome of one run_ptc_lisp call."""
    model_config = ConfigDict(extra="allow")
    status: Literal["ok", "returned", "failed", "error"]
    value: Any = None
    error: ErrorRecord | None = None
    prints: list[str] = []
    tool_calls: list[ToolCallRecord] = []
    duration_ms: float = 0.0
    session: SessionRecord | None = None


class StaticTokenVerifier:
    """The SDK's TokenVerifier for one fixed bearer token (compared in constant time)."""

    def __init__(self, token: str):
        self._token = token.encode()

    async def verify_token(self, token: str) -> AccessToken | None:
        if secrets.compare_digest(token.encode(), self._token):
            return AccessToken(token=token, client_id="ptclisp-mcp-client", scopes=[])
        return None


@contextlib.contextmanager
def _root_logging_kept():
    """MCPServer() calls logging.basicConfig; keep the root logger as the host had it."""
    root = logging.getLogger()
    handlers, level = list(root.handlers), root.level
    try:
        yield
    finally:
        root.handlers[:] = handlers
        root.setLevel(level)


def build_server(service: PtcService, *, token: str | None = None, url: str | None = None) -> MCPServer:
    """The `MCPServer` offering `service`.

    With `token`, its streamable HTTP app requires `Authorization: Bearer <token>`; `url` is the
    server's base URL (the SDK's auth settings need an issuer; no OAuth routes are served).
    """
    kwargs: dict = {}
    if token is not None:
        kwargs = {"token_verifier": StaticTokenVerifier(token),
                  "auth": AuthSettings(issuer_url=url or "http://127.0.0.1", resource_server_url=None)}
    with _root_logging_kept():
        server = MCPServer("ptclisp", version=__version__, instructions=INTRO, log_level="WARNING", **kwargs)

    def run_ptc_lisp(
        program: Annotated[str, Field(description="PTC-Lisp source: one or more forms; the last one's value "
                                                  "is returned")],
        session: Annotated[str | None, Field(description="a session name of your choice, to keep definitions "
                                                         "between calls; omit for a fresh run")] = None,
    ) -> Annotated[CallToolResult, RunRecord]:
        out = service.run(program, session)
        return CallToolResult(content=[TextContent(type="text", text=out.text)],
                              structured_content=out.structured, is_error=out.is_error)

    def describe_ptc_lisp(
        search: Annotated[str | None, Field(description="a word to look for in the names and docs of functions, "
                                                        "tools, exports and data; omit for the overview")] = None,
    ) -> CallToolResult:
        doc = service.describe(search)
        return CallToolResult(content=[TextContent(type="text", text=json.dumps(doc, ensure_ascii=False))],
                              structured_content=doc)

    read_only = all(t.effect == "read" for t in service.tools.values())
    server.add_tool(run_ptc_lisp, description=service.run_description(),
                    annotations=ToolAnnotations(title="Run a PTC-Lisp program", read_only_hint=read_only,
                                                open_world_hint=bool(service.tools)))
    server.add_tool(describe_ptc_lisp, description=DESCRIBE_DESCRIPTION,
                    annotations=ToolAnnotations(title="Describe the PTC-Lisp environment", read_only_hint=True,
                                                open_world_hint=False))

    @server.resource("ptclisp://functions", name="functions", mime_type="application/json",
                     description="Every PTC-Lisp function: name, signatures, one-line doc, category")
    def functions_resource() -> str:
        return json.dumps(service.catalog.functions(), ensure_ascii=False)

    @server.resource("ptclisp://data", name="data", mime_type="application/json",
                     description="The data keys programs read as data/NAME, with their shapes")
    def data_resource() -> str:
        return json.dumps(service.catalog.data(), ensure_ascii=False)

    @server.resource("ptclisp://tools", name="tools", mime_type="application/json",
                     description="The tools programs may call as tool/NAME, and the prelude exports")
    def tools_resource() -> str:
        return json.dumps(service.catalog.tools(), ensure_ascii=False)

    return server
