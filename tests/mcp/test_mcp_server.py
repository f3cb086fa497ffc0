"""`ptclisp mcp serve` driven by the official MCP SDK's client: over stdio, over streamable HTTP, in process.

The transport tests spawn the real command; the session, limit and discovery tests connect the SDK
client to the server object in process (same tools, no process start), with a clock the test moves.
The whole module is skipped when the `mcp` package (the `mcp` extra) is not installed.
"""
import contextlib
import importlib.util
import json
import os
import queue
import shutil
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

pytest.importorskip("mcp")

import anyio  # noqa: E402  - installed with mcp
import httpx  # noqa: E402
from mcp import Client, StdioServerParameters  # noqa: E402

from mcp_client_helpers import stop_process  # noqa: E402

import ptclisp  # noqa: E402
from ptclisp.commands.main import main  # noqa: E402
from ptclisp.mcp.app import build_server  # noqa: E402
from ptclisp.mcp.service import PtcService, ServeConfig  # noqa: E402

REPO = Path(__file__).resolve().parents[2]
ORDERS = str(REPO / "examples" / "orders.json")
HELPERS = str(REPO / "examples" / "order_helpers.clj")
LAUNCH = ["-c", "import sys; from ptclisp.commands.main import main; sys.exit(main())", "mcp", "serve"]
TYPE_ERROR = '(+ 1 "a")'
SLOW = "(defn f [n] (if (= n 0) 0 (+ (f (dec n)) (f (dec n)))))\n(f 60)"
DEEP = "(defn g [n] (if (= n 0) 0 (inc (g (dec n)))))\n(g 1000000)"
PRINTS = '(doseq [i (range 100000)] (println "abcdefghijklmnopqrstuvwxyz abcdefghijklmnopqrstuvwxyz"))'


def call(client, program, session=None):
    args = {"program": program}
    if session is not None:
        args["session"] = session
    return client.call_tool("run_ptc_lisp", args)


async def the_done_when_checks(client):
    """The issue's 'Done when' checks for the server, on a connected client."""
    tools = {t.name: t for t in (await client.list_tools()).tools}
    assert "run_ptc_lisp" in tools and "describe_ptc_lisp" in tools
    assert tools["run_ptc_lisp"].description.endswith("This server grants data: data/orders; no tools.")

    r = await call(client, "(count data/orders)")
    assert not r.is_error
    assert r.structured_content["value"] == 120 and r.structured_content["status"] == "ok"
    assert json.loads(r.content[0].text)["value"] == 120

    await call(client, "(def x 41)", session="s1")
    r = await call(client, "(inc x)", session="s1")
    assert not r.is_error and r.structured_content["value"] == 42
    assert r.structured_content["session"] == {"name": "s1", "new": False}

    r = await call(client, "(inc x)")  # no session: a fresh run
    assert r.is_error and r.structured_content["error"]["kind"] == "unbound_var"

    r = await call(client, TYPE_ERROR)
    assert r.is_error
    err = r.structured_content["error"]
    assert (err["kind"], err["line"], err["column"]) == ("type_error", 1, 1)
    assert r.content[0].text.splitlines() == ["Error (type_error) at line 1, column 1: +: expected a number, got string",
                                              '   1 | (+ 1 "a")', "     | ^^^^^^^^^"]


# ---------------------------------------------------------------------- stdio


def test_stdio_lists_runs_keeps_sessions_and_reports_errors():
    params = StdioServerParameters(command=sys.executable, args=[*LAUNCH, "--data", ORDERS, "--isolation", "thread"],
                                   cwd=str(REPO))

    async def go():
        async with Client(params) as client:
            await the_done_when_checks(client)

    anyio.run(go)


def test_stdio_hostile_programs_do_not_take_the_server_down():
    params = StdioServerParameters(command=sys.executable, args=[*LAUNCH, "--timeout-ms", "300", "--max-sessions", "1",
                                                                 "--isolation", "thread"], cwd=str(REPO))

    async def go():
        async with Client(params) as client:
            r = await call(client, SLOW)
            err = r.structured_content["error"]
            assert r.is_error and (err["kind"], err["line"]) == ("timeout", 1)  # inside f, where it ran
            assert err["column"] is not None
            r = await call(client, DEEP)
            err = r.structured_content["error"]
            assert r.is_error and (err["kind"], err["line"]) == ("memory_exceeded", 1)
            assert err["column"] in (32, 33)  # the recursive call (g ...): its form or its head, by Python version
            r = await call(client, PRINTS)
            assert r.is_error and r.structured_content["error"]["kind"] == "memory_exceeded"
            assert sum(map(len, r.structured_content["prints"])) <= 100_003
            assert r.structured_content["prints_omitted"] > 0
            r = await call(client, "(vec (range 2000000))")
            assert r.is_error and r.structured_content["error"]["kind"] == "memory_exceeded"
            r = await call(client, "(+ 1 2)")
            assert not r.is_error and r.structured_content["value"] == 3
            await call(client, "(def x 1)", session="a")
            await call(client, "(def x 2)", session="b")  # --max-sessions 1: a goes
            r = await call(client, "x", session="a")
            assert r.is_error and "--max-sessions" in r.structured_content["session"]["note"]

    anyio.run(go)


# ---------------------------------------------------------------------- HTTP


class HttpServer:
    """`ptclisp mcp serve --http 127.0.0.1:0 ...` in a child process; `url` is read from its stderr."""

    def __init__(self, *args, env=None):
        self.proc = subprocess.Popen([sys.executable, *LAUNCH, "--http", "127.0.0.1:0", *args], cwd=str(REPO),
                                     stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                                     text=True, env={**os.environ, **(env or {})})
        self.lines: queue.Queue = queue.Queue()
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()
        self.stderr: list[str] = []
        self.url = self._wait_for("serving MCP over streamable HTTP at ").split(" at ")[-1].strip()

    def _read(self):
        for line in self.proc.stderr:
            self.lines.put(line)
        self.lines.put(None)

    def _wait_for(self, text: str) -> str:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            try:
                line = self.lines.get(timeout=1)
            except queue.Empty:
                continue
            if line is None:
                break
            self.stderr.append(line)
            if text in line:
                return line
        self.close()
        raise AssertionError(f"the server did not start: {''.join(self.stderr)}")

    def close(self):
        if self.proc.poll() is None:
            stop_process(self.proc)
        self.reader.join(timeout=10)
        self.proc.stderr.close()


INITIALIZE = {"jsonrpc": "2.0", "id": 1, "method": "initialize",
              "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                         "clientInfo": {"name": "test", "version": "1"}}}


def post_initialize(url, token=None):
    headers = {"content-type": "application/json", "accept": "application/json, text/event-stream"}
    if token is not None:
        headers["authorization"] = f"Bearer {token}"
    return httpx.post(url, json=INITIALIZE, headers=headers, timeout=30)


@contextlib.asynccontextmanager
async def bearer_client(url, token):
    import httpx2  # the SDK's HTTP client
    from mcp.client.streamable_http import streamable_http_client
    async with httpx2.AsyncClient(headers={"Authorization": f"Bearer {token}"}, timeout=30) as http:
        async with Client(streamable_http_client(url, http_client=http)) as client:
            yield client


def test_http_lists_runs_keeps_sessions_and_reports_errors():
    server = HttpServer("--data", ORDERS, "--isolation", "thread")
    try:
        assert server.url.startswith("http://127.0.0.1:") and server.url.endswith("/mcp")

        async def go():
            async with Client(server.url) as client:
                await the_done_when_checks(client)

        anyio.run(go)
    finally:
        server.close()


def test_http_with_a_token_answers_401_without_it():
    token = "test-token-0123456789abcdef"
    server = HttpServer("--allow-remote", "--token-env", "PTCLISP_TEST_MCP_TOKEN",
                        env={"PTCLISP_TEST_MCP_TOKEN": token})
    try:
        assert post_initialize(server.url).status_code == 401
        assert post_initialize(server.url, "wrong-token-0123456789").status_code == 401
        assert post_initialize(server.url, token).status_code == 200

        async def go():
            async with bearer_client(server.url, token) as client:
                r = await call(client, "(* 6 7)")
                assert not r.is_error and r.structured_content["value"] == 42

        anyio.run(go)
    finally:
        server.close()


def test_allow_remote_without_token_env_generates_one_and_prints_it_once():
    server = HttpServer("--allow-remote")
    try:
        said = [line for line in server.stderr if "Authorization: Bearer " in line]
        assert len(said) == 1
        token = said[0].split("Bearer ")[1].split("'")[0]
        assert len(token) >= 32
        assert post_initialize(server.url).status_code == 401
        assert post_initialize(server.url, token).status_code == 200
    finally:
        server.close()


# ---------------------------------------------------------------------- command line


@pytest.mark.parametrize("address", ["0.0.0.0:0", "192.0.2.7:8000", "example.com:8000", "[::]:0"])
def test_a_non_loopback_address_is_refused_without_allow_remote(address, capsys):
    assert main(["mcp", "serve", "--http", address]) == 2
    err = capsys.readouterr().err
    assert "is not a loopback address" in err and "--allow-remote" in err
    assert "Traceback" not in err


@pytest.mark.parametrize("argv, message", [
    (["--http", "127.0.0.1:70000"], "port must be a number"),
    (["--token-env", "X"], "--token-env applies to --http only"),
    (["--allow-remote"], "--allow-remote applies to --http only"),
    (["--session-ttl", "0"], "--session-ttl must be a positive"),
    (["--max-sessions", "0"], "--max-sessions must be at least 1"),
    (["--http", "127.0.0.1:0", "--token-env", "PTCLISP_TEST_UNSET_VARIABLE"], "is not set or empty"),
    (["--prelude", "no/such/prelude.clj"], "--prelude: Error (prelude_not_found): no/such/prelude.clj"),
    (["--data", "no/such/data.json"], "cannot read --data no/such/data.json"),
])
def test_bad_arguments_exit_2_with_one_line(argv, message, capsys, monkeypatch):
    monkeypatch.delenv("PTCLISP_TEST_UNSET_VARIABLE", raising=False)
    assert main(["mcp", "serve", *argv]) == 2
    err = capsys.readouterr().err
    assert message in err and len(err.strip().splitlines()) == 1


def test_a_prelude_that_does_not_compile_is_refused_at_start(tmp_path, capsys):
    bad = tmp_path / "bad.clj"
    bad.write_text("(ns bad)\n(defn f [x] (+ x y))\n")
    assert main(["mcp", "serve", "--prelude", str(bad)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("ptclisp: --prelude: Error (") and "Traceback" not in err


def test_without_the_sdk_serve_says_which_extra_to_install(capsys, monkeypatch):
    monkeypatch.setitem(sys.modules, "mcp.server.mcpserver", None)  # as if the SDK were not installed
    assert main(["mcp", "serve"]) == 2
    assert capsys.readouterr().err == "ptclisp: ptclisp mcp serve needs the MCP SDK: pip install 'ptclisp[mcp]'\n"


def test_mcp_flag_without_the_client_is_a_usage_error(capsys, monkeypatch):
    from ptclisp.commands import mcp as srv
    monkeypatch.setattr(srv, "_client_api", lambda: None)  # a build without ptclisp.commands.mcp_flags
    assert main(["mcp", "serve", "--mcp", "time=mcp-server-time"]) == 2
    assert "--mcp needs ptclisp's MCP client" in capsys.readouterr().err


def test_flags_become_the_servers_config():
    from ptclisp.commands.main import build_parser
    from ptclisp.commands.mcp import config_from_args
    args = build_parser().parse_args([
        "mcp", "serve", "--data", ORDERS, "--prelude", HELPERS, "--timeout-ms", "700", "--memory-bytes", "123456",
        "--max-tool-calls", "9", "--max-result-bytes", "5000", "--isolation", "process", "--session-ttl", "30",
        "--max-sessions", "3", "--session-memory-bytes", "77777", "--max-concurrent", "2"])
    c = config_from_args(args, {})
    assert (c.limits.timeout_ms, c.limits.memory_bytes, c.limits.max_tool_calls, c.limits.max_result_bytes) == \
        (700, 123456, 9, 5000)
    assert (c.isolation, c.session_ttl_s, c.max_sessions, c.session_memory_bytes, c.max_concurrent) == \
        ("process", 30.0, 3, 77777, 2)
    assert list(c.data) == ["orders"] and c.preludes[0].origin == HELPERS and c.tools == {}


def test_help_documents_every_flag(capsys):
    assert main(["mcp", "serve", "--help"]) == 0
    out = capsys.readouterr().out
    for flag in ("--data", "--prelude", "--tools", "--mcp", "--timeout-ms", "--memory-bytes", "--max-tool-calls",
                 "--max-result-bytes", "--isolation", "--max-concurrent", "--session-ttl", "--max-sessions",
                 "--session-memory-bytes", "--http", "--allow-remote", "--token-env"):
        assert flag in out
    assert main(["mcp"]) == 2


# ---------------------------------------------------------------------- in process: sessions, limits, discovery


class Clock:
    def __init__(self):
        self.now = 50.0

    def __call__(self):
        return self.now


def in_process(body, clock=None, **config):
    config.setdefault("data", json.loads(Path(ORDERS).read_text()))
    config.setdefault("isolation", "thread")
    service = PtcService(ServeConfig(**config), **({"clock": clock} if clock else {}))

    async def go():
        async with Client(build_server(service)) as client:
            await body(client, service)

    anyio.run(go)


def test_an_idle_session_expires_and_the_next_call_says_so():
    clock = Clock()

    async def body(client, service):
        await call(client, "(def x 41)", session="a")
        clock.now += 61
        assert service.sweep() == ["a"]
        r = await call(client, "(inc x)", session="a")
        assert r.is_error and r.structured_content["error"]["kind"] == "unbound_var"
        session = r.structured_content["session"]
        assert session["new"] is True and "idle for more than 60 s (--session-ttl)" in session["note"]
        assert session["note"] in r.content[0].text

    in_process(body, clock, session_ttl_s=60)


def test_the_least_recently_used_session_is_evicted_past_max_sessions():
    clock = Clock()

    async def body(client, service):
        for name, n in (("a", 1), ("b", 2), ("c", 3)):
            await call(client, f"(def x {n})", session=name)
            clock.now += 1
        assert service.store.names() == ["b", "c"]
        r = await call(client, "x", session="b")
        assert r.structured_content["value"] == 2
        r = await call(client, "x", session="a")
        assert r.is_error and r.structured_content["error"]["kind"] == "unbound_var"
        assert "--max-sessions" in r.structured_content["session"]["note"]
        assert service.store.names() == ["b", "a"]  # c was the least recently used now

    in_process(body, clock, max_sessions=2)


def test_a_session_that_grows_too_big_is_discarded():
    async def body(client, service):
        r = await call(client, "(def small [1 2 3]) (count small)", session="big")
        assert r.structured_content["session"].get("discarded") is None
        r = await call(client, "(def big (vec (range 5000))) (count big)", session="big")
        assert not r.is_error and r.structured_content["value"] == 5000
        assert r.structured_content["session"]["discarded"] is True
        assert "--session-memory-bytes" in r.structured_content["session"]["note"]
        assert "big" not in service.store
        r = await call(client, "small", session="big")
        assert r.is_error and r.structured_content["error"]["kind"] == "unbound_var"

    in_process(body, session_memory_bytes=10_000)


def test_concurrent_calls_in_one_session_run_one_at_a_time():
    async def body(client, service):
        await call(client, "(def c 0)", session="shared")
        results = {}

        async def bump(i):
            results[i] = await call(client, "(def c (inc c)) c", session="shared")

        async def own(i):
            results[f"own{i}"] = await call(client, f"(def mine {i}) (* mine 10)", session=f"own{i}")

        async with anyio.create_task_group() as tg:
            for i in range(8):
                tg.start_soon(bump, i)
                tg.start_soon(own, i)
        assert sorted(results[i].structured_content["value"] for i in range(8)) == list(range(1, 9))
        assert [results[f"own{i}"].structured_content["value"] for i in range(8)] == [10 * i for i in range(8)]
        r = await call(client, "c", session="shared")
        assert r.structured_content["value"] == 8

    in_process(body, max_concurrent=3)


def test_values_without_a_json_form_are_errors_with_the_conversions_message():
    async def body(client, service):
        r = await call(client, "(fn [x] x)")
        err = r.structured_content["error"]
        assert r.is_error and err["kind"] == "type_error" and "a function has no JSON form" in err["message"]
        r = await call(client, "(def y 1)", session="j")
        assert r.is_error and "definitions are kept in this session" in r.structured_content["error"]["message"]
        r = await call(client, "(/ 0.0 0.0)")
        assert r.is_error and "##NaN has no JSON form" in r.structured_content["error"]["message"]
        r = await call(client, "{:a 1 \"a\" 2}")
        assert r.is_error and r.structured_content["error"]["kind"] == "public_projection_collision"

    in_process(body)


def test_fail_and_return():
    async def body(client, service):
        r = await call(client, "(fail {:reason \"no\"})")
        assert r.is_error and r.structured_content["status"] == "failed"
        assert r.structured_content["value"] == {"reason": "no"}
        assert r.structured_content["error"]["kind"] == "fail"
        r = await call(client, "(return 7) 8")
        assert not r.is_error and r.structured_content == {**r.structured_content, "status": "returned", "value": 7}

    in_process(body)


def test_prints_and_the_tool_call_ledger():
    def double(args):
        return {"twice": args["n"] * 2}

    tools = {"double": ptclisp.Tool("double", double, description="Twice n.", effect="read",
                                    input_schema={"type": "object", "properties": {"n": {"type": "integer"}},
                                                  "required": ["n"]})}

    async def body(client, service):
        r = await call(client, '(println "start") (:twice (tool/double {:n 21}))')
        rec = r.structured_content
        assert not r.is_error and rec["value"] == 42 and rec["prints"] == ["start"]
        assert rec["tool_calls"] == [{"tool": "double", "args": {"n": 21}, "result": {"twice": 42},
                                      "duration_ms": rec["tool_calls"][0]["duration_ms"]}]
        r = await call(client, '(tool/double {:n "x"})')
        err = r.structured_content["error"]
        assert r.is_error and (err["kind"], err["line"], err["column"]) == ("invalid_tool_args", 1, 1)

    in_process(body, tools=tools)


def test_max_tool_calls_and_timeout_come_from_the_config():
    tools = {"ping": ptclisp.Tool("ping", lambda args: "pong", effect="read")}

    async def body(client, service):
        r = await call(client, "(mapv (fn [_] (tool/ping {})) (range 5))")
        assert r.is_error and r.structured_content["error"]["kind"] == "tool_call_limit_exceeded"
        assert len(r.structured_content["tool_calls"]) == 3
        r = await call(client, SLOW)
        assert r.is_error and r.structured_content["error"]["kind"] == "timeout"
        assert "200 ms" in r.structured_content["error"]["message"]

    in_process(body, tools=tools, limits=ptclisp.Limits(timeout_ms=200, max_tool_calls=3))


def test_results_larger_than_max_result_bytes_are_refused():
    async def body(client, service):
        r = await call(client, "(vec (range 100000))")
        assert r.is_error and r.structured_content["error"]["kind"] == "runtime_limit_exceeded"

    in_process(body, limits=ptclisp.Limits(timeout_ms=2000, max_result_bytes=10_000))


def test_process_isolation_runs_calls_and_refuses_sessions():
    async def body(client, service):
        r = await call(client, "(count data/orders)")
        assert not r.is_error and r.structured_content["value"] == 120
        r = await call(client, "(def x 1)", session="s")
        assert r.is_error and r.structured_content["error"]["kind"] == "invalid_session"
        assert "--isolation process" in r.structured_content["error"]["message"]

    in_process(body, isolation="process")


def test_bad_session_names_are_typed_errors():
    async def body(client, service):
        r = await call(client, "1", session="x" * 500)
        assert r.is_error and r.structured_content["error"]["kind"] == "invalid_session"

    in_process(body)


def test_describe_lists_data_shapes_tools_exports_and_functions():
    from ptclisp.mcp import language_facts
    tools = {"lookup": ptclisp.Tool("lookup", lambda args: None, description="Find a customer by id. Slow.",
                                    effect="read", input_schema={"type": "object", "properties": {
                                        "id": {"type": "string"}, "verbose": {"type": "boolean"}},
                                        "required": ["id"]})}

    async def body(client, service):
        run_tool = next(t for t in (await client.list_tools()).tools if t.name == "run_ptc_lisp")
        assert run_tool.description.endswith("This server grants data: data/orders; tools: tool/lookup.")
        r = await client.call_tool("describe_ptc_lisp", {})
        doc = r.structured_content
        assert not r.is_error and json.loads(r.content[0].text) == doc
        orders = next(d for d in doc["data"] if d["name"] == "data/orders")
        assert orders["shape"]["count"] == 120 and "amount" in orders["shape"]["keys"]
        lookup = doc["tools"][0]
        assert (lookup["name"], lookup["call"], lookup["effect"]) == ("tool/lookup", "(tool/lookup {:id id})", "read")
        assert {"ref": "orders/revenue", "call": "(orders/revenue orders)"}.items() <= \
            next(e for e in doc["exports"] if e["ref"] == "orders/revenue").items()
        assert "group-by" in doc["functions_by_category"]["aggregation"]
        assert "let" in doc["special_forms"]
        assert doc["limits"]["timeout_ms"] == 5000 and doc["sessions"]["available"] is True

        r = await client.call_tool("describe_ptc_lisp", {"search": "group-by"})
        hit = r.structured_content["functions"][0]
        assert hit["name"] == "group-by" and hit["signatures"] == ["(group-by k coll)"]
        assert len(hit["doc"]) <= 200

        r = await client.call_tool("describe_ptc_lisp", {"search": "customer"})
        assert [t["name"] for t in r.structured_content["tools"]] == ["tool/lookup"]

        uris = sorted(str(x.uri) for x in (await client.list_resources()).resources)
        assert uris == ["ptclisp://data", "ptclisp://functions", "ptclisp://tools"]
        funcs = json.loads((await client.read_resource("ptclisp://functions")).contents[0].text)
        assert len(funcs["functions"]) == len(language_facts.builtins())

    in_process(body, tools=tools, preludes=[language_facts.prelude_component(HELPERS)])


# ---------------------------------------------------------------------- upstream MCP servers (--mcp)


def _time_server() -> str | None:
    beside = Path(sys.executable).with_name("mcp-server-time")
    return str(beside) if beside.exists() else shutil.which("mcp-server-time")


def test_a_served_program_reaches_an_upstream_servers_tool():
    if any(importlib.util.find_spec(m) is None for m in ("ptclisp.mcp.client", "ptclisp.commands.mcp_flags")):
        pytest.skip("ptclisp.mcp.client (the MCP client) is not in this build")
    time_server = _time_server()
    if time_server is None:
        pytest.skip("mcp-server-time is not installed")
    params = StdioServerParameters(command=sys.executable, cwd=str(REPO), args=[
        *LAUNCH, "--timeout-ms", "20000", "--mcp", f"time={time_server} --local-timezone UTC"])
    program = ('(get-in (tool/time.convert_time {:source_timezone "UTC" :time "12:00" '
               ':target_timezone "Asia/Tokyo"}) [:target :datetime])')

    async def go():
        async with Client(params) as client:
            doc = (await client.call_tool("describe_ptc_lisp", {"search": "convert_time"})).structured_content
            assert [t["name"] for t in doc["tools"]] == ["tool/time.convert_time"]
            r = await call(client, program)
            assert not r.is_error, r.content[0].text
            assert "T21:00:00" in r.structured_content["value"]
            assert [c["tool"] for c in r.structured_content["tool_calls"]] == ["time.convert_time"]

    anyio.run(go)


def test_upstream_tools_from_the_client_helpers_are_granted(monkeypatch):
    """The --mcp path of `mcp serve` with the client's helpers replaced by stand-ins of the agreed
    shape (add_mcp_flags(parser), open_mcp_tools(args) -> context manager with .tools)."""
    import types

    events = []

    def add_mcp_flags(parser):
        parser.add_argument("--mcp", action="append", metavar="NAME=COMMAND|URL")

    @contextlib.contextmanager
    def open_mcp_tools(args):
        events.append(("open", list(args.mcp or ())))
        tool = ptclisp.Tool("up.echo", lambda a: {"echo": a["text"]}, description="Echo text.", effect="read")
        yield types.SimpleNamespace(tools={"up.echo": tool})
        events.append(("close",))

    from ptclisp.commands import mcp as srv
    monkeypatch.setattr(srv, "_client_api", lambda: (add_mcp_flags, open_mcp_tools))
    seen = {}

    def fake_stdio(service):
        seen["outcome"] = service.run('(tool/up.echo {:text "hi"})')

    monkeypatch.setattr(srv, "_serve_stdio", fake_stdio)
    assert main(["mcp", "serve", "--mcp", "up=some-server --flag"]) == 0
    assert events == [("open", ["up=some-server --flag"]), ("close",)]
    assert seen["outcome"].structured["value"] == {"echo": "hi"}
    assert seen["outcome"].structured["tool_calls"][0]["tool"] == "up.echo"
