"""Diagnostics of reading: what a text that does not read is told.

Owns the light bracket scanner (`scan`: unclosed and mismatched brackets and strings, which
also tells the REPL that input is only incomplete) and the classification of a lark failure
into a `ReadError` with line, column and a short hint (`classify`). Used by ptclisp.reader.parser
(its lark path); imports errors, and lark's exception classes when classifying.
"""
from __future__ import annotations

from ..errors import ReadError, Span


def _span(tok) -> Span:
    return Span(tok.line, tok.column, tok.end_line, tok.end_column)


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
        if c == "\\":   # a character literal: `\` and the character after it, which may be a newline
            if i + 1 < n and text[i + 1] == "\n":
                line += 1
                col = 1
            else:
                col += 2
            i += 2
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


# what the character where reading failed, and the one after it, say about the mistake
_PAIR_HINTS = {
    "#?": "reader conditionals (#?) are not supported",
    "#!": "#! lines are not supported",
    "##": "unknown special value; only ##Inf, ##-Inf and ##NaN exist",
    "::": "auto-resolved keywords (::k) are not supported",
}
_CHAR_HINTS = {
    "^": "metadata syntax (^) is not supported",
    "`": "syntax-quote (`) is not supported",
    "~": "unquote (~) is not supported",
    "'": "quote (') must be followed by a form",
    "\\": "invalid character literal (use \\a, \\newline, \\space, \\tab, ...)",
    ":": "invalid keyword (keywords are :name with letters, digits and + - * < > = ? ! _; no namespaces)",
}


def _char_hint(text: str, pos: int) -> str | None:
    c = text[pos]
    nxt = text[pos + 1] if pos + 1 < len(text) else ""
    hint = _PAIR_HINTS.get(c + nxt) or _CHAR_HINTS.get(c)
    if hint is not None:
        return hint
    if c == "#":
        return f"unsupported reader syntax #{nxt} (tagged literals are not supported)"
    if c.isdigit() or (c == "-" and nxt.isdigit()):
        return "invalid number literal (no ratios, hex, radix or suffixes)"
    if not c.isascii():
        return f"character {c!r} is not allowed here (symbols are ASCII-only)"
    return None


_PREFIXES = ("QUOTE", "AT", "DISCARD")


def _dangling_prefix(exc):
    """The `'`, `@` or `#_` just before a closing bracket or the end (it has no form to apply to)."""
    tok = exc.token
    if tok.type not in ("RPAR", "RSQB", "RBRACE", "$END"):
        return None
    stack = getattr(getattr(exc, "state", None), "value_stack", None) or []
    last = stack[-1] if stack else None
    return last if getattr(last, "type", None) in _PREFIXES else None


def classify(text: str, exc) -> ReadError:
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
        prefix = _dangling_prefix(exc)
        if prefix is not None:
            return ReadError(f"{prefix.value} at line {prefix.line}, column {prefix.column} must be followed by a form",
                             _span(prefix), incomplete=tok.type == "$END")
        return ReadError(f"unexpected {tok.value!r} at line {tok.line}, column {tok.column}", _span(tok))
    return ReadError("unexpected end of input", None, incomplete=True)
