"""The runtime library: the builtin families.

`load()` imports every family by name; each registers its builtins (and the facts the back
ends read) in `ptclisp.registry.builtins` as it is imported. Importing this package alone registers
nothing. A family that fails to import is an error, never skipped. Family modules import
only registry, java_members, regex_engine, intstr, values, errors, meter, guards
and their sibling families.
"""

_loaded = False


def load() -> None:
    """Register every builtin family in `ptclisp.registry.builtins` (once; later calls return at once)."""
    global _loaded
    if _loaded:
        return
    from . import (  # noqa: F401 - importing a family registers it
        numbers, numbers_math, predicates, describe,
        seqs, seqs_build, seqs_subset,
        colls, colls_fns, colls_maps, sets, walk,
        strings, regexes, printf, jsonlib, specialized,
        java, java_text, java_time,
        output, cells, lazy, strings_edit, parallel, introspect,
    )
    _loaded = True
