"""Forms -> core AST.

Owns special forms, destructuring, symbol resolution and the static checks
that run before evaluation. Imports values, errors, forms and the builtin
registry; never the compiler.
"""
from . import bindings, control, iteration  # noqa: F401 - fill the special-form table
from .core import SPECIALS, Analyzer, Env, Scope  # noqa: F401
