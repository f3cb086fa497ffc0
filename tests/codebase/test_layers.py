"""The import contract of pyproject.toml ([tool.importlinter]), checked from the contract itself.

Every module has a layer, nothing imports a layer above its own (or an independent sibling), no
contract ignores an import, and no package's modules import each other in a circle. `lint-imports`
checks the same contract (.ci/run); these tests name the module to fix. Imports inside functions
count: they tie modules together just as top-level ones do.
"""
import os
import pathlib
import re
import subprocess
import sys
import tomllib

import pytest

import ptclisp

from import_graph import MODULES
from import_graph import imports as _imports

ROOT = pathlib.Path(__file__).resolve().parents[2]
CONTRACTS = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["importlinter"]["contracts"]
LAYERED = [c for c in CONTRACTS if c["type"] == "layers"]
MAIN = next(c for c in CONTRACTS if c["id"] == "layers")


def layer_names(layer: str) -> tuple[list[str], bool]:
    """The names of one layer entry (parentheses of optional names dropped) and whether they are
    independent of each other (`a | b`, or a single name) rather than mutually importing (`a : b`)."""
    sep = ":" if ":" in layer else "|"
    return [n.strip().strip("()") for n in layer.split(sep)], sep == "|"


def layers_of(contract: dict) -> list[tuple[list[str], bool]]:
    """The contract's layers, top first, as full dotted names (each container in turn)."""
    out = []
    for container in contract.get("containers", [""]):
        for layer in contract["layers"]:
            names, independent = layer_names(layer)
            out.append(([f"{container}.{n}" if container else n for n in names], independent))
    return out


def place(module: str, layers) -> tuple[int, str] | None:
    """(layer index, the layer name that covers `module`) or None when no layer names it or an ancestor."""
    for i, (names, _) in enumerate(layers):
        for n in names:
            if module == n or module.startswith(n + "."):
                return i, n
    return None


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


PACKAGES = sorted(n for n, p in MODULES.items() if p.name == "__init__.py")


def test_no_contract_ignores_an_import():
    assert [c["id"] for c in CONTRACTS if c.get("ignore_imports")] == []


def test_the_contract_names_only_modules_that_exist():
    missing = []
    for c in LAYERED:
        for container in c.get("containers", [""]):
            for layer in c["layers"]:
                for raw in re.split(r"[|:]", layer):
                    name = raw.strip()
                    full = f"{container}.{name}" if container else name
                    if not name.startswith("(") and full not in MODULES:
                        missing.append(full)
    assert missing == []


def test_every_module_has_a_layer():
    """A package listed module by module (its __init__ has no layer of its own) counts as placed when
    every module in it has a layer."""
    layers = layers_of(MAIN)
    unplaced = [n for n in sorted(MODULES) if n != "ptclisp" and place(n, layers) is None
                and not (n in PACKAGES and any(m.startswith(n + ".") for m in MODULES))]
    assert unplaced == [], "give these a layer in pyproject.toml"


@pytest.mark.parametrize("contract", LAYERED, ids=[c["id"] for c in LAYERED])
def test_no_module_imports_a_layer_above_its_own_or_an_independent_sibling(contract):
    layers = layers_of(contract)
    upward = []
    for name in sorted(MODULES):
        here = place(name, layers)
        if here is None:
            continue
        for target in sorted(_imports(name)):
            there = place(target, layers)
            if there is None or there[1] == here[1]:
                continue
            if there[0] < here[0] or (there[0] == here[0] and layers[here[0]][1]):
                upward.append(f"{name} -> {target}")
    assert upward == []


@pytest.mark.parametrize("package", PACKAGES)
def test_no_import_cycle_among_the_modules_of_a_package(package):
    depth = package.count(".") + 1
    assert _cycles({n for n in MODULES if n.startswith(package + ".") and n.count(".") == depth}) == []


def test_every_package_named_whole_in_the_layers_with_more_than_two_modules_has_its_own_order_or_is_acyclic():
    acyclic = {a for c in CONTRACTS if c["type"] == "acyclic_siblings" for a in c["ancestors"]}
    ordered = {k for c in LAYERED if c is not MAIN for k in c.get("containers", [])}
    whole = [n for names, _ in layers_of(MAIN) for n in names if n in PACKAGES]
    assert [p for p in whole if p not in ordered | acyclic] == []


def test_lint_imports_keeps_every_contract():
    exe = pathlib.Path(sys.executable).with_name("lint-imports")
    run = subprocess.run([str(exe), "--no-cache", "--no-logo"], cwd=ROOT, capture_output=True, text=True, timeout=300,
                         env=dict(os.environ, PYTHONPATH=str(ROOT)))
    assert run.returncode == 0, run.stdout[-2000:]
    assert f"Contracts: {len(CONTRACTS)} kept, 0 broken." in run.stdout


def test_pmap_runs_on_the_engine_the_parallel_layer_installed():
    from ptclisp.lib import parallel as builtins
    from ptclisp.parallel import run_parallel
    assert builtins._run_parallel is run_parallel
    assert ptclisp.run("(pmap inc [1 2 3])").value == ptclisp.run("[2 3 4]").value
