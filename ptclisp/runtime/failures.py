"""Error translation: whatever ended an evaluation, as a typed `PtcError` and as the host's `ErrorInfo`.

Owns `ErrorInfo` (kind, message, span, details: what a `Result` carries),
`to_ptc_error` (the PtcError for any exception: the hard stop, exhausted
recursion or memory, the call errors Python raises at a call the program
made, and otherwise an `internal_error` carrying the traceback), and
`span_from_traceback` (the PTC position recovered from the traceback frames
of generated code, file `errors.PTC_FILENAME`).

Sits just above the registry: it names builtins in arity errors through it.
Imports errors, guards, meter and the builtin registry.
"""
from __future__ import annotations

import itertools
import os
import re

import attrs

from . import meter as M
from ..errors import PTC_FILENAME, PtcError, Span, logger
from .guards import HardStop, hard_stop_error, package_file
from .namespace import unbound_error
from ..registry.builtins import BUILTINS


@attrs.define(slots=True)
class ErrorInfo:
    kind: str
    message: str
    span: Span | None = None
    details: dict = attrs.Factory(dict)

    def __str__(self):
        where = f" (line {self.span.line}, column {self.span.col})" if self.span else ""
        return f"{self.kind}: {self.message}{where}"


def to_error_info(exc: BaseException) -> ErrorInfo:
    """The ErrorInfo for an exception that ended an evaluation (its span recovered from the traceback)."""
    err = to_ptc_error(exc)
    span = err.span or span_from_traceback(exc)
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
    if type(exc) is KeyError:
        err = _unbound_global(exc)
        if err is not None:
            return err
    return internal_error(exc)


def _unbound_global(exc: KeyError) -> PtcError | None:
    """unbound_var for the KeyError generated code raises reading a global no definition made
    (`_nsf[name]`, the namespace's exact-dict twin), else None: the innermost frame must be
    generated code whose `_nsf` lacks the missing key, a name."""
    tb = exc.__traceback__
    if tb is None or len(exc.args) != 1 or type(exc.args[0]) is not str:
        return None
    while tb.tb_next is not None:
        tb = tb.tb_next
    frame = tb.tb_frame
    fast = frame.f_globals.get("_nsf")
    name = exc.args[0]
    if not frame.f_code.co_filename.startswith("<ptc") or type(fast) is not dict or name in fast:
        return None
    return unbound_error(name)


def internal_error(exc: BaseException) -> PtcError:
    """An `internal_error` for an unexpected exception: logged, with the traceback in its details."""
    import traceback
    logger().error("internal error in ptclisp evaluation", exc_info=exc)
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
        return fn_arity_error(fname, rest)
    specs = _builtins_by_code().get(callee)
    if not specs:
        return None
    arities = {spec.arity_text() for spec in specs}
    expects = f" (expects {arities.pop()})" if len(arities) == 1 else ""
    return PtcError("arity_error", f"{' or '.join(spec.name for spec in specs)} called with the wrong number "
                                   f"of arguments{expects}")


_FN_NAME = re.compile(r"fn__(\w*)__([ar])(\d+)__\d+")   # (greedy: the last such suffix is the real one)
_MISSING = re.compile(r"missing (\d+) required positional argument")
_GIVEN = re.compile(r"takes \d+ positional arguments? but (\d+) (?:was|were) given")


def fn_arity_error(fname: str, detail: str) -> PtcError | None:
    """The closure tier's arity_mismatch for Python's arity TypeError (`detail`: its text after the
    callee) calling the compiled fn named `fname` (compiler.emit.fn_code_name), else None."""
    m = _FN_NAME.fullmatch(fname)
    if m is None:
        return None
    label = re.sub(r"_([0-9a-f]+)_", lambda h: chr(int(h.group(1), 16)), m.group(1))
    nparams = int(m.group(3))
    missing, given = _MISSING.search(detail), _GIVEN.search(detail)
    if missing is not None:
        got = nparams - int(missing.group(1))
    elif given is not None:
        got = int(given.group(1))
    else:
        return None
    want = f"at least {nparams}" if m.group(2) == "r" else f"{nparams}"
    return PtcError("arity_mismatch", f"wrong number of arguments to {label}: expects {want}, got {got}")


# the modules of ptclisp that call builtins, recognised by file
_LIB = package_file("lib") + os.sep
_CALLERS = frozenset((package_file("backends", "closures.py"), package_file("backends", "runtime.py")))
# a single function of a module that otherwise does its own work: file -> function name
_CALLER_FUNCTIONS = {package_file("parallel.py"): "_work", package_file("prelude", "attach.py"): "contract_checked"}


_BY_CODE: dict | None = None


def _builtins_by_code() -> dict:
    """Qualified name of a builtin's code -> the builtins running that code (several builtins made
    by one factory share it), to name them in the arity errors Python raises."""
    global _BY_CODE
    if _BY_CODE is None:
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


def span_from_traceback(exc: BaseException, codes=None, filename: str = PTC_FILENAME) -> Span | None:
    """The position of the innermost generated-code frame in `exc`'s traceback that was running
    code with a PTC position (with `codes`, only frames running one of those code objects; with
    `filename`, frames of that generated file, e.g. one prelude namespace's code).

    Generated code that maps to no PTC form carries line 0 (compiler._PositionedAst): such a
    frame is passed over, so the error points at the form that called it, or has no position,
    rather than a made-up line 1, column 1."""
    tb = exc.__traceback__
    matching = []
    while tb is not None:   # (a deep recursion has thousands of frames: only the innermost are decoded)
        code = tb.tb_frame.f_code
        if code.co_filename == filename and (codes is None or code in codes):
            matching.append(tb)
        tb = tb.tb_next
    for tb in reversed(matching):
        if tb.tb_lasti < 0:
            continue
        pos = next(itertools.islice(tb.tb_frame.f_code.co_positions(), tb.tb_lasti // 2, None), None)
        if pos and pos[0] and pos[2] is not None:
            return Span(pos[0], pos[2] + 1)
    return None
