"""The import structure of the session, API and guard layers (issue #14, one-way layers).

Imports inside functions count: they tie modules together just as top-level ones do. (The
graph helper is the one tests/test_layers.py uses for the library and the analyzer.)
"""
import ast
import pathlib

import ptclisp

PKG = pathlib.Path(ptclisp.__file__).parent


def _module_name(path: pathlib.Path) -> str:
    parts = list(path.relative_to(PKG.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(parts)


MODULES = {_module_name(p): p for p in PKG.rglob("*.py")}


def _imports(name: str) -> set[str]:
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


def _reachable(start: str) -> set[str]:
    seen, todo = set(), [start]
    while todo:
        for m in _imports(todo.pop()):
            if m not in seen:
                seen.add(m)
                todo.append(m)
    return seen


def test_no_module_of_the_evaluation_pipeline_reaches_itself_through_its_imports():
    pipeline = ["ptclisp", "ptclisp.api", "ptclisp.process", "ptclisp.session", "ptclisp.inputs", "ptclisp.tools",
                "ptclisp.prelude", "ptclisp.parallel", "ptclisp.interp", "ptclisp.compiled_runtime",
                "ptclisp.error_translation", "ptclisp.guards", "ptclisp.meter", "ptclisp.namespace"]
    assert [m for m in pipeline if m in _reachable(m)] == []


def test_the_prelude_loader_sits_below_the_session():
    below = {m for m in MODULES if m == "ptclisp.prelude" or m.startswith("ptclisp.prelude.")}
    for m in below:
        assert not _imports(m) & {"ptclisp", "ptclisp.session", "ptclisp.api", "ptclisp.process"}, m


def test_the_guards_and_the_error_translation_import_nothing_above_them():
    assert {m for m in _reachable("ptclisp.guards") if not m.startswith("ptclisp.values.")} <= {"ptclisp.errors", "ptclisp.values", "ptclisp.meter", "ptclisp.printer",
                                            "ptclisp.convert", "ptclisp.intstr"}
    assert _imports("ptclisp.error_translation") <= {"ptclisp.errors", "ptclisp.guards", "ptclisp.meter",
                                                     "ptclisp.registry"}


def test_the_package_exports_the_public_api_only():
    assert sorted(ptclisp.__all__) == sorted(["run", "Session", "Limits", "Tool", "Result", "ErrorInfo", "PtcError",
                                              "read_string", "equal", "pr_str", "to_python", "from_python"])
    assert ptclisp.Session.__module__ == "ptclisp.session"
