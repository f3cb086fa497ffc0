"""Discovery builtins: doc, dir, apropos, source, export-meta (docs/spec/functions.md §9, docs/spec/runtime.md §14).

They answer from two places: the public exports of the preludes attached to
the running session (found through `current().env`) and the fixed builtin
registry (plus the admitted Java members). Private prelude helpers are never
listed; `source` alone may show one when a public export reaches it. A miss
is never an error: `doc`/`source` print a line saying nothing was found,
`dir` of an unknown namespace gives `[]`, `export-meta` gives nil. `doc` and
`source` write to the evaluation's printed output and return nil. `doc` also
describes a granted (non-private) tool named exactly, but nothing here
enumerates `data/` keys or tools.

Imports values, errors, meter, the builtin registry and the Java-interop table.
"""
from __future__ import annotations

from ..registry import java as J
from ..errors import PtcError
from ..runtime.meter import current
from ..values import Keyword, Map, SymbolRef, Vector, type_name
from ..registry.builtins import BUILTINS, QUALIFIED, QUALIFIERS, builtin, lookup_qualified


def _env():
    return current().env


def _need_name(x, who: str) -> str:
    """The name an introspection form was asked about: a string or a (quoted) symbol."""
    if type(x) is str:
        return x.strip()
    if type(x) is SymbolRef:
        return x.full
    if type(x) is Keyword:
        return x.name
    raise PtcError("type_error", f"{who}: expected a name as a string or quoted symbol, got {type_name(x)}")


def _split(name: str):
    i = name.find("/")
    if 0 < i < len(name) - 1:
        return name[:i], name[i + 1:]
    return None, name


def _tables():
    env = _env()
    return env.preludes if env is not None else {}


def _export(ns: str, name: str):
    table = _tables().get(ns)
    return table.get(name) if table is not None else None


def _java_member(ns: str | None, name: str):
    try:
        if ns is None:
            if name.startswith(".") and len(name) > 1:
                return J.java_method(name)
            if name.endswith(".") and len(name) > 1:
                return J.java_constructor(name)
            return None
        if J.is_java_class_spelling(ns):
            return J.java_static(ns, name)
    except PtcError:
        return None
    return None


# ------------------------------------------------------------------ text

def _export_doc_lines(ex) -> list[str]:
    rec = ex.record
    lines = [rec.call_text()]
    if rec.signature_text:
        lines.append(f"  contract: {rec.signature_text}")
    if rec.type_text:
        lines.append(f"  type: {rec.type_text}")
    lines.append(f"  effect: {ex.effect}")
    if rec.doc:
        lines.extend("  " + ln for ln in rec.doc.splitlines())
    return lines


def _builtin_doc_lines(spec, spelling: str) -> list[str]:
    lines = list(spec.signatures) or [f"({spelling} ...)"]
    if spec.doc:
        lines.extend("  " + ln for ln in spec.doc.splitlines())
    return lines


def _java_doc_lines(member) -> list[str]:
    lines = [member.signature or member.name]
    if member.doc:
        lines.extend("  " + ln for ln in member.doc.splitlines())
    return lines


def _kw_key(name: str) -> str:
    """How an argument key is written in a call: a keyword when the name allows, else a string."""
    if name and all(c.isalnum() or c in "+-*<>=?!_" for c in name) and name.isascii():
        return ":" + name
    return '"' + name.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _schema_type(schema) -> str:
    if not isinstance(schema, dict):
        return "any"
    t = schema.get("type")
    if isinstance(t, list):
        return " | ".join(str(x) for x in t)
    if t == "array" and isinstance(schema.get("items"), dict):
        return f"array of {_schema_type(schema['items'])}"
    if t is None and "enum" in schema and isinstance(schema["enum"], list):
        return "one of " + ", ".join(repr(v) if isinstance(v, str) else str(v) for v in schema["enum"][:8])
    return str(t) if t is not None else "any"


def _tool_doc_lines(tool) -> list[str]:
    """The call form, contract, argument summary, effect and description of a granted tool."""
    sig = getattr(tool, "_signature", None)
    schema = tool.input_schema if isinstance(tool.input_schema, dict) else None
    props = schema.get("properties") if schema and isinstance(schema.get("properties"), dict) else {}
    required = [r for r in (schema or {}).get("required") or () if isinstance(r, str)]
    if sig is not None and sig.params:
        names = [n for n, _ in sig.params]
    else:
        names = [r for r in props if r in required] + [r for r in required if r not in props] + \
                [r for r in props if r not in required]
    args = " ".join(f"{_kw_key(n)} {n}" for n in names)
    lines = [f"(tool/{tool.name} {{{args}}})" if names else f"(tool/{tool.name} {{...}})"]
    if sig is not None:
        lines.append(f"  contract: {sig.text()}")
    if props or required:
        lines.append("  arguments:")
        for n in names:
            p = props.get(n)
            line = f"    {n}{' (required)' if n in required else ''}: {_schema_type(p)}"
            desc = p.get("description") if isinstance(p, dict) else None
            if isinstance(desc, str) and desc.strip():
                line += " - " + " ".join(desc.split())
            lines.append(line)
    lines.append(f"  effect: {tool.effect}")
    if tool.description:
        lines.extend("  " + ln for ln in tool.description.strip().splitlines())
    return lines


def _granted_tool(name: str):
    """The granted, non-private tool `name` of the running session, or None."""
    env = _env()
    tools = getattr(env, "tools", None) if env is not None else None
    tool = tools.get(name) if tools is not None else None
    return None if tool is None or tool.private else tool


def _doc_lines(name: str) -> list[str] | None:
    ns, short = _split(name)
    if ns == "tool":
        tool = _granted_tool(short)
        return _tool_doc_lines(tool) if tool is not None else None
    if ns is not None and ns in _tables():
        ex = _export(ns, short)
        # an attached namespace answers for its own spellings: no fall-through to the registry
        return _export_doc_lines(ex) if ex is not None else None
    if ns is None:
        spec = BUILTINS.get(short)
        if spec is not None:
            return _builtin_doc_lines(spec, short)
    else:
        spec = lookup_qualified(ns, short)
        if spec is not None:
            return _builtin_doc_lines(spec, name)
    member = _java_member(ns, short)
    if member is not None:
        return _java_doc_lines(member)
    return None


@builtin("doc", "(doc name)", category="introspection", effect="print")
def doc(name):
    """Print the documentation of a builtin, an attached prelude export or a granted tool: its call form, its
    contract and effect for exports, the arguments, effect and description of a tool, and its description. The
    name may be a bare or qualified symbol (it is not evaluated) or a string. Returns nil; prints a not-found
    line for unknown names.

    (doc map) ;=> nil, prints the signature and description of map
    (doc "crm/get-user") ;=> nil
    (doc tool/search) ;=> nil, prints the tool's call form
    """
    text = _need_name(name, "doc")
    lines = _doc_lines(text) if text else None
    if lines is None:
        current().print_line(f"No documentation found for {text or '(blank)'}")
    else:
        current().print_line("\n".join(lines))
    return None


@builtin("source", "(source name)", category="introspection", effect="print")
def source(name):
    """Print the source text of an attached prelude definition: a public export, or a private helper that some
    public export uses; in the REPL also of your own definitions. Builtins have no source to show. Returns nil.

    (source crm/get-user) ;=> nil, prints the defn form
    """
    text = _need_name(name, "source")
    ns, short = _split(text)
    body = None
    table = _tables().get(ns) if ns is not None else None
    inst = getattr(table, "instance", None)
    if inst is not None:
        c = inst.compiled
        d = c.defs.get(short)
        if d is not None and (short in c.records or short in c.reachable):
            body = d.text
    elif ns is None:   # a definition of the session's own, whose text its host kept (the REPL does)
        env = _env()
        if env is not None and short in env.ns:
            body = getattr(env, "sources", {}).get(short)
    current().print_line(body if body else f"No source available for {text or '(blank)'}")
    return None


@builtin("dir", "(dir)", "(dir ns)", category="introspection")
def dir_(ns=None):
    """Without an argument: the sorted names of the attached prelude namespaces that have public exports; when
    no prelude is attached, the builtins instead, as a map from category ("maps", "strings", ..., "java" for the
    admitted Java members) to the sorted names in it. With a namespace (symbol or string): the sorted refs
    ("ns/name") of its public exports. Unknown namespaces give [].

    (dir) ;=> ["crm"]
    (dir crm) ;=> ["crm/get-user"]
    (dir "nosuch") ;=> []
    (get (dir) "sets") ;=> ["difference" "disj" ...] when no prelude is attached
    """
    tables = _tables()
    if ns is None:
        names = sorted(n for n, t in tables.items() if len(t))
        return Vector(names) if names else _builtin_groups()
    name = _need_name(ns, "dir")
    table = tables.get(name)
    if not table:
        return Vector([])
    return Vector(sorted(ex.record.ref for ex in table.values()))


def _registry_entries():
    """(canonical name, category, other searchable text) for every builtin and admitted Java member."""
    for name, spec in BUILTINS.items():
        yield name, spec.category, " ".join((*spec.signatures, spec.doc or "", spec.category or ""))
    for (group, name), spec in QUALIFIED.items():
        if not spec.plain:
            q = next((k for k, g in QUALIFIERS.items() if g == group and "." not in k), group)
            yield f"{q}/{name}", spec.category, " ".join((*spec.signatures, spec.doc or "", spec.category or ""))
    for m in J.all_members():
        yield m.name, "java", " ".join((m.signature or "", m.doc or "", m.java_class or ""))


def _builtin_groups() -> Map:
    """Every builtin and admitted Java member, as category -> sorted vector of canonical names."""
    groups: dict[str, set] = {}
    for canon, category, _ in _registry_entries():
        groups.setdefault(category or "core", set()).add(canon)
    current().alloc(64 * len(groups) + sum(16 + 8 * len(v) for v in groups.values()))
    return Map.from_pairs((c, Vector(sorted(names))) for c, names in sorted(groups.items()))


@builtin("apropos", "(apropos query)", category="introspection")
def apropos(query):
    """Search builtin names, signatures and descriptions, and the refs and docstrings of attached prelude
    exports, for a case-insensitive substring. Returns the matching names without repeats: first, sorted, those
    whose name contains the query; then, sorted, those that match only in their signature or description. A
    blank query gives []. The query is a string or a quoted symbol.

    (apropos "upper") ;=> ["upper-case" "upcase" ...]
    (apropos "") ;=> []
    """
    if type(query) not in (str, SymbolRef, Keyword):
        raise PtcError("type_error", f"apropos: expected a string or quoted symbol, got {type_name(query)}")
    q = _need_name(query, "apropos").lower()
    if not q:
        return Vector([])
    by_name, by_text = set(), set()
    for table in _tables().values():
        for ex in table.values():
            rec = ex.record
            if q in rec.ref.lower():
                by_name.add(rec.ref)
            elif rec.doc and q in rec.doc.lower():
                by_text.add(rec.ref)
    for canon, _, text in _registry_entries():
        if q in canon.lower():
            by_name.add(canon)
        elif q in text.lower():
            by_text.add(canon)
    hits = sorted(by_name) + sorted(by_text - by_name)
    current().alloc(64 + 8 * len(hits))
    return Vector(hits)


def _k(name: str) -> Keyword:
    return Keyword(name)


@builtin("export-meta", "(export-meta ref)", category="introspection")
def export_meta(ref):
    """The description of an attached public prelude export as a map: :ref :namespace :symbol :kind (:function
    or :constant) :call :doc :visibility :effect, plus :arity and :params for functions and :signature or :type
    when a contract is declared. Unknown refs give nil.

    (export-meta crm/get-user) ;=> {:ref "crm/get-user" :kind :function ...}
    """
    ns, short = _split(_need_name(ref, "export-meta"))
    if ns is None:
        return None
    ex = _export(ns, short)
    if ex is None:
        return None
    rec = ex.record
    m = {
        _k("ref"): rec.ref, _k("namespace"): rec.namespace, _k("symbol"): rec.symbol,
        _k("kind"): _k(rec.kind), _k("call"): rec.call_text(), _k("doc"): rec.doc,
        _k("visibility"): _k(rec.visibility), _k("effect"): _k(ex.effect),
    }
    if rec.kind == "function":
        m[_k("arity")] = _k("variadic") if rec.variadic else rec.arity
        if rec.variadic:
            m[_k("min-arity")] = rec.arity
        m[_k("params")] = Vector(list(rec.params))
        if rec.signature_text:
            m[_k("signature")] = rec.signature_text
    elif rec.type_text:
        m[_k("type")] = rec.type_text
    return Map.from_pairs(m.items())
