"""Sessions: one namespace kept across evaluations, and the pipeline of one evaluation.

Owns `Session` (the host's handle: a user namespace kept across
evaluations, `*1 *2 *3`, granted tools and data, attached preludes),
`Environment` (what generated code runs against: the namespace, data,
tools, history, the program cache), `ProgramCache`, `Result`, and
`evaluate`: the pipeline of docs/spec/runtime.md §1 (size gate, read, symbol budget,
analyze, build, run under a fresh meter and the guards) run as a
transaction: definitions and history change only when it succeeds.
`Namespace` (namespace.py) and `ErrorInfo` (error_translation.py) live in
lower modules, since the prelude loader and the back ends use them too.

The builtin families are loaded (`ptclisp.lib.load()`, see `load_builtins`)
when the first Environment is made, not when this module is imported.
Imports the library (to load it), the reader, analyzer, back ends, tools,
inputs, guards, meter, namespace, convert, errors, error_translation, and
the prelude loader when a session first attaches a prelude.
"""
from __future__ import annotations

import threading
import time

import attrs

from . import lib
from .runtime import meter as M
from .analyzer import DEFINING_HEADS, Analyzer, Env
from .backends.bytecode import compile_node, register_fn_meta, runtime_table
from .interchange.python import detach, detach_all, from_python
from .runtime.failures import ErrorInfo, to_error_info
from .errors import FailSignal, PtcError, ReturnSignal
from .runtime.guards import check_result_size, enter_guard, exit_guard, late_ms
from .host.inputs import as_limits, check_inputs
from .backends.closures import Builder
from .runtime.meter import Limits, Meter, default_limits
from .runtime.namespace import Namespace
from .reader.parser import read
from .host.tools import ToolNames, ToolSet
from .values import Map, Set, Vector


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


def load_builtins() -> dict:
    """Register every builtin family in the registry (the first time) and return the runtime table
    generated code runs against; the analyzer and both back ends read what the families register."""
    lib.load()
    return runtime_table()


_RUNTIME: dict | None = None


class Environment:
    """What generated code sees besides the builtins: one per Session (or per run).

    `program_cache=False` (a one-shot run): no cache of built programs is kept.
    """

    __slots__ = ("ns", "history", "context", "strict_data", "data_grants", "tools", "preludes", "busy", "programs",
                 "extra_globals", "backend", "globals", "sources", "__weakref__")

    def __init__(self, context=None, tools=None, strict_data=False, data_grants=None, program_cache=True):
        global _RUNTIME
        if _RUNTIME is None:
            _RUNTIME = load_builtins()
        self.ns = ns = Namespace()
        self.history: list = []
        # a fresh copy: the host keeps no handle on it (no context: a new empty map)
        self.context = from_python(context) if context else Map()
        self.strict_data = strict_data
        self.data_grants = data_grants
        self.tools = tools = tools if isinstance(tools, ToolSet) else ToolSet(tools)
        self.preludes: dict = {}
        # held while an evaluation runs in this environment: a second one (a tool calling back
        # into its own session, or another thread) is refused rather than sharing its undo log
        self.busy = threading.Lock()
        # source -> built program, for re-running the same text against an unchanged environment
        self.programs = ProgramCache(program_cache)
        # globals dicts of attached prelude namespaces: each gets this evaluation's meter as `_m`
        self.extra_globals: list[dict] = []
        # name -> the text of the form that defined it, kept by a host that wants `(source name)` of
        # its user's definitions (the REPL: repl.headless.record_sources); the evaluator never writes it
        self.sources: dict[str, str] = {}
        self.backend = DEFAULT_BACKEND
        self.globals = {
            "__builtins__": _RUNTIME, "_m": None, "_ns": ns, "_nsf": ns.fast,
            "_data": self.data_get, "_tool": tools.call, "_tool_ref": tools.ref, "_hist": self.hist,
        }

    def data_get(self, name: str):
        ctx = self.context
        missing = _MISSING
        v = ctx.lookup(name, missing)
        if v is missing:
            if self.strict_data:
                granted = sorted(str(k) for k in ctx.keys()) if self.data_grants is None else sorted(self.data_grants)
                raise PtcError("runtime_error", f"data/{name} is not available{_closest_data(name, granted)}. "
                                                f"Available: {', '.join('data/' + g for g in granted) or '(none)'}",
                               details={"name": name, "available": granted})
            return None
        return v

    def hist(self, n: int):
        h = self.history
        return h[-n] if len(h) >= n else None

    def release(self):
        """Drop this environment's hold on its globals once its last evaluation has ended (a one-shot
        run's), so that it, its meter and its globals are freed as soon as nothing else holds them,
        rather than left as a reference cycle for the cycle collector. Functions the run returned
        keep working: they hold the globals themselves."""
        self.globals = None
        self.extra_globals = []

    def analyzer_env(self) -> Env:
        tools = self.tools
        if not self.ns and not self.preludes and type(tools) is ToolSet and not tools.tools \
                and type(self.strict_data) is bool:
            return _BARE_ENVS[self.strict_data]   # a fresh environment (every run's): nothing to look at
        # no tools granted (a plain ToolSet): the one empty ToolNames, rather than a new one per evaluation
        names = _NO_TOOL_NAMES if type(tools) is ToolSet and not tools.tools else tools.names()
        return Env(user_names=self.ns.keys(), tools=names, preludes=self.preludes, strict_data=self.strict_data)


_MISSING = object()
_NO_TOOL_NAMES = ToolNames(())   # what ToolSet().names() gives (frozensets: shared safely)
def _closest_data(name: str, granted: list) -> str:
    """' (did you mean data/NAME?)' for the granted data name closest to a misspelt `name`, else ''."""
    import difflib
    close = difflib.get_close_matches(name, granted, n=1, cutoff=0.6)
    return f" (did you mean data/{close[0]}?)" if close else ""


# what analyzer_env gives for an environment with no definitions, tools or preludes, by strict_data
# (the analyzer only reads its Env, so one is shared; tests/test_fixed_overhead.py checks it stays as made)
_BARE_ENVS = {flag: Env(user_names=(), tools=_NO_TOOL_NAMES, preludes={}, strict_data=flag) for flag in (False, True)}


# the switch for every environment's program cache (off: each evaluation reads, analyses and
# builds its program; `fastpaths.general_path` turns it off with the other fast paths)
PROGRAM_CACHE = True


class ProgramCache:
    """Built programs of one environment, keyed by source text and everything analysis reads.

    Analysis depends on the source, the set of user names defined (not their values: the
    namespace's `names_version` changes when a name is first defined or rolled away, not when
    one is defined again, as a program that defines its helpers does on every run), the tools,
    the attached preludes (attaching one clears the cache), strict data and the reader limits;
    a program built under the same key is the same program. Running it again skips reading, analysis and compilation, the way Python
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
        if not (self.enabled and PROGRAM_CACHE) or len(source) > self.MAX_SOURCE:
            return None
        return (source, backend, envr.ns.names_version, tuple(envr.tools.tools), tuple(envr.preludes), envr.strict_data,
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
    cap = limits.max_program_bytes
    # (a code point is at most 4 bytes of UTF-8: a short text needs no encoding to be measured)
    if len(source) * 4 > cap and len(source.encode("utf-8", "surrogatepass")) > cap:
        raise PtcError("program_too_large", f"program is larger than {limits.max_program_bytes} bytes")
    names: set = set()
    forms = read(source, max_depth=limits.max_depth, names=names)
    if len(names) > limits.max_symbols:
        raise PtcError("symbol_limit_exceeded", f"program uses {len(names)} distinct symbols and keywords "
                                                f"(limit {limits.max_symbols})")
    az = Analyzer(env)
    node = az.analyze_program(forms, may_define=not names.isdisjoint(DEFINING_HEADS))
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


BUSY_MESSAGE = ("this session is already running an evaluation (a tool called eval on its own session, "
                "or another thread is using it); evaluations of one session run one at a time")


def evaluate(envr: Environment, source: str, limits: Limits | None = None, *, commit_history=True,
             backend: str | None = None, admit=None) -> Result:
    """Evaluate `source` in `envr` transactionally (definitions and history change only on success).

    One evaluation at a time per environment: a second one started while the
    first runs (from a tool of the first, or from another thread) returns a
    `runtime_error` (details `reason: "session_busy"`) and changes nothing.
    `KeyboardInterrupt` and `SystemExit` roll the evaluation back and propagate.
    `admit`: see `transact`.
    """
    if not envr.busy.acquire(blocking=False):
        return Result("error", error=ErrorInfo("runtime_error", BUSY_MESSAGE, details={"reason": "session_busy"}))
    try:
        return transact(envr, source, limits or default_limits(), commit_history, backend, admit)
    finally:
        envr.busy.release()


def _program(envr: Environment, source: str, limits: Limits, meter: Meter, backend: str):
    """The built program of `source` in `envr`: from the environment's program cache, or read,
    analysed and built under the compile budget (`meter.compiling` until it is built)."""
    programs = envr.programs
    key = programs.key(envr, source, limits, backend) if programs.enabled else None
    main = programs.get(key) if key is not None else None
    if main is None:
        ms = limits.compile_timeout_ms
        if ms is not None:
            meter.compiling = (time.monotonic() + ms / 1000.0, ms)
        node, host_refs = analyze_source(source, envr.analyzer_env(), limits)
        main = build_main(node, host_refs, envr.globals, backend)
        meter.compiling = None
        if key is not None:
            programs.put(key, main)
    return main


def transact(envr: Environment, source: str, limits: Limits, commit_history: bool = True,
             backend: str | None = None, admit=None) -> Result:
    """One evaluation of `source` in `envr` as a transaction; the caller holds `envr.busy`.

    Reads, analyzes and builds the program (or takes it from the environment's
    program cache), runs it under a fresh meter and the guards, then commits
    the namespace's changes (and `*1` for an ordinary value) or rolls them back.
    A value larger than `max_result_bytes` is an error. `admit(status, value)`,
    when given, runs before a successful evaluation ("ok" or "returned")
    commits, with its definitions in place; it may raise PtcError to refuse
    the commit (the evaluation is rolled back and the error is its result).
    """
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
        tid = enter_guard(meter)
        try:
            try:
                main = _program(envr, source, limits, meter, backend or envr.backend)
                meter.start()
                value = main()
                meter.check()
            finally:
                meter.stop()
        finally:
            exit_guard(tid)
    except ReturnSignal as sig:
        status, value = "returned", sig.value
    except FailSignal as sig:
        status, value = "failed", sig.value
    except (KeyboardInterrupt, SystemExit):  # the host's, not the program's: undo, then let it through
        ns.rollback()
        raise
    except BaseException as exc:  # noqa: BLE001 - every failure becomes a typed error
        status, value, error = "error", None, to_error_info(exc)
        if error.kind == "timeout":
            late = late_ms(meter, time.monotonic())
            if late is not None:  # it could not be stopped within its grace period: say so
                error.details = {**(error.details or {}), "late_ms": late}
    finally:
        M.install(prev)
    if status != "error" and limits.max_result_bytes is not None:
        try:
            check_result_size(value, limits)
        except PtcError as exc:
            status, value, error = "error", None, to_error_info(exc)
    if admit is not None and status in ("ok", "returned"):
        try:
            admit(status, value)
        except PtcError as exc:
            status, value, error = "error", None, to_error_info(exc)
        except BaseException:  # a bug in the check, or the host's KeyboardInterrupt: nothing is committed
            ns.rollback()
            raise
    if status in ("ok", "returned"):
        ns.commit()
        if status == "ok" and commit_history:
            envr.history.append(value)
            del envr.history[:-3]
    else:
        ns.rollback()
    return Result(status, value, error, meter.prints, meter.tool_calls, (time.perf_counter() - t0) * 1000,
                  meter.pmap_calls)


# ------------------------------------------------------------------ the host's handle

class Session:
    """A user namespace kept across evaluations, with `*1 *2 *3` history.

    Definitions and history change only when an evaluation succeeds; `return`
    commits definitions but not history; a failure leaves both unchanged.
    One evaluation runs at a time: `eval` called while another evaluation of
    the same session runs (by one of its tools, or from another thread)
    returns a `runtime_error` (details `reason: "session_busy"`) at once and
    changes nothing. Use one Session per thread.

    `context`: {name: value} (each becomes `data/<name>`).
    `tools`: {name: callable or ptclisp.Tool} (or a list of Tools).
    `limits`: a `ptclisp.Limits` or a dict of its fields.
    `preludes`: one or a list of paths, prelude source texts or
    `ptclisp.prelude.Component`s; a prelude that does not compile or needs an
    ungranted tool raises `ptclisp.prelude.PreludeError` (a PtcError) here,
    while `run` reports it as an error result.
    Input of the wrong type or value raises TypeError or ValueError here.
    """

    def __init__(self, context=None, tools=None, limits: Limits | dict | None = None, preludes=None,
                 strict_data: bool = False, program_cache: bool = True):
        self.limits, self.prelude_sources = check_inputs(context, tools, limits, preludes, strict_data)
        self.env = _environment(context, tools, strict_data, self.prelude_sources, program_cache,
                                self._input_error)

    @staticmethod
    def _input_error(e: PtcError) -> Exception:
        """What the constructor raises for context it cannot convert: a ValueError for a host."""
        return ValueError(f"invalid session input: {e.message}")

    def eval(self, source: str, limits: Limits | dict | None = None) -> Result:
        """Evaluate one program in this session (`limits`, if given, replace the session's for this one)."""
        if limits is not None:
            try:
                limits = as_limits(limits)
            except (TypeError, ValueError) as exc:
                if not isinstance(source, str):
                    return _NOT_A_STRING()
                return Result("error", error=ErrorInfo("type_error", str(exc)))
        return _eval(self.env, source, limits or self.limits)

    @property
    def definitions(self) -> dict:
        """The session's definitions, name -> a copy of the value (see `detach`)."""
        ns = self.env.ns
        return dict(zip(ns.keys(), detach_all(ns.values())))

    @property
    def history(self) -> list:
        """Copies of `*1 *2 *3`, oldest first."""
        return detach_all(self.env.history)


def _detached(r: Result) -> Result:
    """`r` with its value replaced by an independent copy: a host changing what it got back
    cannot change the session's definitions, history or a cached program's constants."""
    t = type(r.value)
    if t is Vector or t is Map or t is Set:  # (anything else is returned as it is)
        try:
            r.value = detach(r.value)
        except PtcError as exc:  # a value nested too deeply to copy
            return Result("error", error=to_error_info(exc), prints=r.prints, tool_calls=r.tool_calls,
                          duration_ms=r.duration_ms, pmap_calls=r.pmap_calls)
    return r


def _environment(context, tools, strict_data: bool, prelude_sources: list, program_cache: bool,
                 input_error) -> Environment:
    """A Session's environment from checked inputs (raises as the Session constructor does:
    `input_error(e)` for context the language cannot hold)."""
    try:
        env = Environment(context, tools, strict_data=strict_data, program_cache=program_cache)
    except PtcError as e:  # host data the language cannot hold (a cycle, nesting too deep)
        raise input_error(e) from None
    if prelude_sources:
        from .prelude import attach_preludes  # loaded on first use: importing ptclisp does not need it
        attach_preludes(env, prelude_sources)
    return env


def _NOT_A_STRING() -> Result:
    return Result("error", error=ErrorInfo("type_error", "source must be a string"))


def _eval(env: Environment, source, limits: Limits) -> Result:
    """`Session.eval` once its limits are a checked Limits."""
    if not isinstance(source, str):
        return _NOT_A_STRING()
    if limits.isolation != "thread":  # a session's closures live in this process
        return Result("error", error=ErrorInfo("type_error", "a Session evaluates in this process; "
                                                             "isolation='process' is available for ptclisp.run"))
    try:
        return _detached(evaluate(env, source, limits))
    except Exception as exc:  # noqa: BLE001 - defence in depth: never raise to the host
        return Result("error", error=to_error_info(exc))


def run_in_thread(source: str, context=None, tools=None, limits: Limits | None = None, preludes=None,
                  strict_data: bool = False) -> Result:
    """`ptclisp.run` on this thread: a fresh Session, one evaluation; input errors are error Results.
    (The Session evaluates once, so it keeps no program cache.)"""
    try:
        limits, preludes = check_inputs(context, tools, limits, preludes, strict_data)
    except (ValueError, TypeError) as exc:
        return Result("error", error=ErrorInfo("type_error", str(exc)))
    return run_checked(source, context, tools, limits, preludes, strict_data)


def run_checked(source: str, context, tools, limits: Limits, preludes: list, strict_data: bool) -> Result:
    """`run_in_thread` for inputs `check_inputs` has passed and normalised (`ptclisp.run` checks
    them first): what a fresh Session and one `eval` do, without the Session object."""
    try:
        env = _environment(context, tools, strict_data, preludes, False, Session._input_error)
    except (ValueError, TypeError) as exc:
        return Result("error", error=ErrorInfo("type_error", str(exc)))
    except PtcError as exc:
        return Result("error", error=to_error_info(exc))
    try:
        return _eval(env, source, limits)
    finally:
        env.release()
