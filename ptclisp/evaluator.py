"""One evaluation, end to end: size gate, read, symbol budget, analyze, compile, run.

Owns the pipeline of runtime.md §1, the translation of every failure into a
typed `PtcError` (with the PTC span recovered from the traceback through
generated code), and `Environment`: the globals generated code runs against
(meter, user namespace, data, tools, history). Sessions build on it.
"""
from __future__ import annotations

import logging
import os
import re
import threading
import time
import traceback

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

log = logging.getLogger("ptclisp")


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
        # held while an evaluation runs in this environment: a second one (a tool calling back
        # into its own session, or another thread) is refused rather than sharing its undo log
        self.busy = threading.Lock()
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


BUSY_MESSAGE = ("this session is already running an evaluation (a tool called eval on its own session, "
                "or another thread is using it); evaluations of one session run one at a time")


def evaluate(envr: Environment, source: str, limits: Limits | None = None, *, commit_history=True,
             backend: str | None = None) -> Result:
    """Evaluate `source` in `envr` transactionally (definitions and history change only on success).

    One evaluation at a time per environment: a second one started while the
    first runs (from a tool of the first, or from another thread) returns a
    `runtime_error` (details `reason: "session_busy"`) and changes nothing.
    `KeyboardInterrupt` and `SystemExit` roll the evaluation back and propagate.
    """
    if not envr.busy.acquire(blocking=False):
        return Result("error", error=ErrorInfo("runtime_error", BUSY_MESSAGE, details={"reason": "session_busy"}))
    try:
        return _evaluate(envr, source, limits or Limits(), commit_history, backend)
    finally:
        envr.busy.release()


def _evaluate(envr: Environment, source: str, limits: Limits, commit_history: bool, backend: str | None) -> Result:
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
        # the recursion budget (reading and analysis recurse too), and the hard stop once the clock runs
        with guard(meter):
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
                value = main()
                meter.check()
            finally:
                meter.stop()
    except ReturnSignal as sig:
        status, value = "returned", sig.value
    except FailSignal as sig:
        status, value = "failed", sig.value
    except (KeyboardInterrupt, SystemExit):  # the host's, not the program's: undo, then let it through
        ns.rollback()
        raise
    except BaseException as exc:  # noqa: BLE001 - every failure becomes a typed error
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

def to_error_info(exc: BaseException) -> ErrorInfo:
    err = to_ptc_error(exc)
    span = err.span or _span_from_traceback(exc)
    return ErrorInfo(err.kind, err.message, span, dict(err.details or {}))


def to_ptc_error(exc: BaseException) -> PtcError:
    """The typed error for an exception that ended an evaluation.

    Only failures whose cause is known are given a user-facing kind: PtcError
    itself, the hard stop, exhausted recursion or memory, and the two
    TypeErrors Python raises *at a call the program made* (calling a value
    that is not a function; calling a PTC function with the wrong number of
    arguments). Anything else is an `internal_error`: logged with its
    traceback on the "ptclisp" logger (which has a NullHandler, so nothing
    reaches stderr unless the host configures logging) and carried in
    `details` ("exception", "traceback") for the host.
    """
    if isinstance(exc, PtcError):
        return exc
    if isinstance(exc, HardStop):
        return hard_stop_error(M.current())
    if isinstance(exc, RecursionError):
        return PtcError("memory_exceeded", "recursion too deep; use loop/recur, reduce or a smaller input",
                        details={"reason": "recursion_depth", "recursion_limit": M.current().limits.recursion_limit})
    if isinstance(exc, MemoryError):
        return PtcError("memory_exceeded", "out of memory")
    if type(exc) is TypeError:
        err = _call_error(exc)
        if err is not None:
            return err
    return internal_error(exc)


def internal_error(exc: BaseException) -> PtcError:
    """An `internal_error` for an unexpected exception: logged, with the traceback in its details."""
    log.error("internal error in ptclisp evaluation", exc_info=exc)
    text = "".join(traceback.format_exception(type(exc), exc, exc.__traceback__))
    return PtcError("internal_error", f"internal error ({type(exc).__name__}); this is a ptclisp bug",
                    details={"exception": f"{type(exc).__name__}: {exc}"[:500], "traceback": text[-8000:]})


def _call_error(exc: TypeError) -> PtcError | None:
    """not_callable / arity errors for a TypeError raised by a call in PTC code, else None.

    Python raises these before the callee runs, so the innermost traceback
    frame is the caller. It must be code that applies the program's function
    values: generated code (programs and preludes), the tree interpreter, the
    runtime support of generated code, a builtin, a parallel worker, or the
    contract check around a prelude export. For an arity error the callee
    must also be a PTC function (a compiled `fn`, or a builtin by its Python
    name); a Python helper called wrongly is a bug, not the program's error.
    """
    tb = exc.__traceback__
    if tb is None:
        return None
    while tb.tb_next is not None:
        tb = tb.tb_next
    code = tb.tb_frame.f_code
    where = code.co_filename
    if not (where.startswith("<ptc") or where in _CALLERS or where.startswith(_LIB)  # <ptc>, <ptc-prelude x>
            or _CALLER_FUNCTIONS.get(where) == code.co_name):
        return None
    msg = str(exc)
    if msg.endswith("object is not callable") and msg.startswith("'") and msg.count("'") == 2:
        what = msg.split("'")[1]
        return PtcError("not_callable", f"a {_py_type_label(what)} is not a function")
    callee, sep, rest = msg.partition("() ")  # "<qualified name>() takes ..." / "... missing ..."
    if not sep or not rest.startswith(("takes ", "missing ")) or "positional argument" not in rest:
        return None
    fname = callee.rsplit(".", 1)[-1]
    if fname.startswith("fn__") and "__ptc_" in callee:  # a compiled PTC fn
        label = re.sub(r"__\d+$", "", fname[4:])
        if label == "anon":
            label = "fn"
        detail = re.sub(r"'l\d+_([^']*)'", r"\1", rest)
        return PtcError("arity_mismatch", f"wrong number of arguments to {label}: {detail}")
    specs = _builtins_by_code().get(callee)
    if not specs:
        return None
    arities = {spec.arity_text() for spec in specs}
    expects = f" (expects {arities.pop()})" if len(arities) == 1 else ""
    return PtcError("arity_error", f"{' or '.join(spec.name for spec in specs)} called with the wrong number "
                                   f"of arguments{expects}")


_HERE = os.path.dirname(os.path.abspath(__file__))
_LIB = os.path.join(_HERE, "lib") + os.sep
_CALLERS = frozenset(os.path.join(_HERE, f) for f in ("interp.py", "runtime.py"))
# a single function of a module that otherwise does its own work: file -> function name
_CALLER_FUNCTIONS = {os.path.join(_HERE, "parallel.py"): "_work", os.path.join(_HERE, "prelude.py"): "contract_checked"}


_BY_CODE: dict | None = None


def _builtins_by_code() -> dict:
    """Qualified name of a builtin's code -> the builtins running that code (several builtins made
    by one factory share it), to name them in the arity errors Python raises."""
    global _BY_CODE
    if _BY_CODE is None:
        from .lib.registry import BUILTINS
        table: dict = {}
        for spec in BUILTINS.values():
            code = getattr(spec.fn, "__code__", None)
            if code is not None and spec not in table.get(code.co_qualname, ()):
                table.setdefault(code.co_qualname, []).append(spec)
        _BY_CODE = table
    return _BY_CODE


_PY_TYPES = {"NoneType": "nil", "int": "number", "float": "number", "str": "string", "bool": "boolean"}


def _py_type_label(name: str) -> str:
    return _PY_TYPES.get(name, name.lower())


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
