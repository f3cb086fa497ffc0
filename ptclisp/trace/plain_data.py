"""Values as trace data: plain JSON where JSON carries them, PTC text otherwise (the trace package's one reach below the public API).

Owns `Keyword` (for keyword-keyed analysis results), `pr_str` (private
evidence shows values as PTC text), `plain` (any host or PTC value as plain
JSON data, else its PTC text) and `prelude_list(env)` (the namespaces
attached to an evaluation environment, without their source).
"""
from __future__ import annotations

from ..interchange.json_out import JsonValueError, to_json
from ..values.text import pr_str
from ..values import Keyword

__all__ = ["Keyword", "pr_str", "plain", "prelude_list"]


def plain(x, max_chars: int = 200_000):
    """`x` as plain JSON data (docs/json.md rules); a value with no JSON form becomes {"ptc": its text}."""
    try:
        return to_json(x)
    except JsonValueError:
        try:
            text = pr_str(x)
        except Exception:  # noqa: BLE001 - evidence must never break the run
            text = f"#<{type(x).__name__}>"
        return {"ptc": text[:max_chars]}


def prelude_list(env) -> list[dict]:
    """[{namespace, origin, key, exports}] of the preludes attached to an Environment, in name order."""
    out = []
    for name in sorted(getattr(env, "preludes", {}) or {}):
        table = env.preludes[name]
        compiled = getattr(getattr(table, "instance", None), "compiled", None)
        origin = getattr(compiled, "origin", None) or ""
        out.append({"namespace": name, "origin": _short_origin(origin),
                    "key": (getattr(compiled, "key", "") or "")[:16],
                    "exports": len(getattr(compiled, "records", {}) or {})})
    return out


def _short_origin(origin: str) -> str:
    """A prelude's origin without directories (a path may name a user's home)."""
    if origin.startswith("ptclisp.preludes/") or origin.startswith("<"):
        return origin
    return origin.replace("\\", "/").rsplit("/", 1)[-1]
