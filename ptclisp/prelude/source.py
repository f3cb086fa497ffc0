"""Prelude source: components, and reading them into namespace specs (docs/spec/runtime.md §13).

Owns `Component` (prelude source plus its origin and allowed dependencies),
`PreludeError`, and `parse_component`: reading component source (`ns`
plus `defn`/`defn-`/`def` with docstrings and metadata maps) into `NsSpec`s
of `Definition`s, with the checks that need no compilation: reserved and
duplicate namespaces, duplicate names, qualified self references, metadata
and signatures. Imports errors, forms, reader, values, contract and (for
reserved names) the builtin registry and the Java-interop table.
"""
from __future__ import annotations

import hashlib
import os
import pathlib

import attrs

from .contract import ContractSyntaxError, Signature, parse_signature, parse_type
from ..errors import PtcError, Span
from ..reader.forms import List, Lit, MapForm, Quote, Seq, Sym, VarQuote, VecForm
from ..reader.parser import read, strip_bom
from ..values import Keyword

RESERVED = frozenset({"tool", "data", "ptc.core", "clojure.core", "user"})
VISIBILITIES = ("prompt", "discoverable")
EFFECTS = ("read", "write", "unknown")
DEF_META_KEYS = ("visibility", "signature", "type", "effect", "requires")


class PreludeError(PtcError):
    """A prelude that cannot be compiled or attached. `kind` is the reason (e.g. `duplicate_ref`)."""

    def __init__(self, kind: str, message: str, span: Span | None = None, *, namespace: str | None = None,
                 ref: str | None = None, origin: str | None = None, **details):
        where = f"{origin}: " if origin else ""
        super().__init__(kind, where + message, span,
                         {k: v for k, v in dict(details, namespace=namespace, ref=ref, origin=origin).items()
                          if v is not None})


def _is_reserved(name: str) -> bool:
    from ..registry import java as J
    from ..registry.builtins import QUALIFIERS
    return name in RESERVED or name in QUALIFIERS or J.is_java_class_spelling(name) or name.startswith("java.")


# ------------------------------------------------------------------ components

@attrs.define(slots=True)
class Component:
    """Prelude source plus where it came from and, optionally, the namespaces it may call.

    `dependencies=None` means "whatever other attached namespaces the source
    references"; a list restricts the source to exactly those namespaces.
    """

    source: str = attrs.field(converter=strip_bom)   # a leading byte-order mark is not source
    origin: str = "<prelude>"
    dependencies: tuple | None = None

    @classmethod
    def file(cls, path, dependencies=None) -> "Component":
        from ..interchange.documents import DocumentError, read_document_text
        p = pathlib.Path(path)
        try:
            text = read_document_text(p)   # a regular file within the size bound
        except (OSError, UnicodeDecodeError) as e:
            err = PreludeError("prelude_not_found", f"cannot read prelude {p}: {getattr(e, 'strerror', None) or e}",
                               origin=str(p))
            err.refused_document = isinstance(e, DocumentError)   # a FIFO, a device, too large: exit 3
            raise err from None
        return cls(text, str(p), tuple(dependencies) if dependencies is not None else None)


def as_component(item) -> Component:
    """A Component from a Component, a path, or prelude source text."""
    if isinstance(item, Component):
        return item
    if isinstance(item, os.PathLike):
        return Component.file(item)
    if isinstance(item, str):
        stripped = strip_bom(item).lstrip()
        if stripped.startswith("(") or stripped.startswith(";") or not stripped:
            return Component(item)
        return Component.file(item)
    raise TypeError(f"a prelude must be a path, source text or ptclisp.prelude.Component, got {type(item).__name__}")


# ------------------------------------------------------------------ parsed definitions

@attrs.define(slots=True, eq=False)
class Definition:
    """One top-level `defn`/`defn-`/`def` of a namespace."""

    ns: str
    name: str
    kind: str                       # "function" | "constant"
    private: bool
    doc: str | None
    form: List
    params_form: object = None      # VecForm for functions
    body: list = attrs.Factory(list)
    value_form: object = None       # the initialiser of a constant
    text: str = ""
    params: list = attrs.Factory(list)
    arity: int = 0
    variadic: bool = False
    visibility: str = "prompt"
    declared_effect: str | None = None
    signature: Signature | None = None
    signature_text: str | None = None
    type: object = None
    type_text: str | None = None
    explicit_requires: tuple = ()
    arglists: tuple = ()            # a multi-arity defn: the parameters of each arity

    @property
    def ref(self) -> str:
        return f"{self.ns}/{self.name}"


@attrs.define(slots=True, eq=False)
class NsSpec:
    """A namespace as read from source, before compilation."""

    name: str
    doc: str | None
    visibility: str
    origin: str
    source_hash: str
    span: Span | None
    defs: dict = attrs.Factory(dict)          # name -> Definition, in source order
    referenced: set = attrs.Factory(set)      # other namespaces named in bodies


def _text_of(source_lines: list[str], span: Span | None) -> str:
    if span is None or span.end_line is None:
        return ""
    if span.line == span.end_line:
        return source_lines[span.line - 1][span.col - 1:span.end_col - 1]
    parts = [source_lines[span.line - 1][span.col - 1:]]
    parts.extend(source_lines[span.line:span.end_line - 1])
    parts.append(source_lines[span.end_line - 1][:span.end_col - 1])
    return "\n".join(parts)


def _meta_value(form, origin, ns):
    t = type(form)
    if t is Lit:
        return form.value
    if t is VecForm and all(type(i) is Lit for i in form.items):
        return [i.value for i in form.items]
    raise PreludeError("invalid_metadata", f"metadata values must be literals or vectors of literals, got {form!r}",
                       form.span, namespace=ns, origin=origin)


def _meta_map(form: MapForm, origin, ns) -> dict:
    out = {}
    items = form.items
    for i in range(0, len(items), 2):
        k = items[i]
        if type(k) is not Lit or type(k.value) is not Keyword:
            raise PreludeError("invalid_metadata", f"metadata keys must be keywords, got {k!r}", k.span,
                               namespace=ns, origin=origin)
        out[k.value.name] = (_meta_value(items[i + 1], origin, ns), items[i + 1].span)
    return out


def _kw_choice(value, allowed, what, span, origin, ns, ref=None):
    name = value.name if type(value) is Keyword else None
    if name not in allowed:
        raise PreludeError("invalid_metadata", f"{what} must be one of " + ", ".join(":" + a for a in allowed)
                           + f", got {value!r}", span, namespace=ns, ref=ref, origin=origin)
    return name


def parse_component(comp: Component) -> list[NsSpec]:
    """Read component source into namespace specs (raises PreludeError)."""
    try:
        forms = read(comp.source)
    except PtcError as e:
        raise PreludeError("parse_error", e.message, e.span, origin=comp.origin) from None
    lines = comp.source.split("\n")
    digest = hashlib.sha256(comp.source.encode("utf-8", "surrogatepass")).hexdigest()
    specs: list[NsSpec] = []
    cur: NsSpec | None = None
    for f in forms:
        head = f.items[0] if type(f) is List and f.items else None
        hname = head.name if type(head) is Sym and head.ns is None else None
        if hname == "ns":
            cur = _parse_ns(f, comp, digest, specs)
            specs.append(cur)
            continue
        if hname not in ("defn", "defn-", "def"):
            raise PreludeError("compile_error", f"unsupported top-level prelude form {_head_text(f)}; only ns, defn, "
                                                "defn- and def may appear at the top level", f.span,
                               namespace=cur.name if cur else None, origin=comp.origin)
        if cur is None:
            raise PreludeError("missing_namespace", f"{hname} appears before any (ns ...) directive", f.span,
                               origin=comp.origin)
        d = _parse_def(f, hname, cur, comp.origin)
        if d.name in cur.defs:
            raise PreludeError("duplicate_ref", f"{d.ref} is defined more than once", f.span, namespace=cur.name,
                               ref=d.ref, origin=comp.origin)
        d.text = _text_of(lines, f.span)
        cur.defs[d.name] = d
    for spec in specs:
        _scan_references(spec, comp.origin)
    return specs


def _head_text(f) -> str:
    if type(f) is List and f.items:
        return f"({f.items[0]!r} ...)"
    return repr(f)[:40]


def _parse_ns(f: List, comp: Component, digest: str, specs: list) -> NsSpec:
    items = f.items[1:]
    if not items or type(items[0]) is not Sym or items[0].ns is not None:
        raise PreludeError("invalid_namespace", "ns needs a namespace name: (ns my.helpers)", f.span,
                           origin=comp.origin)
    name = items[0].name
    if _is_reserved(name):
        raise PreludeError("reserved_namespace", f"{name} is a reserved namespace and cannot be declared", f.span,
                           namespace=name, origin=comp.origin)
    if any(s.name == name for s in specs):
        raise PreludeError("invalid_namespace", f"namespace {name} is declared more than once", f.span,
                           namespace=name, origin=comp.origin)
    rest = items[1:]
    doc = None
    meta = {}
    if rest and type(rest[0]) is Lit and type(rest[0].value) is str:
        doc = rest[0].value
        rest = rest[1:]
    if rest and type(rest[0]) is MapForm:
        meta = _meta_map(rest[0], comp.origin, name)
        rest = rest[1:]
    if rest:
        raise PreludeError("invalid_namespace", "ns takes a name, an optional docstring and an optional metadata map",
                           f.span, namespace=name, origin=comp.origin)
    visibility = "prompt"
    if "visibility" in meta:
        value, span = meta["visibility"]
        visibility = _kw_choice(value, VISIBILITIES, ":visibility", span, comp.origin, name)
    return NsSpec(name, doc, visibility, comp.origin, digest, f.span)


def _parse_def(f: List, head: str, ns: NsSpec, origin: str) -> Definition:
    items = f.items
    if len(items) < 2 or type(items[1]) is not Sym or items[1].ns is not None:
        raise PreludeError("compile_error", f"{head} needs a plain name: ({head} name ...)", f.span,
                           namespace=ns.name, origin=origin)
    name = items[1].name
    ref = f"{ns.name}/{name}"
    rest = items[2:]
    doc = None
    meta: dict = {}
    if head == "def":
        if len(rest) == 3 and type(rest[0]) is Lit and type(rest[0].value) is str and type(rest[1]) is MapForm:
            doc, meta, rest = rest[0].value, _meta_map(rest[1], origin, ns.name), rest[2:]
        elif len(rest) == 2 and type(rest[0]) is Lit and type(rest[0].value) is str:
            doc, rest = rest[0].value, rest[1:]
        elif len(rest) == 2 and type(rest[0]) is MapForm:
            meta, rest = _meta_map(rest[0], origin, ns.name), rest[1:]
        if len(rest) != 1:
            raise PreludeError("compile_error", f"(def {name} ...) takes an optional docstring, an optional metadata "
                                                "map and exactly one value", f.span, namespace=ns.name, ref=ref,
                               origin=origin)
        d = Definition(ns.name, name, "constant", False, doc, f, value_form=rest[0])
    else:
        if rest and type(rest[0]) is Lit and type(rest[0].value) is str:
            doc, rest = rest[0].value, rest[1:]
        if rest and type(rest[0]) is MapForm:
            meta, rest = _meta_map(rest[0], origin, ns.name), rest[1:]
        if not rest or type(rest[0]) not in (VecForm, List):
            raise PreludeError("compile_error", f"{head} {name}: needs a parameter vector", f.span,
                               namespace=ns.name, ref=ref, origin=origin)
        d = Definition(ns.name, name, "function", head == "defn-", doc, f, params_form=rest[0], body=list(rest[1:]))
        if type(rest[0]) is List:
            _read_arities(d, rest, origin)
        else:
            _read_params(d)
    d.visibility = ns.visibility
    _apply_meta(d, meta, origin)
    return d


def _read_arities(d: Definition, clauses: list, origin: str):
    """A multi-arity defn: `([x] ...) ([x y] ...)`. Its record takes the fewest parameters any clause
    takes as its arity and counts as variadic (a count no clause takes is the fn's own
    arity_mismatch when it is called); `arglists` keeps every clause's parameters for doc and prompts."""
    lists = []
    for c in clauses:
        if type(c) is not List or not c.items or type(c.items[0]) is not VecForm:
            raise PreludeError("compile_error", f"defn {d.name}: each arity is a list ([params] body...)", d.form.span,
                               namespace=d.ns, ref=d.ref, origin=origin)
        one = Definition(d.ns, d.name, "function", d.private, None, d.form, params_form=c.items[0])
        _read_params(one)
        lists.append(one)
    first = min(lists, key=lambda o: o.arity)
    d.params, d.arity, d.variadic = list(first.params), first.arity, True
    d.arglists = tuple(tuple(o.params) for o in lists)


def _read_params(d: Definition):
    items = d.params_form.items
    i = 0
    while i < len(items):
        p = items[i]
        if type(p) is Sym and p.ns is None and p.name == "&":
            d.variadic = True
            d.params.append("&")
            if i + 1 < len(items):
                q = items[i + 1]
                d.params.append(q.name if type(q) is Sym else repr(q))
            break
        d.params.append(p.name if type(p) is Sym else repr(p))
        d.arity += 1
        i += 1


def _apply_meta(d: Definition, meta: dict, origin: str):
    for key, (value, span) in meta.items():
        if key not in DEF_META_KEYS:
            raise PreludeError("invalid_metadata", f"{d.ref}: unknown metadata key :{key} (known: "
                               + ", ".join(":" + k for k in DEF_META_KEYS) + ")", span, namespace=d.ns, ref=d.ref,
                               origin=origin)
        if key == "visibility":
            d.visibility = _kw_choice(value, VISIBILITIES, ":visibility", span, origin, d.ns, d.ref)
        elif key == "effect":
            d.declared_effect = _kw_choice(value, EFFECTS, ":effect", span, origin, d.ns, d.ref)
        elif key == "requires":
            vals = value if isinstance(value, list) else [value]
            for v in vals:
                if type(v) is not str or not v.startswith("tool:") or len(v) <= 5:
                    raise PreludeError("invalid_requires", f"{d.ref}: :requires entries must be \"tool:<name>\" "
                                                           f"strings, got {v!r}", span, namespace=d.ns, ref=d.ref,
                                       origin=origin)
            d.explicit_requires = tuple(vals)
        elif key == "signature":
            _apply_signature(d, value, span, origin)
        elif key == "type":
            if d.kind != "constant":
                raise PreludeError("invalid_metadata", f"{d.ref}: :type is for constants; use :signature on "
                                                       "functions", span, namespace=d.ns, ref=d.ref, origin=origin)
            if type(value) is not str:
                raise PreludeError("invalid_signature", f"{d.ref}: :type must be a string", span, namespace=d.ns,
                                   ref=d.ref, origin=origin)
            try:
                d.type = parse_type(value)
            except ContractSyntaxError as e:
                raise PreludeError("invalid_signature", f"{d.ref}: bad :type {value!r}: {e}", span, namespace=d.ns,
                                   ref=d.ref, origin=origin) from None
            d.type_text = d.type.text()


def _apply_signature(d: Definition, value, span, origin):
    def bad(msg):
        return PreludeError("invalid_signature", f"{d.ref}: {msg}", span, namespace=d.ns, ref=d.ref, origin=origin)

    if d.kind != "function":
        raise bad(":signature is for functions; use :type on constants")
    if type(value) is not str:
        raise bad(":signature must be a string")
    if d.variadic:
        raise bad(":signature needs a fixed-arity function (no & rest parameter, one arity)")
    try:
        sig = parse_signature(value)
    except ContractSyntaxError as e:
        raise bad(f"bad :signature {value!r}: {e}") from None
    if sig.params is not None and len(sig.params) != d.arity:
        raise bad(f":signature declares {len(sig.params)} parameters but the function takes {d.arity}")
    d.signature = sig
    d.signature_text = sig.text()


def _scan_references(spec: NsSpec, origin: str):
    """Collect namespaces named in bodies; reject a qualified reference to the namespace itself."""
    for d in spec.defs.values():
        stack = list(d.body) + ([d.value_form] if d.value_form is not None else [])
        while stack:
            f = stack.pop()
            t = type(f)
            if t is Sym:
                if f.ns is None:
                    continue
                if f.ns == spec.name:
                    raise PreludeError("qualified_self_reference",
                                       f"{d.ref}: call siblings by bare name ({f.name}), not {f.full}", f.span,
                                       namespace=spec.name, ref=d.ref, origin=origin)
                spec.referenced.add(f.ns)
            elif t is VarQuote:
                stack.append(f.sym)
            elif isinstance(f, Seq):
                stack.extend(f.items)
            elif t is Quote:
                continue
