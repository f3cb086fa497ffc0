"""Compiling a whole program, or one subtree for the closure tier, into callable code.

Imports the emitters and the closure metadata table of values.text.
"""
from __future__ import annotations

import types

from ...analyzer import nodes as N
from ...values.text import FN_META
from .emit import Compiler


def compile_node(node: N.Node, host_refs: dict | None = None):
    """Compile an analyzed program; returns (code, const_values, fn_meta)."""
    c = Compiler(host_refs)
    code, consts = c.compile_program(node)
    return code, consts, c.fn_meta


def compile_subprogram(node: N.Node, free: list[str], host_refs: dict, env_globals: dict):
    """Compile one subtree (a loop or a closure) for the interpreter's hot paths.

    Returns `make(*free_values) -> main`, where calling `main()` evaluates the
    subtree with the given values for its free locals (Python names `free`).
    """
    c = Compiler(host_refs)
    code, consts = c.compile_program(node, free)
    register_fn_meta(code, c.fn_meta)
    # the module only defines the factory: make that function directly over the environment's
    # globals (no exec into the shared dict, which parallel workers may be compiling into too)
    factory_code, = (co for co in code.co_consts if getattr(co, "co_name", None) == "__ptc_factory__")
    factory = types.FunctionType(factory_code, env_globals, "__ptc_factory__")

    def make(*free_values):
        return factory(*consts, *free_values)

    make.codes = _nested_codes(code)
    return make


def _nested_codes(code) -> frozenset:
    """A code object and every code object defined inside it."""
    out = []
    stack = [code]
    while stack:
        co = stack.pop()
        out.append(co)
        stack.extend(c for c in co.co_consts if hasattr(c, "co_code"))
    return frozenset(out)


def register_fn_meta(code, fn_meta):
    """Record parameter names of every closure code object (for printing `#fn[x y]`)."""
    by_pos = {}
    for fdef, node in fn_meta:
        by_pos[(fdef.name, fdef.lineno, fdef.col_offset)] = node
    stack = [code]
    while stack:
        co = stack.pop()
        for c in co.co_consts:
            if hasattr(c, "co_code"):
                stack.append(c)
        if co.co_name.startswith("fn__"):
            for (nm, ln, _col), n in by_pos.items():
                if nm == co.co_name and ln == co.co_firstlineno:
                    FN_META[co] = list(n.param_names)
                    break
