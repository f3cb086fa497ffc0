"""Text -> forms with source spans.

Owns the lark LALR parser over `grammar/ptclisp.lark`, a fast path that
reads ordinary programs with one regular expression built from the same
grammar's terminals (falling back to lark on anything else), the post-lex
rules (nil/true/false words, escape decoding, digit and depth limits) and the
classification of reader failures into `parse_error` with line, column and
a short hint. `ReadError.incomplete` marks input that only needs more text
(unclosed bracket or string), which the REPL uses for multi-line entry.

    read(text)        -> list of forms (a whole program; a leading byte-order mark is skipped)
    read_string(text) -> one value, read as data (no evaluation)

Imports errors, meter (the compile clock), forms, values; lark lazily; `read_string` compiles a
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

from .errors import ReadError, Span
from .meter import compile_tick
from .forms import (
    Form, List, Lit, MapForm, Quote, RegexLit, SetForm, ShortFn, Sym, VarQuote, VecForm, split_symbol,
)
from .values import Keyword, Map, Set, SymbolRef, VarRef, Vector, hk

MAX_DEPTH = 64
MAX_INT_DIGITS = 100

_CHAR_NAMES = {
    "newline": "\n", "space": " ", "tab": "\t", "return": "\r",
    "backspace": "\b", "formfeed": "\f",
}
_SPECIAL_FLOATS = {"##Inf": math.inf, "##-Inf": -math.inf, "##NaN": math.nan}
_WORDS = {"nil": None, "true": True, "false": False}
_ESCAPES = {"\\": "\\", '"': '"', "n": "\n", "t": "\t", "r": "\r"}
_ESC_RE = re.compile(r"\\(.)", re.S)
_OPENERS = {"LPAR": "list", "LSQB": "vector", "LBRACE": "map", "HASH_LBRACE": "set", "HASH_LPAR": "short function"}


def decode_string(body: str) -> str:
    """Decode the escapes of language.md §2.6; any other backslash pair stays verbatim."""
    if "\\" not in body:
        return body
    return _ESC_RE.sub(lambda m: _ESCAPES.get(m.group(1), "\\" + m.group(1)), body)


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
    raise ReadError(f"unexpected token {text!r}", span)  # pragma: no cover


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


_HERE = os.path.dirname(os.path.abspath(__file__))
# the grammar file: in an installed package (ptclisp/grammar/), then in the source tree (grammar/)
_GRAMMAR_FILES = (os.path.join(_HERE, "grammar", "ptclisp.lark"),
                  os.path.join(os.path.dirname(_HERE), "grammar", "ptclisp.lark"))


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


def _build_lark():
    from lark import Lark, Transformer

    class _ToForms(Transformer):
        """Internal LALR transformer: builds forms directly (no parse tree)."""

        def start(self, children):
            return children

        def list(self, c):
            return List(c[1:-1], _span2(c[0], c[-1]))

        def vector(self, c):
            return VecForm(c[1:-1], _span2(c[0], c[-1]))

        def map(self, c):
            items = c[1:-1]
            if len(items) % 2:
                raise ReadError(f"map literal at line {c[0].line}, column {c[0].column} has an odd number of forms "
                                f"({len(items)}); every key needs a value", _span(c[0]))
            return MapForm(items, _span2(c[0], c[-1]))

        def set(self, c):
            return SetForm(c[1:-1], _span2(c[0], c[-1]))

        def short_fn(self, c):
            return ShortFn(c[1:-1], _span2(c[0], c[-1]))

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


# ------------------------------------------------------------------------ errors

_BRACKETS = {"(": ")", "[": "]", "{": "}"}
_NAMES = {"(": "list", "[": "vector", "{": "map", "#{": "set", "#(": "short function"}


def scan(text: str):
    """A light bracket scanner aware of strings, comments and char literals.

    Returns None when brackets balance, else (problem, span, incomplete) where
    problem is a human message.
    """
    stack: list[tuple[str, int, int]] = []
    i, n, line, col = 0, len(text), 1, 1
    while i < n:
        c = text[i]
        if c == "\n":
            i += 1
            line += 1
            col = 1
            continue
        if c == ";":
            j = text.find("\n", i)
            j = n if j < 0 else j
            col += j - i
            i = j
            continue
        if c == "\\":
            i += 2
            col += 2
            continue
        if c == '"' or (c == "#" and i + 1 < n and text[i + 1] == '"'):
            start_line, start_col = line, col
            k = i + (2 if c == "#" else 1)
            col += k - i
            closed = False
            while k < n:
                d = text[k]
                if d == "\\" and k + 1 < n and text[k + 1] not in "\r\n":
                    k += 2
                    col += 2
                    continue
                if d == "\\":
                    break
                if d == '"':
                    closed = True
                    k += 1
                    col += 1
                    break
                if d == "\n":
                    line += 1
                    col = 1
                else:
                    col += 1
                k += 1
            if not closed:
                return (f"unclosed string starting at line {start_line}, column {start_col}",
                        Span(start_line, start_col), k >= n)
            i = k
            continue
        if c == "#" and i + 1 < n and text[i + 1] in "({":
            stack.append(("#" + text[i + 1], line, col))
            i += 2
            col += 2
            continue
        if c in "([{":
            stack.append((c, line, col))
        elif c in ")]}":
            if not stack:
                return (f"unexpected closing {c!r} at line {line}, column {col} with nothing open",
                        Span(line, col), False)
            opener, ol, oc = stack.pop()
            if _BRACKETS[opener[-1]] != c:
                return (f"mismatched {c!r} at line {line}, column {col}: the {_NAMES[opener]} opened at line {ol}, "
                        f"column {oc} needs {_BRACKETS[opener[-1]]!r}", Span(line, col), False)
        i += 1
        col += 1
    if stack:
        opener, ol, oc = stack[-1]
        return (f"unclosed {_NAMES[opener]} at line {ol}, column {oc}", Span(ol, oc), True)
    return None


def _char_hint(text: str, pos: int) -> str | None:
    c = text[pos]
    nxt = text[pos + 1] if pos + 1 < len(text) else ""
    if c == "#":
        if nxt == "_":
            return "reader discard syntax (#_) is not supported. Use ; for comments"
        if nxt == "?":
            return "reader conditionals (#?) are not supported"
        if nxt == "!":
            return "#! lines are not supported"
        if nxt == "#":
            return "unknown special value; only ##Inf, ##-Inf and ##NaN exist"
        return f"unsupported reader syntax #{nxt} (tagged literals are not supported)"
    if c == "@":
        return "deref syntax (@var) is not supported"
    if c == "^":
        return "metadata syntax (^) is not supported"
    if c == "`":
        return "syntax-quote (`) is not supported"
    if c == "~":
        return "unquote (~) is not supported"
    if c == "'":
        if nxt in "([{":
            return "quoted collections are not supported; only symbols can be quoted ('name)"
        return "quote (') must be followed by a symbol"
    if c == "\\":
        return "invalid character literal (use \\a, \\newline, \\space, \\tab, ...)"
    if c == ":":
        if nxt == ":":
            return "auto-resolved keywords (::k) are not supported"
        return "invalid keyword (keywords are :name with letters, digits and + - * < > = ? ! _; no namespaces)"
    if c.isdigit() or (c == "-" and nxt.isdigit()):
        return "invalid number literal (no ratios, hex, radix or suffixes)"
    if not c.isascii():
        return f"character {c!r} is not allowed here (symbols are ASCII-only)"
    return None


def _classify(text: str, exc) -> ReadError:
    from lark.exceptions import UnexpectedCharacters, UnexpectedToken
    if isinstance(exc, UnexpectedCharacters):
        pos = exc.pos_in_stream
        line, col = exc.line, exc.column
        if text[pos] == '"' or text[pos:pos + 2] == '#"':
            problem = scan(text)
            if problem is not None:
                return ReadError(problem[0], problem[1], incomplete=problem[2])
        hint = _char_hint(text, pos)
        if hint is None:
            problem = scan(text)
            if problem is not None:
                return ReadError(problem[0], problem[1], incomplete=problem[2])
            hint = f"unexpected character {text[pos]!r}"
        return ReadError(f"{hint} (line {line}, column {col})", Span(line, col))
    problem = scan(text)
    if problem is not None:
        return ReadError(problem[0], problem[1], incomplete=problem[2])
    if isinstance(exc, UnexpectedToken):
        tok = exc.token
        return ReadError(f"unexpected {tok.value!r} at line {tok.line}, column {tok.column}", _span(tok))
    return ReadError("unexpected end of input", None, incomplete=True)


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
    """Read `text` with the one-regex scanner (`_SCAN`), without lark. Raises `_Fallback` on anything
    it does not handle itself (every error, too deep nesting, a token out of place): `read` then
    reads the text with the lark parser, which reports the error or reads the rare construct."""
    pos, line, line_start = 0, 1, 0
    next_nl = text.find("\n")   # the first newline at or after pos (-1: none left)
    if next_nl < 0:
        next_nl = len(text)
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
            if len(stack) >= max_depth:
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
                    line += value.count("\n")
                    line_start = pos + value.rfind("\n") + 1
                    span = Span(span.line, col, line, end - line_start + 1)
                    next_nl = text.find("\n", end)
                    if next_nl < 0:
                        next_nl = len(text)
                form = _token_form(kind, value, span)
        if var_quote is not None:
            form, var_quote = _var_quote(var_quote, form), None
        out.append(form)
        pos = end
    if stack or var_quote is not None:
        raise _Fallback
    return top


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
        raise _classify(text, exc) from None
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
    if t is VecForm or t is List:
        return Vector([form_to_value(x) for x in f.items])
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
        from .regex_engine import compile_regex
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
