"""The public embedding API: run, Session, read_string, equal, pr_str, to_python, from_python.

Every entry point returns a `Result` or a value; no input makes `run` or
`Session.eval` raise (a Python exception escaping them is a bug), except the
host's own KeyboardInterrupt or SystemExit, which roll the evaluation back
and propagate. What a host passes in is checked by `ptclisp.inputs`.
"""
from __future__ import annotations

from .convert import detach, detach_all
from .errors import PtcError
from .evaluator import Environment, ErrorInfo, Result, evaluate, to_error_info
from .inputs import as_limits, check_inputs
from .meter import Limits
from .printer import pr_str as _pr_str
from .reader import read_string as _read_string
from .values import equal as _equal


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
        try:
            self.env = Environment(context, tools, strict_data=strict_data)
        except PtcError as e:
            raise ValueError(f"invalid session input: {e.message}") from None
        self.env.programs.enabled = program_cache
        if self.prelude_sources:
            from .prelude import attach_preludes
            attach_preludes(self.env, self.prelude_sources)

    def eval(self, source: str, limits: Limits | dict | None = None) -> Result:
        """Evaluate one program in this session (`limits`, if given, replace the session's for this one)."""
        if not isinstance(source, str):
            return Result("error", error=ErrorInfo("type_error", "source must be a string"))
        if limits is not None:
            try:
                limits = as_limits(limits)
            except (TypeError, ValueError) as exc:
                return Result("error", error=ErrorInfo("type_error", str(exc)))
        if (limits or self.limits).isolation != "thread":  # a session's closures live in this process
            return Result("error", error=ErrorInfo("type_error", "a Session evaluates in this process; "
                                                                 "isolation='process' is available for ptclisp.run"))
        try:
            return _detached(evaluate(self.env, source, limits or self.limits))
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
    if r.value is not None:
        try:
            r.value = detach(r.value)
        except PtcError as exc:  # a value nested too deeply to copy
            return Result("error", error=to_error_info(exc), prints=r.prints, tool_calls=r.tool_calls,
                          duration_ms=r.duration_ms, pmap_calls=r.pmap_calls)
    return r


def run(source: str, context=None, tools=None, limits: Limits | dict | None = None, preludes=None,
        strict_data: bool = False, isolation: str | None = None) -> Result:
    """Evaluate one program with a fresh namespace (the one-shot form of Session).

    Takes what Session takes; input of the wrong type or value is an error
    Result (kind `type_error`) rather than an exception.
    `isolation="process"` (or `Limits(isolation="process")`) evaluates in a child
    process under OS memory and CPU limits; see docs/security.md.
    """
    try:
        limits, preludes = check_inputs(context, tools, limits, preludes, strict_data)
    except (TypeError, ValueError) as exc:
        return Result("error", error=ErrorInfo("type_error", str(exc)))
    mode = isolation or limits.isolation
    if mode == "process":
        from .isolation import run_in_process
        return run_in_process(source, context, tools, limits, preludes, strict_data)
    if mode != "thread":
        return Result("error", error=ErrorInfo("type_error", f"isolation must be 'thread' or 'process', got {mode!r}"))
    try:
        s = Session(context=context, tools=tools, limits=limits, preludes=preludes, strict_data=strict_data)
    except (ValueError, TypeError) as exc:
        return Result("error", error=ErrorInfo("type_error", str(exc)))
    except PtcError as exc:
        return Result("error", error=to_error_info(exc))
    return s.eval(source)


def read_string(text: str):
    """Read one PTC literal as data (no evaluation). Raises PtcError (parse_error) on bad input."""
    return _read_string(text)


def equal(a, b) -> bool:
    """The language's `=`, except that NaN equals NaN here.

    Inside programs `(= ##NaN ##NaN)` is false, as the language says; a host
    comparing two results wants "the same value", so this entry point treats
    NaN as equal to itself (also inside collections).
    """
    return _equal(a, b, nan_equal=True)


def pr_str(value) -> str:
    """The language's `pr-str`."""
    return _pr_str(value)
