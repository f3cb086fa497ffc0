"""Typed failures of an `llm/request` call.

Owns the closed vocabulary of provider failure reasons (docs/spec/agent-library.md
§4.4), `ProviderError` (what a provider raises), `RouterError` (alias and
quota refusals raised by the router before any provider is asked) and the
plain-dict error envelope both turn into.  Imports nothing from ptclisp.
"""
from __future__ import annotations

from typing import Any

#: Reasons a provider failure may carry.  Nothing else is accepted.
PROVIDER_REASONS = frozenset({
    "timeout", "unavailable", "rate_limited", "transport_error",            # worth retrying
    "authentication_failed", "payment_required", "denied", "not_found",     # permanent
    "invalid_request", "tool_calling_unsupported", "internal", "domain_error", "invalid_result",
})

#: The subset that is retryable unless the raiser says otherwise.
RETRYABLE_REASONS = frozenset({"timeout", "unavailable", "rate_limited", "transport_error"})

#: Router refusals (kind -> reasons).
ROUTER_REASONS = {
    "protocol_error": frozenset({"unknown_model_alias", "invalid_model_alias", "model_alias_required"}),
    "limit_exceeded": frozenset({"capability_quota"}),
}

MAX_DETAILS_CHARS = 1024


def _bounded(details: Any) -> Any:
    if isinstance(details, str) and len(details) > MAX_DETAILS_CHARS:
        return details[: MAX_DETAILS_CHARS - 1] + "…"
    return details


class LlmRequestError(Exception):
    """Base of every typed `llm/request` failure: `kind`, `reason`, `details`, `retryable`, `model`."""

    kind: str = "provider_error"

    def __init__(self, reason: str, details: Any = None, retryable: bool = False, model: str | None = None):
        self.reason = reason
        self.details = _bounded(details)
        self.retryable = bool(retryable)
        self.model = model
        super().__init__(self._text())

    def _text(self) -> str:
        if isinstance(self.details, str) and self.details:
            return f"{self.kind}/{self.reason}: {self.details}"
        return f"{self.kind}/{self.reason}"

    def with_model(self, alias: str | None) -> "LlmRequestError":
        """Remember the alias the failed request was routed to (kept if already set)."""
        if self.model is None:
            self.model = alias
        return self

    def envelope(self) -> dict:
        """The error as a plain dict (`status`, `kind`, `reason`, `details`, `retryable?`, `model`).

        The host turns the keys, and the values of `status`/`kind`/`reason`,
        into keywords before Lisp sees them; `details` stays data.
        """
        env = {"status": "error", "kind": self.kind, "reason": self.reason,
               "details": self.details, "retryable?": self.retryable}
        if self.model is not None:
            env["model"] = self.model
        return env

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.reason!r}, {self.details!r}, retryable={self.retryable})"


class ProviderError(LlmRequestError):
    """A provider could not produce a response.

    `reason` must be one of PROVIDER_REASONS; `retryable` defaults from the
    reason.  `details` is short safe prose (never headers, bodies or
    credentials) capped at 1024 characters.  `request_hash` is set on replay
    misses so the host can tell the user which fixture is missing.
    """

    kind = "provider_error"

    def __init__(self, reason: str, details: str | None = None, retryable: bool | None = None,
                 *, model: str | None = None, request_hash: str | None = None,
                 retry_after_s: float | None = None):
        if reason not in PROVIDER_REASONS:
            raise ValueError(f"unknown provider error reason {reason!r}")
        if retryable is None:
            retryable = reason in RETRYABLE_REASONS
        self.request_hash = request_hash
        self.retry_after_s = retry_after_s
        super().__init__(reason, details, retryable, model)


class RouterError(LlmRequestError):
    """The router refused the request before reaching a provider (bad alias or exhausted quota)."""

    def __init__(self, kind: str, reason: str, details: Any = None, *, model: str | None = None):
        if reason not in ROUTER_REASONS.get(kind, ()):
            raise ValueError(f"unknown router error {kind}/{reason}")
        self.kind = kind
        super().__init__(reason, details, False, model)
