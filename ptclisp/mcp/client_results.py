"""From MCP to ptclisp values, for the MCP client: results, tool effects, argument names, error text.

A result's content blocks become ptclisp values (`block_value`: text parsed
as JSON when it parses, else the text; images, audio, embedded resources and
resource links as small maps that never hold the raw bytes), charged against
the calling evaluation's memory (`memory_left`); a tool's annotations give
its effect (`tool_effect`); `arg_names` offers top-level schema properties with
`-` as `_`; `error_text`, `first_leaf` and `one_line` make one-line messages.
Used by `ptclisp.mcp.client_conn` (`ptclisp.mcp.client` re-exports
`arg_names` as `_arg_names`). Imports only the standard library and,
in `memory_left`, ptclisp.runtime.meter.
"""
from __future__ import annotations

import json

__all__ = ["tool_effect", "arg_names", "block_value", "error_text", "memory_left", "first_leaf", "one_line"]


def tool_effect(annotations) -> str:
    """A tool's effect from its MCP annotations: "read", "write" or "unknown"."""
    if annotations is None:
        return "unknown"
    if getattr(annotations, "read_only_hint", None) is True:
        return "read"
    if getattr(annotations, "read_only_hint", None) is False or getattr(annotations, "destructive_hint", None):
        return "write"
    return "unknown"


def arg_names(schema):
    """(schema as ptclisp sees it, map ptclisp argument name -> server argument name).

    ptclisp passes argument keys with `-` turned into `_`, so a top-level property
    `max-count` is offered as `max_count` and renamed back for the call.
    """
    if not isinstance(schema, dict) or not isinstance(schema.get("properties"), dict):
        return schema, {}
    renames = {k.replace("-", "_"): k for k in schema["properties"] if isinstance(k, str) and "-" in k}
    renames = {a: b for a, b in renames.items() if a not in schema["properties"]}
    if not renames:
        return schema, {}
    back = {b: a for a, b in renames.items()}
    out = dict(schema)
    out["properties"] = {back.get(k, k): v for k, v in schema["properties"].items()}
    if isinstance(schema.get("required"), list):
        out["required"] = [back.get(k, k) for k in schema["required"]]
    return out, renames


def _b64_size(data) -> int:
    if not isinstance(data, str):
        return 0
    n = len(data.rstrip())
    return max(0, n * 3 // 4 - data.rstrip()[-2:].count("="))


def _not_json_constant(name):
    raise ValueError(name)


def text_value(text: str, room):
    room(len(text))
    s = text.strip()
    if s and (s[0] in '{["-' or s[0].isdigit() or s in ("true", "false", "null")):
        try:
            return json.loads(s, parse_constant=_not_json_constant)
        except ValueError:
            pass
    return text


def block_value(block, room):
    kind = getattr(block, "type", None)
    if kind == "text":
        return text_value(block.text, room)
    if kind in ("image", "audio"):
        return {"type": kind, "mime_type": block.mime_type, "size": _b64_size(block.data)}
    if kind == "resource":
        res = block.resource
        out = {"type": "resource", "uri": str(res.uri), "mime_type": getattr(res, "mime_type", None)}
        if getattr(res, "text", None) is not None:
            room(len(res.text))
            out["text"] = res.text
        else:
            out["size"] = _b64_size(getattr(res, "blob", None))
        return out
    if kind == "resource_link":
        out = {"type": "resource_link", "uri": str(block.uri), "name": getattr(block, "name", None),
               "mime_type": getattr(block, "mime_type", None)}
        if getattr(block, "size", None) is not None:
            out["size"] = block.size
        return out
    return {"type": str(kind)}


def error_text(result) -> str:
    parts = [b.text for b in (result.content or ()) if getattr(b, "type", None) == "text" and b.text]
    return " ".join(" ".join(parts).split())[:1000] or "the tool reported an error without a message"


def memory_left() -> int | None:
    """Bytes the calling evaluation may still allocate (None outside an evaluation's budget)."""
    from ..runtime import meter as M
    m = M.current()
    return max(0, m.budget - m.allocated) if m.budget < (1 << 61) else None


def first_leaf(exc: BaseException) -> BaseException:
    while isinstance(exc, BaseExceptionGroup) and exc.exceptions:
        exc = exc.exceptions[0]
    return exc


def one_line(text: str, limit: int = 300) -> str:
    text = " ".join(str(text).split())
    return text if len(text) <= limit else text[:limit - 1] + "…"

