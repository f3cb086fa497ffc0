"""The user namespace: name -> value, with an undo log for transactional evaluation.

A session's definitions and every attached prelude namespace are one
`Namespace` each; generated code defines into it through
`backends.runtime.rt_def`. It sits low (below the prelude loader and the
session, which both make them) and imports errors only.
"""
from __future__ import annotations

import itertools

from ..errors import PtcError

_VERSIONS = itertools.count(1)


def unbound_error(name: str) -> PtcError:
    """The error of reading a name no definition made (yet)."""
    return PtcError("unbound_var", f"Unable to resolve symbol: {name} in this context", details={"unbound_names": [name]})


class Namespace(dict):
    """The user namespace: name -> value, with an undo log for transactions.

    `fast` is an exact dict with the same entries, kept in step by every change: generated code
    reads globals from it (`_nsf[name]`), which CPython specializes for exact dicts only. A name
    missing there raises KeyError in generated code, which runtime.failures reports as the
    `unbound_var` that reading the Namespace itself raises (`__missing__`)."""

    __slots__ = ("log", "docs", "label", "frozen", "version", "names_version", "fast")

    def __init__(self, *a, label="user", **k):
        if a or k:
            super().__init__(*a, **k)
        self.fast = dict(self)   # (the one dict for the namespace's life: generated code holds it)
        self.log = None          # list of (name, old value | _ABSENT) while an evaluation runs
        self.docs: dict = {}
        self.label = label
        self.frozen = False      # parallel workers: defs are discarded
        self.version = next(_VERSIONS)  # a new, never reused stamp after every change
        # a new stamp whenever the set of names changes (a first definition, a rollback that
        # removes one): what analysis reads of the namespace, and so what programs are cached by
        self.names_version = self.version

    def __missing__(self, name):
        raise unbound_error(name)

    def begin(self):
        self.log = []

    def touch(self):
        """Record a change made from outside `define`/`rollback` (a wholesale restore)."""
        self.version = self.names_version = next(_VERSIONS)

    def commit(self):
        self.log = None

    def rollback(self):
        log = self.log
        self.log = None
        if log:
            self.version = next(_VERSIONS)
            for name, old, olddoc in reversed(log):
                if old is _ABSENT:
                    dict.pop(self, name, None)
                    self.fast.pop(name, None)
                    self.names_version = self.version
                else:
                    dict.__setitem__(self, name, old)
                    self.fast[name] = old
                if olddoc is _ABSENT:
                    self.docs.pop(name, None)
                else:
                    self.docs[name] = olddoc

    def define(self, name, value, doc=None):
        log = self.log
        if log is not None:
            log.append((name, self.get(name, _ABSENT), self.docs.get(name, _ABSENT)))
        new_name = name not in self
        dict.__setitem__(self, name, value)
        self.fast[name] = value
        self.version = next(_VERSIONS)
        if new_name:
            self.names_version = self.version
        if doc is not None:
            self.docs[name] = doc
        else:
            self.docs.pop(name, None)

    # Changes made with dict's own methods (outside `define`/`rollback`, which log them) keep `fast`
    # in step and count as changes of the names.
    def __setitem__(self, name, value):
        dict.__setitem__(self, name, value)
        self.fast[name] = value
        self.touch()

    def __delitem__(self, name):
        dict.__delitem__(self, name)
        del self.fast[name]
        self.touch()

    def pop(self, name, *default):
        had = name in self
        value = dict.pop(self, name, *default)
        if had:
            del self.fast[name]
            self.touch()
        return value

    def popitem(self):
        item = dict.popitem(self)
        del self.fast[item[0]]
        self.touch()
        return item

    def setdefault(self, name, default=None):
        if name not in self:
            self[name] = default
        return dict.__getitem__(self, name)

    def update(self, *a, **k):
        for name, value in dict(*a, **k).items():
            self[name] = value

    def clear(self):
        dict.clear(self)
        self.fast.clear()
        self.touch()


_ABSENT = object()
