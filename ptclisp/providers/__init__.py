"""LLM providers behind `tool/llm-request`: adapters, replay, scripting and the model router.

This layer knows nothing about Lisp values.  Requests and responses are
plain JSON-like dicts with string keys (docs/spec/agent-library.md §4); the agent
host converts them at the boundary.

Contract
--------
A *provider* is any object with ``kind: str`` and ``complete(request) -> dict``:

* request (§4.1)::

      {"system": str?, "messages": [{"role": "user"|"assistant"|"tool", "content": str|None,
                                     "tool_calls"?: [{"id", "name", "args"}], "tool_call_id"?: str}],
       "tools": [{"type": "function", "function": {"name", "description", "parameters"}}]?,
       "cache": bool?}

  The router removes ``"model"`` (the alias) before a provider sees it.
  Credentials, endpoints, sampling, ``max_tokens`` and timeouts are
  provider configuration, never request fields.
* response (§4.2)::

      {"content": str|None,
       "tool_calls"?: [{"id", "name", "args": dict, "args_error"?: str}],
       "tokens"?: {"input", "output", "cache_creation", "cache_read": int >= 0, "total_cost"?: float},
       "finish_reason"?: "stop"|"tool_calls"|"length"|"content_filter"|...,
       "output_limit"?: {"name": "max_tokens", "value": int, "bindings": [str]}}

  plus ``"model": alias``, stamped by the router on every success.
  Unparseable tool arguments arrive as ``args: {}`` with ``args_error``.
  ``finish_reason == "length"`` (`is_truncated`) means the model hit its
  output cap; ``output_limit`` is present only when the cap is known.
  Truncation is terminal for the agent loop and nothing here retries it.
* failure: raise `ProviderError(reason, details, retryable)` with a reason
  from `PROVIDER_REASONS` (retryable by default: timeout, unavailable,
  rate_limited, transport_error; permanent: authentication_failed,
  payment_required, denied, not_found, invalid_request,
  tool_calling_unsupported, internal, domain_error, invalid_result).
  ``details`` is short safe prose, never bodies, headers or keys.

Providers
---------
* `OpenAIChat(model, base_url=None, api_key=None, env=None, max_tokens=None, tool_choice=None, ...)`
  - any OpenAI-compatible ``/chat/completions``; ``OPENAI_BASE_URL`` /
  ``OPENAI_API_KEY`` from the environment by default.
* `AnthropicMessages(model, ..., max_tokens=None, cache=None)` - ``/v1/messages``;
  ``ANTHROPIC_BASE_URL`` / ``ANTHROPIC_API_KEY``.  ``stop_reason`` maps to
  the finish reasons above (``max_tokens`` -> ``length``, ``tool_use`` ->
  ``tool_calls``, ``end_turn`` -> ``stop``).
* HTTP adapters share `HttpProvider`: ``timeout_s`` (one exchange),
  ``connect_timeout_s``, ``max_response_bytes``, and opt-in ``max_retries``
  / ``backoff_s`` for retryable failures only (a successful answer, even a
  truncated one, is never re-sent); statuses classify as 401
  authentication_failed, 402 payment_required, 403 denied, 404 not_found,
  400/413/422 invalid_request (tool_calling_unsupported when the body says
  so), 408/504 timeout, 429 rate_limited, other 5xx unavailable; network
  failures are transport_error or timeout; a 2xx body that is not the
  expected JSON is invalid_result.
* `ReplayProvider(path)` - answers from a JSON Lines fixture keyed by
  `request_hash(request)` (``sha256:`` of the canonical JSON without
  ``model``); a miss or an exhausted sequence is ``not_found`` with
  ``.request_hash`` set.  `load_fixtures` / `ReplayLoadError` check files.
* `RecordingProvider(inner, path)` - passes calls to ``inner`` and writes
  each successful answer into a fixture file that `ReplayProvider` serves
  byte-for-byte the same.
* `ScriptedProvider(list_or_callable)` - scripted answers for tests; keeps
  ``.requests``.

Context windows
---------------
Every provider takes an optional ``context_window`` (tokens): ``OpenAIChat("m",
context_window=8192)``, ``ScriptedProvider(script, context_window=4000)``,
``ReplayProvider(path, context_window=...)``; ``RecordingProvider`` passes on its
inner provider's.  The HTTP adapters fall back to `CONTEXT_WINDOWS`, a small table
of common models (the vendors' published specs).  `declared_window(provider)`
reads (window, max_tokens) through wrappers; `window_chars(window, max_tokens)`
is the conservative character estimate the agent host holds each request to
(window minus the output reservation, times `CHARS_PER_TOKEN`); `DeclaredWindow`
gives a provider without one (a replay file standing for a live model) a window.

Routing
-------
`ModelRouter({alias: provider}, default=None, max_calls={alias: n}, max_total_calls=256,
max_request_bytes=1_000_000, max_response_bytes=1_000_000, on_event=None)`:

* ``router.request(req) -> {"status": "ok", "value": response}`` or an
  error envelope ``{"status": "error", "kind", "reason", "details",
  "retryable?", "model"?}`` - what ``tool/llm-request`` returns once the host
  turns keys and the ``status``/``kind``/``reason`` values into keywords.
  ``router.complete(req)`` is the raising variant (`LlmRequestError`).
* alias refusals: ``protocol_error`` / ``model_alias_required``,
  ``invalid_model_alias`` (``model`` null or malformed), ``unknown_model_alias``;
  quotas: ``limit_exceeded`` / ``capability_quota`` with details
  ``{"limit": "max_calls", "alias", "limit_value"}`` or
  ``{"limit": "workflow_capability_calls", "name": "llm-request", "limit_value"}``.
* every error after resolution carries ``model``; a provider result that is
  not a JSON object, too large, or with malformed ``tokens`` becomes
  ``invalid_request``; any other exception from a provider becomes
  retryable ``unavailable``.
* ``router.usage()`` -> calls, errors and summed tokens per alias.

Configuration strings
---------------------
`parse_model_spec("openai:gpt-4o-mini")` -> `ModelSpec(provider, model, base_url)`;
``"openai:smollm2@http://127.0.0.1:8765/v1"`` or ``base_url=`` overrides the
endpoint.  `parse_alias_spec("fast=openai:gpt-4o-mini")`,
`build_provider(spec, env=..., scripts=..., record_to=..., **options)` and
`router_from_specs([...], default=..., max_calls=...)` build the objects.

Secrets
-------
API keys are held in `Secret` (masked in repr/str) and sent only in request
headers.  `redact(text, secrets)` scrubs known values and credential-shaped
tokens; `redact_headers` and `safe_url` mask headers and URL user-info.
"""
from .base import (LIMIT_BINDINGS, TOKEN_COUNTS, TRUNCATED, Provider, check_response, check_tokens,
                   is_truncated, json_project, make_tokens, output_limit, parse_tool_args)
from .errors import (PROVIDER_REASONS, RETRYABLE_REASONS, ROUTER_REASONS, LlmRequestError, ProviderError,
                     RouterError)
from .http import HttpProvider, classify_status
from .openai import OpenAIChat
from .anthropic import AnthropicMessages
from .redact import Secret, redact, redact_headers, safe_url
from .replay import (RecordingProvider, ReplayLoadError, ReplayProvider, canonical_json, load_fixtures,
                     request_hash)
from .router import ALIAS_RE, ModelRouter, check_alias
from .scripted import ScriptedProvider
from .windows import (CHARS_PER_TOKEN, CONTEXT_WINDOWS, OUTPUT_SHARE, DeclaredWindow, check_context_window,
                      declared_window, known_context_window, window_chars)
from .spec import (PROVIDER_FAMILIES, ModelSpec, ModelSpecError, build_provider, parse_alias_spec,
                   parse_model_spec, router_from_specs)

__all__ = [
    "Provider", "ProviderError", "RouterError", "LlmRequestError", "PROVIDER_REASONS", "RETRYABLE_REASONS",
    "ROUTER_REASONS", "OpenAIChat", "AnthropicMessages", "HttpProvider", "classify_status",
    "ReplayProvider", "RecordingProvider", "ReplayLoadError", "load_fixtures", "request_hash", "canonical_json",
    "ScriptedProvider", "ModelRouter", "check_alias", "ALIAS_RE",
    "ModelSpec", "ModelSpecError", "PROVIDER_FAMILIES", "parse_model_spec", "parse_alias_spec",
    "build_provider", "router_from_specs",
    "Secret", "redact", "redact_headers", "safe_url",
    "check_response", "check_tokens", "json_project", "make_tokens", "parse_tool_args", "output_limit",
    "is_truncated", "TOKEN_COUNTS", "TRUNCATED", "LIMIT_BINDINGS",
    "CHARS_PER_TOKEN", "CONTEXT_WINDOWS", "OUTPUT_SHARE", "DeclaredWindow", "check_context_window",
    "declared_window", "known_context_window", "window_chars",
]
