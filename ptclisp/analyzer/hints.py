"""Hints appended to `unbound_var` messages for names people (and models) reach for."""
from __future__ import annotations

import difflib

NOT_AVAILABLE = {
    "atom": "no mutable state; thread values through let/loop or def",
    "swap!": "no mutable state; use def to rebind a name",
    "reset!": "no mutable state; use def to rebind a name",
    "print": "only println is available",
    "prn": "only println is available",
    "printf": "use (println (format ...))",
    "iterate": "no lazy sequences; use range, loop/recur or reduce",
    "repeatedly": "no lazy sequences; use (for [_ (range n)] ...)",
    "lazy-seq": "everything is eager",
    "slurp": "no file access; data comes through data/ and tools through tool/",
    "eval": "no eval",
    "read-string": "no read-string; use json/parse-string or parse-long",
    "rand": "no randomness; programs are deterministic",
    "rand-int": "no randomness; programs are deterministic",
    "dotimes": "use (doseq [i (range n)] ...)",
    "while": "use loop/recur",
    "sorted-map": "maps print sorted already; use sort-by on entries",
    "list?": "there are no lists; use vector?",
}


def unbound_hint(name: str) -> str:
    if name in NOT_AVAILABLE:
        return f". Not available: {NOT_AVAILABLE[name]}"
    from ..registry import BUILTINS
    close = difflib.get_close_matches(name, list(BUILTINS), n=3, cutoff=0.8)
    if close:
        return ". Similar names: " + ", ".join(close)
    return ""
