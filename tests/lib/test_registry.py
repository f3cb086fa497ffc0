"""The builtin registry against the reference catalogue (functions.md).

Walks the alphabetical name index (§10) and asserts every name is registered;
walks the catalogue's arity columns and asserts each documented arity is
accepted by a real call (the call may fail on its nil arguments, but never
with an arity error).
"""
import re
from pathlib import Path

import pytest

import ptclisp
from ptclisp.lib.registry import BUILTINS, QUALIFIED

REF = Path(__file__).resolve().parents[3] / "shared" / "reference" / "functions.md"
pytestmark = pytest.mark.skipif(not REF.exists(), reason="reference catalogue not available")

SPECIAL_FORM_NAMES = {"juxt", "quote", "return", "fail", "program"}
# deliberate choices recorded in docs/conformance.md
NOT_ACCEPTED = {("distinct?", 0)}  # GAP-S64: Clojure's (distinct?) is an arity error


def _text():
    return REF.read_text(encoding="utf-8")


def index_names() -> set[str]:
    idx = _text().split("## 10. Name", 1)[1]
    idx = re.split(r"^## ", idx, maxsplit=1, flags=re.M)[0]
    names = set()
    for chunk in re.findall(r"`([^`]+)`", idx):
        names.update(chunk.split())
    return names


def expand(name: str) -> list[str]:
    """`bit-*`, `parse-*`, `re-*`, `json/*` stand for families listed in the catalogue's tables."""
    if not name.endswith("*") or len(name) < 3:
        return [name]
    prefix = name[:-1]
    rows = set(re.findall(r"^\|\s*`(" + re.escape(prefix) + r"[^`]*)`", _text(), flags=re.M))
    out = []
    for r in rows:
        out.extend(r.split())
    return sorted(set(out))


def all_index_names():
    out = []
    for n in sorted(index_names()):
        out.extend(expand(n))
    return out


def test_index_has_all_runtime_builtins():
    assert len(index_names()) > 150


@pytest.mark.parametrize("name", all_index_names())
def test_every_index_name_is_registered(name):
    if name in SPECIAL_FORM_NAMES:
        pytest.skip("an analyzer form, not a value")
    if name.startswith("json/"):
        assert ("json", name[5:]) in QUALIFIED
    else:
        assert name in BUILTINS, f"{name} is in the reference index but not registered"


ARITY = re.compile(r"^\|\s*((?:`[^`]+`[\s,]*)+)\|\s*([0-9][0-9+–\-, ]*?)\s*\|", re.M)


def documented_arities():
    cases = []
    for names, arity in ARITY.findall(_text()):
        ns = [n for chunk in re.findall(r"`([^`]+)`", names) for n in chunk.split()]
        counts = set()
        for part in arity.replace(" ", "").split(","):
            if not part:
                continue
            if part.endswith("+"):
                lo = int(part[:-1])
                counts.update({lo, lo + 1, lo + 2})
            elif "–" in part or "-" in part:
                lo, hi = re.split("[–-]", part)
                counts.update(range(int(lo), int(hi) + 1))
            else:
                counts.add(int(part))
        for n in ns:
            if n in BUILTINS and n not in SPECIAL_FORM_NAMES:
                for c in sorted(counts):
                    if (n, c) not in NOT_ACCEPTED:
                        cases.append((n, c))
    return sorted(set(cases))


def test_the_catalogue_documents_many_arities():
    assert len(documented_arities()) > 200


@pytest.mark.parametrize("name,n", documented_arities())
def test_documented_arity_is_callable(name, n):
    args = " ".join(["nil"] * n)
    r = ptclisp.run(f"({name} {args})" if n else f"({name})")
    if r.status == "error":
        assert r.error.kind not in ("arity_error", "invalid_arity", "arity_mismatch"), (name, n, r.error)
