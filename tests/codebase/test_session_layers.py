"""The import structure of the session, API and guard layers (issue #14, one-way layers).

Imports inside functions count: they tie modules together just as top-level ones do. (The
graph helper is tests/import_graph.py, shared with tests/codebase/test_layers.py.)
"""

import ptclisp

from import_graph import MODULES
from import_graph import imports as _imports


def _reachable(start: str) -> set[str]:
    seen, todo = set(), [start]
    while todo:
        for m in _imports(todo.pop()):
            if m not in seen:
                seen.add(m)
                todo.append(m)
    return seen


def test_no_module_of_the_evaluation_pipeline_reaches_itself_through_its_imports():
    pipeline = ["ptclisp", "ptclisp.api", "ptclisp.isolation.process", "ptclisp.session", "ptclisp.host.inputs", "ptclisp.host.tools",
                "ptclisp.prelude", "ptclisp.parallel", "ptclisp.backends.closures", "ptclisp.backends.runtime",
                "ptclisp.runtime.failures", "ptclisp.runtime.guards", "ptclisp.runtime.meter", "ptclisp.runtime.namespace"]
    assert [m for m in pipeline if m in _reachable(m)] == []


def test_the_prelude_loader_sits_below_the_session():
    below = {m for m in MODULES if m == "ptclisp.prelude" or m.startswith("ptclisp.prelude.")}
    for m in below:
        assert not _imports(m) & {"ptclisp", "ptclisp.session", "ptclisp.api", "ptclisp.isolation.process"}, m


def test_the_guards_and_the_error_translation_import_nothing_above_them():
    assert {m for m in _reachable("ptclisp.runtime.guards") if not m.startswith("ptclisp.values.")} <= {"ptclisp.errors", "ptclisp.values", "ptclisp.runtime.meter",
                                            "ptclisp.interchange.python", "ptclisp.values.intstr"}
    assert _imports("ptclisp.runtime.failures") <= {"ptclisp.errors", "ptclisp.runtime.guards", "ptclisp.runtime.meter",
                                                     "ptclisp.runtime.namespace", "ptclisp.registry.builtins"}


def test_the_package_exports_the_public_api_only():
    assert sorted(ptclisp.__all__) == sorted(["run", "Session", "Limits", "Tool", "Result", "ErrorInfo", "PtcError",
                                              "read_string", "equal", "pr_str", "to_python", "from_python",
                                              "general_path"])
    assert ptclisp.Session.__module__ == "ptclisp.session"
