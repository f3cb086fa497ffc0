"""What a compiled prelude namespace offers: export records, compiled namespaces, attached instances.

Owns `ExportRecord` (a public definition's arity, parameters, doc,
visibility, effect and transitive tool requirements), `CompiledNamespace`
(compiled once, shared by every session attaching it), `Export` (an export
as the analyzer sees it, with its value in one session), `ExportTable` and
`NsInstance`. Imports analyzer nodes, contract and namespace.
"""
from __future__ import annotations

import attrs

from ..analyzer import nodes as N
from ..analyzer.analyzer import err
from .contract import Signature
from ..runtime.namespace import Namespace

@attrs.define(slots=True, eq=False)
class ExportRecord:
    """What a public definition offers to callers (docs/spec/runtime.md §13.2)."""

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
    arglists: tuple = ()              # a multi-arity function: each arity's parameters

    @property
    def min_arity(self) -> int:
        return self.arity

    def call_text(self) -> str:
        if self.kind == "constant":
            return self.ref
        if self.arglists:
            return " ".join("(" + " ".join([self.ref, *ps]) + ")" for ps in self.arglists)
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
