"""Who may extend a collection in place: owner tokens, the shared lock, and the reference-count probes.

Three growth schemes share this module (values/__init__ tells them apart):
vectors steal the backing list of the value they extend, sets steal the
backing dict and leave an undo step behind, and maps are extended in place
only when the caller hands over its last reference (lib/colls_maps.assoc_owned).
The first two need the running evaluation's *owner token*: a collection built
under one token is extended in place only under the same token, so values
shared between tasks or evaluations are never mutated behind a reader's back.
The third needs a reference count measured on the running interpreter
(`OWNED_REFS`), never assumed.

The switch that turns all three off (`IN_PLACE_GROWTH`) lives in
values/__init__, where tests set it.
Imports nothing from ptclisp.
"""
from __future__ import annotations

import sys
import threading
from sys import getrefcount as _getrefcount

# Taken while a collection's backing storage changes hands (a steal, or a stale view rebuilding its copy).
LOCK = threading.RLock()


class _OwnerLocal(threading.local):
    tok = None


OWNER = _OwnerLocal()   # OWNER.tok: the owner token of the evaluation running on this thread


class OwnerToken:
    """The identity of one evaluation (or parallel worker task) as the owner of the collections it
    builds. Bare on purpose: a collection keeps its owner's token alive, never the evaluation's meter
    (with its prints and tool ledger)."""

    __slots__ = ()


def owner_token():
    """The token of the running evaluation (or parallel worker task) on this thread; None outside one.

    A collection built under a token may be extended in place only under the
    same token, so values shared between tasks or evaluations are never
    mutated behind a reader's back.
    """
    return OWNER.tok


# --------------------------------------------------------------- in-place growth of uniquely held maps

def _refs_of_a_handed_over_local() -> int:
    """What sys.getrefcount reports, inside a callee, for an object whose only other
    holder is the caller's local variable (measured, not assumed, on this interpreter)."""
    def callee(m):
        return _getrefcount(m)

    def caller():
        m = {}
        return callee(m)
    return caller()


def _untraced(measure):
    """Run `measure` with this thread's trace and profile functions off, then put them back.

    A tracer that reads frame locals (a debugger) adds holders to every local it looks at; a count
    measured under it would be too high, and a map held by that many real holders would later look
    handed over. Counts taken at run time under a tracer only come out higher, which is safe (copy).
    """
    trace, profile = sys.gettrace(), sys.getprofile()
    if trace is None and profile is None:
        return measure()
    sys.settrace(None)
    sys.setprofile(None)
    try:
        return measure()
    finally:
        sys.settrace(trace)
        sys.setprofile(profile)


_MEASURED_REFS = _untraced(_refs_of_a_handed_over_local)


def _callee_probe(m):
    return _getrefcount(m) == _MEASURED_REFS


def _check_probe() -> bool:
    """Self-test: a map also held elsewhere must not look handed over."""
    def caller_unique():
        m = {}
        return _callee_probe(m)

    def caller_shared():
        m = {}
        keep = [m]
        r = _callee_probe(m)
        return r and keep

    return caller_unique() is True and not caller_shared()


OWNED_GROWTH = _untraced(_check_probe)
# The count `assoc_owned` and kin compare with; a count no object can have when the self-test
# failed, so that every map is then copied (one comparison on the hot path either way).
OWNED_REFS = _MEASURED_REFS if OWNED_GROWTH else -1


# --------------------------------------------------------------- growth written out in generated code

class _Holder:
    __slots__ = ("items",)


def _refs_in_own_frame() -> tuple:
    """(the count for an object held only by a local of the frame asking, the count for a list held
    by an object's slot and by a local the frame bound it to): what code the compiler generates
    compares with when it extends a map or a vector's item list itself (compiler/inline.py)."""
    def local():
        m = {}
        return _getrefcount(m)

    def slot_list():
        h = _Holder()
        h.items = []
        if (it := h.items) is not None:
            return _getrefcount(it)
        return -1
    return local(), slot_list()


_MEASURED_LOCAL_REFS, _MEASURED_SLOT_LIST_REFS = _untraced(_refs_in_own_frame)


def _check_own_frame_probe() -> bool:
    """Self-test: an object also held by another local, by the evaluation stack or by a list, and
    a list also held by another local, must not look held by the asking frame alone."""
    k, kl = _MEASURED_LOCAL_REFS, _MEASURED_SLOT_LIST_REFS

    def unique():
        m = {}
        return _getrefcount(m) == k

    def another_local():
        m = {}
        other = m
        return _getrefcount(m) == k and other is not None

    def on_the_stack():
        m = {}
        return (m, _getrefcount(m) == k)[1]

    def in_a_list():
        m = {}
        keep = [m]
        return _getrefcount(m) == k and bool(keep)

    def list_unique():
        h = _Holder()
        h.items = []
        return (it := h.items) is not None and _getrefcount(it) == kl

    def list_shared():
        h = _Holder()
        h.items = []
        walker = h.items
        return (it := h.items) is not None and _getrefcount(it) == kl and walker is not None

    return unique() and list_unique() and not (another_local() or on_the_stack() or in_a_list() or list_shared())


INLINE_GROWTH = _untraced(_check_own_frame_probe)
# The counts generated code compares with (-1, which no object has, when the self-test failed:
# the generated test then always fails and the in-place variant is called, as before)
LOCAL_REFS = _MEASURED_LOCAL_REFS if INLINE_GROWTH else -1
SLOT_LIST_REFS = _MEASURED_SLOT_LIST_REFS if INLINE_GROWTH else -1
