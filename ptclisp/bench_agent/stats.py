"""Small, dependency-free statistics for pass/fail benchmarks.

* `wilson(k, n, z)` - the Wilson score interval of a binomial proportion
  (well-behaved at 0 %, 100 % and small n, unlike the normal approximation).
* `mcnemar_exact(b, c)` - two-sided exact McNemar test for paired binary
  outcomes: `b` = pairs where only A passed, `c` = only B passed.  Under the
  null hypothesis each discordant pair is a fair coin, so the p-value is the
  two-sided binomial tail of min(b, c) in b + c trials (capped at 1).
* `bootstrap_diff(a, b, ...)` - percentile bootstrap interval of
  mean(b) - mean(a) over paired 0/1 outcomes, resampling pairs with a seeded
  generator (deterministic for a given seed).
* `paired(a, b)` - all of the above for two aligned outcome lists.
"""
from __future__ import annotations

import math
import random

Z95 = 1.959963984540054


def wilson(k: int, n: int, z: float = Z95) -> tuple[float, float]:
    if n <= 0:
        return 0.0, 1.0
    p = k / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    return max(0.0, centre - half), min(1.0, centre + half)


def _binom_cdf(k: int, n: int) -> float:
    """P(X <= k) for X ~ Binomial(n, 1/2), exact with integers."""
    return sum(math.comb(n, i) for i in range(k + 1)) / 2 ** n


def mcnemar_exact(b: int, c: int) -> float:
    n = b + c
    if n == 0:
        return 1.0
    return min(1.0, 2 * _binom_cdf(min(b, c), n))


def bootstrap_diff(a: list, b: list, iterations: int = 2000, seed: int = 12345,
                   level: float = 0.95) -> tuple[float, float]:
    if len(a) != len(b):
        raise ValueError("paired samples must have the same length")
    n = len(a)
    if n == 0:
        return 0.0, 0.0
    rng = random.Random(seed)
    diffs = []
    for _ in range(iterations):
        s = 0
        for _ in range(n):
            i = rng.randrange(n)
            s += b[i] - a[i]
        diffs.append(s / n)
    diffs.sort()
    lo_i = int(math.floor((1 - level) / 2 * iterations))
    hi_i = min(iterations - 1, int(math.ceil((1 + level) / 2 * iterations)) - 1)
    return diffs[lo_i], diffs[hi_i]


def paired(a: list, b: list, *, seed: int = 12345, iterations: int = 2000) -> dict:
    """Compare aligned 0/1 outcomes of A and B (same tasks and repeats, same order)."""
    if len(a) != len(b):
        raise ValueError("paired samples must have the same length")
    both = sum(1 for x, y in zip(a, b) if x and y)
    only_a = sum(1 for x, y in zip(a, b) if x and not y)
    only_b = sum(1 for x, y in zip(a, b) if y and not x)
    neither = len(a) - both - only_a - only_b
    n = len(a)
    lo, hi = bootstrap_diff(a, b, iterations=iterations, seed=seed)
    return {"pairs": n, "both_pass": both, "only_a": only_a, "only_b": only_b, "neither": neither,
            "pass_rate_a": sum(a) / n if n else 0.0, "pass_rate_b": sum(b) / n if n else 0.0,
            "diff": (sum(b) - sum(a)) / n if n else 0.0, "diff_ci95": [lo, hi],
            "mcnemar_p": mcnemar_exact(only_a, only_b)}


def mean(xs) -> float | None:
    xs = list(xs)
    return sum(xs) / len(xs) if xs else None


def median(xs) -> float | None:
    xs = sorted(xs)
    if not xs:
        return None
    m = len(xs) // 2
    return xs[m] if len(xs) % 2 else (xs[m - 1] + xs[m]) / 2
