"""Which reads of a variable are its last use (analyzer/lastuse.py): the licence the compiler
needs to extend a map in place. The collector records the facts; the decision reads only them."""
import pytest

from ptclisp import lib
from ptclisp.analyzer import Analyzer, Env
from ptclisp.analyzer import nodes as N
from ptclisp.analyzer.lastuse import _last_uses, _ReadCollector, last_reads
from ptclisp.reader.parser import read

lib.load()   # the analyzer resolves builtins against the registered families

OWNED = frozenset({"assoc", "dissoc", "conj", "update"})


def analyze(src: str) -> N.Node:
    return Analyzer(Env()).analyze_program(read(src))


def local_refs(node: N.Node) -> list:
    """The LocalRef nodes under `node`, in evaluation order."""
    if type(node) is N.LocalRef:
        return [node]
    return [r for child in N.children(node) for r in local_refs(child)]


def marks(src: str) -> list:
    """For each read of a variable in `src`, in evaluation order: `name!` when it is marked as the
    last read handed to an owned call, else `name`."""
    node = analyze(src)
    marked = last_reads(node, OWNED)
    return [r.local.name + ("!" if id(r) in marked else "") for r in local_refs(node)]


@pytest.mark.parametrize("src,expected", [
    ("(let [m {}] (assoc m :a 1))", ["m!"]),
    # a read used up before the call runs (inside the call's other arguments, or a test before it)
    ("(let [m {}] (assoc m :n (inc (get m :n 0))))", ["m!", "m"]),
    ("(let [m {}] (if (empty? m) (assoc m :a 1) m))", ["m", "m!", "m"]),
    # both branches of one `if` may hand the map over
    ("(let [m {}] (if (:a m) (dissoc m :a) (assoc m :a 1)))", ["m", "m!", "m!"]),
    # a read after the call keeps the map alive
    ("(let [m {}] [(assoc m :a 1) m])", ["m", "m"]),
    ("(let [m {}] (assoc m :a 1) (assoc m :b 2))", ["m", "m!"]),
    # reads from a nested fn, or of a variable bound outside the fn, are never last
    ("(let [m {}] (fn [] (assoc m :a 1)))", ["m"]),
    ("(fn [m] (assoc m :a 1))", ["m!"]),
    # a loop variable is rebound on every iteration: its reads in the loop body qualify
    ("(loop [m {} i 0] (if (< i 3) (recur (assoc m i i) (inc i)) m))", ["i", "m!", "i", "i", "i", "m"]),
    # a variable bound by a `for` clause never does (an inner clause can re-run the body), nor one
    # bound outside it (`__item` is the clause's own item, which `m` is destructured from)
    ("(for [m [{}]] (assoc m :a 1))", ["__item", "m"]),
    ("(let [m {}] (for [x [1]] (assoc m x x)))", ["__item", "m", "x", "x"]),
    # only owned calls are licensed
    ("(let [m {}] (merge m {:a 1}))", ["m"]),
])
def test_last_reads(src, expected):
    assert marks(src) == expected


def test_a_variable_read_more_than_sixteen_times_is_never_handed_over():
    gets = " ".join(f"(get m {i})" for i in range(16))
    assert marks(f"(let [m {{}}] [{gets}] (assoc m :a 1))")[-1] == "m"
    gets = " ".join(f"(get m {i})" for i in range(15))
    assert marks(f"(let [m {{}}] [{gets}] (assoc m :a 1))")[-1] == "m!"


def test_the_collector_records_reads_homes_and_candidates():
    node = analyze("(let [m {}] (if (:a m) m (assoc m :a 1)))")
    facts = _ReadCollector(OWNED).collect(node)
    (local,) = facts.reads
    reads = facts.reads[local]
    assert [r.path and r.path[0][1] for r in reads] == [(), "then", "else"]
    assert facts.home[local] == id(node)
    assert [(r, at) for r, at in facts.candidates] == [(reads[2], reads[2].consumed_at)]
    assert reads[0].consumed_at < reads[2].consumed_at
    assert _last_uses(facts) == frozenset({id(reads[2].node)})


def test_the_decision_reads_only_the_facts():
    node = analyze("(let [m {}] (assoc m :a 1))")
    facts = _ReadCollector(OWNED).collect(node)
    assert len(_last_uses(facts)) == 1
    facts.home.clear()  # the variable bound nowhere the decision can see: never handed over
    assert _last_uses(facts) == frozenset()
