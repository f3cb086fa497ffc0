"""`ptclisp fmt`: the canonical layout, comments kept, round-trip and idempotence."""
import pathlib
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ptclisp.commands.main import main
from ptclisp.reader.parser import read
from ptclisp.tooling.formatter import FormatError, format_source, indent_after
from ptclisp.tooling.tokens import lex

# (input, expected output)
LAYOUT = [
    # spacing inside a line
    ("(+   1    2)", "(+ 1 2)\n"),
    ("( foo [ 1 2 ] { :a 1 } )", "(foo [1 2] {:a 1})\n"),
    ("(f)(g)", "(f) (g)\n"),
    ("#'  foo", "#'foo\n"),
    # bodies of special forms indent two columns
    ("(defn f [x]\n(inc x))", "(defn f [x]\n  (inc x))\n"),
    ("(let [a 1\nb 2]\n(+ a b))", "(let [a 1\n      b 2]\n  (+ a b))\n"),
    ("(if (pos? x)\n:yes\n:no)", "(if (pos? x)\n  :yes\n  :no)\n"),
    ("(cond\n(< x 0) :neg\n:else :pos)", "(cond\n  (< x 0) :neg\n  :else :pos)\n"),
    # calls align with the first argument when it shares the head's line, else with the head
    ("(foo bar\nbaz)", "(foo bar\n     baz)\n"),
    ("(foo\nbar\nbaz)", "(foo\n bar\n baz)\n"),
    ("(-> xs\n(map inc)\n(filter odd?))", "(-> xs\n    (map inc)\n    (filter odd?))\n"),
    # collections align with their first item
    ("{:a 1\n:b 2}", "{:a 1\n :b 2}\n"),
    ("#{1\n2}", "#{1\n  2}\n"),
    ("[1\n   2]", "[1\n 2]\n"),
    # closing brackets join the line they close
    ("(foo 1\n)\n", "(foo 1)\n"),
    ("(defn f [x]\n  (inc x)\n  )\n", "(defn f [x]\n  (inc x))\n"),
    # comments are kept, own-line ones indented like a form there
    (";; header\n(defn f [x] ; trailing\n;; inside\n(inc x))",
     ";; header\n(defn f [x] ; trailing\n  ;; inside\n  (inc x))\n"),
    ("(foo 1 ; last\n)", "(foo 1 ; last\n     )\n"),
    ("(a)   ;   comment text is kept   \n", "(a) ;   comment text is kept\n"),
    # blank lines: at most one, none at the start, none right after an opener
    ("\n\n(a)\n\n\n\n(b)\n\n", "(a)\n\n(b)\n"),
    ("[\n\n1 2]", "[\n 1 2]\n"),
    # commas right after a form stay; others go
    ("{:a 1, :b 2 ,\n :c 3,}", "{:a 1, :b 2,\n :c 3}\n"),
    ("[, 1]", "[1]\n"),
    # strings (also multi-line ones) are never touched
    ('(str "a  b"\n"c\n   d" x)', '(str "a  b"\n     "c\n   d" x)\n'),
    ('(f "x"\n   y)', '(f "x"\n   y)\n'),
    # character literals and regexes are tokens like any other
    ("[\\( \\)   \\space]", "[\\( \\) \\space]\n"),
    ('(re-find #"a  b"   s)', '(re-find #"a  b" s)\n'),
    ("", ""),
    (";; only a comment", ";; only a comment\n"),
]


@pytest.mark.parametrize("src,expected", LAYOUT)
def test_layout(src, expected):
    assert format_source(src) == expected


@pytest.mark.parametrize("src", [src for src, _ in LAYOUT])
def test_idempotent_and_same_forms(src):
    once = format_source(src)
    assert format_source(once) == once
    assert repr(read(once)) == repr(read(src))


def test_comments_survive():
    src = ";; a\n(defn f ; b\n  [x] ; c\n  ;; d\n  x) ; e\n; f\n"
    out = format_source(src)
    comments = [t.text for t in lex(out) if t.type == "COMMENT"]
    assert comments == [";; a", "; b", "; c", ";; d", "; e", "; f"]


def test_unreadable_text_is_refused():
    with pytest.raises(FormatError) as info:
        format_source("(defn f [x]\n  (inc x)")
    assert info.value.error.kind == "parse_error"


DATA = pathlib.Path(__file__).resolve().parents[1] / "data"
EXAMPLES = pathlib.Path(__file__).resolve().parents[2] / "examples"


def sample_programs() -> list[str]:
    """The programs of tests/data/fmt_programs.clj (separated by lines holding only ";;;;")."""
    text = (DATA / "fmt_programs.clj").read_text(encoding="utf-8")
    return [p for p in text.split("\n;;;;\n")[1:] if p.strip()]


def test_the_sample_is_there():
    assert len(sample_programs()) > 50


@pytest.mark.parametrize("src", sample_programs() + [p.read_text(encoding="utf-8")
                                                     for p in sorted(EXAMPLES.rglob("*.clj"))])
def test_programs_round_trip(src):
    once = format_source(src)
    assert format_source(once) == once
    assert repr(read(once)) == repr(read(src))


@pytest.mark.parametrize("src,line,col", [
    ("(def ^:private hidden 1)", 1, 6),
    ("(a\n  b]", 2, 4),
    ('(str "unclosed', 1, 6),
    ("{:a}", 1, 1),
    ("(foo))", 1, 6),
    ("[:a/b]", 1, 2),
    ("(+ 1N 2)", 1, 4),
    ("^x", 1, 1),
    ("`(a ~b)", 1, 1),
])
def test_unreadable_programs_are_refused_with_their_position(src, line, col):
    with pytest.raises(FormatError) as info:
        format_source(src)
    err = info.value.error
    assert (err.kind, err.span.line, err.span.col) == ("parse_error", line, col)


PROGRAM = """(defn summarize [orders]
  (let [paid (filter #(= (:status %) :paid) orders)
        by-cat (group-by :category paid)]
    (->> by-cat
         (map (fn [[cat xs]] {:cat cat :n (count xs) :total (reduce + (map :amount xs))}))
         (sort-by :total >)
         (take 3))))
(println "top" (str/join ", " ["a" "b"]) \\a #"x+")
{:a [1 2 #{3}] :b 'sym}
"""


@settings(max_examples=60, deadline=None)
@given(st.randoms(use_true_random=False))
def test_any_whitespace_and_comments_round_trip(rnd: random.Random):
    """Whatever the spacing, line breaks and comments between tokens, the output reads the same and is stable."""
    separators = [" ", "  ", "\n", "\n\n", " ; note\n", ",", ", ", "\n   ;; c\n\t", "\n\n\n"]
    pieces = []
    for tok in lex(PROGRAM):
        if tok.type != "WS":
            pieces += [rnd.choice(separators), tok.text]
    src = "".join(pieces)
    out = format_source(src)
    assert repr(read(out)) == repr(read(PROGRAM))
    assert format_source(out) == out
    assert "\t" not in out and not any(line != line.rstrip() for line in out.splitlines())


INDENT_AFTER = [
    ("(defn f [x]", 2),
    ("(foo bar", 5),
    ("(foo", 1),
    ("{:a 1", 1),
    ("(let [a 1", 6),
    ('(str "abc', None),  # inside a string: no indent
    ("(a (b c", 6),
    ("(a (b c)", 3),
    ("", 0),
]


@pytest.mark.parametrize("text,indent", INDENT_AFTER)
def test_indent_after(text, indent):
    assert indent_after(text) == indent


def test_cli_fmt_rewrites_and_checks(tmp_path, capsys):
    f = tmp_path / "p.clj"
    f.write_text("(defn f [x]\n(inc x)   ; add one\n)\n", encoding="utf-8")
    assert main(["fmt", "--check", str(f)]) == 1
    assert "would reformat" in capsys.readouterr().err
    assert main(["fmt", str(f)]) == 0
    assert f.read_text(encoding="utf-8") == "(defn f [x]\n  (inc x) ; add one\n  )\n"
    assert main(["fmt", "--check", str(f)]) == 0


def test_cli_fmt_diff_leaves_file(tmp_path, capsys):
    f = tmp_path / "p.clj"
    f.write_text("(a   b)\n", encoding="utf-8")
    assert main(["fmt", "--diff", str(f)]) == 0
    out = capsys.readouterr().out
    assert "-(a   b)" in out and "+(a b)" in out
    assert f.read_text(encoding="utf-8") == "(a   b)\n"


def test_cli_fmt_parse_error(tmp_path, capsys):
    f = tmp_path / "bad.clj"
    f.write_text("(a\n  [b", encoding="utf-8")
    assert main(["fmt", str(f)]) == 2
    err = capsys.readouterr().err
    assert f"{f}:2:3" in err and "parse_error" in err
    assert f.read_text(encoding="utf-8") == "(a\n  [b"


def test_quote_and_deref_prefixes_stay_on_their_form():
    assert format_source("(let [a (atom ' (1 2))] @ a)\n#_ (x)\n") == "(let [a (atom '(1 2))] @a)\n#_ (x)\n"
