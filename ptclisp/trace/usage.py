"""Token usage and cost of a run, per model alias and per resolved model.

Owns `UsageMeter`: `record(alias, model, tokens, provider_kind)` for every
model call that came back with an answer, and `snapshot(prices)` -> the usage
record shared by `AgentOutcome.usage`, `--json`, the trace and `--envelope`
(`usage_record(usage)` takes it out of a map that holds more)::

    {"calls": n, "input_tokens": n, "output_tokens": n, "cached_tokens": n,
     "unreported_calls": n, "cost_usd": float | None,
     "by_alias": {alias: {"model", "calls", "input_tokens", ..., "cost_usd"}},
     "by_model": {model: {"calls", "input_tokens", ..., "cost_usd"}}}

Token counts follow one convention whatever the provider: `input_tokens`
are all prompt tokens (for Anthropic, whose `input_tokens` leave cache reads
and writes out, those are added back), `cached_tokens` the part read from a
cache.  A call whose answer carried no usage is counted in `calls` and
`unreported_calls` and adds nothing to the token counts: it is never taken
for zero tokens.  `cost_usd` is None when a called model has no known
price; otherwise it is the cost of the calls that reported usage, so with
`unreported_calls` > 0 it is a lower bound.  A run's record also has
`capability_refusals`: capability calls refused before they ran (a model-call
quota, a mission tool's quota, invalid or too large arguments).  `summary_line(usage)` is the
one-line stderr summary of a command.  Imports trace.prices.
"""
from __future__ import annotations

import threading

from .prices import PriceBook

_COUNTS = ("calls", "input_tokens", "output_tokens", "cached_tokens", "unreported_calls")


def _int(x) -> int:
    return x if isinstance(x, int) and not isinstance(x, bool) and x >= 0 else 0


def normalize_tokens(tokens, provider_kind: str | None = None) -> dict | None:
    """A response's `tokens` map -> {input, output, cached, cache_write}; None when nothing was reported."""
    if not isinstance(tokens, dict) or not any(k in tokens for k in ("input", "output")):
        return None
    inp, out = _int(tokens.get("input")), _int(tokens.get("output"))
    read, write = _int(tokens.get("cache_read")), _int(tokens.get("cache_creation"))
    if provider_kind == "anthropic":       # Anthropic reports cache reads and writes beside input_tokens
        inp += read + write
    return {"input": inp, "output": out, "cached": read, "cache_write": write}


class _Bucket:
    __slots__ = ("calls", "input", "output", "cached", "cache_write", "unreported", "kind")

    def __init__(self, kind):
        self.calls = self.input = self.output = self.cached = self.cache_write = self.unreported = 0
        self.kind = kind

    def cost(self, price) -> float | None:
        if price is None:
            return None
        fresh = max(self.input - self.cached - self.cache_write, 0)
        cached = price.cached_input if price.cached_input is not None else price.input
        if price.cache_write is not None:
            write = price.cache_write
        else:
            write = price.input * (1.25 if self.kind == "anthropic" else 1.0)
        return (fresh * price.input + self.cached * cached + self.cache_write * write
                + self.output * price.output) / 1e6


class UsageMeter:
    """Counts the model calls of one run (thread-safe)."""

    def __init__(self):
        self._lock = threading.Lock()
        self._buckets: dict[tuple, _Bucket] = {}     # (alias, model) -> counts

    def record(self, alias: str, model: str | None, tokens, provider_kind: str | None = None) -> dict | None:
        """Count one answered call; returns its normalized tokens (None when usage was not reported)."""
        norm = normalize_tokens(tokens, provider_kind)
        with self._lock:
            b = self._buckets.get((alias, model))
            if b is None:
                b = self._buckets[(alias, model)] = _Bucket(provider_kind)
            b.calls += 1
            if norm is None:
                b.unreported += 1
            else:
                b.input += norm["input"]
                b.output += norm["output"]
                b.cached += norm["cached"]
                b.cache_write += norm["cache_write"]
        return norm

    def snapshot(self, prices: PriceBook | None = None) -> dict:
        """The usage record (module docstring); `prices` default to the package table."""
        prices = prices if prices is not None else PriceBook()
        with self._lock:
            items = [(k, _copy(b)) for k, b in self._buckets.items()]
        total = _empty()
        by_alias: dict = {}
        by_model: dict = {}
        for (alias, model), b in items:
            cost = b.cost(prices.lookup(alias, model))
            a = by_alias.setdefault(alias, {"model": model, **_empty()})
            if a["model"] != model:
                a["model"] = None               # one alias served by several models (not with the CLI)
            m = by_model.setdefault(model or "unknown", _empty())
            for rec in (total, a, m):
                _add(rec, b, cost)
        return {**total, "by_alias": by_alias, "by_model": by_model}


def _copy(b: _Bucket) -> _Bucket:
    c = _Bucket(b.kind)
    for s in _Bucket.__slots__:
        setattr(c, s, getattr(b, s))
    return c


def _empty() -> dict:
    return {**{k: 0 for k in _COUNTS}, "cost_usd": 0.0}


def _add(rec: dict, b: _Bucket, cost: float | None) -> None:
    rec["calls"] += b.calls
    rec["input_tokens"] += b.input
    rec["output_tokens"] += b.output
    rec["cached_tokens"] += b.cached
    rec["unreported_calls"] += b.unreported
    if rec["cost_usd"] is not None:
        rec["cost_usd"] = None if cost is None else rec["cost_usd"] + cost


def usage_record(usage) -> dict | None:
    """The usage record alone (counts, cost_usd, by_alias, by_model) of a usage map that may carry more
    (`AgentOutcome.usage` also holds the run's counters); None when `usage` holds no record."""
    if not isinstance(usage, dict) or "calls" not in usage:
        return None
    return {k: usage[k] for k in (*_COUNTS, "cost_usd", "by_alias", "by_model", "capability_refusals")
            if k in usage}


def empty_usage() -> dict:
    """The usage record of a run that made no model call."""
    return {**_empty(), "by_alias": {}, "by_model": {}}


UNPRICED = "cost unknown (no price; give --price ALIAS=IN,OUT)"


def format_cost(cost, unknown: str = UNPRICED) -> str:
    """Dollars as `$0`, `$0.000054` (six places under a cent) or `$1.2345`; `unknown` when the
    cost is None (no price for the model)."""
    if cost is None:
        return unknown
    if cost == 0:
        return "$0"
    return f"${cost:.6f}" if cost < 0.01 else f"${cost:.4f}"


def summary_line(usage: dict) -> str:
    """One line: calls, tokens and cost, e.g. `2 model calls, 200 input (0 cached) + 40 output tokens, $0.000054`."""
    if not isinstance(usage, dict) or "calls" not in usage:
        return "usage not recorded"
    n = usage["calls"]
    text = (f"{n} model call{'s' * (n != 1)}, {usage['input_tokens']} input ({usage['cached_tokens']} cached) "
            f"+ {usage['output_tokens']} output tokens")
    if usage["unreported_calls"]:
        text += f", {usage['unreported_calls']} without reported usage (not counted)"
    cost = usage.get("cost_usd")
    if usage["unreported_calls"] and cost is not None:
        text += f", at least {format_cost(cost)}"
    elif n:
        text += f", {format_cost(cost)}"
    refused = usage.get("capability_refusals")
    if refused:
        text += f", {refused} capability call{'s' * (refused != 1)} refused"
    models = sorted(m for m in usage.get("by_model", {}) if m != "unknown")
    if models:
        text += f" ({', '.join(models)})"
    return text


def provider_identity(router, alias) -> tuple[str | None, str | None]:
    """(provider kind, resolved model name) of `alias` in a ModelRouter, looking through wrappers.

    A wrapper is anything with an `inner` provider (recording, tracing,
    capturing); HTTP providers name their model in `.model`; other providers
    (scripted, replay) are named by their kind.
    """
    try:
        p = router.provider(alias)
    except Exception:  # noqa: BLE001 - an alias the router does not know
        return None, None
    seen = 0
    while getattr(p, "inner", None) is not None and seen < 8:
        p, seen = p.inner, seen + 1
    kind = getattr(p, "kind", None)
    model = getattr(p, "model", None)
    kind = kind if isinstance(kind, str) else None
    return kind, model if isinstance(model, str) and model else kind
