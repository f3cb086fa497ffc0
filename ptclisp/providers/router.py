"""The model router behind `tool/llm-request` (docs/spec/agent-library.md §4.3).

Owns `ModelRouter`: resolves the request's `model` alias (omitted -> the
sole or default alias), strips it before the provider sees the request,
enforces per-alias `max_calls` and a global call budget, bounds request and
response sizes, turns every failure into a typed error carrying the alias,
stamps `"model": alias` on every success, and keeps per-alias usage.
Imports providers.base, providers.errors.
"""
from __future__ import annotations

import re
import threading
import time
from typing import Any, Callable, Mapping

from .base import TOKEN_COUNTS, check_response, encoded_size
from .errors import LlmRequestError, ProviderError, RouterError
from ..errors import logger

log = logger("ptclisp.providers")

ALIAS_RE = re.compile(r"^[a-z][a-z0-9._-]{0,127}$")
DEFAULT_MAX_TOTAL_CALLS = 256
DEFAULT_MAX_REQUEST_BYTES = 1_000_000
DEFAULT_MAX_RESPONSE_BYTES = 1_000_000
_MISSING = object()


def check_alias(alias: Any) -> str:
    """`alias` if it is a valid alias name, else ValueError."""
    if not isinstance(alias, str) or not ALIAS_RE.match(alias):
        raise ValueError(f"invalid model alias {alias!r}: use [a-z][a-z0-9._-]{{0,127}}")
    return alias


class ModelRouter:
    """Routes provider-neutral requests to named providers.

    `aliases` maps alias -> provider; `default` names the alias used when a
    request has no `model` (not needed with a single alias); `max_calls`
    maps alias -> maximum provider calls; `max_total_calls` caps calls over
    all aliases (None = no cap).  `on_event(dict)` receives one safe record
    per routed call (alias, provider kind, status, reason, duration,
    tokens, finish reason) - never request or response bodies.
    """

    def __init__(self, aliases: Mapping[str, Any], *, default: str | None = None,
                 max_calls: Mapping[str, int] | None = None,
                 max_total_calls: int | None = DEFAULT_MAX_TOTAL_CALLS,
                 max_request_bytes: int = DEFAULT_MAX_REQUEST_BYTES,
                 max_response_bytes: int = DEFAULT_MAX_RESPONSE_BYTES,
                 on_event: Callable[[dict], None] | None = None):
        if not aliases:
            raise ValueError("a model router needs at least one alias")
        for alias, provider in aliases.items():
            check_alias(alias)
            if not callable(getattr(provider, "complete", None)):
                raise ValueError(f"alias {alias!r}: provider has no complete(request) method")
        self._providers = dict(aliases)
        if default is not None and default not in self._providers:
            raise ValueError(f"default alias {default!r} is not configured")
        self.default = default
        self.max_calls = dict(max_calls or {})
        for alias, n in self.max_calls.items():
            if alias not in self._providers:
                raise ValueError(f"max_calls names unknown alias {alias!r}")
            if isinstance(n, bool) or not isinstance(n, int) or n < 1:
                raise ValueError(f"max_calls for {alias!r} must be a positive integer")
        self.max_total_calls = max_total_calls
        self.max_request_bytes = max_request_bytes
        self.max_response_bytes = max_response_bytes
        self.on_event = on_event
        self._lock = threading.Lock()
        self._calls = {a: 0 for a in self._providers}
        self._errors = {a: 0 for a in self._providers}
        self._tokens = {a: {} for a in self._providers}

    # -- lookup -------------------------------------------------------------------------------
    @property
    def aliases(self) -> list[str]:
        return sorted(self._providers)

    def provider(self, alias: str):
        return self._providers[alias]

    def resolve(self, model: Any = _MISSING) -> str:
        """The alias a request's `model` value selects (pass nothing when the key is absent)."""
        if model is _MISSING:
            if len(self._providers) == 1:
                return next(iter(self._providers))
            if self.default is not None:
                return self.default
            raise RouterError("protocol_error", "model_alias_required",
                              "the request names no model alias and no default is configured; "
                              f"configured aliases: {', '.join(self.aliases)}")
        if not isinstance(model, str) or not ALIAS_RE.match(model):
            raise RouterError("protocol_error", "invalid_model_alias",
                              "the request's model must be an alias string matching [a-z][a-z0-9._-]*")
        if model not in self._providers:
            raise RouterError("protocol_error", "unknown_model_alias",
                              f"unknown model alias {model!r}; configured aliases: {', '.join(self.aliases)}")
        return model

    # -- calls --------------------------------------------------------------------------------
    def request(self, request: Any) -> dict:
        """Route one request; never raises for expected failures.

        Returns `{"status": "ok", "value": response}` or the error envelope
        of `LlmRequestError.envelope()` (plain strings; the host keywordises
        `status`, `kind`, `reason` and the envelope keys).
        """
        try:
            return {"status": "ok", "value": self.complete(request)}
        except LlmRequestError as e:
            return e.envelope()

    def complete(self, request: Any) -> dict:
        """Route one request; the stamped response, or raise `ProviderError` / `RouterError`."""
        if not isinstance(request, dict):
            raise ProviderError("invalid_request", "an llm request must be a map")
        alias = self.resolve(request["model"]) if "model" in request else self.resolve()
        neutral = {k: v for k, v in request.items() if k != "model"}
        try:
            size = encoded_size(neutral)
        except (TypeError, ValueError):
            raise ProviderError("invalid_request", "the llm request is not JSON data", model=alias) from None
        if size > self.max_request_bytes:
            raise ProviderError("invalid_request", f"the llm request is {size} bytes; "
                                                   f"the limit is {self.max_request_bytes}", model=alias)
        self._admit(alias)
        provider = self._providers[alias]
        started = time.monotonic()
        try:
            response = check_response(self._call(provider, neutral), self.max_response_bytes)
        except ProviderError as e:
            e.with_model(alias)
            self._finish(alias, provider, started, error=e)
            raise
        response["model"] = alias
        self._finish(alias, provider, started, response=response)
        return response

    def _call(self, provider, request: dict) -> Any:
        try:
            return provider.complete(request)
        except LlmRequestError:
            raise
        except Exception as e:   # an adapter bug or an unclassified failure: retryable, and no message text
            log.debug("provider %s raised %s", getattr(provider, "kind", "?"), type(e).__name__)
            raise ProviderError("unavailable", f"the provider failed unexpectedly ({type(e).__name__})",
                                retryable=True) from None

    def _admit(self, alias: str) -> None:
        with self._lock:
            total = sum(self._calls.values())
            if self.max_total_calls is not None and total >= self.max_total_calls:
                raise RouterError("limit_exceeded", "capability_quota",
                                  {"limit": "workflow_capability_calls", "name": "llm-request",
                                   "limit_value": self.max_total_calls}, model=alias)
            cap = self.max_calls.get(alias)
            if cap is not None and self._calls[alias] >= cap:
                raise RouterError("limit_exceeded", "capability_quota",
                                  {"limit": "max_calls", "alias": alias, "limit_value": cap}, model=alias)
            self._calls[alias] += 1

    def _finish(self, alias: str, provider, started: float, response: dict | None = None,
                error: LlmRequestError | None = None) -> None:
        event = {"type": "llm_request", "alias": alias, "provider": getattr(provider, "kind", "provider"),
                 "duration_ms": round((time.monotonic() - started) * 1000, 1)}
        with self._lock:
            if error is not None:
                self._errors[alias] += 1
                event.update(status="error", reason=error.reason, retryable=error.retryable)
            else:
                tokens = response.get("tokens") or {}
                acc = self._tokens[alias]
                for key in (*TOKEN_COUNTS, "total_cost"):
                    if key in tokens:
                        acc[key] = acc.get(key, 0) + tokens[key]
                event.update(status="ok", finish_reason=response.get("finish_reason"), tokens=dict(tokens))
        log.debug("llm request alias=%s status=%s", alias, event["status"])
        if self.on_event is not None:
            try:
                self.on_event(event)
            except Exception as e:   # a tracing hook must not change the call's outcome
                log.debug("on_event hook raised %s", type(e).__name__)

    # -- accounting ---------------------------------------------------------------------------
    def usage(self) -> dict:
        """Calls, failed calls and summed tokens per alias, plus the call total."""
        with self._lock:
            return {"total_calls": sum(self._calls.values()), "calls": dict(self._calls),
                    "errors": dict(self._errors), "tokens": {a: dict(t) for a, t in self._tokens.items()}}

    def close(self) -> None:
        """Close every provider that holds resources (HTTP clients)."""
        for provider in self._providers.values():
            close = getattr(provider, "close", None)
            if callable(close):
                close()

    def __repr__(self) -> str:
        return f"ModelRouter(aliases={self.aliases}, default={self.default!r})"
