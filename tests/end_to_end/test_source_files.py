"""Source files as users have them: byte-order marks, the shipped examples and preludes."""
import pathlib

import pytest

import ptclisp
from ptclisp import Session
from ptclisp.commands.main import main
from ptclisp.reader.parser import read
from ptclisp.repl.headless import Repl, ReplConfig
from ptclisp.tooling.formatter import format_source

ROOT = pathlib.Path(__file__).resolve().parents[2]
BOM = "\ufeff"


# ------------------------------------------------------------------ a UTF-8 byte-order mark

@pytest.fixture
def bom_files(tmp_path, monkeypatch):
    """A prelude, a program using it and a failing program, each starting with a UTF-8 BOM."""
    (tmp_path / "lib.clj").write_bytes(b"\xef\xbb\xbf(ns bomlib)\n(defn twice [x] (* 2 x))\n")
    (tmp_path / "prog.clj").write_bytes(b"\xef\xbb\xbf(def x (bomlib/twice 21))\nx\n")
    (tmp_path / "err.clj").write_bytes(b"\xef\xbb\xbf(+ 1 :a)\n")
    monkeypatch.chdir(tmp_path)
    return tmp_path


def test_the_reader_skips_a_leading_bom_and_counts_columns_without_it():
    (form,) = read(BOM + "(+ 1 2)")
    assert (form.span.line, form.span.col, form.span.end_col) == (1, 1, 8)
    assert ptclisp.run(BOM + "(+ 1 2)").value == 3
    err = ptclisp.run(BOM + "(+ 1 :a)").error
    assert err.kind == "type_error" and (err.span.line, err.span.col) == (1, 1)


def test_a_bom_elsewhere_is_still_an_error():
    assert ptclisp.run("(+ 1 2)" + BOM).error.kind == "parse_error"


def test_run_and_prelude_files_with_a_bom(bom_files, capsys):
    assert main(["run", "prog.clj", "--prelude", "lib.clj"]) == 0
    assert capsys.readouterr().out == "42\n"
    assert main(["run", "err.clj"]) == 2
    err = capsys.readouterr().err.splitlines()
    assert err[0] == "err.clj:1:1: Error (type_error): +: expected a number, got keyword"
    assert err[1:] == ["   1 | (+ 1 :a)", "     | ^^^^^^^^"]         # the caret is under the form


def test_a_bom_prelude_keeps_its_definition_text(bom_files):
    s = Session(preludes=[str(bom_files / "lib.clj")])
    assert s.eval("(source bomlib/twice)").prints == ["(defn twice [x] (* 2 x))"]
    text = (bom_files / "lib.clj").read_text(encoding="utf-8")
    assert Session(preludes=[text]).eval("(bomlib/twice 2)").value == 4


def test_check_and_fmt_files_with_a_bom(bom_files, capsys):
    assert main(["check", "prog.clj", "--prelude", "lib.clj"]) == 0
    assert main(["fmt", "--check", "lib.clj", "prog.clj", "err.clj"]) == 0
    assert capsys.readouterr().out == ""
    (bom_files / "messy.clj").write_bytes(b"\xef\xbb\xbf(+ 1    2)\n")
    assert main(["fmt", "messy.clj"]) == 0
    assert (bom_files / "messy.clj").read_bytes() == b"\xef\xbb\xbf(+ 1 2)\n"   # layout changes, the BOM stays
    assert format_source(BOM + "(+ 1    2)\n") == BOM + "(+ 1 2)\n"


def test_repl_input_with_a_bom(bom_files):
    repl = Repl(ReplConfig(preludes=["lib.clj"]))
    assert repl.handle((bom_files / "prog.clj").read_text(encoding="utf-8")) == [("value", "#'x"), ("value", "42")]
    lines = repl.handle(BOM + "(+ 1 :a)")
    assert lines[-2:] == [("error-detail", "   1 | (+ 1 :a)"), ("caret", "     | ^^^^^^^^")]


# ------------------------------------------------------------------ ptclisp check: preludes

def check(argv, capsys):
    code = main(["check", *argv])
    return code, capsys.readouterr().out.splitlines()


def test_check_reads_an_ns_file_as_a_prelude(monkeypatch, capsys):
    monkeypatch.chdir(ROOT)
    assert check(["examples/order_helpers.clj"], capsys) == (0, [])
    # the program that uses it: with --prelude, or checked in the same run
    assert check(["examples/orders_with_prelude.clj", "--prelude", "examples/order_helpers.clj"], capsys) == (0, [])
    assert check(["examples/orders_with_prelude.clj", "examples/order_helpers.clj"], capsys) == (0, [])
    assert check(sorted(str(p.relative_to(ROOT)) for p in (ROOT / "examples").glob("*.clj")), capsys) == (0, [])


def test_check_a_bom_prelude_file(bom_files, capsys):
    assert check(["lib.clj", "prog.clj"], capsys) == (0, [])


BROKEN_LIB = """; helpers
(ns badlib "Broken on purpose.")

(defn ok [x] (inc x))

(defn uses-missing [x]
  (missing-fn x))

(defn- priv [x] (+ x 1))

(def c (priv 1))

(def also-bad (undefined-thing))
"""


def test_check_reports_every_broken_prelude_definition(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "badlib.clj").write_text(BROKEN_LIB, encoding="utf-8")
    (tmp_path / "uses.clj").write_text("(badlib/ok 1)\n(badlib/nope 2)\n(badlib/priv 1)\n", encoding="utf-8")
    code, out = check(["badlib.clj", "uses.clj"], capsys)
    assert code == 1
    assert out == [
        "badlib.clj:7:4: compile_error: badlib/uses-missing: unbound_var: Unable to resolve symbol: missing-fn "
        "in this context",
        "badlib.clj:13:16: compile_error: badlib/also-bad: unbound_var: Unable to resolve symbol: undefined-thing "
        "in this context",
        "uses.clj:2:2: invalid_form: badlib/nope is not a public export of namespace badlib.",
        "uses.clj:3:2: invalid_form: badlib/priv is not a public export of namespace badlib.",
    ]


@pytest.mark.parametrize("text,expected", [
    ("(ns p3)\n(defn f [x] x)\n(defn f [y] y)\n", "p.clj:3:1: duplicate_ref: p3/f is defined more than once"),
    ("(ns p3)\n(println 1)\n", "p.clj:2:1: compile_error: unsupported top-level prelude form"),
    ("(ns p3)\n(defn g [x] (inc x)\n", "p.clj:2:1: parse_error: unclosed list"),
    ('(ns p3)\n(defn f {:signature "(x :int) -> :int"} [x y] x)\n', "p.clj:2:21: invalid_signature: p3/f: "),
])
def test_check_reports_prelude_structure_problems(text, expected, tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "p.clj").write_text(text, encoding="utf-8")
    code, out = check(["p.clj"], capsys)
    assert code == 1 and len(out) == 1 and out[0].startswith(expected)


def test_check_compiles_preludes_but_runs_nothing(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "lib.clj").write_text('(ns lib)\n(def boom (/ 1 0))\n(defn f [x] x)\n', encoding="utf-8")
    (tmp_path / "prog.clj").write_text("(lib/f 1)\n", encoding="utf-8")
    assert check(["prog.clj", "--prelude", "lib.clj"], capsys) == (0, [])
    assert check(["lib.clj", "prog.clj"], capsys) == (0, [])
    # a prelude given twice (as --prelude and as a file) is checked once, not reported as a duplicate
    assert check(["lib.clj", "prog.clj", "--prelude", "lib.clj"], capsys) == (0, [])


def test_check_with_a_broken_prelude_option_is_a_usage_error(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "badlib.clj").write_text(BROKEN_LIB, encoding="utf-8")
    (tmp_path / "prog.clj").write_text("1\n", encoding="utf-8")
    assert main(["check", "prog.clj", "--prelude", "badlib.clj"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("ptclisp: --prelude: Error (compile_error): badlib.clj: badlib/uses-missing:")
    assert "line 7, column 4" in err


# ------------------------------------------------------------------ the shipped source is canonical

SHIPPED = sorted(p for pattern in ("examples/**/*.clj", "preludes/**/*.clj", "ptclisp/**/*.clj")
                 for p in ROOT.glob(pattern))


def test_the_shipped_clj_files_are_found():
    names = {p.relative_to(ROOT).as_posix() for p in SHIPPED}
    assert {"examples/order_helpers.clj", "examples/orders_report.clj", "examples/orders_with_prelude.clj",
            "examples/agent/orders_agent.clj", "preludes/agent.core.clj"} <= names


@pytest.mark.parametrize("path", SHIPPED, ids=lambda p: p.relative_to(ROOT).as_posix())
def test_every_shipped_clj_file_passes_fmt_check(path, capsys):
    assert main(["fmt", "--check", str(path)]) == 0, capsys.readouterr().err
