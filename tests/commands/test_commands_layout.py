"""Command-line code lives in ptclisp/commands/ and nowhere else (issue 28, "commands out of the libraries").

Every Python file of the package is read with `ast` (imports inside functions count, as they do for the
import contract): outside ptclisp/commands/ no module imports argparse, and none imports ptclisp.commands
except the entry points (`python -m ptclisp`, `python -m ptclisp.agent`, `python -m ptclisp.bench_agent`).
"""
from __future__ import annotations

import ast
import pathlib
import subprocess
import sys

import pytest

PKG = pathlib.Path(__file__).resolve().parents[2] / "ptclisp"
COMMANDS = PKG / "commands"
ENTRY_POINTS = {PKG / "__main__.py", PKG / "agent" / "__main__.py", PKG / "bench_agent" / "__main__.py"}


def _package_of(path: pathlib.Path) -> list[str]:
    """The dotted package `path` belongs to, as parts (`ptclisp/agent/host.py` -> ["ptclisp", "agent"])."""
    rel = path.relative_to(PKG.parent).with_suffix("")
    return list(rel.parts[:-1])


def imported_modules(path: pathlib.Path) -> set[str]:
    """Every module `path` imports, relative imports resolved to absolute dotted names."""
    out: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        if isinstance(node, ast.Import):
            out.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = _package_of(path)[:len(_package_of(path)) - (node.level - 1)]
                module = ".".join(base + ([node.module] if node.module else []))
            else:
                module = node.module or ""
            out.add(module)
            out.update(f"{module}.{alias.name}" for alias in node.names)   # `from ptclisp import commands`
    return out


def _outside_commands():
    return [p for p in sorted(PKG.rglob("*.py")) if COMMANDS not in p.parents]


def test_the_scan_sees_imports_in_functions_and_relative_ones():
    # the scanner itself: a lazy relative import of the commands package and a lazy argparse are both found
    probe = PKG / "agent" / "host.py"
    assert "ptclisp.agent.mission" in imported_modules(probe)   # `from .mission import ...`
    main = imported_modules(COMMANDS / "main.py")
    assert "argparse" in main and "ptclisp.commands.agent" in main   # both imported inside functions there


def test_no_module_outside_commands_imports_argparse():
    offenders = [str(p.relative_to(PKG.parent)) for p in _outside_commands()
                 if any(m == "argparse" or m.startswith("argparse.") for m in imported_modules(p))]
    assert offenders == []


def test_only_the_entry_points_import_the_commands_package():
    offenders = [str(p.relative_to(PKG.parent)) for p in _outside_commands() if p not in ENTRY_POINTS
                 and any(m == "ptclisp.commands" or m.startswith("ptclisp.commands.") for m in imported_modules(p))]
    assert offenders == []
    for entry in ENTRY_POINTS:   # and each entry point does reach its command there
        assert any(m.startswith("ptclisp.commands.") for m in imported_modules(entry)), entry


@pytest.mark.parametrize("module, usage", [("ptclisp.agent", "usage: ptclisp agent"),
                                           ("ptclisp.bench_agent", "usage: ptclisp bench agent")])
def test_the_package_entry_points_still_run_their_command(module, usage):
    out = subprocess.run([sys.executable, "-m", module, "--help"], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.startswith(usage)
