"""The REPL run as a script: `ptclisp repl -e EXPR ... -l FILE ... [--format text|jsonl]`.

The loads and expressions are evaluated in the order given, in one session, and the
command exits. Each top-level form of an `-e` expression is one evaluation, as typed
input is; an `-l FILE` is one evaluation of the whole file, as `:load` is.

`--format text` shows what the piped REPL shows (values on stdout, errors with
their carets on stderr). `--format jsonl` prints one JSON object per evaluation:

    {"input": "-e 1", "status": "ok", "value": 3, "text": "3", "prints": [], "error": null}

`status` is ok, returned, failed or error (`ended` when a session limit stopped
the session); `value` is the value as JSON (null when it has no JSON form: `text`
always holds it in Lisp notation); `error` has kind, message, line and column.

Without `--continue-on-error` the first error or fail stops the script. The exit
status is 2 if any evaluation ended in an error, else 1 if any called `fail`, 6
if a session limit ended the session, else 0.
"""
from __future__ import annotations

from ..errors import PtcError
from ..exit_codes import LIMIT_HIT
from ..values.preview import PreviewCaps, preview
from ..reader.parser import read, strip_bom
from .headless import Repl, _line_starts, _positioned_source, record_sources

EVAL, LOAD = "eval", "load"


def run_script(repl: Repl, steps: list, *, fmt: str = "text", continue_on_error: bool = False,
               read_file=None, stdout=None, stderr=None) -> int:
    """Evaluate `steps` ((EVAL, text) or (LOAD, path), in order) in `repl`'s session; the exit status.

    `read_file(path) -> text` reads a load (it raises for an unreadable file, which stops the script
    with exit 2 whatever --continue-on-error says)."""
    import sys
    out, err = stdout or sys.stdout, stderr or sys.stderr
    seen: set = set()
    n_eval = 0
    for kind, arg in steps:
        if kind == EVAL:
            n_eval += 1
            label, text = f"-e {n_eval}", arg
        else:
            label, text = f"-l {arg}", read_file(arg)
        for record, lines in _evaluations(repl, kind, label, text, arg):
            _emit(record, lines, fmt, out, err)
            seen.add(record["status"])
            if record["status"] == "ended" or (record["status"] in ("error", "failed") and not continue_on_error):
                return _exit_status(seen)
    return _exit_status(seen)


def _exit_status(seen: set) -> int:
    return 2 if "error" in seen else 1 if "failed" in seen else LIMIT_HIT if "ended" in seen else 0


def _evaluations(repl: Repl, kind: str, label: str, text: str, arg: str):
    """(record, text lines) for each evaluation of one step."""
    name = arg if kind == LOAD else f"<{label}>"
    text = strip_bom(text)
    try:
        forms = read(text)
    except PtcError as exc:
        yield _error_record(label, exc.kind, exc.message, exc.span), repl.error_lines(
            exc.kind, exc.message, exc.span, text, name)
        return
    starts = _line_starts(text)
    units = [(_positioned_source(text, starts, f.span), [f], f.span) for f in forms] if kind == EVAL \
        else [(text, forms, None)]
    for src, unit_forms, span in units:
        result = repl.eval_source(src)
        if result is None:
            yield {"input": label, "status": "ended", "value": None, "text": None, "prints": [],
                   "error": {"kind": "session_limit", "message": repl.ended_by, "line": None, "column": None}}, \
                [("error", repl.ended_by)]
            return
        if result.status in ("ok", "returned"):
            record_sources(repl.session, unit_forms, text, starts)
        yield _record(repl, label, result), repl.result_lines(result, text, span, name)


def _record(repl: Repl, label: str, result) -> dict:
    from ..interchange.json_out import JsonValueError, to_json
    record = {"input": label, "status": result.status, "value": None, "text": None,
              "prints": list(result.prints), "error": None}
    if result.status == "error":
        e = result.error
        record["error"] = _error(e.kind, e.message, e.span)
        return record
    record["text"] = preview(result.value, PreviewCaps(chars=repl.config.preview_chars))
    try:
        record["value"] = to_json(result.value)
    except JsonValueError:
        pass   # no JSON form: `text` has it
    return record


def _error(kind: str, message: str, span) -> dict:
    return {"kind": kind, "message": message, "line": span.line if span else None,
            "column": span.col if span else None}


def _error_record(label: str, kind: str, message: str, span) -> dict:
    return {"input": label, "status": "error", "value": None, "text": None, "prints": [],
            "error": _error(kind, message, span)}


def _emit(record: dict, lines, fmt: str, out, err) -> None:
    if fmt == "jsonl":
        from ..interchange.json_out import write_json
        write_json(out, record)
        out.flush()
        return
    for style, text in lines:
        stream = err if style in ("error", "error-detail", "caret", "fail") else out
        stream.write(text + "\n")
        stream.flush()
