"""The `--envelope` document of the agent-running commands.

Owns `envelope(...)` (the one JSON document `--envelope` prints: schema
version, ok, value, error {kind, reason, message, details}, usage, exit
code; its JSON Schema is shipped as `ptclisp/schemas/envelope.schema.json`, read
through ptclisp.interchange.schemas and printed by `ptclisp docs envelope-schema`)
and `ERROR_KINDS` (the error kind of each exit class).
The `usage` it carries is the usage record of `ptclisp.trace.usage` (the
one count of calls, tokens and cost; the commands pass it in).

Imports ptclisp.exit_codes only.
"""
from __future__ import annotations

from .. import exit_codes as X

SCHEMA_VERSION = 1

#: The `error.kind` of an envelope, by exit class: what a caller branches on.
ERROR_KINDS = {
    X.USAGE: "usage",
    X.INVALID_DOCUMENT: "invalid_document",
    X.PROVIDER_NOT_READY: "provider_not_ready",
    X.RUN_FAILED: "run_failed",
    X.LIMIT_HIT: "limit_hit",
    X.OUTPUT_FAILED: "output_failed",
}


def envelope(*, ok: bool, value=None, code: int, reason: str | None = None, message: str | None = None,
             details: dict | None = None, usage: dict | None = None, prints: list | None = None) -> dict:
    """The envelope document (plain JSON data) for one command run.

    `code` is the exit class; when it is not 0, `reason` and `message` say
    why (the error kind is derived from the class).
    """
    error = None
    if code != X.OK:
        error = {"kind": ERROR_KINDS.get(code, "run_failed"), "reason": reason or "unknown",
                 "message": message or "", "details": dict(details or {})}
    doc = {"schema_version": SCHEMA_VERSION, "ok": bool(ok and code == X.OK), "value": value, "error": error,
           "usage": usage, "exit_code": code}
    if prints is not None:
        doc["prints"] = list(prints)
    return doc
