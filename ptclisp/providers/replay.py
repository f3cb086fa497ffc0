"""Frozen model answers: the replay provider and the recorder that writes its files.

Owns the request hash (`canonical_json`, `request_hash`), the JSON Lines
fixture format of docs/spec/agent-library.md §4.5 (`load_fixtures`, `ReplayLoadError`),
`ReplayProvider` (answers from a fixture file; a miss is
`ProviderError(not_found)`) and `RecordingProvider` (wraps a live provider
and writes every successful answer into a fixture file).

Fixture line: `{"schema_version":1,"request_hash":"sha256:<hex>","response":{...}}`
or `"responses":[{...},...]` (served in order to identical repeated requests).
Imports providers.base, providers.errors, providers.windows.
"""
from __future__ import annotations

import copy
import hashlib
import json
import os
import re
import tempfile
import threading
from typing import Any, Iterable

from .base import check_response, close_provider, dumps, encoded_size, wrapped_description
from .errors import ProviderError
from .windows import check_context_window, declared_window

SCHEMA_VERSION = 1
#: Request keys left out of the hash: the router's alias is not part of the question.
VOLATILE_FIELDS = frozenset({"model"})
MAX_FILE_BYTES = 8_000_000
MAX_RESPONSE_BYTES = 1_000_000
MAX_SEQUENCE = 1024
_HASH = re.compile(r"^sha256:[0-9a-f]{64}$")
_ENTRY_KEYS = frozenset({"schema_version", "request_hash", "response", "responses"})

#: Load-failure rules and what they mean (the message never quotes the offending line).
LOAD_RULES = {
    "replay_file_unreadable": "the fixture file cannot be read",
    "replay_file_too_large": f"the fixture file exceeds {MAX_FILE_BYTES} bytes",
    "replay_file_empty": "the fixture file has no entries",
    "invalid_json": "the line is not valid JSON",
    "entry_not_an_object": "the entry is not a JSON object",
    "unknown_entry_key": "the entry has a key other than schema_version, request_hash, response(s)",
    "schema_version_invalid": f"schema_version must be {SCHEMA_VERSION}",
    "request_hash_invalid": "request_hash must be 'sha256:' followed by 64 lowercase hex digits",
    "response_missing": "the entry needs one of response / responses",
    "response_ambiguous": "the entry has both response and responses",
    "response_invalid": "response must be a JSON object",
    "responses_invalid": f"responses must be a list of 1..{MAX_SEQUENCE} JSON objects",
    "response_too_large": "a response exceeds the response size limit",
    "duplicate_entry": "request_hash already appeared on an earlier line",
}


def canonical_json(request: dict, drop: Iterable[str] = VOLATILE_FIELDS) -> str:
    """Deterministic JSON of `request` without the volatile top-level keys."""
    drop = frozenset(drop)
    return dumps({k: v for k, v in request.items() if k not in drop})


def request_hash(request: dict, drop: Iterable[str] = VOLATILE_FIELDS) -> str:
    """`"sha256:<hex>"` of the canonical JSON of a provider-neutral request."""
    return "sha256:" + hashlib.sha256(canonical_json(request, drop).encode("utf-8")).hexdigest()


def _hash_or_error(request: Any) -> str:
    try:
        return request_hash(request)
    except (TypeError, ValueError, AttributeError):
        raise ProviderError("invalid_request", "request could not be encoded as JSON for hashing") from None


class ReplayLoadError(ValueError):
    """A fixture file broke a format rule; `.rule` names it, `.line` is 1-based (blank lines counted)."""

    def __init__(self, rule: str, line: int | None = None):
        self.rule = rule
        self.line = line
        where = f"line {line}: " if line is not None else ""
        super().__init__(f"replay fixtures: {where}{rule} ({LOAD_RULES[rule]})")


def _strict_object(pairs):
    keys = [k for k, _ in pairs]
    if len(keys) != len(set(keys)):
        raise ValueError("duplicate key")
    return dict(pairs)


def _reject_constant(name):
    raise ValueError(f"{name} is not JSON")


def _parse_line(text: str, number: int, max_response_bytes: int) -> tuple[str, list]:
    try:
        entry = json.loads(text, object_pairs_hook=_strict_object, parse_constant=_reject_constant)
    except ValueError:
        raise ReplayLoadError("invalid_json", number) from None
    if not isinstance(entry, dict):
        raise ReplayLoadError("entry_not_an_object", number)
    if set(entry) - _ENTRY_KEYS:
        raise ReplayLoadError("unknown_entry_key", number)
    version = entry.get("schema_version")
    if isinstance(version, bool) or version != SCHEMA_VERSION:
        raise ReplayLoadError("schema_version_invalid", number)
    key = entry.get("request_hash")
    if not isinstance(key, str) or not _HASH.match(key):
        raise ReplayLoadError("request_hash_invalid", number)
    has_one, has_many = "response" in entry, "responses" in entry
    if has_one and has_many:
        raise ReplayLoadError("response_ambiguous", number)
    if not (has_one or has_many):
        raise ReplayLoadError("response_missing", number)
    if has_one:
        if not isinstance(entry["response"], dict):
            raise ReplayLoadError("response_invalid", number)
        responses = [entry["response"]]
    else:
        responses = entry["responses"]
        if (not isinstance(responses, list) or not 1 <= len(responses) <= MAX_SEQUENCE
                or not all(isinstance(r, dict) for r in responses)):
            raise ReplayLoadError("responses_invalid", number)
    if any(encoded_size(r) > max_response_bytes for r in responses):
        raise ReplayLoadError("response_too_large", number)
    return key, responses


def load_fixtures(path: str | os.PathLike, *, max_response_bytes: int = MAX_RESPONSE_BYTES,
                  max_file_bytes: int = MAX_FILE_BYTES, allow_empty: bool = False) -> dict[str, list]:
    """Read a fixture file into `{request_hash: [response, ...]}` (file order kept), or raise ReplayLoadError."""
    try:
        with open(path, "rb") as f:
            raw = f.read(max_file_bytes + 1)
    except OSError:
        raise ReplayLoadError("replay_file_unreadable") from None
    if len(raw) > max_file_bytes:
        raise ReplayLoadError("replay_file_too_large")
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        raise ReplayLoadError("replay_file_unreadable") from None
    entries: dict[str, list] = {}
    for number, line in enumerate(text.split("\n"), start=1):
        if not line.strip():
            continue
        key, responses = _parse_line(line, number, max_response_bytes)
        if key in entries:
            raise ReplayLoadError("duplicate_entry", number)
        entries[key] = responses
    if not entries and not allow_empty:
        raise ReplayLoadError("replay_file_empty")
    return entries


def format_entry(key: str, responses: list) -> str:
    """One fixture line (without newline) in the canonical layout the recorder writes."""
    if len(responses) == 1:
        body = '"response":' + dumps(responses[0])
    else:
        body = '"responses":[' + ",".join(dumps(r) for r in responses) + "]"
    return f'{{"schema_version":{SCHEMA_VERSION},"request_hash":"{key}",{body}}}'


class ReplayProvider:
    """Answers requests from a fixture file, keyed by `request_hash`.

    Identical repeated requests consume a `responses` sequence in order
    (one cursor per hash, thread-safe); an unknown hash or an exhausted
    sequence raises `ProviderError("not_found", retryable=False)` whose
    `request_hash` tells the fixture author what to add.  `context_window`
    (tokens) declares the window of the model the file stands for.
    """

    kind = "replay"

    def __init__(self, path: str | os.PathLike, *, max_response_bytes: int = MAX_RESPONSE_BYTES,
                 max_file_bytes: int = MAX_FILE_BYTES, context_window: int | None = None):
        self.context_window = check_context_window(context_window)
        self.path = os.fspath(path)
        self._entries = load_fixtures(path, max_response_bytes=max_response_bytes, max_file_bytes=max_file_bytes)
        self._cursor: dict[str, int] = {}
        self._lock = threading.Lock()

    def complete(self, request: dict) -> dict:
        key = _hash_or_error(request)
        with self._lock:
            responses = self._entries.get(key)
            if responses is None:
                raise ProviderError("not_found", f"no replay fixture matches this request (request_hash: {key})",
                                    retryable=False, request_hash=key)
            index = self._cursor.get(key, 0)
            if index >= len(responses):
                raise ProviderError("not_found", f"replay sequence for request_hash {key} is exhausted",
                                    retryable=False, request_hash=key)
            self._cursor[key] = index + 1
        return copy.deepcopy(responses[index])

    def reset(self) -> None:
        """Rewind every sequence to its first response."""
        with self._lock:
            self._cursor.clear()

    def describe(self) -> dict:
        return {"kind": self.kind, "entries": len(self._entries),
                "responses": sum(len(r) for r in self._entries.values())}

    def __repr__(self) -> str:
        return f"ReplayProvider({self.path!r}, entries={len(self._entries)})"


class RecordingProvider:
    """Wraps a provider and records each successful answer into a fixture file.

    Existing entries of `path` are kept; a new request hash adds a line, a
    repeated one grows that entry into a `responses` sequence.  The file is
    rewritten atomically after every call, so it is always loadable.
    Failures of the wrapped provider pass through and are not recorded.
    `context_window` is the wrapped provider's unless given here.
    """

    def __init__(self, inner, path: str | os.PathLike, *, max_response_bytes: int = MAX_RESPONSE_BYTES,
                 context_window: int | None = None):
        self.inner = inner
        self._context_window = check_context_window(context_window)
        self.kind = getattr(inner, "kind", "provider")
        self.path = os.fspath(path)
        self.max_response_bytes = max_response_bytes
        self._entries = (load_fixtures(path, max_response_bytes=max_response_bytes, allow_empty=True)
                         if os.path.exists(self.path) else {})
        self._lock = threading.Lock()

    def complete(self, request: dict) -> dict:
        key = _hash_or_error(request)
        response = check_response(self.inner.complete(request), self.max_response_bytes)
        with self._lock:
            self._entries.setdefault(key, []).append(copy.deepcopy(response))
            self._write()
        return response

    def _write(self) -> None:
        directory = os.path.dirname(os.path.abspath(self.path))
        fd, tmp = tempfile.mkstemp(prefix=".replay-", suffix=".tmp", dir=directory)
        try:
            with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as f:
                for key, responses in self._entries.items():
                    f.write(format_entry(key, responses) + "\n")
            os.replace(tmp, self.path)
        except BaseException:
            if os.path.exists(tmp):
                os.unlink(tmp)
            raise

    @property
    def context_window(self) -> int | None:
        return self._context_window if self._context_window is not None else declared_window(self.inner)[0]

    @property
    def max_tokens(self) -> int | None:
        return declared_window(self.inner)[1]

    def describe(self) -> dict:
        return wrapped_description(self.inner, self.kind, recording=True)

    def close(self) -> None:
        close_provider(self.inner)

    def __repr__(self) -> str:
        return f"RecordingProvider({self.inner!r}, {self.path!r})"
