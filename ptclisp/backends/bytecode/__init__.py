"""The bytecode back end: core AST -> Python code objects, once per program (or per hot subtree).

    pyast.py    positioned Python AST nodes and small constructors
    scan.py     questions asked of a subtree first: free locals, can a map/filter become a loop
    emit.py     `Compiler`: one emitter per core-AST node class
    inline.py   fast paths replacing a general call (loops for map/filter, nth, (:k m), primitives)
    program.py  compile a program (`compile_node`) or a subtree for the closure tier (`compile_subprogram`)

Generated code sees only the runtime table (`backends/table.py`, shared with the closure back end,
installed as its `__builtins__`) and the per-environment globals `_m` (meter), `_ns` (user
namespace), `_data`, `_tool`, `_hist`. The compiler reads builtins and their facts from
`ptclisp.registry.builtins`, never from the library.
"""
from .emit import Compiler
from .program import compile_node, compile_subprogram, register_fn_meta
from .scan import free_locals, inlinable_hof

__all__ = ["Compiler", "compile_node", "compile_subprogram", "register_fn_meta", "free_locals",
           "inlinable_hof"]
