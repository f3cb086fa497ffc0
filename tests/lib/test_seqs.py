"""Sequence family: filtering, transforming, ordering, subsetting, combining,
combinations/tree-seq and range (docs/spec/functions.md §1.7-1.12, §1.16).

The builtins are called directly: each case names a builtin, gives its
arguments as PTC literal text (read with `read_string`; write a PTC string as
'"abc"') or as Python callables standing in for PTC functions, and the
expected result as literal text (compared by readable printing, so 1 and 1.0
differ) or as `!!reason` for an expected error.
"""
from __future__ import annotations

import pytest

from helpers import call_builtin as _call
from ptclisp import lib
from ptclisp.errors import PtcError
from ptclisp.lib import seqs_build
from ptclisp.lib.arguments import keyfn
from ptclisp.registry.builtins import BUILTINS
from ptclisp.runtime.meter import Limits, Meter, install
from ptclisp.values.text import pr_str
from ptclisp.reader.parser import read_string
from ptclisp.values import Keyword, Map, Vector

lib.load()   # every builtin family registers itself

B = {n: b.fn for n, b in BUILTINS.items()}


def inc(x):
    return x + 1


def plus(*a):
    return sum(a)


def even(x):
    return type(x) is int and x % 2 == 0


def odd(x):
    return type(x) is int and x % 2 == 1


def pos(x):
    return type(x) in (int, float) and x > 0


def gt(a, b):
    return a > b


def never(a, b):
    return False


def minus(a, b):
    return a - b


def identity(x):
    return x


def vector(*xs):
    return Vector(list(xs))


def first(v):
    return v.lst()[0] if v is not None and len(v) else None


def second(v):
    return v.lst()[1] if v is not None and len(v) > 1 else None


def count(x):
    return len(x)


def V(text):
    return read_string(text) if type(text) is str else text


CASES = [
    # ---- filtering (§1.7)
    ("filter", [even, "[1 2 3 4]"], "[2 4]"),
    ("filter", [":active", "[{:active true} {:active false}]"], "[{:active true}]"),
    ("filter", [lambda kv: kv.lst()[1] > 100, "{:food 50 :travel 200 :office 150}"], "[[:office 150] [:travel 200]]"),
    ("filter", ["#{:a :b}", "[:a :c :b]"], "[:a :b]"),
    ("filter", [lambda c: c == "e", '"hello"'], '["e"]'),
    ("filter", [even, "nil"], "[]"),
    ("filter", [even, "#{1 2 4}"], "[2 4]"),
    ("filter", [lambda m: m.lookup(Keyword("x")) is None, "[{:x nil} {:x 1}]"], "[{:x nil}]"),
    ("filter", [lambda x: 0, "[1 2]"], "[1 2]"),
    ("filter", ["[:a]", "[{:a 1}]"], "!!type_error"),
    ("filter", ["{:a 1}", "[:a :b]"], "[:a]"),  # maps and vectors are callables (GAP-S71)
    ("filter", ["[:a]", "[{:a 1}]"], "!!type_error"),
    ("filter", ["nil", "[1]"], "!!type_error"),
    ("filter", [even, "5"], "!!type_error"),
    ("filterv", [odd, "[1 2 3]"], "[1 3]"),
    ("remove", [":deleted", "[{:deleted true} {:deleted nil}]"], "[{:deleted nil}]"),
    ("remove", [lambda kv: kv.lst()[1] is None, "{:a 1 :b nil :c 3}"], "[[:a 1] [:c 3]]"),
    ("remove", [lambda x: False, "[1 false]"], "[1 false]"),
    ("keep", [identity, "[false nil 1 2 nil 3]"], "[false 1 2 3]"),
    ("keep", [lambda x: x * x if x > 2 else None, "[1 2 3 4 5]"], "[9 16 25]"),
    ("keep", [":email", '[{:email "a"} {} {"email" "b"}]'], '["a" "b"]'),
    ("keep-indexed", [lambda i, v: v if i % 2 else None, "[:a :b :c :d]"], "[:b :d]"),
    ("keep-indexed", [lambda i, v: v if i % 2 == 0 else None, "[10 20 30]"], "[10 30]"),
    ("dedupe", ["[1 1 2 3 3 2]"], "[1 2 3 2]"),
    ("dedupe", ['"aabcc"'], '["a" "b" "c"]'),
    ("dedupe", ["[1 1.0 2]"], "[1 2]"),
    ("dedupe", ["nil"], "[]"),
    ("find", ["{:a 1 :b 2}", ":b"], "[:b 2]"),
    ("find", ["{:a nil}", ":a"], "[:a nil]"),
    ("find", ["{:a 1}", ":z"], "nil"),
    ("find", ['{"a" 1}', ":a"], '["a" 1]'),
    ("find", ["{:user-id 7}", '"user-id"'], "[:user-id 7]"),
    ("find", ["{:a {:b 2}}", "[:a :b]"], "[[:a :b] 2]"),
    ("find", ["{:a {:b 2}}", "[:a :c]"], "nil"),
    ("find", ["[10 20 30]", "2"], "[2 30]"),
    ("find", ["[10 20]", "5"], "nil"),
    ("find", ["[10 20]", "-1"], "nil"),
    ("find", ["[10 20]", "1.0"], "nil"),
    ("find", ["nil", ":a"], "nil"),
    ("find", ["#{nil}", "nil"], "!!type_error"),
    ("find", ['"abc"', "0"], "!!type_error"),
    ("some", ['#{"x"}', '["a" "x"]'], '"x"'),
    ("some", [even, "[1 3 4]"], "true"),
    ("some", [even, "[1 3]"], "nil"),
    ("some", [":name", "[{} {:name \"A\"}]"], '"A"'),
    ("some", [even, "[]"], "nil"),
    ("every?", [pos, "[1 2]"], "true"),
    ("every?", [pos, "[1 -2]"], "false"),
    ("every?", [pos, "[]"], "true"),
    ("every?", [pos, "nil"], "true"),
    ("not-any?", [pos, "[-1 -2]"], "true"),
    ("not-any?", [pos, "[-1 2]"], "false"),
    ("not-any?", [pos, "[]"], "true"),
    ("not-every?", [even, "[2 3]"], "true"),
    ("not-every?", [even, "[2 4]"], "false"),
    ("not-every?", [even, "[]"], "false"),
    ("take-while", [":active", "[{:active true} {:active true} {:active false}]"],
     "[{:active true} {:active true}]"),
    ("take-while", [pos, "[2 1 0 3]"], "[2 1]"),
    ("drop-while", [":pending", "[{:pending true} {:pending true} {:pending false}]"], "[{:pending false}]"),
    ("drop-while", [pos, "[1 2]"], "[]"),
    ("distinct", ["[1 2 1 3]"], "[1 2 3]"),
    ("distinct", ["[1 1.0 true 1]"], "[1 1.0 true]"),
    ("distinct", ['[:a "a" :a]'], '[:a "a"]'),
    ("distinct", ['"abca"'], '["a" "b" "c"]'),
    ("distinct", ["nil"], "[]"),
    ("distinct", ["[[1 2] [1 2] {:a 1} {:a 1}]"], "[[1 2] {:a 1}]"),
    ("distinct", ["{:a 1}"], "!!type_error"),
    ("distinct-by", [first, '[["a" 1] ["a" 2] ["b" 3]]'], '[["a" 1] ["b" 3]]'),
    ("distinct-by", [":x", "[]"], "[]"),
    ("distinct-by", [":id", '[{:id 1 :v 1} {"id" 1 :v 2} {:id 2}]'], "[{:id 1 :v 1} {:id 2}]"),
    ("distinct-by", ["[:a :b]", "[{:a {:b 1}} {:a {:b 1}} {:a {:b 2}}]"], "[{:a {:b 1}} {:a {:b 2}}]"),
    # ---- transforming (§1.8)
    ("map", [inc, "[1 2 3]"], "[2 3 4]"),
    ("map", [plus, "[1 2 3]", "[10 20 30]"], "[11 22 33]"),
    ("map", [plus, "[1 2 3 4]", "[10 20]"], "[11 22]"),
    ("map", [plus, "[1 2]", "[10 20]", "[100 200]"], "[111 222]"),
    ("map", [vector, '"ab"', "[1 2]"], '[["a" 1] ["b" 2]]'),
    ("map", [":id", '[{:id 1} {"id" 2} 5]'], "[1 2 nil]"),
    ("map", [identity, "{:b 2 :a 1}"], "[[:a 1] [:b 2]]"),
    ("map", [inc, "nil"], "[]"),
    ("map", [plus, "[1]", "nil"], "[]"),
    ("map", ["{:a 1}", "[:a :b]"], "[1 nil]"),
    ("map", ["[10 20]", "[1 0 5]"], "[20 10 nil]"),
    ("map", [inc, "1"], "!!type_error"),
    ("mapv", [inc, "[1]"], "[2]"),
    ("mapcat", [lambda x: Vector([x, x * 2]), "[1 2 3]"], "[1 2 2 4 3 6]"),
    ("mapcat", [identity, "[[1 2] [3 4] [5]]"], "[1 2 3 4 5]"),
    ("mapcat", [lambda x: Vector([x]) if x > 0 else Vector([]), "[-1 2 -3 4]"], "[2 4]"),
    ("mapcat", [identity, '[nil "ab" {:a 1} [3]]'], '["a" "b" [:a 1] 3]'),
    ("mapcat", [vector, "[1 2]", "[:a :b]"], "[1 :a 2 :b]"),
    ("mapcat", [":tags", "[{:tags [:a :b]} {:tags :c} {} {:tags nil}]"], "[:a :b :c]"),
    ("mapcat", [identity, "nil"], "[]"),
    ("mapcat", [identity, "[1 2]"], "!!type_error"),
    ("map-indexed", [vector, '["a" "b"]'], '[[0 "a"] [1 "b"]]'),
    ("map-indexed", [vector, "nil"], "[]"),
    # ---- ordering (§1.9)
    ("sort", ["[3 1 2]"], "[1 2 3]"),
    ("sort", ['["b" "a" "c"]'], '["a" "b" "c"]'),
    ("sort", [":desc", "[1 3 2]"], "[3 2 1]"),
    ("sort", [":asc", "[3 1 2]"], "[1 2 3]"),
    ("sort", [gt, "[1 3 2]"], "[3 2 1]"),
    ("sort", [minus, "[3 1 2]"], "[1 2 3]"),
    ("sort", [lambda a, b: b - a, "[3 1 2]"], "[3 2 1]"),
    ("sort", [lambda a, b: 0.5, "[3 1 2]"], "[3 1 2]"),
    ("sort", [never, "[3 1 2]"], "[3 1 2]"),
    ("sort", ["nil", "[3 1 2]"], "[1 2 3]"),
    ("sort", ["{:b 2 :a 1}"], "[[:a 1] [:b 2]]"),
    ("sort", ['["b" "a"]'], '["a" "b"]'),
    ("sort", ["[1 nil]"], "[nil 1]"),
    ("sort", ["[2 1.5 -1 ##-Inf]"], "[##-Inf -1 1.5 2]"),
    ("sort", ["[:b :a]"], "[:a :b]"),
    ("sort", ["[true false]"], "[false true]"),
    ("sort", ["[[1 2] [1] [0 5]]"], "[[1] [0 5] [1 2]]"),
    ('sort', ['"cab"'], '["a" "b" "c"]'),
    ("sort", ["nil"], "[]"),
    ("sort", ['["😀" "\uffff" "a"]'], '["a" "😀" "\uffff"]'),
    ("sort", ['[1 "a"]'], "!!type_error"),
    ("sort", ["[{:a 1} {:a 2}]"], "!!type_error"),
    # DIV-33: NaN compares equal to every number; the order is the one Java's sort makes of that
    ("sort", ["[3 ##NaN 1]"], "[3 ##NaN 1]"), ("sort", ["[##NaN 3 1]"], "[##NaN 1 3]"),
    ("sort", ["[3 ##NaN 1 2 0]"], "[3 ##NaN 0 1 2]"), ("sort", ["[[2 ##NaN] [1 1] [2 0]]"], "[[1 1] [2 ##NaN] [2 0]]"),
    ("sort", ["#{3 1}"], "[1 3]"),   # sets sort as their members (issue 29)
    ("sort", [gt, "{:a 1}"], "!!type_error"),
    ("sort", [":up", "[1]"], "!!type_error"),
    ("sort", [lambda a, b: None, "[1 2]"], "!!type_error"),
    ("sort-by", [first, '[["b" 2] ["a" 1] ["c" 3]]'], '[["a" 1] ["b" 2] ["c" 3]]'),
    ("sort-by", [":price", ":desc", "[{:price 1} {:price 3}]"], "[{:price 3} {:price 1}]"),
    ("sort-by", [second, gt, "{:food 100 :travel 500 :office 200}"], "[[:travel 500] [:office 200] [:food 100]]"),
    ("sort-by", [first, "{:z 1 :a 2 :m 3}"], "[[:a 2] [:m 3] [:z 1]]"),
    ("sort-by", [":a", "[{:a nil} {:a 1}]"], "[{:a nil} {:a 1}]"),
    ("sort-by", [":x", "[]"], "[]"),
    ("sort-by", ['"age"', '[{"age" 3} {:age 1}]'], '[{:age 1} {"age" 3}]'),
    ("sort-by", ["[:a :b]", "[{:a {:b 2}} {:a {:b 1}}]"], "[{:a {:b 1}} {:a {:b 2}}]"),
    ("sort-by", [":k", "[{:k 1 :i 0} {:k 0} {:k 1 :i 1} {:k 0 :i 2}]"], "[{:k 0} {:i 2 :k 0} {:i 0 :k 1} {:i 1 :k 1}]"),
    ("sort-by", [":k", ":desc", "[{:k 1 :i 0} {:k 2} {:k 1 :i 1}]"], "[{:k 2} {:i 0 :k 1} {:i 1 :k 1}]"),
    ("sort-by", [count, "#{[1 2] [3]}"], "[[3] [1 2]]"),
    ("sort-by", [":a", '[{:a 1} {:a "x"}]'], "!!type_error"),
    ("sort-by", ["{:a 3 :b 1}", "[:a :b]"], "[:b :a]"),
    ("sort-by", ["[30 10 20]", "[0 1 2]"], "[1 2 0]"),
    ("reverse", ["[1 2 3]"], "[3 2 1]"),
    ("reverse", ['"ab"'], '["b" "a"]'),
    ("reverse", ["nil"], "[]"),
    ("reverse", ["{:a 1}"], "!!type_error"),
    # ---- subsetting (§1.10)
    ("first", ["[1 2 3]"], "1"),
    ("first", ["[]"], "nil"),
    ("first", ["nil"], "nil"),
    ("first", ['"hello"'], '"h"'),
    ("first", ['"é!"'], '"é"'),
    ("first", ["{:a 1}"], "!!type_error"),
    ("first", ["#{1}"], "!!type_error"),
    ("first", ["5"], "!!type_error"),
    ("second", ["[1 2 3]"], "2"),
    ("second", ["[1]"], "nil"),
    ("last", ["[1 2 3]"], "3"),
    ("last", ["[]"], "nil"),
    ("last", ['"abc"'], '"c"'),
    ("nth", ["[1 2 3]", "1"], "2"),
    ("nth", ["[1 2 3]", "10"], "nil"),
    ("nth", ["[1 2]", "-1"], "nil"),
    ("nth", ["[1 2]", "5", ":x"], ":x"),
    ("nth", ["[1 nil]", "1", ":x"], "nil"),
    ("nth", ["nil", "0", ":d"], ":d"),
    ("nth", ['"héllo"', "1"], '"é"'),
    ("nth", ["[1 2 3]", "1.0"], "2"),
    ("nth", ["[1 2]", "nil"], "!!type_error"),
    ("nth", ["{:a 1}", "0"], "!!type_error"),
    ("nth", ["#{1}", "0"], "!!type_error"),
    ("rest", ["[1 2 3]"], "[2 3]"),
    ("rest", ["[]"], "[]"),
    ("rest", ["nil"], "[]"),
    ("next", ["[1 2 3]"], "[2 3]"),
    ("next", ["[]"], "nil"),
    ("next", ["[1]"], "nil"),
    ("butlast", ["[1 2 3 4]"], "[1 2 3]"),
    ("butlast", ["[1]"], "nil"),
    ("butlast", ["[]"], "nil"),
    ("ffirst", ["[[1 2] [3]]"], "1"),
    ("ffirst", ["nil"], "nil"),
    ("fnext", ["[1 2 3]"], "2"),
    ("nfirst", ["[[1 2] [3]]"], "[2]"),
    ("nnext", ["[1 2 3 4]"], "[3 4]"),
    ("nnext", ["[1 2]"], "nil"),
    ("take", ["2", "[1 2 3 4]"], "[1 2]"),
    ("take", ["2", '"hello"'], '["h" "e"]'),
    ("take", ["1", "{:b 2 :a 1}"], "[[:a 1]]"),
    ("take", ["9", "[1]"], "[1]"),
    ("take", ["-1", "[1 2]"], "[]"),
    ("take", ["1.9", "[1 2]"], "[1]"),
    ("take", ["nil", "[1]"], "!!type_error"),
    ("take", ["##Inf", "[1]"], "!!type_error"),
    ("drop", ["2", "[1 2 3 4]"], "[3 4]"),
    ("drop", ["-1", "[1 2]"], "[1 2]"),
    ("drop", ["5", "[1 2]"], "[]"),
    ("nthrest", ["[1 2 3]", "2"], "[3]"),
    ("nthrest", ["[1 2 3]", "-2"], "[1 2 3]"),
    ("nthnext", ["[1 2 3]", "3"], "nil"),
    ("nthnext", ["[1 2 3]", "1"], "[2 3]"),
    ("take-last", ["2", "[1 2 3]"], "[2 3]"),
    ("take-last", ["2", "[]"], "nil"),
    ("take-last", ["0", "[1 2]"], "nil"),
    ("take-last", ["5", "[1 2]"], "[1 2]"),
    ("drop-last", ["[1 2 3]"], "[1 2]"),
    ("drop-last", ["2", "[1 2 3]"], "[1]"),
    ("drop-last", ["0", "[1 2 3]"], "[1 2 3]"),
    ("drop-last", ["-3", "[1 2 3]"], "[1 2 3]"),
    ("drop-last", ["9", "[1 2 3]"], "[]"),
    ("split-at", ["2", "[1 2 3 4 5]"], "[[1 2] [3 4 5]]"),
    ("split-at", ["0", "[1 2 3]"], "[[] [1 2 3]]"),
    ("split-at", ["-1", "[1 2 3]"], "[[] [1 2 3]]"),
    ("split-with", [pos, "[1 2 -1 3]"], "[[1 2] [-1 3]]"),
    ("split-with", [even, "[2 4 5 6]"], "[[2 4] [5 6]]"),
    ("partition", ["2", "[1 2 3 4 5 6]"], "[[1 2] [3 4] [5 6]]"),
    ("partition", ["3", "[1 2 3 4 5]"], "[[1 2 3]]"),
    ("partition", ["2", "1", "[1 2 3 4]"], "[[1 2] [2 3] [3 4]]"),
    ("partition", ["3", "3", "[0]", "[1 2 3 4 5]"], "[[1 2 3] [4 5 0]]"),
    ("partition", ["3", "3", "[]", "[1 2 3 4]"], "[[1 2 3] [4]]"),
    ("partition", ["3", "3", "nil", "[1 2 3 4]"], "[[1 2 3] [4]]"),
    ("partition", ["3", "1", "[:a]", "[1 2 3 4]"], "[[1 2 3] [2 3 4] [3 4 :a]]"),
    ("partition", ["2", "3", "[1 2 3 4 5 6 7]"], "[[1 2] [4 5]]"),
    ("partition", ["2", "[1]"], "[]"),
    ("partition", ["2", '"abcd"'], '[["a" "b"] ["c" "d"]]'),
    ("partition", ["-1", "[1 2]"], "[]"),
    ("partition", ["0", "[1 2]"], "!!type_error"),
    ("partition", ["2", "0", "[1 2]"], "!!type_error"),
    ("partition", ["2.0", "[1 2 3]"], "[[1 2]]"),
    ("partition-all", ["2", "[1 2 3 4 5]"], "[[1 2] [3 4] [5]]"),
    ("partition-all", ["3", "[1 2 3 4 5]"], "[[1 2 3] [4 5]]"),
    ("partition-all", ["2", "1", "[1 2 3]"], "[[1 2] [2 3] [3]]"),
    ("partition-all", ["2", "[]"], "[]"),
    ("partition-all", ["0", "[1]"], "!!type_error"),
    ("partition-by", [odd, "[1 1 2 2 3]"], "[[1 1] [2 2] [3]]"),
    ("partition-by", [identity, "[1 1 2 3 3]"], "[[1 1] [2] [3 3]]"),
    ("partition-by", [identity, "[]"], "[]"),
    # ---- combining (§1.11)
    ("cons", ["0", "[1 2 3]"], "[0 1 2 3]"),
    ("cons", ["0", "nil"], "[0]"),
    ("cons", ["0", '"ab"'], '[0 "a" "b"]'),
    ("cons", ["0", "{:a 1}"], "[0 [:a 1]]"),
    ("cons", ["0", "5"], "!!type_error"),
    ("conj", [], "[]"),
    ("conj", ["[1]"], "[1]"),
    ("conj", ["[1 2]", "3"], "[1 2 3]"),
    ("conj", ["[1]", "2", "3"], "[1 2 3]"),
    ("conj", ["#{1 2}", "3"], "#{1 2 3}"),
    ("conj", ["#{1}", "1.0"], "#{1 1.0}"),
    ("conj", ["{:a 1}", "[:b 2]"], "{:a 1 :b 2}"),
    ("conj", ["{:a 1}", "{:b 2 :c 3}"], "{:a 1 :b 2 :c 3}"),
    ("conj", ["{:a 1}", "nil"], "{:a 1}"),
    ("conj", ["nil", ":a", ":b"], "[:a :b]"),
    ("conj", ["{:a 1}", "[:b]"], "!!type_error"),
    ("conj", ["{:a 1}", ":b"], "!!type_error"),
    ("conj", ['"ab"', '"c"'], "!!type_error"),
    ("concat", ["[1 2]", "[3 4]"], "[1 2 3 4]"),
    ("concat", [], "[]"),
    ("concat", ["nil", "[1]", "nil"], "[1]"),
    ("concat", ['"ab"', "[1]"], '["a" "b" 1]'),
    ("concat", ["[1]", "5"], "!!type_error"),
    ("into", ["[]", "[1 2 3]"], "[1 2 3]"),
    ("into", ["[]", "{:a 1 :b 2}"], "[[:a 1] [:b 2]]"),
    ("into", ["#{}", "[1 2 2 3]"], "#{1 2 3}"),
    ("into", ["{}", "[[:a 1] [:b 2]]"], "{:a 1 :b 2}"),
    ("into", ["#{}", "{:a 1}"], "#{[:a 1]}"),
    ("into", ["{}", "#{[:a 1]}"], "{:a 1}"),
    ("into", ["{:a 1}", "{:a 2 :b 3}"], "{:a 2 :b 3}"),
    ("into", ["{}", "[{:a 1} nil]"], "{:a 1}"),
    ("into", ["#{}", '"aba"'], '#{"a" "b"}'),
    ("into", ["nil", "[1 2]"], "[1 2]"),
    ("into", ["[0]", "nil"], "[0]"),
    ("into", [], "[]"),
    ("into", ["[1]"], "[1]"),
    ("into", ["{}", "[1 2]"], "!!type_error"),
    ("into", ["{}", "[[1 2 3]]"], "!!type_error"),
    ("into", ['"s"', "[1]"], "!!type_error"),
    ("flatten", ["[[1 2] [3 [4]]]"], "[1 2 3 4]"),
    ("flatten", ['[1 [2 {:a 3}] "str"]'], '[1 2 {:a 3} "str"]'),
    ("flatten", ["[[] [[]] #{1}]"], "[#{1}]"),
    ("flatten", ["nil"], "[]"),
    ("flatten", ["{:a [1]}"], "[]"),
    ("flatten", ['"abc"'], "[]"),
    ("interleave", ["[1 2]", "[3 4]", "[5 6]"], "[1 3 5 2 4 6]"),
    ("interleave", ['"ab"', "[1 2]"], '["a" 1 "b" 2]'),
    ("interleave", ["[1 2 3]", "[:a]"], "[1 :a]"),
    ("interleave", [], "[]"),
    ("interleave", ["[1 2]"], "[1 2]"),
    ("interleave", ["nil", "[1]"], "[]"),
    ("interleave", ["{:a 1}", "[1]"], "!!type_error"),
    ("interpose", ['", "', '["a" "b" "c"]'], '["a" ", " "b" ", " "c"]'),
    ("interpose", ["0", '"ab"'], '["a" 0 "b"]'),
    ("interpose", ["0", "[]"], "[]"),
    ("interpose", ["0", "{:a 1}"], "!!type_error"),
    ("zip", ["[1 2]", "[:a :b]"], "[[1 :a] [2 :b]]"),
    ("zip", ["[1 2 3]", "[:a]"], "[[1 :a]]"),
    ("zip", ['"ab"', "[1]"], "!!type_error"),
    ("zipmap", ["[:a :b :c]", "[1 2 3]"], "{:a 1 :b 2 :c 3}"),
    ("zipmap", ["[:a :b]", "[1 2 3]"], "{:a 1 :b 2}"),
    ("zipmap", ["[:a :a]", "[1 2]"], "{:a 2}"),
    ("zipmap", ["nil", "[1]"], "{}"),
    ("empty", ["[1 2 3]"], "[]"),
    ("empty", ["{:a 1}"], "{}"),
    ("empty", ["#{1}"], "#{}"),
    ("empty", ["nil"], "nil"),
    ("empty", ['"abc"'], "nil"),
    ("empty", ["5"], "nil"),
    ("peek", ["[1 2 3]"], "3"),
    ("peek", ["[]"], "nil"),
    ("peek", ["nil"], "nil"),
    ("peek", ["{:a 1}"], "!!type_error"),
    ("pop", ["[1 2 3]"], "[1 2]"),
    ("pop", ["[]"], "nil"),
    ("pop", ["nil"], "nil"),
    ("subvec", ["[0 1 2 3 4]", "1", "3"], "[1 2]"),
    ("subvec", ["[0 1 2 3 4]", "2"], "[2 3 4]"),
    ("subvec", ["[1 2 3]", "0", "9"], "[1 2 3]"),
    ("subvec", ["[1 2 3]", "-5", "1"], "[1]"),
    ("subvec", ["[1 2 3]", "2", "1"], "[]"),
    ("subvec", ["[1 2 3]", "7"], "[]"),
    ("subvec", ['"abc"', "1"], "!!type_error"),
    ("list", ["1", "2", "3"], "(1 2 3)"),
    ("list", [], "()"),
    ("hash-map", [":a", "1", ":b", "2"], "{:a 1 :b 2}"),
    ("hash-map", [":a", "1", ":a", "2"], "{:a 2}"),
    ("hash-map", [], "{}"),
    ("hash-map", [":a"], "!!arity_error"),
    ("array-map", ["1", "1.0", "1.0", "2"], "{1 1.0 1.0 2}"),
    # ---- combinations, tree-seq (§1.12)
    ("combinations", ["[1 2 3]", "2"], "[[1 2] [1 3] [2 3]]"),
    ("combinations", ["[1 2 3 4]", "3"], "[[1 2 3] [1 2 4] [1 3 4] [2 3 4]]"),
    ("combinations", ["[1 2 3]", "0"], "[[]]"),
    ("combinations", ["[1 2]", "3"], "[]"),
    ("combinations", ["[1 2]", "-1"], "[]"),
    ("combinations", ['"abc"', "2"], '[["a" "b"] ["a" "c"] ["b" "c"]]'),
    ("tree-seq", [":children", ":children", "{:id 1 :children [{:id 2 :children []} {:id 3 :children []}]}"],
     "[{:children [{:children [] :id 2} {:children [] :id 3}] :id 1} {:children [] :id 2} {:children [] :id 3}]"),
    ("tree-seq", [lambda x: type(x) is Vector, identity, "[1 [2 [3]] 4]"],
     "[[1 [2 [3]] 4] 1 [2 [3]] 2 [3] 3 4]"),
    ("tree-seq", [lambda x: type(x) is str, lambda s: B["concat"](s), '"ab"'], '["ab" "a" "b"]'),
    ("tree-seq", [":kids", ":kids", "{:id 1}"], "[{:id 1}]"),
    # ---- range (§1.16)
    ("range", ["5"], "[0 1 2 3 4]"),
    ("range", ["5", "10"], "[5 6 7 8 9]"),
    ("range", ["0", "10", "2"], "[0 2 4 6 8]"),
    ("range", ["10", "0", "-2"], "[10 8 6 4 2]"),
    ("range", ["5", "5"], "[]"),
    ("range", ["5", "1"], "[]"),
    ("range", ["-2"], "[]"),
    ("range", ["2.5"], "[0 1 2]"),
    ("range", ["0", "1", "0.25"], "[0 0.25 0.5 0.75]"),
    ("range", ["0.5", "2"], "[0.5 1.5]"),
    ("range", ["1", "0", "-0.5"], "[1 0.5]"),
    ("range", ["5", "5", "0"], "[]"),
    ("range", ["1", "5", "0"], "!!type_error"),
    ("range", ["nil"], "!!type_error"),
    ("range", ['"5"'], "!!type_error"),
    ("range", ["0", "true"], "!!type_error"),
    ("range", ["0", "##NaN"], "[]"),
]


@pytest.mark.parametrize("name,args,expected", CASES, ids=[f"{c[0]}-{i}" for i, c in enumerate(CASES)])
def test_builtin(name, args, expected):
    if expected.startswith("!!"):
        with pytest.raises(PtcError) as ei:
            _call(name, args)
        assert ei.value.kind == expected[2:], ei.value.message
    else:
        got = _call(name, args)
        assert pr_str(got) == pr_str(read_string(expected))


@pytest.mark.parametrize("coll", ["[1 2 3]", '"h\u00e9llo"', "{:a 1 :b 2}", "#{1 2 3}", "nil", "[]"])
@pytest.mark.parametrize("n", ["0", "1", "2", "-1", "9", "1.5"])
def test_nthrest_and_nthnext_are_drop_with_the_collection_first(coll, n):
    dropped = _call("drop", [n, coll])
    assert pr_str(_call("nthrest", [coll, n])) == pr_str(dropped)
    assert pr_str(_call("nthnext", [coll, n])) == (pr_str(dropped) if len(dropped) else "nil")


@pytest.mark.parametrize("name,args,message", [
    ("drop", [":a", "[1]"], "drop: expected an integer, got keyword"),
    ("nthrest", ["[1]", ":a"], "nthrest: expected an integer, got keyword"),
    ("nthnext", ["[1]", "##Inf"], "nthnext: expected an integer, got a non-finite number"),
    ("drop", ["1", "1"], "drop: expected a collection, got number"),
    ("nthrest", ["1", "1"], "nthrest: expected a collection, got number"),
])
def test_the_drop_family_names_itself_in_errors(name, args, message):
    with pytest.raises(PtcError) as ei:
        _call(name, args)
    assert (ei.value.kind, ei.value.message) == ("type_error", message)


def test_range_charges_before_building():
    meter = Meter(Limits(memory_bytes=1_000_000))
    prev = install(meter)
    try:
        with pytest.raises(PtcError) as ei:
            B["range"](1_000_000_000)
        assert ei.value.kind == "memory_exceeded"
        with pytest.raises(PtcError) as ei:
            B["range"](0, float("inf"))
        assert ei.value.kind == "memory_exceeded"
        with pytest.raises(PtcError) as ei:
            B["combinations"](V("[1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 25 26]"), 13)
        assert ei.value.kind == "memory_exceeded"
        with pytest.raises(PtcError) as ei:
            B["partition"](5000, 1, B["range"](10_000))
        assert ei.value.kind == "memory_exceeded"
    finally:
        install(prev)


def test_conj_in_a_loop_charges_only_the_added_slots():
    meter = Meter(Limits(memory_bytes=2_000_000))
    prev = install(meter)
    try:
        v = Vector([])
        m = Map({})
        for i in range(20_000):
            v = B["conj"](v, i)
            m = B["conj"](m, Vector([i, i]))
        assert len(v) == 20_000 and len(m) == 20_000
        assert meter.allocated < 1_500_000
    finally:
        install(prev)


def test_earlier_versions_survive_conj_and_into():
    v1 = V("[1 2]")
    v2 = B["conj"](v1, 3)
    v3 = B["conj"](v1, 4)
    v4 = B["into"](v2, V("[5 6]"))
    assert pr_str(v1) == "[1 2]" and pr_str(v2) == "[1 2 3]" and pr_str(v3) == "[1 2 4]"
    assert pr_str(v4) == "[1 2 3 5 6]"
    m1 = V("{:a 1}")
    m2 = B["conj"](m1, V("[:b 2]"))
    m3 = B["conj"](m1, V("[:c 3]"))
    assert pr_str(m1) == "{:a 1}" and pr_str(m2) == "{:a 1 :b 2}" and pr_str(m3) == "{:a 1 :c 3}"


def test_sort_is_stable_and_does_not_touch_input():
    items = V('[[1 "a"] [0 "b"] [1 "c"] [0 "d"]]')
    got = B["sort-by"](first, items)
    assert pr_str(got) == '[[0 "b"] [0 "d"] [1 "a"] [1 "c"]]'
    got = B["sort-by"](first, V(":desc"), items)
    assert pr_str(got) == '[[1 "a"] [1 "c"] [0 "b"] [0 "d"]]'
    assert pr_str(items) == '[[1 "a"] [0 "b"] [1 "c"] [0 "d"]]'


def test_keyfn_helper():
    m = V('{:a {:b [10 20]} "c-d" 1 :e_f 2}')
    assert keyfn(V(":a"), "t")(m) == V("{:b [10 20]}")
    assert keyfn(V('"a"'), "t")(m) == V("{:b [10 20]}")
    assert keyfn(V("[:a :b 1]"), "t")(m) == 20
    assert keyfn(V("[:a :x 1]"), "t")(m) is None
    assert keyfn(V(":e-f"), "t")(m) == 2
    assert keyfn(V(":a"), "t")(5) is None
    assert keyfn(V('"a"'), "t")(V("[1]")) is None
    # a vector key is a path into maps and vectors, and an index lookup for an integer item (Clojure)
    assert keyfn(V("[:a :b]"), "t")(1) == V(":b")
    assert keyfn(V("[10 20]"), "t")(1) == 20
    assert keyfn(V("[:k]"), "t")(0) == V(":k")
    assert keyfn(V("{:a 1}"), "t")(V(":a")) == 1  # a map is a function of its keys
    for bad in ("nil", "5", "true"):
        with pytest.raises(PtcError):
            keyfn(V(bad), "t")


def test_zero_step_range_helper():
    assert pr_str(seqs_build.take_zero_step_range(3, 1, 5)) == "[1 1 1]"
    assert pr_str(seqs_build.take_zero_step_range(3, 5, 5)) == "[]"
    assert pr_str(seqs_build.take_zero_step_range(0, 1, 5)) == "[]"


def test_callback_errors_propagate():
    class Boom(Exception):
        pass

    def boom(*a):
        raise Boom()

    for name, args in [("map", [boom, "[1]"]), ("filter", [boom, "[1]"]), ("sort", [boom, "[1 2]"]),
                       ("sort-by", [boom, "[1 2]"]), ("tree-seq", [boom, identity, "[1]"])]:
        with pytest.raises(Boom):
            _call(name, args)


def test_arity_signatures():
    want = {"map": (2, 4), "mapcat": (2, 4), "sort": (1, 2), "sort-by": (2, 3), "nth": (2, 3),
            "partition": (2, 4), "partition-all": (2, 3), "drop-last": (1, 2), "subvec": (2, 3),
            "range": (0, 3), "into": (0, 2), "conj": (0, None), "filter": (2, 2), "find": (2, 2)}
    for name, (lo, hi) in want.items():
        b = BUILTINS[name]
        assert (b.min_arity, b.max_arity) == (lo, hi), name
    assert "core" not in BUILTINS["zip"].groups and "core" not in BUILTINS["combinations"].groups
    assert "core" not in BUILTINS["distinct-by"].groups


# ---------------------------------------------------------------- end to end (ptclisp.run)

E2E = [
    ("(filter (fn [[k v]] (> v 100)) {:food 50 :travel 200 :office 150})", "[[:office 150] [:travel 200]]"),
    ("(filter #(= \\e %) \"hello\")", '["e"]'),
    ("(count (filter #(= \\r %) \"raspberry\"))", "3"),
    ("(keep (fn [x] (when (odd? x) x)) (range 10))", "[1 3 5 7 9]"),
    ("(sort (keep (fn [[k v]] (when (> v 1) k)) {:a 1 :b 2 :c 3}))", "[:b :c]"),
    ("(some :name [{} {\"name\" \"A\"}])", '"A"'),
    ("(filter [:a] [{:a 1}])", "!!type_error"),
    ("(map {:a 1} [:a])", "[1]"),
    ("(sort compare [3 ##NaN 1])", "[3 ##NaN 1]"), ("(sort-by :a [{:a 3} {:a ##NaN} {:a 1}])", "[{:a 3} {:a ##NaN} {:a 1}]"),
    ("(map (fn [a b c] (+ a b c)) [1 2] [10 20] [100 200])", "[111 222]"),
    ("(map inc [1] [2] [3] [4])", "!!arity_error"),
    ("(mapcat (fn [x] (range 0 x)) [2 3 1])", "[0 1 0 1 2 0]"),
    ("(mapcat :tags [{:tags [1 2]} {:tags 3} {}])", "[1 2 3]"),
    ("(map-indexed (fn [i x] [i x]) [\"a\" \"b\"])", '[[0 "a"] [1 "b"]]'),
    ("(sort-by :price :desc [{:price 1} {:price 3}])", "[{:price 3} {:price 1}]"),
    ("(sort-by second > {:food 100 :travel 500 :office 200})", "[[:travel 500] [:office 200] [:food 100]]"),
    ("(sort-by :total-cost [{\"total_cost\" 2} {\"total_cost\" 1}])", '[{"total_cost" 1} {"total_cost" 2}]'),
    ("(sort-by [:a :b] [{:a {:b 2}} {:a {:b 1}}])", "[{:a {:b 1}} {:a {:b 2}}]"),
    ("(sort (fn [a b] (< a b)) [3 1 2])", "[1 2 3]"),
    ("(sort compare [3 1 2])", "[1 2 3]"),
    ("(sort (fn [a b] false) [3 1 2])", "[3 1 2]"),
    ("(sort [1 \"a\"])", "!!type_error"),
    ("(sort [\\b \"a\"])", '["a" "b"]'),
    ("(->> (combinations [1 2 3 4 5] 2) (filter (fn [[a b]] (= (+ a b) 6))))", "[[1 5] [2 4]]"),
    ("(let [tree {:id 1 :children [{:id 2 :children []} {:id 3 :children []}]}]"
     " (map :id (tree-seq :children :children tree)))", "[1 2 3]"),
    ("(tree-seq string? seq \"ab\")", '["ab" "a" "b"]'),
    ("(reduce (fn [acc x] (conj acc x)) [] (range 5))", "[0 1 2 3 4]"),
    ("(reduce (fn [m x] (conj m [x (* x x)])) {} (range 3))", "{0 0 1 1 2 4}"),
    ("(into {} (map (fn [x] [x (* x x)]) (range 3)))", "{0 0 1 1 2 4}"),
    ("(let [v [1 2] a (conj v 3) b (conj v 4)] [v a b])", "[[1 2] [1 2 3] [1 2 4]]"),
    ("(hash-map :a)", "!!arity_error"),
    ("(clojure.core/partition-all 2 [1 2 3])", "[[1 2] [3]]"),
    ("(core/take-last 2 [1 2 3])", "[2 3]"),
    ("(clojure.core/zip [1] [2])", "!!invalid_form"),
    ("(clojure.core/combinations [1] 1)", "!!invalid_form"),
    ("(clojure.core/distinct-by :a [])", "!!invalid_form"),
    ("(count (range 100000000))", "!!memory_exceeded"),
    ("(range 1 5 0)", "!!type_error"),
    ("(first {:a 1})", "!!type_error"),
    ("(first (seq {:a 1}))", "[:a 1]"),
    ("(find #{1} 1)", "!!type_error"),
    ("(apply concat [[1] [2 3]])", "[1 2 3]"),
    ("((partial map inc) [1 2])", "[2 3]"),
    ("(->> [5 3 8] (sort >) (take 2))", "[8 5]"),
]


@pytest.mark.parametrize("src,expected", E2E, ids=[f"e2e-{i}" for i in range(len(E2E))])
def test_end_to_end(src, expected):
    import ptclisp

    r = ptclisp.run(src)
    if expected.startswith("!!"):
        assert r.status == "error", ptclisp.pr_str(r.value)
        assert r.error.kind == expected[2:], r.error.message
    else:
        assert r.status == "ok", (r.error.kind, r.error.message)
        assert ptclisp.pr_str(r.value) == ptclisp.pr_str(read_string(expected))
