"""The pipeline of one evaluation: compile a program, then run it as a transaction.

Every program ptclisp runs or checks passes through here (docs/spec/runtime.md §1):

* **compile**: `read_program` (the size gate, the reader, the symbol budget),
  `analyze` (the analyzer against an environment's names), `build` (one of the
  two back ends), and `program` (the environment's `ProgramCache` around the three);
* **run**: `transact` runs the built program under a fresh meter and the guards,
  then commits the namespace's changes and `*1` or rolls them back; `evaluate` is
  `transact` under the environment's one-evaluation-at-a-time lock.

`Session`, `ptclisp.run` (both in ptclisp.session), missions (agent/mission.py),
`ptclisp check` (tooling/check.py), the prelude compiler (prelude/compiling.py) and
the language server read and analyze through `read_program`, `analyze`,
`check_program` and `analyzer`; this is the one module outside the analyzer package
that constructs an `Analyzer`.

What a program runs against (`Environment`: namespace, data, tools, history, the
program cache) is ptclisp.session's; the functions here read only the attributes
they name, so this module sits below the prelude loader, which compiles through it.
Imports the reader, analyzer, both back ends, meter, guards, failures and errors.
"""
from __future__ import annotations

import time

import attrs

from .analyzer import DEFINING_HEADS, Analyzer, Env
from .backends.bytecode import compile_node, register_fn_meta
from .backends.closures import Builder
from .errors import FailSignal, PtcError, ReturnSignal
from .reader.parser import read
from .runtime import meter as M
from .runtime.failures import ErrorInfo, to_error_info
from .runtime.guards import check_result_size, enter_guard, exit_guard, late_ms
from .runtime.meter import Limits, Meter, default_limits


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


# ------------------------------------------------------------------ compiling

def read_program(source: str, limits: Limits, *, defining: bool = False):
    """The size gate, the reader and the symbol budget: `source` -> its forms (raises PtcError:
    `program_too_large`, a read error, `symbol_limit_exceeded`). With `defining`, returns
    (forms, may_define): whether the reader saw a head that can define a name."""
    cap = limits.max_program_bytes
    # (a code point is at most 4 bytes of UTF-8: a short text needs no encoding to be measured)
    if len(source) * 4 > cap and len(source.encode("utf-8", "surrogatepass")) > cap:
        raise PtcError("program_too_large", f"program is larger than {limits.max_program_bytes} bytes")
    names: set = set()
    forms = read(source, max_depth=limits.max_depth, names=names)
    if len(names) > limits.max_symbols:
        raise PtcError("symbol_limit_exceeded", f"program uses {len(names)} distinct symbols and keywords "
                                                f"(limit {limits.max_symbols})")
    return (forms, not names.isdisjoint(DEFINING_HEADS)) if defining else forms


def analyzer(env: Env | None = None) -> Analyzer:
    """An analyzer over `env` (the names a program may use), for a caller that analyzes definition by
    definition (the prelude compiler, the language server) rather than a whole program."""
    return Analyzer(env if env is not None else Env())


def defined_names(forms) -> set[str]:
    """Names that `def`/`defn` forms anywhere in `forms` introduce, by the analyzer's own rule (so a
    check that analyzes form by form and a run of the whole program agree on what is defined)."""
    az = Analyzer(Env())
    az._collect_defs(forms)
    return set(az.program_defs)


def analyze(source: str, env: Env, limits: Limits):
    """Compile up to the back end: `source` -> (core AST, host refs). Raises PtcError."""
    forms, may_define = read_program(source, limits, defining=True)
    az = Analyzer(env)
    node = az.analyze_program(forms, may_define=may_define)
    return node, az.host_refs


def check_program(source: str, env: Env, limits: Limits | None = None, check_forms=None):
    """Read and analyze `source` against `env` without building or running it; returns its forms.
    `check_forms(forms)`, when given, runs between reading and analysis (it may raise PtcError).
    Raises PtcError for the first problem."""
    forms = read_program(source, limits or default_limits())
    if check_forms is not None:
        check_forms(forms)
    Analyzer(env).analyze_program(forms)
    return forms


# Back ends: "tiered" builds the program into closures and compiles loops and hot
# functions to bytecode; "compiled" compiles the whole program to bytecode.
BACKENDS = ("tiered", "compiled")
DEFAULT_BACKEND = "tiered"


def build(node, host_refs, g: dict, backend: str = DEFAULT_BACKEND):
    """The zero-argument callable that runs an analyzed program in the environment globals `g`."""
    if backend == "compiled":
        code, consts, meta = compile_node(node, host_refs)
        register_fn_meta(code, meta)
        exec(code, g)  # noqa: S102 - code generated by our compiler from analyzed PTC forms
        return g.pop("__ptc_factory__")(*consts)
    return Builder(g, host_refs).build_program(node)


# the switch for every environment's program cache (off: each evaluation reads, analyses and
# builds its program; `fastpaths.general_path` turns it off with the other fast paths)
PROGRAM_CACHE = True


class ProgramCache:
    """Built programs of one environment, keyed by source text and everything analysis reads.

    Analysis depends on the source, the set of user names defined (not their values: the
    namespace's `names_version` changes when a name is first defined or rolled away, not when
    one is defined again, as a program that defines its helpers does on every run), the tools,
    the attached preludes (attaching one clears the cache), strict data and the reader limits;
    a program built under the same key is the same program. Running it again skips reading,
    analysis and compilation, the way Python reuses a function's code object.
    """

    MAX_ENTRIES = 64
    MAX_SOURCE = 64 * 1024

    def __init__(self, enabled: bool = True):
        self.enabled = enabled
        self.entries: dict = {}
        # keys evaluated once: a program is kept only when its text comes back (most agent
        # turns are new text, and holding every built program would cost them memory and time)
        self.seen: dict = {}

    def key(self, envr, source: str, limits: Limits, backend: str):
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


# the cache of every environment that keeps none (a one-shot run's): disabled, so never filled
NO_PROGRAMS = ProgramCache(False)


def program(envr, source: str, limits: Limits, meter: Meter, backend: str):
    """The built program of `source` in environment `envr`: from its program cache, or read, analysed
    and built under the compile budget (`meter.compiling` until it is built)."""
    programs = envr.programs
    key = programs.key(envr, source, limits, backend) if programs.enabled else None
    main = programs.get(key) if key is not None else None
    if main is None:
        ms = limits.compile_timeout_ms
        if ms is not None:
            meter.compiling = (time.monotonic() + ms / 1000.0, ms)
        forms, may_define = read_program(source, limits, defining=True)
        az = Analyzer(envr.analyzer_env())   # (what `analyze` does, one call shallower on every evaluation)
        main = build(az.analyze_program(forms, may_define=may_define), az.host_refs, envr.globals, backend)
        meter.compiling = None
        if key is not None:
            programs.put(key, main)
    return main


# ------------------------------------------------------------------ running

BUSY_MESSAGE = ("this session is already running an evaluation (a tool called eval on its own session, "
                "or another thread is using it); evaluations of one session run one at a time")


def busy_result() -> Result:
    """What an evaluation started while its environment runs another one answers."""
    return Result("error", error=ErrorInfo("runtime_error", BUSY_MESSAGE, details={"reason": "session_busy"}))


def evaluate(envr, source: str, limits: Limits | None = None, *, commit_history=True,
             backend: str | None = None, admit=None) -> Result:
    """Evaluate `source` in `envr` transactionally (definitions and history change only on success).

    One evaluation at a time per environment: a second one started while the
    first runs (from a tool of the first, or from another thread) returns a
    `runtime_error` (details `reason: "session_busy"`) and changes nothing.
    `KeyboardInterrupt` and `SystemExit` roll the evaluation back and propagate.
    `admit`: see `transact`.
    """
    if not envr.busy.acquire(blocking=False):
        return busy_result()
    try:
        return transact(envr, source, limits or default_limits(), commit_history, backend, admit)
    finally:
        envr.busy.release()


def transact(envr, source: str, limits: Limits, commit_history: bool = True,
             backend: str | None = None, admit=None) -> Result:
    """One evaluation of `source` in `envr` as a transaction; the caller holds `envr.busy` (or has
    the only handle on a fresh environment, as a one-shot run does).

    Compiles the program (`program`), runs it under a fresh meter and the guards,
    then commits the namespace's changes (and `*1` for an ordinary value) or rolls
    them back. A value larger than `max_result_bytes` is an error. `admit(status,
    value)`, when given, runs before a successful evaluation ("ok" or "returned")
    commits, with its definitions in place; it may raise PtcError to refuse the
    commit (the evaluation is rolled back and the error is its result).
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
                main = program(envr, source, limits, meter, backend or envr.backend)
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
        status, value, error = "error", None, _failure(exc, meter)
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


def _failure(exc: BaseException, meter: Meter) -> ErrorInfo:
    """The typed error an evaluation ended with; a timeout that could not be stopped within its grace
    period says by how much it was late."""
    error = to_error_info(exc)
    if error.kind == "timeout":
        late = late_ms(meter, time.monotonic())
        if late is not None:
            error.details = {**(error.details or {}), "late_ms": late}
    return error
