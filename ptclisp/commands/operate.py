"""What every agent-running command shares: exit classes, failure detail, --envelope, --output, retries.

The agent-running commands are `ptclisp agent`, `ptclisp run FILE --model
...` (a workflow program) and `ptclisp run DIR` (a project).  This module
owns

* `EXIT_CLASSES` (the text --help and the docs show) and `exit_class(error)`,
  which sorts a `RunError` into the classes of `ptclisp.exit_codes`;
* `CommandFailure` and its classes `DocumentError` (3), `NotReady` (4),
  `OutputError` (7): a failure before or after the run, with its class
  (defined in ptclisp/exit_codes.py, where the libraries raise them from);
* `add_operation_flags(parser)`: --envelope, --output, --retries,
  --provider-timeout, --timeout-ms, --env-file, --text-protocol;
* `load_env_file` (credentials are read only from a file named with
  --env-file, never implicitly), `check_credentials` (a missing key is
  exit 4 before anything runs), `provider_options` (timeouts, retries and
  the run's deadline for the HTTP providers);
* `failure_lines` (one or two lines on stderr that say what went wrong),
  `write_output` (atomic, never overwrites) and `finish` (prints the value,
  the `--json` record or the envelope, writes --output, returns the class).

Imports exit_codes (the classes and the failures that carry them: re-exported here),
envelope, json_out, ptclisp.commands.common, the printer, the meter's time bound and the values it
reads; the commands (`main.py`, `agent.py`, `project.py` of ptclisp/commands/) import this module.
"""
from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time

from .. import exit_codes as X
from ..exit_codes import CommandFailure, DocumentError, NotReady, OutputError, UsageError
from ..interchange.json_out import JsonValueError, dumps, to_json, write_json
from ..values.text import pr_str
from ..runtime.meter import MAX_TIME_MS
from ..values import Keyword, Map
from .common import read_text
from .envelope import envelope

EXIT_CLASSES = """exit status:
  0  the run finished with a value
  2  bad arguments (unknown flag, unreadable file named on the command line, invalid agent option)
  3  an invalid document (project file, JSON Schema, prelude or workflow source, replay or script file)
  4  the provider is not ready (no API key, authentication refused, unknown model or endpoint)
  5  the workflow or the agent failed (turn limit, the model's (fail ...), result contract not met,
     an error in the workflow, a provider that kept failing after the retries)
  6  a limit was hit (--timeout-ms, token or call budget, a resource limit of the workflow)
  7  the output could not be written (--output names an existing file, or writing failed)"""

DEFAULT_RETRIES = 2
DEFAULT_BACKOFF_S = 0.5
DEFAULT_PROVIDER_TIMEOUT_S = 120.0
MAX_SHOWN_REASON = 400

#: Error kinds of the language that mean "the source is wrong" (found before anything ran).
_SOURCE_KINDS = frozenset({
    "program_too_large", "parse_error", "symbol_limit_exceeded", "invalid_form", "invalid_arity",
    "invalid_cond_form", "invalid_thread_form", "invalid_placeholder", "unsupported_pattern", "duplicate_key",
    "unsupported_java_class", "unsupported_java_member", "java_arity_error", "compile_error",
    "unbound_var", "unknown_tool",
})
#: Reasons that mean "a limit was hit".
_LIMIT_REASONS = frozenset({
    "capability_quota", "model_output_truncated", "timeout", "memory_exceeded", "loop_limit_exceeded",
    "tool_call_limit_exceeded", "compile_timeout", "compile_memory_exceeded", "parallel_capacity_exceeded",
})
#: Provider failure reasons that mean "fix the configuration" rather than "the run failed".
_NOT_READY = frozenset({"authentication_failed", "payment_required", "denied", "not_found",
                        "tool_calling_unsupported"})


def failure_of(exc: Exception) -> CommandFailure:
    """`exc` as a CommandFailure: a UsageError (or any ValueError/TypeError of the setup) is class 2."""
    if isinstance(exc, CommandFailure):
        return exc
    failure = CommandFailure(str(exc), "usage")
    failure.code = getattr(exc, "code", X.USAGE)   # a RefusedDocument (a FIFO, a device): 3
    return failure


# ------------------------------------------------------------------ flags

def _timeout_ms(text: str) -> int:
    try:
        ms = int(text)
    except ValueError:
        ms = 0
    if not 1 <= ms <= MAX_TIME_MS:
        raise argparse.ArgumentTypeError(f"expected a whole number of milliseconds from 1 to {MAX_TIME_MS}, "
                                         f"got {text[:40]!r}")
    return ms


def _number_in(text: str, convert, low, high, *, low_open: bool = False, expected: str):
    """`text` as `convert` reads it when it lies in [low, high] (above low with `low_open`); otherwise the
    argparse usage error "expected <expected>, got '<text>'"."""
    try:
        x = convert(text)
    except ValueError:
        x = None
    if x is None or not (low < x if low_open else low <= x) or not x <= high:
        raise argparse.ArgumentTypeError(f"expected {expected}, got {text[:40]!r}")
    return x


def _retries(text: str) -> int:
    return _number_in(text, int, 0, 10, expected="a number of retries from 0 to 10")


def _seconds(text: str) -> float:
    return _number_in(text, float, 0, 3600, low_open=True, expected="seconds (more than 0, at most 3600)")


def add_operation_flags(parser, *, timeout_ms: bool = True, title: str = "operation") -> None:
    """Add the flags every agent-running command shares (see the module docstring)."""
    g = parser.add_argument_group(title, "Exit status and output of an agent run: see the exit classes below.")
    g.add_argument("--envelope", action="store_true",
                   help="print one JSON document whatever happens: schema_version, ok, value, error "
                        "{kind, reason, message, details}, usage, exit_code (schema: "
                        "'ptclisp docs envelope-schema')")
    g.add_argument("--output", metavar="FILE",
                   help="write the value as JSON to FILE (atomically; an existing FILE is never overwritten: "
                        "exit 7)")
    g.add_argument("--retries", type=_retries, default=DEFAULT_RETRIES, metavar="N",
                   help=f"retry a transient provider failure (429, 5xx, timeout, connection reset) up to N "
                        f"times, with exponential backoff and jitter, within the run's deadline "
                        f"(default {DEFAULT_RETRIES})")
    g.add_argument("--provider-timeout", type=_seconds, default=DEFAULT_PROVIDER_TIMEOUT_S, metavar="S",
                   help=f"seconds one model call may take (default {DEFAULT_PROVIDER_TIMEOUT_S:g})")
    if timeout_ms:
        g.add_argument("--timeout-ms", type=_timeout_ms, default=None, metavar="MS",
                       help="wall-clock limit of the whole agent run, model and tool calls included: a tool "
                            "still running at the deadline is abandoned after a grace period (exit 6 when hit; "
                            "default 600000)")
    g.add_argument("--env-file", metavar="FILE",
                   help="read credentials (KEY=VALUE lines) from FILE; nothing is read from the working "
                        "directory unless named here")
    g.add_argument("--text-protocol", action="store_true",
                   help="for models without tool calling: the model answers with one fenced PTC-Lisp "
                        "block (```clojure ... ```) instead of a run_ptc_lisp tool call")


# ------------------------------------------------------------------ environment and credentials

def load_env_file(path: str) -> dict[str, str]:
    """KEY=VALUE lines of `path` (blank lines and # comments skipped, `export ` and quotes allowed)."""
    text = read_text(path, "--env-file ")
    out: dict[str, str] = {}
    for n, raw in enumerate(text.splitlines(), start=1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        if line.startswith("export "):
            line = line[len("export "):].lstrip()
        key, sep, value = line.partition("=")
        key, value = key.strip(), value.strip()
        if not sep or not key or not key.replace("_", "a").isalnum() or key[0].isdigit():
            raise DocumentError(f"--env-file {path}:{n}: expected KEY=VALUE", "env_file_invalid")
        if len(value) >= 2 and value[0] == value[-1] and value[0] in "'\"":
            value = value[1:-1]
        out[key] = value
    return out


def environment(env_file: str | None, base=None) -> dict[str, str]:
    """The environment the providers see: the process environment, then --env-file on top."""
    env = dict(os.environ if base is None else base)
    if env_file:
        env.update(load_env_file(env_file))
    return env


def check_credentials(models: dict, env: dict, key_env: dict | None = None) -> None:
    """NotReady naming the variable when an HTTP model (alias -> ModelSpec) has no key in `env`."""
    from ..providers.spec import KEY_ENV   # the variable each HTTP provider family reads its key from
    for alias, spec in models.items():
        name = (key_env or {}).get(alias) or KEY_ENV.get(spec.provider)
        if name is None:
            continue
        value = env.get(name)
        if value is None or not value.strip():
            raise NotReady(f"model {alias} ({spec}): no API key configured (set {name})", "missing_api_key",
                           {"alias": alias, "env": name})


def provider_options(args, *, timeout_ms: int | None = None) -> dict:
    """Keyword options for the HTTP providers: per-call timeout, retries with backoff, the run's deadline."""
    opts = {"timeout_s": getattr(args, "provider_timeout", None) or DEFAULT_PROVIDER_TIMEOUT_S,
            "max_retries": getattr(args, "retries", DEFAULT_RETRIES),
            "backoff_s": DEFAULT_BACKOFF_S}
    if timeout_ms is not None:
        opts["deadline"] = time.monotonic() + timeout_ms / 1000
    return opts


# ------------------------------------------------------------------ exit classes

def exit_class(error, *, deadline_hit: bool = False) -> int:
    """The exit class of a RunError (None: 0)."""
    if error is None:
        return X.OK
    reason, details = error.reason, error.details or {}
    if reason == "invalid_agent_config" or details.get("failure_kind") == "invalid-agent-config":
        return X.USAGE
    if reason == "runtime_limit_exceeded":
        return X.RUN_FAILED if details.get("limit") == "agent_turns" else X.LIMIT_HIT
    if reason == "llm_provider_failed":
        why = details.get("reason")
        if deadline_hit:
            return X.LIMIT_HIT
        if why in _NOT_READY and not (why == "not_found" and details.get("request_hash")):
            return X.PROVIDER_NOT_READY
        return X.RUN_FAILED
    if reason in _LIMIT_REASONS or error.kind == "limit_exceeded":
        return X.LIMIT_HIT
    if reason in _SOURCE_KINDS:
        return X.INVALID_DOCUMENT
    return X.RUN_FAILED


def _shown(value) -> str:
    try:
        text = value if isinstance(value, str) else pr_str(value)
    except Exception:  # noqa: BLE001 - a reason that cannot be printed is described, not raised
        text = f"<{type(value).__name__}>"
    text = " ".join(text.split())
    return text if len(text) <= MAX_SHOWN_REASON else text[:MAX_SHOWN_REASON - 1] + "…"


def model_fail_reason(raw):
    """The reason a model gave with (fail ...), from a workflow's failure value; None when there is none."""
    if type(raw) is not Map:
        return None
    kind = raw.lookup(Keyword("kind"))
    if kind != Keyword("model-program-failed") and kind != "model-program-failed":
        return None
    return raw.lookup(Keyword("reason"))


def failure_message(error, raw=None) -> str:
    """The message of a failed run; for the model's (fail ...) it carries the model's reason."""
    if error.reason == "explicit_failure":
        reason = model_fail_reason(raw)
        if reason is not None:
            return f"the model gave up with (fail ...): {_shown(reason)}"
    return error.message


def failure_lines(prog: str, error, *, raw=None, where: str = "") -> list[str]:
    """One or two stderr lines for a failed run: what went wrong, then its details as compact JSON."""
    lines = [f"{prog}: {where}Error ({error.kind}/{error.reason}): {failure_message(error, raw)}"]
    if error.details:
        try:
            lines.append("details: " + dumps(error.details))
        except JsonValueError:
            pass
    return lines


# ------------------------------------------------------------------ output

def check_output_target(path: str | None) -> None:
    """Refuse an --output that cannot be written, before the run spends anything."""
    if not path:
        return
    if os.path.lexists(path):
        raise OutputError(f"--output {path} already exists; it is never overwritten", "output_exists",
                          {"path": path})
    directory = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(directory):
        raise OutputError(f"cannot write --output {path}: No such directory {directory}", "output_unwritable",
                          {"path": path})


def write_output(path: str, value) -> None:
    """Write `value` as JSON to `path`: a temporary file in the same directory, then linked into place.

    The link fails when `path` exists, so an existing file is never replaced,
    and a reader never sees a half-written file.
    """
    directory = os.path.dirname(os.path.abspath(path))
    try:
        fd, tmp = tempfile.mkstemp(prefix=".ptclisp-output-", suffix=".tmp", dir=directory)
    except OSError as e:
        raise OutputError(f"cannot write --output {path}: {e.strerror or e}", "output_unwritable",
                          {"path": path}) from None
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as fh:
            write_json(fh, value, indent=2)
        try:
            os.link(tmp, path)
        except FileExistsError:
            raise OutputError(f"--output {path} already exists; it is never overwritten", "output_exists",
                              {"path": path}) from None
        except OSError:          # a file system without hard links: an exclusive create, then a rename
            try:
                os.close(os.open(path, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o644))
            except FileExistsError:
                raise OutputError(f"--output {path} already exists; it is never overwritten", "output_exists",
                                  {"path": path}) from None
            os.replace(tmp, path)
    except OSError as e:
        raise OutputError(f"cannot write --output {path}: {e.strerror or e}", "output_unwritable",
                          {"path": path}) from None
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)


def usage_failure(prog: str, args, exc: Exception) -> int:
    """Report a failure before (or instead of) the run; returns its exit class."""
    failure = failure_of(exc)
    if getattr(args, "envelope", False):
        write_json(sys.stdout, envelope(ok=False, code=failure.code, reason=failure.reason,
                                        message=failure.message, details=failure.details))
    print(f"{prog}: {failure.message}", file=sys.stderr)
    return failure.code


def finish(prog: str, args, out, *, usage: dict | None = None, print_text=None, record=None,
           where: str = "", deadline_hit: bool = False, lisp_text: bool = False, keep_envelope=None) -> int:
    """Report an AgentOutcome: the value (or --json record, or the envelope), --output, stderr; the class.

    `print_text(show_value)` prints the normal stdout (the value only when
    `show_value`: the run succeeded and no --output took it); `record(err,
    code)` gives the --json record; `lisp_text` says the normal output is a
    Lisp form, which needs no JSON form (so a value without one is still ok).
    `keep_envelope(doc)`, when given, receives the --envelope document whether
    or not --envelope was asked for (a traced run keeps it as envelope.json).
    """
    needs_json = bool(getattr(args, "envelope", False) or getattr(args, "output", None)
                      or getattr(args, "json", False) or not lisp_text)
    err = out.json_error if needs_json else out.error
    code = exit_class(err, deadline_hit=deadline_hit)
    value = out.value if err is None and needs_json else None
    failure = None
    if code == X.OK and getattr(args, "output", None):
        try:
            write_output(args.output, value)
        except OutputError as e:
            failure, code = e, e.code
    if keep_envelope is not None:   # what --envelope gives (its JSON rules), whatever this command printed
        if needs_json:
            keep_envelope(_envelope_doc(out, usage, code, err, value, failure))
        else:
            j_err = out.json_error
            keep_envelope(_envelope_doc(out, usage, exit_class(j_err, deadline_hit=deadline_hit), j_err,
                                        out.value if j_err is None else None, None))
    if getattr(args, "envelope", False):
        write_json(sys.stdout, _envelope_doc(out, usage, code, err, value, failure))
    elif getattr(args, "json", False) and record is not None:
        write_json(sys.stdout, record(err, code))
    elif print_text is not None:
        print_text(code == X.OK and not getattr(args, "output", None))
    sys.stdout.flush()
    if failure is not None:
        print(f"{prog}: {failure.message}", file=sys.stderr)
    elif err is not None:
        for line in failure_lines(prog, err, raw=out.raw, where=where):
            print(line, file=sys.stderr)
    return code


def _envelope_doc(out, usage, code: int, err, value, failure) -> dict:
    """The --envelope document of an AgentOutcome (`failure`: an --output that could not be written)."""
    if failure is not None:
        return envelope(ok=False, value=value, code=code, reason=failure.reason, message=failure.message,
                        details=failure.details, usage=usage, prints=list(out.prints) or None)
    if err is not None:
        return envelope(ok=False, code=code, reason=err.reason, message=failure_message(err, out.raw),
                        details=err.details, usage=usage, prints=list(out.prints) or None)
    return envelope(ok=True, value=value, code=code, usage=usage, prints=list(out.prints) or None)


def run_record(*, status: str, value, prints, error: dict | None, duration_ms, usage=None,
               exit_code: int | None = None) -> dict:
    """The one `ptclisp run --json` record, for a program and for a workflow alike.

    status: "ok", "returned", "failed" (the program called fail: `value` is
    the fail value) or "error"; ok: status is ok or returned; value: JSON
    data or null; prints: lines printed; error: null or {kind, reason,
    message, details, line?, column?}; usage: the workflow's counters
    (null for a plain program); duration_ms; exit_code: what the command exits with.
    """
    return {"status": status, "ok": status in ("ok", "returned"), "value": value, "prints": list(prints),
            "error": error, "usage": usage,
            "duration_ms": round(duration_ms, 3) if isinstance(duration_ms, (int, float)) else None,
            "exit_code": exit_code}


def json_value(value):
    """`to_json(value)`, or None when it has no JSON form (the caller reports that separately)."""
    try:
        return to_json(value)
    except JsonValueError:
        return None


__all__ = ["EXIT_CLASSES", "CommandFailure", "DocumentError", "NotReady", "OutputError", "UsageError",
           "add_operation_flags", "load_env_file", "environment", "check_credentials", "provider_options",
           "exit_class", "failure_message", "failure_lines", "check_output_target", "write_output", "usage_failure", "finish",
           "failure_of", "json_value", "run_record", "model_fail_reason"]
