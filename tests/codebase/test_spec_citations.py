"""Every citation of the specification names a page and a section that exist (docs/spec/README.md).

Code, preludes, tests and docs cite the spec as `docs/spec/runtime.md §7.1` (also `§4.5-4.6`, `§2-§4`);
a citation of one of the spec's page names without the `docs/spec/` path, or of a page the repository
does not hold, is refused, so no docstring points at a document a clone lacks.
"""
from __future__ import annotations

import pathlib
import re
import subprocess

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
SPEC = ROOT / "docs" / "spec"
PAGES = ("language", "functions", "runtime", "agent-library")
CITATION = re.compile(r"docs/spec/([\w-]+\.md)((?:[ ,]*(?:and )?§ ?\d+(?:\.\d+)*(?:-§?\d+(?:\.\d+)*)?)*)")
BARE = re.compile(r"(?<![/\w\"'-])(?:" + "|".join(PAGES) + r"|divergences)\.md\b")
SECTION = re.compile(r"§ ?(\d+(?:\.\d+)*)(?:-§?(\d+(?:\.\d+)*))?")


def _tracked_texts():
    out = subprocess.run(["git", "ls-files", "ptclisp", "preludes", "tests", "docs", "benchmarks", "README.md"],
                         cwd=ROOT, capture_output=True, text=True)
    if out.returncode != 0:  # not a git checkout (an unpacked sdist): walk the tree instead
        names = [str(p.relative_to(ROOT)) for d in ("ptclisp", "preludes", "tests", "docs", "benchmarks")
                 for p in (ROOT / d).rglob("*") if p.is_file()]
    else:
        names = out.stdout.split()
    for name in names:
        if name.endswith((".py", ".clj", ".md")) and not name.startswith("docs/reference/"):
            yield name, (ROOT / name).read_text(encoding="utf-8")


def _sections(page: pathlib.Path) -> set[str]:
    found = set()
    for line in page.read_text(encoding="utf-8").splitlines():
        m = re.match(r"#{2,4} (\d+(?:\.\d+)*)\.? ", line)
        if m:
            found.add(m.group(1))
    return found


SECTIONS = {f"{p}.md": _sections(SPEC / f"{p}.md") for p in PAGES}


def test_every_spec_page_exists_with_numbered_sections():
    for name, sections in SECTIONS.items():
        assert len(sections) >= 9, f"docs/spec/{name} has too few numbered sections: {sorted(sections)}"


def test_section_parsing_reads_headings():
    assert {"3.5", "3.6", "6.4"} <= SECTIONS["language.md"]
    assert "13.4" in SECTIONS["runtime.md"]


def _citations():
    for name, text in _tracked_texts():
        for m in CITATION.finditer(text):
            page, tail = m.group(1), m.group(2)
            for s in SECTION.finditer(tail):
                for number in filter(None, s.groups()):
                    yield name, page, number


CITED = list(_citations())


def test_the_code_cites_the_spec():
    assert len(CITED) >= 40  # the docstrings cite it; a rewrite that drops the path would show here


@pytest.mark.parametrize("where,page,number", CITED, ids=[f"{w}:{p}§{n}" for w, p, n in CITED])
def test_citation_names_an_existing_section(where, page, number):
    assert page in SECTIONS, f"{where} cites docs/spec/{page}, which does not exist"
    assert number in SECTIONS[page], f"{where} cites docs/spec/{page} §{number}, which has no such section"


def test_no_citation_of_a_page_outside_the_repository():
    bad = [(name, m.group(0)) for name, text in _tracked_texts() if not name.startswith("docs/spec/")
           for m in BARE.finditer(text)]
    assert bad == [], f"cite the spec as docs/spec/PAGE.md §N: {bad[:5]}"
