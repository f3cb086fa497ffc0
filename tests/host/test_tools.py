"""Tools: call shapes, argument normalisation, results, schema, cache, budget, ledger (docs/spec/runtime.md §5)."""
import pytest

import ptclisp
from helpers import py
from ptclisp import Limits, PtcError, Tool


def echo(args):
    return args


def run(src, tools=None, **kw):
    return ptclisp.run(src, tools=tools if tools is not None else {"t": echo, "call": echo}, **kw)


# ------------------------------------------------------------------ §5.1 call shapes and argument conventions

@pytest.mark.parametrize("src,received", [
    ("(tool/t)", {}),
    ("(tool/t nil)", {}),
    ("(tool/t {:id 123})", {"id": 123}),
    ("(tool/t :query \"x\" :limit 10)", {"query": "x", "limit": 10}),
    ("(tool/t {:user-id 1})", {"user_id": 1}),
    ("(tool/t {\"a-b\" 1})", {"a_b": 1}),
    ("(tool/t {:order :asc})", {"order": "asc"}),
    ("(tool/t {:f {:nested-key [:a {:b-c 2}]}})", {"f": {"nested_key": ["a", {"b_c": 2}]}}),
    ("(tool/t {1 :x})", {"1": "x"}),
    ("(tool/t {'sym 1})", {"'sym": 1}),
    ("(tool/call 'srv/search {:q 1})", {"server": "srv", "tool": "search", "args": {"q": 1}}),
    ("(tool/call 'srv/search)", {"server": "srv", "tool": "search", "args": {}}),
])
def test_callback_receives_string_keyed_dict(src, received):
    seen = []
    r = run(src, {"t": lambda a: seen.append(a) or 1, "call": lambda a: seen.append(a) or 1})
    assert r.status == "ok", r.error
    assert seen == [received]


def test_set_arguments_become_lists():
    seen = []
    run("(tool/t {:tags #{:a}})", {"t": lambda a: seen.append(a)})
    assert seen == [{"tags": ["a"]}]


@pytest.mark.parametrize("src", [
    '(tool/t "x")',
    "(tool/t 1 2 3)",
    "(tool/t :a)",
    "(tool/t {:a-b 1 :a_b 2})",          # keys collide after normalisation
    "(tool/t :a 1 :a 2)",
    "(tool/t {:f inc})",                # functions cannot cross the boundary
])
def test_invalid_tool_args(src):
    calls = []
    r = run(src, {"t": lambda a: calls.append(a)})
    assert r.error.kind == "invalid_tool_args", r.error
    assert calls == []


def test_tool_as_value():
    assert py(run("(map tool/t [{:a 1} {:a 2}])")) == [{"a": 1}, {"a": 2}]
    assert py(run("(let [f tool/t] (f :x 1))")) == {"x": 1}


def test_unknown_tool_fails_before_anything_runs():
    calls = []
    r = run("(tool/t {}) (tool/nope {})", {"t": lambda a: calls.append(a)})
    assert r.error.kind == "unknown_tool"
    assert "t" in r.error.message  # lists the granted tools
    assert calls == [] and r.tool_calls == []
    assert run("(map tool/nope [1])", {"t": echo}).error.kind == "unknown_tool"


# ------------------------------------------------------------------ §5.2 results

def test_result_values_enter_unchanged():
    r = run('(let [u (tool/t)] [(:name u) (get u "name") (keys u)])', {"t": lambda a: {"name": "Ann"}})
    assert py(r) == ["Ann", "Ann", ["name"]]


@pytest.mark.parametrize("result,expected", [
    (("ok", {"v": 1}), {"v": 1}),
    ([1, 2], [1, 2]),
    (("x", 1), ["x", 1]),               # only ("ok"|"error", v) tuples are envelopes
    (None, None),
])
def test_result_envelopes(result, expected):
    assert py(run("(tool/t)", {"t": lambda a: result})) == expected


def boom(args):
    raise RuntimeError("backend down")


@pytest.mark.parametrize("fn,kind,text", [
    (lambda a: ("error", "not found"), "tool_error", "not found"),
    (boom, "tool_error", "backend down"),
    (lambda a: (_ for _ in ()).throw(PtcError("rate_limited", "slow down")), "rate_limited", "slow down"),
    (lambda a: {"f": print}, "tool_error", "cannot hold"),
    (lambda a: object(), "tool_error", "cannot hold"),
])
def test_tool_failures_are_typed(fn, kind, text):
    r = run('(def x 1) (tool/t)', {"t": fn})
    assert r.error.kind == kind and text in r.error.message
    assert len(r.tool_calls) == 1 and r.tool_calls[0].error


def test_failing_tool_rolls_back_session():
    s = ptclisp.Session(tools={"t": boom})
    s.eval("(def a 1)")
    s.eval("(def a 2) (tool/t)")
    assert ptclisp.to_python(s.eval("a").value) == 1


# ------------------------------------------------------------------ Tool objects and schemas

SCHEMA = {"type": "object", "properties": {"id": {"type": "integer"}, "mode": {"enum": ["fast", "slow"]}},
          "required": ["id"], "additionalProperties": False}


def test_schema_accepts_valid_args():
    t = Tool("get", lambda a: a["id"] * 2, description="double", input_schema=SCHEMA, effect="read")
    assert py(run("(tool/get {:id 21 :mode :fast})", {"get": t})) == 42


@pytest.mark.parametrize("src", ["(tool/get {})", "(tool/get {:id \"1\"})", "(tool/get {:id 1 :mode :other})",
                                 "(tool/get {:id 1 :extra 2})"])
def test_schema_rejects_before_the_callback(src):
    calls = []
    t = Tool("get", lambda a: calls.append(a), input_schema=SCHEMA)
    r = run(src, {"get": t})
    assert r.error.kind == "invalid_tool_args"
    assert r.error.details["violations"]
    assert calls == []


@pytest.mark.parametrize("kwargs,exc", [
    ({"effect": "delete"}, ValueError),
    ({"input_schema": {"type": "nonsense"}}, ValueError),
    ({"input_schema": "not a dict"}, TypeError),
])
def test_tool_construction_checks(kwargs, exc):
    with pytest.raises(exc):
        Tool("x", echo, **kwargs)
    Tool("x", echo, effect="write", input_schema={"type": "object"})


def test_tools_given_as_a_list_of_tool_objects():
    r = ptclisp.run("(tool/a)", tools=[Tool("a", lambda a: 5)])
    assert r.value == 5
    with pytest.raises(TypeError):
        ptclisp.Session(tools=[echo])


# ------------------------------------------------------------------ §5.3 cache, budget, privacy; the ledger

def test_ledger_records_each_call():
    t = Tool("get", lambda a: {"id": a["id"]}, effect="read")
    r = run("(tool/get {:id 1}) (tool/get {:id 2})", {"get": t})
    recs = r.tool_calls
    assert [(c.name, c.args, c.result, c.error, c.cached, c.effect) for c in recs] == [
        ("get", {"id": 1}, {"id": 1}, None, False, "read"),
        ("get", {"id": 2}, {"id": 2}, None, False, "read")]
    assert all(c.duration_ms >= 0 and c.timestamp > 0 for c in recs)


def test_large_results_are_previewed_in_the_ledger_only():
    big = "x" * 40_000
    r = run("(count (tool/t))", {"t": lambda a: big})
    assert r.value == 40_000
    rec = r.tool_calls[0]
    assert rec.truncated and isinstance(rec.result, str) and len(rec.result) < 20_000


def test_cache_reuses_identical_calls_within_one_evaluation():
    calls = []
    t = Tool("get", lambda a: calls.append(a) or len(calls), cache=True)
    s = ptclisp.Session(tools={"get": t}, limits=Limits(max_tool_calls=2))
    r = s.eval("[(tool/get {:id 1 :x 2.0}) (tool/get {:x 2 :id 1}) (tool/get {:id 2})]")
    assert ptclisp.to_python(r.value) == [1, 1, 2]
    assert [c.cached for c in r.tool_calls] == [False, True, False]
    assert r.tool_calls[1].duration_ms == 0
    # a new evaluation starts with an empty cache
    r2 = s.eval("(tool/get {:id 1 :x 2})")
    assert r2.value == 3 and not r2.tool_calls[0].cached


def test_errors_are_not_cached_and_uncached_tools_repeat():
    calls = []

    def flaky(a):
        calls.append(a)
        if len(calls) == 1:
            raise RuntimeError("first time fails")
        return "ok"

    s = ptclisp.Session(tools={"f": Tool("f", flaky, cache=True), "plain": Tool("plain", lambda a: calls.append(a))})
    assert s.eval("(tool/f)").error.kind == "tool_error"
    assert s.eval("[(tool/f) (tool/f)]").ok
    s.eval("(tool/plain) (tool/plain)")
    assert len(calls) == 4


def test_max_tool_calls_budget():
    r = run("(tool/t) (tool/t) (tool/t)", limits=Limits(max_tool_calls=2))
    assert r.error.kind == "tool_call_limit_exceeded"
    assert len(r.tool_calls) == 2
    assert run("(tool/t) (tool/t)", limits=Limits(max_tool_calls=2)).ok


def test_private_tools_cannot_be_named_by_user_code():
    secret = Tool("secret", lambda a: 1, private=True)
    r = ptclisp.run("(tool/secret)", tools={"secret": secret, "pub": echo})
    assert r.error.kind == "private_tool_unauthorized"
    r = ptclisp.run("(tool/nope)", tools={"secret": secret, "pub": echo})
    assert "secret" not in r.error.message and "pub" in r.error.message


def test_private_tools_are_reachable_through_preludes_and_redacted():
    secret = Tool("secret", lambda a: {"token": "abc"}, private=True)
    prelude = "(ns vault) (defn peek-token [] (:token (tool/secret {:key \"k\"})))"
    r = ptclisp.run("(vault/peek-token)", tools={"secret": secret}, preludes=[prelude])
    assert r.value == "abc"
    rec = r.tool_calls[0]
    assert rec.args == {"redacted": True} and rec.result is None


def test_private_tools_are_never_cached():
    calls = []
    secret = Tool("secret", lambda a: calls.append(a) or len(calls), private=True, cache=True)
    prelude = "(ns v) (defn twice [] [(tool/secret {}) (tool/secret {})])"
    r = ptclisp.run("(v/twice)", tools={"secret": secret}, preludes=[prelude])
    assert ptclisp.to_python(r.value) == [1, 2]


def test_parallel_workers_read_the_cache_filled_before_the_operation():
    calls = []
    t = Tool("get", lambda a: calls.append(a) or "v", cache=True)
    r = ptclisp.run("(tool/get {:id 1}) (pmap (fn [_] (tool/get {:id 1})) [1 2 3])", tools={"get": t})
    assert r.status == "ok", r.error
    assert len(calls) == 1 and [c.cached for c in r.tool_calls] == [False, True, True, True]


def test_tool_signature_checks_named_arguments():
    t = Tool("find", lambda a: a, signature="(query :string, limit :int?) -> :any")
    assert py(run('(tool/find :query "x")', {"find": t})) == {"query": "x"}
    assert py(run('(tool/find {:query "x" :limit 3})', {"find": t})) == {"query": "x", "limit": 3}
    for bad in ("(tool/find {})", "(tool/find :query 1)", '(tool/find :query "x" :limit "3")'):
        r = run(bad, {"find": t})
        assert r.error.kind == "invalid_tool_args" and r.tool_calls == [], bad
    with pytest.raises(ValueError):
        Tool("bad", echo, signature="(query :text) -> :any")


def test_private_tool_signature_errors_have_their_own_reason():
    secret = Tool("secret", lambda a: 1, private=True, signature="(key :string) -> :any")
    r = ptclisp.run("(v/go)", tools={"secret": secret}, preludes=["(ns v) (defn go [] (tool/secret {:key 1}))"])
    assert r.error.kind == "private_tool_args_error"
