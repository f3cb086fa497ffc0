"""MCP servers' tools as tool/NAME.TOOL (ptclisp.mcp.client), against the in-repo fixture server.

The fixture (fixture_server.py, the SDK's MCPServer) runs as a real child
process over stdio (and over streamable HTTP at the end); it injects the
failures: a slow tool, a hanging one, a crash mid-call, is_error, a huge
result and a tool list that changes. Concurrency is asserted by the number
of calls the server saw in flight at once, never by timing.
"""
from __future__ import annotations

import os
import signal

import pytest

from mcp_client_helpers import (HttpFixture, calls_of, fixture_command, max_inflight, need_sdk, wait_until)

need_sdk()

import ptclisp  # noqa: E402
from ptclisp import Limits  # noqa: E402
from ptclisp.mcp.client import MCPServerSpec, MCPStartError, MCPTools, _arg_names, parse_mcp_arg  # noqa: E402


@pytest.fixture(scope="module")
def fx(tmp_path_factory):
    """One fixture server for the tests that leave it healthy; yields (MCPTools, state dir)."""
    state = tmp_path_factory.mktemp("fx")
    with MCPTools([MCPServerSpec("fx", command=fixture_command(state))]) as mcp:
        yield mcp, state


@pytest.fixture
def fresh(tmp_path):
    """A fixture server of this test alone (for crashes and counting)."""
    with MCPTools([MCPServerSpec("fx", command=fixture_command(tmp_path))]) as mcp:
        yield mcp, tmp_path


def run(mcp, src, **limits):
    return ptclisp.run(src, tools=mcp.tools, limits=Limits(**{"timeout_ms": 10_000, **limits}))


def where(r):
    return r.error.kind, (r.error.span.line, r.error.span.col)


# ---------------------------------------------------------------------- specs

def test_parse_mcp_arg_command_and_url():
    s = parse_mcp_arg("time=mcp-server-time --local-timezone 'Europe/Paris'")
    assert (s.name, s.command, s.url) == ("time", ("mcp-server-time", "--local-timezone", "Europe/Paris"), None)
    u = parse_mcp_arg("remote=https://example.test/mcp")
    assert (u.name, u.command, u.url) == ("remote", None, "https://example.test/mcp")


@pytest.mark.parametrize("text,message", [
    ("time", "NAME=COMMAND"),
    ("=cmd", "NAME=COMMAND"),
    ("a.b=cmd", "letters, digits"),
    ("t=cmd 'unclosed", "cannot split"),
])
def test_parse_mcp_arg_rejects(text, message):
    with pytest.raises(ValueError, match=message):
        parse_mcp_arg(text)


def test_spec_needs_exactly_one_target_and_known_effects():
    with pytest.raises(ValueError, match="exactly one"):
        MCPServerSpec("x")
    with pytest.raises(ValueError, match="exactly one"):
        MCPServerSpec("x", command=["a"], url="http://h/mcp")
    with pytest.raises(ValueError, match="effect of t"):
        MCPServerSpec("x", command=["a"], effects={"t": "delete"})


def test_dashed_argument_names_are_offered_with_underscores():
    schema = {"type": "object", "properties": {"max-count": {"type": "integer"}, "path": {"type": "string"}},
              "required": ["max-count"]}
    offered, back = _arg_names(schema)
    assert offered["properties"].keys() == {"max_count", "path"}
    assert offered["required"] == ["max_count"] and back == {"max_count": "max-count"}


# ---------------------------------------------------------------------- tools, effects, results

def test_every_tool_is_granted_as_name_dot_tool_with_its_effect(fx):
    mcp, _ = fx
    tools = mcp.tools
    assert {"fx.echo", "fx.slow", "fx.fail", "fx.max-count"} <= set(tools)
    assert tools["fx.echo"].effect == "read"            # readOnlyHint
    assert tools["fx.crash_write"].effect == "write"    # readOnlyHint false, destructiveHint
    assert tools["fx.hang"].effect == "unknown"         # no annotations
    assert tools["fx.echo"].description == "Give the value back, as structured content."
    assert tools["fx.slow"].input_schema["required"] == ["seconds"]
    assert list(mcp) == list(tools.values())            # iterating gives the Tool objects (tools=mcp works)


def test_structured_content_is_the_value(fx):
    r = run(fx[0], '(get (tool/fx.echo {:value [1 2 {:a 1}]}) :value)')
    assert r.status == "ok", r.error
    assert ptclisp.to_python(r.value) == [1, 2, {"a": 1}]


def test_the_object_itself_can_be_passed_as_tools(fx):
    r = ptclisp.run('(get (tool/fx.pid {}) :result)', tools=fx[0])
    assert r.status == "ok", r.error
    assert isinstance(r.value, int)


@pytest.mark.parametrize("text,value", [
    ("hello", "hello"),                      # not JSON: the text
    ('{"a": [1, 2]}', {"a": [1, 2]}),        # JSON text: parsed
    ("42", 42),
    ("NaN", "NaN"),                          # not JSON in the strict sense: kept as text
])
def test_text_content_is_parsed_as_json_when_it_parses(fx, text, value):
    r = run(fx[0], f'(tool/fx.plain {{:text {ptclisp.pr_str(text)}}})')
    assert r.status == "ok", r.error
    assert ptclisp.to_python(r.value) == value


def test_images_and_resources_become_descriptions_without_blobs(fx):
    r = run(fx[0], '(tool/fx.media {})')
    assert r.status == "ok", r.error
    assert ptclisp.to_python(r.value) == [
        {"type": "image", "mime_type": "image/png", "size": 5},
        {"type": "resource", "uri": "file:///notes.txt", "mime_type": "text/plain", "text": "hi"},
        [1, 2]]


def test_a_tool_name_with_a_dash_is_callable(fx):
    r = run(fx[0], '(tool/fx.max-count {:limit 3})')
    assert r.status == "ok", r.error
    assert r.value == 3


def test_is_error_is_a_tool_error_with_the_servers_text_and_the_tool(fx):
    r = run(fx[0], '(do\n  (tool/fx.fail {:message "the disk is full"}))')
    assert where(r) == ("tool_error", (2, 3))
    assert "tool/fx.fail" in r.error.message and "the disk is full" in r.error.message
    assert r.error.details["server"] == "fx" and r.error.details["reason"] == "is_error"


def test_arguments_are_checked_against_the_input_schema_before_the_call(fresh):
    mcp, state = fresh
    r = run(mcp, '(tool/fx.slow {:seconds "soon"})')
    assert where(r) == ("invalid_tool_args", (1, 1))
    assert "seconds" in r.error.message
    assert "slow" not in calls_of(state)


def test_the_tool_call_budget_holds(fresh):
    mcp, state = fresh
    r = run(mcp, '(do (tool/fx.echo {:value 1}) (tool/fx.echo {:value 2}) (tool/fx.echo {:value 3}))',
            max_tool_calls=2)
    assert where(r) == ("tool_call_limit_exceeded", (1, 57))
    assert calls_of(state) == ["echo", "echo"]


def test_a_huge_result_is_stopped_by_the_memory_budget(fx):
    r = run(fx[0], '(count (tool/fx.huge {:size 3000000}))', memory_bytes=1_000_000)
    assert where(r) == ("memory_exceeded", (1, 8))
    assert "tool/fx.huge" in r.error.message
    ok = run(fx[0], '(count (tool/fx.huge {:size 3000}))')
    assert ok.status == "ok" and ok.value == 3000


# ---------------------------------------------------------------------- limits and failures

def test_a_hanging_server_is_a_timeout_within_the_deadline(fx):
    r = run(fx[0], '(tool/fx.hang {})', timeout_ms=300)
    assert where(r) == ("timeout", (1, 1))
    assert "tool/fx.hang" in r.error.message
    after = run(fx[0], '(get (tool/fx.echo {:value "still here"}) :value)')  # the connection stays usable
    assert after.status == "ok" and after.value == "still here"


def test_a_hang_inside_pmap_is_bounded_by_the_parallel_deadline(fx):
    r = run(fx[0], '(pmap (fn [_] (tool/fx.hang {})) [1 2])', pmap_timeout_ms=300)
    assert r.status == "error" and r.error.kind == "timeout"


def test_a_crash_mid_call_is_a_one_line_tool_error_and_the_next_evaluation_reconnects(fresh):
    mcp, state = fresh
    r = run(mcp, '(tool/fx.crash_write {})')
    assert where(r) == ("tool_error", (1, 1))
    assert "\n" not in r.error.message
    assert "MCP server fx closed the connection" in r.error.message
    assert "crashing on purpose" in r.error.message                  # the server's last stderr line
    assert calls_of(state) == ["crash_write"]                        # a write tool is never sent twice
    again = run(mcp, '(get (tool/fx.echo {:value 7}) :value)')
    assert again.status == "ok" and again.value == 7


def test_a_read_only_call_lost_in_a_crash_is_repeated_once(fresh):
    mcp, state = fresh
    r = run(mcp, '(get (tool/fx.crash_once {}) :result)')
    assert r.status == "ok", r.error
    assert r.value == "recovered"
    assert calls_of(state) == ["crash_once", "crash_once"]


def test_calls_in_flight_during_a_crash_share_one_restart(fresh):
    mcp, state = fresh
    r = run(mcp, '(pmap (fn [_] (get (tool/fx.crash_once {}) :result)) (range 4))')
    assert r.status == "ok", r.error
    assert ptclisp.to_python(r.value) == ["recovered"] * 4
    assert len((state / "starts.log").read_text().split()) == 2      # the first process and one restart


def test_a_server_killed_between_evaluations_is_started_again(fresh):
    mcp, _ = fresh
    first = run(mcp, '(get (tool/fx.pid {}) :result)')
    assert first.status == "ok", first.error
    os.kill(first.value, signal.SIGKILL)
    second = run(mcp, '(get (tool/fx.pid {}) :result)')
    assert second.status == "ok", second.error
    assert second.value != first.value


def test_a_server_that_does_not_start_is_one_line(tmp_path):
    with pytest.raises(MCPStartError) as info:
        MCPTools([MCPServerSpec("bad", command=[str(tmp_path / "nonexistent")])]).open()
    assert str(info.value) == f"MCP server bad ({tmp_path / 'nonexistent'}) could not start: no such command " \
                              f"'{tmp_path / 'nonexistent'}'"


def test_a_server_that_exits_at_once_reports_its_stderr(tmp_path):
    spec = MCPServerSpec("quits", command=["python3", "-c", "import sys; sys.exit('no config file')"])
    with pytest.raises(MCPStartError, match="closed the connection during the handshake.*no config file"):
        MCPTools([spec]).open()


def test_allow_hide_and_effect_overrides(tmp_path):
    spec = MCPServerSpec("fx", command=fixture_command(tmp_path), allow=["echo", "fail", "hang"], hide=["fail"],
                         effects={"hang": "read"}, rename={"echo": "say"})
    with MCPTools([spec]) as mcp:
        assert sorted(mcp.tools) == ["fx.hang", "fx.say"]
        assert mcp.tools["fx.hang"].effect == "read"
        r = run(mcp, '(get (tool/fx.say {:value 1}) :value)')
        assert r.status == "ok" and r.value == 1


def test_allow_naming_no_tool_is_an_error(tmp_path):
    with pytest.raises(MCPStartError, match="allow names no tool of the server: ehco"):
        MCPTools([MCPServerSpec("fx", command=fixture_command(tmp_path), allow=["ehco"])]).open()


# ---------------------------------------------------------------------- concurrency and changes

def test_pmap_over_slow_calls_runs_them_concurrently_on_one_connection(fresh):
    mcp, state = fresh
    r = run(mcp, '(pmap #(get (tool/fx.slow {:seconds 1 :tag (str %)}) :result) (range 8))')
    assert r.status == "ok", r.error
    assert ptclisp.to_python(r.value) == [str(i) for i in range(8)]
    assert max_inflight(state) == 8


def test_map_over_slow_calls_runs_them_one_at_a_time(fresh):
    mcp, state = fresh
    r = run(mcp, '(mapv #(get (tool/fx.slow {:seconds 0.01 :tag (str %)}) :result) (range 3))')
    assert r.status == "ok", r.error
    assert max_inflight(state) == 1


def test_a_tool_list_that_changes_is_picked_up(fresh):
    mcp, _ = fresh
    assert "fx.fresh" not in mcp.tools
    r = run(mcp, '(tool/fx.add_tool {:name "fresh"})')
    assert r.status == "ok", r.error
    wait_until(lambda: "fx.fresh" in mcp.tools, what="the new tool listed")
    r = run(mcp, '(get (tool/fx.fresh {}) :result)')
    assert r.status == "ok" and r.value == "new"


def test_calls_after_close_are_tool_errors(tmp_path):
    mcp = MCPTools([MCPServerSpec("fx", command=fixture_command(tmp_path))]).open()
    tools = mcp.tools
    mcp.close()
    r = ptclisp.run('(tool/fx.echo {:value 1})', tools=tools)
    assert where(r) == ("tool_error", (1, 1))
    assert "closed" in r.error.message


# ---------------------------------------------------------------------- streamable HTTP

def test_streamable_http_transport(tmp_path):
    server = HttpFixture(tmp_path)
    try:
        with MCPTools([MCPServerSpec("web", url=server.url)]) as mcp:
            assert mcp.tools["web.echo"].effect == "read"
            r = run(mcp, '(get (tool/web.echo {:value "over http"}) :value)')
            assert r.status == "ok" and r.value == "over http"
            r = run(mcp, '(pmap #(get (tool/web.slow {:seconds 1 :tag (str %)}) :result) (range 4))')
            assert r.status == "ok", r.error
            assert max_inflight(tmp_path) == 4
            r = run(mcp, '(tool/web.fail {:message "nope"})')
            assert r.error.kind == "tool_error" and "nope" in r.error.message
    finally:
        server.stop()


def test_call_timeout_bounds_a_call_outside_any_evaluation(tmp_path):
    with MCPTools([MCPServerSpec("fx", command=fixture_command(tmp_path))], call_timeout_s=0.3) as mcp:
        with pytest.raises(ptclisp.PtcError) as info:
            mcp.tools["fx.hang"].fn({})                  # no evaluation, no deadline: only call_timeout_s
        assert info.value.kind == "tool_error" and info.value.details["reason"] == "call_timeout"
        r = run(mcp, '(tool/fx.hang {})')                # inside one, whichever comes first
        assert where(r) == ("tool_error", (1, 1))
        assert "within 0.3 s" in r.error.message


def test_a_connect_that_fails_before_its_callback_is_attached_returns_its_future():
    # a server that fails at once may finish its connect future before add_done_callback: the
    # callback then runs at once and clears `pending`; connect must still return the future
    import concurrent.futures

    from ptclisp.mcp.client_conn import _Server

    class Owner:
        def _submit(self, coro):
            coro.close()
            fut = concurrent.futures.Future()
            fut.set_exception(MCPStartError("MCP server bad could not start: no such command"))
            return fut

    srv = _Server(Owner(), parse_mcp_arg("bad=/nonexistent"))
    fut = srv.connect()
    assert fut is not None and srv.pending is None
    with pytest.raises(MCPStartError, match="could not start"):
        fut.result(timeout=1)
