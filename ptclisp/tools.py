"""Granted tools: the `tool/` namespace (runtime.md §5).

Owns `Tool` (a host callable plus description, input schema and declared
effect), argument normalisation (named arguments only; keys stringified
with `-` -> `_`; keyword values -> names), input validation with
jsonschema, the call budget, the call ledger and result conversion.
"""
from __future__ import annotations

import time
from typing import Callable

import attrs

from . import meter as M
from .errors import FailSignal, PtcError, ReturnSignal
from .values import Keyword, Map, Set, SymbolRef, Vector

EFFECTS = ("read", "write", "unknown")


@attrs.define(slots=True)
class Tool:
    """A host function granted to programs as `tool/<name>`.

    `fn` receives one dict with string keys and returns JSON-like data.
    """

    name: str
    fn: Callable
    description: str = ""
    input_schema: dict | None = None
    effect: str = "unknown"
    signature: str | None = None
    cache: bool = False

    def __attrs_post_init__(self):
        if self.effect not in EFFECTS:
            raise ValueError(f"tool {self.name}: effect must be one of {EFFECTS}, got {self.effect!r}")


@attrs.define(slots=True)
class ToolCallRecord:
    name: str
    args: dict
    result: object = None
    error: str | None = None
    duration_ms: float = 0.0
    cached: bool = False


def normalize_key(k) -> str:
    t = type(k)
    if t is Keyword:
        return k.name.replace("-", "_")
    if t is str:
        return k.replace("-", "_")
    if t is SymbolRef:
        return "'" + k.full
    from .printer import pr_str
    return pr_str(k)


def normalize_arg(x):
    """PTC value -> JSON-like Python value for a tool callback."""
    t = type(x)
    if t is Keyword:
        return x.name
    if t is Vector:
        return [normalize_arg(v) for v in x.lst()]
    if t is Set:
        return [normalize_arg(v) for v in x.members()]
    if t is Map:
        out = {}
        for k, v in x.items():
            nk = normalize_key(k)
            if nk in out:
                raise PtcError("invalid_tool_args", f"argument keys collide after normalisation: {nk}")
            out[nk] = normalize_arg(v)
        return out
    if t is SymbolRef:
        return x.full
    from .values import JavaObject
    if isinstance(x, JavaObject):
        return x.to_text()
    if callable(x):
        raise PtcError("invalid_tool_args", "functions cannot be passed to tools")
    return x


def build_args(name: str, args: tuple) -> dict:
    n = len(args)
    if n == 0:
        return {}
    if n == 1:
        a = args[0]
        if type(a) is Map:
            return normalize_arg(a)
        if a is None:
            return {}
        if type(a) is SymbolRef and name == "call":
            return {"server": a.ns or a.name, "tool": a.name, "args": {}}
        raise PtcError("invalid_tool_args", f"Tool calls require named arguments: (tool/{name} {{:key value}}) "
                                            f"or (tool/{name} :key value ...)")
    if n == 2 and name == "call" and type(args[0]) is SymbolRef:
        target = args[0]
        return {"server": target.ns or target.name, "tool": target.name, "args": normalize_arg(args[1])}
    if n % 2:
        raise PtcError("invalid_tool_args", f"Tool calls require named arguments: (tool/{name} :key value ...)")
    out = {}
    for i in range(0, n, 2):
        k = args[i]
        if type(k) not in (Keyword, str):
            raise PtcError("invalid_tool_args", f"tool/{name}: argument names must be keywords, got {k!r}")
        nk = normalize_key(k)
        if nk in out:
            raise PtcError("invalid_tool_args", f"tool/{name}: argument {nk} given twice")
        out[nk] = normalize_arg(args[i + 1])
    return out


class ToolSet:
    """The tools granted to one environment."""

    def __init__(self, tools=None):
        self.tools: dict[str, Tool] = {}
        if tools is None:
            return
        items = tools.items() if isinstance(tools, dict) else ((t.name, t) for t in tools)
        for name, t in items:
            if not isinstance(t, Tool):
                if not callable(t):
                    raise TypeError(f"tool {name!r} must be callable or a ptclisp.Tool")
                t = Tool(name, t, description=(getattr(t, "__doc__", "") or "").strip())
            self.tools[name] = t

    def names(self) -> set[str]:
        return set(self.tools)

    def ref(self, name: str):
        def tool_fn(*args):
            return self.call(name, args)
        tool_fn.ptc_builtin = f"tool/{name}"
        return tool_fn

    def call(self, name: str, args: tuple):
        from .convert import from_python
        tool = self.tools.get(name)
        if tool is None:
            raise PtcError("unknown_tool", f"tool/{name} is not available. Available tools: "
                                           f"{', '.join(sorted(self.tools)) or '(none)'}")
        meter = M.current()
        payload = build_args(name, args)
        if tool.input_schema:
            _validate(tool, payload)
        limit = meter.limits.max_tool_calls
        if limit is not None:
            with meter.parallel_lock:
                if meter.tool_count >= limit:
                    raise PtcError("tool_call_limit_exceeded", f"tool call limit of {limit} reached")
                meter.tool_count += 1
        else:
            meter.tool_count += 1
        meter.check()
        rec = ToolCallRecord(name, payload)
        t0 = time.perf_counter()
        try:
            raw = tool.fn(payload)
        except (PtcError, ReturnSignal, FailSignal) as exc:
            rec.error = str(exc)
            rec.duration_ms = (time.perf_counter() - t0) * 1000
            meter.tool_calls.append(rec)
            raise
        except Exception as exc:  # noqa: BLE001 - a failing tool is a typed error, never a crash
            rec.error = f"{type(exc).__name__}: {exc}"[:500]
            rec.duration_ms = (time.perf_counter() - t0) * 1000
            meter.tool_calls.append(rec)
            raise PtcError("tool_error", f"tool/{name} failed: {str(exc)[:300] or type(exc).__name__}",
                           details={"tool": name}) from None
        rec.duration_ms = (time.perf_counter() - t0) * 1000
        rec.result = raw
        meter.tool_calls.append(rec)
        meter.check()
        return from_python(raw)


def _validate(tool: Tool, payload: dict):
    import jsonschema
    try:
        jsonschema.validate(payload, tool.input_schema)
    except jsonschema.ValidationError as e:
        path = ".".join(str(p) for p in e.absolute_path) or "(root)"
        raise PtcError("invalid_tool_args", f"tool/{tool.name}: invalid argument at {path}: {e.message[:200]}") from None
    except jsonschema.SchemaError as e:  # pragma: no cover - host misconfiguration
        raise PtcError("tool_error", f"tool/{tool.name} has an invalid input schema: {e.message[:200]}") from None
