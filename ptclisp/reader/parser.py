"""Text -> forms with source spans.

Owns the lark LALR parser over `grammar/ptclisp.lark`, a fast path that
reads ordinary programs with regular expressions built from the same
grammar's terminals (one `findall` splitting the whole text, else a scanner
token by token; falling back to lark on anything else), the post-lex
rules (nil/true/false words, escape decoding, digit and depth limits) and the
classification of reader failures into `parse_error` with line, column and
a short hint (ptclisp.reader.diagnostics). `ReadError.incomplete` marks input that only needs more text
(unclosed bracket or string), which the REPL uses for multi-line entry.

    read(text)        -> list of forms (a whole program; a leading byte-order mark is skipped)
    read_string(text) -> one value, read as data (no evaluation)

Imports errors, read_errors, meter (the compile clock), forms, values; lark lazily; `read_string` compiles a
regex literal with the regex engine (imported when first needed).
"""
from __future__ import annotations

import json
import math
import os
import re
import threading
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # lark is imported lazily; its Token only annotates here
    from lark import Token

from ..errors import ReadError, Span
from .diagnostics import classify, scan
from ..runtime.meter import compile_tick
from .forms import (
    Form, List, Lit, MapForm, Quote, RegexLit, SetForm, ShortFn, Sym, VarQuote, VecForm, split_symbol,
)
from ..values import LIST, Keyword, Map, Set, SymbolRef, VarRef, Vector, hk

MAX_DEPTH = 64
MAX_INT_DIGITS = 100

_CHAR_NAMES = {
    "newline": "\n", "space": " ", "tab": "\t", "return": "\r",
    "backspace": "\b", "formfeed": "\f",
}
_SPECIAL_FLOATS = {"##Inf": math.inf, "##-Inf": -math.inf, "##NaN": math.nan}
_WORDS = {"nil": None, "true": True, "false": False}
_ESCAPES = {"\\": "\\", '"': '"', "n": "\n", "t": "\t", "r": "\r", "b": "\b", "f": "\f"}
_ESC_RE = re.compile(r"\\(u[0-9A-Fa-f]{4}|.)", re.S)
_OPENERS = {"LPAR": "list", "LSQB": "vector", "LBRACE": "map", "HASH_LBRACE": "set", "HASH_LPAR": "short function"}


def decode_string(body: str) -> str:
    """Decode the escapes of docs/spec/language.md §2.6; any other backslash pair stays verbatim."""
    if "\\" not in body:
        return body
    out = _ESC_RE.sub(_unescape, body)
    if "\\u" in body and any("\ud800" <= c <= "\udfff" for c in out):
        # a pair of \u escapes for one character beyond the BMP becomes that character; a lone
        # half has no text of its own and becomes U+FFFD
        out = out.encode("utf-16", "surrogatepass").decode("utf-16", "replace")
    return out


def _unescape(m) -> str:
    e = m.group(1)
    if len(e) == 5:   # \uXXXX: the UTF-16 code unit (a surrogate pair stays two units, as in Java)
        return chr(int(e[1:], 16))
    return _ESCAPES.get(e, "\\" + e)


def _span(tok: Token) -> Span:
    return Span(tok.line, tok.column, tok.end_line, tok.end_column)


def _span2(first: Token, last: Token) -> Span:
    return Span(first.line, first.column, last.end_line, last.end_column)


class _State(threading.local):
    depth = 0
    max_depth = MAX_DEPTH
    names: set | None = None


_state = _State()


def _note(text):
    names = _state.names
    if names is not None:
        names.add(text)


def atom_form(kind: str, text: str, span: Span) -> Form:
    """The form of one atom token (post-lex rules: words, escapes, digit limit)."""
    if kind == "SYMBOL":
        if text in _WORDS:
            return Lit(_WORDS[text], span)
        _note(text)
        ns, name = split_symbol(text)
        return Sym(ns, name, span)
    if kind == "INTEGER":
        digits = len(text) - (text[0] == "-")
        if digits > MAX_INT_DIGITS:
            raise ReadError(f"integer literal with {digits} digits at line {span.line}, column {span.col} "
                            f"(at most {MAX_INT_DIGITS})", span)
        return Lit(int(text), span)
    if kind == "STRING":
        return Lit(decode_string(text[1:-1]), span)
    if kind == "KEYWORD":
        _note(text)
        return Lit(Keyword(text[1:]), span)
    if kind == "FLOAT":
        return Lit(float(text), span)
    if kind == "CHAR":
        body = text[1:]
        return Lit(_CHAR_NAMES.get(body, body), span)
    if kind == "SPECIAL_FLOAT":
        return Lit(_SPECIAL_FLOATS[text], span)
    if kind == "SUFFIXED_NUMBER":
        raise ReadError(_suffix_message(text, span), span)
    raise ReadError(f"unexpected token {text!r}", span)  # pragma: no cover


def _suffix_message(text: str, span: Span) -> str:
    where = f"(line {span.line}, column {span.col})"
    if text.endswith("N"):
        return (f"{text}: BigInt literals (N) are not supported; integers have no size limit here, "
                f"write {text[:-1]} {where}")
    return (f"{text}: BigDecimal literals (M) are not supported; numbers with a point are doubles, "
            f"write {text[:-1]} {where}")


def _open(tok: Token):
    compile_tick()
    d = _state.depth + 1
    _state.depth = d
    if d > _state.max_depth:
        raise ReadError(f"nesting deeper than {_state.max_depth} levels at line {tok.line}, column {tok.column}",
                        _span(tok))
    return tok


def _close(tok: Token):
    _state.depth -= 1
    return tok


_PKG = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))  # the ptclisp package
# the grammar file: in an installed package (ptclisp/grammar/), then in the source tree (grammar/)
_GRAMMAR_FILES = (os.path.join(_PKG, "grammar", "ptclisp.lark"),
                  os.path.join(os.path.dirname(_PKG), "grammar", "ptclisp.lark"))


def _grammar_text() -> str:
    for path in _GRAMMAR_FILES:  # plain files first: importlib.resources costs milliseconds to import
        try:
            with open(path, encoding="utf-8") as fh:
                return fh.read()
        except FileNotFoundError:
            pass
    from importlib import resources  # a package that is not plain files (a zip)
    return resources.files("ptclisp.grammar").joinpath("ptclisp.lark").read_text(encoding="utf-8")


_lark_lock = threading.Lock()
_LARK = None


def _lark():
    """The lark LALR parser over grammar/ptclisp.lark (built on first use: importing lark and
    analysing the grammar costs tens of milliseconds, and the fast path rarely needs it)."""
    global _LARK
    if _LARK is None:
        with _lark_lock:
            if _LARK is None:
                _LARK = _build_lark()
    return _LARK


_DROPPED = object()   # what a `#_ form` reads as: left out of the enclosing sequence


def _kept(items: list) -> list:
    """`items` without the forms `#_` discarded."""
    return [x for x in items if x is not _DROPPED] if _DROPPED in items else items


def _wrapped(name: str, tok: Token, form: Form) -> Form:
    """`'form` as (quote form), `@form` as (deref form): the list spans the prefix and the form."""
    s = form.span
    span = Span(tok.line, tok.column, s.end_line, s.end_col) if s is not None else _span(tok)
    return List([Sym(None, name, _span(tok)), form], span)


def _build_lark():
    from lark import Lark, Transformer

    class _ToForms(Transformer):
        """Internal LALR transformer: builds forms directly (no parse tree)."""

        def start(self, children):
            return _kept(children)

        def discard(self, c):
            return _DROPPED

        def quoted(self, c):
            return _wrapped("quote", c[0], c[-1])

        def deref(self, c):
            return _wrapped("deref", c[0], c[-1])

        def list(self, c):
            return List(_kept(c[1:-1]), _span2(c[0], c[-1]))

        def vector(self, c):
            return VecForm(_kept(c[1:-1]), _span2(c[0], c[-1]))

        def map(self, c):
            items = _kept(c[1:-1])
            if len(items) % 2:
                raise ReadError(f"map literal at line {c[0].line}, column {c[0].column} has an odd number of forms "
                                f"({len(items)}); every key needs a value", _span(c[0]))
            return MapForm(items, _span2(c[0], c[-1]))

        def set(self, c):
            return SetForm(_kept(c[1:-1]), _span2(c[0], c[-1]))

        def short_fn(self, c):
            return ShortFn(_kept(c[1:-1]), _span2(c[0], c[-1]))

        def var_quote(self, c):
            sym = self._symbol(c[1])
            if not isinstance(sym, Sym):
                raise ReadError(f"#' must be followed by a symbol (line {c[0].line}, column {c[0].column})", _span(c[0]))
            return VarQuote(sym, _span2(c[0], c[1]))

        def sym_quote(self, c):
            tok = c[0]
            ns, name = split_symbol(tok.value[1:])
            self._note(tok.value[1:])
            return Quote(Sym(ns, name, _span(tok)), _span(tok))

        def regex(self, c):
            tok = c[0]
            return RegexLit(decode_string(tok.value[2:-1]), _span(tok))

        def atom(self, c):
            tok = c[0]
            return atom_form(tok.type, tok.value, _span(tok))

        def _symbol(self, tok: Token):
            return atom_form("SYMBOL", tok.value, _span(tok))

        @staticmethod
        def _note(text):
            _note(text)

    callbacks = {name: _open for name in _OPENERS}
    callbacks.update({name: _close for name in ("RPAR", "RSQB", "RBRACE")})
    return Lark(_grammar_text(), parser="lalr", lexer="basic", transformer=_ToForms(),
                lexer_callbacks=callbacks, propagate_positions=False, maybe_placeholders=False)


# ------------------------------------------------------------------ fast path
#
# The grammar is the single definition of the token syntax. For speed the
# common case does not go through lark's parser: the grammar's own terminal
# regexps are joined into one scanner (in lark's priority order) and brackets
# are matched with an explicit stack. Anything irregular (an unknown
# character, a bracket mismatch, an odd map, too deep) falls back to the
# lark parser, which produces the classified diagnostic. A property test
# checks that both paths read the same forms.

def _terminal_table() -> list:
    """[(name, priority, regexp, ignored)] of the grammar's terminals.

    Derived from the grammar by lark and cached per grammar text (like a .pyc),
    so starting a process does not need to import lark.
    """
    text = _grammar_text()
    from importlib.util import source_hash  # the key of hash-based .pyc files: no hashing library to load
    digest = source_hash(text.encode()).hex()
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    path = os.path.join(base, "ptclisp", f"terminals-{digest}.json")
    try:
        with open(path, encoding="utf-8") as fh:
            table = json.load(fh)
        if isinstance(table, list) and table:
            return table
    except (OSError, ValueError):
        pass
    parser = _lark()
    table = [(t.name, t.priority, t.pattern.to_regexp(), t.name in parser.ignore_tokens) for t in parser.terminals]
    try:
        os.makedirs(os.path.dirname(path), exist_ok=True)
        tmp = f"{path}.{os.getpid()}.tmp"
        with open(tmp, "w", encoding="utf-8") as fh:
            json.dump(table, fh)
        os.replace(tmp, path)
    except OSError:
        pass
    return table


def _letter_symbol(table):
    """SYMBOL's pattern restricted to a leading ASCII letter, when no other terminal can match
    text that begins with a letter (so trying it first cannot change any token); else None."""
    sym = next((t for t in table if t[0] == "SYMBOL"), None)
    if sym is None or not sym[2].startswith("[A-Za-z"):
        return None
    close = sym[2].index("]")
    lead = "[A-Za-z]" + sym[2][close + 1:]
    samples = ("a", "Z", "x1", "foo-bar", "nil", "e1", "E5")
    if any(re.match(o[2], text) for o in table if o is not sym for text in samples):
        return None
    if not all(re.fullmatch(sym[2], text) and re.fullmatch(lead, text) for text in samples):
        return None
    return lead


def _scanner():
    table = _terminal_table()
    ignored = [t for t in table if t[3]]
    terms = sorted((t for t in table if not t[3]), key=lambda t: -t[1])
    # The alternation is tried in order at every token, so the commonest tokens go first when
    # that cannot change what matches: a terminal that is one literal character no other
    # terminal can begin with (the brackets) wins wherever it matches, whatever its place.
    def sole_char(t):
        pat = t[2]
        char = pat[1:] if len(pat) == 2 and pat[0] == "\\" else None
        if char is None or len(char) != 1:
            return False
        return not any(re.match(o[2], char + tail) for o in table if o is not t for tail in ("", "a", "1", " "))
    first = [t for t in terms if sole_char(t)]
    rest = [t for t in terms if t not in first]
    lead = _letter_symbol(table)
    if lead is not None:  # symbols that begin with a letter: the commonest token after brackets
        first.append(("SYMBOL_LEAD", 0, lead, False))
    terms = first + rest
    skip = "(?>(?:" + "|".join(t[2] for t in ignored) + ")*)"
    parts = [f"(?P<{t[0]}>{t[2]})" for t in terms] + [r"(?P<EOF>\Z)"]
    # leading ignored text (whitespace, commas, comments) is consumed with each token
    return re.compile(skip + "(?:" + "|".join(parts) + ")"), re.compile(skip + r"\Z")


_SCAN, _TRAILER = _scanner()
_CLOSE_OF = {"LPAR": "RPAR", "LSQB": "RSQB", "LBRACE": "RBRACE", "HASH_LBRACE": "RBRACE", "HASH_LPAR": "RPAR"}
_SEQ_CLASS = {"LPAR": List, "LSQB": VecForm, "LBRACE": MapForm, "HASH_LBRACE": SetForm, "HASH_LPAR": ShortFn}


class _Fallback(Exception):
    pass


def _fast_read(text: str, max_depth: int, names: set | None) -> list[Form]:
    """Read `text` without lark: `_token_read` (up to `_TOKEN_READ_MAX` characters), else the one-regex
    scanner (`_scan_read`). Raises
    `_Fallback` on anything neither handles (every error, too deep nesting, a token out of place):
    `read` then reads the text with the lark parser, which reports the error or reads the rare construct."""
    if len(text) <= _TOKEN_READ_MAX:
        try:
            return _token_read(text, max_depth, names)
        except _Fallback:
            if names is not None:
                names.clear()
    return _scan_read(text, max_depth, names)


# `_token_read` splits the whole text before it looks at any token, so text it hands over has been
# split for nothing; above this size (far above a model's program) the scanner, which stops at the
# first irregular token, reads alone
_TOKEN_READ_MAX = 64 * 1024


def _uncapture(pattern: str) -> str:
    """`pattern` with its capturing groups made non-capturing (escapes and classes kept)."""
    out, i, n = [], 0, len(pattern)
    while i < n:
        c = pattern[i]
        if c == "\\":
            out.append(pattern[i:i + 2])
            i += 2
            continue
        if c == "[":   # a class: copied whole (a ']' first in it, or escaped, is a member)
            j = i + 1 + (pattern[i + 1:i + 2] == "^")
            j += pattern[j:j + 1] == "]"
            while pattern[j] != "]":
                j += 2 if pattern[j] == "\\" else 1
            out.append(pattern[i:j + 1])
            i = j + 1
            continue
        out.append("(?:" if c == "(" and pattern[i + 1:i + 2] != "?" else c)
        i += 1
    return "".join(out)


# Characters of atoms: every terminal that begins with one of them (symbols, keywords, numbers,
# quoted names) consists of them only, so a maximal run of them is one token or an error.
_ATOM_CHARS = r"[A-Za-z0-9+\-*\/<>=?!_%.&':]"


def _token_pattern():
    """One regex that `findall` splits a whole program with: (skipped text, token) pairs.

    A token is a bracket, `#{`, `#(`, a string or regex literal (the grammar's own terminals),
    a maximal run of atom characters with a `#` after it taken along (so that `_token_read` refuses
    it: a keyword's lookahead looks at `#`), any other single character (which `_token_read`
    refuses unless it is an atom alone), or the end of the text (an empty
    token, last): the pattern matches at every position, so the pairs tile the text exactly
    (`findall` never skips a character, and never retries inside trailing whitespace)."""
    table = {t[0]: t for t in _terminal_table()}
    ignored = {t[0]: t[2] for t in table.values() if t[3]}
    if set(ignored) == {"WS", "COMMENT"}:
        # the scanner's skipped text, unrolled (whitespace, then comments each with the whitespace
        # after it): no alternation per token, and no backtracking into it, as every position
        # matches a token after it
        ws, comment = ignored["WS"], ignored["COMMENT"]
        run = re.fullmatch(r"(\[[^\]\\]*\])\+", ws)   # `[chars]+`: optional, it is `[chars]*`
        opt_ws = f"{run.group(1)}*" if run else f"(?:{ws})?"   # (the same matches, tried faster)
        skip = f"{opt_ws}(?:{comment}{opt_ws})*"
    else:  # pragma: no cover - other ignored terminals: the scanner's own form
        skip = "(?>(?:" + "|".join(ignored.values()) + ")*)"
    token = "|".join([r"[()\[\]{}]|\#[({]", f"(?>{_ATOM_CHARS}+)\\#?",
                      _uncapture(table["STRING"][2]), _uncapture(table["REGEX"][2]), "(?s:.)", r"\Z"])
    pattern = re.compile(f"({skip})({token})")
    if pattern.groups != 2:  # pragma: no cover - a grammar change the splitter does not know
        return None
    return pattern


_TOKENS = _token_pattern()
_OPEN_CLASS = {"(": List, "[": VecForm, "{": MapForm, "#{": SetForm, "#(": ShortFn}
_CLOSER = {"(": ")", "[": "]", "{": "}", "#{": "}", "#(": ")"}
# token text -> what `_token_read` does with it: the brackets, then atoms as `_atom_kind` finds them
_TOKEN_KIND: dict = {**{o: "OPEN" for o in _OPEN_CLASS}, ")": "CLOSE", "]": "CLOSE", "}": "CLOSE"}
_ATOM_KIND = _TOKEN_KIND   # (the atoms' part: at most _ATOM_KINDS_MAX of them are remembered)
_ATOM_KINDS_MAX = 4096 + len(_TOKEN_KIND)
_new = object.__new__


def _atom_kind(text: str):
    """The terminal `_SCAN` reads `text` as when it is one whole token ("NAME" for a symbol without
    a namespace that is not nil/true/false), else None (remembered for all but plain integers:
    names repeat across programs, numbers rarely do)."""
    if text.isdigit() and text.isascii():
        return "INTEGER"
    m = _SCAN.match(text)
    kind = m.lastgroup if m is not None and m.end() == len(text) else None
    if (kind == "SYMBOL_LEAD" or kind == "SYMBOL") and text not in _WORDS and "/" not in text:
        kind = "NAME"   # a symbol read as Sym(None, text)
    if len(_ATOM_KIND) < _ATOM_KINDS_MAX:
        _ATOM_KIND[text] = kind
    return kind


def _token_read(text: str, max_depth: int, names: set | None) -> list[Form]:
    """Read `text` from one `findall` over `_TOKENS` (the common programs: brackets, atoms, strings
    and regexes); the same forms and spans as `_scan_read`. Raises `_Fallback` on anything else.

    Plain symbols, integers and brackets, nearly every token, are read here inline, their forms and
    spans made without a Python `__init__` (the same slots the constructors fill)."""
    if _TOKENS is None:  # pragma: no cover
        raise _Fallback
    pairs = _TOKENS.findall(text)
    compile_tick()
    while pairs and not pairs[-1][1]:   # the end of the text (and trailing skipped text)
        pairs.pop()
    note = names.add if names is not None else set().add
    line, col = 1, 1   # where the next character is
    top: list = []
    out = top
    stack: list = []   # (opener, items_of_parent, open_line, open_col)
    kinds, new = _TOKEN_KIND, _new
    for first in range(0, len(pairs), 2048):   # a look at the compile clock every 2048 tokens
        if first:
            compile_tick()
        for skipped, tok in pairs[first:first + 2048] if len(pairs) > 2048 else pairs:
            if skipped:
                if "\n" in skipped:
                    line += skipped.count("\n")
                    col = len(skipped) - skipped.rfind("\n")
                else:
                    col += len(skipped)
            n = len(tok)
            kind = kinds.get(tok)
            if kind == "NAME":   # the commonest token: a plain symbol
                note(tok)
                span = new(Span)
                span.line = line; span.col = col; span.end_line = line; span.end_col = col + n
                form = new(Sym)
                form.ns = None; form.name = tok; form.span = span
            elif kind == "OPEN":
                if len(stack) >= max_depth:
                    raise _Fallback
                stack.append((tok, out, line, col))
                out = []
                col += n
                continue
            elif kind == "CLOSE":
                if not stack:
                    raise _Fallback
                opener, parent, ol, oc = stack.pop()
                if _CLOSER[opener] != tok or (opener == "{" and len(out) % 2):
                    raise _Fallback
                span = new(Span)
                span.line = ol; span.col = oc; span.end_line = line; span.end_col = col + 1
                form = new(_OPEN_CLASS[opener])
                form.items = out; form.span = span
                out = parent
            elif kind is None and tok.isdigit() and n <= MAX_INT_DIGITS and tok.isascii():
                span = new(Span)
                span.line = line; span.col = col; span.end_line = line; span.end_col = col + n
                form = new(Lit)
                form.value = int(tok); form.span = span
            elif tok[0] == '"' or tok[0] == "#":
                if n == 1:   # an unclosed string, or `#` of a construct left to the scanner
                    raise _Fallback
                form, nl, last = _literal(tok, line, col)
                if nl:   # the token ends on a later line
                    out.append(form)
                    line += nl
                    col = n - last
                    continue
            else:
                form = _atom(tok, kind or _atom_kind(tok), Span(line, col, line, col + n), names)
            out.append(form)
            col += n
    if stack:
        raise _Fallback
    return top


def _literal(tok: str, line: int, col: int):
    """(form, newlines in it, offset of its last newline) of a string or regex literal token."""
    n = len(tok)
    nl = tok.count("\n")
    last = tok.rfind("\n") if nl else -1
    span = Span(line, col, line + nl, n - last) if nl else Span(line, col, line, col + n)
    form = Lit(decode_string(tok[1:-1]), span) if tok[0] == '"' else RegexLit(decode_string(tok[2:-1]), span)
    return form, nl, last


def _atom(tok: str, kind, span: Span, names: set | None) -> Form:
    """The form of atom token `tok` of terminal `kind` (`_token_read`); `_Fallback` for the rest."""
    if kind == "NAME" or kind == "SYMBOL_LEAD" or kind == "SYMBOL":
        if tok in _WORDS:
            return Lit(_WORDS[tok], span)
        if names is not None:
            names.add(tok)
        return Sym(None, tok, span) if "/" not in tok else Sym(*split_symbol(tok), span)
    if kind == "INTEGER" and len(tok) <= MAX_INT_DIGITS:
        return Lit(int(tok), span)
    if kind == "KEYWORD":
        if names is not None:
            names.add(tok)
        return Lit(Keyword(tok[1:]), span)
    if kind == "FLOAT":
        return Lit(float(tok), span)
    if kind == "QUOTE_NAME":
        if names is not None:
            names.add(tok[1:])
        return Quote(Sym(*split_symbol(tok[1:]), span), span)
    raise _Fallback


def _scan_read(text: str, max_depth: int, names: set | None) -> list[Form]:
    """Read `text` with the one-regex scanner (`_SCAN`), token by token. Raises `_Fallback` on
    anything it does not handle itself (see `_fast_read`)."""
    pos, line, line_start = 0, 1, 0
    next_nl = _newline_after(text, 0)   # the first newline at or after pos (len(text): none left)
    top: list = []
    out = top
    stack: list = []   # (kind, items_of_parent, open_line, open_col)
    var_quote = None   # (line, col) of a `#'` waiting for its symbol
    budget = 2048           # tokens until the next look at the compile clock
    match = _SCAN.match
    while True:
        budget -= 1
        if not budget:
            budget = 2048
            compile_tick()
        m = match(text, pos)   # anchored at pos: text the scanner does not know ends the fast path
        if m is None:
            raise _Fallback
        kind = m.lastgroup
        if kind == "EOF":
            pos = m.end()
            break
        start, end = m.span(kind)
        if start > next_nl:   # newlines (in whitespace or comments) before the token?
            nl = text.count("\n", pos, start)
            if nl:
                line += nl
                line_start = text.rfind("\n", pos, start) + 1
            next_nl = text.find("\n", start)
            if next_nl < 0:
                next_nl = len(text)
        pos = start
        col = pos - line_start + 1
        if kind in _CLOSE_OF:
            if len(stack) >= max_depth or var_quote is not None:   # `#'[`: not a symbol, lark reports it
                raise _Fallback
            stack.append((kind, out, line, col))
            out = []
            pos = end
            continue
        if kind == "RPAR" or kind == "RSQB" or kind == "RBRACE":
            if not stack or _CLOSE_OF[stack[-1][0]] != kind:
                raise _Fallback
            okind, parent, ol, oc = stack.pop()
            if okind == "LBRACE" and len(out) % 2:
                raise _Fallback
            form = _SEQ_CLASS[okind](out, Span(ol, oc, line, col + 1))
            out = parent
        elif kind == "HASH_QUOTE":
            if var_quote is not None:
                raise _Fallback
            var_quote = (line, col)
            pos = end
            continue
        else:
            value = text[start:end]
            span = Span(line, col, line, col + end - start)
            if kind == "SYMBOL_LEAD" or kind == "SYMBOL":  # the commonest token: atom_form's rule, inline
                if value in _WORDS:
                    form = Lit(_WORDS[value], span)
                else:
                    if names is not None:
                        names.add(value)
                    form = Sym(None, value, span) if "/" not in value else Sym(*split_symbol(value), span)
            elif kind == "INTEGER" and end - start <= MAX_INT_DIGITS:
                form = Lit(int(value), span)
            else:
                if (kind == "STRING" or kind == "REGEX") and end > next_nl:
                    line, line_start, next_nl, span = _past_newlines(text, value, pos, span)
                form = _token_form(kind, value, span)
        if var_quote is not None:
            form, var_quote = _var_quote(var_quote, form), None
        out.append(form)
        pos = end
    if stack or var_quote is not None:
        raise _Fallback
    return top


def _newline_after(text: str, at: int) -> int:
    """Where the first newline at or after `at` is in `text`; `len(text)` when there is none."""
    nl = text.find("\n", at)
    return nl if nl >= 0 else len(text)


def _past_newlines(text: str, value: str, start: int, span: Span) -> tuple:
    """A string or regex token `value` read at `start` that holds newlines: the scanner's
    (line, line_start, next_nl) after it, and the token's span, which ends on its last line."""
    line = span.line + value.count("\n")
    line_start = start + value.rfind("\n") + 1
    end = start + len(value)
    return line, line_start, _newline_after(text, end), Span(span.line, span.col, line, end - line_start + 1)


def _token_form(kind: str, value: str, span: Span) -> Form:
    """The form of an atom token other than a symbol or a short integer (`_fast_read`)."""
    if kind == "STRING":
        return Lit(decode_string(value[1:-1]), span)
    if kind == "REGEX":
        return RegexLit(decode_string(value[2:-1]), span)
    if kind == "QUOTE_NAME":
        ns, name = split_symbol(value[1:])
        _note(value[1:])
        return Quote(Sym(ns, name, span), span)
    return atom_form(kind, value, span)


def _var_quote(at: tuple, form: Form) -> Form:
    """`#'name`: the symbol read after a `#'` at `at` (line, col); anything else is for lark to report."""
    if type(form) is not Sym:
        raise _Fallback
    return VarQuote(form, Span(at[0], at[1], form.span.end_line, form.span.end_col))


BOM = "\ufeff"


def strip_bom(text: str) -> str:
    """`text` without a leading UTF-8 byte-order mark (editors on some systems write one at the
    start of a file; it is not part of the program, and columns are counted without it)."""
    return text[1:] if text.startswith(BOM) else text


def read(text: str, *, max_depth: int = MAX_DEPTH, names: set | None = None) -> list[Form]:
    """Read a whole program. `names` (optional) collects distinct symbol/keyword texts.

    A byte-order mark at the very start is skipped (`strip_bom`); positions are those of the
    text after it.
    """
    text = strip_bom(text)
    _state.names = names
    try:
        return _fast_read(text, max_depth, names)
    except _Fallback:
        if names is not None:
            names.clear()
    except ReadError:
        if names is not None:
            names.clear()
    finally:
        _state.names = None
    return _lark_read(text, max_depth=max_depth, names=names)


def _lark_read(text: str, *, max_depth: int = MAX_DEPTH, names: set | None = None) -> list[Form]:
    """Read with the lark LALR parser (the reference path; used for diagnostics)."""
    _state.depth = 0
    _state.max_depth = max_depth
    _state.names = names
    from lark.exceptions import UnexpectedInput, VisitError
    parser = _lark()
    try:
        return parser.parse(text)
    except ReadError as exc:
        problem = scan(text) if "nesting" not in exc.message else None
        if problem is not None and problem[2]:
            return _raise(ReadError(problem[0], problem[1], incomplete=True))
        raise
    except VisitError as exc:  # pragma: no cover - exceptions inside callbacks
        orig = exc.orig_exc
        if isinstance(orig, ReadError):
            raise orig from None
        raise ReadError(str(orig)) from None
    except UnexpectedInput as exc:
        inner = getattr(exc, "__context__", None)
        if isinstance(inner, ReadError):
            raise inner from None
        raise classify(text, exc) from None
    except RecursionError:
        raise ReadError(f"nesting deeper than {max_depth} levels") from None
    finally:
        _state.names = None


def _raise(e):
    raise e


# ------------------------------------------------------------------- data reading

def form_to_value(f: Form):
    """Convert a read form into a data value (used by read_string)."""
    t = type(f)
    if t is Lit:
        return f.value
    if t is VecForm:
        return Vector([form_to_value(x) for x in f.items])
    if t is List:   # (a b) reads as a list (values/vectors.py make_list)
        return Vector([form_to_value(x) for x in f.items], LIST)
    if t is MapForm:
        it = f.items
        d = {}
        for i in range(0, len(it), 2):
            d[hk(form_to_value(it[i]))] = form_to_value(it[i + 1])
        return Map(d)
    if t is SetForm:
        return Set.of(form_to_value(x) for x in f.items)
    if t is Sym:
        return SymbolRef(f.ns, f.name)
    if t is Quote:
        return SymbolRef(f.sym.ns, f.sym.name)
    if t is VarQuote:
        return VarRef(f.sym.full)
    if t is RegexLit:
        from ..patterns.engine import compile_regex
        return compile_regex(f.source)
    if t is ShortFn:
        raise ReadError("a short function #(...) is code, not data", f.span)
    raise ReadError(f"cannot read {f!r} as data", f.span)  # pragma: no cover


def read_string(text: str):
    """Read exactly one literal as data, without evaluating it."""
    forms = read(text)
    if len(forms) != 1:
        raise ReadError(f"expected exactly one form, found {len(forms)}")
    return form_to_value(forms[0])
