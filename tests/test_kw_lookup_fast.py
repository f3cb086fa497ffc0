"""The keyword and `get` lookups' fast probes agree with `Map.lookup` on every spelling of a key.

`(:k m)` in compiled code probes the keyword, then its name as a string key, before calling the
general helper; `get` (colls_maps.step_get) does the same before `Map.lookup`. Random maps mixing
keyword, string, dash and underscore spellings must give what `Map.lookup` gives, on both back ends.
"""
from hypothesis import given, settings, strategies as st

import ptclisp
from ptclisp.session import evaluate
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
