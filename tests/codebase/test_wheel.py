"""The wheel carries the grammar and the preludes, and the installed package works.

Builds a wheel from this checkout, installs it into a fresh virtual
environment (dependencies from the package index) and evaluates a program
with the installed package, from a directory outside the checkout.
"""
import os
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def wheel(tmp_path_factory):
    out = tmp_path_factory.mktemp("dist")
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(out),
                    str(ROOT)], check=True)
    wheels = list(out.glob("ptclisp-*.whl"))
    assert len(wheels) == 1
    return wheels[0]


def test_wheel_carries_grammar_and_preludes(wheel):
    names = zipfile.ZipFile(wheel).namelist()
    assert {"ptclisp/schemas/project.schema.json", "ptclisp/schemas/envelope.schema.json",
            "ptclisp/docs/cli.md", "ptclisp/project/examples/orders/ptclisp.toml",
            "ptclisp/project/examples/workflow/preludes/sales.clj", "ptclisp/__main__.py"} <= set(names)
    assert "ptclisp/grammar/ptclisp.lark" in names
    preludes = [n for n in names if n.startswith("ptclisp/preludes/") and n.endswith(".clj")]
    if (ROOT / "preludes").glob("*.clj"):
        assert len(preludes) == len(list((ROOT / "preludes").glob("*.clj")))


def test_installed_wheel_evaluates_a_program(wheel, tmp_path):
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    py = venv / "bin" / "python"
    subprocess.run([str(py), "-m", "pip", "install", "-q", str(wheel)], check=True)
    code = ("import ptclisp; r = ptclisp.run('(->> data/xs (filter odd?) (reduce +))', context={'xs': [1, 2, 3]});"
            "print(r.status, r.value, ptclisp.__file__)")
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    out = subprocess.run([str(py), "-c", code], cwd=tmp_path, capture_output=True, text=True, env=env, check=True)
    status, value, where = out.stdout.split()
    assert (status, value) == ("ok", "4")
    assert str(venv) in where, "the installed package, not the checkout, must be imported"
    cli = subprocess.run([str(venv / "bin" / "ptclisp"), "eval", "(+ 1 2)"], cwd=tmp_path, capture_output=True,
                         text=True, env=env)
    assert cli.returncode == 0 and cli.stdout.strip() == "3"
    # the package data of issue 17: docs pages, JSON Schemas, the project examples (run offline)
    ptclisp = str(venv / "bin" / "ptclisp")
    for argv in (["--version"], ["docs", "functions"], ["docs", "project"], ["docs", "envelope-schema"],
                 ["init", "P", "--example", "tools"], ["validate", "P"], ["run", "P"]):
        done = subprocess.run([ptclisp, *argv], cwd=tmp_path, capture_output=True, text=True, env=env)
        assert done.returncode == 0, (argv, done.stderr)
    assert '"total_eur": 396.29' in done.stdout


def test_every_package_directory_is_listed_in_pyproject():
    import tomllib
    listed = set(tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["packages"])
    found = {".".join(p.parent.relative_to(ROOT).parts) for p in (ROOT / "ptclisp").rglob("__init__.py")}
    assert found <= listed, f"add to pyproject packages: {sorted(found - listed)}"
