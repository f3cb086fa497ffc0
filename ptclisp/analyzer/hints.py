"""Hints appended to `unbound_var` messages for names people (and models) reach for."""
from __future__ import annotations

import difflib

NOT_AVAILABLE = {
    "lazy-seq": "everything is eager",
    "slurp": "no file access; data comes through data/ and tools through tool/",
    "eval": "no eval",
    "read-string": "no read-string; use json/parse-string or parse-long",
    "rand": "no randomness; programs are deterministic",
    "rand-int": "no randomness; programs are deterministic",
    "dotimes": "use (doseq [i (range n)] ...)",
    "while": "use loop/recur",
}


def unbound_hint(name: str) -> str:
    if name in NOT_AVAILABLE:
        return f". Not available: {NOT_AVAILABLE[name]}"
    from ..registry import BUILTINS
    close = difflib.get_close_matches(name, list(BUILTINS), n=3, cutoff=0.8)
    if close:
        return ". Similar names: " + ", ".join(close)
    return ""
