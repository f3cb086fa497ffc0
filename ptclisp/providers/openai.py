"""OpenAI-compatible chat completions (`POST {base_url}/chat/completions`).

Owns `OpenAIChat`: translating the provider-neutral request (§4.1) into a
chat-completions body and the answer back into the neutral response (§4.2).
Works with OpenAI itself and with compatible servers (llama.cpp, vLLM,
Ollama, ...).  Configuration follows the official SDK: `OPENAI_API_KEY`
and `OPENAI_BASE_URL` from the environment unless given explicitly.
Imports providers.base, providers.errors, providers.http.
"""
from __future__ import annotations

import json
from typing import Any, Mapping

from .base import (TRUNCATED, check_response, make_tokens, message_list, output_limit, parse_tool_args,
                   request_text)
from .errors import ProviderError
from .http import HttpProvider
from .redact import Secret

DEFAULT_BASE_URL = "https://api.openai.com/v1"


class OpenAIChat(HttpProvider):
    """A provider for any OpenAI-compatible `/chat/completions` endpoint.

    `max_tokens` (None = let the server decide) is sent as `max_tokens_field`
    (`"max_tokens"`, or `"max_completion_tokens"` for newer OpenAI models);
    `tool_choice` is None, `"auto"`, `"required"`, `"none"` or a tool name to
    force; `temperature` and `extra_body` (merged last) are passed through.
    """

    kind = "openai"
    endpoint = "/chat/completions"
    label = "OpenAI-compatible endpoint"
    API_KEY_ENV = "OPENAI_API_KEY"
    BASE_URL_ENV = "OPENAI_BASE_URL"

    def __init__(self, model: str, *, base_url: str | None = None, api_key: str | Secret | None = None,
                 env: Mapping[str, str] | None = None, max_tokens: int | None = None,
                 max_tokens_field: str = "max_tokens", temperature: float | None = None,
                 tool_choice: str | None = None, extra_body: dict | None = None, **http_options: Any):
        super().__init__(model=model, **self.endpoint_settings(env, base_url, api_key, DEFAULT_BASE_URL),
                         **http_options)
        self.max_tokens = max_tokens
        self.max_tokens_field = max_tokens_field
        self.temperature = temperature
        self.tool_choice = tool_choice
        self.extra_body = dict(extra_body or {})

    def _auth_headers(self) -> dict:
        return {"Authorization": f"Bearer {self._require_key(self.API_KEY_ENV)}"}

    # -- request ------------------------------------------------------------------------------
    def build_body(self, request: dict) -> dict:
        """The chat-completions JSON body for a neutral request."""
        messages = []
        system = request.get("system")
        if system is not None:
            messages.append({"role": "system", "content": request_text(system, "system")})
        for m in message_list(request):
            messages.append(_to_openai_message(m))
        body: dict = {"model": self.model, "messages": messages}
        tools = request.get("tools")
        if tools:
            body["tools"] = tools
            if self.tool_choice is not None:
                body["tool_choice"] = _tool_choice(self.tool_choice)
        if self.max_tokens is not None:
            body[self.max_tokens_field] = self.max_tokens
        return self._with_options(body)

    # -- response -----------------------------------------------------------------------------
    def parse_response(self, data: dict) -> dict:
        """The neutral response for a decoded chat-completions answer."""
        choices = data.get("choices")
        if not isinstance(choices, list) or not choices or not isinstance(choices[0], dict):
            raise ProviderError("invalid_result", f"{self.label} answer has no choices")
        choice = choices[0]
        message = choice.get("message")
        if not isinstance(message, dict):
            raise ProviderError("invalid_result", f"{self.label} answer has no message")
        out: dict = {"content": _content_text(message.get("content"))}
        calls = [_from_openai_call(c, i) for i, c in enumerate(message.get("tool_calls") or [])]
        if calls:
            out["tool_calls"] = calls
        tokens = _usage(data.get("usage"))
        if tokens is not None:
            out["tokens"] = tokens
        finish = choice.get("finish_reason")
        if isinstance(finish, str):
            out["finish_reason"] = finish
        if finish == TRUNCATED and self.max_tokens is not None:
            out["output_limit"] = output_limit(self.max_tokens, "configured")
        return check_response(out)


def _to_openai_message(m: dict) -> dict:
    role = m["role"]
    content = m.get("content")
    if content is not None and not isinstance(content, (str, list)):
        raise ProviderError("invalid_request", f"{role} message content is not a string")
    if role == "tool":
        return {"role": "tool", "tool_call_id": str(m.get("tool_call_id", "")), "content": content or ""}
    # null content is sent as "": OpenAI accepts both, some compatible servers (llama.cpp's
    # Python server) reject null or a missing content beside tool calls
    out = {"role": role, "content": "" if content is None else content}
    calls = m.get("tool_calls") if role == "assistant" else None
    if calls:
        out["tool_calls"] = [_to_openai_call(c) for c in calls]
    return out


def _to_openai_call(call: Any) -> dict:
    if not isinstance(call, dict):
        raise ProviderError("invalid_request", "assistant tool call is not an object")
    fn = call.get("function") if isinstance(call.get("function"), dict) else {}
    name = call.get("name", fn.get("name"))
    args = call.get("args", call.get("arguments", fn.get("arguments", {})))
    if not isinstance(args, str):
        args = json.dumps(args, ensure_ascii=False)
    return {"id": call.get("id"), "type": "function", "function": {"name": name, "arguments": args}}


def _tool_choice(choice: str) -> Any:
    if choice in ("auto", "required", "none"):
        return choice
    return {"type": "function", "function": {"name": choice}}


def _content_text(content: Any) -> str | None:
    """Message content as text: strings as-is, content-part lists joined, anything else None."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        parts = [p.get("text") for p in content if isinstance(p, dict) and isinstance(p.get("text"), str)]
        return "".join(parts) if parts else None
    return None


def _from_openai_call(call: Any, index: int) -> dict:
    if not isinstance(call, dict):
        return {"id": None, "name": None, "args": {}, "args_error": "tool call is not an object"}
    fn = call.get("function") if isinstance(call.get("function"), dict) else {}
    args, error = parse_tool_args(fn.get("arguments"))
    out = {"id": call.get("id"), "name": fn.get("name"), "args": args}
    if error:
        out["args_error"] = error
    return out


def _usage(usage: Any) -> dict | None:
    if not isinstance(usage, dict):
        return None
    details = usage.get("prompt_tokens_details")
    cached = details.get("cached_tokens") if isinstance(details, dict) else None
    return make_tokens(input=usage.get("prompt_tokens"), output=usage.get("completion_tokens"),
                       cache_read=cached)
