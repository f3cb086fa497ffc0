"""A builtin's docs come from its docstring (registry/builtins.py `docs_of`), also under `python -OO`."""
from __future__ import annotations

import json
import os
import subprocess
import sys

from ptclisp.registry.builtins import docs_of

DUMP = ("import json, ptclisp, ptclisp.lib; ptclisp.lib.load(); from ptclisp.registry.builtins import BUILTINS; "
        "print(json.dumps({n: [s.doc, list(s.examples)] for n, s in BUILTINS.items()}))")


def test_the_first_paragraph_is_the_doc_and_each_later_line_an_example():
    def f(x):
        """Gives x back, unchanged: the identity
        of a value.

        (f 1) ;=> 1
        (f "a  b") ;=> "a  b"
        """
    assert docs_of(f) == ("Gives x back, unchanged: the identity of a value.", ("(f 1) ;=> 1", '(f "a  b") ;=> "a  b"'))

    def g(x):
        """Only a doc."""
    assert docs_of(g) == ("Only a doc.", ())


def test_a_family_declared_by_a_helper_keeps_its_doc_argument():
    import ptclisp.lib
    from ptclisp.registry.builtins import BUILTINS
    ptclisp.lib.load()
    assert BUILTINS["map"].doc.startswith("A vector of (f item) for every item")   # doc= in lib/seqs.py
    assert BUILTINS["count"].doc.startswith("The number of items")                  # its docstring


def _dump(*flags):
    env = {k: v for k, v in os.environ.items() if k != "PYTHONOPTIMIZE"}
    out = subprocess.run([sys.executable, *flags, "-c", DUMP], capture_output=True, text=True, env=env, check=True)
    return json.loads(out.stdout)


def test_docs_survive_python_dropping_docstrings():
    normal, stripped = _dump(), _dump("-OO")
    assert normal == stripped
    assert normal["count"][0].startswith("The number of items") and normal["count"][1]
    assert all(doc for doc, _ in normal.values()), [n for n, (d, _) in normal.items() if not d]
