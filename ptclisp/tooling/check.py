"""Static checking of programs and preludes without running them (`ptclisp check`).

A program is read, then every top-level form is analyzed on its own, so one
run reports the first problem of each form rather than only the first of the
file. Names that any form defines are visible to all of them, as they are
when the whole program runs.

A file whose first form is `(ns ...)` is prelude source and is checked as a
prelude is when it is attached: its structure (ns, defn, defn-, def, metadata,
contracts), then every definition against its namespace, reporting each
definition that does not analyze. Programs checked in the same run see the
public exports of those preludes, as well as of the `--prelude` files.

A program that names a namespace of the shipped agent library (`agent.core/run-value`,
`llm/...`) is a workflow: it is checked against that library's exports, as
`ptclisp run FILE --model ...` attaches it (`uses_workflow_library`, `workflow_library`).

Nothing is evaluated: preludes are compiled but their definitions are not run.
Imports the pipeline (reading and analysis), the analyzer's Env, errors and (lazily) the prelude compiler and the
shipped agent library's table.
"""
from __future__ import annotations

import re

import attrs

from .. import lib
from ..analyzer import Env
from ..errors import PtcError, Span
from ..pipeline import analyzer, defined_names, read_program
from ..reader.parser import strip_bom
from ..runtime.meter import Limits, default_limits


@attrs.frozen(slots=True)
class Problem:
    kind: str
    message: str
    span: Span | None

    def render(self, filename: str) -> str:
        where = f"{filename}:{self.span.line}:{self.span.col}" if self.span else filename
        return f"{where}: {self.kind}: {self.message}"


def check_source(text: str, env: Env | None = None, limits: Limits | None = None) -> list[Problem]:
    """Every static problem found in program `text`, in source order (empty when it is clean).
    Read as a run reads it (ptclisp.pipeline.read_program under `limits`, default `Limits()`: the
    size gate, the reader, the symbol budget), then each top-level form analyzed on its own."""
    lib.load()   # the analyzer resolves names against the registered builtins
    try:
        forms = read_program(text, limits or default_limits())
    except PtcError as exc:
        return [Problem(exc.kind, exc.message, exc.span)]
    env = env or Env()
    defined = defined_names(forms)
    problems = []
    for form in forms:
        scoped = Env(user_names=set(env.user_names) | defined, tools=env.tools, preludes=env.preludes,
                     strict_data=env.strict_data, history=env.history, protected=env.protected)
        try:
            analyzer(scoped).analyze_program([form])
        except PtcError as exc:
            problems.append(Problem(exc.kind, exc.message, exc.span or form.span))
        except RecursionError:
            problems.append(Problem("memory_exceeded", "form nested too deeply to analyze", form.span))
    return problems


# ------------------------------------------------------------------ preludes

_NS_FIRST = re.compile(r"(?:[\s,]|;[^\n]*)*\(\s*ns(?=[\s,;()\[\]{}\"]|$)")


def is_prelude_source(text: str) -> bool:
    """Does `text` start (after whitespace and comments) with an `(ns ...)` form?"""
    return _NS_FIRST.match(strip_bom(text)) is not None


def compile_preludes(named_texts: list[tuple[str, str]], attached: dict | None = None) -> dict:
    """Compile prelude sources (name, text) without running them: namespace name -> CompiledNamespace.

    Raises PreludeError for the first problem, as attaching them would.
    """
    from ..prelude import Component, build
    compiled = build([Component(text, name) for name, text in named_texts], dict(attached or {}))
    return {**(attached or {}), **{c.name: c for c in compiled}}


def exports_of(compiled: dict) -> dict:
    """The analyzer's view (namespace -> name -> Export) of compiled namespaces."""
    from ..prelude import Export
    return {name: {k: Export(r) for k, r in c.records.items()} for name, c in compiled.items()}


def check_preludes(named_texts: list[tuple[str, str]], attached: dict | None = None):
    """Check prelude sources (name, text) together, against the `attached` compiled namespaces.

    Returns (problems, compiled): a list of Problems per source, in source order, and the
    namespaces that compiled (name -> CompiledNamespace), whose exports programs may use.
    A source that declares a namespace also in `attached` replaces it.
    """
    from ..prelude import Component, PreludeError, build, parse_component
    problems: list[list[Problem]] = [[] for _ in named_texts]
    index = {}
    comps, declared = [], set()
    for i, (name, text) in enumerate(named_texts):
        comp = Component(text, name)
        index.setdefault(name, i)
        try:
            declared.update(s.name for s in parse_component(comp))
        except PreludeError as e:
            problems[i].append(_prelude_problem(e))
            continue
        comps.append(comp)
    base = {n: c for n, c in (attached or {}).items() if n not in declared}
    errors: list = []
    compiled: dict = {}
    try:
        compiled = {c.name: c for c in build(comps, base, errors)}
    except PreludeError as e:
        errors.append(e)
    except RecursionError:
        errors.append(PreludeError("memory_exceeded", "a definition is nested too deeply to analyze",
                                   origin=comps[0].origin if comps else None))
    for e in errors:
        i = index.get(e.details.get("origin"), 0)
        problems[i].append(_prelude_problem(e))
    for ps in problems:
        ps.sort(key=lambda p: (p.span.line, p.span.col) if p.span else (0, 0))
    # a namespace with a broken definition still has its full export records: programs may use it
    return problems, compiled


def _prelude_problem(e) -> Problem:
    """A Problem for a PreludeError (its message without the origin prefix the renderer repeats)."""
    origin = e.details.get("origin")
    message = e.message
    if origin and message.startswith(origin + ": "):
        message = message[len(origin) + 2:]
    return Problem(e.kind, message, e.span)


def check_sources(named_texts: list[tuple[str, str]], attached: dict | None = None, tools=None):
    """Check programs and preludes (name, text) as `ptclisp check` does: a list of Problems per source.

    Prelude sources (`is_prelude_source`) are checked together first; programs then see the
    exports of `attached` and of every prelude source that compiled. `tools`: the granted tool
    names (None: any tool name passes).
    """
    preludes = [i for i, (_, text) in enumerate(named_texts) if is_prelude_source(text)]
    out: list[list[Problem]] = [[] for _ in named_texts]
    compiled = dict(attached or {})
    if preludes:
        found, checked = check_preludes([named_texts[i] for i in preludes], attached)
        for i, ps in zip(preludes, found):
            out[i] = ps
        compiled.update(checked)
    env = Env(preludes=exports_of(compiled), tools=tools)
    for i, (_, text) in enumerate(named_texts):
        if i not in preludes:
            out[i] = check_source(text, env)
    return out


def uses_workflow_library(text: str) -> bool:
    """Does program `text` name a namespace of the shipped agent library (`agent.core/...`, `llm/...`)?"""
    from ..agent.library import SHIPPED
    names = "|".join(re.escape(n) for n in sorted(SHIPPED, key=len, reverse=True))
    return re.search(rf"(?<![\w.*+!?<>=-])(?:{names})/", text) is not None


def workflow_library() -> dict:
    """The shipped agent library (agent.main's closure) compiled, never run: name -> CompiledNamespace."""
    from ..agent.library import components
    from ..prelude import build
    return {c.name: c for c in build(components(("agent.main",)), {})}
