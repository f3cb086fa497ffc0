"""The REPL: its core (plain strings in, lines out), piped stdin, and a real terminal session.

The terminal test runs `ptclisp repl` in a pseudo-terminal with pexpect and
renders what it writes with pyte (a VT100 emulator that also answers the
cursor-position requests prompt-toolkit sends), then reads the screen the way
a person would.
"""
import os
import subprocess
import sys
import time

import pexpect
import pyte
import pytest

from ptclisp.registry.builtins import BUILTINS
from ptclisp.repl.completion import Names, PtcCompleter, enclosing_head
from ptclisp.repl.headless import Repl, ReplConfig, caret_lines, is_complete, is_meta
from ptclisp.repl.highlight import PtcLispLexer, classify_symbol

# ---------------------------------------------------------------- core

COMPLETE = [
    ("(+ 1 2)", True),
    ("(defn f [x]", False),
    ("(defn f [x]\n  (inc x))", True),
    ('(str "(")', True),               # a bracket inside a string does not count
    ('(str "abc', False),              # an unclosed string waits for more
    ("(f \\( 1)", True),               # nor does a character literal
    ("(f 1) ; (", True),               # nor a comment
    ("(f 1))", True),                  # an extra closer cannot be fixed by typing more: submit, show the error
    ("(f 1]", True),
    ("", True),
    (":help", True),
    (":load (unbalanced", True),
]


@pytest.mark.parametrize("text,complete", COMPLETE)
def test_is_complete(text, complete):
    assert is_complete(text) is complete


def test_meta_commands_are_only_the_known_words():
    assert is_meta(":help") and is_meta("  :load x.clj") and is_meta(":q")
    assert not is_meta(":helpful") and not is_meta(":a") and not is_meta("(:a m)")


def show(repl, text):
    return [t for _, t in repl.handle(text)]


@pytest.fixture
def repl():
    return Repl(ReplConfig(data={"xs": [1, 2, 3]}))


def test_values_prints_and_history(repl):
    assert show(repl, "(def answer 42)") == ["#'answer"]
    assert show(repl, "answer") == ["42"]
    assert show(repl, "(+ *1 1)") == ["43"]
    assert show(repl, '(println "hi") (reduce + data/xs)') == ["hi", "nil", "6"]
    assert show(repl, "(return [1 2])") == ["[1 2]"]
    assert show(repl, "(fail {:why :x})") == ["Failed: {:why :x}"]
    assert show(repl, ":a") == [":a"]          # an unknown :word is just a keyword


def test_a_failed_form_keeps_the_state(repl):
    show(repl, "(def x 1)")
    show(repl, "(+ x 1)")
    out = show(repl, "(do (def x 100) (/ 1 0))")
    assert out[0] == "Error (arithmetic_error): /: division by zero"
    assert show(repl, "[x *1]") == ["[1 2]"]


def test_each_form_of_an_input_is_its_own_evaluation(repl):
    out = show(repl, "(def a 1) (+ a :b) (def c 3)")
    assert out[0] == "#'a" and out[1].startswith("Error (type_error)") and out[-1] == "#'c"
    assert show(repl, "[a c]") == ["[1 3]"]


def test_error_shows_source_line_and_caret(repl):
    lines = repl.handle("(let [a 1]\n  (+ a :b))")
    assert lines[0] == ("error", "Error (type_error): +: expected a number, got keyword")
    (_, src), (_, caret) = lines[1], lines[2]
    assert src == "   2 |   (+ a :b))"
    assert caret.index("^") == src.index("(+")


def test_parse_error_points_at_the_problem(repl):
    lines = repl.handle("(+ 1 2]")
    assert lines[0][1].startswith("Error (parse_error): mismatched ']'")
    assert lines[2][1].index("^") == lines[1][1].index("]")


def test_runtime_error_from_an_earlier_input_has_no_misleading_caret(repl):
    show(repl, "(defn bad [x]\n  (+ x :oops))")
    lines = repl.handle("          (str (bad 1))")
    assert lines[0][1].startswith("Error (type_error)")
    for _, text in lines[1:]:  # any caret shown must point inside this input's form
        assert "^" not in text or text.index("^") >= len("     | ") + 10


CARETS = [
    # (text, span line, col, end col, expected caret line)
    ("(foo 1)", 1, 2, 5, "     |  ^^^"),
    ("(foo 1)", 1, 2, None, "     |  ^"),
    ("\tx", 1, 2, None, "     |  ^"),
]


@pytest.mark.parametrize("text,line,col,end,expected", CARETS)
def test_caret_lines(text, line, col, end, expected):
    from ptclisp.errors import Span
    span = Span(line, col, line if end else None, end)
    assert caret_lines(text, span)[-1][1] == expected


def test_caret_is_skipped_when_the_position_is_outside_the_text():
    from ptclisp.errors import Span
    assert caret_lines("(a)", Span(5, 1)) == []
    assert caret_lines("(a)", Span(1, 40)) == []


def test_meta_commands(repl, tmp_path):
    assert show(repl, ":defs") == ["No definitions yet."]
    show(repl, '(defn twice "Doubles a number." [x] (* 2 x))')
    show(repl, "(def limit 10)")
    assert show(repl, ":defs") == ["limit  10", "twice  #fn[x]  ; Doubles a number."]
    help_text = "\n".join(show(repl, ":help"))
    for cmd in (":help", ":quit", ":defs", ":reset", ":load FILE", ":time"):
        assert cmd in help_text
    assert show(repl, ":time") == ["Timing on."]
    out = show(repl, "(twice 2)")
    assert out[0] == "4" and out[1].startswith("Elapsed: ")
    assert show(repl, ":time") == ["Timing off."]
    assert show(repl, ":time (+ 1 1)")[1].startswith("Elapsed: ")
    src = tmp_path / "lib.clj"
    src.write_text('(defn thrice [x] (* 3 x))\n(println "loaded")\n(thrice 2)\n', encoding="utf-8")
    assert show(repl, f":load {src}") == ["loaded", "6"]
    assert show(repl, "(thrice 3)") == ["9"]
    bad = tmp_path / "bad.clj"
    bad.write_text("(def ok 1)\n(+ 1 :x)\n", encoding="utf-8")
    assert show(repl, f":load {bad}")[0] == f"{bad}:2:1: Error (type_error): +: expected a number, got keyword"
    assert show(repl, ":load /no/such/file.clj") == ["cannot read /no/such/file.clj: No such file or directory"]
    assert show(repl, ":reset")[0].startswith("Session reset")
    assert show(repl, ":defs") == ["No definitions yet."]
    assert show(repl, "(reduce + data/xs)") == ["6"]       # the data survives a reset
    assert not repl.quit
    assert show(repl, ":quit") == [] and repl.quit


def test_preview_is_bounded():
    repl = Repl(ReplConfig(preview_chars=64))
    (out,) = show(repl, "(vec (range 10000))")
    assert out.startswith("[0 1 2") and "#<preview truncated" in out and len(out) < 200


# ---------------------------------------------------------------- names, highlighting

def completions(repl, text):
    from prompt_toolkit.document import Document
    return [c.text for c in PtcCompleter(Names(repl)).get_completions(Document(text), None)]


def test_completion_sources(repl, tmp_path):
    show(repl, "(defn my-helper [x] x)")
    assert "my-helper" in completions(repl, "(my-h")
    assert {"map", "mapv", "mapcat"} <= set(completions(repl, "(map"))
    assert "str/join" in completions(repl, "(str/jo")
    assert "data/xs" in completions(repl, "data/")
    assert completions(repl, ":de") == [":defs"]
    assert completions(repl, "(+ 1") == []          # numbers are not completed


def test_completion_of_prelude_exports_and_tools(tmp_path):
    prelude = tmp_path / "util.clj"
    prelude.write_text('(ns util)\n(defn twice "Double it." [x] (* 2 x))\n', encoding="utf-8")
    repl = Repl(ReplConfig(preludes=[str(prelude)], tools={"lookup": lambda args: args}))
    assert completions(repl, "(util/tw") == ["util/twice"]
    assert completions(repl, "(tool/lo") == ["tool/lookup"]
    assert Names(repl).describe("util/twice") == "(util/twice x) — Double it."


def test_signature_hint_follows_the_innermost_call():
    assert enclosing_head("(let [x (map inc ") == "map"
    assert enclosing_head("(let [x (map inc xs)] ") == "let"
    assert enclosing_head('(println "(str ') == "println"
    assert enclosing_head("[1 2") is None


SYMBOLS = [("defn", "Keyword"), ("map", "Name.Builtin"), ("str/join", "Name.Builtin"), ("nil", "Keyword.Constant"),
           ("tool/search", "Name.Namespace"), ("my-fn", "Name"), ("*1", "Name.Variable.Magic")]


@pytest.mark.parametrize("sym,token", SYMBOLS)
def test_symbol_classes(sym, token):
    assert str(classify_symbol(sym)) == "Token." + token


def test_lexer_never_reports_errors_on_valid_or_printed_text():
    text = ('(defn f "doc" [x & more] (re-find #"a\\d+" (str \\a ##Inf -1.5e3 \'sym :kw %1 data/x)))'
            " #fn[x y] #<builtin map> #java[java.time.LocalDate 2024-01-01] #{1} {:a [1]} #'f ; done")
    tokens = list(PtcLispLexer().get_tokens(text))
    assert [v for t, v in tokens if "Error" in str(t)] == []
    assert "".join(v for _, v in tokens) == text + "\n"


# ---------------------------------------------------------------- piped stdin

def run_piped(stdin: str, *args, cwd=None):
    return subprocess.run([sys.executable, "-m", "ptclisp.commands.main", "repl", *args], input=stdin, capture_output=True,
                          text=True, timeout=60, cwd=cwd)


def test_piped_input_prints_results():
    proc = run_piped('(def x 41)\n(defn f [n]\n  (inc n))\n(f x) (println "hi")\n:defs\n')
    assert proc.stdout == "#'x\n#'f\n42\nhi\nnil\nf  #fn[n]\nx  41\n"
    assert proc.stderr == "" and proc.returncode == 0


def test_piped_errors_go_to_stderr_with_their_input_line():
    proc = run_piped("(+ 1 2)\n\n(+ 1\n   :a)\n(inc 1)\n(oops\n")
    assert proc.stdout == "3\n2\n"
    assert proc.returncode == 2
    err = proc.stderr.splitlines()
    assert err[0] == "<stdin>:3:1: Error (type_error): +: expected a number, got keyword"
    assert err[3].startswith("<stdin>:6:1: Error (parse_error): unclosed list at line 6")
    assert "Traceback" not in proc.stderr


def test_piped_quit_stops_reading():
    proc = run_piped("1\n:quit\n2\n")
    assert proc.stdout == "1\n"


# ---------------------------------------------------------------- a real terminal

class Screen:
    """A pseudo-terminal running the REPL, rendered by a VT100 emulator."""

    def __init__(self, args, cwd, env, rows=60, cols=110):
        self.screen = pyte.Screen(cols, rows)
        self.stream = pyte.Stream(self.screen)
        self.child = pexpect.spawn(sys.executable, ["-m", "ptclisp.commands.main", "repl", *args], cwd=str(cwd), env=env,
                                   dimensions=(rows, cols), encoding="utf-8", codec_errors="replace")
        # answer the terminal queries (cursor position) as a real terminal would
        self.screen.write_process_input = self.child.send

    def pump(self, timeout=0.05):
        try:
            self.stream.feed(self.child.read_nonblocking(65536, timeout))
        except pexpect.TIMEOUT:
            pass

    def lines(self):
        return [line.rstrip() for line in self.screen.display]

    def text(self):
        return "\n".join(self.lines()).rstrip()

    def wait(self, predicate, what, timeout=30):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            self.pump()
            if predicate(self.lines()):
                return
        raise AssertionError(f"screen never showed {what}:\n{self.text()}")

    def wait_line(self, line, timeout=30):
        self.wait(lambda lines: line in lines, repr(line), timeout)

    def type(self, keys):
        self.child.send(keys)


@pytest.fixture
def term(tmp_path):
    (tmp_path / "util.clj").write_text('(ns util)\n(defn twice "Double it." [x] (* 2 x))\n', encoding="utf-8")
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PROMPT_TOOLKIT", "NO_COLOR", "PTCLISP"))}
    env.update(TERM="xterm-256color", HOME=str(tmp_path), PTCLISP_HISTORY=str(tmp_path / "history"))
    s = Screen(["--prelude", "util.clj"], tmp_path, env)
    yield s
    s.child.terminate(force=True)


def test_terminal_session(term, tmp_path):
    term.wait(lambda lines: any(line.startswith("ptc>") for line in lines), "the prompt")
    assert "PTC-Lisp" in term.text() and ":help" in term.text()

    # a multi-line form: Enter on an open bracket continues, auto-indented; the hint names the call
    term.type("(defn add [a b]\r")
    term.wait(lambda lines: any(line.startswith("...>") for line in lines), "a continuation prompt")
    term.type("(+ a b")
    plus = BUILTINS["+"].signatures[0]
    term.wait(lambda lines: any(plus in line for line in lines), "the signature of +")
    term.type("))\r")
    term.wait_line("#'add")
    lines = term.lines()
    assert "ptc> (defn add [a b]" in lines
    assert "...>   (+ a b))" in lines
    term.type("(add 1 2)\r")
    term.wait_line("3")

    # a failing form: the error, its source line and a caret under the offending column
    term.type("(let [a 1]\r(+ a :b))\r")
    term.wait_line("Error (type_error): +: expected a number, got keyword")
    shown = "   2 |   (+ a :b))"
    term.wait(lambda lines: shown in lines and "^" in lines[lines.index(shown) + 1], "the caret line")
    lines = term.lines()
    src = lines.index(shown)
    assert lines[src + 1].index("^") == lines[src].index("(+")

    # completion of a prelude export with Tab
    term.type("(util/tw\t")
    term.wait(lambda lines: any(line.startswith("ptc> (util/twice") for line in lines), "the completed name")
    term.type(" 21)\r")
    term.wait_line("42")

    # Ctrl-C throws the current input away and gives a fresh prompt
    term.type("(this is never evaluated")
    term.wait(lambda lines: any("(this is never evaluated" in line for line in lines), "the typed text")
    term.type("\x03")
    term.type("(* 6 7 10)\r")
    term.wait_line("420")
    assert "never" not in "\n".join(line for line in term.lines() if line.startswith("Error"))

    # :help
    term.type(":help\r")
    term.wait(lambda lines: any(line.startswith("  :defs") for line in lines), "the help text")
    assert "Commands:" in term.lines()

    # Ctrl-D on an empty prompt leaves, with status 0
    term.type("\x04")
    term.child.expect(pexpect.EOF, timeout=30)
    term.child.close()
    assert term.child.exitstatus == 0

    history = (tmp_path / "history").read_text(encoding="utf-8")
    assert "+(add 1 2)" in history and "+  (+ a b))" in history


def test_reset_that_cannot_rebuild_keeps_the_session(tmp_path):
    prelude = tmp_path / "util.clj"
    prelude.write_text('(ns util)\n(defn twice [x] (* 2 x))\n', encoding="utf-8")
    repl = Repl(ReplConfig(preludes=[str(prelude)]))
    show(repl, "(def kept 1)")
    prelude.unlink()
    assert show(repl, ":reset")[0].startswith("cannot reset, the session is unchanged")
    assert show(repl, "[kept (util/twice 2)]") == ["[1 4]"]
