"""Errors say where they happened: Java member rejections, timeouts, failing prelude definitions."""
import pytest

import ptclisp
from ptclisp import Limits, Session
from ptclisp.pipeline import BACKENDS, evaluate


@pytest.fixture(params=BACKENDS)
def backend(request):
    return request.param


def run(src, backend, **limits):
    s = Session(limits=Limits(**limits)) if limits else Session()
    return evaluate(s.env, src, s.limits, backend=backend)


def where(err):
    s = err.span
    return (s.line, s.col, s.end_line, s.end_col) if s else None


# ------------------------------------------------------------------ Java members

@pytest.mark.parametrize("src,kind,span", [
    ('(def x 1)\n(let [s "abc"]\n  (.toUpperCase s))', "unsupported_method", (3, 4, 3, 16)),
    ('(def x 1)\n(map .toUpperCase ["a"])', "unsupported_method", (2, 6, 2, 18)),
    ("(def x 1)\n(let [s 2]\n  (Math/foo s))", "unsupported_java_member", (3, 4, 3, 12)),
    ("(def x 1)\n[Math/NOPE]", "unsupported_java_member", (2, 2, 2, 11)),
    ("(def x 1)\n(java.lang.Foo/bar 1)", "unsupported_java_class", (2, 2, 2, 19)),
    ("(def x 1)\n(Foo. 1)", "unsupported_java_class", (2, 2, 2, 6)),
])
def test_java_rejections_point_at_the_name(src, kind, span, backend):
    err = run(src, backend).error
    assert err.kind == kind and where(err) == span


# ------------------------------------------------------------------ timeouts

FIB = "(def x 1)\n(defn f [n] (if (< n 2) n (+ (f (- n 1)) (f (- n 2)))))\n  (f 40)\n"


def test_a_timeout_points_at_a_running_call_not_at_line_1(backend):
    err = run(FIB, backend, timeout_ms=100).error
    assert err.kind == "timeout"
    line, col = err.span.line, err.span.col
    assert line in (2, 3)
    assert FIB.splitlines()[line - 1][col - 1:].startswith("(")        # a form of f that was running (which one
    # depends on where the deadline fell: usually a call of f, on a loaded machine also its test or sum)


def test_a_timeout_without_a_known_form_has_no_position(backend):
    src = "(def x 1)\n(doseq [i (range 1000)] (doseq [j (range 1000)] (doseq [k (range 1000)] (* i j))))"
    err = run(src, backend, timeout_ms=100, memory_bytes=2**60).error  # the clock, not the allocation budget
    assert err.kind == "timeout"
    assert err.span is None or err.span.line == 2                          # never a made-up 1:1


# ------------------------------------------------------------------ prelude definitions that fail

BAD_PRELUDE = '''(ns shop)

(defn twice [x] (* 2 x))
(def ok 1)

(def boom "Fails when the namespace is attached."
  (twice (inc :k)))
'''


def test_a_failing_prelude_def_is_named_and_located(tmp_path):
    path = tmp_path / "shop.clj"
    path.write_text(BAD_PRELUDE, encoding="utf-8")
    r = ptclisp.run("1", preludes=[str(path)])
    err = r.error
    assert err.kind == "compile_error" and err.details["cause"] == "type_error"
    assert err.details["ref"] == "shop/boom"
    assert f"initialising shop/boom (defined at {path}:6:1) failed: type_error: inc:" in err.message
    assert (err.span.line, err.span.col) == (7, 10)                       # the (inc :k) that failed


def test_a_failure_inside_a_helper_points_into_the_helper():
    src = "(ns shop)\n(defn bad [x] (+ x :a))\n(def boom (bad 1))\n"
    with pytest.raises(ptclisp.prelude.PreludeError) as info:
        Session(preludes=[src])
    err = info.value
    assert "initialising shop/boom (defined at <prelude>:3:1)" in err.message
    assert (err.span.line, err.span.col) == (2, 15)


def test_return_or_fail_in_a_prelude_def_is_named():
    with pytest.raises(ptclisp.prelude.PreludeError) as info:
        Session(preludes=["(ns shop)\n(def a 1)\n(def b (fail :no))\n"])
    assert "return/fail while initialising shop/b (defined at <prelude>:3:1)" in info.value.message
    assert info.value.span.line == 3


def test_the_cli_shows_where_a_prelude_def_failed(tmp_path, capsys):
    from ptclisp.commands.main import main
    (tmp_path / "shop.clj").write_text(BAD_PRELUDE, encoding="utf-8")
    assert main(["eval", "1", "--prelude", str(tmp_path / "shop.clj")]) == 2
    err = capsys.readouterr().err
    assert "shop/boom (defined at" in err and "shop.clj:6:1" in err and "line 7, column 10" in err
