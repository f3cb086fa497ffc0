"""The keyword and `get` lookups' fast probes agree with `Map.lookup` on every spelling of a key.

`(:k m)` in compiled code probes the keyword, then its name as a string key, before calling the
general helper; `get` (colls_maps.step_get) does the same before `Map.lookup`. Random maps mixing
keyword, string, dash and underscore spellings must give what `Map.lookup` gives, on both back ends.
"""
from hypothesis import given, settings, strategies as st

import ptclisp
from ptclisp.pipeline import evaluate
from ptclisp.values import Keyword

NAMES = ["a", "a-b", "a_b", "ab"]
SPELLINGS = st.sampled_from([f":{n}" for n in NAMES] + [f'"{n}"' for n in NAMES])
ENTRIES = st.dictionaries(SPELLINGS, st.integers(0, 9), max_size=5)


def outcome(src, backend):
    s = ptclisp.Session()
    r = evaluate(s.env, src, s.limits, backend=backend)
    assert r.error is None, r.error
    return ptclisp.pr_str(r.value)


def expected(entries, key):
    s = ptclisp.Session()
    m = s.eval("{" + " ".join(f"{k} {v}" for k, v in entries.items()) + "}").value
    k = Keyword(key[1:]) if key.startswith(":") else key[1:-1]
    return ptclisp.pr_str(m.lookup(k, "none"))


@settings(max_examples=200, deadline=None)
@given(entries=ENTRIES, key=st.sampled_from([f":{n}" for n in NAMES]))
def test_keyword_call_agrees_with_lookup(entries, key):
    m = "{" + " ".join(f"{k} {v}" for k, v in entries.items()) + "}"
    want = expected(entries, key)
    # a fn called often enough to be compiled, then once more: (:k m) inline; and (:k m default)
    src = f"(let [f (fn [m] ({key} m))] (last (map (fn [_] (f {m})) (range 30))))"
    src_default = f"({key} {m} \"none\")"
    for backend in ("compiled", "tiered"):
        assert outcome(src, backend) == (want if want != '"none"' else "nil"), (src, backend)
        assert outcome(src_default, backend) == want, (src_default, backend)


@settings(max_examples=200, deadline=None)
@given(entries=ENTRIES, key=SPELLINGS)
def test_get_agrees_with_lookup(entries, key):
    m = "{" + " ".join(f"{k} {v}" for k, v in entries.items()) + "}"
    assert outcome(f'(get {m} {key} "none")', "tiered") == expected(entries, key)


def test_a_non_map_gives_nil_and_a_default():
    for backend in ("compiled", "tiered"):
        assert outcome('(let [f (fn [m] (:a m))] [(f nil) (f [1]) (f "a") (:a 5 :d)])', backend) == "[nil nil nil :d]"


@settings(max_examples=200, deadline=None)
@given(entries=ENTRIES, key=st.sampled_from([f":{n}" for n in NAMES]))
def test_get_of_a_keyword_in_compiled_code_agrees_with_lookup(entries, key):
    # `(get m :k)` / `(get m :k d)` are inlined as probes in compiled code (a constant or a
    # variable default); a default that is a call is evaluated as before
    m = "{" + " ".join(f"{k} {v}" for k, v in entries.items()) + "}"
    want = expected(entries, key)
    hot = "(let [f (fn [m d] [(get m {k}) (get m {k} \"none\") (get m {k} d) (get m {k} (str d))])] " \
          "(last (map (fn [_] (f {m} \"none\")) (range 30))))"
    src = hot.replace("{k}", key).replace("{m}", m)
    plain = "nil" if want == '"none"' else want
    for backend in ("compiled", "tiered"):
        assert outcome(src, backend) == f"[{plain} {want} {want} {want}]", (src, backend)


def test_get_of_a_keyword_on_other_values_in_compiled_code():
    src = ('(let [f (fn [m] [(get m :a) (get m :a 7) (get m :a-b "d")])] '
           '(last (map (fn [m] (f m)) [nil [1] "a" #{:a} {:a_b 3} {"a" 1} 5 nil nil nil nil nil nil nil nil '
           'nil nil nil nil nil nil nil nil nil nil {:a-b 2 :a 4}])))')
    for backend in ("compiled", "tiered"):
        assert outcome(src, backend) == '[4 4 2]'
    src = ('(let [f (fn [m] [(get m :a) (get m :a 7)])] (mapv f [nil [1] "a" #{:a} {:a_b 3} {"a" 1} 5 '
           + "nil " * 24 + "]))")
    for backend in ("compiled", "tiered"):
        assert outcome(src, backend).startswith('[[nil 7] [nil 7] [nil 7] [:a :a] [nil 7] [1 1] [nil 7]'), backend


def test_get_default_with_an_error_is_still_evaluated_in_compiled_code():
    src = "(let [f (fn [m] (get m :a (quot 1 0)))] (last (map (fn [_] (f {:a 1})) (range 30))))"
    for backend in ("compiled", "tiered"):
        s = ptclisp.Session()
        r = evaluate(s.env, src, s.limits, backend=backend)
        assert r.error is not None and r.error.kind == "arithmetic_error", backend
        assert (r.error.span.line, r.error.span.col) == (1, 27), backend


KEYS_AT_RUN_TIME = st.sampled_from([":a", ":a-b", '"a"', '"a_b"', '"ab"', "1", "1.0", "true", "nil", "[1]"])
ANY_ENTRIES = st.dictionaries(st.sampled_from([":a", ":a-b", ":a_b", '"a"', '"a-b"', '"a_b"', "1", "1.0", "true",
                                               "nil", "[1]", "[1.0]"]), st.integers(0, 9), max_size=5)


@settings(max_examples=300, deadline=None)
@given(entries=ANY_ENTRIES, key=KEYS_AT_RUN_TIME)
def test_get_of_a_key_known_at_run_time_in_compiled_code_agrees_with_the_builtin(entries, key):
    # `(get m k)` with k a variable: one probe for a string or keyword key in compiled code, the
    # builtin for anything else; both back ends must give what the builtin gives run once
    m = "(into {} [" + " ".join(f"[{k} {v}]" for k, v in entries.items()) + "])"
    want = outcome(f'[(get {m} {key}) (get {m} {key} "none")]', "tiered")
    src = (f'(let [f (fn [m k d] [(get m k) (get m k d)])] (last (map (fn [_] (f {m} {key} "none")) (range 30))))')
    for backend in ("compiled", "tiered"):
        assert outcome(src, backend) == want, (src, backend)


def test_get_of_a_key_known_at_run_time_evaluates_map_then_key_once():
    src = ('(let [f (fn [x] (get (do (println "m") {"a" x}) (do (println "k") "a") (do 7)))] '
           '(last (map (fn [i] (f i)) (range 30))))')
    for backend in ("compiled", "tiered"):
        s = ptclisp.Session()
        r = evaluate(s.env, src, s.limits, backend=backend)
        assert r.error is None and r.value == 29
        assert r.prints == ["m", "k"] * 30, backend


INNER = st.one_of(st.integers(0, 9), st.sampled_from(["nil", "[1 2]", '"s"', "#{:b}"]),
                  ENTRIES.map(lambda e: "{" + " ".join(f"{k} {v}" for k, v in e.items()) + "}"))
OUTER = st.dictionaries(SPELLINGS, INNER, max_size=4)


@settings(max_examples=300, deadline=None)
@given(entries=OUTER, k1=st.sampled_from([f":{n}" for n in NAMES]), k2=st.sampled_from([f":{n}" for n in NAMES] + [":b"]))
def test_get_in_of_a_keyword_path_in_compiled_code_agrees_with_the_builtin(entries, k1, k2):
    # `(get-in m [:k1 :k2])` with a literal keyword path: the probes of (:k m) step by step in
    # compiled code, the builtin for anything else
    m = "{" + " ".join(f"{k} {v}" for k, v in entries.items()) + "}"
    want = outcome(f'[(get-in {m} [{k1} {k2}]) (get-in {m} [{k1} {k2}] "none") (get-in {m} [{k1}])]', "tiered")
    src = (f'(let [f (fn [m d] [(get-in m [{k1} {k2}]) (get-in m [{k1} {k2}] d) (get-in m [{k1}])])] '
           f'(last (map (fn [_] (f {m} "none")) (range 30))))')
    for backend in ("compiled", "tiered"):
        assert outcome(src, backend) == want, (src, backend)
