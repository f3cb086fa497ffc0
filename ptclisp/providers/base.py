"""The provider contract and the shared normalisation of responses.

Owns the `Provider` protocol, the checks every response passes before the
agent loop sees it (`check_response`: a JSON object, JSON-projectable,
bounded, well-formed `tokens`), and the small helpers the adapters share:
token usage, finish reasons, output limits, tool-call argument parsing,
deterministic JSON encoding, and how a provider that wraps another
describes itself and closes it.  Imports only providers.errors.
"""
from __future__ import annotations

import json
import math
from typing import Any, Mapping, Protocol, runtime_checkable

from .errors import ProviderError

#: Integer counters a response's `tokens` map may carry.
TOKEN_COUNTS = ("input", "output", "cache_creation", "cache_read")
#: Finish reason that means the model was cut off by its output cap.
TRUNCATED = "length"
#: Where an output cap can come from, in the order they are listed in `output_limit.bindings`.
LIMIT_BINDINGS = ("configured", "adapter_default", "model_output_limit", "remaining_context")


@runtime_checkable
class Provider(Protocol):
    """Anything that answers a provider-neutral request.

    `complete(request)` receives the request of docs/spec/agent-library.md §4.1 with
    the router's `model` key already removed, and returns the response map
    of §4.2 (without `model`; the router stamps it).  It reports failure by
    raising `ProviderError`.  `kind` names the provider family for traces.
    A provider may declare `context_window` (tokens) and `max_tokens`; the
    agent host holds requests to that window (ptclisp.providers.windows).
    """

    kind: str

    def complete(self, request: dict) -> dict: ...


def dumps(value: Any) -> str:
    """Compact deterministic JSON: sorted keys, no whitespace, non-ASCII kept raw."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False)


def encoded_size(value: Any) -> int:
    """Byte length of `value` in the compact JSON encoding."""
    return len(dumps(value).encode("utf-8"))


def json_project(value: Any) -> Any:
    """A plain-JSON deep copy of `value`: tuples become lists, named atoms (`.name`) their name.

    Raises TypeError for anything else that JSON cannot carry, and
    ValueError for NaN/infinite floats.
    """
    if value is None or isinstance(value, (bool, str, int)):
        return value
    if isinstance(value, float):
        if not math.isfinite(value):
            raise ValueError("non-finite number")
        return value
    if isinstance(value, Mapping):
        out = {}
        for k, v in value.items():
            key = k if isinstance(k, str) else _atom_name(k)
            out[key] = json_project(v)
        return out
    if isinstance(value, (list, tuple)):
        return [json_project(v) for v in value]
    return _atom_name(value)


def _atom_name(value: Any) -> str:
    name = getattr(value, "name", None)
    if isinstance(name, str):
        return name
    raise TypeError(f"{type(value).__name__} is not JSON data")


def message_list(request: dict) -> list:
    """The request's `messages`, checked to be a list of maps with a string `role`."""
    messages = request.get("messages", [])
    if not isinstance(messages, list):
        raise ProviderError("invalid_request", "request messages are not a list")
    for m in messages:
        if not isinstance(m, dict) or not isinstance(m.get("role"), str):
            raise ProviderError("invalid_request", "each request message needs a string role")
    return messages


def request_text(value: Any, what: str) -> str:
    """`value` when it is a string, else `ProviderError(invalid_request)` naming `what`."""
    if not isinstance(value, str):
        raise ProviderError("invalid_request", f"request {what} is not a string")
    return value


def check_tokens(tokens: Any) -> dict:
    """Validate a `tokens` map: optional non-negative integer counts and a non-negative `total_cost`."""
    if not isinstance(tokens, dict):
        raise ProviderError("invalid_request", "provider token usage is not an object")
    for key, value in tokens.items():
        if key in TOKEN_COUNTS:
            if isinstance(value, bool) or not isinstance(value, int) or value < 0:
                raise ProviderError("invalid_request", f"provider token usage {key!r} is not a non-negative integer")
        elif key == "total_cost":
            if isinstance(value, bool) or not isinstance(value, (int, float)) or value < 0:
                raise ProviderError("invalid_request", "provider token usage 'total_cost' is not a non-negative number")
        else:
            raise ProviderError("invalid_request", f"provider token usage has an unknown field {key!r}")
    return tokens


def check_response(raw: Any, max_bytes: int | None = None) -> dict:
    """Return a JSON-projected copy of a provider result, or raise `ProviderError(invalid_request)`.

    The result must be a JSON object, at most `max_bytes` when encoded, and
    its `tokens` (when present) must pass `check_tokens`.  Everything else
    (tool calls included) is passed through untouched: judging a model's
    action is the agent loop's job.
    """
    if isinstance(raw, ProviderError):
        raise raw
    if not isinstance(raw, dict):
        raise ProviderError("invalid_request", f"provider result is not a JSON object (got {type(raw).__name__})")
    try:
        response = json_project(raw)
        size = encoded_size(response)
    except (TypeError, ValueError) as e:
        raise ProviderError("invalid_request", f"provider result is not JSON data: {e}") from None
    if max_bytes is not None and size > max_bytes:
        raise ProviderError("invalid_request", f"provider result is {size} bytes; the limit is {max_bytes}")
    if "tokens" in response:
        check_tokens(response["tokens"])
    return response


def make_tokens(input: Any = None, output: Any = None, cache_creation: Any = None,
                cache_read: Any = None) -> dict:
    """A `tokens` map holding only the counts that were reported (None = not reported)."""
    raw = {"input": input, "output": output, "cache_creation": cache_creation, "cache_read": cache_read}
    return {k: v for k, v in raw.items() if v is not None}


def parse_tool_args(raw: Any) -> tuple[dict, str | None]:
    """Arguments of a model's tool call as a dict, plus an error note when they were unusable.

    A JSON string is decoded; anything that does not end up as an object
    gives `({}, note)` so the agent loop can report it.
    """
    if isinstance(raw, dict):
        return raw, None
    if raw is None or raw == "":
        return {}, None if raw == "" else "tool call has no arguments"
    if isinstance(raw, str):
        try:
            value = json.loads(raw)
        except ValueError as e:
            return {}, f"arguments are not valid JSON ({e.msg} at position {e.pos})"
        if isinstance(value, dict):
            return value, None
        return {}, f"arguments decode to {type(value).__name__}, not an object"
    return {}, f"arguments are {type(raw).__name__}, not an object"


def output_limit(value: int, binding: str) -> dict:
    """The `output_limit` map attached to a truncated response whose cap is known."""
    if binding not in LIMIT_BINDINGS:
        raise ValueError(f"unknown output limit binding {binding!r}")
    return {"name": "max_tokens", "value": value, "bindings": [binding]}


def is_truncated(response: Mapping) -> bool:
    """True when the model stopped because it hit its output cap.

    Truncation is terminal for the agent loop: the run aborts with
    `model_output_truncated` unless a complete, valid tool call came back
    anyway.  Nothing in this package retries or re-sends a truncated answer.
    """
    return response.get("finish_reason") == TRUNCATED


def wrapped_description(inner: Any, kind: str, **marks: Any) -> dict:
    """What a provider that wraps `inner` says of itself: `inner`'s description (just its `kind`
    when it has none) with the wrapper's own `marks` added."""
    described = inner.describe() if hasattr(inner, "describe") else {"kind": kind}
    return {**described, **marks}


def close_provider(provider: Any) -> None:
    """Close `provider` when it has a `close` (not every provider holds anything to close)."""
    if hasattr(provider, "close"):
        provider.close()
