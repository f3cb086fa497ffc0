"""Control forms: if/when family, binding conditionals, cond/case/condp, do, and/or,
quote, comment, return/fail, juxt, program, and the threading macros.

Derived forms lower to If/Let/Do/And/Or; threading macros rewrite forms and
re-analyze them so special forms work inside steps.
"""
from __future__ import annotations

from ..reader.forms import Form, List, Lit, MapForm, Quote, SetForm, Sym, VecForm
from ..reader.parser import form_to_value
from ..values import Keyword, Map, Set, SymbolRef, Vector, hk, make_list
from . import nodes as N
from .bindings import destructure
from .base import NOT_TAIL, check_duplicates, err, form_key, special


def _parts(form: List, lo: int, hi: int | None, shape: str, kind="invalid_arity"):
    n = len(form.items) - 1
    if n < lo or (hi is not None and n > hi):
        raise err(kind, f"expected {shape}", form)
    return form.items[1:]


def _test_then_else(az, form: List, scope, tail) -> tuple:
    """The analyzed test, then and else (nil when absent) of an `if` or `if-not` form."""
    p = _parts(form, 2, 3, f"({form.items[0].name} test then else?)")
    test = az.analyze(p[0], scope, NOT_TAIL)
    then = az.analyze(p[1], scope, tail)
    return test, then, az.analyze(p[2], scope, tail) if len(p) == 3 else N.Const(None)


@special("if", unshadowable=True)
def analyze_if(az, form, scope, tail):
    test, then, else_ = _test_then_else(az, form, scope, tail)
    return N.If(test, then, else_, form.span)


@special("if-not")
def analyze_if_not(az, form, scope, tail):
    test, then, else_ = _test_then_else(az, form, scope, tail)
    return N.If(test, else_, then, form.span)


@special("when", "when-not")
def analyze_when(az, form, scope, tail):
    """`when` runs its body when the test is truthy, `when-not` when it is falsy; nil otherwise."""
    head = form.items[0].name
    p = _parts(form, 1, None, f"({head} test body...)")
    test = az.analyze(p[0], scope, NOT_TAIL)
    body = az.body(p[1:], scope, tail, form.span)
    if head == "when":
        return N.If(test, body, N.Const(None), form.span)
    return N.If(test, N.Const(None), body, form.span)


def _single_binding(form: List, head: str):
    if len(form.items) < 2 or type(form.items[1]) is not VecForm:
        raise err("invalid_form", f"{head} needs a binding vector: ({head} [name expr] ...)", form)
    b = form.items[1].items
    if len(b) != 2:
        raise err("invalid_form", f"{head} takes exactly one binding pair [name expr] (the name may be a "
                                  f"destructuring pattern); bind more names with let inside the body", form.items[1])
    return b[0], b[1]


# the binding conditionals: head -> (nil_only: the test is "not nil" rather than truthy,
# branches: a then and an optional else rather than a body)
_BINDING_CONDITIONALS = {"if-let": (False, True), "when-let": (False, False),
                         "if-some": (True, True), "when-some": (True, False)}


@special(*_BINDING_CONDITIONALS)
def analyze_binding_conditional(az, form, scope, tail):
    """if-let/if-some (then and an optional else, nil when absent) and when-let/when-some (a body);
    the pattern may destructure and is bound only for the then side."""
    head = form.items[0].name
    nil_only, branches = _BINDING_CONDITIONALS[head]
    pat, expr = _single_binding(form, head)
    rest = form.items[2:]
    if branches and not 1 <= len(rest) <= 2:
        raise err("invalid_arity", f"({head} [name expr] then else?) takes a then branch and an optional else "
                                   f"branch; wrap several forms in (do ...)", form)
    value = az.analyze(expr, scope, NOT_TAIL)
    tmp = N.Local("__test")
    out: list = []
    inner = destructure(az, pat, N.LocalRef(tmp), scope, out)
    then_forms = rest[:1] if branches else rest
    then = az.body(then_forms, inner, tail, form.span)
    if out:
        then = N.Let(out, then, form.span)
    else_ = az.analyze(rest[1], scope, tail) if branches and len(rest) == 2 else N.Const(None)
    test = N.Prim("issome", [N.LocalRef(tmp)]) if nil_only else N.LocalRef(tmp)
    return N.Let([(tmp, value)], N.If(test, then, else_, form.span), form.span)


@special("when-first")
def analyze_when_first(az, form, scope, tail):
    pat, expr = _single_binding(form, "when-first")
    coll = N.Local("__coll")
    out: list = []
    inner = destructure(az, pat, N.RtCall("first_of", [N.LocalRef(coll)]), scope, out)
    body = az.body(form.items[2:], inner, tail, form.span)
    seq = N.RtCall("seq_or_nil", [az.analyze(expr, scope, NOT_TAIL)], form.span)
    return N.Let([(coll, seq)], N.If(N.LocalRef(coll), N.Let(out, body), N.Const(None)), form.span)


@special("cond")
def analyze_cond(az, form, scope, tail):
    clauses = form.items[1:]
    if len(clauses) % 2:
        raise err("invalid_cond_form", "cond needs test/result pairs (an even number of forms)", form)
    node = N.Const(None)
    for i in range(len(clauses) - 2, -1, -2):
        t, r = clauses[i], clauses[i + 1]
        result = az.analyze(r, scope, tail)
        if type(t) is Lit and t.value is not None and t.value is not False:
            node = result  # a literal truthy test (:else) always matches
            continue
        node = N.If(az.analyze(t, scope, NOT_TAIL), result, node, t.span)
    return node


def _case_value(f: Form, top: bool):
    """The constant a case test form stands for: a literal, or a vector, map, set or (inside a
    grouping list) list of constants. Symbols are refused: there are no symbol values (DIV-19)."""
    t = type(f)
    if t is Lit:
        return f.value
    if t in (VecForm, MapForm, SetForm) or (t is List and not top):
        for x in f.items:
            _case_value(x, False)
        return form_to_value(f)
    if t is Sym:
        raise err("invalid_form", f"case constants are not evaluated, so the symbol {f!r} would only match itself; "
                                  f"use keywords, strings or numbers, or cond/condp to compare with a value", f)
    raise err("invalid_form", f"case test constants must be literals (keywords, strings, numbers, booleans, nil) "
                              f"or vectors, maps and sets of them, got {f!r}", f)


def _case_constants(f: Form, seen: dict):
    """The constants of one case test: `(a b)` groups several; a list inside the group is one list
    constant. A constant already used by an earlier test is an error (as in Clojure)."""
    group = f.items if type(f) is List else [f]
    if type(f) is List and not group:
        raise err("invalid_form", "an empty () is not a case constant; write ([]) to match an empty collection", f)
    values = []
    for x in group:
        v = _case_value(x, type(f) is not List)
        key = form_key(x)
        if key in seen:
            raise err("invalid_form", f"duplicate case test constant {x!r}", x)
        seen[key] = x
        values.append(v)
    return values


@special("case")
def analyze_case(az, form, scope, tail):
    if len(form.items) < 2:
        raise err("invalid_form", "case needs an expression: (case expr const result ... default?)", form)
    subject = az.analyze(form.items[1], scope, NOT_TAIL)
    clauses = form.items[2:]
    seen: dict = {}
    tested = [(_case_constants(clauses[i], seen), az.analyze(clauses[i + 1], scope, tail), clauses[i].span)
              for i in range(0, len(clauses) - 1, 2)]
    node = az.analyze(clauses[-1], scope, tail) if len(clauses) % 2 else N.Const(None)
    tmp = N.Local("__case")
    for consts, result, span in reversed(tested):
        tests = [N.Prim("eq", [N.LocalRef(tmp), N.Const(c)]) for c in consts]
        test = tests[0] if len(tests) == 1 else N.Or(tests)
        node = N.If(test, result, node, span)
    return N.Let([(tmp, subject)], node, form.span)


@special("condp")
def analyze_condp(az, form, scope, tail):
    """`(condp pred expr test result ... default?)`: the first clause whose `(pred test expr)` is truthy
    gives its result; a `test :>> f` clause gives `(f (pred test expr))`. No match and no default -> nil
    (the corpus requires nil; Clojure throws)."""
    if len(form.items) < 4:
        raise err("invalid_form", "condp needs a predicate, an expression and at least one clause", form)
    pred, expr, clauses = form.items[1], form.items[2], form.items[3:]
    p, e = N.Local("__pred"), N.Local("__expr")
    # split the clauses as Clojure does: a clause is 3 forms when its second form is :>>, else 2
    # (so a trailing `test :>>` is a plain clause whose result is :>>); one form left over is the default
    parsed = []
    i = 0
    while i < len(clauses):
        if i + 2 < len(clauses) and _is_result_fn_marker(clauses[i + 1]):
            parsed.append((clauses[i], clauses[i + 2], True))
            i += 3
        elif i + 1 < len(clauses):
            parsed.append((clauses[i], clauses[i + 1], False))
            i += 2
        else:
            break
    pred_node, expr_node = az.analyze(pred, scope, NOT_TAIL), az.analyze(expr, scope, NOT_TAIL)
    analyzed = []
    for test_form, result_form, result_fn in parsed:
        test = N.Call(N.LocalRef(p), [az.analyze(test_form, scope, NOT_TAIL), N.LocalRef(e)], test_form.span)
        result = az.analyze(result_form, scope, NOT_TAIL if result_fn else tail)
        analyzed.append((test, result, result_fn, test_form.span, result_form.span))
    node = az.analyze(clauses[-1], scope, tail) if i < len(clauses) else N.Const(None)
    for test, result, result_fn, span, result_span in reversed(analyzed):
        if result_fn:
            hit = N.Local("__hit")
            then = N.Call(result, [N.LocalRef(hit)], result_span)
            node = N.Let([(hit, test)], N.If(N.LocalRef(hit), then, node, span), span)
        else:
            node = N.If(test, result, node, span)
    return N.Let([(p, pred_node), (e, expr_node)], node, form.span)


def _is_result_fn_marker(f: Form) -> bool:
    return type(f) is Lit and type(f.value) is Keyword and f.value.name == ">>"


@special("do", unshadowable=True)
def analyze_do(az, form, scope, tail):
    return az.body(form.items[1:], scope, tail, form.span)


@special("and")
def analyze_and(az, form, scope, tail):
    p = form.items[1:]
    if not p:
        return N.Const(True, form.span)
    if len(p) == 1:
        return az.analyze(p[0], scope, tail)
    return N.And([az.analyze(f, scope, NOT_TAIL) for f in p], form.span)


@special("or")
def analyze_or(az, form, scope, tail):
    p = form.items[1:]
    if not p:
        return N.Const(None, form.span)
    exprs = []
    for f in p:
        if type(f) is Sym and f.ns is None:
            exprs.append(az.symbol(f, scope, in_or=True))
        else:
            exprs.append(az.analyze(f, scope, NOT_TAIL))
    return exprs[0] if len(exprs) == 1 else N.Or(exprs, form.span)


@special("comment")
def analyze_comment(az, form, scope, tail):
    return N.Const(None, form.span)


@special("quote", unshadowable=True)
def analyze_quote(az, form, scope, tail):
    """`'name` is an inert symbol reference; `'(1 2)`, `'[a b]`, `'{:a 1}`, `'#{x}` are data, read and
    not evaluated: a list is a list value (values/vectors.py `make_list`), a symbol in it a reference."""
    if len(form.items) != 2:
        raise err("invalid_arity", "quote takes exactly one form: (quote form)", form)
    return N.Const(quoted_value(form.items[1]), form.span)


def quoted_value(f):
    """The data value of a quoted form."""
    t = type(f)
    if t is Sym:
        return SymbolRef(f.ns, f.name)
    if t is Lit:
        return f.value
    if t is List:
        return make_list([quoted_value(x) for x in f.items])
    if t is VecForm:
        return Vector([quoted_value(x) for x in f.items])
    if t is MapForm:
        items = f.items
        check_duplicates(items[0::2], f)
        return Map({hk(k): v for k, v in ((quoted_value(items[i]), quoted_value(items[i + 1]))
                                         for i in range(0, len(items), 2))})
    if t is SetForm:
        check_duplicates(list(f.items), f)
        return Set.of(quoted_value(x) for x in f.items)
    if t is Quote:
        return make_list([SymbolRef(None, "quote"), SymbolRef(f.sym.ns, f.sym.name)])
    raise err("invalid_form", f"{f!r} cannot be quoted as data (only literals, symbols and collections)", f)


@special("return", "fail", unshadowable=True)
def analyze_terminal(az, form, scope, tail):
    head = form.items[0].name
    if len(form.items) != 2:
        raise err("invalid_arity", f"({head} value) takes exactly one argument", form)
    return N.Terminal(az.analyze(form.items[1], scope, NOT_TAIL), head, form.span)


@special("juxt")
def analyze_juxt(az, form, scope, tail):
    if len(form.items) < 2:
        raise err("invalid_arity", "juxt needs at least one function", form)
    return N.Juxt(az.args(form.items[1:], scope), form.span)


@special("program", unshadowable=True)
def analyze_program(az, form, scope, tail):
    if len(form.items) < 2:
        raise err("invalid_arity", "program needs at least one form", form)
    from ..values import Vector
    return N.RtCall("make_program", [N.Const(Vector([repr(f) for f in form.items[1:]]))], form.span)


@special("defn-", "defmacro", "try", "catch", "throw", "binding")
def analyze_unsupported(az, form, scope, tail):
    head = form.items[0].name
    hints = {
        "defn-": "defn- is only available in prelude source; use defn",
        "defmacro": "macros are not supported",
        "try": "there is no try/catch; use (fail value) to stop with a failure",
        "catch": "there is no try/catch",
        "throw": "there is no throw; use (fail value)",
        "binding": "dynamic binding is not supported",
    }
    if head == "defn-" and az.env.own_namespace is not None:
        raise err("invalid_form", f"{head} is not allowed here", form)
    raise err("unbound_var", f"{head} is not available: {hints[head]}", form, unbound_names=[head])


# ------------------------------------------------------------------ threading macros

def _thread_step(step: Form, value: Form, last: bool) -> Form:
    if type(step) is List and step.items:
        items = step.items
        return List([*items, value] if last else [items[0], value, *items[1:]], step.span)
    if type(step) is Lit and step.value is None:
        raise err("not_callable", "nil cannot be a threading step", step)
    return List([step, value], step.span)


@special("->", "->>")
def analyze_thread(az, form, scope, tail):
    """`->` threads the value in as each step's first argument, `->>` as its last."""
    last = form.items[0].name == "->>"
    if len(form.items) < 2:
        raise err("invalid_thread_form", f"{form.items[0].name} needs an initial expression", form)
    acc = form.items[1]
    for step in form.items[2:]:
        acc = _thread_step(step, acc, last)
    return az.analyze(acc, scope, tail)


@special("as->")
def analyze_as_thread(az, form, scope, tail):
    if len(form.items) < 3:
        raise err("invalid_thread_form", "as-> needs an expression and a name: (as-> expr name forms...)", form)
    expr, name = form.items[1], form.items[2]
    if type(name) is not Sym or name.ns is not None:
        raise err("invalid_thread_form", "as-> name must be a symbol", name)
    steps = form.items[3:]
    if not steps:
        return az.analyze(expr, scope, tail)
    bindings = [name, expr]
    for s in steps[:-1]:
        bindings += [name, s]
    return az.analyze(List([Sym(None, "let", form.span), VecForm(bindings, form.span), steps[-1]], form.span), scope, tail)


@special("cond->", "cond->>")
def analyze_cond_thread(az, form, scope, tail):
    """`cond->` and `cond->>`: each step whose test is truthy threads the value on (as the step's
    first argument, or its last); the tests see the scope outside, not the threaded value."""
    head = form.items[0].name
    last = head == "cond->>"
    if len(form.items) < 2:
        raise err("invalid_thread_form", f"{head} needs an initial expression", form)
    pairs = form.items[2:]
    if len(pairs) % 2:
        raise err("invalid_thread_form", f"{head} needs test/step pairs (an even number of forms)", form)
    tmp = N.Local("__thread")
    bindings = [(tmp, az.analyze(form.items[1], scope, NOT_TAIL))]
    inner = scope.bind(tmp.name, tmp)
    ref = Sym(None, tmp.name, form.span)
    for i in range(0, len(pairs), 2):
        test = az.analyze(pairs[i], scope, NOT_TAIL)
        step = az.analyze(_thread_step(pairs[i + 1], ref, last), inner, NOT_TAIL)
        nxt = N.Local("__thread")
        bindings.append((nxt, N.If(test, step, N.LocalRef(tmp))))
        tmp = nxt
        inner = scope.bind(tmp.name, tmp)
        ref = Sym(None, tmp.name, form.span)
    return N.Let(bindings, N.LocalRef(tmp), form.span)


@special("some->", "some->>")
def analyze_some_thread(az, form, scope, tail):
    """`some->` and `some->>`: threading (first or last argument) that stops at the first nil."""
    head = form.items[0].name
    last = head == "some->>"
    if len(form.items) < 2:
        raise err("invalid_thread_form", f"{head} needs an initial expression", form)
    tmp = N.Local("__some")
    value = az.analyze(form.items[1], scope, NOT_TAIL)
    steps = form.items[2:]
    if not steps:
        return value

    def chain(i, cur: N.Local):
        inner = scope.bind(cur.name, cur)
        step = az.analyze(_thread_step(steps[i], Sym(None, cur.name, form.span), last), inner, NOT_TAIL)
        if i == len(steps) - 1:
            return N.If(N.Prim("isnil", [N.LocalRef(cur)]), N.Const(None), step)
        nxt = N.Local("__some")
        return N.If(N.Prim("isnil", [N.LocalRef(cur)]), N.Const(None), N.Let([(nxt, step)], chain(i + 1, nxt)))

    return N.Let([(tmp, value)], chain(0, tmp), form.span)
