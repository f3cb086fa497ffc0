"""Model prices: a table of common models and the overrides a user gives.

Owns `PRICES` (model name -> `Price`, USD per million tokens: the providers'
published list prices for standard, non-batch use; they change, so every
entry can be overridden), `Price`, `PriceBook` (alias overrides first, then
the table by resolved model name), `parse_price("ALIAS=IN,OUT[,CACHED]")`
(the `--price` flag) and `price_book(alias_prices, cli_prices)` (what a
command builds from a project file's `[models.ALIAS] price = {...}` and its
`--price` flags).  Imports nothing from ptclisp.

    book = price_book({"main": {"input": 0.15, "output": 0.6}}, ["fast=1,4"])
    book.lookup("fast", "gpt-4o-mini")      # Price(input=1.0, output=4.0, ...)
"""
from __future__ import annotations

import math
import re
from typing import Iterable, Mapping

import attrs


@attrs.frozen
class Price:
    """USD per million tokens.

    input:        prompt tokens that were not read from a cache
    output:       completion tokens
    cached_input: prompt tokens read from a cache (None: charged as `input`)
    cache_write:  prompt tokens written to a cache (Anthropic; None: 1.25 x `input`
                  for anthropic models, `input` otherwise)
    """

    input: float
    output: float
    cached_input: float | None = None
    cache_write: float | None = None

    def as_dict(self) -> dict:
        out = {"input": self.input, "output": self.output}
        if self.cached_input is not None:
            out["cached_input"] = self.cached_input
        if self.cache_write is not None:
            out["cache_write"] = self.cache_write
        return out


def _p(i, o, c=None, w=None) -> Price:
    return Price(float(i), float(o), None if c is None else float(c), None if w is None else float(w))


#: List prices (USD per 1M tokens) of common models; `--price` and the project file override them.
PRICES: dict[str, Price] = {
    # OpenAI
    "gpt-4o": _p(2.50, 10.00, 1.25),
    "gpt-4o-mini": _p(0.15, 0.60, 0.075),
    "gpt-4.1": _p(2.00, 8.00, 0.50),
    "gpt-4.1-mini": _p(0.40, 1.60, 0.10),
    "gpt-4.1-nano": _p(0.10, 0.40, 0.025),
    "gpt-5": _p(1.25, 10.00, 0.125),
    "gpt-5-mini": _p(0.25, 2.00, 0.025),
    "gpt-5-nano": _p(0.05, 0.40, 0.005),
    "o3": _p(2.00, 8.00, 0.50),
    "o3-mini": _p(1.10, 4.40, 0.55),
    "o4-mini": _p(1.10, 4.40, 0.275),
    # Anthropic
    "claude-opus-4-5": _p(5.00, 25.00, 0.50, 6.25),
    "claude-opus-4-1": _p(15.00, 75.00, 1.50, 18.75),
    "claude-opus-4": _p(15.00, 75.00, 1.50, 18.75),
    "claude-sonnet-4-5": _p(3.00, 15.00, 0.30, 3.75),
    "claude-sonnet-4": _p(3.00, 15.00, 0.30, 3.75),
    "claude-3-7-sonnet": _p(3.00, 15.00, 0.30, 3.75),
    "claude-haiku-4-5": _p(1.00, 5.00, 0.10, 1.25),
    "claude-3-5-haiku": _p(0.80, 4.00, 0.08, 1.00),
}

_DATED = re.compile(r"-(\d{4}-\d{2}-\d{2}|\d{8}|latest)$")
_PREFIX = re.compile(r"^(openai|anthropic)[/:]")


def normalize_model(name: str) -> str:
    """`name` as the table keys it: lower case, without a provider prefix or a date/`latest` suffix."""
    n = _PREFIX.sub("", name.strip().lower())
    return _DATED.sub("", n)


def _number(x, what: str) -> float:
    if isinstance(x, bool) or not isinstance(x, (int, float)) or not math.isfinite(x) or x < 0:
        raise ValueError(f"{what} must be a non-negative number of USD per million tokens, got {x!r}")
    return float(x)


def as_price(value, what: str = "price") -> Price:
    """A `Price` from a `Price`, a mapping {input, output, cached_input?, cache_write?} or a pair."""
    if isinstance(value, Price):
        return value
    if isinstance(value, Mapping):
        unknown = sorted(set(value) - {"input", "output", "cached_input", "cache_write"})
        if unknown:
            raise ValueError(f"{what}: unknown field {unknown[0]!r} (expected input, output, cached_input, "
                             f"cache_write)")
        if "input" not in value or "output" not in value:
            raise ValueError(f"{what} needs both input and output (USD per million tokens)")
        return Price(_number(value["input"], f"{what} input"), _number(value["output"], f"{what} output"),
                     None if value.get("cached_input") is None
                     else _number(value["cached_input"], f"{what} cached_input"),
                     None if value.get("cache_write") is None
                     else _number(value["cache_write"], f"{what} cache_write"))
    if isinstance(value, (tuple, list)) and len(value) in (2, 3):
        nums = [_number(v, what) for v in value]
        return Price(nums[0], nums[1], nums[2] if len(nums) == 3 else None)
    raise ValueError(f"{what} must be a mapping with input and output prices")


def parse_price(text: str) -> tuple[str, Price]:
    """`"ALIAS=IN,OUT"` or `"ALIAS=IN,OUT,CACHED"` (USD per million tokens) -> (alias, Price)."""
    alias, sep, rest = text.partition("=")
    alias = alias.strip()
    if not sep or not alias:
        raise ValueError(f"--price expects ALIAS=IN,OUT (USD per million tokens), got {text!r}")
    parts = [p.strip() for p in rest.split(",")]
    if len(parts) not in (2, 3):
        raise ValueError(f"--price {text!r}: give IN,OUT or IN,OUT,CACHED (USD per million tokens)")
    try:
        nums = [float(p) for p in parts]
    except ValueError:
        raise ValueError(f"--price {text!r}: the prices must be numbers") from None
    for n in nums:
        if not math.isfinite(n) or n < 0:
            raise ValueError(f"--price {text!r}: prices must be non-negative numbers")
    return alias, Price(nums[0], nums[1], nums[2] if len(nums) == 3 else None)


class PriceBook:
    """Where a call's price comes from: an alias override, else the table entry of the resolved model."""

    def __init__(self, aliases: Mapping[str, object] | None = None,
                 table: Mapping[str, Price] | None = None):
        self.aliases = {a: as_price(p, f"price of {a}") for a, p in (aliases or {}).items()}
        self.table = dict(PRICES if table is None else table)

    def lookup(self, alias: str | None, model: str | None) -> Price | None:
        if alias is not None and alias in self.aliases:
            return self.aliases[alias]
        if model:
            return self.table.get(normalize_model(model))
        return None


def price_book(alias_prices: Mapping[str, object] | None = None, cli_prices: Iterable[str] = ()) -> PriceBook:
    """The prices of a run: the table, then `alias_prices` (e.g. a project file), then `--price` texts."""
    merged: dict = dict(alias_prices or {})
    for text in cli_prices or ():
        alias, price = parse_price(text)
        merged[alias] = price
    return PriceBook(merged)
