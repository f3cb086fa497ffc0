"""Compiling prelude namespaces, and building a bundle of components in dependency order.

Each namespace is analyzed against its dependencies' public exports and
compiled once into a code object whose top level defines all its functions,
then its constants, into `_ns`; `build` resolves the dependency closure
(unknown dependencies and cycles are errors) and caches compiled
namespaces by source hash. Both entry points register the builtin families
first (`ptclisp.lib.load()`), so a prelude compiles the same in a fresh process
(`ptclisp check`) as after an evaluation. Imports lib (to load it), the pipeline (its analyzer), analyzer,
compiler and the prelude's source and export modules.
"""
from __future__ import annotations

import hashlib
import threading

from .. import lib
from ..analyzer import Analyzer, Env, Scope
from ..analyzer import nodes as N
from ..analyzer.bindings import analyze_fn_tail
from ..analyzer.analyzer import NOT_TAIL
from ..backends.bytecode import compile_node, register_fn_meta
from ..errors import PtcError
from ..pipeline import analyzer
from .exports import CompiledNamespace, Export, ExportRecord
from .source import Component, Definition, NsSpec, PreludeError, parse_component


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
    lib.load()  # the analyzer resolves names against the registered builtins
    dep_exports = {name: {k: Export(r) for k, r in c.records.items()} for name, c in deps.items()}
    az = analyzer(Env(user_names=spec.defs.keys(), tools=None, preludes=dep_exports, own_namespace=spec.name))
    siblings: dict[str, set] = {}
    tools_used: dict[str, set] = {}
    dep_refs: dict[str, set] = {}
    nodes = []
    ordered = [d for d in spec.defs.values() if d.kind == "function"] + \
              [d for d in spec.defs.values() if d.kind == "constant"]
    for d in ordered:
        try:
            value = _analyze_definition(az, d, spec.origin)
        except PreludeError as e:
            if errors is None:
                raise
            errors.append(e)
            siblings[d.name], tools_used[d.name], dep_refs[d.name] = set(), set(), set()
            continue
        sib, tls = set(), set(az.tools_used)
        for n in N.walk_nodes(value):
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
    records = {d.name: _export_record(d, spec, deps, reach[d.name], all_tools[d.name], dep_refs)
               for d in spec.defs.values() if not d.private}
    public_reach = frozenset().union(*(reach[n] for n in records)) if records else frozenset()
    return CompiledNamespace(spec.name, key, spec.doc, spec.visibility, spec.origin, tuple(sorted(deps)), code,
                             list(values), tuple(az.host_refs), records, dict(spec.defs), public_reach,
                             all_tools)


def _analyze_definition(az: Analyzer, d: Definition, origin: str):
    """The core AST of one definition's value (a function, or a constant's initialiser); the tools and
    other namespaces' exports it names are left in `az.tools_used` and `az.prelude_refs`."""
    az.prelude_refs = set()
    az.tools_used = set()
    try:
        if d.kind == "function":
            value = analyze_fn_tail(az, d.name, d.params_form, d.body, Scope(), d.form, d.doc, bind_self=False)
        else:
            value = az.analyze(d.value_form, Scope(), NOT_TAIL)
    except PreludeError:
        raise
    except PtcError as e:
        raise _compile_error(e, d, origin) from None
    if d.kind == "constant" and az.prelude_refs:
        raise PreludeError("dep_ref_in_def", f"{d.ref}: a def initialiser may not use other namespaces' "
                                             f"exports ({', '.join(sorted(az.prelude_refs))})", d.form.span,
                           namespace=d.ns, ref=d.ref, origin=origin)
    return value


def _export_record(d: Definition, spec: NsSpec, deps: dict[str, CompiledNamespace], reach: set, tools: set,
                   dep_refs: dict[str, set]) -> ExportRecord:
    """The record of public definition `d`, which reaches the siblings `reach` and the tools `tools`:
    its requirements include those of the other namespaces' exports they use, and its effect rises
    with theirs."""
    r_deps = set().union(*(dep_refs[m] for m in reach))
    dep_records = [deps[ref.split("/", 1)[0]].records[ref.split("/", 1)[1]] for ref in r_deps]
    requires = {f"tool:{t}" for t in tools} | set(d.explicit_requires)
    for r in dep_records:
        requires |= r.requires
    declared = {spec.defs[m].declared_effect for m in reach} | {r.effect for r in dep_records if r.requires}
    if requires:
        effect = "write" if "write" in declared else "unknown"
    else:
        effect = d.declared_effect or "unknown"
    return ExportRecord(
        d.ref, d.ns, d.name, d.kind, d.arity, d.variadic, tuple(d.params), d.doc, d.visibility,
        d.declared_effect, effect, frozenset(requires), frozenset(tools), d.signature,
        d.signature_text, d.type, d.type_text, d.arglists)


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
    lib.load()  # before anything is analyzed or cached (see the module docstring)
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
