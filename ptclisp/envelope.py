"""The `--envelope` document of the agent-running commands, and the usage record it carries.

Owns `envelope(...)` (the one JSON document `--envelope` prints: schema
version, ok, value, error {kind, reason, message, details}, usage, exit
code), `ENVELOPE_SCHEMA` (its JSON Schema, shipped as
`ptclisp/schemas/envelope.schema.json` and printed by `ptclisp docs
envelope-schema`), `ERROR_KINDS` (the error kind of each exit class) and
`UsageMeter` (counts model calls and tokens per alias from the router's
per-call events, and prices them when the project gives prices).

Imports ptclisp.exitcodes and the standard library only.
"""
from __future__ import annotations

import json
import threading
from importlib import resources

from . import exitcodes as X

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


def schema_text(name: str) -> str:
    """The text of a JSON Schema shipped in ptclisp/schemas/ (`envelope`, `project`)."""
    return resources.files("ptclisp").joinpath("schemas", f"{name}.schema.json").read_text(encoding="utf-8")


def load_schema(name: str) -> dict:
    return json.loads(schema_text(name))


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


# ------------------------------------------------------------------ usage

def _zero() -> dict:
    return {"calls": 0, "input_tokens": 0, "output_tokens": 0, "cached_tokens": 0, "unreported_calls": 0}


class UsageMeter:
    """Model calls and tokens of one run, from `ModelRouter` call events.

    `prices` maps alias -> {"input": USD per 1M tokens, "output": ...,
    "cached_input": ...}; `models` maps alias -> "provider:model" (for the
    `by_model` totals). Attach with `meter.attach(router)`: it chains any
    `on_event` hook already set.
    """

    def __init__(self, prices: dict | None = None, models: dict | None = None):
        self.prices = dict(prices or {})
        self.models = dict(models or {})
        self._by_alias: dict[str, dict] = {}
        self._lock = threading.Lock()

    def attach(self, router) -> None:
        previous = getattr(router, "on_event", None)

        def hook(event):
            self.record(event)
            if previous is not None:
                previous(event)

        router.on_event = hook

    def record(self, event: dict) -> None:
        """Count one router event ({"type": "llm_request", "alias", "status", "tokens"?})."""
        if event.get("type") != "llm_request" or event.get("status") != "ok":
            return
        alias = str(event.get("alias"))
        tokens = event.get("tokens") or {}
        with self._lock:
            acc = self._by_alias.setdefault(alias, _zero())
            acc["calls"] += 1
            if "input" not in tokens and "output" not in tokens:
                acc["unreported_calls"] += 1
            acc["input_tokens"] += int(tokens.get("input", 0))
            acc["output_tokens"] += int(tokens.get("output", 0))
            acc["cached_tokens"] += int(tokens.get("cache_read", 0))

    def _cost(self, alias: str, acc: dict) -> float | None:
        price = self.prices.get(alias)
        if not price or acc["unreported_calls"]:
            return None if acc["calls"] else 0.0
        inp, out = price.get("input"), price.get("output")
        if inp is None or out is None:
            return None
        cached = price.get("cached_input", inp)
        fresh = max(acc["input_tokens"] - acc["cached_tokens"], 0)
        return round((fresh * inp + acc["cached_tokens"] * cached + acc["output_tokens"] * out) / 1_000_000, 8)

    def summary(self) -> dict:
        """The usage record: totals, then `by_alias` and `by_model` (cost_usd null when a price is unknown)."""
        with self._lock:
            by_alias = {a: dict(acc) for a, acc in sorted(self._by_alias.items())}
        total = _zero()
        costs = []
        by_model: dict[str, dict] = {}
        for alias, acc in by_alias.items():
            acc["cost_usd"] = self._cost(alias, acc)
            costs.append(acc["cost_usd"])
            model = by_model.setdefault(self.models.get(alias, alias), {**_zero(), "cost_usd": 0.0})
            for key in total:
                total[key] += acc[key]
                model[key] += acc[key]
            model["cost_usd"] = None if model["cost_usd"] is None or acc["cost_usd"] is None \
                else round(model["cost_usd"] + acc["cost_usd"], 8)
        total["cost_usd"] = None if any(c is None for c in costs) else round(sum(costs), 8)
        return {**total, "by_alias": by_alias, "by_model": by_model}
