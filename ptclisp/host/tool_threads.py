"""Tool calls an evaluation can stop waiting for (docs/security.md, "Tools").

A granted tool is host code, which ptclisp cannot interrupt. So that an
evaluation still ends at its deadline whatever a tool does, `call_tool`
runs the callback on a tool thread (`THREADS`, reused daemon threads named
`ptclisp-tool-N`) while the evaluating thread waits for it only as long as
the evaluation may go on:

* the call returns or raises: its value (or its exception, re-raised on the
  evaluating thread) is what the caller gets, exactly as if it had run there;
* the evaluation stops while the call runs (its deadline passed, or a
  failing `pmap` sibling stopped it): the call is given the grace period
  of the hard stop (guards.grace_s: a quarter of the budget, 20-500 ms)
  to return on its own, which a tool that watches `time_left()` or
  `check_stop()` does; after that the evaluating thread stops waiting and
  `Abandoned` carries the evaluation's stop error. The call is left to
  finish on its thread; what it returns or raises then is dropped, never
  converted and never seen by the evaluation or its session, and the
  caller records it in the ledger as abandoned (its effect is unknown).

The tool thread sees the calling evaluation's meter (`meter.install_view`:
`time_left()` and `check_stop()` work there, without the owner token, so
nothing built on that thread can be extended in place by the evaluation)
and runs the callback in a copy of the caller's `contextvars` context.
Outside an evaluation, or when no thread can be started, the callback runs
on the calling thread. Imports meter, guards, parallel (its thread pool)
and errors.
"""
from __future__ import annotations

import contextvars
import threading
import time

from ..runtime import meter as M
from ..errors import PtcError
from ..runtime.guards import grace_s
from ..parallel import ThreadPool

#: How often a waiting evaluation looks at its stop flag (a failing sibling sets it at any time).
POLL_S = 0.02
THREADS = ThreadPool("ptclisp-tool")


class Abandoned(Exception):
    """The evaluation stopped while a tool call ran, and the call did not return within the grace period.

    `error` is the evaluation's stop error (a `timeout`, or the error a failing parallel sibling
    stopped it with), which the caller raises once it has recorded the abandoned call.
    """

    def __init__(self, error: PtcError):
        super().__init__(error.message)
        self.error = error


ABANDONED_NOTE = ("abandoned: the evaluation stopped ({kind}) while the call ran and did not wait for it; the call "
                  "may still complete in the host, so whether it took effect is unknown, and a late result is discarded")


def abandoned_note(stop: Abandoned) -> str:
    """The ledger's `error` text for an abandoned call."""
    return ABANDONED_NOTE.format(kind=stop.error.kind)


class _Call:
    """One callback handed to a tool thread, and what became of it."""

    __slots__ = ("fn", "payload", "meter", "context", "done", "value", "exc")

    def __init__(self, fn, payload, meter):
        self.fn = fn
        self.payload = payload
        self.meter = meter
        self.context = contextvars.copy_context()
        self.done = threading.Event()
        self.value = None
        self.exc = None

    def run(self):
        prev = M.install_view(self.meter)
        try:
            self.value = self.context.run(self.fn, self.payload)
        except BaseException as exc:  # noqa: BLE001 - handed back to the waiting evaluation
            self.exc = exc
        finally:
            M.install_view(prev)
            # an abandoned call keeps nothing of its evaluation alive while it runs on
            self.fn = self.payload = self.context = self.meter = None
            self.done.set()


def call_tool(meter, fn, payload):
    """`fn(payload)` for the evaluation metered by `meter`, run so that the evaluation can stop waiting.

    Returns what `fn` returns and re-raises what it raises; raises `Abandoned` when the evaluation
    stopped and the call did not return within the grace period (see the module docstring).
    """
    if meter is M._UNBOUNDED:  # outside an evaluation nothing can stop, so nothing needs to wait
        return fn(payload)
    call = _Call(fn, payload, meter)
    try:
        THREADS.submit(call.run)
    except RuntimeError:  # no thread to be had: the call runs here (and cannot be abandoned)
        return fn(payload)
    if not _wait(call.done, meter):
        if not meter.expired:
            meter.expired = True  # its deadline passed before the watchdog noticed
        try:
            meter.raise_expired()
        except PtcError as exc:
            raise Abandoned(exc) from None
    exc = call.exc
    if exc is not None:
        call.exc = None
        try:
            raise exc
        finally:
            exc = None
    return call.value


def _wait(done: threading.Event, meter) -> bool:
    """Wait for `done` while the evaluation goes on, then at most the grace period; whether it was set."""
    if done.wait(POLL_S):
        return True
    stop_at = None
    while True:
        now = time.monotonic()
        if stop_at is None:
            d = meter.deadline
            if meter.expired or (d is not None and now >= d):
                stop_at = now + grace_s(meter)
        if stop_at is not None:
            wait = stop_at - now
            if wait <= 0:
                return done.is_set()
        else:
            wait = POLL_S
            d = meter.deadline
            if d is not None and d - now < wait:
                wait = max(0.0, d - now)
        if done.wait(wait):
            return True
