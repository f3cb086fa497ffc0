"""Granted tools: the `tool/` namespace (docs/spec/runtime.md §5).

Owns `Tool` (a host callable plus description, input schema, declared effect,
cache flag and privacy), argument normalisation (named arguments only; keys
stringified with `-` -> `_`; keyword values -> names), input validation with
jsonschema, result envelopes, the use of the per-evaluation cache of
`cache=True` tools (kept by the meter), the call budget and the call ledger (`ToolCallRecord`, surfaced as
`Result.tool_calls`).

Result envelopes a callback may use:

    return value                 -> the program sees `value` (JSON-like data)
    return ("ok", value)         -> the program sees `value`
    return ("error", reason)     -> the evaluation stops with `tool_error`
    raise PtcError(kind, msg)    -> the evaluation stops with that `kind` (a trusted, structured error)
    raise anything else          -> `tool_error` carrying the exception's message (any exception but
                                    the host's KeyboardInterrupt and SystemExit, which propagate)

Only a 2-tuple is an envelope; lists are always data.

A callback runs on a tool thread (tool_runner.py), so an evaluation ends at
its deadline whatever the callback does: one still running then is given
the grace period to return, then abandoned (recorded with `abandoned=True`;
it runs on, and its late result is discarded). ptclisp never interrupts a
running callback. One that waits (on a network service, a subprocess)
stays within the evaluation's limits with `time_left()` (seconds until the
calling evaluation's deadline) and `check_stop()` (raises the evaluation's
stop error once it is stopping), and so ends when its result can no longer
be used.
"""
from __future__ import annotations

import json
import time
from typing import Callable

import attrs

from ..runtime import meter as M
from ..interchange.python import HostDataError, from_python
from ..errors import FailSignal, PtcError, ReturnSignal
from ..runtime.guards import HardStop, result_bytes, retained_bytes
from ..values.intstr import brief_ints, int_text
from .tool_threads import Abandoned, abandoned_note, call_tool
from ..values import JavaObject, Keyword, Map, Set, SymbolRef, Vector

EFFECTS = ("read", "write", "unknown")
#: What a tool may raise that is not the tool's failure: the host's Ctrl-C and exit propagate to the
#: caller of `run`/`eval`, and a hard stop is the evaluation's own (it is never delivered inside a tool).
#: Anything else a callback raises (any Exception, GeneratorExit, asyncio's CancelledError, ...) is a
#: `tool_error`.
HOST_EXCEPTIONS = (KeyboardInterrupt, SystemExit, HardStop)
LEDGER_RESULT_BYTES = 16_384


def _schema_validator(schema: dict):
    import jsonschema
    cls = jsonschema.validators.validator_for(schema, default=jsonschema.Draft202012Validator)
    cls.check_schema(schema)
    return cls(schema)


@attrs.define(slots=True)
class Tool:
    """A host function granted to programs as `tool/<name>`.

    `fn` receives one dict with string keys and returns JSON-like data (or an
    envelope, see the module docstring). `input_schema` is a JSON Schema the
    argument dict must satisfy before `fn` runs. `effect` says what a call
    does to the world: "read", "write" or "unknown" (the default, treated as
    unsafe by callers that classify retries). `cache=True` lets identical
    calls within one evaluation reuse the first successful result. A
    `private` tool can be named only inside prelude source.
    """

    name: str
    fn: Callable
    description: str = ""
    input_schema: dict | None = None
    effect: str = "unknown"
    signature: str | None = None
    cache: bool = False
    private: bool = False
    _validator: object = attrs.field(default=None, init=False, repr=False)
    _signature: object = attrs.field(default=None, init=False, repr=False)

    def __attrs_post_init__(self):
        if not isinstance(self.name, str) or not self.name or "/" in self.name or any(c.isspace() for c in self.name):
            raise ValueError(f"tool name must be a non-empty string without '/' or spaces, got {self.name!r}")
        if not callable(self.fn):
            raise TypeError(f"tool {self.name}: fn must be callable")
        if self.effect not in EFFECTS:
            raise ValueError(f"tool {self.name}: effect must be one of {EFFECTS}, got {self.effect!r}")
        if self.signature is not None:
            from ..prelude.contract import ContractSyntaxError, parse_signature
            try:
                self._signature = parse_signature(self.signature)
            except ContractSyntaxError as e:
                raise ValueError(f"tool {self.name}: invalid signature {self.signature!r}: {e}") from None
        if self.input_schema is not None:
            if not isinstance(self.input_schema, dict):
                raise TypeError(f"tool {self.name}: input_schema must be a dict (a JSON Schema)")
            import jsonschema
            try:
                self._validator = _schema_validator(self.input_schema)
            except jsonschema.SchemaError as e:
                raise ValueError(f"tool {self.name}: invalid input_schema: {e.message}") from None

    def validate(self, payload: dict):
        """Raise `invalid_tool_args` (private tools: `private_tool_args_error`) for arguments that do not
        satisfy the signature's parameters or the input schema."""
        sig = self._signature
        if sig is not None and sig.params:
            from ..prelude.contract import check
            for pname, ptype in sig.params:
                v = payload.get(pname, _MISS)
                if v is _MISS:
                    if ptype.optional:
                        continue
                    bad = (pname, ptype.text(), "missing")
                else:
                    bad = check(ptype, from_python(v), pname)
                if bad is not None:
                    path, expected, got = bad
                    raise PtcError("private_tool_args_error" if self.private else "invalid_tool_args",
                                   f"tool/{self.name}: argument {path}: expected {expected}, got {got}",
                                   details={"tool": self.name, "path": path, "expected": expected, "got": got})
        if self._validator is None:
            return
        errors = sorted(self._validator.iter_errors(brief_ints(payload)), key=lambda e: list(e.absolute_path))
        if not errors:
            return
        violations = [{"path": ".".join(str(p) for p in e.absolute_path), "message": e.message[:200]}
                      for e in errors[:8]]
        first = violations[0]
        raise PtcError("invalid_tool_args",
                       f"tool/{self.name}: invalid argument at {first['path'] or '(root)'}: {first['message']}",
                       details={"tool": self.name, "violations": violations})


@attrs.define(slots=True)
class ToolCallRecord:
    """One ledger entry. `result` is the callback's raw return (a string preview when it was large).

    `abandoned`: the evaluation stopped while the call ran and stopped waiting for it
    (tool_runner.py): the call may still complete in the host, so whether it took effect is unknown;
    `result` is None and `error` says so.
    """

    name: str
    args: dict
    result: object = None
    error: str | None = None
    duration_ms: float = 0.0
    cached: bool = False
    timestamp: float = 0.0
    effect: str = "unknown"
    truncated: bool = False
    abandoned: bool = False


# ------------------------------------------------------------------ arguments

def normalize_key(k) -> str:
    t = type(k)
    if t is Keyword:
        return k.name.replace("-", "_")
    if t is str:
        return k.replace("-", "_")
    if t is SymbolRef:
        return "'" + k.full
    from ..values.text import pr_str
    return pr_str(k)


_PLAIN_ARG = frozenset({type(None), bool, int, float, str})   # passed to a tool as they are


def normalize_arg(x):
    """PTC value -> JSON-like Python value for a tool callback.

    The copy is charged to the running evaluation's meter as it is made (every list and dict it
    builds), so a value that shares one part many times cannot be copied past the memory budget or
    the deadline: it ends as `memory_exceeded` or `timeout` before the tool is called."""
    t = type(x)
    if t is Keyword:
        return x.name
    if t is Vector:
        items = x.lst()
        M.charge(M.seq_cost(len(items)))
        return [v if type(v) in _PLAIN_ARG else normalize_arg(v) for v in items]
    if t is Set:
        items = x.members()
        M.charge(M.seq_cost(len(items)))
        return [v if type(v) in _PLAIN_ARG else normalize_arg(v) for v in items]
    if t is Map:
        M.charge(M.map_cost(len(x)))
        out = {}
        for k, v in x.items():
            nk = normalize_key(k)
            if nk in out:
                raise PtcError("invalid_tool_args", f"argument keys collide after normalisation: {nk}",
                               details={"key": nk})
            out[nk] = normalize_arg(v)
        return out
    if t is SymbolRef:
        return x.full
    if isinstance(x, JavaObject):
        return x.to_text()
    if callable(x):
        raise PtcError("invalid_tool_args", "functions cannot be passed to tools")
    return x


_NAMED_HINT = "Tool calls require named arguments: (tool/{n} {{:key value}}) or (tool/{n} :key value ...)"


def build_args(name: str, args: tuple) -> dict:
    """The argument dict a callback receives for the call `(tool/name args...)`."""
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
        raise PtcError("invalid_tool_args", _NAMED_HINT.format(n=name), details={"tool": name})
    if n == 2 and name == "call" and type(args[0]) is SymbolRef:
        target = args[0]
        return {"server": target.ns or target.name, "tool": target.name, "args": normalize_arg(args[1])}
    if n % 2:
        raise PtcError("invalid_tool_args", _NAMED_HINT.format(n=name), details={"tool": name})
    out = {}
    for i in range(0, n, 2):
        k = args[i]
        if type(k) not in (Keyword, str):
            raise PtcError("invalid_tool_args", f"tool/{name}: argument names must be keywords, got {k!r}",
                           details={"tool": name})
        nk = normalize_key(k)
        if nk in out:
            raise PtcError("invalid_tool_args", f"tool/{name}: argument {nk} given twice",
                           details={"tool": name, "key": nk})
        out[nk] = normalize_arg(args[i + 1])
    return out


def cache_key(name: str, payload: dict) -> str:
    """Canonical identity of a call: key order irrelevant, integral floats collapsed to ints.

    Every map key gets a "k" prefix, so an integer too long for `json.dumps` under the
    interpreter's digit limit can stand as {"i": its digits} without meeting any payload map.
    """
    def canon(x):
        if type(x) is float and x.is_integer():
            x = int(x)
        if type(x) is int:
            return x if -(1 << 64) < x < (1 << 64) else {"i": int_text(x)}
        if isinstance(x, dict):
            return {"k" + str(k): canon(v) for k, v in x.items()}
        if isinstance(x, (list, tuple)):
            return [canon(v) for v in x]
        return x
    return name + "\x00" + json.dumps(canon(payload), sort_keys=True, ensure_ascii=False, default=repr)


# ------------------------------------------------------------------ results

def _ledger_value(raw, value) -> tuple[object, bool]:
    """What the ledger keeps of a result: the raw value itself, or a text preview when it is large.

    Both the size check (on `value`, the converted result) and the preview stop after a bounded amount
    of work, so a result whose parts are shared many times over cannot make the ledger expand it.
    """
    if raw is None or type(raw) in (bool, int, float):
        return raw, False
    if result_bytes(value, LEDGER_RESULT_BYTES) <= LEDGER_RESULT_BYTES:
        return raw, False
    keep = LEDGER_RESULT_BYTES // 4
    parts, n = [], 0
    try:
        for chunk in json.JSONEncoder(ensure_ascii=False, default=repr).iterencode(raw):
            parts.append(chunk)
            n += len(chunk)
            if n >= keep:
                break
    except (TypeError, ValueError, RecursionError):
        pass
    return "".join(parts)[:keep] + "…", True


def _unwrap(name: str, raw):
    """Apply the envelope rules to a callback's return value."""
    if type(raw) is tuple and len(raw) == 2 and raw[0] in ("ok", "error"):
        if raw[0] == "ok":
            return raw[1]
        reason = raw[1]
        text = reason if isinstance(reason, str) else repr(reason)
        raise PtcError("tool_error", f"tool/{name} failed: {text[:300]}", details={"tool": name, "reason": text[:300]})
    return raw


class ToolNames(frozenset):
    """Granted tool names, as the analyzer sees them; `private` lists the ones only preludes may name."""

    private: frozenset = frozenset()

    def __new__(cls, names, private=()):
        self = super().__new__(cls, names)
        self.private = frozenset(private)
        return self


class ToolSet:
    """The tools granted to one environment."""

    def __init__(self, tools=None):
        self.tools: dict[str, Tool] = {}
        if tools is None:
            return
        if isinstance(tools, dict):
            items = tools.items()
        else:
            items = []
            for t in tools:
                if not isinstance(t, Tool):
                    raise TypeError("tools given as a list must be ptclisp.Tool objects; use a dict for callables")
                items.append((t.name, t))
        for name, t in items:
            if not isinstance(name, str) or not name:
                raise TypeError(f"tool names must be non-empty strings, got {name!r}")
            if not isinstance(t, Tool):
                if not callable(t):
                    raise TypeError(f"tool {name!r} must be callable or a ptclisp.Tool")
                from .calling import calling_convention
                call, schema = calling_convention(t)   # fn(args), or fn(**args) for keyword parameters
                t = Tool(name, call, description=(getattr(t, "__doc__", "") or "").strip(), input_schema=schema)
            self.tools[name] = t

    def names(self) -> ToolNames:
        return ToolNames(self.tools, (n for n, t in self.tools.items() if t.private))

    def public_names(self) -> list[str]:
        return sorted(n for n, t in self.tools.items() if not t.private)

    def get(self, name: str) -> Tool | None:
        return self.tools.get(name)

    def ref(self, name: str):
        def tool_fn(*args):
            return self.call(name, args)
        tool_fn.ptc_builtin = f"tool/{name}"
        return tool_fn

    def call(self, name: str, args: tuple):
        tool = self.tools.get(name)
        if tool is None:
            raise PtcError("unknown_tool", f"tool/{name} is not available. Available tools: "
                                           f"{', '.join(self.public_names()) or '(none)'}",
                           details={"tool": name, "available_tools": self.public_names()})
        meter = M.current()
        payload = build_args(name, args)
        tool.validate(payload)
        use_cache = tool.cache and not tool.private
        if use_cache:
            key = cache_key(name, payload)
            hit = M.tool_cache_lookup(meter, key, _MISS)
            if hit is not _MISS:
                raw, value = hit
                res, trunc = _ledger_value(raw, value)
                meter.tool_calls.append(ToolCallRecord(name, payload, res, None, 0.0, True, time.time(), tool.effect,
                                                       trunc))
                return value
        self._count(meter)
        meter.check()
        rec = ToolCallRecord(name, payload, timestamp=time.time(), effect=tool.effect)
        if tool.private:
            rec.args = {"redacted": True}
        t0 = time.perf_counter()
        try:
            raw = _unwrap(name, call_tool(meter, tool.fn, payload))
            value = _to_ptc(raw, meter)
        except Abandoned as stop:  # the evaluation stopped while the call ran: recorded, then its stop error
            rec.abandoned = True
            rec.error = abandoned_note(stop)
            self._record(meter, rec, t0)
            raise stop.error from None
        except (ReturnSignal, FailSignal) as exc:  # pragma: no cover - callbacks run outside PTC code
            rec.error = type(exc).__name__
            self._record(meter, rec, t0)
            raise
        except HostDataError as exc:
            rec.error = f"tool returned a value PTC-Lisp cannot hold ({exc.reason})"
            self._record(meter, rec, t0)
            raise PtcError("tool_error", f"tool/{name} returned a value PTC-Lisp cannot hold ({exc.reason}); "
                                         "tools must return JSON-like data",
                           details={"tool": name, "reason": exc.reason}) from None
        except PtcError as exc:
            rec.error = f"{exc.kind}: {exc.message}"[:500]
            self._record(meter, rec, t0)
            raise
        except HOST_EXCEPTIONS:  # the host's Ctrl-C or exit (or our own hard stop): never the tool's error
            raise
        except BaseException as exc:  # noqa: BLE001 - a failing tool is a typed error, never a crash
            rec.error = f"{type(exc).__name__}: {exc}"[:500]
            self._record(meter, rec, t0)
            raise PtcError("tool_error", f"tool/{name} failed: {str(exc)[:300] or type(exc).__name__}",
                           details={"tool": name, "exception": type(exc).__name__}) from None
        if tool.private:
            rec.result = None
        else:
            rec.result, rec.truncated = _ledger_value(raw, value)
        self._record(meter, rec, t0)
        if use_cache:
            M.tool_cache(meter)[key] = (raw, value)
        meter.check()
        return value

    @staticmethod
    def _count(meter):
        limit = meter.limits.max_tool_calls
        with meter.parallel_lock:
            if limit is not None and meter.tool_count >= limit:
                raise PtcError("tool_call_limit_exceeded", f"tool call limit of {limit} reached",
                               details={"limit": limit})
            meter.tool_count += 1

    @staticmethod
    def _record(meter, rec: ToolCallRecord, t0: float):
        rec.duration_ms = (time.perf_counter() - t0) * 1000
        meter.tool_calls.append(rec)


_MISS = object()


# ------------------------------------------------------------------ for callbacks that wait

def time_left() -> float | None:
    """Seconds the tool call running on this thread may still take, or None when nothing bounds it.

    The calling evaluation's deadline; in a `pmap`/`pcalls` worker, the earlier
    of that and the operation's own deadline. None outside an evaluation or
    with `timeout_ms=None`. A callback that waits should wait at most this long.
    """
    m = M.current()
    d = m.deadline
    pd = getattr(m, "pdeadline", None)
    if pd is not None:
        d = pd if d is None else min(d, pd)
    if d is None:
        return None
    return max(0.0, d - time.monotonic())


def check_stop() -> None:
    """Raise the calling evaluation's stop error if it is stopping, else return.

    An evaluation stops when its deadline passes, when it is cancelled or when
    a sibling `pmap` worker failed; the error raised is the one the evaluation
    ends with (`timeout`, or the sibling's). A callback that waits in slices
    calls this between them, so it gives up as soon as its result can no
    longer be used.
    """
    M.current().check()


def _to_ptc(raw, meter):
    """A tool's result as fresh PTC data (the walk of convert.from_python: cycles, nesting deeper than
    convert.MAX_DEPTH and objects other than JSON-like data raise HostDataError), charged to `meter`."""
    value = from_python(raw, strict=True, meter=meter)
    meter.alloc(retained_bytes(value))  # what a tool hands back counts against the memory budget
    return value
