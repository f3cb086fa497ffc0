"""Java's `hashCode()` of the values a program can hold, as the JVM computes it for the
Clojure value the program text denotes (integers are Longs, or BigInts past 64 bits; floats
Doubles; a keyword hashes as Clojure's Keyword; collections as Clojure's persistent ones).

Used by `format`'s `%h` (GAP-S96). Values whose Java hash is their identity (functions,
regexes, Java objects) have no reproducible hash: `java_hash` returns None for them.
Imports values.
"""
from __future__ import annotations

import struct

from ..values import Keyword, Map, Set, Vector

_M32 = 0xFFFFFFFF


def _i32(x: int) -> int:
    x &= _M32
    return x - (1 << 32) if x & 0x80000000 else x


def _rotl(x: int, r: int) -> int:
    x &= _M32
    return ((x << r) | (x >> (32 - r))) & _M32


def _murmur_chars(s: str) -> int:
    """clojure.lang.Murmur3.hashUnencodedChars (seed 0) over UTF-16 code units."""
    units = struct.unpack(f">{len(s.encode('utf-16-be')) // 2}H", s.encode("utf-16-be")) if s else ()
    h1 = 0
    n = len(units)
    for i in range(1, n, 2):
        k1 = units[i - 1] | (units[i] << 16)
        k1 = (_rotl(k1 * 0xCC9E2D51, 15) * 0x1B873593) & _M32
        h1 ^= k1
        h1 = (_rotl(h1, 13) * 5 + 0xE6546B64) & _M32
    if n & 1:
        k1 = (_rotl(units[-1] * 0xCC9E2D51, 15) * 0x1B873593) & _M32
        h1 ^= k1
    h1 ^= 2 * n
    h1 ^= h1 >> 16
    h1 = (h1 * 0x85EBCA6B) & _M32
    h1 ^= h1 >> 13
    h1 = (h1 * 0xC2B2AE35) & _M32
    h1 ^= h1 >> 16
    return _i32(h1)


def _string_hash(s: str) -> int:
    h = 0
    if s.isascii():
        for c in s.encode("ascii"):
            h = (31 * h + c) & _M32
    else:
        b = s.encode("utf-16-be")
        for (u,) in struct.iter_unpack(">H", b):
            h = (31 * h + u) & _M32
    return _i32(h)


def _long_hash(v: int) -> int:
    v &= (1 << 64) - 1
    return _i32(v ^ (v >> 32))


def _bigint_hash(v: int) -> int:
    """java.math.BigInteger.hashCode: over the big-endian 32-bit words of |v|, times the sign."""
    mag = abs(v)
    words = []
    while mag:
        words.append(mag & _M32)
        mag >>= 32
    h = 0
    for w in reversed(words):
        h = (31 * h + w) & _M32
    return _i32(h * (1 if v > 0 else -1))


def _keyword_hash(k: Keyword) -> int:
    seed = _murmur_chars(k.name)  # Symbol.hasheq with no namespace: hashCombine(murmur(name), 0)
    seed = _i32(seed ^ ((0x9E3779B9 + (seed << 6) + (seed >> 2)) & _M32))
    return _i32(seed + 0x9E3779B9)


def _item_hashes(items) -> list | None:
    """The `java_hash` of each item, or None when one of them has only an identity hash."""
    hs = []
    for e in items:
        eh = java_hash(e)
        if eh is None:
            return None
        hs.append(eh)
    return hs


def java_hash(x) -> int | None:
    """The Java hashCode of x as a signed 32-bit int, or None when it is an identity hash."""
    if x is None:
        return 0
    t = type(x)
    if t is bool:
        return 1231 if x else 1237
    if t is int:
        return _long_hash(x) if -(1 << 63) <= x < (1 << 63) else _bigint_hash(x)
    if t is float:
        if x != x:
            bits = 0x7FF8000000000000
        else:
            bits = struct.unpack(">q", struct.pack(">d", x))[0]
        return _long_hash(bits)
    if t is str:
        return _string_hash(x)
    if t is Keyword:
        return _keyword_hash(x)
    if t is Vector:
        hs = _item_hashes(x.lst())
        if hs is None:
            return None
        h = 1
        for eh in hs:
            h = (31 * h + eh) & _M32
        return _i32(h)
    if t is Map:   # the sum of key hash ^ value hash over the entries
        ks, vs = _item_hashes(x.keys()), _item_hashes(x.values())
        if ks is None or vs is None:
            return None
        return _i32(sum(kh ^ vh for kh, vh in zip(ks, vs)) & _M32)
    if t is Set:   # the sum of the members' hashes
        hs = _item_hashes(x.members())
        return None if hs is None else _i32(sum(hs) & _M32)
    return None
