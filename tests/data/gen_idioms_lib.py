"""Write idioms_lib.jsonl: small seeded programs over the core-function idioms of issue 19, each
with the answer Clojure gives, worked out here from Clojure's semantics (as the reference's divergence table's
Clojure column and clojure.core/clojure.set/clojure.string describe them) and printed the way
this language prints values (key-sorted maps and sets, DIV-38/39). Nothing here runs ptclisp:
the expectations come from the small models below.

    python tests/data/gen_idioms_lib.py      # rewrites tests/data/idioms_lib.jsonl

An expectation "!!kind" means the program must fail with that error kind (Clojure throws there).
Deviations that are deliberate in this language are not generated (an out-of-range `(v i)` is nil
by DIV-26 where Clojure throws; `key` of a plain pair, GAP-S17).
"""
from __future__ import annotations

import json
import math
import pathlib
import random

SEED = 19
OUT = pathlib.Path(__file__).with_name("idioms_lib.jsonl")


# ------------------------------------------------------------------ values and printing
# Python stand-ins: int/bool/None/str as themselves, Kw for keywords, list for vectors,
# dict for maps, frozenset-like PSet for sets.

class Kw:
    __slots__ = ("name",)

    def __init__(self, name):
        self.name = name

    def __eq__(self, other):
        return type(other) is Kw and other.name == self.name

    def __hash__(self):
        return hash(("kw", self.name))


class PSet:
    def __init__(self, items=()):
        self.items = []
        for x in items:
            self.add(x)

    def add(self, x):
        if not any(_same(x, y) for y in self.items):
            self.items.append(x)

    def __contains__(self, x):
        return any(_same(x, y) for y in self.items)


def _same(a, b):
    if type(a) is not type(b):
        return False
    if type(a) is list:
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b))
    return a == b


def _rank(x):
    if x is None:
        return (0,)
    if type(x) is bool:
        return (1, x)
    if type(x) in (int, float):
        return (2, (1, 0) if x != x else (0, x))
    if type(x) is str:
        return (3, x)
    if type(x) is Kw:
        return (4, x.name)
    if type(x) is list:
        return (5, len(x), tuple(_rank(y) for y in x))
    raise TypeError(x)


def pr(x) -> str:
    if x is None:
        return "nil"
    if x is True:
        return "true"
    if x is False:
        return "false"
    if type(x) is int:
        return str(x)
    if type(x) is float:
        if x != x:
            return "##NaN"
        if math.isinf(x):
            return "##Inf" if x > 0 else "##-Inf"
        assert x == round(x, 6) and abs(x) < 1e15, x  # only plain decimals are generated
        return repr(x)
    if type(x) is str:
        return '"' + x.replace("\\", "\\\\").replace('"', '\\"') + '"'
    if type(x) is Kw:
        return ":" + x.name
    if type(x) is list:
        return "[" + " ".join(pr(y) for y in x) + "]"
    if type(x) is dict:
        ks = sorted(x, key=_rank)
        return "{" + " ".join(f"{pr(k)} {pr(x[k])}" for k in ks) + "}"
    if type(x) is PSet:
        return "#{" + " ".join(pr(y) for y in sorted(x.items, key=_rank)) + "}"
    raise TypeError(x)


def K(name):
    return Kw(name)


# ------------------------------------------------------------------ generators

POOL = [K(n) for n in "abcdefgh"]


def rand_kw_map(r, n=None, values=None):
    n = r.randint(1, 5) if n is None else n
    keys = r.sample(POOL, n)
    return {k: (r.choice(values) if values else r.randint(0, 99)) for k in keys}


def lookup(m, k):
    return m.get(k)


def truthy(x):
    return x is not None and x is not False


def case_maps_as_fns(r, out):
    m = rand_kw_map(r, values=list(range(10)) + [False, None])
    ks = [r.choice(POOL) for _ in range(r.randint(0, 6))]
    looked = [lookup(m, k) for k in ks]
    out.append(("map-as-fn/map", f"(map {pr(m)} {pr(ks)})", pr(looked)))
    out.append(("map-as-fn/mapv", f"(mapv {pr(m)} {pr(ks)})", pr(looked)))
    out.append(("map-as-fn/filter", f"(filter {pr(m)} {pr(ks)})", pr([k for k in ks if truthy(lookup(m, k))])))
    out.append(("map-as-fn/remove", f"(remove {pr(m)} {pr(ks)})", pr([k for k in ks if not truthy(lookup(m, k))])))
    out.append(("map-as-fn/keep", f"(keep {pr(m)} {pr(ks)})", pr([v for v in looked if v is not None])))
    first = next((v for v in looked if truthy(v)), None)
    out.append(("map-as-fn/some", f"(some {pr(m)} {pr(ks)})", pr(first)))
    out.append(("map-as-fn/every?", f"(every? {pr(m)} {pr(ks)})", pr(all(truthy(v) for v in looked))))
    k = r.choice(POOL)
    out.append(("map-as-fn/local", f"(let [m {pr(m)}] (m {pr(k)}))", pr(lookup(m, k))))
    out.append(("map-as-fn/default", f"({pr(m)} {pr(k)} :none)", pr(m[k] if k in m else K("none"))))
    out.append(("map-as-fn/apply", f"(apply {pr(m)} [{pr(k)}])", pr(lookup(m, k))))


def case_vectors_as_fns(r, out):
    v = [r.randint(0, 99) for _ in range(r.randint(1, 8))]
    idxs = [r.randrange(len(v)) for _ in range(r.randint(0, 6))]
    out.append(("vector-as-fn/mapv", f"(mapv {pr(v)} {pr(idxs)})", pr([v[i] for i in idxs])))
    out.append(("vector-as-fn/map", f"(map {pr(v)} {pr(idxs)})", pr([v[i] for i in idxs])))
    i = r.randrange(len(v))
    out.append(("vector-as-fn/call", f"({pr(v)} {i})", pr(v[i])))
    out.append(("vector-as-fn/apply", f"(apply {pr(v)} [{i}])", pr(v[i])))
    out.append(("vector-as-fn/local", f"(let [v {pr(v)}] (v {i}))", pr(v[i])))
    out.append(("vector-as-fn/passed", f"((fn [f x] (f x)) {pr(v)} {i})", pr(v[i])))
    out.append(("vector-as-fn/thread", f"(-> {i} {pr(v)})", pr(v[i])))
    out.append(("vector-as-fn/sort-by", f"(sort-by {pr(v)} {pr(list(range(len(v))))})",
                pr(sorted(range(len(v)), key=lambda j: v[j]))))
    out.append(("vector-as-fn/non-integer", f"({pr(v)} :a)", "!!type_error"))


def case_sort_group(r, out):
    m = rand_kw_map(r, n=r.randint(2, 6), values=list(range(5)))
    ks = list(m)
    r.shuffle(ks)
    extra = [k for k in POOL if k not in m][:r.randint(0, 1)]
    ks2 = ks + extra
    r.shuffle(ks2)
    # missing keys give nil, which sorts first; equal keys keep their order (stable)
    order = sorted(ks2, key=lambda k: (-1,) if lookup(m, k) is None else (0, lookup(m, k)))
    out.append(("sort-by/map", f"(sort-by {pr(m)} {pr(ks2)})", pr(order)))
    out.append(("sort-by/map-desc", f"(sort-by {pr(m)} > {pr(ks)})",
                pr(sorted(ks, key=lambda k: -lookup(m, k)))))
    labels = [K("x"), K("y"), K("z")]
    g = {i: r.choice(labels) for i in r.sample(range(10), r.randint(1, 6))}
    xs = [r.randrange(10) for _ in range(r.randint(0, 8))]
    groups = {}
    for x in xs:
        groups.setdefault(g.get(x), []).append(x)
    out.append(("group-by/map", f"(group-by {pr(g)} {pr(xs)})", pr(groups)))
    v = [r.choice(labels) for _ in range(4)]
    idx = [r.randrange(4) for _ in range(r.randint(0, 6))]
    groups = {}
    for i in idx:
        groups.setdefault(v[i], []).append(i)
    out.append(("group-by/vector", f"(group-by {pr(v)} {pr(idx)})", pr(groups)))


def case_combinators(r, out):
    m1 = {i: r.randint(0, 50) for i in range(5)}
    m2 = {i: K(r.choice("pq")) for i in range(0, 5, 2)}
    i = r.randrange(5)
    out.append(("juxt/maps", f"((juxt {pr(m1)} {pr(m2)}) {i})", pr([m1[i], m2.get(i)])))
    v = [r.randint(0, 9) for _ in range(5)]
    out.append(("juxt/vector-keyword", f"((juxt {pr(v)} :a) {i})", pr([v[i], None])))
    inner = [r.randrange(5) for _ in range(5)]
    out.append(("comp/map-vector", f"((comp {pr(m1)} {pr(inner)}) {i})", pr(m1[inner[i]])))
    n = r.randrange(4)
    out.append(("comp/map-inc", f"((comp {pr(m1)} inc) {n})", pr(m1[n + 1])))
    out.append(("partial/map", f"((partial {pr(m1)} {i}))", pr(m1[i])))
    out.append(("update/map-fn", f"(update {{:k {i}}} :k {pr(m1)})", pr({K("k"): m1[i]})))
    d = r.randint(100, 200)
    out.append(("fnil/vector", f"((fnil {pr(v)} {i}) nil)", pr(v[i])))
    out.append(("map/two-maps", f"(map {pr(m1)} (keys {pr(m2)}))", pr([m1[k] for k in sorted(m2)])))
    out.append(("get/default-map", f"(get {pr(m1)} {d} :none)", ":none"))


def case_predicates_keys(r, out):
    v = [r.randint(0, 9) for _ in range(r.randint(0, 3))]
    m = rand_kw_map(r, n=r.randint(0, 3))
    out.append(("ifn?/vector", f"(ifn? {pr(v)})", "true"))
    out.append(("ifn?/map", f"(ifn? {pr(m)})", "true"))
    out.append(("fn?/vector", f"(fn? {pr(v)})", "false"))
    out.append(("ifn?/string", '(ifn? "abc")', "false"))
    out.append(("keys", f"(keys {pr(m)})", pr(sorted(m, key=lambda k: k.name) or None)))
    out.append(("vals", f"(vals {pr(m)})", pr([m[k] for k in sorted(m, key=lambda k: k.name)] or None)))
    out.append(("keys/if", f"(if (keys {pr(m)}) :some :none)", ":some" if m else ":none"))
    out.append(("vals/when", f"(when-let [vs (vals {pr(m)})] (count vs))", pr(len(m) if m else None)))


# clojure.set's definitions over conj / disj / contains? (membership, DIV-27) / count

class Throw(Exception):
    pass


def _count(x):
    return 0 if x is None else len(x.items if type(x) is PSet else x)


def _seq(x):
    if x is None:
        return []
    return sorted(x.items, key=_rank) if type(x) is PSet else list(x)


def _conj(coll, items):
    if not items:
        return coll
    if type(coll) is PSet:
        out = PSet(coll.items)
        for x in items:
            out.add(x)
        return out
    if type(coll) is list:
        return coll + list(items)
    if coll is None:
        return list(items)
    raise Throw


def _disj(coll, x):
    if coll is None:
        return None
    if type(coll) is not PSet:
        raise Throw
    return PSet([y for y in coll.items if not _same(x, y)])


def _contains(coll, x):
    if coll is None:
        return False
    if type(coll) is PSet:
        return x in coll
    return any(_same(x, y) for y in coll)


def s_union(a, b):
    if _count(a) < _count(b):
        a, b = b, a
    return _conj(a, _seq(b))


def s_intersection(a, b):
    if _count(b) < _count(a):
        a, b = b, a
    result = a
    for x in _seq(a):
        if not _contains(b, x):
            result = _disj(result, x)
    return result


def s_difference(a, b):
    if _count(a) < _count(b):
        result = a
        for x in _seq(a):
            if _contains(b, x):
                result = _disj(result, x)
        return result
    for x in _seq(b):
        a = _disj(a, x)
    return a


def case_set_ops(r, out):
    def operand():
        items = [r.randrange(6) for _ in range(r.randint(0, 4))]
        kind = r.random()
        if kind < 0.45:
            return PSet(items)
        if kind < 0.9:
            return items
        return None

    for name, fn in (("union", s_union), ("intersection", s_intersection), ("difference", s_difference)):
        a, b = operand(), operand()
        try:
            expect = pr(fn(a, b))
        except Throw:
            expect = "!!type_error"
        out.append((f"clojure.set/{name}", f"(clojure.set/{name} {pr(a)} {pr(b)})", expect))


def case_strings(r, out):
    n = r.randint(0, 99999)
    d = str(r.randrange(10))
    kw = K(r.choice(["ab", "Xy", "k-1", "Q"]))
    out.append(("string/upper-case-kw", f"(clojure.string/upper-case {pr(kw)})", pr(":" + kw.name.upper())))
    out.append(("string/lower-case-kw", f"(clojure.string/lower-case {pr(kw)})", pr(":" + kw.name.lower())))
    out.append(("string/upper-case-num", f"(clojure.string/upper-case {n})", pr(str(n))))
    out.append(("string/includes?", f'(clojure.string/includes? {n} "{d}")', pr(d in str(n))))
    out.append(("string/starts-with?", f'(clojure.string/starts-with? {n} "{d}")', pr(str(n).startswith(d))))
    out.append(("string/ends-with?", f'(clojure.string/ends-with? {pr(kw)} "{kw.name[-1]}")', "true"))
    i = str(n).find(d)
    out.append(("string/index-of", f'(clojure.string/index-of {n} "{d}")', pr(None if i < 0 else i)))
    j = str(n).rfind(d)
    out.append(("string/last-index-of", f'(clojure.string/last-index-of {n} "{d}")', pr(None if j < 0 else j)))
    out.append(("string/replace", f'(clojure.string/replace {n} "{d}" "x")', pr(str(n).replace(d, "x"))))
    b = r.choice([True, False])
    out.append(("string/upper-case-bool", f"(clojure.string/upper-case {pr(b)})", pr(pr(b).upper())))
    out.append(("string/trim-num", f"(clojure.string/trim {n})", "!!type_error"))


def _cmp(x, y):
    """Clojure's compare on numbers: NaN is neither less nor greater."""
    return -1 if x < y else (1 if x > y else 0)


def java_small_sort(a):
    """java.util.TimSort for fewer than 32 items: the first run, then binary insertion."""
    a = list(a)
    n = len(a)
    if n < 2:
        return a
    hi = 1
    if _cmp(a[1], a[0]) < 0:
        hi = 2
        while hi < n and _cmp(a[hi], a[hi - 1]) < 0:
            hi += 1
        a[:hi] = a[:hi][::-1]
    else:
        hi = 2
        while hi < n and _cmp(a[hi], a[hi - 1]) >= 0:
            hi += 1
    for start in range(hi, n):
        pivot = a[start]
        lo, up = 0, start
        while lo < up:
            mid = (lo + up) // 2
            if _cmp(pivot, a[mid]) < 0:
                up = mid
            else:
                lo = mid + 1
        a[lo + 1:start + 1] = a[lo:start]
        a[lo] = pivot
    return a


def case_nan(r, out):
    nan = float("nan")
    x = r.randint(-5, 5)
    out.append(("nan/compare", f"(compare ##NaN {x})", "0"))
    out.append(("nan/compare-rev", f"(compare {x} ##NaN)", "0"))
    xs = [nan if r.random() < 0.25 else r.randint(0, 9) for _ in range(r.randint(0, 12))]
    out.append(("nan/sort", f"(sort {pr(xs)})", pr(java_small_sort(xs))))
    ms = [{K("k"): v} for v in xs]
    out.append(("nan/sort-by", f"(sort-by :k {pr(ms)})",
                pr([{K("k"): v} for v in java_small_sort(xs)])))
    out.append(("nan/distinct?", "(distinct? ##NaN ##NaN)", "true"))


def case_keyword(r, out):
    name = r.choice(["a", "foo", "x-1", "ok?"])
    out.append(("keyword/2-arity", f'(keyword nil "{name}")', ":" + name))
    out.append(("keyword/1-arity", f'(keyword "{name}")', ":" + name))


LONG_MIN, LONG_MAX = -(1 << 63), (1 << 63) - 1


def wrap(v):
    v &= (1 << 64) - 1
    return v - (1 << 64) if v > LONG_MAX else v


def case_bits(r, out):
    x = r.choice([r.randint(-1000, 1000), r.randint(LONG_MIN, LONG_MAX), 1, -1, LONG_MAX, LONG_MIN])
    n = r.choice([r.randint(0, 70), r.randint(-70, -1), r.randint(60, 200)])
    s = n & 63
    out.append(("bits/shift-left", f"(bit-shift-left {x} {n})", str(wrap(x << s))))
    out.append(("bits/shift-right", f"(bit-shift-right {x} {n})", str(x >> s)))
    out.append(("bits/unsigned-shift-right", f"(unsigned-bit-shift-right {x} {n})", str(wrap((x & ((1 << 64) - 1)) >> s))))
    out.append(("bits/set", f"(bit-set {x} {n})", str(wrap(x | (1 << s)))))
    out.append(("bits/clear", f"(bit-clear {x} {n})", str(wrap(x & ~(1 << s)))))
    out.append(("bits/flip", f"(bit-flip {x} {n})", str(wrap(x ^ (1 << s)))))
    out.append(("bits/test", f"(bit-test {x} {n})", pr(bool((x >> s) & 1))))
    out.append(("bits/bigint", f"(bit-and {LONG_MAX + 1 + r.randint(0, 99)} 1)", "!!type_error"))


def case_parse_double(r, out):
    spellings = {"1.": 1.0, ".5": 0.5, "-1.5e3": -1500.0, "0x1p3": 8.0, "0x1.8p1": 3.0, "2D": 2.0, "1.5f": 1.5,
                 "+Infinity": math.inf, "NaN": math.nan, ".": None, "e5": None, "1_0": None, "0x1p": None}
    for text in r.sample(sorted(spellings), 4):
        out.append(("parse-double", f'(parse-double "{text}")', pr(spellings[text])))


def _java_string_hash(s):
    h = 0
    for ch in s:
        h = (31 * h + ord(ch)) & 0xFFFFFFFF
    return h


def _java_long_hash(v):
    v &= (1 << 64) - 1
    return (v ^ (v >> 32)) & 0xFFFFFFFF


def case_format(r, out):
    word = "".join(r.choice("abcxyz") for _ in range(r.randint(0, 6)))
    out.append(("format/%h-string", f'(format "%h" "{word}")', pr(format(_java_string_hash(word), "x"))))
    n = r.choice([r.randint(-10 ** 6, 10 ** 6), r.randint(LONG_MIN, LONG_MAX)])
    out.append(("format/%H-long", f'(format "%H" {n})', pr(format(_java_long_hash(n), "X"))))
    d = r.randint(0, 20000)  # days after the epoch, at noon UTC
    ms = d * 86_400_000 + 12 * 3_600_000
    y, m, dd = _civil(d)
    out.append(("format/%tF", f'(format "%tF" {ms})', pr(f"{y:04d}-{m:02d}-{dd:02d}")))
    out.append(("format/%tY", f'(format "%tY %<tm %<td" {ms})', pr(f"{y:04d} {m:02d} {dd:02d}")))


def _civil(days):
    import datetime
    t = datetime.date(1970, 1, 1) + datetime.timedelta(days=days)
    return t.year, t.month, t.day


CASES = [case_maps_as_fns, case_vectors_as_fns, case_sort_group, case_combinators, case_predicates_keys,
         case_set_ops, case_strings, case_nan, case_keyword, case_bits, case_parse_double, case_format]


def generate(seed: int = SEED, rounds: int = 12) -> list[dict]:
    r = random.Random(seed)
    rows: list[tuple] = []
    for _ in range(rounds):
        for make in CASES:
            make(r, rows)
    out, seen = [], set()
    for idiom, src, expect in rows:
        if src in seen:
            continue
        seen.add(src)
        out.append({"id": f"lib-{len(out) + 1}", "idiom": idiom, "src": src, "expect": expect})
    return out


def main():
    rows = generate()
    OUT.write_text("".join(json.dumps(row, ensure_ascii=False) + "\n" for row in rows), encoding="utf-8")
    print(f"wrote {len(rows)} cases to {OUT}")


if __name__ == "__main__":
    main()
