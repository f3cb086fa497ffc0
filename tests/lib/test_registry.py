"""The builtin registry against the reference catalogue's facts, kept under tests/data/.

tests/data/reference_names.txt lists every name of the catalogue's alphabetical index (families
such as `parse-*` expanded); each must be registered. tests/data/reference_arities.txt lists the
arities the catalogue documents; each must be accepted by a real call (the call may fail on its
nil arguments, but never with an arity error). Both files were extracted once from the reference
catalogue, so the test reads nothing outside the repository.
"""
from pathlib import Path

import pytest

import ptclisp
from ptclisp import lib
from ptclisp.registry.builtins import BUILTINS, QUALIFIED

lib.load()   # every builtin family registers itself

DATA = Path(__file__).resolve().parents[1] / "data"

SPECIAL_FORM_NAMES = {"juxt", "quote", "return", "fail", "program"}
# deliberate choices recorded in docs/conformance.md
NOT_ACCEPTED = {("distinct?", 0)}  # GAP-S64: Clojure's (distinct?) is an arity error


def _rows(name: str) -> list[str]:
    lines = (DATA / name).read_text(encoding="utf-8").splitlines()
    return [line for line in lines if line.strip() and not line.startswith("#")]


def index_names() -> list[str]:
    return _rows("reference_names.txt")


def counts(spec: str) -> set[int]:
    """The argument counts an arity spec allows (`N+` is tried at N, N+1 and N+2)."""
    out: set[int] = set()
    for part in spec.split(","):
        if part.endswith("+"):
            lo = int(part[:-1])
            out.update({lo, lo + 1, lo + 2})
        elif "-" in part:
            lo, hi = part.split("-")
            out.update(range(int(lo), int(hi) + 1))
        else:
            out.add(int(part))
    return out


def test_counts_reads_every_spec_form():
    assert counts("2") == {2}
    assert counts("1+") == {1, 2, 3}
    assert counts("2-4") == {2, 3, 4}
    assert counts("0,2-3") == {0, 2, 3}


def test_index_has_all_runtime_builtins():
    assert len(index_names()) > 200


@pytest.mark.parametrize("name", index_names())
def test_every_index_name_is_registered(name):
    if name in SPECIAL_FORM_NAMES:
        pytest.skip("an analyzer form, not a value")
    if name.startswith("json/"):
        assert ("json", name[5:]) in QUALIFIED
    else:
        assert name in BUILTINS, f"{name} is in the reference index but not registered"


def documented_arities():
    cases = []
    for row in _rows("reference_arities.txt"):
        n, spec = row.split(" ")
        if n in BUILTINS and n not in SPECIAL_FORM_NAMES:
            cases.extend((n, c) for c in counts(spec) if (n, c) not in NOT_ACCEPTED)
    return sorted(set(cases))


def test_the_catalogue_documents_many_arities():
    assert len(documented_arities()) > 200


@pytest.mark.parametrize("name,n", documented_arities())
def test_documented_arity_is_callable(name, n):
    args = " ".join(["nil"] * n)
    r = ptclisp.run(f"({name} {args})" if n else f"({name})")
    if r.status == "error":
        assert r.error.kind not in ("arity_error", "invalid_arity", "arity_mismatch"), (name, n, r.error)
