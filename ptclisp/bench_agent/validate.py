"""Answer validators: decide whether a run's final answer is correct.

A validator is a JSON object from the suite manifest; `check(spec, answer)`
returns `(passed, note)` where `note` says briefly why an answer failed.
Answers are plain JSON values (the JSON projection of what the program
returned: keywords became strings).

| type        | fields                               | passes when                                            |
|-------------|--------------------------------------|--------------------------------------------------------|
| `exact`     | `expected`                           | deep equality; numbers compare by value (3 == 3.0)     |
| `tolerance` | `expected`, `abs` and/or `rel`       | a number within abs, or within rel x abs(expected)     |
| `range`     | `min` and/or `max` (inclusive)       | a number inside the range                              |
| `set`       | `expected` (list)                    | a list with the same distinct members, in any order    |
| `sequence`  | `expected` (list), optional `abs`    | a list with the same members in the same order         |
| `lisp`      | `predicate` (PTC-Lisp), `expected`?  | the program, run with `data/answer` (and `data/expected`) bound, yields a truthy value |

Booleans never count as numbers.  Imports, for `lisp` only and lazily,
ptclisp.reader.parser (checking the predicate) and ptclisp.api and meter (running it).
"""
from __future__ import annotations

import math
from typing import Any

VALIDATOR_TYPES = ("exact", "tolerance", "range", "set", "sequence", "lisp")


class ValidatorError(ValueError):
    """A validator spec is malformed (raised when a suite is loaded)."""


def _is_number(x: Any) -> bool:
    return isinstance(x, (int, float)) and not isinstance(x, bool)


def check_spec(spec: Any) -> None:
    """Raise ValidatorError unless `spec` is a well-formed validator."""
    if not isinstance(spec, dict) or spec.get("type") not in VALIDATOR_TYPES:
        raise ValidatorError(f"validator must be an object whose type is one of {', '.join(VALIDATOR_TYPES)}")
    kind = spec["type"]
    if kind in ("exact", "set", "sequence", "tolerance") and "expected" not in spec:
        raise ValidatorError(f"a {kind} validator needs 'expected'")
    if kind in ("set", "sequence") and not isinstance(spec["expected"], list):
        raise ValidatorError(f"a {kind} validator's 'expected' must be a list")
    if kind == "tolerance":
        if not _is_number(spec["expected"]):
            raise ValidatorError("a tolerance validator's 'expected' must be a number")
        if not any(k in spec for k in ("abs", "rel")):
            raise ValidatorError("a tolerance validator needs 'abs' and/or 'rel'")
        for k in ("abs", "rel"):
            if k in spec and (not _is_number(spec[k]) or spec[k] < 0):
                raise ValidatorError(f"tolerance '{k}' must be a non-negative number")
    if kind == "range":
        if "min" not in spec and "max" not in spec:
            raise ValidatorError("a range validator needs 'min' and/or 'max'")
        for k in ("min", "max"):
            if k in spec and not _is_number(spec[k]):
                raise ValidatorError(f"range '{k}' must be a number")
    if kind == "sequence" and "abs" in spec and (not _is_number(spec["abs"]) or spec["abs"] < 0):
        raise ValidatorError("sequence 'abs' must be a non-negative number")
    if kind == "lisp":
        if not isinstance(spec.get("predicate"), str) or not spec["predicate"].strip():
            raise ValidatorError("a lisp validator needs a non-empty 'predicate' program")
        from ..reader.parser import read
        try:
            read(spec["predicate"])
        except Exception as e:  # noqa: BLE001 - any reader failure means a broken manifest
            raise ValidatorError(f"lisp predicate does not parse: {e}") from None


def same(a: Any, b: Any, abs_tol: float = 0.0) -> bool:
    """Deep JSON equality; numbers by value (within `abs_tol`), booleans only equal booleans."""
    if isinstance(a, bool) or isinstance(b, bool):
        return isinstance(a, bool) and isinstance(b, bool) and a == b
    if _is_number(a) and _is_number(b):
        if isinstance(a, float) and math.isnan(a) or isinstance(b, float) and math.isnan(b):
            return False
        return a == b if abs_tol == 0 else abs(a - b) <= abs_tol
    if isinstance(a, str) or isinstance(b, str) or a is None or b is None:
        return a == b and type(a) is type(b)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(same(x, y, abs_tol) for x, y in zip(a, b))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(same(a[k], b[k], abs_tol) for k in a)
    return False


def _freeze(x: Any):
    """A hashable, order-free stand-in for a JSON value (numbers by value)."""
    if isinstance(x, bool):
        return ("b", x)
    if _is_number(x):
        return ("n", float(x))
    if isinstance(x, list):
        return ("l", tuple(_freeze(v) for v in x))
    if isinstance(x, dict):
        return ("m", tuple(sorted((k, _freeze(v)) for k, v in x.items())))
    return ("s", x)


def check(spec: dict, answer: Any) -> tuple[bool, str]:
    """`(passed, note)` for `answer` under validator `spec` (assumed well-formed)."""
    kind = spec["type"]
    if kind == "exact":
        return (True, "") if same(answer, spec["expected"]) else (False, "not equal to the expected value")
    if kind == "tolerance":
        if not _is_number(answer):
            return False, "not a number"
        expected = spec["expected"]
        bound = max(spec.get("abs", 0), spec.get("rel", 0) * abs(expected))
        ok = math.isfinite(answer) and abs(answer - expected) <= bound
        return (True, "") if ok else (False, f"off by {abs(answer - expected):.6g} (allowed {bound:.6g})")
    if kind == "range":
        if not _is_number(answer) or not math.isfinite(answer):
            return False, "not a number"
        if "min" in spec and answer < spec["min"]:
            return False, "below the range"
        if "max" in spec and answer > spec["max"]:
            return False, "above the range"
        return True, ""
    if kind == "set":
        if not isinstance(answer, list):
            return False, "not a list"
        if {_freeze(v) for v in answer} == {_freeze(v) for v in spec["expected"]}:
            return True, ""
        return False, "members differ"
    if kind == "sequence":
        if not isinstance(answer, list):
            return False, "not a list"
        if same(answer, spec["expected"], spec.get("abs", 0.0)):
            return True, ""
        return False, "elements or order differ"
    if kind == "lisp":
        return _check_lisp(spec, answer)
    return False, f"unknown validator type {kind!r}"


def _check_lisp(spec: dict, answer: Any) -> tuple[bool, str]:
    from ..api import run
    from ..runtime.meter import Limits
    context = {"answer": answer}
    if "expected" in spec:
        context["expected"] = spec["expected"]
    result = run(spec["predicate"], context=context, limits=Limits(timeout_ms=5000))
    if result.status == "error":
        return False, f"predicate error ({result.error.kind}): {result.error.message}"
    if result.status == "failed":
        return False, "predicate failed"
    truthy = result.value is not None and result.value is not False
    return (True, "") if truthy else (False, "predicate returned false")
