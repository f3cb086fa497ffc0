"""Context windows: how many tokens a model can take in one exchange, and what that means in characters.

Owns `CONTEXT_WINDOWS` (model name -> context window in tokens for a few
common models, from the vendors' published model specifications: OpenAI's
model pages and Anthropic's models overview; they change, so a declared
`context_window` always wins), `known_context_window(model)`,
`check_context_window(value)` (a declared window must be a positive
integer), `declared_window(provider)` (the window and output cap a provider
declares, looking through wrappers), `window_chars(window, max_tokens)` (the
conservative character estimate the agent host holds a request to) and
`DeclaredWindow`, a wrapper that declares a window for a provider that has
none of its own (a replay file serving a project's alias).  Imports
providers.base.

The estimate: the window minus the output reservation (the provider's
`max_tokens` when set, else OUTPUT_SHARE of the window), times
CHARS_PER_TOKEN.  Three characters per token is below what common
tokenizers average on English prose and JSON (about four), so a request
inside the estimate fits the window with room to spare.
"""
from __future__ import annotations

import re

from .base import close_provider, wrapped_description

#: Characters of request JSON counted per token of the window (conservative: tokenizers average about 4).
CHARS_PER_TOKEN = 3
#: The share of the window kept for the answer when the provider sets no `max_tokens`.
OUTPUT_SHARE = 0.25
#: A ceiling on declared windows, to catch a typo (an extra digit or three) rather than a real model.
MAX_CONTEXT_WINDOW = 100_000_000

#: Context windows (tokens) of common models, from the vendors' published model specs.
CONTEXT_WINDOWS: dict[str, int] = {
    # OpenAI (platform.openai.com model pages)
    "gpt-4o": 128_000,
    "gpt-4o-mini": 128_000,
    "gpt-4.1": 1_047_576,
    "gpt-4.1-mini": 1_047_576,
    "gpt-4.1-nano": 1_047_576,
    "gpt-5": 400_000,
    "gpt-5-mini": 400_000,
    "gpt-5-nano": 400_000,
    "o3": 200_000,
    "o3-mini": 200_000,
    "o4-mini": 200_000,
    # Anthropic (docs.anthropic.com models overview; the standard window, not the 1M beta)
    "claude-opus-4-5": 200_000,
    "claude-opus-4-1": 200_000,
    "claude-opus-4": 200_000,
    "claude-sonnet-4-5": 200_000,
    "claude-sonnet-4": 200_000,
    "claude-3-7-sonnet": 200_000,
    "claude-haiku-4-5": 200_000,
    "claude-3-5-haiku": 200_000,
}

# the table's keys: lower case, no provider prefix, no date or `latest` suffix (the rule of the price table)
_DATED = re.compile(r"-(\d{4}-\d{2}-\d{2}|\d{8}|latest)$")
_PREFIX = re.compile(r"^(openai|anthropic)[/:]")


def known_context_window(model) -> int | None:
    """The table's window for `model` (dated snapshots and `-latest` count as the model), else None."""
    if not isinstance(model, str):
        return None
    return CONTEXT_WINDOWS.get(_DATED.sub("", _PREFIX.sub("", model.strip().lower())))


def check_context_window(value, what: str = "context_window") -> int | None:
    """`value` when it is None or a positive integer (tokens) up to MAX_CONTEXT_WINDOW, else ValueError."""
    if value is None:
        return None
    if type(value) is not int or not 1 <= value <= MAX_CONTEXT_WINDOW:
        raise ValueError(f"{what} must be a positive integer number of tokens (at most {MAX_CONTEXT_WINDOW}), "
                         f"got {value!r}")
    return value


def _int_attr(p, name: str) -> int | None:
    v = getattr(p, name, None)
    return v if type(v) is int and v > 0 else None


def declared_window(provider) -> tuple[int | None, int | None]:
    """(context window, max_tokens) of `provider`: the first of each found on it or on the providers it
    wraps (anything with an `inner`, at most 8 deep); None where nothing declares one."""
    window = out = None
    p, depth = provider, 0
    while p is not None and depth < 9:
        window = window if window is not None else _int_attr(p, "context_window")
        out = out if out is not None else _int_attr(p, "max_tokens")
        p, depth = getattr(p, "inner", None), depth + 1
    return window, out


def output_reserve(window: int, max_tokens: int | None) -> int:
    """Tokens kept for the answer: `max_tokens` when set, else OUTPUT_SHARE of the window."""
    return max_tokens if max_tokens is not None else int(window * OUTPUT_SHARE)


def window_chars(window: int, max_tokens: int | None = None) -> int:
    """The characters of request JSON a model with this window (and output cap) is held to (0 when the
    reservation takes the whole window)."""
    return max(0, window - output_reserve(window, max_tokens)) * CHARS_PER_TOKEN


class DeclaredWindow:
    """`inner` with a declared context window (and output cap, for the reservation); calls pass through."""

    def __init__(self, inner, context_window: int | None, max_tokens: int | None = None):
        self.inner = inner
        self.kind = getattr(inner, "kind", "provider")
        self.context_window = check_context_window(context_window)
        self.max_tokens = max_tokens

    def complete(self, request: dict) -> dict:
        return self.inner.complete(request)

    def describe(self) -> dict:
        return wrapped_description(self.inner, self.kind, context_window=self.context_window)

    def close(self) -> None:
        close_provider(self.inner)

    def __repr__(self) -> str:
        return f"DeclaredWindow({self.inner!r}, context_window={self.context_window})"
