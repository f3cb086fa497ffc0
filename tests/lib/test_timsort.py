"""The port of Java's TimSort used for natural order over NaN (DIV-33)."""
import random

import pytest

import ptclisp
from ptclisp.lib.timsort import java_sort


def _cmp(x, y):
    return (x[0] > y[0]) - (x[0] < y[0])


@pytest.mark.parametrize("seed", range(40))
def test_consistent_comparator_is_a_stable_sort(seed):
    rng = random.Random(seed)
    n = rng.choice([0, 1, 2, 31, 32, 33, 64, 200, 1500])
    span = rng.choice([3, 50, 10 ** 6])
    keys = [rng.randrange(span) for _ in range(n)]
    if seed % 3 == 0:
        keys.sort()
        for _ in range(n // 8):
            keys[rng.randrange(n)] = rng.randrange(span)
    if seed % 5 == 0:
        keys.reverse()
    items = [(k, i) for i, k in enumerate(keys)]
    got = list(items)
    java_sort(got, _cmp)
    assert got == sorted(items, key=lambda t: t[0])


def test_small_arrays_use_binary_insertion_after_the_first_run():
    # [3 NaN 1] is one ascending run for a comparator that calls NaN equal to everything
    nan = float("nan")

    def cmp(x, y):
        return -1 if x < y else (1 if x > y else 0)

    a = [3, nan, 1, 2, 0]
    java_sort(a, cmp)
    assert a[:2] == [3, a[1]] and a[1] != a[1] and a[2:] == [0, 1, 2]


def test_nan_sorts_like_the_jvm_and_an_inconsistent_merge_is_an_error():
    r = ptclisp.run("(sort [3 ##NaN 1 2 0])")
    assert ptclisp.pr_str(r.value) == "[3 ##NaN 0 1 2]"
    r = ptclisp.run("(sort (map #(if (zero? (mod % 7)) ##NaN (mod (* % 37) 101)) (range 200)))")
    assert r.status == "error" and r.error.kind == "runtime_error"
    assert "(remove NaN? xs)" in r.error.message
    assert (r.error.span.line, r.error.span.col) == (1, 1)
