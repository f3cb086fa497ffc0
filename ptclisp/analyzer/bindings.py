"""Binding forms: def, defonce, defn, fn, #(), let, loop, recur, and destructuring.

Destructuring patterns are lowered to plain `(Local, Node)` bindings that call
small runtime helpers (`ds_seq`, `ds_nth`, `ds_get`, ...), so the compiler
never sees a pattern.
"""
from __future__ import annotations

from ..reader.forms import List, Lit, MapForm, ShortFn, Sym, VecForm
from ..values import Keyword, VarRef
from . import nodes as N
from .base import NOT_TAIL, Scope, Tail, err, special



# ------------------------------------------------------------------ destructuring

def bind_name(form, what="binding") -> str:
    if type(form) is Lit:
        raise err("invalid_form", f"cannot bind {form!r}: nil, true, false and literals are not names", form)
    if type(form) is not Sym:
        raise err("unsupported_pattern", f"unsupported {what} pattern {form!r}", form)
    if form.ns is not None:
        raise err("invalid_form", f"cannot bind a qualified name {form.full}", form)
    if form.name.startswith(".") and len(form.name) > 1:
        raise err("invalid_form", f"cannot bind {form.name}: Java member spellings cannot be bound", form)
    if form.name == "&":
        raise err("invalid_form", "& must be followed by exactly one pattern", form)
    return form.name


def destructure(az, pattern, value: N.Node, scope: Scope, out: list) -> Scope:
    """Append bindings for `pattern` <- `value` to `out`; return the extended scope."""
    t = type(pattern)
    if t is Sym:
        local = N.Local(bind_name(pattern))
        out.append((local, value))
        return scope.bind(local.name, local)
    if t is VecForm:
        return _destructure_vector(az, pattern, value, scope, out)
    if t is MapForm:
        return _destructure_map(az, pattern, value, scope, out)
    bind_name(pattern)
    raise AssertionError  # pragma: no cover


def _temp(value: N.Node, out: list, hint="v") -> N.Local:
    if type(value) is N.LocalRef:
        return value.local
    tmp = N.Local(f"__{hint}")
    out.append((tmp, value))
    return tmp


def _is_kw(form, name: str) -> bool:
    return type(form) is Lit and type(form.value) is Keyword and form.value.name == name


def _is_amp(form) -> bool:
    return type(form) is Sym and form.ns is None and form.name == "&"


def _destructure_vector(az, pattern: VecForm, value, scope, out):
    """`[p0 p1 ... & rest :as whole]`: positions by `nth`, `& rest` the remaining items (nil when
    none), `:as` the value itself; the value may be a vector, a string (its characters) or nil."""
    items = pattern.items
    if any(_is_kw(p, "as") for p in items):
        value = N.LocalRef(_temp(value, out, "vec"))
    src = N.Local("__seq")
    out.append((src, N.RtCall("ds_seq", [value], pattern.span)))
    i = 0
    pos = 0
    seen_rest = False
    while i < len(items):
        p = items[i]
        if _is_kw(p, "as"):
            if i + 1 >= len(items):
                raise err("invalid_form", ":as must be followed by a name: [a b :as all]", p)
            scope = destructure(az, items[i + 1], value, scope, out)
            i += 2
            continue
        if seen_rest:
            raise err("invalid_form", "only :as name may follow the & rest pattern: [a & more :as all]", p)
        if _is_amp(p):
            if i + 1 >= len(items) or _is_amp(items[i + 1]) or _is_kw(items[i + 1], "as"):
                raise err("invalid_form", "& must be followed by exactly one pattern", p)
            rest_pat = items[i + 1]
            rest = N.RtCall("ds_rest", [N.LocalRef(src), N.Const(pos)], p.span)
            if type(rest_pat) is MapForm:
                rest = N.RtCall("ds_kwargs", [rest], rest_pat.span)
            scope = destructure(az, rest_pat, rest, scope, out)
            seen_rest = True
            i += 2
            continue
        scope = destructure(az, p, N.RtCall("ds_nth", [N.LocalRef(src), N.Const(pos)], p.span), scope, out)
        pos += 1
        i += 1
    return scope


def _key_of(form):
    """Source key for a rename entry or a :keys name."""
    if type(form) is Lit:
        return form.value
    if type(form) is Sym:
        return Keyword(form.name)
    raise err("unsupported_pattern", f"unsupported map pattern key {form!r}", form)


def _destructure_map(az, pattern: MapForm, value, scope, out):
    items = pattern.items
    entries = [(items[i], items[i + 1]) for i in range(0, len(items), 2)]
    defaults = {}
    as_name = None
    for k, v in entries:
        if type(k) is Lit and type(k.value) is Keyword and k.value.name == "or":
            if type(v) is not MapForm:
                raise err("invalid_form", ":or needs a map of defaults", v)
            for j in range(0, len(v.items), 2):
                dk, dv = v.items[j], v.items[j + 1]
                if type(dk) is not Sym:
                    raise err("invalid_form", ":or keys must be symbols", dk)
                if type(dv) is not Lit:
                    raise err("invalid_form", ":or defaults must be literals (string, keyword, number, nil, boolean)", dv)
                defaults[dk.name] = dv.value
    # keys are looked up in the value itself, as `get` does (a vector by index, nil gives nils)
    src = _temp(value, out, "map")
    seen_any = False
    for k, v in entries:
        if type(k) is Lit and type(k.value) is Keyword:
            kn = k.value.name
            if kn == "or":
                continue
            if kn == "as":
                as_name = bind_name(v)
                continue
            if kn in ("keys", "strs"):
                if type(v) is not VecForm:
                    raise err("invalid_form", f":{kn} needs a vector of names", v)
                seen_any = True
                for nf in v.items:
                    if type(nf) is Lit and type(nf.value) is Keyword:
                        name = nf.value.name
                    else:
                        name = bind_name(nf)
                    key = Keyword(name) if kn == "keys" else name
                    scope = _bind_key(scope, out, src, name, key, defaults, nf)
                continue
            if kn == "syms":
                raise err("unsupported_pattern", ":syms is not supported in map patterns (there are no symbol "
                                                 "keys); use :keys for keyword keys or :strs for string keys", k)
            raise err("unsupported_pattern", f"unsupported map pattern entry :{kn}", k)
        # rename entry: {local-pattern source-key}
        seen_any = True
        key = _key_of(v)
        if type(k) is Sym:
            scope = _bind_key(scope, out, src, bind_name(k), key, defaults, k)
        else:
            got = N.RtCall("ds_get", [N.LocalRef(src), N.Const(key)], k.span)
            scope = destructure(az, k, got, scope, out)
    if as_name is not None:
        local = N.Local(as_name)
        out.append((local, N.LocalRef(src)))
        scope = scope.bind(as_name, local)
        seen_any = True
    if not seen_any:
        raise err("unsupported_pattern", "a map pattern needs :keys, :strs, :as or {name :key} entries", pattern)
    return scope


def _bind_key(scope, out, src, name, key, defaults, form):
    local = N.Local(name)
    if name in defaults:
        node = N.RtCall("ds_get_or", [N.LocalRef(src), N.Const(key), N.Const(defaults[name])], form.span)
    else:
        node = N.RtCall("ds_get", [N.LocalRef(src), N.Const(key)], form.span)
    out.append((local, node))
    return scope.bind(name, local)


def binding_items(form, what: str) -> list:
    """The forms of a binding vector (name value ...), checked: a vector of an even length."""
    if type(form) is not VecForm:
        raise err("invalid_form", f"{what} bindings must be a vector, got {form!r}", form)
    if len(form.items) % 2:
        raise err("invalid_form", f"{what} bindings need an even number of forms (name value pairs)", form)
    return form.items


def binding_vector(form, what: str):
    """The (pattern, value form) pairs of a binding vector (`binding_items`)."""
    items = binding_items(form, what)
    return [(items[i], items[i + 1]) for i in range(0, len(items), 2)]


# ------------------------------------------------------------------ let / loop / recur

@special("let")
def analyze_let(az, form: List, scope, tail):
    if len(form.items) < 2:
        raise err("invalid_form", "let needs a binding vector: (let [name value ...] body...)", form)
    items = binding_items(form.items[1], "let")
    out: list = []
    for i in range(0, len(items), 2):
        value = az.analyze(items[i + 1], scope, NOT_TAIL)
        scope = destructure(az, items[i], value, scope, out)
    body = az.body(form.items[2:], scope, tail, form.span)
    return N.Let(out, body, form.span) if out else body


@special("loop")
def analyze_loop(az, form: List, scope, tail):
    if len(form.items) < 2:
        raise err("invalid_form", "loop needs a binding vector: (loop [name init ...] body...)", form)
    pairs = binding_vector(form.items[1], "loop")
    locals_, inits, ds = [], [], []
    inner = scope
    for pat, expr in pairs:
        inits.append(az.analyze(expr, inner, NOT_TAIL))
        if type(pat) is Sym:
            local = N.Local(bind_name(pat))
            locals_.append(local)
            inner = inner.bind(local.name, local)
        else:
            tmp = N.Local("__loop")
            locals_.append(tmp)
            inner = destructure(az, pat, N.LocalRef(tmp), inner, ds)
    node = N.Loop(locals_, inits, None, False, form.span)
    body = az.body(form.items[2:], inner, Tail(node), form.span)
    node.body = N.Let(ds, body, form.span) if ds else body
    return node


@special("recur", unshadowable=True)
def analyze_recur(az, form: List, scope, tail):
    target = tail.target
    if target is None:
        raise err("invalid_form", "recur must be in tail position of a loop or fn", form)
    args = az.args(form.items[1:], scope)
    want = len(target.locals) if type(target) is N.Loop else len(target.params) + (1 if target.rest else 0)
    if len(args) != want:
        raise err("arity_mismatch", f"recur expects {want} argument{'s' if want != 1 else ''}, got {len(args)}", form)
    target.has_recur = True
    return N.Recur(args, target, form.span)


# ------------------------------------------------------------------ fn / defn / #()

def analyze_fn_tail(az, name: str | None, params_form, body_forms, scope, form, doc=None, bind_self=True) -> N.Fn:
    """Build a Fn from a params vector and body (shared by fn, defn and preludes); a list in place
    of the vector starts the clauses of a multi-arity fn (`multi_arity_fn`)."""
    if type(params_form) is List:
        return multi_arity_fn(az, name, [params_form, *body_forms], scope, form, doc, bind_self)
    if type(params_form) is not VecForm:
        raise err("invalid_form", f"function parameters must be a vector, got {params_form!r}", params_form or form)
    node = N.Fn(name, None, [], None, [], None, False, doc, [], form.span)
    inner = scope
    if name is not None and bind_self:
        node.self_local = N.Local(name)
        inner = inner.bind(name, node.self_local)
    items = params_form.items
    prologue: list = []
    i = 0
    while i < len(items):
        p = items[i]
        if type(p) is not Sym or p.name == "&":   # (a plain name, the common parameter, is neither)
            if _is_kw(p, "as"):
                raise err("invalid_form", ":as cannot name a whole parameter list; use a rest pattern: "
                                          "(fn [& [a b :as args]] ...)", p)
            if _is_amp(p):
                if i + 2 != len(items):
                    raise err("invalid_form", "& must be followed by exactly one parameter pattern", p)
                rp = items[i + 1]
                if type(rp) is Sym:
                    node.rest = N.Local(bind_name(rp))
                    inner = inner.bind(node.rest.name, node.rest)
                    node.param_names.extend(["&", rp.name])
                else:
                    node.rest = N.Local("__rest")
                    src = N.LocalRef(node.rest)
                    if type(rp) is MapForm:
                        src = N.RtCall("ds_kwargs", [src], rp.span)
                    inner = destructure(az, rp, src, inner, prologue)
                    node.param_names.extend(["&", repr(rp)])
                break
        if type(p) is Sym:
            local = N.Local(bind_name(p))
            node.params.append(local)
            inner = inner.bind(local.name, local)
            node.param_names.append(p.name)
        else:
            local = N.Local("__arg")
            node.params.append(local)
            inner = destructure(az, p, N.LocalRef(local), inner, prologue)
            node.param_names.append(repr(p))
        i += 1
    node.prologue = prologue
    saved = az.short_fn
    node.body = az.body(body_forms, inner, Tail(node), form.span)
    az.short_fn = saved
    return node


@special("fn")
def analyze_fn(az, form: List, scope, tail):
    items = form.items
    name = None
    i = 1
    if len(items) > 1 and type(items[1]) is Sym:
        name = bind_name(items[1])
        i = 2
    if len(items) <= i:
        raise err("invalid_form", "fn needs a parameter vector: (fn [params] body...)", form)
    return analyze_fn_tail(az, name, items[i], items[i + 1:], scope, form)


def def_name(az, form, head: str):
    if len(form.items) < 2:
        raise err("invalid_arity", f"{head} needs a name", form)
    target = form.items[1]
    if type(target) is Sym and target.ns is not None:
        ns = target.ns
        exports = az.env.preludes.get(ns)
        if exports is not None and target.name in exports:
            raise err("invalid_form", f"cannot redefine {target.full}: it is a public export of the protected "
                                      f"namespace {ns}", target)
        if ns in ("tool", "data", "ptc.core") or exports is not None or ns in az.env.protected:
            raise err("invalid_form", f"{ns} is a protected namespace; cannot define {target.full}", target)
        raise err("invalid_form", f"qualified definitions are not supported: {target.full}", target)
    return bind_name(target, "definition")


@special("def", "defonce", unshadowable=True)
def analyze_def(az, form: List, scope, tail):
    head = form.items[0].name
    name = def_name(az, form, head)
    rest = form.items[2:]
    doc = None
    if len(rest) == 0:
        if head == "defonce":
            raise err("invalid_arity", f"(defonce {name}) needs a value: (defonce {name} value)", form)
        # (def x) declares x, as in Clojure: an existing value is kept; reading x before a value is
        # given is unbound_var (Clojure gives an unbound placeholder)
        return N.Const(VarRef(name), form.span)
    if len(rest) == 2:
        if type(rest[0]) is Lit and type(rest[0].value) is str:
            doc = rest[0].value
        elif type(rest[0]) is MapForm:
            raise err("invalid_form", f"metadata maps on {head} are only allowed in prelude source", rest[0])
        else:
            raise err("invalid_arity", f"{head} takes a name, an optional docstring and a value", form)
        rest = rest[1:]
    elif len(rest) > 2:
        raise err("invalid_arity", f"{head} takes a name, an optional docstring and a value", form)
    value = az.analyze(rest[0], scope, NOT_TAIL)
    return N.Def(name, value, doc, head == "defonce", form.span)


@special("declare")
def analyze_declare(az, form: List, scope, tail):
    """`(declare a b ...)` is `(def a) (def b) ...`: it names definitions given values later."""
    if len(form.items) < 2:
        raise err("invalid_arity", "declare needs at least one name: (declare name ...)", form)
    names = [def_name(az, List([form.items[0], f], f.span), "declare") for f in form.items[1:]]
    return N.Const(VarRef(names[-1]), form.span)


@special("defn")
def analyze_defn(az, form: List, scope, tail):
    name = def_name(az, form, "defn")
    rest = form.items[2:]
    doc = None
    if rest and type(rest[0]) is Lit and type(rest[0].value) is str:
        doc = rest[0].value
        rest = rest[1:]
    if rest and type(rest[0]) is MapForm:
        raise err("invalid_form", "metadata maps on defn are only allowed in prelude source", rest[0])
    if not rest:
        raise err("invalid_form", f"defn {name} needs a parameter vector", form)
    # defn recursion goes through the user namespace (a later redefinition is seen)
    fn = analyze_fn_tail(az, name, rest[0], rest[1:], scope, form, doc, bind_self=False)
    return N.Def(name, fn, doc, False, form.span)


# ------------------------------------------------------------------ multi-arity fn

_ARGS = "args#"   # names no program can write (a symbol has no `#`): the generated code's own


def _core(name: str, span) -> Sym:
    return Sym("clojure.core", name, span)


def _arity_clauses(clauses: list, form):
    """[(params VecForm, body forms, fixed count, variadic?)] of `([params] body...)` clauses,
    checked as Clojure checks them."""
    out, fixed, variadic = [], set(), None
    for c in clauses:
        if type(c) is not List or not c.items or type(c.items[0]) is not VecForm:
            raise err("invalid_form", f"each arity of a multi-arity fn is a list ([params] body...), got {c!r}",
                      c if hasattr(c, "span") else form)
        params = c.items[0]
        ps = params.items
        amp = next((i for i, p in enumerate(ps) if _is_amp(p)), None)
        n = len(ps) if amp is None else amp
        if amp is not None:
            if variadic is not None:
                raise err("invalid_form", "a multi-arity fn can have only one variadic arity (with &)", c)
            variadic = n
        elif n in fixed:
            raise err("invalid_form", f"a multi-arity fn has two arities of {n} parameter{'s' * (n != 1)}", c)
        else:
            fixed.add(n)
        out.append((params, c.items[1:], n, amp is not None))
    if variadic is not None and fixed and max(fixed) > variadic:
        raise err("invalid_form", "a fixed arity cannot have more parameters than the variadic one", form)
    return out


def _arity_want(arities) -> str:
    counts = sorted(n for _, _, n, v in arities if not v)
    words = [str(n) for n in counts] + [f"at least {n}" for _, _, n, v in arities if v]
    return words[0] if len(words) == 1 else ", ".join(words[:-1]) + " or " + words[-1]


def multi_arity_fn(az, name, clauses: list, scope, form, doc, bind_self) -> N.Fn:
    """`(fn name ([x] ...) ([x y] ...))`: one fn of any number of arguments that counts them and calls
    the clause for that count, a fn literal of its own (so `recur` in a clause re-enters that clause,
    and the name, or the global for defn, reaches the whole fn). No clause for the count is the
    arity_mismatch a single-arity fn raises."""
    arities = _arity_clauses(clauses, form)
    span = form.span
    args = Sym(None, _ARGS, span)
    count = List([_core("count", span), args], span)
    fallback = List([Sym(None, "arity-fail#", span), Lit(name or "fn", span),
                     Lit(_arity_want(arities), span), args], span)
    body = fallback
    fixed = sorted((a for a in arities if not a[3]), key=lambda a: -a[2])
    variadic = [a for a in arities if a[3]]
    for params, forms, n, _ in variadic:
        clause_fn = List([Sym(None, "fn", params.span), params, *forms], params.span)
        call = List([_core("apply", span), clause_fn, args], span)
        test = List([_core(">=", span), count, Lit(n, span)], span)
        body = List([Sym(None, "if", span), test, call, body], span)
    for params, forms, n, _ in fixed:
        clause_fn = List([Sym(None, "fn", params.span), params, *forms], params.span)
        call = List([clause_fn, *[List([_core("nth", span), args, Lit(i, span)], span) for i in range(n)]], span)
        test = List([_core("=", span), count, Lit(n, span)], span)
        body = List([Sym(None, "if", span), test, call, body], span)
    outer = VecForm([Sym(None, "&", span), args], span)
    node = analyze_fn_tail(az, name, outer, [body], scope, form, doc, bind_self)
    node.param_names = [repr(params) for params, _, _, _ in arities]
    return node


@special("arity-fail#")   # (a name no program can write: it needs no protection)
def analyze_arity_fail(az, form: List, scope, tail):
    """The end of a multi-arity fn's dispatch (only `multi_arity_fn` writes this form)."""
    label, want, args = form.items[1:]
    # no position of its own: the error is located at the call that gave the wrong count
    return N.RtCall("arity_fail", [N.Const(label.value), N.Const(want.value), az.analyze(args, scope, NOT_TAIL)])


# ------------------------------------------------------------------ letfn

@special("letfn")
def analyze_letfn(az, form: List, scope, tail):
    """`(letfn [(f [x] ...) (g [y] ...)] body)`: functions that see each other (and themselves).
    Fn values capture values, not cells, so the group is one dispatcher fn that names itself and
    binds every name to a small fn calling it with the index of its function:

        (let [letfn# (fn letfn# [i# a#] (let [f (fn f [& xs#] (letfn# 0 xs#)) ...]
                                           (if (= i# 0) (apply (fn f [x] ...) a#) ...)))
              f (fn f [& xs#] (letfn# 0 xs#)) ...]
          body)"""
    items = form.items
    if len(items) < 2 or type(items[1]) is not VecForm:
        raise err("invalid_form", "letfn needs a vector of function specs: (letfn [(f [x] ...)] body...)", form)
    specs = items[1].items
    for spec in specs:
        if type(spec) is not List or len(spec.items) < 2 or type(spec.items[0]) is not Sym:
            raise err("invalid_form", f"a letfn spec is (name [params] body...), got {spec!r}", spec)
    # the generated parts have no position: an error inside them (a wrong argument count) is
    # located at the program's call, as for any fn
    span = None
    me, index, fargs, xs = (Sym(None, n, span) for n in ("letfn#", "i#", "a#", "xs#"))
    wrappers: list = []
    for i, spec in enumerate(specs):
        name = spec.items[0]
        bind_name(name)
        call = List([me, Lit(i, span), xs], span)
        wrappers += [name, List([Sym(None, "fn", span), name, VecForm([Sym(None, "&", span), xs], span), call], span)]
    dispatch = List([Sym(None, "arity-fail#", span), Lit("letfn", span), Lit("a known index", span), fargs], span)
    for i in reversed(range(len(specs))):
        spec = specs[i]
        clause = List([Sym(None, "fn", spec.span), *spec.items], spec.span)
        test = List([_core("=", span), index, Lit(i, span)], span)
        dispatch = List([Sym(None, "if", span), test, List([_core("apply", span), clause, fargs], span),
                         dispatch], span)
    group = List([Sym(None, "fn", span), me, VecForm([index, fargs], span),
                  List([Sym(None, "let", span), VecForm(list(wrappers), span), dispatch], span)], span)
    lowered = List([Sym(None, "let", form.span), VecForm([me, group, *wrappers], span), *items[2:]], form.span)
    return az.analyze(lowered, scope, tail)


def analyze_short_fn(az, form: ShortFn, scope):
    if az.short_fn is not None:
        raise err("invalid_form", "nested #() functions are not allowed; use (fn [x] ...) for the inner one", form)
    state = {"max": 0, "rest": False, "locals": [], "rest_local": N.Local("prest")}
    az.short_fn = state
    try:
        items = form.items
        node = N.Fn(None, None, [], None, [], None, False, None, [], form.span)
        if not items:
            body = N.Const(None, form.span)
        elif len(items) == 1 and type(items[0]) is not Sym:
            body = az.analyze(items[0], scope, Tail(node))
        elif len(items) == 1 and items[0].ns is None and items[0].name.startswith("%"):
            body = az.analyze(items[0], scope, Tail(node))
        else:
            body = az.analyze(List(list(items), form.span), scope, Tail(node))
    finally:
        az.short_fn = None
    while len(state["locals"]) < state["max"]:
        state["locals"].append(N.Local(f"p{len(state['locals']) + 1}"))
    node.params = state["locals"][: state["max"]]
    node.rest = state["rest_local"] if state["rest"] else None
    node.param_names = [("%" if i == 0 and state["max"] == 1 else f"%{i + 1}") for i in range(state["max"])]
    if node.rest:
        node.param_names += ["&", "%&"]
    node.body = body
    return node
