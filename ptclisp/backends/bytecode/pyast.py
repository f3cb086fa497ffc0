"""Building Python AST for generated code: positioned node classes and small constructors.

Every node built here defaults to line 0 (no PTC position); `at` gives a node the line and
column of the PTC form it computes. The constructors also keep CPython's compiler quiet
about literal operands (see `call` and `is_`). Imports nothing of ptclisp.
"""
from __future__ import annotations

import ast


class _PositionedAst:
    """Python AST node classes with a default position, so only nodes that map to PTC
    source need one set explicitly (compile() requires a position on every node).

    The default is line 0, which no PTC source has: code that maps to no PTC form (a
    function's prologue, the meter's checks) reports no position, so an error raised
    there is located at the nearest enclosing PTC form instead of at line 1, column 1
    (runtime.failures.span_from_traceback)."""

    def __init__(self):
        for name in dir(ast):
            cls = getattr(ast, name)
            if isinstance(cls, type) and issubclass(cls, ast.AST) and "lineno" in getattr(cls, "_attributes", ()):
                setattr(self, name, type(name, (cls,), {"lineno": 0, "col_offset": 0, "end_lineno": 0,
                                                        "end_col_offset": 0}))


A = _PositionedAst()


# ------------------------------------------------------------------ python AST helpers

LOAD, STORE = ast.Load(), ast.Store()  # context markers carry no state: one of each serves every node


# Runtime-table values the guards read on every item of a loop: generated code reads them as
# variables of its factory (assigned there once from the table, `rt_locals`), a closure cell read
# instead of a global lookup per use. Generated code says the table's name; `var` renames it.
RT_LOCALS = {"type": "__rt_type", "int": "__rt_int", "str": "__rt_str", "len": "__rt_len", "_Map": "__rt_Map",
             "_Vector": "__rt_Vector", "_absent": "__rt_absent"}


def var(id_, store=False):
    """The Python variable `id_`, read (or assigned, with `store`); a name of RT_LOCALS is read as its local."""
    return A.Name(id=RT_LOCALS.get(id_, id_), ctx=STORE if store else LOAD)


def rt_locals() -> list:
    """The factory's assignments of RT_LOCALS from the runtime table."""
    return [A.Assign(targets=[A.Name(id=local, ctx=STORE)], value=A.Name(id=name, ctx=LOAD))
            for name, local in RT_LOCALS.items()]


# CPython's compile() warns (SyntaxWarning, an error under `python -W error`) about an `is` test
# with a literal operand and about calling a literal ("perhaps you missed a comma?"), and it first
# folds operators over constants into one (`(3 + 4) is None` warns like `7 is None`). A program's
# literals reach generated operands directly (`(nil? "s")`) or through forms that emit a constant
# (`(do 5)`, `(+ 3 4)`), so `is_` folds a test of two constants and `call` and `is_` pass any
# other literal through `_literal_slot` first: a walrus CPython does not look into.

_LITERAL_SLOT = "_lit"      # assigned, never read: no PTC local (`l<n>_...`) or temporary (`_t<n>`) collides


_FOLDING = (ast.Constant, ast.BinOp, ast.UnaryOp, ast.Tuple, ast.Subscript)


def _folds_to_literal(e) -> bool:
    """Whether CPython sees `e` as a literal once its AST optimizer has run: a constant, or an
    operator, tuple or subscript over such operands."""
    if not isinstance(e, _FOLDING):
        return False    # names, calls, ...: the common case, one test
    if isinstance(e, ast.Constant):
        return True
    if isinstance(e, ast.BinOp):
        return _folds_to_literal(e.left) and _folds_to_literal(e.right)
    if isinstance(e, ast.UnaryOp):
        return _folds_to_literal(e.operand)
    if isinstance(e, ast.Tuple):
        return all(_folds_to_literal(x) for x in e.elts)
    if isinstance(e, ast.Subscript):
        return _folds_to_literal(e.value) and _folds_to_literal(e.slice)
    return False


# displays CPython also refuses to see called, whatever their items
_DISPLAYS = (ast.List, ast.Dict, ast.Set, ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp, ast.JoinedStr)


def _literal_slot(e):
    """`e` evaluated the same way, in a form CPython does not take for a literal."""
    return A.NamedExpr(target=var(_LITERAL_SLOT, True), value=e)


def call(fn, args, span=None):
    """`fn(*args)` (`fn` a node or a variable name), at `span`."""
    fn = fn if isinstance(fn, ast.expr) else var(fn)
    if isinstance(fn, _DISPLAYS) or _folds_to_literal(fn):
        fn = _literal_slot(fn)   # calling it fails at run time, as the program asks
    node = A.Call(func=fn, args=args, keywords=[])
    return at(node, span)


def at(node, span):
    """`node` with the line and column of `span` (unchanged when span is None)."""
    if span is not None:
        node.lineno = node.end_lineno = span.line
        node.col_offset = node.end_col_offset = max(0, span.col - 1)
    return node


def assign(target: str, value, span=None):
    return at(A.Assign(targets=[var(target, True)], value=value), span)


def attr(obj: str, attr: str):
    return A.Attribute(value=var(obj), attr=attr, ctx=LOAD)


def is_(a, b, negate=False):
    """`a is b` (`a is not b` when negate); with two constants, the answer itself."""
    if isinstance(a, ast.Constant) and isinstance(b, ast.Constant):
        return A.Constant((a.value is b.value) != negate)
    return A.Compare(left=_is_operand(a), ops=[ast.IsNot() if negate else ast.Is()], comparators=[_is_operand(b)])


def _is_operand(e):
    """`e` as an operand of `is`: None, True, False and ... are the literals CPython accepts there."""
    if isinstance(e, ast.Constant) and (e.value is None or e.value is True or e.value is False or e.value is ...):
        return e
    return _literal_slot(e) if _folds_to_literal(e) else e


NONE = A.Constant(None)


def all_of(tests: list):
    """The conjunction of `tests` (at least one): the test itself when there is one (Python's
    `BoolOp` needs two values or more)."""
    return tests[0] if len(tests) == 1 else A.BoolOp(op=ast.And(), values=list(tests))


def truthy_test(expr, temp):
    """PTC truthiness of `expr` (only nil and false are falsy), evaluating it once."""
    w = A.NamedExpr(target=var(temp, True), value=expr)
    return A.BoolOp(op=ast.And(), values=[is_(w, A.Constant(None), True), is_(var(temp), A.Constant(False), True)])


def trivial(e) -> bool:
    return isinstance(e, (ast.Constant, ast.Name))


def check_expired():
    """`if _m.expired: _m.raise_expired()`"""
    return A.If(test=attr("_m", "expired"),
                body=[A.Expr(call(attr("_m", "raise_expired"), []))], orelse=[])


def no_args():
    return ast.arguments(posonlyargs=[], args=[], vararg=None, kwonlyargs=[], kw_defaults=[], kwarg=None, defaults=[])


def host_name(key: str) -> str:
    """The parameter name generated code reads a host value (Java member, prelude export) by."""
    return "_h_" + "".join(c if c.isalnum() else "_" for c in key) + f"_{abs(hash(key)) % 100000}"
