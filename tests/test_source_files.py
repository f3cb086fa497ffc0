"""Source files as users have them: byte-order marks, the shipped examples and preludes."""
import pathlib

import pytest

import ptclisp
from ptclisp import Session
from ptclisp.cli import main
from ptclisp.reader import read
from ptclisp.repl.core import Repl, ReplConfig
from ptclisp.repl.formatter import format_source

ROOT = pathlib.Path(__file__).resolve().parent.parent
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
