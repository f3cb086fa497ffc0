"""Contracts: the small signature language of prelude exports (docs/spec/runtime.md §13.4).

Owns parsing of signature text such as

    (lines [{amount :float, sku :string}], limit :int?) -> :map

into a `Signature` (parameters and output type) or a bare `Type`, and the
checking of PTC values against them. A mismatch raises `PtcError`
(`prelude_contract_error`) whose message and `details` carry the phase
(`input`/`output`) and a dotted path to the offending value, e.g.
`input lines.0.amount: expected float, got string`.

Grammar (whitespace between tokens is free):

    signature = type | "(" [param {"," param}] ")" "->" type
    param     = name type
    type      = (":string" | ":int" | ":float" | ":bool" | ":boolean" | ":keyword"
                | ":datetime" | ":map" | ":any" | "[" type "]" | "{" [field {"," field}] "}") ["?"]
    field     = name type

Imports errors and values only.
"""
from __future__ import annotations

import re

import attrs

from ..errors import PtcError
from ..values import JavaObject, Keyword, Map, Vector, value_kind

PRIMITIVES = ("string", "int", "float", "bool", "boolean", "keyword", "datetime", "map", "any")


@attrs.frozen(slots=True)
class Type:
    """One contract type. kind: a primitive name, "vector" (of `item`) or "shape" (`fields`)."""

    kind: str
    optional: bool = False
    item: "Type | None" = None
    fields: tuple = ()           # ((name, Type), ...) for kind "shape"

    def text(self) -> str:
        if self.kind == "vector":
            core = f"[{self.item.text()}]"
        elif self.kind == "shape":
            core = "{" + ", ".join(f"{n} {t.text()}" for n, t in self.fields) + "}"
        else:
            core = ":" + self.kind
        return core + ("?" if self.optional else "")


@attrs.frozen(slots=True)
class Signature:
    """A function contract: `params` is ((name, Type), ...) or None when only the output is declared."""

    params: tuple | None
    output: Type

    def text(self) -> str:
        if self.params is None:
            return self.output.text()
        return "(" + ", ".join(f"{n} {t.text()}" for n, t in self.params) + ") -> " + self.output.text()


class ContractSyntaxError(ValueError):
    """The signature text does not follow the grammar."""


_TOKEN = re.compile(r"\s*(->|[()\[\]{},?]|:[A-Za-z][A-Za-z0-9_-]*|[A-Za-z_][A-Za-z0-9_\-?!*]*)")


def _tokenize(text: str) -> list[str]:
    out = []
    pos = 0
    text = text.rstrip()
    while pos < len(text):
        m = _TOKEN.match(text, pos)
        if m is None or m.end() == pos:
            raise ContractSyntaxError(f"unexpected text at position {pos + 1}: {text[pos:pos + 12]!r}")
        out.append(m.group(1))
        pos = m.end()
    return out


class _Parser:
    def __init__(self, text: str):
        self.toks = _tokenize(text)
        self.i = 0

    def peek(self):
        return self.toks[self.i] if self.i < len(self.toks) else None

    def take(self, want=None, what=None):
        tok = self.peek()
        if tok is None:
            raise ContractSyntaxError(f"unexpected end of signature (expected {what or want or 'more'})")
        if want is not None and tok != want:
            raise ContractSyntaxError(f"expected {want!r}, found {tok!r}")
        self.i += 1
        return tok

    def done(self):
        if self.peek() is not None:
            raise ContractSyntaxError(f"unexpected {self.peek()!r} after the end of the signature")

    def named_types(self, close: str, what: str) -> list:
        """`name type, name type, ...` up to (not taking) `close`, as [(name, type)]; a name given
        twice is an error (`what` says which: field or parameter)."""
        out = []
        seen = set()
        if self.peek() != close:
            while True:
                n = self.name()
                if n in seen:
                    raise ContractSyntaxError(f"{what} {n} declared twice")
                seen.add(n)
                out.append((n, self.type()))
                if self.peek() != ",":
                    break
                self.take(",")
        return out

    def name(self) -> str:
        tok = self.take(what="a name")
        if not (tok[0].isalpha() or tok[0] == "_"):
            raise ContractSyntaxError(f"expected a name, found {tok!r}")
        return tok

    def type(self) -> Type:
        tok = self.take(what="a type")
        if tok == "[":
            item = self.type()
            self.take("]")
            t = Type("vector", item=item)
        elif tok == "{":
            fields = self.named_types("}", "field")
            self.take("}")
            t = Type("shape", fields=tuple(fields))
        elif tok.startswith(":") and tok[1:] in PRIMITIVES:
            t = Type(tok[1:])
        else:
            raise ContractSyntaxError(f"unknown type {tok!r} (types: " + ", ".join(":" + p for p in PRIMITIVES)
                                      + ", [type], {field type, ...})")
        if self.peek() == "?":
            self.take("?")
            t = attrs.evolve(t, optional=True)
        return t


def parse_type(text: str) -> Type:
    """Parse a bare type (used for `:type` of constants)."""
    p = _Parser(text)
    t = p.type()
    p.done()
    return t


def parse_signature(text: str) -> Signature:
    """Parse a function signature: `(name type, ...) -> type`, or just an output type."""
    p = _Parser(text)
    if p.peek() != "(":
        out = p.type()
        p.done()
        return Signature(None, out)
    p.take("(")
    params = p.named_types(")", "parameter")
    p.take(")")
    p.take("->")
    out = p.type()
    p.done()
    return Signature(tuple(params), out)


# ------------------------------------------------------------------ checking

def kind_of(v) -> str:
    """The contract-vocabulary name of a value's kind (for messages)."""
    k = value_kind(v)
    return _CONTRACT_KIND.get(k, k)


_CONTRACT_KIND = {"boolean": "bool", "integer": "int"}


_MISSING = object()


def _field_get(m: Map, name: str):
    """A shaped-map field: keyword or string key, with `_` and `-` spellings treated alike."""
    d = m.d()
    for spelling in dict.fromkeys((name, name.replace("_", "-"), name.replace("-", "_"))):
        for key in (Keyword(spelling), spelling):
            v = d.get(key, _MISSING)
            if v is not _MISSING:
                return v
    return _MISSING


def _fits_primitive(kind: str, v) -> bool:
    t = type(v)
    if kind == "any":
        return True
    if kind == "string":
        return t is str
    if kind == "int":
        return t is int
    if kind == "float":
        return t is int or t is float
    if kind in ("bool", "boolean"):
        return t is bool
    if kind == "keyword":
        return t is Keyword
    if kind == "map":
        return t is Map
    if kind == "datetime":
        return isinstance(v, JavaObject) or t is str
    return False  # pragma: no cover - parser admits only PRIMITIVES


def check(t: Type, value, path: str = "") -> tuple[str, str, str] | None:
    """First violation of `value` against `t` as (path, expected, got), or None when it fits.

    Iterative, so a long vector or deep shape cannot exhaust the Python stack.
    """
    stack = [(t, value, path)]
    while stack:
        typ, v, p = stack.pop()
        if v is None:
            if typ.optional or typ.kind == "any":
                continue
            return p, typ.text(), "nil"
        k = typ.kind
        if k == "vector":
            if type(v) is not Vector:
                return p, typ.text(), kind_of(v)
            items = v.lst()
            for i in range(len(items) - 1, -1, -1):
                stack.append((typ.item, items[i], f"{p}.{i}" if p else str(i)))
        elif k == "shape":
            if type(v) is not Map:
                return p, typ.text(), kind_of(v)
            for name, ft in reversed(typ.fields):
                fv = _field_get(v, name)
                fp = f"{p}.{name}" if p else name
                if fv is _MISSING:
                    if ft.optional:
                        continue
                    return fp, ft.text(), "missing"
                stack.append((ft, fv, fp))
        elif not _fits_primitive(k, v):
            return p, typ.text(), kind_of(v)
    return None


def violation_error(where: str, phase: str, found: tuple[str, str, str], ref: str | None = None) -> PtcError:
    """The `prelude_contract_error` for a violation found by `check`."""
    path, expected, got = found
    loc = f"{phase} {path}" if path else phase
    expected_text = expected.lstrip(":") if expected.startswith(":") and expected.count(":") == 1 else expected
    msg = f"{loc}: expected {expected_text}, got {got}"
    if where:
        msg = f"{where}: {msg}"
    details = {"phase": phase, "path": path, "expected": expected, "got": got}
    if ref:
        details["ref"] = ref
    return PtcError("prelude_contract_error", msg, details=details)


def check_args(sig: Signature, args: tuple, ref: str):
    """Raise `prelude_contract_error` when `args` do not satisfy the signature's parameters."""
    if sig.params is None:
        return
    for (name, t), v in zip(sig.params, args):
        bad = check(t, v, name)
        if bad is not None:
            raise violation_error(ref, "input", bad, ref)


def check_result(sig_or_type, value, ref: str, phase: str = "output"):
    """Raise `prelude_contract_error` when `value` does not satisfy the output (or constant) type."""
    t = sig_or_type.output if isinstance(sig_or_type, Signature) else sig_or_type
    bad = check(t, value, "")
    if bad is not None:
        raise violation_error(ref, phase, bad, ref)
