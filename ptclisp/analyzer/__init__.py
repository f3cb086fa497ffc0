"""Forms -> core AST.

Owns special forms, destructuring, symbol resolution and the static checks
that run before evaluation. The form modules are imported here, explicitly,
so that their `@special` handlers are registered before any program is
analyzed. Imports errors, meter, values, reader, forms, the builtin registry,
the Java-interop table and the regex engine; never the compiler or the
builtin library.
"""
from . import bindings, control, iteration, requires  # noqa: F401 - register the special forms
from .base import SPECIALS, Scope  # noqa: F401
from .analyzer import DEFINING_HEADS, Analyzer, Env  # noqa: F401
