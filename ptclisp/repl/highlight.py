"""Syntax highlighting: a pygments lexer for PTC-Lisp and the REPL's colour style.

`PtcLispLexer` follows the reader's token rules (grammar/ptclisp.lark) but
never fails: text being typed (an unclosed string, a lone `#`) still
colours sensibly. Symbols are classified by what they name: special forms,
builtins (plain or qualified, from the one registry), `tool/` and `data/`
names, `*1 *2 *3`, `%` placeholders. It also understands the extra
notation the printer uses in results (`#fn[x]`, `#<builtin map>`, `#java[...]`).

Colours are ANSI names, so they follow the terminal's own theme (light or dark).
"""
from __future__ import annotations

from pygments.lexer import RegexLexer, bygroups
from pygments.token import (
    Comment, Error, Keyword, Name, Number, Operator, Punctuation, String, Text, Whitespace,
)

from ..analyzer import SPECIALS
from ..registry.builtins import BUILTINS, QUALIFIED, QUALIFIERS

_SYM_START = r"[A-Za-z+\-*/<>=?!_%.&]"
_SYM_REST = r"[A-Za-z0-9+\-*/<>=?!_%.&']*"
SYMBOL = _SYM_START + _SYM_REST
_WORDS = {"nil", "true", "false"}
_SPECIAL_NAMES = frozenset(SPECIALS) - {"program"}


def classify_symbol(text: str):
    """The pygments token type for a symbol's text."""
    if text in _WORDS:
        return Keyword.Constant
    if text in ("*1", "*2", "*3"):
        return Name.Variable.Magic
    if text.startswith("%"):
        return Name.Variable
    ns, _, name = text.partition("/")
    if name and ns:
        if ns in ("tool", "data"):
            return Name.Namespace
        group = QUALIFIERS.get(ns)
        if group is not None and (group, name) in QUALIFIED:
            return Name.Builtin
        return Name
    if text in _SPECIAL_NAMES:
        return Keyword
    if text in BUILTINS:
        return Name.Builtin
    return Name


def _symbol_callback(lexer, match):
    yield match.start(), classify_symbol(match.group(0)), match.group(0)


class PtcLispLexer(RegexLexer):
    """Pygments lexer for PTC-Lisp source and printed PTC values."""

    name = "PTC-Lisp"
    aliases = ["ptclisp", "ptc-lisp"]
    filenames: list[str] = []
    mimetypes = ["text/x-ptclisp"]

    tokens = {
        "root": [
            (r";.*?$", Comment.Single),
            (r"[\s,]+", Whitespace),
            (r'#"', String.Regex, "regex"),
            (r'"', String.Double, "string"),
            (r"\\(newline|space|tab|return|backspace|formfeed|.)", String.Char),
            (r"##(-?Inf|NaN)", Number.Float),
            (r"-?[0-9]+(\.[0-9]+([eE][+-]?[0-9]+)?|[eE][+-]?[0-9]+)(?![0-9A-Za-z])", Number.Float),
            (r"-?[0-9]+(?![0-9A-Za-z])", Number.Integer),
            (r":[A-Za-z0-9+\-*<>=?!_]+", String.Symbol),
            (r"#fn\[[^\]\n]*\]|#<[^>\n]*>", Name.Function.Magic),
            (r"#java\[", Name.Function.Magic, "java"),
            (r"(\()(\s*)(defn-?|defonce|def|defmacro)(\s+)(" + SYMBOL + ")",
             bygroups(Punctuation, Whitespace, Keyword, Whitespace, Name.Function)),
            (r"(\()(\s*)(fn)(\s+)(" + SYMBOL + r")(?=\s*\[)",
             bygroups(Punctuation, Whitespace, Keyword, Whitespace, Name.Function)),
            (r"#'", Operator),
            (r"'" + _SYM_REST, String.Symbol),
            (r"#\{|#\(|[(){}\[\]]", Punctuation),
            (r"\*[123](?![A-Za-z0-9+\-*/<>=?!_%.&'])", Name.Variable.Magic),
            (SYMBOL, _symbol_callback),
            (r".", Error),
        ],
        "string": [
            (r'\\[\\"ntr]', String.Escape),
            (r'\\.', String.Double),
            (r'[^"\\]+', String.Double),
            (r'"', String.Double, "#pop"),
        ],
        "regex": [
            (r'\\.', String.Regex),
            (r'[^"\\]+', String.Regex),
            (r'"', String.Regex, "#pop"),
        ],
        "java": [
            (r"\]", Name.Function.Magic, "#pop"),
            (r"[^\]]+", Text),
        ],
    }


# prompt-toolkit style classes for pygments tokens (`class:pygments.keyword` ...) and REPL parts
STYLE_RULES = {
    "pygments.keyword": "ansimagenta bold",
    "pygments.keyword.constant": "ansimagenta",
    "pygments.name.builtin": "ansicyan",
    "pygments.name.function": "ansiblue bold",
    "pygments.name.function.magic": "ansibrightblack",
    "pygments.name.namespace": "ansiblue",
    "pygments.name.variable": "ansiyellow",
    "pygments.name.variable.magic": "ansiyellow",
    "pygments.literal.string": "ansigreen",
    "pygments.literal.string.symbol": "ansiyellow",
    "pygments.literal.string.escape": "ansibrightgreen",
    "pygments.literal.string.regex": "ansigreen",
    "pygments.literal.string.char": "ansigreen",
    "pygments.literal.number": "ansibrightblue",
    "pygments.comment": "ansibrightblack italic",
    "pygments.operator": "ansimagenta",
    "pygments.error": "ansired",
    "prompt": "ansigreen bold",
    "continuation": "ansibrightblack",
    "error": "ansired bold",
    "error-detail": "ansired",
    "caret": "ansired bold",
    "fail": "ansiyellow bold",
    "print": "",
    "info": "ansibrightblack",
    "timing": "ansibrightblack",
    "bottom-toolbar": "noreverse ansibrightblack",
    "bottom-toolbar.text": "noreverse",
    "matching-bracket.cursor": "bold underline",
    "matching-bracket.other": "bold underline",
}
