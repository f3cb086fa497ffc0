"""Write idioms_forms.jsonl: seeded small programs over special forms and destructuring, each with
the answer Clojure gives, worked out here from the semantics the reference describes. Nothing here
runs ptclisp: the answers come from the small model of Clojure below.

    python tests/data/gen_idioms_forms.py     # rewrites tests/data/idioms_forms.jsonl

Each line is {"id", "idiom", "src"} plus either "expect" (the printed value) or "error" (the error
kind). Printed forms follow the PTC-Lisp conventions the reference fixes: lists are vectors
(DIV-25), a character is a one-character string (GAP-S120/S126), maps and sets print sorted, space
separated (DIV-39). Cases where the reference deliberately differs from Clojure (case/condp with no
match and no default: nil instead of an exception, GAP-S37/S103) are not generated.

Clojure semantics modelled (clojure.core destructure, if-let, condp, case, cond->, def):
- a vector pattern walks (seq v): a vector's items, a string's characters, nothing for nil; any
  other value throws (nth not supported); missing positions bind nil; `& r` binds the rest or nil
  when nothing is left (nthnext); `:as x` binds the value itself.
- a map pattern looks keys up with get: maps by key, vectors and strings by index, nil and other
  values give nil; `:or` applies only to absent keys; `:as` binds the value itself.
- fn rest parameters are nil when no extra arguments are given; recur passes the rest directly.
- `& {:keys [..]}` rest: key/value pairs become a map, one trailing map is taken as is.
- if-let/when-let test truthiness, if-some/when-some test non-nil; the else branch is optional.
- condp: `test :>> f` gives (f (pred test expr)).
- case: constants are literal (vectors, maps, sets; a list inside a grouping list is one list
  constant, equal to the vector with the same items); a repeated constant is an error.
- cond-> needs test/step pairs (an odd count fails the macro's assertion).
- (def x) keeps an existing value and returns the var; declare names definitions made later.
"""
from __future__ import annotations

import json
import random
import sys
from pathlib import Path

SEED = 19
PER_KIND = 36
OUT = Path(__file__).with_name("idioms_forms.jsonl")


class Kw:
    """A keyword value of the model."""

    def __init__(self, name: str):
        self.name = name

    def __eq__(self, other):
        return type(other) is Kw and other.name == self.name

    def __hash__(self):
        return hash(("kw", self.name))


class DestructureError(Exception):
    """The model's failure: a value a vector pattern cannot walk."""


# ------------------------------------------------------------------ the value model

def pr(v) -> str:
    """The printed form of a model value."""
    if v is None:
        return "nil"
    if v is True:
        return "true"
    if v is False:
        return "false"
    if type(v) is int:
        return str(v)
    if type(v) is str:
        return '"' + v + '"'
    if type(v) is Kw:
        return ":" + v.name
    if type(v) is list:
        return "[" + " ".join(pr(x) for x in v) + "]"
    if type(v) is dict:
        return "{" + " ".join(f"{pr(k)} {pr(v[k])}" for k in sorted(v, key=_key_order)) + "}"
    if type(v) is frozenset:
        return "#{" + " ".join(pr(x) for x in sorted(v, key=_key_order)) + "}"
    raise TypeError(v)


def _key_order(k):
    return (0, k.name) if type(k) is Kw else (1, k)


def truthy(v) -> bool:
    return v is not None and v is not False


def seq_items(v) -> list:
    if type(v) is list:
        return v
    if type(v) is str:
        return list(v)
    if v is None:
        return []
    raise DestructureError


def get(v, k, missing=None):
    if type(v) is dict:
        return v.get(k, missing)
    if type(v) in (list, str):
        if type(k) is int and 0 <= k < len(v):
            return v[k]
        return missing
    if type(v) is frozenset:
        return k if k in v else missing
    return missing


# ------------------------------------------------------------------ vector patterns

NAMES = ["a", "b", "c"]


def vec_pattern(rng):
    """(pattern text, names in binding order, binder value -> {name: value})."""
    n = rng.randint(0, 3)
    pos = NAMES[:n]
    has_rest = rng.random() < 0.55
    has_as = rng.random() < 0.6 or (n == 0 and not has_rest)
    parts = list(pos)
    if has_as:
        at = rng.randint(0, n) if rng.random() < 0.3 else n
        parts[at:at] = [":as", "all"]
    if has_rest:
        parts += ["&", "r"]
    if has_as and rng.random() < 0.5 and parts[-2:] == ["&", "r"]:
        parts.remove(":as")
        parts.remove("all")
        parts += [":as", "all"]
    names = pos + (["r"] if has_rest else []) + (["all"] if has_as else [])

    def bind(value):
        items = seq_items(value)
        env = {p: (items[i] if i < len(items) else None) for i, p in enumerate(pos)}
        if has_rest:
            env["r"] = items[n:] if len(items) > n else None
        if has_as:
            env["all"] = value
        return env

    return "[" + " ".join(parts) + "]", names, bind


def seqable_value(rng):
    kind = rng.choice(["vec", "vec", "str", "nil"])
    n = rng.randint(0, 4)
    if kind == "vec":
        return [rng.randint(-3, 9) for _ in range(n)]
    if kind == "str":
        return "".join(rng.choice("abxyz") for _ in range(n))
    return None


def gen_vector_patterns(rng):
    pat, names, bind = vec_pattern(rng)
    value = seqable_value(rng)
    body = "[" + " ".join(names) + "]"
    env = bind(value)
    src_v = pr(value)
    where = rng.choice(["let", "fn", "defn", "loop", "for", "when-let"])
    if where == "let":
        src = f"(let [{pat} {src_v}] {body})"
    elif where == "fn":
        src = f"((fn [{pat}] {body}) {src_v})"
    elif where == "defn":
        src = f"(defn f [x {pat}] {body}) (f 0 {src_v})"
    elif where == "loop":
        src = f"(loop [{pat} {src_v}] {body})"
    elif where == "for":
        src = f"(first (for [{pat} [{src_v}]] {body}))"
    else:
        src = f"(when-let [{pat} {src_v}] {body})"
        if not truthy(value):
            return src, {"expect": "nil"}
    return src, {"expect": pr([env[n] for n in names])}


def gen_vector_rest_loops(rng):
    value = [rng.randint(0, 9) for _ in range(rng.randint(0, 5))]
    style = rng.choice(["loop", "defn-recur", "reduce-pairs"])
    if style == "loop":
        src = f"(loop [[x & more] {pr(value)} acc 0] (if x (recur more (+ acc x)) acc))"
        total = 0
        for x in value:
            total += x
        return src, {"expect": str(total)}
    if style == "defn-recur":
        src = f"(defn total [acc & xs] (if xs (recur (+ acc (first xs)) (next xs)) acc)) (apply total 0 {pr(value)})"
        return src, {"expect": str(sum(value))}
    pairs = [value[i:i + 2] for i in range(0, len(value), 2)]
    src = f"(mapv (fn [[a b :as p]] [b a (count p)]) {pr(pairs)})"
    return src, {"expect": pr([[p[1] if len(p) > 1 else None, p[0], len(p)] for p in pairs])}


# ------------------------------------------------------------------ fn rest arguments

def gen_fn_rest(rng):
    style = rng.choice(["fixed", "count", "apply", "short", "kwargs"])
    if style == "fixed":
        k = rng.randint(0, 2)
        args = [rng.randint(0, 9) for _ in range(k + rng.randint(0, 3))]
        params = NAMES[:k]
        body = "[" + " ".join(params + ["r"]) + "]"
        src = f"((fn [{' '.join(params + ['&', 'r'])}] {body}){''.join(' ' + pr(a) for a in args)})"
        rest = args[k:] or None
        return src, {"expect": pr(args[:k] + [rest])}
    if style == "count":
        args = [rng.randint(0, 9) for _ in range(rng.randint(0, 3))]
        src = f"(defn f [& xs] (if xs (count xs) :none)) (f{''.join(' ' + pr(a) for a in args)})"
        return src, {"expect": pr(len(args) if args else Kw("none"))}
    if style == "apply":
        args = [rng.randint(0, 9) for _ in range(rng.randint(1, 3))]
        src = f"(apply (fn [a & r] [a r]) {pr(args)})"
        return src, {"expect": pr([args[0], args[1:] or None])}
    if style == "short":
        args = [rng.randint(0, 9) for _ in range(rng.randint(1, 3))]
        src = f"(#(vector % %&){''.join(' ' + pr(a) for a in args)})"
        return src, {"expect": pr([args[0], args[1:] or None])}
    opts = {}
    flat = []
    for key in rng.sample(["k", "j"], rng.randint(0, 2)):
        opts[Kw(key)] = rng.randint(0, 9)
        flat += [Kw(key), opts[Kw(key)]]
    default = rng.randint(10, 19)
    as_map = rng.random() < 0.3 and opts
    args = [opts] if as_map else flat
    src = f"((fn [& {{:keys [k] :or {{k {default}}} :as o}}] [k o]){''.join(' ' + pr(a) for a in args)})"
    o = opts if args else None
    return src, {"expect": pr([opts.get(Kw("k"), default), o])}


# ------------------------------------------------------------------ map patterns

def gen_map_patterns(rng):
    kind = rng.choice(["vec", "vec", "str", "intmap", "nil", "kwmap"])
    if kind == "vec":
        value = [rng.randint(0, 9) for _ in range(rng.randint(0, 4))]
    elif kind == "str":
        value = "".join(rng.choice("pqr") for _ in range(rng.randint(0, 3)))
    elif kind == "intmap":
        value = {i: Kw(rng.choice("uvw")) for i in rng.sample(range(4), rng.randint(0, 3))}
    elif kind == "kwmap":
        value = {Kw(n): rng.randint(0, 9) for n in rng.sample(["a", "b", "z"], rng.randint(0, 3))}
    else:
        value = None
    entries, names, expect = [], [], []
    if kind == "kwmap" or rng.random() < 0.2:
        keys = rng.sample(["a", "b"], rng.randint(1, 2))
        entries.append(":keys [" + " ".join(keys) + "]")
        for n in keys:
            names.append(n)
            expect.append(get(value, Kw(n)))
    else:
        for n, i in zip(["x", "y"], rng.sample(range(4), 2)):
            entries.append(f"{n} {i}")
            names.append(n)
            expect.append(get(value, i))
    if rng.random() < 0.4:
        d = rng.randint(50, 59)
        target = names[-1]
        key = Kw(target) if entries[0].startswith(":keys") else int(entries[-1].split()[1])
        entries.append(f":or {{{target} {d}}}")
        if get(value, key, Kw("__absent__")) == Kw("__absent__"):
            expect[-1] = d
    if rng.random() < 0.5:
        entries.append(":as all")
        names.append("all")
        expect.append(value)
    pat = "{" + " ".join(entries) + "}"
    body = "[" + " ".join(names) + "]"
    where = rng.choice(["let", "fn", "for"])
    if where == "let":
        src = f"(let [{pat} {pr(value)}] {body})"
    elif where == "fn":
        src = f"((fn [{pat}] {body}) {pr(value)})"
    else:
        src = f"(first (for [{pat} [{pr(value)}]] {body}))"
    return src, {"expect": pr(expect)}


# ------------------------------------------------------------------ binding conditionals

COND_VALUES = [None, False, 0, [], [1, 2], "ab", {Kw("a"): 1}, 5]


def gen_binding_conditionals(rng):
    head = rng.choice(["if-let", "if-some", "when-let", "when-some"])
    value = rng.choice(COND_VALUES)
    shape = rng.choice(["sym", "vec", "map"])
    if shape == "sym":
        pat, names, bind = "v", ["v"], (lambda x: {"v": x})
    elif shape == "vec":
        pat, names = "[p q]", ["p", "q"]

        def bind(x):
            items = seq_items(x)
            return {"p": items[0] if items else None, "q": items[1] if len(items) > 1 else None}
    else:
        pat, names, bind = "{:keys [a]}", ["a"], (lambda x: {"a": get(x, Kw("a"))})
    body = "[" + " ".join(names) + "]"
    passes = truthy(value) if head.endswith("-let") else value is not None
    if head.startswith("if"):
        has_else = rng.random() < 0.5
        src = f"({head} [{pat} {pr(value)}] {body}{' :else' if has_else else ''})"
        miss = Kw("else") if has_else else None
    else:
        src = f"({head} [{pat} {pr(value)}] :ignored {body})"
        miss = None
    if not passes:
        return src, {"expect": pr(miss)}
    try:
        env = bind(value)
    except DestructureError:
        return src, {"error": "destructure_error"}
    return src, {"expect": pr([env[n] for n in names])}


# ------------------------------------------------------------------ condp

def gen_condp(rng):
    style = rng.choice(["eq", "some", "lt"])
    if style == "eq":
        x = rng.randint(0, 5)
        consts = rng.sample(range(6), rng.randint(1, 3))
        clauses, result = [], None
        for i, c in enumerate(consts):
            if rng.random() < 0.4:
                clauses.append(f"{c} :>> (fn [t] [:hit{i} t])")
                hit = [Kw(f"hit{i}"), True]
            else:
                clauses.append(f"{c} :r{i}")
                hit = Kw(f"r{i}")
            if result is None and c == x:
                result = hit
        src = f"(condp = {x} {' '.join(clauses)}"
    elif style == "some":
        coll = [rng.randint(0, 6) for _ in range(rng.randint(0, 4))]
        clauses, result = [], None
        for i in range(rng.randint(1, 3)):
            members = frozenset(rng.sample(range(7), rng.randint(1, 3)))
            found = next((x for x in coll if x in members), None)
            if rng.random() < 0.6:
                clauses.append(f"{pr(members)} :>> inc")
                hit = None if found is None else found + 1
            else:
                clauses.append(f"{pr(members)} :r{i}")
                hit = Kw(f"r{i}")
            if result is None and found is not None:
                result = hit
        src = f"(condp some {pr(coll)} {' '.join(clauses)}"
    else:
        x = rng.randint(0, 12)
        clauses, result = [], None
        for i, bound in enumerate(sorted(rng.sample(range(12), rng.randint(1, 3)), reverse=True)):
            if rng.random() < 0.5:
                clauses.append(f"{bound} :>> (fn [t] [:above {bound} t])")
                hit = [Kw("above"), bound, True]
            else:
                clauses.append(f"{bound} :r{i}")
                hit = Kw(f"r{i}")
            if result is None and bound < x:
                result = hit
        src = f"(condp < {x} {' '.join(clauses)}"
    if result is None or rng.random() < 0.4:
        src += " :default)"
        if result is None:
            result = Kw("default")
    else:
        src += ")"
    return src, {"expect": pr(result)}


# ------------------------------------------------------------------ case

# (source text, model value); lists inside a grouping list are written from the vectors
CASE_POOL = [
    ("1", 1), ("2", 2), ("7", 7), (":a", Kw("a")), (":b", Kw("b")), ('"s"', "s"), ('"t"', "t"),
    ("nil", None), ("true", True), ("[1 2]", [1, 2]), ("[]", []), ("[:a]", [Kw("a")]),
    ("{:a 1}", {Kw("a"): 1}), ("{:a 1 :b [2]}", {Kw("a"): 1, Kw("b"): [2]}), ("{}", {}),
    ("#{1 2}", frozenset({1, 2})), ("#{}", frozenset()), ("[[1] {:k #{3}}]", [[1], {Kw("k"): frozenset({3})}]),
]


def _as_list_text(text: str) -> str:
    return "(" + text[1:-1] + ")" if text.startswith("[") else text


def gen_case(rng):
    picks = rng.sample(range(len(CASE_POOL)), rng.randint(2, 5))
    duplicate = rng.random() < 0.12
    groups: list[list[int]] = []
    i = 0
    while i < len(picks):
        size = 2 if rng.random() < 0.3 and i + 1 < len(picks) else 1
        groups.append(picks[i:i + size])
        i += size
    if duplicate:
        groups.append([rng.choice(picks)])
    clauses = []
    for gi, group in enumerate(groups):
        texts = [CASE_POOL[p][0] for p in group]
        if len(group) > 1 or rng.random() < 0.15:
            texts = [_as_list_text(t) if rng.random() < 0.5 else t for t in texts]
            test = "(" + " ".join(texts) + ")"
        else:
            test = texts[0]
        clauses.append(f"{test} :r{gi}")
    scrutinee = rng.choice(picks + [rng.randrange(len(CASE_POOL))])
    has_default = rng.random() < 0.5
    src = f"(let [x {CASE_POOL[scrutinee][0]}] (case x {' '.join(clauses)}{' :default' if has_default else ''}))"
    if duplicate:
        return src, {"error": "invalid_form"}
    want = pr(CASE_POOL[scrutinee][1])
    for gi, group in enumerate(groups):
        if any(pr(CASE_POOL[p][1]) == want for p in group):
            return src, {"expect": f":r{gi}"}
    if not has_default:
        return None  # Clojure throws here; the reference keeps nil (GAP-S37): not generated
    return src, {"expect": ":default"}


# ------------------------------------------------------------------ threading and definitions

def gen_threading_and_defs(rng):
    style = rng.choice(["cond->", "cond->>", "odd", "some->", "def", "declare"])
    if style in ("cond->", "cond->>"):
        x = rng.randint(0, 9)
        steps = [("inc", lambda v: v + 1), ("(* 2)", lambda v: v * 2), ("(- 1)", None)]
        pairs, v = [], x
        for _ in range(rng.randint(0, 3)):
            text, fn = rng.choice(steps)
            test = rng.choice(["true", "false", "nil", f"(> {x} 4)"])
            pairs.append(f"{test} {text}")
            if test == "true" or (test.startswith("(>") and x > 4):
                if fn is None:
                    v = v - 1 if style == "cond->" else 1 - v
                else:
                    v = fn(v)
        return f"({style} {x} {' '.join(pairs)})", {"expect": str(v)}
    if style == "odd":
        return f"(cond-> {rng.randint(0, 9)} true inc false)", {"error": "invalid_thread_form"}
    if style == "some->":
        m = {Kw("a"): {Kw("b"): rng.randint(0, 9)}} if rng.random() < 0.6 else {Kw("a"): None}
        inner = m[Kw("a")]
        want = None if inner is None else inner[Kw("b")] + 1
        return f"(some-> {pr(m)} :a :b inc)", {"expect": pr(want)}
    if style == "def":
        n = rng.randint(0, 9)
        if rng.random() < 0.5:
            return f"(def x {n}) (def x) x", {"expect": str(n)}
        return "(def x)", {"expect": "#'x"}
    n = rng.randint(0, 9)
    return (f"(declare helper) (defn twice [v] (helper (helper v))) (defn helper [v] (* 2 v)) (twice {n})",
            {"expect": str(4 * n)})


GENERATORS = [
    ("vector-pattern", gen_vector_patterns),
    ("vector-rest-loop", gen_vector_rest_loops),
    ("fn-rest", gen_fn_rest),
    ("map-pattern", gen_map_patterns),
    ("binding-conditional", gen_binding_conditionals),
    ("condp", gen_condp),
    ("case", gen_case),
    ("threading-def", gen_threading_and_defs),
]


def cases() -> list[dict]:
    """Every generated case, in a fixed order (the same on every run)."""
    rng = random.Random(SEED)
    out, seen = [], set()
    for idiom, gen in GENERATORS:
        n = 0
        tries = 0
        while n < PER_KIND and tries < PER_KIND * 20:
            tries += 1
            made = gen(rng)
            if made is None or made[0] in seen:
                continue
            src, answer = made
            seen.add(src)
            out.append({"id": f"{idiom}-{n + 1}", "idiom": idiom, "src": src, **answer})
            n += 1
    return out


def render() -> str:
    return "".join(json.dumps(c, ensure_ascii=False) + "\n" for c in cases())


if __name__ == "__main__":
    OUT.write_text(render(), encoding="utf-8")
    print(f"wrote {sum(1 for _ in render().splitlines())} cases to {OUT}", file=sys.stderr)
