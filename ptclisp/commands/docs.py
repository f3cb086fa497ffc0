"""`ptclisp docs [PAGE]`: the documentation shipped in the package, matching the installed version.

Pages:

    functions        every builtin: signatures, arity, qualifiers, doc, examples (generated from the
                     builtin registry, so it can never drift; the same text is committed as
                     docs/reference/functions.md and a test checks it is current)
    forms            the special forms (the list of names is generated from the analyzer)
    limits           the limits of an evaluation and of an agent run (defaults generated from the code)
    agent            agents: missions, models, the loop, failures
    project          agent projects: ptclisp.toml, init, validate, doctor, models, run, repl --project
    cli              the command line: commands, exit classes, --envelope, --output, retries
    agent-guide      for coding agents: find, check, run (JSON output), exit statuses, test, trace
    project-schema   the JSON Schema of ptclisp.toml
    envelope-schema  the JSON Schema of the --envelope document
    candidates       improving an agent: candidate new, propose, gate, trial, promote, list, show
    candidate-schema / trial-schema / promotion-schema   the JSON Schemas of the candidate records

The prose pages are package data (`ptclisp/docs/*.md`); `render(page)`
returns a page's text; `ptclisp docs --search TERM` (`search(term)`) lists
every page and line that mentions TERM (case-insensitive).  Imports (lazily) the builtin library and its
registry, the analyzer's special forms, the limit defaults, ptclisp.agent (AgentLimits),
ptclisp.interchange.schemas (the schemas) and ptclisp.commands.common.
"""
from __future__ import annotations

import sys
from importlib import resources

import attrs

from ..interchange.schemas import schema_text
from .common import UsageError

PAGES = {
    "functions": "every builtin function: signature, arity, qualifiers, doc (generated from the registry)",
    "forms": "the special forms: binding, control flow, functions, threading, return and fail",
    "limits": "the limits of an evaluation and of an agent run, with their defaults",
    "agent": "agents: tasks, missions, models, the loop, result contracts, failures",
    "project": "agent projects: ptclisp.toml, init, validate, doctor, models, run, repl --project",
    "cli": "the command line: commands, exit classes, --envelope, --output, retries, --text-protocol",
    "agent-guide": "for coding agents: find what exists, check, run with JSON output, exit statuses, test, trace",
    "project-schema": "the JSON Schema of ptclisp.toml",
    "envelope-schema": "the JSON Schema of the --envelope document",
    "candidates": "improving an agent: candidate new, propose, gate, trial, promote, list, show",
    "candidate-schema": "the JSON Schema of a candidate record (.ptclisp/candidates/ID/candidate.json)",
    "trial-schema": "the JSON Schema of a trial record (candidate trial --json, trials/tN/trial.json)",
    "promotion-schema": "the JSON Schema of a promotion record (a line of .ptclisp/promotions.jsonl)",
}

GROUP_QUALIFIERS = {"core": ("clojure.core", "core"), "string": ("clojure.string", "str", "string"),
                    "set": ("clojure.set", "set"), "walk": ("clojure.walk", "walk"), "regex": ("regex",),
                    "json": ("json",)}


def add_docs(sub) -> None:
    import argparse
    p = sub.add_parser("docs", help="show the documentation shipped with this version",
                       formatter_class=argparse.RawDescriptionHelpFormatter,
                       description="Print a documentation page of the installed ptclisp (Markdown).",
                       epilog="pages:\n" + "\n".join(f"  {n:<16} {d}" for n, d in PAGES.items()))
    p.add_argument("page", nargs="?", metavar="PAGE", help="the page (without it: the list of pages)")
    p.add_argument("--search", metavar="TERM",
                   help="list the pages and lines that mention TERM (case-insensitive; exit 1 if none)")
    p.set_defaults(func=cmd_docs)


def cmd_docs(args) -> int:
    if getattr(args, "search", None) is not None:
        if args.page is not None:
            raise UsageError("docs: give a PAGE or --search TERM, not both")
        return _print_search(args.search)
    if args.page is None:
        print("ptclisp docs PAGE, where PAGE is one of:")
        for name, what in PAGES.items():
            print(f"  {name:<16} {what}")
        return 0
    sys.stdout.write(render(args.page))
    return 0


def render(page: str) -> str:
    """The text of `page` (UsageError naming the pages for an unknown one)."""
    if page not in PAGES:
        raise UsageError(f"no documentation page {page!r}; pages: {', '.join(PAGES)}")
    if page == "functions":
        return functions_page()
    if page.endswith("-schema"):
        return schema_text(page[:-len("-schema")])
    text = _static(page)
    if page == "forms":
        text += forms_list()
    elif page == "limits":
        text += limits_tables()
    return text


def search(term: str) -> list[tuple[str, int, str]]:
    """(page, line number, line) for every line of every page that mentions `term` (case-insensitive)."""
    needle = term.casefold()
    found = []
    for page in PAGES:
        for n, line in enumerate(render(page).splitlines(), 1):
            if needle in line.casefold():
                found.append((page, n, line.strip()))
    return found


def _print_search(term: str) -> int:
    if not term.strip():
        raise UsageError("docs --search: give a term to look for")
    found = search(term)
    if not found:
        print(f"ptclisp docs: no page mentions {term!r}", file=sys.stderr)
        return 1
    pages = list(dict.fromkeys(page for page, _, _ in found))
    for page, n, line in found:
        print(f"{page}:{n}: {line[:200]}")
    print(f"{len(found)} line{'s' * (len(found) != 1)} in {len(pages)} page{'s' * (len(pages) != 1)} "
          f"({', '.join(pages)}); read one with 'ptclisp docs PAGE'", file=sys.stderr)
    return 0


def _static(page: str) -> str:
    return resources.files("ptclisp").joinpath("docs", f"{page}.md").read_text(encoding="utf-8")


# ------------------------------------------------------------------ generated parts

def functions_page() -> str:
    """The functions reference, generated from the builtin registry (deterministic: no version, no dates)."""
    from .. import lib
    from ..registry.builtins import BUILTINS as builtins, QUALIFIED
    lib.load()   # fill the registry (importing ptclisp loads no builtin family)
    qualified_only = {(g, n): b for (g, n), b in QUALIFIED.items() if not b.plain}
    by_category: dict[str, list] = {}
    for name, b in builtins.items():
        by_category.setdefault(b.category, []).append((name, b))
    for (group, name), b in qualified_only.items():
        by_category.setdefault(b.category, []).append((f"{group}/{name}", b))
    total = sum(len(v) for v in by_category.values())
    out = ["# Builtin functions", "",
           "Generated from the builtin registry by `ptclisp docs functions`; this file "
           "(docs/reference/functions.md) is checked against it by the test suite, so it matches the code.",
           "", f"{total} functions in {len(by_category)} categories. Arity `n+` means n or more arguments. "
           "A function listed with qualifiers is also reachable as `qualifier/name` (e.g. `clojure.string/join`); "
           "a name written `json/...` is reachable only with its qualifier.", ""]
    out.append("Categories: " + ", ".join(f"[{c}](#{_anchor(c)})" for c in sorted(by_category)))
    out.append("")
    for category in sorted(by_category):
        out += [f"## {category}", ""]
        for name, b in sorted(by_category[category], key=lambda x: x[0]):
            out.append(f"### `{name}`")
            out.append("")
            out.append(" ".join(f"`{s}`" for s in b.signatures) + f" — arity {b.arity_text()}")
            quals = [f"`{q}/`" for g in b.groups if b.plain for q in GROUP_QUALIFIERS.get(g, (g,))]
            if quals:
                out.append("")
                out.append("Qualifiers: " + ", ".join(quals))
            if b.doc:
                out += ["", " ".join(b.doc.split())]
            if b.examples:
                out += ["", "```clojure"] + list(b.examples) + ["```"]
            out.append("")
    return "\n".join(out)


def _anchor(text: str) -> str:
    return "-".join(text.lower().split())


def special_forms() -> list[str]:
    """The sorted names of the special forms the analyzer knows (not its internal ones, spelt with a `#`
    no program can write)."""
    from ..analyzer import SPECIALS
    return sorted(name for name in SPECIALS if not name.endswith("#"))


def forms_list() -> str:
    names = special_forms()
    return "\n## Every special form\n\nGenerated from the analyzer: " + ", ".join(f"`{n}`" for n in names) + ".\n"


def limits_tables() -> str:
    from ..agent import AgentLimits
    out = ["", "## Defaults of an evaluation (`ptclisp.Limits`)", "",
           "Generated from the code. `None` means no limit.", "", "| limit | default |", "|---|---|"]
    from ..runtime.meter import Limits
    defaults = Limits()
    for f in attrs.fields(type(defaults)):
        out.append(f"| `{f.name}` | `{getattr(defaults, f.name)!r}` |")
    out += ["", "## Ceilings of an agent run (`ptclisp.agent.AgentLimits`)", "",
            "Generated from the code. A project's `[limits]` may lower these, never raise them.", "",
            "| limit | default |", "|---|---|"]
    agent = AgentLimits()
    for f in attrs.fields(AgentLimits):
        out.append(f"| `{f.name}` | `{getattr(agent, f.name)!r}` |")
    return "\n".join(out) + "\n"
