"""Signatures and docs of everything a name can refer to, as completion, hover and signature help
show them.

`Info` is one description: a label (the name as written), a kind, the signatures (call forms such
as "(map f coll)"), a doc and where it is defined. Builtins come from the registry, special forms
from `SPECIAL_FORMS` below (a short line each, for the forms the analyzer handles), the file's own
definitions from their `defn`/`def` forms, prelude exports from their export records, data names
with their shape rendered as the agent prompt renders a type (`render_type`, the Python twin of
`agent.prompt`'s render-type; a test compares the two) and tools from the context.
Imports the registry, the analyzer's special-form table, forms and the context.
"""
from __future__ import annotations

import attrs

from ..registry import builtins as R
from ..reader.forms import List, Lit, Sym
from .context import Context, DataInfo, ToolInfo
from .source import fn_parts

#: special form -> (call form, what it does): our own summary, one line each
SPECIAL_FORMS = {
    "def": ("(def name doc? value)", "Bind name to value for the rest of the program and later evaluations."),
    "defonce": ("(defonce name value)", "Like def, but only when name is not bound yet."),
    "defn": ("(defn name doc? [params] body...) | (defn name doc? ([params] body...) ...)",
             "Define a named function, with one or several arities."),
    "defn-": ("(defn- name doc? [params] body...)", "A private helper of a prelude namespace (prelude source only)."),
    "declare": ("(declare name...)", "Name definitions that come later in the program."),
    "ns": ("(ns name doc? meta?)", "Start a prelude namespace (prelude source only)."),
    "fn": ("(fn name? [params] body...)", "An anonymous function (several arities as ([params] body...) ...); "
                                          "#(... % ...) is the short form."),
    "letfn": ("(letfn [(name [params] body...) ...] body...)", "Local functions that may call each other."),
    "require": ("(require '[clojure.string :as str] ...)", "Alias a builtin namespace for the rest of the program."),
    "let": ("(let [pattern value ...] body...)", "Sequential local bindings, with destructuring."),
    "loop": ("(loop [name init ...] body...)", "A loop whose body continues with (recur new-values...)."),
    "recur": ("(recur value...)", "Jump back to the enclosing loop or fn with new values (tail position only)."),
    "if": ("(if test then else?)", "then when test is truthy, else otherwise (nil without else)."),
    "if-not": ("(if-not test then else?)", "then when test is falsy, else otherwise."),
    "when": ("(when test body...)", "The body when test is truthy, else nil."),
    "when-not": ("(when-not test body...)", "The body when test is falsy, else nil."),
    "if-let": ("(if-let [name test] then else?)", "Bind test's value; then when it is truthy, else otherwise."),
    "when-let": ("(when-let [name test] body...)", "Bind test's value and run the body when it is truthy."),
    "if-some": ("(if-some [name test] then else?)", "Like if-let, testing for non-nil."),
    "when-some": ("(when-some [name test] body...)", "Like when-let, testing for non-nil."),
    "when-first": ("(when-first [name coll] body...)", "Bind the first item of a non-empty coll and run the body."),
    "cond": ("(cond test expr ... :else expr)", "The expr of the first truthy test."),
    "case": ("(case value const expr ... default?)", "The expr whose constant (or list of constants) equals value."),
    "condp": ("(condp pred value test expr ... default?)", "The expr of the first test for which (pred test value)."),
    "do": ("(do expr...)", "Evaluate in order; the value of the last."),
    "and": ("(and expr...)", "The first falsy value, or the last value."),
    "or": ("(or expr...)", "The first truthy value, or the last value."),
    "comment": ("(comment ...)", "Ignored; the value is nil."),
    "quote": ("(quote form)", "The form itself, unevaluated: a symbol reference or constant data ('name, '(1 2))."),
    "return": ("(return value)", "End the program at once with value (an agent task is done)."),
    "fail": ("(fail value)", "End the program as a failure carrying value."),
    "juxt": ("(juxt f...)", "A function returning the vector of each f applied to its arguments."),
    "program": ("(program form...)", "The forms as a program value, unevaluated."),
    "for": ("(for [x coll :when test :let [...] :while test ...] body)", "A vector of body for every binding."),
    "doseq": ("(doseq [x coll ...] body...)", "Run the body for every binding (for effects); nil."),
    "->": ("(-> x form...)", "Thread x through the forms as their first argument."),
    "->>": ("(->> x form...)", "Thread x through the forms as their last argument."),
    "as->": ("(as-> x name form...)", "Thread x through the forms, bound to name in each."),
    "cond->": ("(cond-> x test form ...)", "Thread x (first argument) through each form whose test is truthy."),
    "cond->>": ("(cond->> x test form ...)", "Thread x (last argument) through each form whose test is truthy."),
    "some->": ("(some-> x form...)", "Thread x as first argument while the value is not nil."),
    "some->>": ("(some->> x form...)", "Thread x as last argument while the value is not nil."),
}
#: forms the analyzer knows only to refuse them (with its reason) in programs
NOT_AVAILABLE = frozenset({"defmacro", "try", "catch", "throw", "binding"})


@attrs.define
class Info:
    label: str
    kind: str                       # builtin | special | function | value | local | export | data | tool
    signatures: tuple = ()
    doc: str | None = None
    detail: str | None = None       # one line shown beside the label (a type, a mission)
    path: str | None = None         # where it is defined
    span: object = None             # its Span in that file (None: the file's start)
    line: int | None = None         # or a 0-based line

    def markdown(self) -> str:
        parts = []
        if self.signatures:
            parts.append("```clojure\n" + "\n".join(self.signatures) + "\n```")
        elif self.detail:
            parts.append(f"`{self.label}` {self.detail}")
        if self.signatures and self.detail:
            parts.append(self.detail)
        if self.doc:
            parts.append(self.doc)
        return "\n\n".join(parts) or f"`{self.label}`"

    def short_doc(self) -> str | None:
        if not self.doc:
            return None
        first = self.doc.strip().split("\n\n")[0]
        return " ".join(first.split())


def builtin(name: str, spec: R.Builtin | None = None) -> Info | None:
    spec = spec or R.BUILTINS.get(name)
    if spec is None:
        return None
    return Info(name, "builtin", tuple(spec.signatures), spec.doc, detail=f"{spec.category} builtin")


def special(name: str) -> Info | None:
    if name not in SPECIAL_FORMS:
        return None
    sig, doc = SPECIAL_FORMS[name]
    return Info(name, "special", (sig,), doc, detail="special form")


def definition(form: List, path: str | None) -> Info | None:
    """A top-level `defn`/`def` of the file."""
    items = form.items
    if len(items) < 2 or type(items[0]) is not Sym or type(items[1]) is not Sym:
        return None
    head, name = items[0].name, items[1]
    if head in ("defn", "defn-"):
        _, doc, params, _ = fn_parts(form)
        sig = f"({name.name}{' ' + _params_text(params) if params is not None and params.items else ''})"
        return Info(name.name, "function", (sig,), doc, detail="defined in this file", path=path, span=name.span)
    doc = items[2].value if len(items) > 3 and type(items[2]) is Lit and type(items[2].value) is str else None
    value = items[-1]
    if type(value) is List and value.items and type(value.items[0]) is Sym and value.items[0].name == "fn":
        params = fn_parts(value)[2]
        if params is not None:
            sig = f"({name.name}{' ' + _params_text(params) if params.items else ''})"
            return Info(name.name, "function", (sig,), doc, detail="defined in this file", path=path,
                        span=name.span)
    return Info(name.name, "value", (), doc, detail="defined in this file", path=path, span=name.span)


def _params_text(params) -> str:
    return " ".join(repr(p) for p in params.items)


def local(sym: Sym, path: str | None) -> Info:
    return Info(sym.name, "local", (), None, detail="local binding", path=path, span=sym.span)


def export(ex, compiled) -> Info:
    """A prelude export (`ptclisp.prelude.Export`) and where its definition is."""
    rec = ex.record
    sigs = () if rec.kind == "constant" else (rec.call_text(),)
    detail = rec.signature_text or rec.type_text
    detail = f"{rec.namespace} prelude" + (f": {detail}" if detail else "")
    d = compiled.defs.get(rec.symbol) if compiled is not None else None
    from .context import library_path
    return Info(rec.ref, "export", sigs, rec.doc, detail=detail, path=library_path(compiled.origin) if compiled
                else None, span=d.form.span if d is not None else None)


def data(info: DataInfo, mission: str | None) -> Info:
    if info.shape is not None:
        detail = f"Type: {render_type(info.shape)}"
    else:
        detail = info.error or "mission data"
    return Info(f"data/{info.name}", "data", (), f"Mission data of mission {mission!r} ({info.path}).",
                detail=detail, path=info.path, line=0)


def tool(info: ToolInfo, mission: str | None) -> Info:
    sigs = (f"(tool/{info.name} {{...}})",)
    detail = f"Python tool {info.signature}" if info.signature else f"{info.kind} tool of mission {mission!r}"
    return Info(f"tool/{info.name}", "tool", sigs, info.description, detail=detail, path=info.path,
                line=info.line)


def mcp_tool(name: str, mission: str | None) -> Info:
    server = name.partition(".")[0]
    return Info(f"tool/{name}", "tool", (f"(tool/{name} {{...}})",),
                f"A tool of MCP server {server!r}, granted to mission {mission!r}. The language server does "
                f"not start MCP servers, so it does not know this server's tools.", detail="MCP tool")


# ------------------------------------------------------------------ types as the prompt writes them

_BASE = {"string": ":string", "integer": ":int", "number": ":float", "boolean": ":bool", "keyword": ":keyword",
         "datetime": ":datetime", "nil": "nil", "any": ":any"}


def render_type(t) -> str:
    """A type node in the agent prompt's notation: `[{id :int, region :string, note? :string?}]`."""
    if not isinstance(t, dict):
        return ":any?"
    kind = t.get("kind")
    if kind == "array":
        base = "[" + render_type(t.get("items")) + "]"
    elif kind == "object":
        fields = t.get("fields") or []
        base = "{" + ", ".join(f"{f.get('name')}{'' if f.get('required') is True else '?'} "
                               f"{render_type(f.get('type'))}" for f in fields) + "}" if fields else "{}"
    else:
        base = _BASE.get(kind, ":any")
    return base + "?" if t.get("nullable") is True and kind != "nil" else base


def context_names(ctx: Context) -> list[Info]:
    """The project names a file in `ctx` may use: data/ and tool/."""
    out = [data(d, ctx.mission) for d in (ctx.data or {}).values()]
    out += [tool(t, ctx.mission) for t in (ctx.tools or {}).values()]
    for server in ctx.mcp_servers:
        out.append(Info(f"tool/{server}.", "tool", (f"(tool/{server}.NAME {{...}})",),
                        f"A tool of MCP server {server!r} (its list is not read: servers are not started).",
                        detail="MCP server"))
    return out


def exports(ctx: Context) -> list[Info]:
    from ..tooling.check import exports_of
    out = []
    for ns, table in exports_of(ctx.compiled).items():
        compiled = ctx.compiled.get(ns)
        for ex in table.values():
            out.append(export(ex, compiled))
    return out
