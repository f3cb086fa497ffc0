"""The public embedding API: run, Session, read_string, equal, pr_str, to_python, from_python.

Every entry point returns a `Result` or a value; no input makes `run` or
`Session.eval` raise (a Python exception escaping them is a bug), except the
host's own KeyboardInterrupt or SystemExit, which roll the evaluation back
and propagate. What a host passes in is checked by `ptclisp.host.inputs`.
`Session` itself is ptclisp.session's; `run` decides where a program runs
(the `isolation` argument, else `Limits.isolation`) and hands it to the thread (`session.run_once`, which
compiles and runs it through ptclisp.pipeline) or to a worker process
(`isolation.process.run_in_process`, imported with the first process-isolated run).
"""
from __future__ import annotations

from .interchange.python import from_python, to_python
from .runtime.failures import ErrorInfo
from .host.inputs import check_inputs
from .runtime.meter import Limits
from .values.text import pr_str as _pr_str
from .reader.parser import read_string as _read_string
from .session import Result, Session, run_once
from .errors import PtcError
from .values import Map, Set, Vector
from .values import equal as _equal
from .values.walk import ExpansionBudget, map_parts, set_parts, vector_parts, walk

__all__ = ["run", "Session", "read_string", "equal", "pr_str", "to_python", "from_python"]

def run(source: str, context=None, tools=None, limits: Limits | dict | None = None, preludes=None,
        strict_data: bool = False, isolation: str | None = None) -> Result:
    """Evaluate one program with a fresh namespace (the one-shot form of Session).

    Takes what Session takes; input of the wrong type or value is an error
    Result (kind `type_error`) rather than an exception.
    `isolation` says where the program runs: "thread" (this process, the default)
    or "process" (a child process under OS memory and CPU limits; see
    docs/security.md). `Limits.isolation` says the same; when both are given the
    `isolation` argument wins, so `run(src, isolation="thread",
    limits=Limits(isolation="process"))` runs in this process.
    """
    try:
        limits, preludes = check_inputs(context, tools, limits, preludes, strict_data)
    except (TypeError, ValueError) as exc:
        return Result("error", error=ErrorInfo("type_error", str(exc)))
    # where it runs, decided here once: the argument when given, else the limits' (checked by Limits)
    mode = limits.isolation if isolation is None else isolation
    if mode == "thread":
        return run_once(source, context, tools, limits, preludes, strict_data)
    if mode == "process":
        from .isolation.process import run_in_process
        return run_in_process(source, context, tools, limits, preludes, strict_data)
    return Result("error", error=ErrorInfo("type_error", f"isolation must be 'thread' or 'process', got {mode!r}"))


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
    """The language's `pr-str`, for the host: a value that shares its parts so widely that its text
    would stand for far more than it holds (`values.walk.ExpansionBudget`: more than twice its cells,
    past a floor of a million) is refused with a `memory_exceeded` PtcError instead of being written out."""
    if type(value) in (Vector, Map, Set):
        budget = ExpansionBudget(value)

        def parts(x, depth):
            n = len(x)
            if not budget.add(2 * n if type(x) is Map else n):
                raise PtcError("memory_exceeded", f"the value shares its parts so widely that its text would have "
                                                  f"more than {budget.limit} parts (twice what it holds, at least "
                                                  f"{budget.FLOOR}); print a summary of it",
                               details={"limit": "conversion_cells", "value": budget.limit})
            return vector_parts(x, depth) if type(x) is Vector else map_parts(x, depth) if type(x) is Map \
                else set_parts(x, depth)
        walk(value, vector=parts, map=parts, set=parts)
    return _pr_str(value)
