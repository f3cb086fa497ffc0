"""Write idioms_clojure.jsonl: programs in the Clojure that models write (issue 29: multi-arity fns,
letfn, quoted lists, #_, require/ns aliases, reductions, iterate/repeatedly under take, memoize,
comparator, sorted collections, the print family, capitalize, replace-first, long/num/char, atoms,
sorting sets, float text, string escapes), each with the answer JVM Clojure gave.

    python tests/data/gen_idioms_clojure.py           # runs `clojure` (Clojure 1.11 on the JVM)
    python tests/data/gen_idioms_clojure.py --check   # only checks the cases against the data file

The answers are not written by hand: every case is evaluated by the real Clojure, each in a fresh
namespace (its definitions and requires are its own), through `load-string`; the generator records
`pr-str` of the value and what the program printed. The test (tests/end_to_end/test_idioms_clojure.py) runs
every case on both back ends and compares values with `ptclisp.equal` against the recorded text
read back (a list reads as a list, equal to a vector with the same items, as in Clojure), and the
printed lines. A case with "error" names the PTC error kind expected where Clojure throws (the
Clojure exception class is recorded beside it); Clojure must have thrown for it.

Each line is {"id", "idiom", "src", "clojure"} plus "expect" and "out", or "error" and "thrown".
"""
from __future__ import annotations

import json
import random
import subprocess
import sys
import tempfile
from pathlib import Path

OUT = Path(__file__).with_name("idioms_clojure.jsonl")
SEED = 29

# (idiom, src) or (idiom, src, ptc error kind)
HAND = [
    # multi-arity defn / fn, arities calling each other, variadic arities
    ("multi-arity", "(defn f ([x] (f x 10)) ([x y] (+ x y))) [(f 1) (f 1 2)]"),
    ("multi-arity", "(defn g ([] (g 1)) ([a] (g a 2)) ([a b] (g a b 3)) ([a b c & more] (apply + a b c more))) "
                    "[(g) (g 5) (g 5 6) (g 1 2 3 4 5)]"),
    ("multi-arity", "(defn greet ([] (greet \"you\")) ([who] (str \"hi \" who))) (map greet [\"a\" \"b\"])"),
    ("multi-arity", "((fn fact ([n] (fact n 1)) ([n acc] (if (< n 2) acc (recur (dec n) (* acc n))))) 10)"),
    ("multi-arity", "(def h (fn ([x] [:one x]) ([x & xs] [:many x xs]))) [(h 1) (h 1 2 3)]"),
    ("multi-arity", "(defn sum-to ([n] (sum-to n 0)) ([n acc] (if (zero? n) acc (recur (dec n) (+ acc n))))) "
                    "(sum-to 1000)"),
    ("multi-arity", "(defn opt ([m] (opt m {})) ([m defaults] (merge defaults m))) (opt {:a 1} {:a 0 :b 2})"),
    ("multi-arity", "(defn pick ([[a b]] (pick a b)) ([a b] (+ a b))) [(pick [1 2]) (pick 3 4)]"),
    ("multi-arity", "(defn f ([x] x) ([x y] y)) (f 1 2 3)", "arity_mismatch"),
    ("multi-arity", "(reduce (fn ([] 0) ([a b] (+ a b))) [1 2 3])"),
    ("multi-arity", "(reduce (fn ([] 0) ([a b] (+ a b))) [])"),
    # letfn
    ("letfn", "(letfn [(ev? [n] (if (zero? n) true (od? (dec n)))) (od? [n] (if (zero? n) false (ev? (dec n))))] "
              "[(ev? 10) (od? 7) (ev? 3)])"),
    ("letfn", "(letfn [(sq [x] (* x x))] (map sq [1 2 3]))"),
    ("letfn", "(letfn [(fact [n] (if (< n 2) 1 (* n (fact (dec n)))))] (fact 15))"),
    ("letfn", "(letfn [(f ([x] (f x 1)) ([x y] (* x y))) (g [x] (f x))] [(g 3) (f 2 5)])"),
    ("letfn", "(let [k 3] (letfn [(add-k [x] (+ x k))] (add-k 4)))"),
    ("letfn", "(letfn [(f [x] x)] (f 1 2))", "arity_mismatch"),
    # quoted data and lists
    ("quote", "'(1 2 3)"),
    ("quote", "(map inc '(1 2 3))"),
    ("quote", "(conj '(1 2) 0)"),
    ("quote", "(conj '(1 2) 0 -1)"),
    ("quote", "(into '() [1 2 3])"),
    ("quote", "(peek '(3 4 5))"),
    ("quote", "(pop '(3 4 5))"),
    ("quote", "(first '(:a :b))"),
    ("quote", "(rest '(:a :b))"),
    ("quote", "(count '())"),
    ("quote", "(= '(1 2) [1 2])"),
    ("quote", "[(list? '(1)) (list? [1]) (vector? '(1)) (seq? '(1))]"),
    ("quote", "(conj (list 1 2) 0)"),
    ("quote", "(reduce conj '() [1 2 3])"),
    ("quote", "(loop [acc '() i 0] (if (< i 4) (recur (conj acc i) (inc i)) acc))"),
    ("quote", "'[1 (2 3) {:a (4)}]"),
    ("quote", "(apply + '(1 2 3))"),
    ("quote", "(str '(1 2))"),
    ("quote", "(quote (1 2))"),
    # #_ discard
    ("discard", "#_ (this is dropped) (+ 1 2)"),
    ("discard", "[1 #_ 2 3]"),
    ("discard", "[1 #_#_ 2 3 4]"),
    ("discard", "{:a 1 #_ :b #_ 2 :c 3}"),
    ("discard", "(+ 1 #_(* 100 100) 2)"),
    # require / ns aliases
    ("require", "(require '[clojure.string :as s]) (s/upper-case \"abc\")"),
    ("require", "(require '[clojure.set :as set]) (set/union #{1} #{2})"),
    ("require", "(require '[clojure.string :as str] '[clojure.set :as cs]) [(str/join \",\" [1 2]) (cs/difference #{1 2} #{1})]"),
    ("require", "(ns foo (:require [clojure.set :as s] [clojure.string :as string])) [(s/intersection #{1 2} #{2 3}) (string/trim \" x \")]"),
    ("require", "(require 'clojure.string) (clojure.string/upper-case \"abc\")"),
    # reductions
    ("reductions", "(reductions + [1 2 3 4])"),
    ("reductions", "(reductions + 100 [1 2 3])"),
    ("reductions", "(reductions + [])"),
    ("reductions", "(reductions conj [] [1 2 3])"),
    ("reductions", "(reductions max [3 1 4 1 5])"),
    ("reductions", "(last (reductions * 1 (range 1 8)))"),
    # iterate / repeatedly / range / cycle under take
    ("iterate", "(take 5 (iterate inc 0))"),
    ("iterate", "(take 6 (iterate #(* 2 %) 1))"),
    ("iterate", "(take 0 (iterate inc 0))"),
    ("iterate", "(nth (iterate #(+ % 3) 1) 10)"),
    ("iterate", "(first (drop 3 (iterate inc 7)))"),
    ("iterate", "(take-while #(< % 100) (iterate #(* 3 %) 1))"),
    ("iterate", "(take 4 (iterate (fn [[a b]] [b (+ a b)]) [0 1]))"),
    ("iterate", "(second (iterate inc 1))"),
    ("iterate", "(take 3 (drop 2 (range)))"),
    ("iterate", "(take 5 (cycle [:a :b]))"),
    ("repeatedly", "(take 3 (repeatedly (fn [] :x)))"),
    ("repeatedly", "(repeatedly 4 (constantly 7))"),
    ("repeatedly", "(let [a (atom 0)] (vec (repeatedly 3 #(swap! a inc))))"),
    ("repeatedly", "(let [a (atom 0)] (doall (take 4 (repeatedly #(swap! a + 2)))))"),
    ("repeatedly", "(let [a (atom 0)] (dorun (map #(swap! a + %) [1 2 3])) @a)"),
    # memoize
    ("memoize", "(def fib (memoize (fn [n] (if (< n 2) n (+ (fib (- n 1)) (fib (- n 2))))))) (fib 60)"),
    ("memoize", "(let [calls (atom 0) f (memoize (fn [x] (swap! calls inc) (* x x)))] [(f 3) (f 3) (f 4) @calls])"),
    ("memoize", "(def slow-add (memoize +)) [(slow-add 1 2) (slow-add 1 2 3)]"),
    # comparator
    ("comparator", "(sort (comparator >) [3 1 2])"),
    ("comparator", "(sort-by :n (comparator <) [{:n 2} {:n 1} {:n 3}])"),
    ("comparator", "((comparator <) 1 2)"),
    ("comparator", "((comparator <) 2 2)"),
    # sorted-map / sorted-set
    ("sorted", "(sorted-map :b 2 :a 1 :c 3)"),
    ("sorted", "(first (seq (sorted-map :b 2 :a 1)))"),
    ("sorted", "(keys (sorted-map \"b\" 2 \"a\" 1))"),
    ("sorted", "(sorted-set 3 1 2)"),
    ("sorted", "(first (sorted-set 3 1 2))"),
    ("sorted", "(vec (sorted-set :c :a :b))"),
    ("sorted", "(first (conj (sorted-set 5 3) 4 1))"),
    ("sorted", "(second (into (sorted-set) [9 7 8]))"),
    ("sorted", "(nth (into (sorted-set) [9 7 8]) 1)", "type_error"),
    ("sorted", "(last (disj (sorted-set 1 2 3) 3))"),
    # print family
    ("print", "(print \"a\" 1 :k [1 \"b\"] nil)"),
    ("print", "(print \"a\") (print \"b\") (println \"c\")"),
    ("print", "(prn \"a\" 1 [\"b\" nil])"),
    ("print", "(prn) (prn 1)"),
    ("print", "(printf \"%d-%s%n\" 3 \"x\")"),
    ("print", "(printf \"%.2f\" 3.14159)"),
    ("print", "(print-str \"a\" [1 \"b\"] nil)"),
    ("print", "(prn-str \"a\" 1)"),
    ("print", "(print-str)"),
    ("print", "(doseq [x [1 2 3]] (print x \"\"))"),
    # capitalize / replace-first
    ("strings", "(require '[clojure.string :as str]) (str/capitalize \"hELLO world\")"),
    ("strings", "(require '[clojure.string :as str]) (str/capitalize \"\")"),
    ("strings", "(require '[clojure.string :as str]) (map str/capitalize [\"ann\" \"BOB\"])"),
    ("strings", "(require '[clojure.string :as str]) (str/replace-first \"a-b-c\" \"-\" \"+\")"),
    ("strings", "(require '[clojure.string :as str]) (str/replace-first \"x12y34\" #\"\\d+\" \"<$0>\")"),
    ("strings", "(require '[clojure.string :as str]) (str/replace-first \"ab12\" #\"(\\d)(\\d)\" \"$2$1\")"),
    ("strings", "(require '[clojure.string :as str]) (str/replace-first \"x12y34\" #\"\\d+\" (fn [m] (str (count m))))"),
    ("strings", "(require '[clojure.string :as str]) (str/replace-first \"abc\" \"z\" \"y\")"),
    # long / int / num / char
    ("numbers", "[(long 3.9) (long -3.9) (int 7.5) (num 2) (num 2.5)]"),
    ("numbers", "[(char 97) (char 65) (int \\a) (long \\b)]"),
    ("numbers", "(apply str (map char [72 105]))"),
    ("numbers", "(num :a)", "type_error"),
    # atoms
    ("atom", "(let [a (atom 0)] (swap! a inc) (swap! a + 10) @a)"),
    ("atom", "(let [a (atom {:n 1})] (swap! a update :n inc) (deref a))"),
    ("atom", "(let [a (atom [])] (doseq [x [1 2 3]] (swap! a conj (* x x))) @a)"),
    ("atom", "(let [a (atom 1)] [(reset! a 5) @a])"),
    ("atom", "(let [seen (atom #{})] (doseq [x [1 2 1 3 2]] (swap! seen conj x)) (count @seen))"),
    ("atom", "(let [a (atom 1)] [(compare-and-set! a 1 2) (compare-and-set! a 1 3) @a])"),
    ("atom", "(let [a (atom 0)] (swap! a (fn [x y z] (+ x y z)) 2 3))"),
    ("atom", "(deref 5)", "type_error"),
    # sort and friends on sets
    ("sort-sets", "(sort #{3 1 2})"),
    ("sort-sets", "(sort > #{3 1 2})"),
    ("sort-sets", "(sort-by - #{3 1 2})"),
    ("sort-sets", "(sort-by count #{\"ccc\" \"a\" \"bb\"})"),
    ("sort-sets", "(first (sort #{:b :a}))"),
    # floats
    ("floats", "0.1234567890123"),
    ("floats", "(pr-str 0.1234567890123)"),
    ("floats", "(str 0.1234567890123)"),
    ("floats", "[0.1 0.30000000000000004 (+ 0.1 0.2) 1.5 -2.25]"),
    ("floats", "(/ 1.0 3)"),
    ("floats", "(pr-str (/ 2.0 3))"),
    ("floats", "(* 1.1 1.1)"),
    # string escapes
    ("escapes", "(count \"\\u00e9x\")"),
    ("escapes", "\"caf\\u00e9\""),
    ("escapes", "(count \"a\\bb\\fc\")"),
    ("escapes", "(pr-str \"a\\bb\\fc\")"),
    ("escapes", "(= \"\\u0041\" \"A\")"),
]


def _random_cases(r: random.Random) -> list[tuple]:
    """Seeded programs that combine the new forms with data: multi-arity folds, iterate under take,
    lists built by conj, reductions and sorted sets over random numbers."""
    out = []
    for _ in range(12):
        xs = [r.randint(-20, 20) for _ in range(r.randint(0, 6))]
        v = "[" + " ".join(map(str, xs)) + "]"
        n = r.randint(0, 7)
        k = r.randint(1, 4)
        out += [
            ("random", f"(defn f ([xs] (f xs 0)) ([xs acc] (if (empty? xs) acc (recur (rest xs) (+ acc (first xs)))))) (f {v})"),
            ("random", f"(take {n} (iterate #(+ % {k}) {xs[0] if xs else 0}))"),
            ("random", f"(reduce conj '() {v})"),
            ("random", f"(reductions + {v})"),
            ("random", f"(vec (apply sorted-set {v}))"),
            ("random", f"(sort #{{{' '.join(map(str, sorted(set(xs))))}}})"),
            ("random", f"(letfn [(step [acc x] (if (odd? x) (conj acc x) acc))] (reduce step [] {v}))"),
            ("random", f"(let [a (atom 0)] (doseq [x {v}] (swap! a + x)) @a)"),
        ]
    return out


def cases() -> list[dict]:
    rows, seen = [], set()
    for c in HAND + _random_cases(random.Random(SEED)):
        idiom, src = c[0], c[1]
        if src in seen:
            continue
        seen.add(src)
        row = {"id": f"clj-{len(rows) + 1}", "idiom": idiom, "src": src}
        if len(c) == 3:
            row["error"] = c[2]
        rows.append(row)
    return rows


_RUNNER = r"""
(defn- run-case [src]
  (let [out (java.io.StringWriter.)
        ns (create-ns (gensym "case"))]
    (try
      (binding [*ns* ns *out* out]
        (clojure.core/refer 'clojure.core)
        (let [v (load-string src)]
          {:value (pr-str v) :out (str out)}))
      (catch Throwable t
        (let [c (if (instance? clojure.lang.Compiler$CompilerException t) (or (.getCause t) t) t)]
          {:thrown (.getName (class c)) :out (str out)})))))

(doseq [[id src] (read-string (slurp (first *command-line-args*)))]
  (let [r (run-case src)]
    (println (pr-str (assoc r :id id)))))
"""


def _clojure(rows: list[dict]) -> dict:
    """id -> {:value/:thrown, :out} from one JVM run over every case."""
    with tempfile.TemporaryDirectory() as tmp:
        cases_path = Path(tmp) / "cases.edn"
        cases_path.write_text("[" + " ".join(f"[{json.dumps(r['id'])} {json.dumps(r['src'])}]" for r in rows) + "]",
                              encoding="utf-8")
        script = Path(tmp) / "run.clj"
        script.write_text(_RUNNER, encoding="utf-8")
        proc = subprocess.run(["clojure", str(script), str(cases_path)], capture_output=True, text=True,
                              timeout=600)
    if proc.returncode != 0:
        raise SystemExit(f"clojure failed:\n{proc.stderr[-2000:]}")
    answers = {}
    for line in proc.stdout.splitlines():
        if line.startswith("{"):
            rec = _read_edn_map(line)
            answers[rec["id"]] = rec
    return answers


def _read_edn_map(line: str) -> dict:
    """The flat map the runner prints ({:value "..." :out "..." :id "..."}), its values all strings."""
    out, i = {}, 1
    while True:
        while line[i] in " ,":
            i += 1
        if line[i] == "}":
            return out
        j = line.index(" ", i)
        key = line[i + 1:j]
        value, i = _edn_string(line, j + 1)
        out[key] = value


def _edn_string(s: str, i: int):
    assert s[i] == '"', s[i:i + 20]
    buf, i = [], i + 1
    esc = {'"': '"', "\\": "\\", "n": "\n", "t": "\t", "r": "\r", "b": "\b", "f": "\f"}
    while s[i] != '"':
        if s[i] == "\\":
            if s[i + 1] == "u":
                buf.append(chr(int(s[i + 2:i + 6], 16)))
                i += 6
                continue
            buf.append(esc[s[i + 1]])
            i += 2
            continue
        buf.append(s[i])
        i += 1
    return "".join(buf), i + 1


def render(rows: list[dict], answers: dict) -> str:
    lines = []
    for row in rows:
        ans = answers[row["id"]]
        rec = dict(row)
        rec["clojure"] = "1.11"
        if "error" in row:
            if "thrown" not in ans:
                raise SystemExit(f"{row['id']}: Clojure did not throw for {row['src']!r}: {ans}")
            rec["thrown"] = ans["thrown"]
        else:
            if "thrown" in ans:
                raise SystemExit(f"{row['id']}: Clojure threw {ans['thrown']} for {row['src']!r}")
            rec["expect"] = ans["value"]
            rec["out"] = ans["out"]
        lines.append(json.dumps(rec, ensure_ascii=False) + "\n")
    return "".join(lines)


def check() -> None:
    """The committed data holds exactly these cases (ids, sources, expected errors)."""
    committed = [json.loads(x) for x in OUT.read_text(encoding="utf-8").splitlines()]
    want = cases()
    got = [{k: c[k] for k in ("id", "idiom", "src", "error") if k in c} for c in committed]
    if got != want:
        raise SystemExit("idioms_clojure.jsonl does not match the cases: rerun the generator")


def main():
    if "--check" in sys.argv:
        check()
        print("ok")
        return
    rows = cases()
    OUT.write_text(render(rows, _clojure(rows)), encoding="utf-8")
    print(f"wrote {len(rows)} cases to {OUT}")


if __name__ == "__main__":
    main()
