"""Sessions: the host's handle on a namespace kept across evaluations, and the one-shot run.

Owns `Session` (the host's handle: a user namespace kept across
evaluations, `*1 *2 *3`, granted tools and data, attached preludes),
`Environment` (what generated code runs against: the namespace, data,
tools, history, the program cache), `environment` (an Environment from
checked inputs, its preludes attached) and `run_once` (what `ptclisp.run`
does on this thread). Compiling and running a program is ptclisp.pipeline's
(`evaluate`, `transact`): a Session and a one-shot run hand it their
Environment. `Namespace` (runtime/namespace.py) and `ErrorInfo`
(runtime/failures.py) live in lower modules, since the prelude loader and the
back ends use them too.

The builtin families are loaded (`ptclisp.lib.load()`, see `load_builtins`)
when the first Environment is made, not when this module is imported.
Imports the library (to load it), the pipeline, the analyzer's Env, the
bytecode runtime table, tools, inputs, namespace, convert, errors, failures,
and the prelude loader when a session first attaches a prelude.
"""
from __future__ import annotations

import threading

from . import lib
from .analyzer import Env
from .backends.table import runtime_table
from .errors import PtcError
from .host.inputs import as_limits, check_inputs
from .host.tools import ToolNames, ToolSet
from .interchange.python import detach, detach_all, from_python
from .pipeline import DEFAULT_BACKEND, NO_PROGRAMS, ProgramCache, Result, evaluate, transact
from .runtime.failures import ErrorInfo, to_error_info
from .runtime.meter import Limits
from .runtime.namespace import Namespace
from .values import Map, Set, Vector


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
        self.programs = ProgramCache() if program_cache else NO_PROGRAMS
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
        self.env = environment(context, tools, strict_data, self.prelude_sources, program_cache)

    @classmethod
    def over(cls, env: Environment, limits: Limits, prelude_sources: list = ()) -> "Session":
        """A Session over an Environment already built from checked inputs (`environment`): what a
        host that makes its own environment (a mission's, with its tool table) holds."""
        s = cls.__new__(cls)
        s.limits, s.prelude_sources, s.env = limits, list(prelude_sources), env
        return s

    def eval(self, source: str, limits: Limits | dict | None = None) -> Result:
        """Evaluate one program in this session (`limits`, if given, replace the session's for this one).
        A session evaluates in this process: limits with `isolation="process"` are a `type_error`."""
        if limits is not None:
            try:
                limits = as_limits(limits)
            except (TypeError, ValueError) as exc:
                if not isinstance(source, str):
                    return _NOT_A_STRING()
                return Result("error", error=ErrorInfo("type_error", str(exc)))
        else:
            limits = self.limits
        if not isinstance(source, str):
            return _NOT_A_STRING()
        if limits.isolation != "thread":  # a session's closures live in this process
            return Result("error", error=ErrorInfo("type_error", "a Session evaluates in this process; "
                                                                 "isolation='process' is available for ptclisp.run"))
        try:
            return _detached(evaluate(self.env, source, limits))
        except Exception as exc:  # noqa: BLE001 - defence in depth: never raise to the host
            return Result("error", error=to_error_info(exc))

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


def _value_error(e: PtcError) -> Exception:
    """What building an environment raises for context it cannot convert: a ValueError for a host."""
    return ValueError(f"invalid session input: {e.message}")


def environment(context, tools, strict_data: bool, prelude_sources: list, program_cache: bool = True,
                input_error=_value_error) -> Environment:
    """An Environment from checked inputs (`host.inputs.check_inputs`), its preludes attached.
    Context the language cannot hold (a cycle, nesting too deep) raises `input_error(e)`; a prelude
    that does not compile raises `ptclisp.prelude.PreludeError`."""
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


def run_once(source: str, context, tools, limits: Limits, preludes: list, strict_data: bool) -> Result:
    """One evaluation in a fresh environment, on this thread, for inputs `check_inputs` has passed
    and normalised: what `ptclisp.run` does once it has chosen the thread (and what an isolated
    worker does in its process). Keeps no program cache; input errors are error Results."""
    try:
        env = environment(context, tools, strict_data, preludes, False)
    except (ValueError, TypeError) as exc:
        return Result("error", error=ErrorInfo("type_error", str(exc)))
    except PtcError as exc:
        return Result("error", error=to_error_info(exc))
    try:
        if not isinstance(source, str):
            return _NOT_A_STRING()
        # the only handle on `env` is here: no lock is needed to keep evaluations apart
        return _detached(transact(env, source, limits))
    except Exception as exc:  # noqa: BLE001 - defence in depth: never raise to the host
        return Result("error", error=to_error_info(exc))
    finally:
        env.release()
