"""Helpers shared by the test files: `from helpers import ok, run`.

Plain functions, not fixtures (the shared fixtures are in conftest.py). This directory is
on sys.path because pytest imports tests/conftest.py with its directory prepended (the
default import mode; tests/agent/agent_helpers.py is found the same way). A test file that
knew one of these under another name imports it under that name (`import ... as run`).

Running PTC source and checking results:

    run(src, backend, limits, session)    Result of one back end; a fresh Session unless given
    run_value(src, backend, session)      its value, asserting status "ok"
    expect(src, expected, backend)        asserts the value equals what `expected` reads as
    ok(r, text)                           asserts r has status "ok" and that value
    same(value, text)                     whether `value` equals what `text` reads as
    py(r)                                 r's value as Python data, asserting status "ok"
    run_py(src, **kw)                     py(ptclisp.run(src, **kw))
    eval_ok(session, src)                 session.eval(src), asserting it succeeded ("ok" or "returned")
    eval_py(session, src)                 its value as Python data

Calling one builtin directly (tests/lib):

    call_builtin(name, args)              builtin `name` on args given as PTC text
    check_builtin(name, args, expected)   its result printed like `expected`, or "!!kind" for an error
"""
from __future__ import annotations

import pytest

import ptclisp
from ptclisp.errors import PtcError
from ptclisp.pipeline import evaluate
from ptclisp.registry.builtins import BUILTINS, QUALIFIED
from ptclisp.values.text import pr_str
from ptclisp.reader.parser import read_string


# ------------------------------------------------------------------ running source

def run(src: str, backend: str | None = None, limits: ptclisp.Limits | None = None,
        session: ptclisp.Session | None = None) -> ptclisp.Result:
    """`src` evaluated by `backend` (tiered closures + bytecode, or whole-program bytecode; the
    session's default when None) in `session`, or in a fresh Session with `limits`."""
    s = session or (ptclisp.Session(limits=limits) if limits else ptclisp.Session())
    return evaluate(s.env, src, s.limits, backend=backend)


def run_value(src: str, backend: str | None = None, session: ptclisp.Session | None = None):
    """The value of `run(src, backend, session=session)`, which must have status "ok"."""
    r = run(src, backend, session=session)
    assert r.status == "ok", r.error
    return r.value


def expect(src: str, expected: str, backend: str | None = None):
    ok(run(src, backend), expected)


def run_py(src: str, **kw):
    """`ptclisp.run(src, **kw)`'s value as Python data; the run must have status "ok"."""
    return py(ptclisp.run(src, **kw))


def eval_ok(session: ptclisp.Session, src: str) -> ptclisp.Result:
    r = session.eval(src)
    assert r.ok, r.error
    return r


def eval_py(session: ptclisp.Session, src: str):
    return ptclisp.to_python(eval_ok(session, src).value)


# ------------------------------------------------------------------ checking results

def same(value, text: str) -> bool:
    return ptclisp.equal(value, ptclisp.read_string(text))


def ok(r: ptclisp.Result, text: str):
    assert r.status == "ok", r.error
    assert ptclisp.equal(r.value, ptclisp.read_string(text)), ptclisp.pr_str(r.value)


def py(r: ptclisp.Result):
    assert r.status == "ok", r.error
    return ptclisp.to_python(r.value)


# ------------------------------------------------------------------ builtins called directly

def call_builtin(name: str, args):
    """Builtin `name` (or a qualified one such as "json/parse-string") called on `args`: text is
    read as PTC, anything else (a Python function standing for a PTC one) passed as it is."""
    spec = BUILTINS.get(name)
    if spec is None:
        group, _, short = name.partition("/")
        spec = QUALIFIED[(group, short)]
    return spec.fn(*[read_string(a) if type(a) is str else a for a in args])


def check_builtin(name: str, args, expected: str, *, identical_bools: bool = False):
    """`call_builtin(name, args)` prints like `expected` reads, or with `expected` "!!kind" raises
    an error of that kind; with `identical_bools`, a boolean result must also be that boolean."""
    if expected.startswith("!!"):
        with pytest.raises(PtcError) as ei:
            call_builtin(name, args)
        assert ei.value.kind == expected[2:], ei.value
    else:
        got = call_builtin(name, args)
        assert pr_str(got) == pr_str(read_string(expected)), (name, args, got)
        if identical_bools and type(got) is bool:
            assert got is read_string(expected)
