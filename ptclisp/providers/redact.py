"""Keeping credentials out of logs, traces, reprs and error messages.

Owns `Secret` (a string wrapper whose repr/str never show the value),
`redact` (scrub known secret values and credential-looking tokens from
text), `redact_headers` (mask credential headers in a mapping) and
`safe_url` (drop user-info, query and fragment from an endpoint URL).
Imports nothing from ptclisp.
"""
from __future__ import annotations

import re
from typing import Iterable, Mapping
from urllib.parse import urlsplit, urlunsplit

MASK = "[REDACTED]"

#: Header / field names whose values are always masked (compared case-insensitively).
SENSITIVE_NAMES = frozenset({
    "authorization", "proxy-authorization", "x-api-key", "api-key", "api_key", "apikey",
    "x-goog-api-key", "cookie", "set-cookie", "openai_api_key", "anthropic_api_key",
})

# Credential-shaped tokens that are scrubbed even when the exact value is unknown.
_PATTERNS = [
    re.compile(r"(?i)\b(bearer|basic)\s+[A-Za-z0-9._~+/=-]{6,}"),
    re.compile(r"\bsk-[A-Za-z0-9_-]{8,}"),
    re.compile(r"(?i)\b(x-api-key|api[_-]?key|authorization|access[_-]?token|token)\b(\s*[:=]\s*)[\"']?[^\s\"',;&]{4,}"),
]


class Secret:
    """A credential: `reveal()` gives the value, every other view shows a mask."""

    __slots__ = ("_value",)

    def __init__(self, value: str):
        self._value = value

    def reveal(self) -> str:
        return self._value

    def __bool__(self) -> bool:
        return bool(self._value)

    def __repr__(self) -> str:
        return "Secret('***')"

    __str__ = __repr__

    def __eq__(self, other) -> bool:
        return isinstance(other, Secret) and other._value == self._value

    def __hash__(self) -> int:
        return hash(("Secret", self._value))

    def __reduce__(self):
        raise TypeError("a Secret cannot be pickled")


def _secret_values(secrets: Iterable) -> list[str]:
    out = []
    for s in secrets or ():
        v = s.reveal() if isinstance(s, Secret) else s
        if isinstance(v, str) and len(v) >= 4:   # masking 1-3 chars would shred ordinary text
            out.append(v)
    return sorted(set(out), key=len, reverse=True)


def redact(text: str, secrets: Iterable = ()) -> str:
    """Return `text` with every given secret value and every credential-looking token masked."""
    if not isinstance(text, str):
        text = str(text)
    for value in _secret_values(secrets):
        text = text.replace(value, MASK)
    text = _PATTERNS[0].sub(lambda m: f"{m.group(1)} {MASK}", text)
    text = _PATTERNS[1].sub(MASK, text)
    text = _PATTERNS[2].sub(lambda m: f"{m.group(1)}{m.group(2)}{MASK}", text)
    return text


def redact_headers(headers: Mapping) -> dict:
    """Copy of `headers` with the values of credential headers replaced by the mask."""
    return {k: (MASK if str(k).lower() in SENSITIVE_NAMES else v) for k, v in headers.items()}


def safe_url(url: str) -> str:
    """`url` without user-info, query string or fragment (these may carry credentials)."""
    try:
        parts = urlsplit(url)
        host = parts.hostname or ""
        port = parts.port
    except ValueError:
        return "<invalid url>"
    if ":" in host:
        host = f"[{host}]"
    if port is not None:
        host = f"{host}:{port}"
    return urlunsplit((parts.scheme, host, parts.path, "", ""))
