"""Tests for ptclisp.providers: adapters over real HTTP to local fake servers, replay/record, router, redaction."""
from __future__ import annotations

import json
import logging
import socket
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from ptclisp.providers import (
    AnthropicMessages, ModelRouter, ModelSpec, ModelSpecError, OpenAIChat, ProviderError, RecordingProvider,
    ReplayLoadError, ReplayProvider, RouterError, ScriptedProvider, Secret, build_provider, check_response,
    is_truncated, load_fixtures, parse_alias_spec, parse_model_spec, redact, redact_headers, request_hash,
    router_from_specs, safe_url,
)

KEY = "sk-test-SECRETKEY-0123456789abcdef"
RUN_TOOL = {"type": "function",
            "function": {"name": "run_ptc_lisp", "description": "Run one PTC-Lisp program.",
                         "parameters": {"type": "object", "additionalProperties": False,
                                        "required": ["program"], "properties": {"program": {"type": "string"}}}}}


# ---------------------------------------------------------------------------------------------
# A fake HTTP endpoint on 127.0.0.1: replies are queued per test, requests are recorded.
# ---------------------------------------------------------------------------------------------
class FakeServer:
    def __init__(self):
        self.replies: list = []
        self.requests: list = []
        self.release = threading.Event()
        fake = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):
                length = int(self.headers.get("Content-Length", "0"))
                raw = self.rfile.read(length)
                fake.requests.append({"path": self.path, "headers": {k.lower(): v for k, v in self.headers.items()},
                                      "body": json.loads(raw) if raw else None})
                status, body, headers, delay = fake.replies.pop(0) if fake.replies else (500, b"{}", {}, 0)
                if delay:
                    fake.release.wait(delay)
                try:
                    self.send_response(status)
                    for k, v in headers.items():
                        self.send_header(k, v)
                    self.send_header("Content-Length", str(len(body)))
                    self.end_headers()
                    self.wfile.write(body)
                except OSError:
                    pass

            def log_message(self, *args):
                pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.thread = threading.Thread(target=self.httpd.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True)
        self.thread.start()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.httpd.server_address[1]}"

    def reply(self, body, status=200, headers=None, delay=0.0):
        if not isinstance(body, bytes):
            body = json.dumps(body).encode()
        self.replies.append((status, body, {"Content-Type": "application/json", **(headers or {})}, delay))

    def stop(self):
        self.release.set()
        self.httpd.shutdown()
        self.httpd.server_close()


@pytest.fixture
def server():
    s = FakeServer()
    yield s
    s.stop()


def openai(server, **kw):
    kw.setdefault("api_key", KEY)
    return OpenAIChat("test-model", base_url=server.url + "/v1", **kw)


def anthropic(server, **kw):
    kw.setdefault("api_key", KEY)
    return AnthropicMessages("claude-test", base_url=server.url, **kw)


def oa_answer(message, finish="stop", usage=None):
    return {"id": "x", "object": "chat.completion", "model": "test-model",
            "choices": [{"index": 0, "message": {"role": "assistant", **message}, "finish_reason": finish}],
            "usage": usage or {"prompt_tokens": 12, "completion_tokens": 3, "total_tokens": 15}}


def an_answer(blocks, stop="end_turn", usage=None):
    return {"id": "msg", "type": "message", "role": "assistant", "model": "claude-test", "content": blocks,
            "stop_reason": stop, "usage": usage or {"input_tokens": 20, "output_tokens": 4}}


TRANSCRIPT = {
    "system": "You write PTC-Lisp.",
    "messages": [
        {"role": "user", "content": "What is 41 + 1?"},
        {"role": "assistant", "content": "Let me compute.",
         "tool_calls": [{"id": "c1", "name": "run_ptc_lisp", "args": {"program": "(+ 41 1)"}}]},
        {"role": "tool", "tool_call_id": "c1", "content": "user=> 42"},
        {"role": "user", "content": "TURN BUDGET: 1 turn remains."},
    ],
    "tools": [RUN_TOOL],
}


# ---------------------------------------------------------------------------------------------
# OpenAI-compatible adapter
# ---------------------------------------------------------------------------------------------
def test_openai_text_answer(server):
    server.reply(oa_answer({"content": "Hello"}, usage={"prompt_tokens": 12, "completion_tokens": 3,
                                                         "prompt_tokens_details": {"cached_tokens": 8}}))
    resp = openai(server, max_tokens=64).complete({"system": "Be brief.", "messages": [{"role": "user", "content": "Hi"}]})
    assert resp == {"content": "Hello", "tokens": {"input": 12, "output": 3, "cache_read": 8}, "finish_reason": "stop"}
    req = server.requests[0]
    assert req["path"] == "/v1/chat/completions"
    assert req["headers"]["authorization"] == f"Bearer {KEY}"
    assert req["body"]["model"] == "test-model"
    assert req["body"]["max_tokens"] == 64
    assert req["body"]["messages"] == [{"role": "system", "content": "Be brief."}, {"role": "user", "content": "Hi"}]


def test_openai_tool_calls_both_ways(server):
    server.reply(oa_answer({"content": None, "tool_calls": [
        {"id": "c2", "type": "function", "function": {"name": "run_ptc_lisp", "arguments": '{"program": "(return 42)"}'}},
        {"id": "c3", "type": "function", "function": {"name": "run_ptc_lisp", "arguments": '{"program": "(ret'}},
    ]}, finish="tool_calls"))
    resp = openai(server, tool_choice="run_ptc_lisp").complete(TRANSCRIPT)
    assert resp["content"] is None
    assert resp["finish_reason"] == "tool_calls"
    assert resp["tool_calls"][0] == {"id": "c2", "name": "run_ptc_lisp", "args": {"program": "(return 42)"}}
    assert resp["tool_calls"][1]["args"] == {} and "not valid JSON" in resp["tool_calls"][1]["args_error"]
    body = server.requests[0]["body"]
    assert body["tools"] == [RUN_TOOL]
    assert body["tool_choice"] == {"type": "function", "function": {"name": "run_ptc_lisp"}}
    assistant, tool = body["messages"][2], body["messages"][3]
    assert assistant["tool_calls"] == [{"id": "c1", "type": "function",
                                        "function": {"name": "run_ptc_lisp", "arguments": '{"program": "(+ 41 1)"}'}}]
    assert tool == {"role": "tool", "tool_call_id": "c1", "content": "user=> 42"}


def test_openai_null_assistant_content_is_sent_as_empty_string(server):
    server.reply(oa_answer({"content": "ok"}))
    call = {"id": "c1", "name": "run_ptc_lisp", "args": {"program": "1"}}
    openai(server).complete({"messages": [{"role": "user", "content": "q"},
                                          {"role": "assistant", "content": None, "tool_calls": [call]},
                                          {"role": "tool", "tool_call_id": "c1", "content": "user=> 1"},
                                          {"role": "assistant", "content": None}]})
    sent = server.requests[0]["body"]["messages"]
    assert [m["content"] for m in sent] == ["q", "", "user=> 1", ""]


@pytest.mark.parametrize("max_tokens, expected", [
    (16, {"name": "max_tokens", "value": 16, "bindings": ["configured"]}),
    (None, None),
])
def test_openai_truncation(server, max_tokens, expected):
    server.reply(oa_answer({"content": "partial"}, finish="length"))
    resp = openai(server, max_tokens=max_tokens).complete({"messages": [{"role": "user", "content": "go"}]})
    assert is_truncated(resp)
    assert resp.get("output_limit") == expected


# (status, body, reason, retryable)
STATUS_CASES = [
    (429, {"error": {"type": "rate_limit_error"}}, "rate_limited", True),
    (500, {"error": {"type": "server_error"}}, "unavailable", True),
    (503, b"upstream down", "unavailable", True),
    (529, {"type": "error", "error": {"type": "overloaded_error"}}, "unavailable", True),
    (401, {"error": {"type": "invalid_api_key"}}, "authentication_failed", False),
    (402, {}, "payment_required", False),
    (403, {}, "denied", False),
    (404, {"error": {"code": "model_not_found"}}, "not_found", False),
    (400, {"error": {"message": "bad temperature"}}, "invalid_request", False),
    (400, {"error": {"message": "This model does not support tools"}}, "tool_calling_unsupported", False),
    (422, {"detail": "unprocessable"}, "invalid_request", False),
    (408, {}, "timeout", True),
    (504, {}, "timeout", True),
]


@pytest.mark.parametrize("make", [openai, anthropic], ids=["openai", "anthropic"])
@pytest.mark.parametrize("status, body, reason, retryable", STATUS_CASES)
def test_http_status_classification(server, make, status, body, reason, retryable):
    server.reply(body, status=status)
    with pytest.raises(ProviderError) as ei:
        make(server).complete({"messages": [{"role": "user", "content": "hi"}], "tools": [RUN_TOOL]})
    assert (ei.value.reason, ei.value.retryable) == (reason, retryable)
    assert str(status) in ei.value.details


def test_rate_limit_keeps_retry_after(server):
    server.reply({"error": {"type": "rate_limit_error"}}, status=429, headers={"Retry-After": "7"})
    with pytest.raises(ProviderError) as ei:
        openai(server).complete({"messages": []})
    assert ei.value.retry_after_s == 7.0


def test_opt_in_retries_for_retryable_failures_only(server):
    waits = []
    server.reply({"error": {"type": "rate_limit_error"}}, status=429, headers={"Retry-After": "2"})
    server.reply({}, status=503)
    server.reply(oa_answer({"content": "cut"}, finish="length"))
    resp = openai(server, max_retries=2, backoff_s=0.5, sleep=waits.append).complete({"messages": []})
    assert resp["content"] == "cut" and len(server.requests) == 3      # the truncated answer is not re-sent
    assert waits[0] == 2.0 and 0.5 <= waits[1] <= 1.0          # Retry-After as given; backoff 0.5 * 2 with jitter
    server.reply({}, status=401)
    with pytest.raises(ProviderError):
        openai(server, max_retries=3, sleep=waits.append).complete({"messages": []})
    assert len(server.requests) == 4                                    # permanent failures are not retried


@pytest.mark.parametrize("make", [openai, anthropic], ids=["openai", "anthropic"])
def test_timeout(server, make):
    server.reply(oa_answer({"content": "late"}), delay=30)
    with pytest.raises(ProviderError) as ei:
        make(server, timeout_s=0.3).complete({"messages": [{"role": "user", "content": "hi"}]})
    assert (ei.value.reason, ei.value.retryable) == ("timeout", True)


def test_connection_refused_is_transport_error():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]          # closed again before the request: nothing listens there
    with pytest.raises(ProviderError) as ei:
        OpenAIChat("m", base_url=f"http://127.0.0.1:{port}/v1", api_key=KEY, timeout_s=5).complete({"messages": []})
    assert (ei.value.reason, ei.value.retryable) == ("transport_error", True)


@pytest.mark.parametrize("body, reason", [
    (b"<html>proxy error</html>", "invalid_result"),
    (b"[1, 2]", "invalid_result"),
    (json.dumps({"object": "chat.completion"}).encode(), "invalid_result"),
    (json.dumps({"choices": [{"finish_reason": "stop"}]}).encode(), "invalid_result"),
    (json.dumps(oa_answer({"content": "x"}, usage={"prompt_tokens": "many"})).encode(), "invalid_request"),
])
def test_openai_malformed_body(server, body, reason):
    server.reply(body)
    with pytest.raises(ProviderError) as ei:
        openai(server).complete({"messages": [{"role": "user", "content": "hi"}]})
    assert ei.value.reason == reason


def test_oversized_body_is_refused(server):
    server.reply(oa_answer({"content": "x" * 5000}))
    with pytest.raises(ProviderError) as ei:
        openai(server, max_response_bytes=1000).complete({"messages": []})
    assert ei.value.reason == "invalid_result"


def test_environment_configuration(server):
    server.reply(oa_answer({"content": "ok"}))
    env = {"OPENAI_BASE_URL": server.url + "/v1", "OPENAI_API_KEY": KEY}
    provider = build_provider("openai:from-env", env=env)
    assert provider.complete({"messages": []})["content"] == "ok"
    assert server.requests[0]["headers"]["authorization"] == f"Bearer {KEY}"
    assert server.requests[0]["body"]["model"] == "from-env"


def test_spec_base_url_wins_over_environment(server):
    server.reply(an_answer([{"type": "text", "text": "ok"}]))
    env = {"ANTHROPIC_BASE_URL": "http://127.0.0.1:9/nowhere", "ANTHROPIC_API_KEY": KEY}
    provider = build_provider(f"anthropic:claude-x@{server.url}", env=env)
    assert provider.complete({"messages": [{"role": "user", "content": "hi"}]})["content"] == "ok"


def test_missing_key_fails_before_any_request(server):
    with pytest.raises(ProviderError) as ei:
        OpenAIChat("m", base_url=server.url + "/v1", env={}).complete({"messages": []})
    assert ei.value.reason == "authentication_failed"
    assert "OPENAI_API_KEY" in ei.value.details
    assert server.requests == []


# ---------------------------------------------------------------------------------------------
# Anthropic adapter
# ---------------------------------------------------------------------------------------------
def test_anthropic_text_answer_and_request_shape(server):
    server.reply(an_answer([{"type": "text", "text": "Hello"}],
                           usage={"input_tokens": 20, "output_tokens": 4, "cache_creation_input_tokens": 0,
                                  "cache_read_input_tokens": 16}))
    resp = anthropic(server).complete({"system": "Be brief.", "messages": [{"role": "user", "content": "Hi"}],
                                       "tools": [RUN_TOOL]})
    assert resp == {"content": "Hello", "finish_reason": "stop",
                    "tokens": {"input": 20, "output": 4, "cache_creation": 0, "cache_read": 16}}
    req = server.requests[0]
    assert req["path"] == "/v1/messages"
    assert req["headers"]["x-api-key"] == KEY and req["headers"]["anthropic-version"] == "2023-06-01"
    assert "authorization" not in req["headers"]
    body = req["body"]
    assert body["system"] == "Be brief." and body["max_tokens"] == 4096 and body["model"] == "claude-test"
    assert body["tools"] == [{"name": "run_ptc_lisp", "description": "Run one PTC-Lisp program.",
                              "input_schema": RUN_TOOL["function"]["parameters"]}]


def test_anthropic_tool_use_both_ways(server):
    server.reply(an_answer([{"type": "text", "text": "Returning."},
                            {"type": "tool_use", "id": "tu2", "name": "run_ptc_lisp",
                             "input": {"program": "(return 42)"}}], stop="tool_use"))
    resp = anthropic(server, tool_choice="run_ptc_lisp").complete(TRANSCRIPT)
    assert resp["content"] == "Returning."
    assert resp["finish_reason"] == "tool_calls"
    assert resp["tool_calls"] == [{"id": "tu2", "name": "run_ptc_lisp", "args": {"program": "(return 42)"}}]
    body = server.requests[0]["body"]
    assert body["tool_choice"] == {"type": "tool", "name": "run_ptc_lisp"}
    assert [m["role"] for m in body["messages"]] == ["user", "assistant", "user"]
    assert body["messages"][1]["content"] == [
        {"type": "text", "text": "Let me compute."},
        {"type": "tool_use", "id": "c1", "name": "run_ptc_lisp", "input": {"program": "(+ 41 1)"}}]
    assert body["messages"][2]["content"] == [
        {"type": "tool_result", "tool_use_id": "c1", "content": "user=> 42"},
        {"type": "text", "text": "TURN BUDGET: 1 turn remains."}]


@pytest.mark.parametrize("max_tokens, binding, value", [(None, "adapter_default", 4096), (32, "configured", 32)])
def test_anthropic_truncation(server, max_tokens, binding, value):
    server.reply(an_answer([{"type": "text", "text": "cut"}], stop="max_tokens"))
    resp = anthropic(server, max_tokens=max_tokens).complete({"messages": [{"role": "user", "content": "go"}]})
    assert resp["finish_reason"] == "length"
    assert resp["output_limit"] == {"name": "max_tokens", "value": value, "bindings": [binding]}


@pytest.mark.parametrize("request_cache, override, marked", [
    (True, None, True), (False, None, False), (None, None, False), (False, True, True), (True, False, False)])
def test_anthropic_cache_marker(server, request_cache, override, marked):
    server.reply(an_answer([{"type": "text", "text": "ok"}]))
    req = {"system": "S", "messages": [{"role": "user", "content": "hi"}]}
    if request_cache is not None:
        req["cache"] = request_cache
    anthropic(server, cache=override).complete(req)
    system = server.requests[0]["body"]["system"]
    assert (system == [{"type": "text", "text": "S", "cache_control": {"type": "ephemeral"}}]) is marked


@pytest.mark.parametrize("body", [b"not json", json.dumps({"type": "message"}).encode()])
def test_anthropic_malformed_body(server, body):
    server.reply(body)
    with pytest.raises(ProviderError) as ei:
        anthropic(server).complete({"messages": [{"role": "user", "content": "hi"}]})
    assert ei.value.reason == "invalid_result"


# ---------------------------------------------------------------------------------------------
# Replay and recording
# ---------------------------------------------------------------------------------------------
UPSTREAM_REQUEST = {"system": "Reply with the frozen answer.", "messages": [{"role": "user", "content": "What value is frozen?"}]}
UPSTREAM_HASH = "sha256:3c29804ab84643796ed03f89c0f781601913663255262c6991126bea306ac776"


def write_lines(path, *lines):
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def test_request_hash_matches_upstream_fixture():
    assert request_hash(UPSTREAM_REQUEST) == UPSTREAM_HASH
    assert request_hash({**UPSTREAM_REQUEST, "model": "anything"}) == UPSTREAM_HASH
    assert request_hash({**UPSTREAM_REQUEST, "cache": True}) != UPSTREAM_HASH


def test_replay_hit_and_miss_through_router(tmp_path):
    fixture = write_lines(tmp_path / "r.jsonl", json.dumps(
        {"schema_version": 1, "request_hash": UPSTREAM_HASH, "response": {"content": "Frozen answer"}}))
    router = ModelRouter({"frozen-model": ReplayProvider(fixture)})
    assert router.request(UPSTREAM_REQUEST) == {"status": "ok",
                                                "value": {"content": "Frozen answer", "model": "frozen-model"}}
    altered = {**UPSTREAM_REQUEST, "system": "Something else."}
    env = router.request(altered)
    assert (env["status"], env["kind"], env["reason"], env["retryable?"], env["model"]) == \
           ("error", "provider_error", "not_found", False, "frozen-model")
    assert request_hash(altered) in env["details"]


def test_replay_sequence_in_order_then_exhausted(tmp_path):
    h = request_hash({"messages": []})
    fixture = write_lines(tmp_path / "r.jsonl", json.dumps(
        {"schema_version": 1, "request_hash": h, "responses": [{"content": "one"}, {"content": "two"}]}))
    replay = ReplayProvider(fixture)
    assert [replay.complete({"messages": []})["content"] for _ in range(2)] == ["one", "two"]
    with pytest.raises(ProviderError) as ei:
        replay.complete({"messages": []})
    assert ei.value.reason == "not_found" and ei.value.request_hash == h
    replay.reset()
    assert replay.complete({"messages": []})["content"] == "one"


GOOD = {"schema_version": 1, "request_hash": "sha256:" + "a" * 64, "response": {"content": "x"}}


@pytest.mark.parametrize("line, rule", [
    ("{not json", "invalid_json"),
    ('{"a": 1, "a": 2}', "invalid_json"),
    ("[1]", "entry_not_an_object"),
    (json.dumps({**GOOD, "note": "hi"}), "unknown_entry_key"),
    (json.dumps({**GOOD, "schema_version": 2}), "schema_version_invalid"),
    (json.dumps({**GOOD, "request_hash": "sha256:ABC"}), "request_hash_invalid"),
    (json.dumps({"schema_version": 1, "request_hash": GOOD["request_hash"]}), "response_missing"),
    (json.dumps({**GOOD, "responses": [{}]}), "response_ambiguous"),
    (json.dumps({**GOOD, "response": "text"}), "response_invalid"),
    (json.dumps({"schema_version": 1, "request_hash": GOOD["request_hash"], "responses": []}), "responses_invalid"),
    (json.dumps({**GOOD, "response": {"content": "x" * 2000}}), "response_too_large"),
    (json.dumps(GOOD), "duplicate_entry"),
])
def test_replay_load_errors_name_rule_and_line(tmp_path, line, rule):
    path = write_lines(tmp_path / "r.jsonl", json.dumps(GOOD), "", line)
    with pytest.raises(ReplayLoadError) as ei:
        load_fixtures(path, max_response_bytes=1000)
    assert (ei.value.rule, ei.value.line) == (rule, 3)
    assert line not in str(ei.value) or len(line) < 3


def test_replay_empty_or_missing_file(tmp_path):
    with pytest.raises(ReplayLoadError) as ei:
        ReplayProvider(write_lines(tmp_path / "e.jsonl", "", ""))
    assert ei.value.rule == "replay_file_empty"
    with pytest.raises(ReplayLoadError) as ei:
        ReplayProvider(tmp_path / "absent.jsonl")
    assert ei.value.rule == "replay_file_unreadable"


def test_record_then_replay_is_byte_identical(server, tmp_path):
    first = {"system": "S", "messages": [{"role": "user", "content": "é 🧪 \u2028 \"q\""}], "tools": [RUN_TOOL]}
    second = {"system": "S", "messages": [{"role": "user", "content": "again"}]}
    server.reply(oa_answer({"content": None, "tool_calls": [{"id": "c1", "type": "function", "function": {
        "name": "run_ptc_lisp", "arguments": '{"program": "(return \\"é\\")"}'}}]}, finish="tool_calls"))
    server.reply(oa_answer({"content": "one"}))
    server.reply(oa_answer({"content": "two"}, finish="length"))
    recorded = tmp_path / "recorded.jsonl"
    recorder = RecordingProvider(openai(server, max_tokens=8), recorded)
    live = [recorder.complete(first), recorder.complete(second), recorder.complete(second)]

    replay = ReplayProvider(recorded)
    replayed = [replay.complete(first), replay.complete(second), replay.complete(second)]
    assert [json.dumps(r, sort_keys=True) for r in replayed] == [json.dumps(r, sort_keys=True) for r in live]
    assert replayed[2]["output_limit"]["value"] == 8

    again = tmp_path / "again.jsonl"
    rerecorder = RecordingProvider(ReplayProvider(recorded), again)
    for req in (first, second, second):
        rerecorder.complete(req)
    assert again.read_bytes() == recorded.read_bytes()
    lines = recorded.read_text(encoding="utf-8").splitlines()
    assert len(lines) == 2 and '"responses":[' in lines[1]          # the repeated request became a sequence


def test_recorder_skips_failures_and_keeps_existing_entries(tmp_path):
    path = write_lines(tmp_path / "r.jsonl", json.dumps(GOOD))
    recorder = RecordingProvider(ScriptedProvider([ProviderError("rate_limited"), {"content": "ok"}]), path)
    with pytest.raises(ProviderError):
        recorder.complete({"messages": [1]})
    recorder.complete({"messages": [2]})
    entries = load_fixtures(path)
    assert list(entries) == [GOOD["request_hash"], request_hash({"messages": [2]})]


# ---------------------------------------------------------------------------------------------
# Scripted provider
# ---------------------------------------------------------------------------------------------
def test_scripted_list_records_requests_and_runs_out():
    p = ScriptedProvider([{"content": "a"}, ProviderError("denied", "no"), {"content": "c"}])
    assert p.complete({"messages": [1]}) == {"content": "a"}
    with pytest.raises(ProviderError) as ei:
        p.complete({"messages": [2]})
    assert ei.value.reason == "denied"
    assert p.complete({"messages": [3]}) == {"content": "c"}
    with pytest.raises(ProviderError) as ei:
        p.complete({"messages": [4]})
    assert (ei.value.reason, ei.value.retryable) == ("unavailable", True)
    assert [r["messages"] for r in p.requests] == [[1], [2], [3], [4]]


def test_scripted_callable():
    p = ScriptedProvider(lambda req: {"content": str(len(req["messages"]))})
    assert p.complete({"messages": [1, 2]}) == {"content": "2"}
    assert p.remaining is None and len(p.requests) == 1


# ---------------------------------------------------------------------------------------------
# Router
# ---------------------------------------------------------------------------------------------
def test_router_resolves_alias_strips_and_stamps_model():
    fast, slow = ScriptedProvider([{"content": "f", "model": "upstream"}]), ScriptedProvider([{"content": "s"}])
    router = ModelRouter({"fast": fast, "slow": slow}, default="fast")
    assert router.complete({"messages": []}) == {"content": "f", "model": "fast"}
    assert router.complete({"messages": [], "model": "slow"}) == {"content": "s", "model": "slow"}
    assert fast.requests == [{"messages": []}] and slow.requests == [{"messages": []}]


@pytest.mark.parametrize("request_, kind, reason", [
    ({"messages": []}, "protocol_error", "model_alias_required"),
    ({"messages": [], "model": None}, "protocol_error", "invalid_model_alias"),
    ({"messages": [], "model": "Not An Alias"}, "protocol_error", "invalid_model_alias"),
    ({"messages": [], "model": "missing"}, "protocol_error", "unknown_model_alias"),
])
def test_router_alias_errors_never_call_a_provider(request_, kind, reason):
    a, b = ScriptedProvider([{"content": "a"}]), ScriptedProvider([{"content": "b"}])
    router = ModelRouter({"a": a, "b": b})
    env = router.request(request_)
    assert (env["status"], env["kind"], env["reason"], env["retryable?"]) == ("error", kind, reason, False)
    assert "model" not in env
    with pytest.raises(RouterError) as ei:
        router.complete(request_)
    assert (ei.value.kind, ei.value.reason) == (kind, reason)
    assert a.requests == [] and b.requests == []


def test_router_sole_alias_is_implicit():
    router = ModelRouter({"only": ScriptedProvider([{"content": "x"}])})
    assert router.complete({"messages": []})["model"] == "only"


def test_router_max_calls_per_alias():
    expensive = ScriptedProvider(lambda r: {"content": "e"})
    cheap = ScriptedProvider(lambda r: {"content": "c"})
    router = ModelRouter({"expensive": expensive, "cheap": cheap}, default="expensive", max_calls={"expensive": 1})
    assert router.request({"messages": []})["status"] == "ok"
    refused = router.request({"messages": []})
    assert refused == {"status": "error", "kind": "limit_exceeded", "reason": "capability_quota",
                       "details": {"limit": "max_calls", "alias": "expensive", "limit_value": 1},
                       "retryable?": False, "model": "expensive"}
    assert len(expensive.requests) == 1
    assert router.request({"messages": [], "model": "cheap"})["status"] == "ok"
    assert router.usage()["calls"] == {"expensive": 1, "cheap": 1}


def test_router_global_call_budget():
    router = ModelRouter({"m": ScriptedProvider(lambda r: {"content": "x"})}, max_total_calls=2)
    assert [router.request({"messages": []})["status"] for _ in range(2)] == ["ok", "ok"]
    env = router.request({"messages": []})
    assert env["details"] == {"limit": "workflow_capability_calls", "name": "llm-request", "limit_value": 2}


@pytest.mark.parametrize("answer, reason, retryable", [
    ([1, 2], "invalid_request", False),
    ({"content": "x", "tokens": {"input": -1}}, "invalid_request", False),
    ({"content": "x", "tokens": {"input": 1.5}}, "invalid_request", False),
    ({"content": "x" * 500}, "invalid_request", False),
    (RuntimeError(f"boom with {KEY}"), "unavailable", True),
    (ProviderError("domain_error", "refused"), "domain_error", False),
])
def test_router_classifies_provider_results(answer, reason, retryable):
    router = ModelRouter({"m": ScriptedProvider([answer])}, max_response_bytes=200)
    env = router.request({"messages": []})
    assert (env["kind"], env["reason"], env["retryable?"], env["model"]) == ("provider_error", reason, retryable, "m")
    assert KEY not in json.dumps(env)


def test_router_bounds_requests_before_calling():
    p = ScriptedProvider([{"content": "x"}])
    router = ModelRouter({"m": p}, max_request_bytes=50)
    env = router.request({"messages": [{"role": "user", "content": "y" * 100}]})
    assert (env["reason"], env["model"]) == ("invalid_request", "m")
    assert p.requests == []


def test_router_usage_and_events():
    events = []
    p = ScriptedProvider([{"content": "a", "tokens": {"input": 10, "output": 2, "cache_read": 4}},
                          {"content": "b", "tokens": {"input": 5, "output": 1}, "finish_reason": "stop"},
                          ProviderError("timeout")])
    router = ModelRouter({"m": p}, on_event=events.append)
    for _ in range(3):
        router.request({"messages": [{"role": "user", "content": "private text"}]})
    usage = router.usage()
    assert usage["tokens"]["m"] == {"input": 15, "output": 3, "cache_read": 4}
    assert (usage["total_calls"], usage["errors"]["m"]) == (3, 1)
    assert [e["status"] for e in events] == ["ok", "ok", "error"]
    assert events[2]["reason"] == "timeout"
    assert "private text" not in json.dumps(events)


@pytest.mark.parametrize("kwargs", [
    {"aliases": {"Bad": ScriptedProvider([])}},
    {"aliases": {"a": ScriptedProvider([])}, "default": "b"},
    {"aliases": {"a": ScriptedProvider([])}, "max_calls": {"b": 1}},
    {"aliases": {"a": ScriptedProvider([])}, "max_calls": {"a": 0}},
    {"aliases": {"a": object()}},
    {"aliases": {}},
])
def test_router_configuration_errors(kwargs):
    with pytest.raises(ValueError):
        ModelRouter(kwargs.pop("aliases"), **kwargs)


def test_router_from_specs(tmp_path):
    fixture = write_lines(tmp_path / "r.jsonl", json.dumps(
        {"schema_version": 1, "request_hash": UPSTREAM_HASH, "response": {"content": "Frozen answer"}}))
    router = router_from_specs([f"frozen=replay:{fixture}", "fast=scripted:demo"], default="fast",
                               max_calls={"fast": 5}, scripts={"demo": [{"content": "hi"}]})
    assert router.aliases == ["fast", "frozen"]
    assert router.complete({"messages": []}) == {"content": "hi", "model": "fast"}
    assert router.complete({**UPSTREAM_REQUEST, "model": "frozen"})["content"] == "Frozen answer"


# ---------------------------------------------------------------------------------------------
# Model specs
# ---------------------------------------------------------------------------------------------
@pytest.mark.parametrize("text, expected", [
    ("openai:gpt-4o-mini", ModelSpec("openai", "gpt-4o-mini")),
    ("anthropic:claude-sonnet-4-5", ModelSpec("anthropic", "claude-sonnet-4-5")),
    ("openai:smollm2@http://127.0.0.1:8765/v1", ModelSpec("openai", "smollm2", "http://127.0.0.1:8765/v1")),
    ("anthropic:claude-3-5-sonnet@20240620", ModelSpec("anthropic", "claude-3-5-sonnet@20240620")),
    ("replay:fixtures/run.jsonl", ModelSpec("replay", "fixtures/run.jsonl")),
    ("scripted:demo", ModelSpec("scripted", "demo")),
    ("openai:org/model:q4", ModelSpec("openai", "org/model:q4")),
])
def test_parse_model_spec(text, expected):
    assert parse_model_spec(text) == expected


@pytest.mark.parametrize("text, base_url", [
    ("gpt-4o-mini", None), ("gemini:pro", None), ("openai:", None), ("openai:m@ftp://host", None),
    ("replay:x.jsonl", "http://h/v1"), ("openai:m", "not-a-url"), (None, None)])
def test_parse_model_spec_rejects(text, base_url):
    with pytest.raises(ModelSpecError):
        parse_model_spec(text, base_url=base_url)


def test_parse_model_spec_keyword_base_url_and_alias():
    assert parse_model_spec("openai:m", base_url="http://h:1/v1").base_url == "http://h:1/v1"
    assert parse_alias_spec("fast=openai:gpt-4o-mini") == ("fast", ModelSpec("openai", "gpt-4o-mini"))
    for bad in ("openai:gpt-4o-mini", "Fast=openai:x", "=openai:x"):
        with pytest.raises(ModelSpecError):
            parse_alias_spec(bad)


# ---------------------------------------------------------------------------------------------
# Credentials never leak
# ---------------------------------------------------------------------------------------------
def test_redact_helpers():
    text = f"key {KEY}; Authorization: Bearer abcdefgh12345; x-api-key: other-secret-77; api_key=zzzz9999 ok"
    out = redact(text, [Secret("other-secret-77")])
    for leaked in (KEY, "abcdefgh12345", "other-secret-77", "zzzz9999"):
        assert leaked not in out
    assert out.startswith("key [REDACTED]") and out.endswith(" ok")
    assert redact("plain words about tokens and keys") == "plain words about tokens and keys"
    assert redact_headers({"Authorization": "Bearer x", "X-Api-Key": "k", "Accept": "json"}) == \
           {"Authorization": "[REDACTED]", "X-Api-Key": "[REDACTED]", "Accept": "json"}
    assert safe_url("https://user:pw@api.example.com:8443/v1?key=abc#frag") == "https://api.example.com:8443/v1"
    s = Secret(KEY)
    assert KEY not in repr(s) and KEY not in str(s) and KEY not in f"{s}" and s.reveal() == KEY


def test_key_absent_from_errors_reprs_and_logs(server, caplog):
    caplog.set_level(logging.DEBUG)
    echo = {"error": {"type": "invalid_request_error", "message": f"Incorrect API key provided: {KEY}"}}
    server.reply(echo, status=401)
    provider = openai(server)
    router = ModelRouter({"m": provider})
    env = router.request({"messages": [{"role": "user", "content": "hi"}]})
    assert env["reason"] == "authentication_failed"
    seen = " ".join([json.dumps(env), repr(provider), str(provider.describe()), repr(router), caplog.text])
    assert KEY not in seen and KEY[:12] not in seen


# ---------------------------------------------------------------------------------------------
# Check helpers directly
# ---------------------------------------------------------------------------------------------
def test_check_response_projection():
    class Atom:
        name = "stop"
    out = check_response({"content": "x", "finish_reason": Atom(), "tool_calls": ({"id": "a"},)})
    assert out == {"content": "x", "finish_reason": "stop", "tool_calls": [{"id": "a"}]}
    with pytest.raises(ProviderError) as ei:
        check_response({"content": float("nan")})
    assert ei.value.reason == "invalid_request"


# ---------------------------------------------------------------------------------------------
# Optional: a real local model server at PTCLISP_LOCAL_LLM_URL (the local_llm fixture)
# ---------------------------------------------------------------------------------------------

def test_local_llm_end_to_end(tmp_path, local_llm):
    provider = OpenAIChat("smollm2", base_url=local_llm, api_key="local", max_tokens=128,
                          tool_choice="run_ptc_lisp", timeout_s=300)
    router = ModelRouter({"local": provider})
    env = router.request({"system": "Write a PTC-Lisp program.",
                          "messages": [{"role": "user", "content": "Return the number 42."}], "tools": [RUN_TOOL]})
    assert env["status"] == "ok", env
    resp = env["value"]
    assert resp["model"] == "local"
    assert resp["tokens"]["input"] > 0 and resp["tokens"]["output"] > 0
    call = resp["tool_calls"][0]
    assert len(resp["tool_calls"]) == 1 and call["name"] == "run_ptc_lisp"
    follow_up = router.request({"system": "Write a PTC-Lisp program.", "tools": [RUN_TOOL], "messages": [
        {"role": "user", "content": "Return the number 42."},
        {"role": "assistant", "content": resp["content"], "tool_calls": [call]},
        {"role": "tool", "tool_call_id": call["id"], "content": "user=> 42"}]})
    assert follow_up["status"] == "ok", follow_up                     # the transcript shape is accepted
    assert follow_up["value"]["tokens"]["input"] > resp["tokens"]["input"]

    short = OpenAIChat("smollm2", base_url=local_llm, api_key="local", max_tokens=3, timeout_s=300)
    recorder = RecordingProvider(short, tmp_path / "local.jsonl")
    question = {"messages": [{"role": "user", "content": "Count from one to fifty in words."}]}
    cut = recorder.complete(question)
    assert cut["finish_reason"] == "length"
    assert cut["output_limit"] == {"name": "max_tokens", "value": 3, "bindings": ["configured"]}
    assert ReplayProvider(tmp_path / "local.jsonl").complete(question) == cut
