"""Hints appended to `unbound_var` messages for names people (and models) reach for."""
from __future__ import annotations

import difflib

NOT_AVAILABLE = {
    "lazy-seq": "everything is eager; iterate, repeatedly and (range) are endless only under take",
    "lazy-cat": "everything is eager; use concat",
    "transduce": "no transducers; use (reduce f init (map g coll))",
    "sequence": "everything is eager; use vec, or map/filter directly",
    "eduction": "no transducers; use map/filter and reduce",
    "volatile!": "use (atom x) with swap!/reset!",
    "delay": "everything is eager; compute the value with let",
    "future": "use pmap or pcalls for parallel work",
    "sorted-map-by": "maps walk and print in key order already; use sort-by on entries",
    "sorted-set-by": "use (sort-by f coll) on the members",
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
    from ..registry.builtins import BUILTINS
    close = difflib.get_close_matches(name, list(BUILTINS), n=3, cutoff=0.8)
    if close:
        return ". Similar names: " + ", ".join(close)
    return ""
