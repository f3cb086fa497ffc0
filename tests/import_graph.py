"""The ptclisp package's import graph, for the layer tests (tests/codebase/test_layers.py, tests/codebase/test_session_layers.py).

Imports inside functions count: they tie modules together just as top-level ones do.
"""
import ast
import pathlib

import ptclisp

PKG = pathlib.Path(ptclisp.__file__).parent


def module_name(path: pathlib.Path) -> str:
    parts = list(path.relative_to(PKG.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(parts)


# the importable modules (a suite's data script such as bench_agent/suites/data-qa/generate.py is not one)
MODULES = {module_name(p): p for p in PKG.rglob("*.py")
           if all(part.isidentifier() for part in module_name(p).split("."))}


def imports(name: str) -> set[str]:
    """The ptclisp modules `name` imports anywhere in its source (a `from pkg import mod` names mod)."""
    path = MODULES[name]
    here = name.split(".") if path.name == "__init__.py" else name.split(".")[:-1]
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            targets = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                up = here[:len(here) - (node.level - 1)]
                base = ".".join(up + ([base] if base else []))
            targets = [f"{base}.{a.name}" for a in node.names]
        else:
            continue
        for t in targets:
            while t and t not in MODULES:
                t = t.rpartition(".")[0]
            if t and t != name:
                found.add(t)
    return found

