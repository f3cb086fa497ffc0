"""HTTP plumbing shared by the OpenAI-compatible and Anthropic adapters.

Owns `HttpProvider` (an httpx client with timeouts, a bounded response
read and one POST-JSON method), `classify_status` (HTTP status -> closed
provider reason) and `env_setting` (SDK-style configuration from the
environment).  Error details name the status, the endpoint without
credentials and at most a short error code from the body; bodies, headers
and keys are never kept.  Imports providers.errors, providers.redact, providers.windows.
"""
from __future__ import annotations

import json
import os
import random
import re
import time
from typing import Mapping
from urllib.parse import urlsplit

import httpx

from .errors import ProviderError
from .redact import Secret, redact, safe_url
from .windows import check_context_window, known_context_window
from ..errors import logger

log = logger("ptclisp.providers")

DEFAULT_TIMEOUT_S = 120.0
DEFAULT_CONNECT_TIMEOUT_S = 10.0
DEFAULT_MAX_RESPONSE_BYTES = 8_000_000
MAX_BACKOFF_S = 30.0
_ERROR_PEEK_BYTES = 65_536
_SAFE_CODE = re.compile(r"^[A-Za-z0-9_.:-]{1,64}$")
_TOOLS_UNSUPPORTED = re.compile(
    r"(?i)(tool|function)[ _-]?(call(ing|s)?|use)?[^.]{0,60}?(not supported|unsupported|not enabled|does not support)"
    r"|(does not support|doesn't support|not support)[^.]{0,30}?(tool|function)")


def env_setting(env: Mapping[str, str] | None, name: str) -> str | None:
    """Value of environment variable `name` (None when unset or blank)."""
    env = os.environ if env is None else env
    value = env.get(name)
    if value is None or not value.strip():
        return None
    return value.strip()


def classify_status(status: int, body: bytes = b"", headers: Mapping[str, str] | None = None,
                    label: str = "provider") -> ProviderError:
    """Turn a non-success HTTP answer into a `ProviderError` with a closed reason."""
    code = _error_code(body)
    if status == 401:
        reason = "authentication_failed"
    elif status == 402:
        reason = "payment_required"
    elif status == 403:
        reason = "denied"
    elif status == 404:
        reason = "not_found"
    elif status in (408, 504):
        reason = "timeout"
    elif status == 429:
        reason = "rate_limited"
    elif status in (400, 413, 422):
        text = body[:_ERROR_PEEK_BYTES].decode("utf-8", "replace")
        reason = "tool_calling_unsupported" if _TOOLS_UNSUPPORTED.search(text) else "invalid_request"
    elif 400 <= status < 500:
        reason = "invalid_request"
    else:                                  # 5xx (incl. Anthropic's 529 "overloaded") and anything unexpected
        reason = "unavailable"
    details = f"{label} answered HTTP {status}"
    if code:
        details += f" ({code})"
    retry_after = _retry_after(headers or {})
    if retry_after is not None and reason in ("rate_limited", "unavailable"):
        details += f"; retry after {retry_after:g}s"
    return ProviderError(reason, details, retry_after_s=retry_after)


def _error_code(body: bytes) -> str | None:
    """A short machine code (`error.type` / `error.code` / `type`) from an error body, if it looks safe."""
    try:
        data = json.loads(body[:_ERROR_PEEK_BYTES].decode("utf-8"))
    except (ValueError, UnicodeDecodeError):
        return None
    if not isinstance(data, dict):
        return None
    err = data.get("error")
    candidates = []
    if isinstance(err, dict):
        candidates += [err.get("type"), err.get("code")]
    elif isinstance(err, str):
        candidates.append(err)
    candidates.append(data.get("type") if data.get("type") != "error" else None)
    for c in candidates:
        if isinstance(c, str) and _SAFE_CODE.match(c):
            return c
    return None


def _retry_after(headers: Mapping[str, str]) -> float | None:
    for name in ("retry-after", "Retry-After"):
        value = headers.get(name)
        if value is not None:
            try:
                secs = float(value)
            except ValueError:
                return None
            return secs if 0 <= secs < 86_400 else None
    return None


def _host(url: str) -> str:
    """The host (and port) of `url`, without user info: what an error may name."""
    try:
        parts = urlsplit(url)
        host = parts.hostname or "?"
        return f"{host}:{parts.port}" if parts.port else host
    except ValueError:
        return "?"


class HttpProvider:
    """Base of the HTTP adapters: one httpx client, JSON in, JSON object out, typed failures.

    Subclasses set `kind`/`label` and `endpoint` (the path `complete` posts to) and implement
    `_auth_headers()`, `build_body(request)` and `parse_response(data)`; `complete` is the one
    call. `timeout_s` bounds one exchange, `connect_timeout_s` the connection; `max_response_bytes` the body.
    `max_retries` (default 0) re-sends a request after a *retryable*
    failure, waiting `Retry-After` or `backoff_s * 2**attempt` scaled by a
    random jitter factor in [0.5, 1] (at most MAX_BACKOFF_S); a successful
    answer, truncated or not, is never re-sent. `deadline` (a
    `time.monotonic()` value) bounds all of it: no attempt starts, and no
    wait lasts, past it, and each attempt's timeout shrinks to what is left.
    `context_window` (tokens; None: the window of ptclisp.providers.windows'
    table for a model it knows) is what the agent host holds requests to.
    """

    kind = "http"
    label = "HTTP provider"

    def __init__(self, *, model: str, base_url: str, api_key: str | Secret | None,
                 timeout_s: float = DEFAULT_TIMEOUT_S, connect_timeout_s: float = DEFAULT_CONNECT_TIMEOUT_S,
                 max_response_bytes: int = DEFAULT_MAX_RESPONSE_BYTES, max_retries: int = 0,
                 backoff_s: float = 1.0, sleep=time.sleep, http_client: httpx.Client | None = None,
                 deadline: float | None = None, context_window: int | None = None):
        if not isinstance(model, str) or not model:
            raise ValueError(f"{self.label}: model must be a non-empty string")
        if not re.match(r"^https?://", base_url or ""):
            raise ValueError(f"{self.label}: base URL must start with http:// or https:// "
                             f"(got {safe_url(base_url or '')!r})")
        self.model = model
        self.context_window = (check_context_window(context_window) if context_window is not None
                               else known_context_window(model))
        self.base_url = base_url.rstrip("/")
        self._api_key = api_key if isinstance(api_key, Secret) or api_key is None else Secret(api_key)
        self.timeout_s = float(timeout_s)
        self.max_response_bytes = int(max_response_bytes)
        self.max_retries = int(max_retries)
        self.backoff_s = float(backoff_s)
        self.deadline = deadline
        self._sleep = sleep
        timeout = httpx.Timeout(self.timeout_s, connect=min(float(connect_timeout_s), self.timeout_s))
        self._client = http_client or httpx.Client(timeout=timeout, follow_redirects=False)
        self._owns_client = http_client is None

    # -- public -------------------------------------------------------------------------------
    def describe(self) -> dict:
        """A safe snapshot for traces: family, model and endpoint (never the key)."""
        out = {"kind": self.kind, "model": self.model, "endpoint": safe_url(self.base_url)}
        if self.context_window is not None:
            out["context_window"] = self.context_window
        return out

    def close(self) -> None:
        if self._owns_client:
            self._client.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def __repr__(self) -> str:
        return f"{type(self).__name__}(model={self.model!r}, base_url={safe_url(self.base_url)!r})"

    @classmethod
    def endpoint_settings(cls, env: Mapping[str, str] | None, base_url: str | None,
                          api_key: str | Secret | None, default_base_url: str) -> dict:
        """`base_url` and `api_key` as given, else read from `env` (the process environment when
        None) under the subclass's `BASE_URL_ENV` and `API_KEY_ENV`; the URL last `default_base_url`."""
        return {"base_url": base_url or env_setting(env, cls.BASE_URL_ENV) or default_base_url,
                "api_key": api_key if api_key is not None else env_setting(env, cls.API_KEY_ENV)}

    def complete(self, request: dict) -> dict:
        """One model call: the neutral `request` as this API's body, posted to `endpoint`, and the
        answer read back as a neutral response."""
        if not isinstance(request, dict):
            raise ProviderError("invalid_request", "request is not an object")
        return self.parse_response(self._post_json(self.endpoint, self.build_body(request)))

    # -- for subclasses -----------------------------------------------------------------------
    endpoint = ""

    def _headers(self) -> dict:
        """The request headers: this API's authentication, and JSON both ways."""
        return {**self._auth_headers(), "Content-Type": "application/json", "Accept": "application/json"}

    def _auth_headers(self) -> dict:
        raise NotImplementedError

    def build_body(self, request: dict) -> dict:
        """This API's JSON body for a neutral request (a dict)."""
        raise NotImplementedError

    def parse_response(self, data: dict) -> dict:
        raise NotImplementedError

    def _with_options(self, body: dict) -> dict:
        """`body` with what each adapter passes through as given (its own attributes): `temperature`
        when set, and `extra_body`, merged last."""
        if self.temperature is not None:
            body["temperature"] = self.temperature
        body.update(self.extra_body)
        return body

    def _require_key(self, env_name: str) -> str:
        if not self._api_key:
            raise ProviderError("authentication_failed", f"{self.label}: no API key configured (set {env_name})")
        return self._api_key.reveal()

    def _safe(self, text: str) -> str:
        return redact(text, [self._api_key] if self._api_key else ())

    def _post_json(self, path: str, body: dict) -> dict:
        """POST `body` to base_url + path; the decoded JSON object of a 2xx answer, else ProviderError."""
        attempt = 0
        while True:
            try:
                return self._post_once(path, body)
            except ProviderError as e:
                if not e.retryable or attempt >= self.max_retries:
                    raise
                if e.retry_after_s is not None:
                    wait = e.retry_after_s
                else:
                    wait = self.backoff_s * 2 ** attempt * random.uniform(0.5, 1.0)
                wait = min(wait, MAX_BACKOFF_S)
                left = self._time_left()
                if left is not None and wait >= left:
                    raise                         # the run's deadline comes first: no retry can finish
                log.debug("%s: %s, retrying (attempt %d)", self.kind, e.reason, attempt + 1)
                self._sleep(wait)
                attempt += 1

    def _time_left(self) -> float | None:
        return None if self.deadline is None else self.deadline - time.monotonic()

    def _post_once(self, path: str, body: dict) -> dict:
        url = self.base_url + path
        endpoint = safe_url(url)
        headers = self._headers()
        payload = json.dumps(body, ensure_ascii=False).encode("utf-8")
        started = time.monotonic()
        limit = self.timeout_s
        left = self._time_left()
        if left is not None:
            if left <= 0:
                raise ProviderError("timeout", f"the run's deadline passed before {self.label} at "
                                               f"{_host(url)} was called", retryable=False)
            limit = min(limit, left)
        try:
            with self._client.stream("POST", url, headers=headers, content=payload,
                                     timeout=httpx.Timeout(limit, connect=min(limit, 10.0))
                                     if limit < self.timeout_s else httpx.USE_CLIENT_DEFAULT) as resp:
                status = resp.status_code
                if not 200 <= status < 300:
                    peek = self._read(resp, _ERROR_PEEK_BYTES, started, truncate=True)
                    err = classify_status(status, peek, resp.headers, f"{self.label} at {_host(url)}")
                    raise ProviderError(err.reason, self._safe(err.details), err.retryable,
                                        retry_after_s=err.retry_after_s)
                raw = self._read(resp, self.max_response_bytes, started)
        except httpx.TimeoutException:
            raise ProviderError("timeout", f"{self.label} at {endpoint} did not answer within "
                                           f"{limit:g}s") from None
        except httpx.HTTPError as e:
            raise ProviderError("transport_error", f"could not reach {self.label} at {endpoint} "
                                                   f"({type(e).__name__})") from None
        finally:
            log.debug("%s POST %s in %.0f ms", self.kind, endpoint, (time.monotonic() - started) * 1000)
        try:
            data = json.loads(raw.decode("utf-8"))
        except (ValueError, UnicodeDecodeError):
            raise ProviderError("invalid_result", f"{self.label} answered with a body that is not JSON") from None
        if not isinstance(data, dict):
            raise ProviderError("invalid_result", f"{self.label} answered with JSON that is not an object")
        return data

    def _read(self, resp: httpx.Response, cap: int, started: float, truncate: bool = False) -> bytes:
        chunks, total = [], 0
        for chunk in resp.iter_bytes():
            total += len(chunk)
            if total > cap:
                if truncate:
                    chunks.append(chunk[: cap - (total - len(chunk))])
                    break
                raise ProviderError("invalid_result", f"{self.label} answer exceeds {cap} bytes")
            chunks.append(chunk)
            if time.monotonic() - started > self.timeout_s or (self.deadline is not None
                                                                 and time.monotonic() > self.deadline):
                raise httpx.ReadTimeout("overall deadline")
        return b"".join(chunks)
