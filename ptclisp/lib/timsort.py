"""Java's `Arrays.sort(Object[], Comparator)` (java.util.TimSort), step for step.

Clojure sorts with it, so when a comparator is not a total order its result
is whatever this algorithm's sequence of comparisons makes of it. That
happens for natural order over NaN, which `compare` calls equal to every
number (DIV-33): `(sort [3 ##NaN 1])` must come out as on the JVM, so those
sorts run here. Any consistent comparator gives the same result as any
other stable sort; Python's own sort is used for those (it is much faster).

`java_sort(a, cmp)` sorts the list `a` in place; `cmp(x, y)` returns a
negative, zero or positive int. Like Java, a merge that finds the
comparator contradicting itself raises (`runtime_error`). Java's mergeLo and
mergeHi are kept as written, each split into its one-at-a-time and galloping
phases, which share the merge's cursors through a `_Merge`.
Imports errors.
"""
from __future__ import annotations

from ..errors import PtcError

MIN_MERGE = 32
MIN_GALLOP = 7


def _contract():
    return PtcError("runtime_error", "sort: comparison method violates its general contract")


def java_sort(a: list, cmp) -> None:
    n = len(a)
    if n < 2:
        return
    if n < MIN_MERGE:
        init = _count_run_and_make_ascending(a, 0, n, cmp)
        _binary_sort(a, 0, n, init, cmp)
        return
    _TimSort(a, cmp).sort()


def _count_run_and_make_ascending(a, lo, hi, c) -> int:
    run_hi = lo + 1
    if run_hi == hi:
        return 1
    if c(a[run_hi], a[lo]) < 0:  # descending
        run_hi += 1
        while run_hi < hi and c(a[run_hi], a[run_hi - 1]) < 0:
            run_hi += 1
        a[lo:run_hi] = a[lo:run_hi][::-1]
    else:
        run_hi += 1
        while run_hi < hi and c(a[run_hi], a[run_hi - 1]) >= 0:
            run_hi += 1
    return run_hi - lo


def _binary_sort(a, lo, hi, start, c) -> None:
    if start == lo:
        start += 1
    while start < hi:
        pivot = a[start]
        left, right = lo, start
        while left < right:
            mid = (left + right) >> 1
            if c(pivot, a[mid]) < 0:
                right = mid
            else:
                left = mid + 1
        a[left + 1:start + 1] = a[left:start]
        a[left] = pivot
        start += 1


def _min_run_length(n: int) -> int:
    r = 0
    while n >= MIN_MERGE:
        r |= n & 1
        n >>= 1
    return n + r


def _gallop_left(key, a, base, length, hint, c) -> int:
    last_ofs, ofs = 0, 1
    if c(key, a[base + hint]) > 0:
        max_ofs = length - hint
        while ofs < max_ofs and c(key, a[base + hint + ofs]) > 0:
            last_ofs = ofs
            ofs = (ofs << 1) + 1
        if ofs > max_ofs:
            ofs = max_ofs
        last_ofs += hint
        ofs += hint
    else:
        max_ofs = hint + 1
        while ofs < max_ofs and c(key, a[base + hint - ofs]) <= 0:
            last_ofs = ofs
            ofs = (ofs << 1) + 1
        if ofs > max_ofs:
            ofs = max_ofs
        last_ofs, ofs = hint - ofs, hint - last_ofs
    last_ofs += 1
    while last_ofs < ofs:
        m = last_ofs + ((ofs - last_ofs) >> 1)
        if c(key, a[base + m]) > 0:
            last_ofs = m + 1
        else:
            ofs = m
    return ofs


def _gallop_right(key, a, base, length, hint, c) -> int:
    ofs, last_ofs = 1, 0
    if c(key, a[base + hint]) < 0:
        max_ofs = hint + 1
        while ofs < max_ofs and c(key, a[base + hint - ofs]) < 0:
            last_ofs = ofs
            ofs = (ofs << 1) + 1
        if ofs > max_ofs:
            ofs = max_ofs
        last_ofs, ofs = hint - ofs, hint - last_ofs
    else:
        max_ofs = length - hint
        while ofs < max_ofs and c(key, a[base + hint + ofs]) >= 0:
            last_ofs = ofs
            ofs = (ofs << 1) + 1
        if ofs > max_ofs:
            ofs = max_ofs
        last_ofs += hint
        ofs += hint
    last_ofs += 1
    while last_ofs < ofs:
        m = last_ofs + ((ofs - last_ofs) >> 1)
        if c(key, a[base + m]) < 0:
            ofs = m
        else:
            last_ofs = m + 1
    return ofs


class _TimSort:
    def __init__(self, a: list, c):
        self.a = a
        self.c = c
        self.min_gallop = MIN_GALLOP
        self.run_base: list[int] = []
        self.run_len: list[int] = []

    def sort(self):
        a, c = self.a, self.c
        lo, remaining = 0, len(a)
        min_run = _min_run_length(remaining)
        while remaining:
            run = _count_run_and_make_ascending(a, lo, lo + remaining, c)
            if run < min_run:
                force = remaining if remaining <= min_run else min_run
                _binary_sort(a, lo, lo + force, lo + run, c)
                run = force
            self.run_base.append(lo)
            self.run_len.append(run)
            self._merge_collapse()
            lo += run
            remaining -= run
        self._merge_force_collapse()

    def _merge_collapse(self):
        rl = self.run_len
        while len(rl) > 1:  # OpenJDK's rule (it never took CPython's later extra clause)
            n = len(rl) - 2
            if n > 0 and rl[n - 1] <= rl[n] + rl[n + 1]:
                if rl[n - 1] < rl[n + 1]:
                    n -= 1
            elif rl[n] > rl[n + 1]:
                break
            self._merge_at(n)

    def _merge_force_collapse(self):
        rl = self.run_len
        while len(rl) > 1:
            n = len(rl) - 2
            if n > 0 and rl[n - 1] < rl[n + 1]:
                n -= 1
            self._merge_at(n)

    def _merge_at(self, i):
        a, c = self.a, self.c
        base1, len1 = self.run_base[i], self.run_len[i]
        base2, len2 = self.run_base[i + 1], self.run_len[i + 1]
        self.run_len[i] = len1 + len2
        del self.run_base[i + 1]
        del self.run_len[i + 1]
        k = _gallop_right(a[base2], a, base1, len1, 0, c)
        base1 += k
        len1 -= k
        if len1 == 0:
            return
        len2 = _gallop_left(a[base1 + len1 - 1], a, base2, len2, len2 - 1, c)
        if len2 == 0:
            return
        if len1 <= len2:
            self._merge_lo(base1, len1, base2, len2)
        else:
            self._merge_hi(base1, len1, base2, len2)

    def _merge_lo(self, base1, len1, base2, len2):
        """Merge the adjacent runs in place, left to right; run 1 (the shorter) is copied out."""
        a = self.a
        m = _Merge(a, a[base1:base1 + len1], self.c, 0, base2, base1, len1, len2)
        a[m.dest] = a[m.cursor2]
        m.dest += 1
        m.cursor2 += 1
        m.len2 -= 1
        if m.len2 == 0:
            a[m.dest:m.dest + m.len1] = m.tmp[m.cursor1:m.cursor1 + m.len1]
            return
        if m.len1 == 1:
            a[m.dest:m.dest + m.len2] = a[m.cursor2:m.cursor2 + m.len2]
            a[m.dest + m.len2] = m.tmp[m.cursor1]
            return
        min_gallop = self.min_gallop
        while True:
            if _lo_one_at_a_time(m, min_gallop):
                break
            done, min_gallop = _lo_galloping(m, min_gallop)
            if done:
                break
            if min_gallop < 0:
                min_gallop = 0
            min_gallop += 2
        self.min_gallop = 1 if min_gallop < 1 else min_gallop
        dest, cursor1, len1 = m.dest, m.cursor1, m.len1
        if len1 == 1:
            a[dest:dest + m.len2] = a[m.cursor2:m.cursor2 + m.len2]
            a[dest + m.len2] = m.tmp[cursor1]
        elif len1 == 0:
            raise _contract()
        else:
            a[dest:dest + len1] = m.tmp[cursor1:cursor1 + len1]

    def _merge_hi(self, base1, len1, base2, len2):
        """Merge the adjacent runs in place, right to left; run 2 (the shorter) is copied out."""
        a = self.a
        m = _Merge(a, a[base2:base2 + len2], self.c, base1 + len1 - 1, len2 - 1, base2 + len2 - 1, len1, len2)
        a[m.dest] = a[m.cursor1]
        m.dest -= 1
        m.cursor1 -= 1
        m.len1 -= 1
        if m.len1 == 0:
            a[m.dest - (m.len2 - 1):m.dest + 1] = m.tmp[0:m.len2]
            return
        if m.len2 == 1:
            _hi_move_run1(m)
            return
        min_gallop = self.min_gallop
        while True:
            if _hi_one_at_a_time(m, min_gallop):
                break
            done, min_gallop = _hi_galloping(m, min_gallop, base1)
            if done:
                break
            if min_gallop < 0:
                min_gallop = 0
            min_gallop += 2
        self.min_gallop = 1 if min_gallop < 1 else min_gallop
        if m.len2 == 1:
            _hi_move_run1(m)
        elif m.len2 == 0:
            raise _contract()
        else:
            a[m.dest - (m.len2 - 1):m.dest + 1] = m.tmp[0:m.len2]


class _Merge:
    """The cursors of one merge: the next items of run 1 (`cursor1`, `len1` left) and run 2
    (`cursor2`, `len2` left) go to `a[dest]`; the shorter run was copied to `tmp` and its cursor
    indexes `tmp`."""

    __slots__ = ("a", "tmp", "c", "cursor1", "cursor2", "dest", "len1", "len2")

    def __init__(self, a, tmp, c, cursor1, cursor2, dest, len1, len2):
        self.a, self.tmp, self.c = a, tmp, c
        self.cursor1, self.cursor2, self.dest, self.len1, self.len2 = cursor1, cursor2, dest, len1, len2


def _lo_one_at_a_time(m: _Merge, min_gallop: int) -> bool:
    """mergeLo, one item at a time until a run wins `min_gallop` times in a row; True when done."""
    a, tmp, c = m.a, m.tmp, m.c
    cursor1, cursor2, dest, len1, len2 = m.cursor1, m.cursor2, m.dest, m.len1, m.len2
    count1 = count2 = 0
    done = False
    while True:
        if c(a[cursor2], tmp[cursor1]) < 0:
            a[dest] = a[cursor2]
            dest += 1
            cursor2 += 1
            count2 += 1
            count1 = 0
            len2 -= 1
            if len2 == 0:
                done = True
                break
        else:
            a[dest] = tmp[cursor1]
            dest += 1
            cursor1 += 1
            count1 += 1
            count2 = 0
            len1 -= 1
            if len1 == 1:
                done = True
                break
        if (count1 | count2) >= min_gallop:
            break
    m.cursor1, m.cursor2, m.dest, m.len1, m.len2 = cursor1, cursor2, dest, len1, len2
    return done


def _lo_galloping(m: _Merge, min_gallop: int) -> tuple[bool, int]:
    """mergeLo in galloping mode until neither run wins by MIN_GALLOP; (done, min_gallop)."""
    a, tmp, c = m.a, m.tmp, m.c
    cursor1, cursor2, dest, len1, len2 = m.cursor1, m.cursor2, m.dest, m.len1, m.len2
    done = False
    while True:
        count1 = _gallop_right(a[cursor2], tmp, cursor1, len1, 0, c)
        if count1 != 0:
            a[dest:dest + count1] = tmp[cursor1:cursor1 + count1]
            dest += count1
            cursor1 += count1
            len1 -= count1
            if len1 <= 1:
                done = True
                break
        a[dest] = a[cursor2]
        dest += 1
        cursor2 += 1
        len2 -= 1
        if len2 == 0:
            done = True
            break
        count2 = _gallop_left(tmp[cursor1], a, cursor2, len2, 0, c)
        if count2 != 0:
            a[dest:dest + count2] = a[cursor2:cursor2 + count2]
            dest += count2
            cursor2 += count2
            len2 -= count2
            if len2 == 0:
                done = True
                break
        a[dest] = tmp[cursor1]
        dest += 1
        cursor1 += 1
        len1 -= 1
        if len1 == 1:
            done = True
            break
        min_gallop -= 1
        if not (count1 >= MIN_GALLOP or count2 >= MIN_GALLOP):
            break
    m.cursor1, m.cursor2, m.dest, m.len1, m.len2 = cursor1, cursor2, dest, len1, len2
    return done, min_gallop


def _hi_move_run1(m: _Merge) -> None:
    """mergeHi's ending when one item of run 2 is left: what is left of run 1 moves up, then the item."""
    a = m.a
    m.dest -= m.len1
    m.cursor1 -= m.len1
    dest, cursor1, len1 = m.dest, m.cursor1, m.len1
    a[dest + 1:dest + 1 + len1] = a[cursor1 + 1:cursor1 + 1 + len1]
    a[dest] = m.tmp[m.cursor2]


def _hi_one_at_a_time(m: _Merge, min_gallop: int) -> bool:
    """mergeHi, one item at a time until a run wins `min_gallop` times in a row; True when done."""
    a, tmp, c = m.a, m.tmp, m.c
    cursor1, cursor2, dest, len1, len2 = m.cursor1, m.cursor2, m.dest, m.len1, m.len2
    count1 = count2 = 0
    done = False
    while True:
        if c(tmp[cursor2], a[cursor1]) < 0:
            a[dest] = a[cursor1]
            dest -= 1
            cursor1 -= 1
            count1 += 1
            count2 = 0
            len1 -= 1
            if len1 == 0:
                done = True
                break
        else:
            a[dest] = tmp[cursor2]
            dest -= 1
            cursor2 -= 1
            count2 += 1
            count1 = 0
            len2 -= 1
            if len2 == 1:
                done = True
                break
        if (count1 | count2) >= min_gallop:
            break
    m.cursor1, m.cursor2, m.dest, m.len1, m.len2 = cursor1, cursor2, dest, len1, len2
    return done


def _hi_galloping(m: _Merge, min_gallop: int, base1: int) -> tuple[bool, int]:
    """mergeHi in galloping mode until neither run wins by MIN_GALLOP; (done, min_gallop)."""
    a, tmp, c = m.a, m.tmp, m.c
    cursor1, cursor2, dest, len1, len2 = m.cursor1, m.cursor2, m.dest, m.len1, m.len2
    done = False
    while True:
        count1 = len1 - _gallop_right(tmp[cursor2], a, base1, len1, len1 - 1, c)
        if count1 != 0:
            dest -= count1
            cursor1 -= count1
            len1 -= count1
            a[dest + 1:dest + 1 + count1] = a[cursor1 + 1:cursor1 + 1 + count1]
            if len1 == 0:
                done = True
                break
        a[dest] = tmp[cursor2]
        dest -= 1
        cursor2 -= 1
        len2 -= 1
        if len2 == 1:
            done = True
            break
        count2 = len2 - _gallop_left(a[cursor1], tmp, 0, len2, len2 - 1, c)
        if count2 != 0:
            dest -= count2
            cursor2 -= count2
            len2 -= count2
            a[dest + 1:dest + 1 + count2] = tmp[cursor2 + 1:cursor2 + 1 + count2]
            if len2 <= 1:
                done = True
                break
        a[dest] = a[cursor1]
        dest -= 1
        cursor1 -= 1
        len1 -= 1
        if len1 == 0:
            done = True
            break
        min_gallop -= 1
        if not (count1 >= MIN_GALLOP or count2 >= MIN_GALLOP):
            break
    m.cursor1, m.cursor2, m.dest, m.len1, m.len2 = cursor1, cursor2, dest, len1, len2
    return done, min_gallop
