"""Preludes: Lisp components that add namespaced exports to a session (runtime.md §13).

Owns the prelude loader: reading component source (`ns` plus `defn`/`defn-`/
`def` with docstrings and metadata maps), the compile-time checks (reserved
and duplicate namespaces, duplicate names, qualified self references,
metadata, signatures, dependency closure with unknown/cycle checks), the
export records (arity, params, doc, visibility, effect, transitive tool
requirements), the cache of compiled namespaces keyed by source hash, and
attaching: instantiating each compiled namespace against one session and
checking that every tool an export needs is granted.

How a namespace runs. Each namespace is compiled once into a code object
whose top level defines all its functions, then its constants, into `_ns`.
Attaching exec's that code with globals of its own (`_ns` = a fresh
`Namespace` for that namespace, `_data`/`_tool` = the session's), so
siblings resolve by bare name at call time (forward references work), user
definitions stay invisible, and a `def` executed inside an export is
discarded (the namespace is frozen after initialisation). The evaluator sets
`_m` in those globals at the start of every evaluation
(`Environment.extra_globals`), so prelude code runs under the caller's meter.

Imports errors, forms, reader, analyzer, compiler, runtime, values, contract.
"""
from __future__ import annotations

import hashlib
import os
import pathlib
import threading

import attrs

from . import meter as M
from .analyzer import Analyzer, Env, Scope
from .analyzer import nodes as N
from .analyzer.core import NOT_TAIL, err
from .compiler import compile_node, register_fn_meta, runtime_table
from .contract import ContractSyntaxError, Signature, check_args, check_result, parse_signature, parse_type
from .errors import FailSignal, PtcError, ReturnSignal, Span
from .forms import List, Lit, MapForm, Quote, Seq, Sym, VarQuote, VecForm
from .meter import Limits, Meter
from .reader import read, strip_bom
from .runtime import Namespace
from .values import Keyword

RESERVED = frozenset({"tool", "data", "ptc.core", "clojure.core", "user"})
VISIBILITIES = ("prompt", "discoverable")
EFFECTS = ("read", "write", "unknown")
DEF_META_KEYS = ("visibility", "signature", "type", "effect", "requires")
INIT_LIMITS = Limits(timeout_ms=5000)


class PreludeError(PtcError):
    """A prelude that cannot be compiled or attached. `kind` is the reason (e.g. `duplicate_ref`)."""

    def __init__(self, kind: str, message: str, span: Span | None = None, *, namespace: str | None = None,
                 ref: str | None = None, origin: str | None = None, **details):
        where = f"{origin}: " if origin else ""
        super().__init__(kind, where + message, span,
                         {k: v for k, v in dict(details, namespace=namespace, ref=ref, origin=origin).items()
                          if v is not None})


def _is_reserved(name: str) -> bool:
    from .lib import java as J
    from .registry import QUALIFIERS
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
        p = pathlib.Path(path)
        try:
            text = p.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as e:
            raise PreludeError("prelude_not_found", f"cannot read prelude {p}: {getattr(e, 'strerror', None) or e}",
                               origin=str(p)) from None
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
        if not rest or type(rest[0]) is not VecForm:
            what = "multi-arity definitions are not supported" if rest and type(rest[0]) is List else \
                "needs a parameter vector"
            raise PreludeError("compile_error", f"{head} {name}: {what}", f.span, namespace=ns.name, ref=ref,
                               origin=origin)
        d = Definition(ns.name, name, "function", head == "defn-", doc, f, params_form=rest[0], body=list(rest[1:]))
        _read_params(d)
    d.visibility = ns.visibility
    _apply_meta(d, meta, origin)
    return d


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
        raise bad(":signature needs a fixed-arity function (no & rest parameter)")
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


# ------------------------------------------------------------------ compiled namespaces and exports

@attrs.define(slots=True, eq=False)
class ExportRecord:
    """What a public definition offers to callers (runtime.md §13.2)."""

    ref: str
    namespace: str
    symbol: str
    kind: str
    arity: int
    variadic: bool
    params: tuple
    doc: str | None
    visibility: str
    declared_effect: str | None
    effect: str                       # static effect; may rise to "write" at attach
    requires: frozenset               # {"tool:<name>", ...}, transitive
    tool_refs: frozenset              # tool names reached through this namespace's own code
    signature: Signature | None = None
    signature_text: str | None = None
    type: object = None
    type_text: str | None = None

    @property
    def min_arity(self) -> int:
        return self.arity

    def call_text(self) -> str:
        if self.kind == "constant":
            return self.ref
        return "(" + " ".join([self.ref, *self.params]) + ")"


@attrs.define(slots=True, eq=False)
class CompiledNamespace:
    """A namespace compiled once and shared by every session that attaches it."""

    name: str
    key: str
    doc: str | None
    visibility: str
    origin: str
    deps: tuple
    code: object
    values: list                      # factory arguments: constants, then host refs
    host_keys: tuple                  # host-ref keys, in factory order (after the constants)
    records: dict                     # public name -> ExportRecord
    defs: dict                        # name -> Definition (public and private)
    reachable: frozenset              # names (incl. private) reachable from a public export
    tools: dict                       # name -> set of tool names the definition reaches (transitively)


class Export:
    """An export as seen by the analyzer: its record plus (when attached) its value in one session."""

    __slots__ = ("record", "value", "effect")

    def __init__(self, record: ExportRecord, value=None, effect: str | None = None):
        self.record = record
        self.value = value
        self.effect = effect or record.effect

    def _note(self, az):
        refs = getattr(az, "prelude_refs", None)
        if refs is not None:
            refs.add(self.record.ref)

    def ref_node(self, az, sym):
        self._note(az)
        return az.host_ref("prelude:" + self.record.ref, self.value, sym.span)

    def call_node(self, az, args, form):
        rec = self.record
        n = len(args)
        head = form.items[0]
        if rec.kind == "constant":
            if n:
                raise err("invalid_arity", f"{rec.ref} is a constant; use it without arguments (or as ({rec.ref}))",
                          form)
            return self.ref_node(az, head)
        if n < rec.arity or (n > rec.arity and not rec.variadic):
            want = f"at least {rec.arity}" if rec.variadic else str(rec.arity)
            raise err("invalid_arity", f"{rec.ref} expects {want} argument{'s' if want != '1' else ''}, got {n}",
                      form)
        self._note(az)
        return N.Call(az.host_ref("prelude:" + rec.ref, self.value, head.span), args, span=form.span)


class ExportTable(dict):
    """name -> Export for one attached namespace; `instance` holds the namespace's session state."""

    __slots__ = ("instance",)


@attrs.define(slots=True, eq=False)
class NsInstance:
    """One compiled namespace attached to one session."""

    compiled: CompiledNamespace
    ns: Namespace
    globals: dict


def _walk(node):
    """Every core-AST node under `node` (iterative; `recur` targets are not followed)."""
    stack = [node]
    while stack:
        n = stack.pop()
        if isinstance(n, N.Node):
            yield n
            for f in type(n).__slots__:
                if f != "target":
                    v = getattr(n, f, None)
                    if isinstance(v, (N.Node, list, tuple)):
                        stack.append(v)
        elif isinstance(n, (list, tuple)):
            stack.extend(n)


def _compile_error(e: PtcError, d: Definition, origin: str) -> PreludeError:
    return PreludeError("compile_error", f"{d.ref}: {e.kind}: {e.message}", e.span, namespace=d.ns, ref=d.ref,
                        origin=origin, cause=e.kind)


def compile_namespace(spec: NsSpec, deps: dict[str, CompiledNamespace], key: str,
                      errors: list | None = None) -> CompiledNamespace:
    """Analyze and compile every definition of `spec` against its dependencies' public exports.

    The first definition that does not analyze raises a PreludeError; with an `errors` list the
    error of every such definition is appended there instead and the namespace is compiled
    without them (for `ptclisp check`, which reports them all; such a result is never attached).
    """
    dep_exports = {name: {k: Export(r) for k, r in c.records.items()} for name, c in deps.items()}
    az = Analyzer(Env(user_names=spec.defs.keys(), tools=None, preludes=dep_exports, own_namespace=spec.name))
    siblings: dict[str, set] = {}
    tools_used: dict[str, set] = {}
    dep_refs: dict[str, set] = {}
    nodes = []
    ordered = [d for d in spec.defs.values() if d.kind == "function"] + \
              [d for d in spec.defs.values() if d.kind == "constant"]
    for d in ordered:
        az.prelude_refs = set()
        az.tools_used = set()
        try:
            try:
                if d.kind == "function":
                    from .analyzer.bindings import analyze_fn_tail
                    value = analyze_fn_tail(az, d.name, d.params_form, d.body, Scope(), d.form, d.doc,
                                            bind_self=False)
                else:
                    value = az.analyze(d.value_form, Scope(), NOT_TAIL)
            except PreludeError:
                raise
            except PtcError as e:
                raise _compile_error(e, d, spec.origin) from None
            if d.kind == "constant" and az.prelude_refs:
                raise PreludeError("dep_ref_in_def", f"{d.ref}: a def initialiser may not use other namespaces' "
                                                     f"exports ({', '.join(sorted(az.prelude_refs))})", d.form.span,
                                   namespace=d.ns, ref=d.ref, origin=spec.origin)
        except PreludeError as e:
            if errors is None:
                raise
            errors.append(e)
            siblings[d.name], tools_used[d.name], dep_refs[d.name] = set(), set(), set()
            continue
        sib, tls = set(), set(az.tools_used)
        for n in _walk(value):
            t = type(n)
            if t is N.GlobalRef or t is N.MaybeGlobal:
                if n.name in spec.defs:
                    sib.add(n.name)
            elif t is N.ToolCall or t is N.ToolRef:
                tls.add(n.name)
        siblings[d.name], tools_used[d.name], dep_refs[d.name] = sib, tls, set(az.prelude_refs)
        nodes.append(N.Def(d.name, value, d.doc, False, span=d.form.span))
    if not nodes:
        nodes.append(N.Const(None))
    try:
        code, values, meta = compile_node(N.Do(nodes, span=spec.span), az.host_refs)
    except PtcError as e:  # pragma: no cover - analyzer output always compiles
        raise PreludeError("compile_error", e.message, e.span, namespace=spec.name, origin=spec.origin) from None
    code = _renamed(code, f"<ptc-prelude {spec.name}>")
    register_fn_meta(code, meta)

    reach = _closure(spec.defs, siblings)
    all_tools = {n: set().union(*(tools_used[m] for m in reach[n])) for n in spec.defs}
    records = {}
    for d in spec.defs.values():
        if d.private:
            continue
        r_deps = set().union(*(dep_refs[m] for m in reach[d.name]))
        dep_records = [deps[ref.split("/", 1)[0]].records[ref.split("/", 1)[1]] for ref in r_deps]
        requires = {f"tool:{t}" for t in all_tools[d.name]} | set(d.explicit_requires)
        for r in dep_records:
            requires |= r.requires
        declared = {spec.defs[m].declared_effect for m in reach[d.name]} | {r.effect for r in dep_records
                                                                              if r.requires}
        if requires:
            effect = "write" if "write" in declared else "unknown"
        else:
            effect = d.declared_effect or "unknown"
        records[d.name] = ExportRecord(
            d.ref, d.ns, d.name, d.kind, d.arity, d.variadic, tuple(d.params), d.doc, d.visibility,
            d.declared_effect, effect, frozenset(requires), frozenset(all_tools[d.name]), d.signature,
            d.signature_text, d.type, d.type_text)
    public_reach = frozenset().union(*(reach[n] for n in records)) if records else frozenset()
    return CompiledNamespace(spec.name, key, spec.doc, spec.visibility, spec.origin, tuple(sorted(deps)), code,
                             list(values), tuple(az.host_refs), records, dict(spec.defs), public_reach,
                             all_tools)


def _renamed(code, filename: str):
    """`code` with every nested code object's file name replaced.

    Error positions are recovered from traceback frames of user programs
    (file `<ptc>`); prelude frames carry their own name so a failure inside
    an export is reported at the caller's call site, not at a line of the
    prelude that happens to share a number with the user's source.
    """
    consts = tuple(_renamed(c, filename) if hasattr(c, "co_code") else c for c in code.co_consts)
    return code.replace(co_filename=filename, co_consts=consts)


def _closure(defs: dict, edges: dict[str, set]) -> dict[str, set]:
    """For each definition, itself plus every sibling it can reach."""
    out = {}
    for start in defs:
        seen = {start}
        stack = [start]
        while stack:
            for nxt in edges.get(stack.pop(), ()):
                if nxt not in seen:
                    seen.add(nxt)
                    stack.append(nxt)
        out[start] = seen
    return out


# ------------------------------------------------------------------ bundle building (with the cache)

_PARSED: dict[str, list] = {}
_COMPILED: dict[str, CompiledNamespace] = {}
_CACHE_MAX = 512
_LOCK = threading.Lock()


def _cache_put(cache: dict, key: str, value):
    with _LOCK:
        if len(cache) >= _CACHE_MAX:
            cache.pop(next(iter(cache)))
        cache[key] = value


def _parsed(comp: Component) -> list[NsSpec]:
    key = hashlib.sha256(comp.source.encode("utf-8", "surrogatepass")).hexdigest() + "\x00" + comp.origin
    specs = _PARSED.get(key)
    if specs is None:
        specs = parse_component(comp)
        _cache_put(_PARSED, key, specs)
    return specs


def build(components: list, attached: dict[str, CompiledNamespace] | None = None,
          errors: list | None = None) -> list[CompiledNamespace]:
    """Compile `components` (plus references to already attached namespaces) in dependency order.

    With an `errors` list, definitions that do not analyze are collected there rather than raised
    (see compile_namespace), and nothing this call compiles is cached.
    """
    attached = attached or {}
    specs: dict[str, NsSpec] = {}
    declared: dict[str, tuple | None] = {}
    siblings_of: dict[str, set] = {}
    for comp in components:
        parsed = _parsed(comp)
        names = {s.name for s in parsed}
        for s in parsed:
            if s.name in specs or s.name in attached:
                raise PreludeError("invalid_namespace", f"namespace {s.name} is supplied more than once", s.span,
                                   namespace=s.name, origin=comp.origin)
            specs[s.name] = s
            declared[s.name] = comp.dependencies
            siblings_of[s.name] = names - {s.name}
    known = set(specs) | set(attached)
    deps: dict[str, set] = {}
    for name, s in specs.items():
        dl = declared[name]
        if dl is None:
            d = s.referenced & known
        else:
            d = set()
            for dep in dl:
                if dep == name:
                    raise PreludeError("dependency_cycle", f"namespace {name} depends on itself", s.span,
                                       namespace=name, origin=s.origin)
                if dep not in known:
                    raise PreludeError("unknown_dependency", f"namespace {name} depends on {dep}, which is not "
                                                             "supplied", s.span, namespace=name, origin=s.origin,
                                       dependency=dep)
                d.add(dep)
            d |= s.referenced & siblings_of[name]
        deps[name] = d
    order = _topo_order(specs, deps)
    out: dict[str, CompiledNamespace] = {}
    for name in order:
        s = specs[name]
        dep_c = {d: (out.get(d) or attached[d]) for d in deps[name]}
        key = hashlib.sha256("\x00".join([s.source_hash, name] + sorted(c.key for c in dep_c.values()))
                             .encode()).hexdigest()
        c = _COMPILED.get(key)
        if c is None:
            c = compile_namespace(s, dep_c, key, errors)
            if errors is None:
                _cache_put(_COMPILED, key, c)
        out[name] = c
    return [out[n] for n in order]


def _topo_order(specs: dict, deps: dict[str, set]) -> list[str]:
    order: list[str] = []
    state: dict[str, int] = {}          # 1 = visiting, 2 = done
    for root in specs:
        if state.get(root) == 2:
            continue
        stack = [(root, iter(sorted(deps[root])))]
        path = [root]
        state[root] = 1
        while stack:
            name, it = stack[-1]
            nxt = next((d for d in it if d in specs), None)
            if nxt is None:
                stack.pop()
                path.pop()
                state[name] = 2
                order.append(name)
                continue
            if state.get(nxt) == 1:
                cycle = path[path.index(nxt):] + [nxt]
                raise PreludeError("dependency_cycle", "namespaces depend on each other in a cycle: "
                                   + " -> ".join(cycle), specs[nxt].span, namespace=nxt, origin=specs[nxt].origin,
                                   cycle=cycle)
            if state.get(nxt) is None:
                state[nxt] = 1
                path.append(nxt)
                stack.append((nxt, iter(sorted(deps[nxt]))))
    return order


# ------------------------------------------------------------------ attaching to a session

def _no_tool(name, args):
    return None


def _no_tool_ref(name):
    return lambda *a: None


def instantiate(c: CompiledNamespace, env) -> NsInstance:
    """Run the compiled namespace's definitions with globals of its own, bound to `env`."""
    ns = Namespace(label=c.name)
    g = {"__builtins__": runtime_table(), "_m": None, "_ns": ns, "_data": env.data_get, "_tool": _no_tool,
         "_tool_ref": _no_tool_ref, "_hist": env.hist}
    n_plain = len(c.values) - len(c.host_keys)
    args = list(c.values[:n_plain])
    for key, static in zip(c.host_keys, c.values[n_plain:]):
        if key.startswith("prelude:"):
            dep, name = key[len("prelude:"):].split("/", 1)
            args.append(env.preludes[dep][name].value)
        else:
            args.append(static)
    meter = Meter(INIT_LIMITS)
    meter.env = env
    g["_m"] = meter
    prev = M.install(meter)
    try:
        exec(c.code, g)  # noqa: S102 - code compiled by our compiler from analyzed prelude forms
        main = g.pop("__ptc_factory__")(*args)
        meter.start()
        try:
            main()
        finally:
            meter.stop()
    except (ReturnSignal, FailSignal) as e:
        raise _init_error(c, ns, e, None) from None
    except Exception as e:  # noqa: BLE001 - every failure is a typed error
        from .evaluator import to_ptc_error
        raise _init_error(c, ns, e, to_ptc_error(e)) from None
    finally:
        M.install(prev)
    ns.frozen = True
    g["_tool"] = env.tools.call
    g["_tool_ref"] = env.tools.ref
    return NsInstance(c, ns, g)


def _init_error(c: CompiledNamespace, ns: Namespace, exc: BaseException, err: PtcError | None) -> PreludeError:
    """The error for a namespace whose initialisation raised `exc` (`err`: it as a PtcError; None for
    return/fail), naming the definition that failed and where it is.

    The namespace's code defines its functions, then its constants, each in source order, so
    the failing definition is the first of that order not yet in `ns`. The error's position is
    the innermost prelude form that was running, else the definition itself.
    """
    from .evaluator import _span_from_traceback
    order = [d for d in c.defs.values() if d.kind == "function"] + \
            [d for d in c.defs.values() if d.kind == "constant"]
    d = next((d for d in order if d.name not in ns), None)
    if d is None:  # pragma: no cover - every definition ran: the failure came after them
        what, ref, span = "initialising its definitions", None, None
    else:
        at = d.form.span
        what, ref, span = f"initialising {d.ref} (defined at {c.origin}:{at.line}:{at.col})", d.ref, at
    if err is None:
        return PreludeError("compile_error", f"namespace {c.name}: return/fail while {what}", span,
                            namespace=c.name, ref=ref, origin=c.origin)
    span = err.span or _span_from_traceback(exc, filename=c.code.co_filename) or span
    return PreludeError("compile_error", f"namespace {c.name}: {what} failed: {err.kind}: {err.message}", span,
                        namespace=c.name, ref=ref, origin=c.origin, cause=err.kind)


def _contract_wrapper(fn, sig: Signature, ref: str):
    def contract_checked(*args):
        if len(args) == len(sig.params or args):
            check_args(sig, args, ref)
        try:
            result = fn(*args)
        except ReturnSignal as r:
            check_result(sig, r.value, ref)
            raise
        check_result(sig, result, ref)
        return result
    contract_checked.__name__ = getattr(fn, "__name__", "contract_checked")
    return contract_checked


def _effect_with_tools(rec: ExportRecord, tools) -> str:
    if rec.effect == "unknown" and rec.requires:
        for req in rec.requires:
            t = tools.get(req[5:])
            if t is not None and t.effect == "write":
                return "write"
    return rec.effect


def attach_preludes(env, sources) -> list[str]:
    """Compile (or fetch from the cache) and attach `sources` to `env`; returns the namespaces added.

    `sources`: paths, source texts or `Component`s. Raises PreludeError; on
    error `env` is left as it was.
    """
    comps = [as_component(s) for s in sources]
    attached = {name: table.instance.compiled for name, table in env.preludes.items()}
    compiled = build(comps, attached)
    for c in compiled:
        for rec in c.records.values():
            for req in sorted(rec.requires):
                tool = req[5:]
                if env.tools.get(tool) is None:
                    raise PreludeError("prelude_attach_failed", f"{rec.ref} needs tool/{tool}, which is not granted",
                                       namespace=c.name, ref=rec.ref, origin=c.origin, tool=tool)
    added: dict[str, ExportTable] = {}
    new_globals = []
    saved = dict(env.preludes)
    try:
        for c in compiled:
            inst = instantiate(c, env)
            table = ExportTable()
            table.instance = inst
            for name, rec in c.records.items():
                value = inst.ns[name]
                if rec.kind == "function" and rec.signature is not None:
                    value = _contract_wrapper(value, rec.signature, rec.ref)
                if rec.kind == "constant" and rec.type is not None:
                    try:
                        check_result(rec.type, value, rec.ref, phase="type")
                    except PtcError as e:
                        raise PreludeError("prelude_contract_error", e.message, namespace=c.name, ref=rec.ref,
                                           origin=c.origin) from None
                table[name] = Export(rec, value, _effect_with_tools(rec, env.tools))
            env.preludes[c.name] = table
            programs = getattr(env, "programs", None)
            if programs is not None:  # names now resolve differently: built programs are stale
                programs.clear()
            added[c.name] = table
            new_globals.append(inst.globals)
    except BaseException:
        env.preludes.clear()
        env.preludes.update(saved)
        raise
    env.extra_globals.extend(new_globals)
    return list(added)
