"""`ptclisp mcp serve`: PTC-Lisp as an MCP server, on the official MCP SDK (`mcp` 2.x, `MCPServer`).

Tools the server offers:

* `run_ptc_lisp(program, session=None)`: evaluates `program` with the
  server's data (`--data`), preludes (`--prelude`), Python tools (`--tools`)
  and the tools of upstream MCP servers (`--mcp`). The structured result is
  `{status, value, prints, tool_calls, duration_ms, session}`; the value goes
  through the one PTC -> JSON conversion (`ptclisp.interchange.json_out.to_json`). An
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
own evaluation thread (a deep stack, at most `--max-concurrent` at once).
By default (`--isolation process`) that thread hands the program to a warm
worker process under OS limits, which the host kills if it cannot be
stopped; sessions are then not available (their definitions live in this
process). `--isolation thread` evaluates in the server process: sessions
work, and the server waits for an evaluation at most its deadline plus the
grace period plus `service.GRACE_S`; one stuck where it cannot be
interrupted is then reported with `still_running` and keeps its slot until
it ends. Either way a hostile program costs the server one call, never the
server.

Transports: stdio (default), or `--http [HOST:]PORT` (streamable HTTP at
`/mcp`; loopback unless `--allow-remote`, which requires a bearer token).

This module holds the command line; service.py holds `PtcService` (the
calls, independent of MCP); app.py binds the service to the SDK's
`MCPServer` and is imported only when a server is built, so
`ptclisp mcp serve --help` works without the SDK. Imports the public API,
ptclisp.commands.common (the limit flags, --data, --tools) and ptclisp.mcp (service, language_facts).
"""
from __future__ import annotations

import argparse
import contextlib
import ipaddress
import os
import secrets
import sys
import threading

from .. import Limits
from ..mcp import language_facts
from ..mcp.service import PtcService, SWEEP_EVERY_S, ServeConfig
from .common import UsageError, add_limit_flags, limits_from_args, load_data, load_tools

SERVE_MAX_RESULT_BYTES = 1_000_000   # the default --max-result-bytes of a served call


def add_serve_flags(p: argparse.ArgumentParser) -> None:
    """The flags of `ptclisp mcp serve`."""
    env = p.add_argument_group("what programs may use")
    env.add_argument("--data", metavar="FILE.json", help="a JSON object whose keys become data/<name>")
    env.add_argument("--lenient-data", action="store_true",
                     help="an unknown data/<name> is nil (default: an error naming the closest granted name)")
    env.add_argument("--prelude", metavar="FILE", action="append",
                     help="attach a prelude file and its exports (repeatable)")
    env.add_argument("--tools", metavar="module:attr", action="append",
                     help="grant Python tools: a dict name -> callable/ptclisp.Tool, or a list of ptclisp.Tool "
                          "(repeatable; the current directory is importable)")
    lim = p.add_argument_group("limits of each call")
    lim.add_argument("--timeout-ms", type=int, default=5000, metavar="MS",
                     help="wall-clock limit per evaluation, tool calls included: a tool still running at the "
                          "deadline is abandoned after a grace period (default 5000)")
    lim.add_argument("--isolation", choices=("thread", "process"), default="process",
                     help="process (default): evaluate each call in a warm worker process under OS limits, killed "
                          "if it cannot be stopped (no sessions then); thread: evaluate in the server process "
                          "under metered limits, with sessions (an evaluation stuck where it cannot be interrupted "
                          "keeps running there; docs/security.md)")
    lim.add_argument("--max-concurrent", type=int, default=4, metavar="N",
                     help="evaluations running at once; more calls wait (default 4)")
    add_limit_flags(p, defaults={"max_result_bytes": SERVE_MAX_RESULT_BYTES}, title="more limits of each call")
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
    """The MCP client's command-line helpers (`ptclisp.commands.mcp_flags`: `add_mcp_flags`, `open_mcp_tools`), or None
    in a build without the client."""
    try:
        from .mcp_flags import add_mcp_flags, open_mcp_tools
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
            raise UsageError("--mcp needs ptclisp's MCP client (ptclisp.commands.mcp_flags), which this build lacks")
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
    for flag, value, low in (("--timeout-ms", args.timeout_ms, 1), ("--max-sessions", args.max_sessions, 1),
                             ("--session-memory-bytes", args.session_memory_bytes, 1),
                             ("--max-concurrent", args.max_concurrent, 1)):
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
            preludes.append(language_facts.prelude_component(path))
        except PtcError as exc:
            raise UsageError(f"--prelude: Error ({exc.kind}): {exc.message}") from None
    tools: dict = {}
    from ..host.tools import ToolSet
    tools.update(ToolSet(load_tools(args.tools)).tools)   # the one binding path of plain callables (tool_calling)
    for name, t in upstream.items():
        if name in tools:
            raise UsageError(f"tool/{name} is granted twice (by --tools and by --mcp)")
        tools[name] = t
    limits = limits_from_args(args, Limits(timeout_ms=args.timeout_ms, max_result_bytes=SERVE_MAX_RESULT_BYTES))
    return ServeConfig(data=data, preludes=preludes, tools=tools, limits=limits, isolation=args.isolation,
                       session_ttl_s=args.session_ttl, max_sessions=args.max_sessions,
                       session_memory_bytes=args.session_memory_bytes, max_concurrent=args.max_concurrent,
                       strict_data=not args.lenient_data)


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

    from ..mcp.app import build_server
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

    from ..mcp.app import build_server

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
    """The `mcp` command and its `serve` subcommand (commands/main.py's `_COMMANDS` builds it with this)."""
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
