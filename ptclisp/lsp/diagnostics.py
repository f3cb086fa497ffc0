"""The diagnostics of one document: what `ptclisp check` reports, and what a project adds.

`diagnose(text, ctx, path)` reads the text (a reader error is the one diagnostic: nothing else
can be said of a text that does not read), then analyzes every top-level form on its own against
the names the file defines, the preludes' exports and the mission's tools, as `check` does. An
unbound symbol or unknown tool does not hide the rest of its form: the form is analyzed again
with that name taken as known, so each one is reported (its first use). Calls of the file's own
functions are checked against their parameter vectors (the analyzer's call nodes, so a local of
the same name is never mistaken for the function), and in a project every `data/NAME` against
the mission's data. A prelude file (one starting with `ns`) is checked as a prelude, with the
other preludes of its mission. Imports the reader, the analyzer, the builtin library (loaded
here: a fresh process must know its builtins), the checks of ptclisp.tooling and the context.
"""
from __future__ import annotations

import difflib

import attrs

from .. import lib
from ..analyzer import Env
from ..pipeline import analyzer, defined_names
from ..analyzer import nodes as N
from ..errors import PtcError, Span
from ..reader.forms import List, Lit, Sym, VecForm
from ..reader.parser import BOM, read, strip_bom
from ..tooling.check import check_preludes, exports_of, is_prelude_source
from .context import Context, McpTools
from .source import DEF_HEADS, end_of, fn_parts, start_of

#: analyses of one form at most (each unbound name or unknown tool found costs one more)
MAX_PASSES = 16


@attrs.frozen
class Diag:
    """One finding: 0-based start and end (line, col), our error kind and message."""

    start: tuple
    end: tuple
    kind: str
    message: str
    severity: str = "error"


def _diag(kind: str, message: str, span: Span | None, bom: bool) -> Diag:
    if span is None:
        return Diag((0, 0), (0, 1), kind, message)
    s, e = start_of(span), end_of(span)
    if bom:
        s = (s[0], s[1] + (s[0] == 0))
        e = (e[0], e[1] + (e[0] == 0))
    return Diag(s, e, kind, message)


def diagnose(text: str, ctx: Context, path: str | None = None) -> list[Diag]:
    """Every diagnostic of document `text` (at `path`) in context `ctx`, in source order."""
    lib.load()   # the analyzer resolves names against the registered builtins
    bom = text.startswith(BOM)
    body = strip_bom(text)
    out: list[Diag] = []
    if ctx.problem:
        out.append(Diag((0, 0), (0, 1), "invalid_project", ctx.problem))
    try:
        forms = read(body)
    except PtcError as exc:
        return out + [_diag(exc.kind, exc.message, exc.span, bom)]
    if is_prelude_source(body):
        out += [_diag(p.kind, p.message, p.span, bom) for p in _prelude_problems(body, ctx, path)]
        out += _prelude_arity(body, ctx, bom)
        out.sort(key=lambda d: (d.start, d.end))
        return out
    out += _program(forms, ctx, bom)
    out += _data_names(forms, ctx, bom)
    out.sort(key=lambda d: (d.start, d.end))
    return out


def _prelude_problems(text: str, ctx: Context, path: str | None):
    import os
    me = os.path.abspath(path) if path else "<prelude>"
    texts = [(me, text)] + [(p, t) for p, t in ctx.prelude_texts.items() if p != me]
    attached = {n: c for n, c in ctx.compiled.items() if c.origin not in {t[0] for t in texts}}
    problems, _ = check_preludes(texts, attached)
    return problems[0]


def _prelude_arity(text: str, ctx: Context, bom: bool) -> list[Diag]:
    """Calls of a prelude's own functions with the wrong number of arguments (the prelude compiler
    does not check them: a sibling is called like any global). Each definition is analyzed as the
    compiler analyzes it; one that does not analyze was reported already."""
    from ..analyzer.base import NOT_TAIL, Scope
    from ..analyzer.bindings import analyze_fn_tail
    from ..prelude import Component, PreludeError, parse_component
    try:
        specs = parse_component(Component(text, "<prelude>"))
    except (PreludeError, RecursionError):
        return []
    exports = exports_of(ctx.compiled)
    out: list[Diag] = []
    for spec in specs:
        arities = {d.name: (d.arity, d.variadic) for d in spec.defs.values() if d.kind == "function"}
        az = analyzer(Env(user_names=spec.defs.keys(), preludes=exports, own_namespace=spec.name))
        for d in spec.defs.values():
            try:
                if d.kind == "function":
                    node = analyze_fn_tail(az, d.name, d.params_form, d.body, Scope(), d.form, d.doc,
                                           bind_self=False)
                else:
                    node = az.analyze(d.value_form, Scope(), NOT_TAIL)
            except (PtcError, RecursionError):
                continue
            out += _arity_problems(node, arities, bom)
    return out


# ------------------------------------------------------------------ programs

def _program(forms, ctx: Context, bom: bool) -> list[Diag]:
    out: list[Diag] = []
    defined = defined_names(forms)
    exports = exports_of(ctx.compiled)
    arities = user_arities(forms)
    tools = ctx.tool_names()
    for form in forms:
        known: set = set()
        granted = set()
        for _ in range(MAX_PASSES):
            ts = tools if tools is None or not granted else McpTools(set(tools.names) | granted, tools.servers)
            env = Env(user_names=defined | known, tools=ts, preludes=exports)
            try:
                node = analyzer(env).analyze_program([form])
            except PtcError as exc:
                out.append(_diag(exc.kind, exc.message, exc.span or form.span, bom))
                names = exc.details.get("unbound_names") or ()
                tool = exc.details.get("tool") if exc.kind == "unknown_tool" else None
                if names and not set(names) & known and all("/" not in n for n in names):
                    known.update(names)
                    continue
                if tool is not None and tool not in granted:
                    granted.add(tool)
                    continue
                break
            except RecursionError:
                out.append(_diag("memory_exceeded", "form nested too deeply to analyze", form.span, bom))
                break
            out += _arity_problems(node, arities, bom)
            break
    return out


def param_arity(params: VecForm) -> tuple[int, bool]:
    """(required parameters, variadic) of a parameter vector."""
    names = params.items
    for i, p in enumerate(names):
        if type(p) is Sym and p.name == "&":
            return i, True
    return len(names), False


def user_arities(forms) -> dict:
    """name -> (required, variadic) of the top-level functions the file defines (a name defined
    twice with different parameters is left out: which one a call meets depends on the order)."""
    out: dict = {}
    clash: set = set()
    for f in forms:
        if type(f) is not List or len(f.items) < 3 or type(f.items[0]) is not Sym or f.items[0].ns:
            continue
        head = f.items[0].name
        if head not in DEF_HEADS or type(f.items[1]) is not Sym:
            continue
        name = f.items[1].name
        params = None
        if head in ("defn", "defn-"):
            params = fn_parts(f)[2]
        else:
            value = f.items[-1]
            if type(value) is List and value.items and type(value.items[0]) is Sym and value.items[0].name == "fn":
                params = fn_parts(value)[2]
        arity = param_arity(params) if params is not None else None
        if name in out and out[name] != arity:
            clash.add(name)
        out[name] = arity
    return {k: v for k, v in out.items() if v is not None and k not in clash}


def _arity_problems(node, arities: dict, bom: bool) -> list[Diag]:
    out = []
    if not arities:
        return out
    for n in N.walk_nodes(node):
        if type(n) is N.Call and type(n.fn) is N.GlobalRef and n.fn.name in arities:
            need, variadic = arities[n.fn.name]
            got = len(n.args)
            if got < need or (got > need and not variadic):
                want = f"at least {need}" if variadic else str(need)
                out.append(_diag("arity_mismatch", f"wrong number of arguments to {n.fn.name}: expects {want}, "
                                                   f"got {got}", n.span, bom))
    return out


def _data_names(forms, ctx: Context, bom: bool) -> list[Diag]:
    """`data/NAME` symbols the mission does not supply (strict data only)."""
    if ctx.data is None or not ctx.strict_data:
        return []
    out = []
    granted = sorted(ctx.data)
    stack = list(forms)
    while stack:
        f = stack.pop()
        t = type(f)
        if t is Sym:
            if f.ns == "data" and f.name not in ctx.data:
                close = difflib.get_close_matches(f.name, granted, n=1, cutoff=0.6)
                hint = f". Did you mean data/{close[0]}?" if close else ""
                out.append(_diag("unknown_data", f"data/{f.name} is not available. Available: "
                                                 f"{', '.join('data/' + g for g in granted) or '(none)'}{hint}",
                                 f.span, bom))
        elif t is not Lit:
            items = getattr(f, "items", None)
            if items is not None:
                stack.extend(items)
    return out
