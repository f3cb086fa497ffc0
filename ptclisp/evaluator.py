"""One evaluation, end to end: size gate, read, symbol budget, analyze, compile, run.

Owns the pipeline of runtime.md §1, the translation of every failure into a
typed `PtcError` (with the PTC span recovered from the traceback through
generated code), and `Environment`: the globals generated code runs against
(meter, user namespace, data, tools, history). Sessions build on it.
"""
from __future__ import annotations

import logging
import re
import sys
import time

import attrs

from . import meter as M
from .analyzer import Analyzer, Env
from .compiler import FILENAME, compile_node, register_fn_meta, runtime_table
from .errors import FailSignal, PtcError, ReturnSignal, Span
from .isolation import HardStop, check_result_size, guard, hard_stop_error
from .meter import Limits, Meter
from .convert import from_python
from .interp import Builder
from .reader import read
from .tools import ToolSet
from .runtime import Namespace
from . import lib

log = logging.getLogger("ptclisp")

lib.load()   # every builtin family registers in ptclisp.registry, which the analyzer and back ends read

if sys.getrecursionlimit() < 6000:
    sys.setrecursionlimit(6000)
# integers are unbounded in PTC (their size is capped by the meter), so printing them must work
sys.set_int_max_str_digits(0)


@attrs.define(slots=True)
class ErrorInfo:
    kind: str
    message: str
    span: Span | None = None
    details: dict = attrs.Factory(dict)

    def __str__(self):
        where = f" (line {self.span.line}, column {self.span.col})" if self.span else ""
        return f"{self.kind}: {self.message}{where}"


@attrs.define(slots=True)
class Result:
    """The outcome of one evaluation.

    status: "ok" (a value), "returned" (`return`), "failed" (`fail`), "error".
    """

    status: str
    value: object = None
    error: ErrorInfo | None = None
    prints: list = attrs.Factory(list)
    tool_calls: list = attrs.Factory(list)
    duration_ms: float = 0.0
    pmap_calls: list = attrs.Factory(list)   # parallel.ParallelRecord per pmap/pcalls, in completion order

    @property
    def ok(self) -> bool:
        return self.status in ("ok", "returned")


class Environment:
    """What generated code sees besides the builtins: one per Session (or per run)."""

    def __init__(self, context=None, tools=None, strict_data=False, data_grants=None):
        self.ns = Namespace()
        self.history: list = []
        self.context = from_python(context or {})  # a fresh copy: the host keeps no handle on it
        self.strict_data = strict_data
        self.data_grants = data_grants
        self.tools = tools if isinstance(tools, ToolSet) else ToolSet(tools)
        self.preludes: dict = {}
        # source -> built program, for re-running the same text against an unchanged environment
        self.programs = ProgramCache()
        # globals dicts of attached prelude namespaces: each gets this evaluation's meter as `_m`
        self.extra_globals: list[dict] = []
        self.backend = DEFAULT_BACKEND
        self.globals = {
            "__builtins__": runtime_table(), "_m": None, "_ns": self.ns,
            "_data": self.data_get, "_tool": self.tools.call, "_tool_ref": self.tools.ref, "_hist": self.hist,
        }

    def data_get(self, name: str):
        ctx = self.context
        missing = _MISSING
        v = ctx.lookup(name, missing)
        if v is missing:
            if self.strict_data:
                granted = sorted(str(k) for k in ctx.keys()) if self.data_grants is None else sorted(self.data_grants)
                raise PtcError("runtime_error", f"data/{name} is not available. Available: "
                                                f"{', '.join('data/' + g for g in granted) or '(none)'}")
            return None
        return v

    def hist(self, n: int):
        h = self.history
        return h[-n] if len(h) >= n else None

    def analyzer_env(self) -> Env:
        return Env(user_names=self.ns.keys(), tools=self.tools.names(), preludes=self.preludes,
                   strict_data=self.strict_data)


_MISSING = object()


class ProgramCache:
    """Built programs of one environment, keyed by source text and everything analysis reads.

    Analysis depends on the source, the user names defined (the namespace's version stamp
    changes on every def and rollback), the tools, the attached preludes (attaching one clears
    the cache), strict data and the reader limits; a program built under the same key is the
    same program. Running it again skips reading, analysis and compilation, the way Python
    reuses a function's code object.
    """

    MAX_ENTRIES = 64
    MAX_SOURCE = 64 * 1024

    def __init__(self, enabled: bool = True):
        self.enabled = enabled
        self.entries: dict = {}
        # keys evaluated once: a program is kept only when its text comes back (most agent
        # turns are new text, and holding every built program would cost them memory and time)
        self.seen: dict = {}

    def key(self, envr: "Environment", source: str, limits: Limits, backend: str):
        if not self.enabled or len(source) > self.MAX_SOURCE:
            return None
        return (source, backend, envr.ns.version, tuple(envr.tools.tools), tuple(envr.preludes), envr.strict_data,
                limits.max_program_bytes, limits.max_depth, limits.max_symbols)

    def get(self, key):
        if key is None:
            return None
        return self.entries.get(key)

    def put(self, key, main):
        if key is None:
            return
        seen = self.seen
        if key not in seen:
            if len(seen) >= 4 * self.MAX_ENTRIES:
                del seen[next(iter(seen))]  # the oldest
            seen[key] = True
            return
        entries = self.entries
        if len(entries) >= self.MAX_ENTRIES:
            del entries[next(iter(entries))]  # the oldest
        entries[key] = main

    def clear(self):
        self.entries.clear()
        self.seen.clear()


def analyze_source(source: str, env: Env, limits: Limits):
    """Phases 1-6: text -> (core AST, host refs). Raises PtcError."""
    if len(source.encode("utf-8", "surrogatepass")) > limits.max_program_bytes:
        raise PtcError("program_too_large", f"program is larger than {limits.max_program_bytes} bytes")
    names: set = set()
    forms = read(source, max_depth=limits.max_depth, names=names)
    if len(names) > limits.max_symbols:
        raise PtcError("symbol_limit_exceeded", f"program uses {len(names)} distinct symbols and keywords "
                                                f"(limit {limits.max_symbols})")
    az = Analyzer(env)
    node = az.analyze_program(forms)
    return node, az.host_refs


# Back ends: "tiered" builds the program into closures and compiles loops and hot
# functions to bytecode; "compiled" compiles the whole program to bytecode.
BACKENDS = ("tiered", "compiled")
DEFAULT_BACKEND = "tiered"


def build_main(node, host_refs, g: dict, backend: str = DEFAULT_BACKEND):
    """The zero-argument callable that runs an analyzed program in the environment globals `g`."""
    if backend == "compiled":
        code, consts, meta = compile_node(node, host_refs)
        register_fn_meta(code, meta)
        exec(code, g)  # noqa: S102 - code generated by our compiler from analyzed PTC forms
        return g.pop("__ptc_factory__")(*consts)
    return Builder(g, host_refs).build_program(node)


def compile_source(source: str, env: Env, limits: Limits):
    """Phases 1-6 plus code generation (whole program to bytecode): (code, consts)."""
    node, host_refs = analyze_source(source, env, limits)
    code, consts, meta = compile_node(node, host_refs)
    register_fn_meta(code, meta)
    return code, consts


def evaluate(envr: Environment, source: str, limits: Limits | None = None, *, commit_history=True,
             backend: str | None = None) -> Result:
    """Evaluate `source` in `envr` transactionally (definitions and history change only on success)."""
    limits = limits or Limits()
    meter = Meter(limits)
    meter.env = envr
    t0 = time.perf_counter()
    prev = M.install(meter)
    envr.globals["_m"] = meter
    for g in envr.extra_globals:
        g["_m"] = meter
    ns = envr.ns
    ns.begin()
    status, value, error = "ok", None, None
    try:
        try:
            backend = backend or envr.backend
            key = envr.programs.key(envr, source, limits, backend)
            main = envr.programs.get(key)
            if main is None:
                with M.compile_budget(limits.compile_timeout_ms):
                    node, host_refs = analyze_source(source, envr.analyzer_env(), limits)
                    main = build_main(node, host_refs, envr.globals, backend)
                envr.programs.put(key, main)
            meter.start()
            with guard(meter):  # hard stop past the deadline, recursion budget
                value = main()
            meter.check()
        finally:
            meter.stop()
    except ReturnSignal as sig:
        status, value = "returned", sig.value
    except FailSignal as sig:
        status, value = "failed", sig.value
    except BaseException as exc:  # noqa: BLE001 - every failure becomes a typed error
        if isinstance(exc, (KeyboardInterrupt, SystemExit)) and not isinstance(exc, KeyboardInterrupt):
            raise
        status, value, error = "error", None, to_error_info(exc)
    finally:
        M.install(prev)
    if status != "error" and limits.max_result_bytes is not None:
        try:
            check_result_size(value, limits)
        except PtcError as exc:
            status, value, error = "error", None, to_error_info(exc)
    if status in ("ok", "returned"):
        ns.commit()
        if status == "ok" and commit_history:
            envr.history.append(value)
            del envr.history[:-3]
    else:
        ns.rollback()
    return Result(status, value, error, meter.prints, meter.tool_calls, (time.perf_counter() - t0) * 1000,
                  meter.pmap_calls)


# ------------------------------------------------------------------ error translation

_ARITY = re.compile(r"(\w+)\(\) (takes|missing) ")


def to_error_info(exc: BaseException) -> ErrorInfo:
    err = to_ptc_error(exc)
    span = err.span or _span_from_traceback(exc)
    return ErrorInfo(err.kind, err.message, span, dict(err.details or {}))


def to_ptc_error(exc: BaseException) -> PtcError:
    if isinstance(exc, PtcError):
        return exc
    if isinstance(exc, HardStop):
        return hard_stop_error(M.current())
    if isinstance(exc, RecursionError):
        return PtcError("memory_exceeded", "recursion too deep; use loop/recur, reduce or a smaller input",
                        details={"reason": "recursion_depth", "recursion_limit": M.current().limits.recursion_limit})
    if isinstance(exc, MemoryError):
        return PtcError("memory_exceeded", "out of memory")
    if isinstance(exc, KeyboardInterrupt):
        return PtcError("timeout", "evaluation interrupted", details={"cancelled": True})
    if isinstance(exc, ZeroDivisionError):
        return PtcError("arithmetic_error", "division by zero")
    if isinstance(exc, OverflowError):
        return PtcError("arithmetic_error", f"number out of range: {exc}")
    if isinstance(exc, TypeError):
        msg = str(exc)
        if "object is not callable" in msg:
            what = msg.split("'")[1] if "'" in msg else "value"
            return PtcError("not_callable", f"a {_py_type_label(what)} is not a function")
        m = _ARITY.search(msg)
        if m and ("positional argument" in msg):
            fname = m.group(1)
            kind = "arity_mismatch" if fname.startswith("fn__") else "arity_error"
            if kind == "arity_error":
                spec = _builtin_by_pyname().get(fname)
                if spec is not None:
                    return PtcError(kind, f"{spec.name} called with the wrong number of arguments "
                                          f"(expects {spec.arity_text()})")
            label = re.sub(r"__\d+$", "", fname[4:]) if fname.startswith("fn__") else fname
            if label == "anon":
                label = "fn"
            detail = re.sub(r"'l\d+_([^']*)'", r"\1", msg.split(") ", 1)[-1])
            return PtcError(kind, f"wrong number of arguments to {label}: {detail}")
        return PtcError("type_error", _sanitize(msg))
    log.error("internal error in ptclisp evaluation", exc_info=exc)
    return PtcError("internal_error", f"internal error ({type(exc).__name__}); this is a ptclisp bug")


_PYNAMES: dict | None = None


def _builtin_by_pyname() -> dict:
    """Python function name -> builtin record, to name builtins in arity errors raised by Python."""
    global _PYNAMES
    if _PYNAMES is None:
        from .registry import BUILTINS
        _PYNAMES = {}
        for spec in BUILTINS.values():
            code = getattr(spec.fn, "__code__", None)
            if code is not None:
                _PYNAMES.setdefault(code.co_name, spec)
    return _PYNAMES


_PY_TYPES = {"NoneType": "nil", "int": "number", "float": "number", "str": "string", "bool": "boolean"}


def _py_type_label(name: str) -> str:
    return _PY_TYPES.get(name, name.lower())


def _sanitize(msg: str) -> str:
    for py, ptc in (("NoneType", "nil"), ("'str'", "string"), ("'int'", "number"), ("'float'", "number")):
        msg = msg.replace(py, ptc)
    return msg[:300]


def _span_from_traceback(exc: BaseException, codes=None, filename: str = FILENAME) -> Span | None:
    """The position of the innermost generated-code frame in `exc`'s traceback that was running
    code with a PTC position (with `codes`, only frames running one of those code objects; with
    `filename`, frames of that generated file, e.g. one prelude namespace's code).

    Generated code that maps to no PTC form carries line 0 (compiler._PositionedAst): such a
    frame is passed over, so the error points at the form that called it, or has no position,
    rather than a made-up line 1, column 1."""
    tb = exc.__traceback__
    best = None
    while tb is not None:
        code = tb.tb_frame.f_code
        if code.co_filename == filename and (codes is None or code in codes):
            try:
                positions = list(code.co_positions())
                pos = positions[tb.tb_lasti // 2] if tb.tb_lasti >= 0 else None
            except (IndexError, ValueError):
                pos = None
            if pos and pos[0] and pos[2] is not None:
                best = Span(pos[0], pos[2] + 1)
        tb = tb.tb_next
    return best
