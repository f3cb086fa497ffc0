"""The import structure of the builtin library and the analyzer (issue #14, one-way layers).

Imports inside functions count: they tie modules together just as top-level ones do.
"""

import pytest

import ptclisp

from import_graph import MODULES
from import_graph import imports as _imports


def _cycles(names: set[str]) -> list[list[str]]:
    """Strongly connected components of more than one module among `names`."""
    graph = {n: _imports(n) & names for n in names}
    index, low, stack, on, out = {}, {}, [], set(), []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in graph[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    for n in sorted(names):
        if n not in index:
            visit(n)
    return out


def _under(prefix: str) -> set[str]:
    return {n for n in MODULES if n == prefix or n.startswith(prefix + ".")}


@pytest.mark.parametrize("package", ["ptclisp.lib", "ptclisp.analyzer"])
def test_no_import_cycle_inside_the_package(package):
    assert _cycles(_under(package)) == []


@pytest.mark.parametrize("name", sorted(_under("ptclisp.analyzer")))
def test_the_analyzer_imports_no_builtin_family(name):
    # the builtin registry (ptclisp.registry.builtins) is read, never a family
    families = {m for m in _imports(name) if m.startswith("ptclisp.lib")}
    assert families == set()


@pytest.mark.parametrize("name", ["ptclisp.reader.parser", "ptclisp.patterns.engine", "ptclisp.registry.java"])
def test_below_the_analyzer_nothing_imports_the_library(name):
    assert {m for m in _imports(name) if m.startswith("ptclisp.lib")} == set()


@pytest.mark.parametrize("name", sorted(_under("ptclisp.lib")))
def test_no_builtin_family_imports_a_layer_above_the_library(name):
    above = {"ptclisp.parallel", "ptclisp.prelude", "ptclisp.evaluator", "ptclisp.api", "ptclisp.host.tools",
             "ptclisp.backends.closures", "ptclisp.backends.bytecode", "ptclisp.analyzer", "ptclisp"}
    assert {m for m in _imports(name) if m in above or m.startswith("ptclisp.analyzer.")} == set()


def test_pmap_runs_on_the_engine_the_parallel_layer_installed():
    from ptclisp.lib import parallel as builtins
    from ptclisp.parallel import run_parallel
    assert builtins._run_parallel is run_parallel
    assert ptclisp.run("(pmap inc [1 2 3])").value == ptclisp.run("[2 3 4]").value
