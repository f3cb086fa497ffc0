"""Resolution of calls and qualified names (docs/spec/runtime.md §4.5-4.6).

Owns: direct builtin calls (static arity, analyzer-intercepted builtins,
inlined primitives), `tool/`, `data/`, Java members, prelude exports,
compatibility namespaces (`clojure.string/`, `json/`, ...) and the errors for
unknown namespaces and members.
"""
from __future__ import annotations

from ..registry import java as J
from ..errors import PtcError
from ..reader.forms import List, Lit, Quote, Sym
from ..registry import builtins as R
from ..values import Keyword, SymbolRef
from . import nodes as N
from .base import NOT_TAIL, err

AUTO_QUOTE = {"doc", "source", "export-meta", "dir"}
# the builtins `builtin_call_node` treats specially (`builtin_call` takes a shorter path for the rest)
_CHECKED_CALLS = frozenset(AUTO_QUOTE | {"apply", "pmap", "take"})
COMPAT_GROUP_LABEL = {"string": "String", "set": "Set", "walk": "Walk", "regex": "Regex", "core": "Core", "json": "JSON"}


def _arity_check(spec: R.Builtin, n: int, form):
    if not spec.accepts(n):
        raise err("arity_error", f"{spec.name} called with {n} argument{'s' if n != 1 else ''} "
                                 f"(expects {spec.arity_text()})", form)


def builtin_call(az, head: Sym, rest: list, scope, form: List):
    """A call whose head is a plain symbol that is not local or user-defined; None if not a builtin."""
    name = head.name
    spec = R.BUILTINS.get(name)
    if spec is not None and name not in _CHECKED_CALLS and name[0] != "." and name[-1] != ".":
        # the common case, as `builtin_call_node` does it for a name none of its special cases names
        args = az.args(rest, scope)
        n = len(args)
        if n < spec.min_arity or (spec.max_arity is not None and n > spec.max_arity):
            _arity_check(spec, n, form)
        prim = spec.prim
        if prim is not None and n == R.PRIMITIVES[prim].arity:
            return N.Prim(prim, args, form.span)
        return N.BuiltinCall(name if spec.plain else spec.call_name, args, form.span)
    if name.startswith(".") and len(name) > 1:
        return java_method_node(az, head, [az.analyze(f, scope, NOT_TAIL) for f in rest], form)
    if name.endswith(".") and len(name) > 1:
        return java_ctor_node(az, head, [az.analyze(f, scope, NOT_TAIL) for f in rest], form)
    spec = R.BUILTINS.get(name)
    if spec is None:
        return None
    return builtin_call_node(az, spec, rest, scope, form)


def builtin_call_node(az, spec: R.Builtin, rest: list, scope, form: List):
    name = spec.name
    n = len(rest)
    if name == "apply" and n < 2:
        raise err("invalid_arity", "apply needs a function and at least one argument: (apply f args)", form)
    if name == "pmap" and n < 2:
        raise err("invalid_arity", "pmap needs a function and at least one collection", form)
    if name in AUTO_QUOTE and n == 1 and type(rest[0]) is Sym:
        args = [N.Const(SymbolRef(rest[0].ns, rest[0].name), rest[0].span)]
    else:
        args = [az.analyze(f, scope, NOT_TAIL) for f in rest]
    _arity_check(spec, n, form)
    if name == "take" and n == 2 and _is_builtin_range(az, rest[1], scope):
        # (take n (range a b step)): a zero step is allowed only under take (docs/spec/functions.md §1.16)
        return N.RtCall("take_range", [args[0]] + args[1].args, form.span)
    if spec.prim is not None and n == R.PRIMITIVES[spec.prim].arity:   # an operation the back ends inline
        return N.Prim(spec.prim, args, form.span)
    return N.BuiltinCall(global_name(spec), args, form.span)


def global_name(spec: R.Builtin) -> str:
    """The runtime-table name of a builtin: its plain name, or group/name when only reachable qualified."""
    return spec.call_name


def _is_builtin_range(az, f, scope) -> bool:
    return (type(f) is List and len(f.items) == 4 and type(f.items[0]) is Sym and f.items[0].ns is None
            and f.items[0].name == "range" and scope.get("range") is None
            and "range" not in az.program_defs and "range" not in az.env.user_names)


# ------------------------------------------------------------------ qualified names

def qualified_call(az, head: Sym, rest: list, scope, form: List):
    ns, name = head.ns, head.name
    if ns == "tool":
        return tool_call(az, head, rest, scope, form)
    if ns == "data":
        raise err("not_callable", f"data/{name} is a data value, not a function; use it without parentheses", form)
    if ns == "java.util" and name == "Date.":
        return java_ctor_node(az, Sym(None, "java.util.Date.", head.span), [az.analyze(f, scope, NOT_TAIL) for f in rest], form)
    if J.is_java_class_spelling(ns):
        member = _java_lookup(J.java_static, head, ns, name)
        args = [az.analyze(f, scope, NOT_TAIL) for f in rest]
        if member.fn is None:
            raise err("java_arity_error", f"{ns}/{name} is a constant, not a function; use it without parentheses",
                      form)
        _java_arity(member, len(args), f"{ns}/{name}", form)
        key = f"java:{J.JAVA_CLASS_ALIASES.get(ns, ns)}/{name}"
        return N.Call(az.host_ref(key, member.fn, head.span), args, form.span)
    export = _prelude_export(az, ns, name, head)
    if export is not None:
        return export.call_node(az, [az.analyze(f, scope, NOT_TAIL) for f in rest], form)
    spec = R.lookup_qualified(ns, name)
    if spec is not None:
        return builtin_call_node(az, spec, rest, scope, form)
    raise _unknown_member(az, ns, name, head)


def resolve_qualified(az, sym: Sym) -> N.Node:
    ns, name = sym.ns, sym.name
    if ns == "tool":
        _check_tool(az, name, sym)
        return N.ToolRef(name, sym.span)
    if ns == "data":
        az.data_used.add(name)
        return N.DataRef(name, sym.span)
    if ns == "java.util" and name == "Date.":
        return java_ctor_node(az, Sym(None, "java.util.Date.", sym.span), None)
    if J.is_java_class_spelling(ns):
        member = _java_lookup(J.java_static, sym, ns, name)
        if member.fn is None:
            return N.Const(member.value, sym.span)
        key = f"java:{J.JAVA_CLASS_ALIASES.get(ns, ns)}/{name}"
        return az.host_ref(key, member.fn, sym.span)
    export = _prelude_export(az, ns, name, sym)
    if export is not None:
        return export.ref_node(az, sym)
    spec = R.lookup_qualified(ns, name)
    if spec is not None:
        return N.BuiltinRef(global_name(spec), sym.span)
    raise _unknown_member(az, ns, name, sym)


def _prelude_export(az, ns, name, sym):
    exports = az.env.preludes.get(ns)
    if exports is None:
        return None
    ex = exports.get(name)
    if ex is None:
        raise err("invalid_form", f"{ns}/{name} is not a public export of namespace {ns}.", sym)
    return ex


def _unknown_member(az, ns, name, sym) -> PtcError:
    group = R.QUALIFIERS.get(ns)
    if group is not None:
        members = R.members_of(ns)
        label = COMPAT_GROUP_LABEL.get(group, group)
        shown = ", ".join(members[:60])
        return err("invalid_form", f"{name} is not available. {label} functions: {shown}", sym)
    if ns.startswith("java.") or (ns[:1].isupper() and "." not in ns):
        return err("unsupported_java_class", f"{ns} is not an admitted Java class", sym)
    available = sorted(set(R.QUALIFIERS) | {"tool", "data"} | set(az.env.preludes))
    return err("invalid_form", f"unknown namespace {ns} in {ns}/{name}", sym,
               kind="unknown_namespace", rejected_namespace=ns, available_namespaces=available)


def _java_lookup(lookup, sym: Sym, *names):
    """`lookup(*names)` (a Java member table lookup); a rejection points at the symbol that named it."""
    try:
        return lookup(*names)
    except PtcError as e:
        raise e.located(sym.span) from None


def _java_arity(member, n, label, form):
    if n < member.min_arity or (member.max_arity is not None and n > member.max_arity):
        want = member.min_arity if member.max_arity == member.min_arity else \
            f"{member.min_arity}{'+' if member.max_arity is None else '-' + str(member.max_arity)}"
        raise err("java_arity_error", f"{label} called with {n} arguments (expects {want})", form)


def java_method_node(az, sym: Sym, args, form=None):
    mname = sym.name[1:]
    member = _java_lookup(J.java_method, sym, mname)
    if args is None:
        return az.host_ref(f"jm:{mname}", member.fn, sym.span)
    _java_arity(member, len(args), sym.name, form)
    return N.Call(az.host_ref(f"jm:{mname}", member.fn, sym.span), args, form.span)


def java_ctor_node(az, sym: Sym, args, form=None):
    member = _java_lookup(J.java_constructor, sym, sym.name)
    if args is None:
        return az.host_ref(f"jc:{sym.name}", member.fn, sym.span)
    _java_arity(member, len(args), sym.name, form)
    return N.Call(az.host_ref(f"jc:{sym.name}", member.fn, sym.span), args, form.span)


# ------------------------------------------------------------------ tools

def _check_tool(az, name, sym):
    tools = az.env.tools
    private = getattr(tools, "private", ())
    if tools is not None and name not in tools:
        public = sorted(set(tools) - set(private))
        raise err("unknown_tool", f"tool/{name} is not available. Available tools: "
                                  f"{', '.join(public) if public else '(none)'}", sym, tool=name)
    if name in private and az.env.own_namespace is None:
        raise err("private_tool_unauthorized", f"tool/{name} can only be used by prelude functions", sym, tool=name)
    az.tools_used.add(name)


def tool_call(az, head: Sym, rest: list, scope, form: List):
    _check_tool(az, head.name, head)
    n = len(rest)
    if n == 0:
        args = []
    elif n == 1:
        if type(rest[0]) is Quote and head.name == "call":
            args = [az.analyze(rest[0], scope, NOT_TAIL)]
        elif type(rest[0]) in (Lit,) and type(rest[0].value) is not Keyword and rest[0].value is not None:
            raise err("invalid_tool_args", f"Tool calls require named arguments: (tool/{head.name} {{:key value}}) "
                                           f"or (tool/{head.name} :key value)", form)
        else:
            args = [az.analyze(rest[0], scope, NOT_TAIL)]
    elif head.name == "call" and n == 2 and type(rest[0]) is Quote:
        args = [az.analyze(f, scope, NOT_TAIL) for f in rest]
    else:
        if n % 2:
            raise err("invalid_tool_args", f"Tool calls require named arguments: (tool/{head.name} :key value ...) "
                                           f"needs an even number of forms, got {n}", form)
        args = [az.analyze(f, scope, NOT_TAIL) for f in rest]
    return N.ToolCall(head.name, args, form.span)
