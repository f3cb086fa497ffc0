"""Anthropic Messages API (`POST {base_url}/v1/messages`).

Owns `AnthropicMessages`: the neutral request (§4.1) becomes a Messages
body (top-level system, content blocks, `tool_use` / `tool_result`, strict
user/assistant alternation) and the answer becomes the neutral response
(§4.2) with `stop_reason` mapped onto the OpenAI-style finish reasons.
Configuration follows the official SDK: `ANTHROPIC_API_KEY` and
`ANTHROPIC_BASE_URL` from the environment unless given explicitly.
Imports providers.base, providers.errors, providers.http.
"""
from __future__ import annotations

from typing import Any, Mapping

from .base import (TRUNCATED, check_response, make_tokens, message_list, output_limit, parse_tool_args,
                   request_text)
from .errors import ProviderError
from .http import HttpProvider
from .redact import Secret

DEFAULT_BASE_URL = "https://api.anthropic.com"
API_VERSION = "2023-06-01"
#: The Messages API requires a cap; this one applies when the host configures none.
ADAPTER_DEFAULT_MAX_TOKENS = 4096

#: Anthropic stop reasons -> neutral finish reasons (others pass through unchanged).
STOP_REASONS = {"end_turn": "stop", "stop_sequence": "stop", "tool_use": "tool_calls",
                "max_tokens": TRUNCATED, "model_context_window_exceeded": TRUNCATED,
                "refusal": "content_filter"}


class AnthropicMessages(HttpProvider):
    """A provider for the Anthropic Messages API.

    `max_tokens` defaults to ADAPTER_DEFAULT_MAX_TOKENS (the API demands a
    value); a truncated answer's `output_limit` says which of the two
    applied.  `cache` None follows the request's `"cache"` flag, True/False
    overrides it; when on, the system prompt gets an ephemeral
    `cache_control` marker.  `tool_choice` is None, `"auto"`, `"any"`,
    `"none"` or a tool name to force.
    """

    kind = "anthropic"
    endpoint = "/v1/messages"
    label = "Anthropic endpoint"
    API_KEY_ENV = "ANTHROPIC_API_KEY"
    BASE_URL_ENV = "ANTHROPIC_BASE_URL"

    def __init__(self, model: str, *, base_url: str | None = None, api_key: str | Secret | None = None,
                 env: Mapping[str, str] | None = None, max_tokens: int | None = None,
                 temperature: float | None = None, tool_choice: str | None = None,
                 cache: bool | None = None, extra_body: dict | None = None, **http_options: Any):
        super().__init__(model=model, **self.endpoint_settings(env, base_url, api_key, DEFAULT_BASE_URL),
                         **http_options)
        self.max_tokens_configured = max_tokens is not None
        self.max_tokens = max_tokens if max_tokens is not None else ADAPTER_DEFAULT_MAX_TOKENS
        self.temperature = temperature
        self.tool_choice = tool_choice
        self.cache = cache
        self.extra_body = dict(extra_body or {})

    def _auth_headers(self) -> dict:
        return {"x-api-key": self._require_key(self.API_KEY_ENV), "anthropic-version": API_VERSION}

    # -- request ------------------------------------------------------------------------------
    def build_body(self, request: dict) -> dict:
        """The Messages JSON body for a neutral request."""
        body: dict = {"model": self.model, "max_tokens": self.max_tokens,
                      "messages": _to_anthropic_messages(message_list(request))}
        system = request.get("system")
        if system is not None:
            text = request_text(system, "system")
            cache = self.cache if self.cache is not None else request.get("cache") is True
            body["system"] = ([{"type": "text", "text": text, "cache_control": {"type": "ephemeral"}}]
                              if cache else text)
        tools = request.get("tools")
        if tools:
            body["tools"] = [_to_anthropic_tool(t) for t in tools]
            if self.tool_choice is not None:
                body["tool_choice"] = _tool_choice(self.tool_choice)
        return self._with_options(body)

    # -- response -----------------------------------------------------------------------------
    def parse_response(self, data: dict) -> dict:
        """The neutral response for a decoded Messages answer."""
        blocks = data.get("content")
        if not isinstance(blocks, list):
            raise ProviderError("invalid_result", f"{self.label} answer has no content list")
        texts, calls = [], []
        for b in blocks:
            if not isinstance(b, dict):
                continue
            if b.get("type") == "text" and isinstance(b.get("text"), str):
                texts.append(b["text"])
            elif b.get("type") == "tool_use":
                args, error = parse_tool_args(b.get("input"))
                call = {"id": b.get("id"), "name": b.get("name"), "args": args}
                if error:
                    call["args_error"] = error
                calls.append(call)
        out: dict = {"content": "".join(texts) if texts else None}
        if calls:
            out["tool_calls"] = calls
        usage = data.get("usage")
        if isinstance(usage, dict):
            out["tokens"] = make_tokens(input=usage.get("input_tokens"), output=usage.get("output_tokens"),
                                        cache_creation=usage.get("cache_creation_input_tokens"),
                                        cache_read=usage.get("cache_read_input_tokens"))
        stop = data.get("stop_reason")
        if isinstance(stop, str):
            out["finish_reason"] = STOP_REASONS.get(stop, stop)
        if stop == "max_tokens":
            binding = "configured" if self.max_tokens_configured else "adapter_default"
            out["output_limit"] = output_limit(self.max_tokens, binding)
        return check_response(out)


def _to_anthropic_tool(tool: Any) -> dict:
    if not isinstance(tool, dict):
        raise ProviderError("invalid_request", "request tool is not an object")
    fn = tool.get("function") if isinstance(tool.get("function"), dict) else tool
    if not isinstance(fn.get("name"), str):
        raise ProviderError("invalid_request", "request tool has no name")
    out = {"name": fn["name"], "input_schema": fn.get("parameters") or fn.get("input_schema")
           or {"type": "object"}}
    if fn.get("description"):
        out["description"] = fn["description"]
    return out


def _tool_choice(choice: str) -> dict:
    if choice in ("auto", "any", "none"):
        return {"type": choice}
    return {"type": "tool", "name": choice}


def _blocks(m: dict) -> tuple[str, list]:
    """(anthropic role, content blocks) for one neutral message."""
    role, content = m["role"], m.get("content")
    if content is not None and not isinstance(content, str):
        raise ProviderError("invalid_request", f"{role} message content is not a string")
    if role == "tool":
        return "user", [{"type": "tool_result", "tool_use_id": str(m.get("tool_call_id", "")),
                         "content": content or ""}]
    blocks = [{"type": "text", "text": content}] if content else []
    if role == "assistant":
        for call in m.get("tool_calls") or []:
            if not isinstance(call, dict):
                raise ProviderError("invalid_request", "assistant tool call is not an object")
            fn = call.get("function") if isinstance(call.get("function"), dict) else {}
            args, _ = parse_tool_args(call.get("args", call.get("arguments", fn.get("arguments"))))
            blocks.append({"type": "tool_use", "id": call.get("id"), "name": call.get("name", fn.get("name")),
                           "input": args})
        return "assistant", blocks
    if role == "user":
        return "user", blocks
    raise ProviderError("invalid_request", f"unsupported message role {role!r}")


def _to_anthropic_messages(messages: list) -> list:
    """Neutral messages as alternating user/assistant turns (adjacent same-role turns merged)."""
    out: list = []
    for m in messages:
        role, blocks = _blocks(m)
        if not blocks:
            continue                    # an empty turn is refused by the API; dropping it keeps alternation
        if out and out[-1]["role"] == role:
            merged = out[-1]["content"] + blocks
            # the API wants a user turn's tool results ahead of its text
            merged.sort(key=lambda blk: blk["type"] != "tool_result")
            out[-1]["content"] = merged
        else:
            out.append({"role": role, "content": blocks})
    return out
