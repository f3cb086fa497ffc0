"""`for` and `doseq`: eager comprehension and effect iteration.

Both lower to one `For` node whose clauses are bindings (with destructuring
already lowered) and `:let` / `:when` / `:while` modifiers; the compiler
turns them into nested Python loops.
"""
from __future__ import annotations

from ..reader.forms import Lit, VecForm
from ..values import Keyword
from . import nodes as N
from .bindings import binding_vector, destructure
from .base import NOT_TAIL, err, special


def _clauses(az, form, scope, head):
    if len(form.items) < 2 or type(form.items[1]) is not VecForm:
        raise err("invalid_form", f"{head} needs a binding vector: ({head} [x coll] body...)", form)
    items = form.items[1].items
    if not items:
        raise err("invalid_form", f"{head} needs at least one binding", form.items[1])
    clauses = []
    i = 0
    while i < len(items):
        k = items[i]
        if i + 1 >= len(items):
            raise err("invalid_form", f"{head} binding {k!r} has no value", k)
        v = items[i + 1]
        if type(k) is Lit and type(k.value) is Keyword:
            mod = k.value.name
            if not clauses:
                raise err("invalid_form", f"{head} modifier :{mod} must follow a binding", k)
            if mod == "let":
                out = []
                for pat, expr in binding_vector(v, ":let"):
                    scope = destructure(az, pat, az.analyze(expr, scope, NOT_TAIL), scope, out)
                clauses.append(("let", out))
            elif mod in ("when", "while"):
                clauses.append((mod, az.analyze(v, scope, NOT_TAIL)))
            else:
                raise err("invalid_form", f"unknown {head} modifier :{mod} (use :let, :when or :while)", k)
        else:
            if type(v) is Lit and v.value is not None and type(v.value) is not str:
                raise err("invalid_form", f"{head} binding of {k!r} needs a collection, got {v!r}", v)
            coll = N.RtCall("iter_items", [az.analyze(v, scope, NOT_TAIL), N.Const(head)], v.span)
            item = N.Local("__item")
            out = []
            scope = destructure(az, k, N.LocalRef(item), scope, out)
            clauses.append(("bind", item, coll, out))
        i += 2
    return clauses, scope


# how each iteration form is written, for the error when the body is missing
_USAGE = {"for": "(for [x coll] body)", "doseq": "(doseq [x coll] body...)"}


@special(*_USAGE)
def analyze_for(az, form, scope, tail):
    """`for` (collects the body's values into a vector) and `doseq` (runs the body for its effects)."""
    head = form.items[0].name
    clauses, inner = _clauses(az, form, scope, head)
    if len(form.items) < 3:
        raise err("invalid_arity", f"{head} needs a body: {_USAGE[head]}", form)
    body = az.body(form.items[2:], inner, NOT_TAIL, form.span)
    return N.For(clauses, body, head == "for", form.span)
