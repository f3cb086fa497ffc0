"""Output: `println`, `print`, `prn`, `printf`, which write to the running evaluation's printed output,
and `print-str` / `prn-str`, which return the text `print` / `prn` would write.

Printed output is a list of lines (`Meter.prints`): `println` and `prn` end a line, `print` and
`printf` leave it open for what is printed next (meter.py `print_text`). `print` writes strings as
they are, inside collections too; `prn` writes what `pr-str` gives. The evaluation is reached
through `meter.current()`.
Imports meter, registry, values, lib.arguments, lib.strings, lib.printf.
"""
from __future__ import annotations

from ..runtime.meter import current, str_cost
from ..values.preview import preview
from ..values.text import pr_str
from ..registry.builtins import builtin
from ..values import Map, Set, Vector
from .arguments import charge
from .printf import format_
from .strings import charge_render, readable


@builtin("println", "(println x ...)", groups=("core",), category="output", effect="print")
def println(*args):
    """Append one line to the evaluation's printed output: the arguments separated by single spaces. Strings are
    written as they are; other values as a bounded preview. Returns nil.

    (println "total:" 42) ;=> nil, prints "total: 42"
    """
    parts = [a if type(a) is str else preview(a) for a in args]
    current().print_line(" ".join(parts))
    return None


def plain_text(x) -> str:
    """What `print` writes for one value: a string as it is (inside collections too), nil as nil,
    anything else readably; collections are charged before they are rendered."""
    t = type(x)
    if t is str:
        return x
    if t is Vector or t is Map or t is Set:
        charge_render(x)
    return pr_str(x, plain=True)


def _joined(parts: list) -> str:
    text = " ".join(parts)
    if len(text) > 256:
        charge(str_cost(len(text)))
    return text


@builtin("print", "(print & xs)", groups=("core",), category="output", effect="print")
def print_(*args):
    """Writes the arguments separated by single spaces, strings as they are (also inside collections), without
    ending the line: the next print continues it. Returns nil.

    (print "a" [1 "b"]) ;=> nil, prints a [1 b]
    """
    current().print_text(_joined([plain_text(a) for a in args]))
    return None


@builtin("prn", "(prn & xs)", groups=("core",), category="output", effect="print")
def prn(*args):
    """Writes the arguments as pr-str gives them (strings quoted), separated by single spaces, and ends the
    line. Returns nil.

    (prn "a" 1) ;=> nil, prints "a" 1
    """
    current().print_line(_joined([readable(a) for a in args]))
    return None


@builtin("printf", "(printf fmt & args)", groups=("core",), category="output", effect="print")
def printf(fmt, *args):
    r"""Writes (format fmt args...) without ending the line (put %n or \n in fmt for one). Returns nil.

    (printf "%d items%n" 3) ;=> nil, prints 3 items
    """
    current().print_text(format_(fmt, *args))
    return None


@builtin("print-str", "(print-str & xs)", groups=("core",), category="strings")
def print_str(*args):
    """The text print would write: the arguments separated by single spaces, strings as they are.

    (print-str "a" [1 "b"] nil) ;=> "a [1 b] nil"
    """
    return _joined([plain_text(a) for a in args])


@builtin("prn-str", "(prn-str & xs)", groups=("core",), category="strings")
def prn_str(*args):
    r"""The text prn would write: pr-str of the arguments and a newline.

    (prn-str "a" 1) ;=> "\"a\" 1\n"
    """
    return _joined([readable(a) for a in args]) + "\n"
