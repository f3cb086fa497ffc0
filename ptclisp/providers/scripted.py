"""A provider driven by a script, for tests and offline demos.

Owns `ScriptedProvider`: answers from a list (consumed in order) or from a
Python callable given each request, and keeps a copy of every request it
saw.  Imports providers.errors, providers.windows.
"""
from __future__ import annotations

import copy
import threading
from typing import Any, Callable, Iterable

from .errors import ProviderError
from .windows import check_context_window


class ScriptedProvider:
    """Returns scripted answers and records requests in `.requests`.

    `script` is either an iterable of items or a callable `fn(request) -> item`.
    An item that is an exception (a `ProviderError` or any other) is raised;
    anything else is returned as the response, unchecked, so tests can feed
    the router or the agent loop malformed answers on purpose.  A list that
    runs out raises `ProviderError("unavailable", retryable=True)`.
    `context_window` (tokens) declares the window of the model it stands for.
    """

    kind = "scripted"

    def __init__(self, script: Iterable[Any] | Callable[[dict], Any], *, context_window: int | None = None):
        self.context_window = check_context_window(context_window)
        self._fn = script if callable(script) else None
        self._items = None if self._fn else list(script)
        self._next = 0
        self._lock = threading.Lock()
        self.requests: list[dict] = []

    def complete(self, request: dict) -> dict:
        with self._lock:
            self.requests.append(copy.deepcopy(request))
            if self._fn is None:
                if self._next >= len(self._items):
                    raise ProviderError("unavailable", "scripted provider has no answers left", retryable=True)
                item = self._items[self._next]
                self._next += 1
        if self._fn is not None:
            item = self._fn(copy.deepcopy(request))
        if isinstance(item, BaseException):
            raise item
        return copy.deepcopy(item)

    @property
    def remaining(self) -> int | None:
        """Answers not yet consumed (None for a callable script)."""
        return None if self._items is None else len(self._items) - self._next

    def describe(self) -> dict:
        return {"kind": self.kind, "calls": len(self.requests)}

    def __repr__(self) -> str:
        what = "callable" if self._fn else f"{len(self._items)} answers"
        return f"ScriptedProvider({what})"
