"""Model spec strings: `PROVIDER:MODEL[@BASE_URL]` and `ALIAS=PROVIDER:MODEL`.

Owns `ModelSpec`, `parse_model_spec`, `parse_alias_spec`, `build_provider`
(spec -> provider object) and `router_from_specs` (a list of alias specs ->
`ModelRouter`).  Provider families: `openai`, `anthropic`, `replay` (MODEL
is the fixture path), `scripted` (MODEL names an entry of the `scripts`
mapping given to `build_provider`).  Imports the provider modules.
"""
from __future__ import annotations

import re
from typing import Any, Callable, Iterable, Mapping

import attrs

from .anthropic import AnthropicMessages
from .openai import OpenAIChat
from .redact import safe_url
from .replay import RecordingProvider, ReplayProvider
from .router import ModelRouter, check_alias
from .scripted import ScriptedProvider

PROVIDER_FAMILIES = ("openai", "anthropic", "replay", "scripted")
#: The environment variable each HTTP provider family reads its API key from.
KEY_ENV = {"openai": OpenAIChat.API_KEY_ENV, "anthropic": AnthropicMessages.API_KEY_ENV}
_BASE_URL_SUFFIX = re.compile(r"@(https?://\S+)$")


class ModelSpecError(ValueError):
    """A model spec string is malformed (the message says which part)."""


@attrs.frozen
class ModelSpec:
    """A parsed `PROVIDER:MODEL`: the family, the model name (or fixture path / script name), an optional base URL."""

    provider: str
    model: str
    base_url: str | None = None

    def __str__(self) -> str:
        suffix = f"@{safe_url(self.base_url)}" if self.base_url else ""
        return f"{self.provider}:{self.model}{suffix}"


def parse_model_spec(spec: str, *, base_url: str | None = None) -> ModelSpec:
    """Parse `"openai:gpt-4o-mini"`, `"openai:smollm2@http://127.0.0.1:8765/v1"`, `"replay:fixtures.jsonl"`.

    The base URL may be given as an `@http(s)://...` suffix (HTTP families
    only) or with the `base_url` keyword, which wins.
    """
    if not isinstance(spec, str):
        raise ModelSpecError("a model spec must be a string like 'openai:gpt-4o-mini'")
    provider, sep, rest = spec.strip().partition(":")
    if not sep:
        raise ModelSpecError(f"model spec {spec!r} has no provider prefix; "
                             f"write PROVIDER:MODEL with PROVIDER in {', '.join(PROVIDER_FAMILIES)}")
    if provider not in PROVIDER_FAMILIES:
        raise ModelSpecError(f"unknown provider {provider!r}; expected one of {', '.join(PROVIDER_FAMILIES)}")
    inline_url = None
    if provider in ("openai", "anthropic"):
        m = _BASE_URL_SUFFIX.search(rest)
        if m:
            inline_url, rest = m.group(1), rest[: m.start()]
    if not rest:
        raise ModelSpecError(f"model spec for {provider!r} has an empty model name")
    if provider in ("openai", "anthropic") and "://" in rest:
        raise ModelSpecError("a base URL suffix must be '@http://...' or '@https://...'")
    url = base_url or inline_url
    if url is not None:
        if provider not in ("openai", "anthropic"):
            raise ModelSpecError(f"a base URL only applies to openai/anthropic, not {provider!r}")
        if not re.match(r"^https?://[^\s/]+", url):
            raise ModelSpecError("base URL must start with http:// or https:// and name a host")
    return ModelSpec(provider, rest, url)


def parse_alias_spec(text: str) -> tuple[str, ModelSpec]:
    """Parse `"fast=openai:gpt-4o-mini"` into `("fast", ModelSpec(...))`."""
    alias, sep, spec = text.partition("=")
    if not sep:
        raise ModelSpecError(f"{text!r} is not ALIAS=PROVIDER:MODEL")
    try:
        check_alias(alias.strip())
    except ValueError as e:
        raise ModelSpecError(str(e)) from None
    return alias.strip(), parse_model_spec(spec)


def build_provider(spec: ModelSpec | str, *, env: Mapping[str, str] | None = None,
                   scripts: Mapping[str, Iterable | Callable] | None = None,
                   record_to: str | None = None, **options: Any):
    """The provider object a spec describes.

    `env` replaces `os.environ` for credentials and base URLs; `scripts`
    supplies `scripted:NAME` answers; `record_to` wraps the provider in a
    `RecordingProvider` writing that fixture file; other keyword options go
    to the adapter (max_tokens, timeout_s, tool_choice, context_window, ...;
    a scripted provider takes only context_window).
    """
    if isinstance(spec, str):
        spec = parse_model_spec(spec)
    if spec.provider == "openai":
        provider = OpenAIChat(spec.model, base_url=spec.base_url, env=env, **options)
    elif spec.provider == "anthropic":
        provider = AnthropicMessages(spec.model, base_url=spec.base_url, env=env, **options)
    elif spec.provider == "replay":
        provider = ReplayProvider(spec.model, **options)
    else:
        if not scripts or spec.model not in scripts:
            raise ModelSpecError(f"no script named {spec.model!r} was supplied for scripted:{spec.model}")
        provider = ScriptedProvider(scripts[spec.model], context_window=options.get("context_window"))
    if record_to is not None:
        provider = RecordingProvider(provider, record_to)
    return provider


def router_from_specs(specs: Iterable[str], *, default: str | None = None,
                      max_calls: Mapping[str, int] | None = None, env: Mapping[str, str] | None = None,
                      scripts: Mapping[str, Any] | None = None, provider_options: Mapping[str, dict] | None = None,
                      **router_options: Any) -> ModelRouter:
    """A `ModelRouter` from `["fast=openai:gpt-4o-mini", "claude=anthropic:claude-sonnet-4-5", ...]`.

    `provider_options` maps alias -> keyword options for that alias's adapter.
    """
    aliases: dict = {}
    for text in specs:
        alias, spec = parse_alias_spec(text)
        if alias in aliases:
            raise ModelSpecError(f"alias {alias!r} is defined twice")
        aliases[alias] = build_provider(spec, env=env, scripts=scripts,
                                        **dict((provider_options or {}).get(alias, {})))
    return ModelRouter(aliases, default=default, max_calls=max_calls, **router_options)
