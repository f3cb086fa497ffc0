"""The named sessions of `ptclisp mcp serve`: bounded in number, in idle time and in size.

A client that passes `session: "NAME"` to `run_ptc_lisp` keeps its
definitions between calls in one `ptclisp.Session`. `SessionStore` holds
those sessions so that a long-running server holds bounded memory:

* at most `max_sessions` live at once: opening one more evicts the least
  recently used;
* a session idle for `ttl_s` seconds expires (checked on every access and by
  `sweep()`, which the server calls periodically);
* `drop()` discards one (the server drops a session whose definitions grew
  past its size bound).

A dropped name is remembered (a bounded number of them) with the reason, so
the next call under that name learns why its definitions are gone instead
of meeting a bare "unable to resolve symbol". Each entry has a lock: calls
in one session run one at a time (a Session is not thread-safe).

Pure Python: imports nothing from the MCP SDK.
"""
from __future__ import annotations

import threading
import time
from collections import OrderedDict
from typing import Callable

#: How many dropped session names are remembered (with the reason they were dropped).
MAX_REMEMBERED = 1024
#: The longest session name accepted.
MAX_NAME_CHARS = 128


class SessionEntry:
    """One named session: the ptclisp Session, its lock and its last use (monotonic seconds)."""

    __slots__ = ("name", "session", "lock", "last_used", "calls")

    def __init__(self, name: str, session, now: float):
        self.name = name
        self.session = session
        self.lock = threading.Lock()
        self.last_used = now
        self.calls = 0


class SessionStore:
    """Sessions by name, least recently used first; `factory()` builds a new ptclisp Session."""

    def __init__(self, factory: Callable[[], object], ttl_s: float, max_sessions: int,
                 clock: Callable[[], float] = time.monotonic):
        if max_sessions < 1:
            raise ValueError("max_sessions must be at least 1")
        if not ttl_s > 0:
            raise ValueError("the session idle time must be positive")
        self.factory = factory
        self.ttl_s = float(ttl_s)
        self.max_sessions = int(max_sessions)
        self.clock = clock
        self._lock = threading.Lock()
        self._live: OrderedDict[str, SessionEntry] = OrderedDict()
        self._dropped: OrderedDict[str, str] = OrderedDict()

    # ------------------------------------------------------------------ access

    def open(self, name: str) -> tuple[SessionEntry, str | None]:
        """The entry named `name`, created when there is none; and, for a new entry whose name was
        used before, why the old one is gone (None otherwise).

        Raises ValueError for an unusable name. The session itself is built
        outside the store's lock; `factory` errors propagate.
        """
        check_name(name)
        with self._lock:
            self._expire_locked(self.clock())
            entry = self._live.get(name)
            if entry is not None:
                self._live.move_to_end(name)
                entry.last_used = self.clock()
                return entry, None
        session = self.factory()
        with self._lock:
            now = self.clock()
            entry = self._live.get(name)
            if entry is not None:  # another call opened it meanwhile
                self._live.move_to_end(name)
                entry.last_used = now
                return entry, None
            while len(self._live) >= self.max_sessions:
                old, _ = self._live.popitem(last=False)
                self._remember_locked(old, f"it was the least recently used of {self.max_sessions} sessions "
                                           f"(--max-sessions) when another was opened")
            entry = self._live[name] = SessionEntry(name, session, now)
            note = self._dropped.pop(name, None)
            return entry, note

    def touch(self, entry: SessionEntry) -> None:
        """Mark `entry` used now (after a call), if it is still live."""
        with self._lock:
            if self._live.get(entry.name) is entry:
                entry.last_used = self.clock()
                entry.calls += 1

    def drop(self, name: str, reason: str) -> bool:
        """Discard the session `name`, remembering `reason`; False when there was none."""
        with self._lock:
            if self._live.pop(name, None) is None:
                return False
            self._remember_locked(name, reason)
            return True

    def sweep(self) -> list[str]:
        """Expire the sessions idle for longer than the idle time; returns their names."""
        with self._lock:
            return self._expire_locked(self.clock())

    def clear(self) -> None:
        with self._lock:
            self._live.clear()
            self._dropped.clear()

    # ------------------------------------------------------------------ inspection

    def names(self) -> list[str]:
        """Live session names, least recently used first."""
        with self._lock:
            return list(self._live)

    def __len__(self) -> int:
        with self._lock:
            return len(self._live)

    def __contains__(self, name: str) -> bool:
        with self._lock:
            return name in self._live

    # ------------------------------------------------------------------ internals

    def _expire_locked(self, now: float) -> list[str]:
        gone = [name for name, e in self._live.items() if now - e.last_used > self.ttl_s]
        for name in gone:
            del self._live[name]
            self._remember_locked(name, f"it was idle for more than {self.ttl_s:g} s (--session-ttl)")
        return gone

    def _remember_locked(self, name: str, reason: str) -> None:
        self._dropped[name] = reason
        self._dropped.move_to_end(name)
        while len(self._dropped) > MAX_REMEMBERED:
            self._dropped.popitem(last=False)


def check_name(name) -> None:
    """Raise ValueError unless `name` can name a session: 1-128 printable characters."""
    if not isinstance(name, str) or not name:
        raise ValueError("a session name must be a non-empty string")
    if len(name) > MAX_NAME_CHARS:
        raise ValueError(f"a session name may have at most {MAX_NAME_CHARS} characters, this one has {len(name)}")
    if not name.isprintable():
        raise ValueError("a session name must be printable text (no control characters)")
