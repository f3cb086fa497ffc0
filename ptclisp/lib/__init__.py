"""The runtime library: every builtin family registers itself on import.

Importing this package fills `registry.BUILTINS`. Family modules import only
values, errors, meter, printer and `registry`/`common`.
"""
import importlib

FAMILIES = (
    "numbers", "numbers_math", "predicates", "describe",
    "seqs", "seqs_build", "seqs_subset",
    "colls", "colls_fns", "colls_maps", "sets", "walk",
    "strings", "regexes", "printf", "jsonlib",
    "java", "java_text", "java_time",
    "output", "parallel", "introspect",
)

for _name in FAMILIES:
    try:
        importlib.import_module(f"{__name__}.{_name}")
    except ModuleNotFoundError as _exc:  # a family not written yet
        if _exc.name != f"{__name__}.{_name}":
            raise
