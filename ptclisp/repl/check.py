"""Static checking of a program without running it (`ptclisp check`).

Reads the text, then analyzes every top-level form on its own, so one run
reports the first problem of each form rather than only the first of the
file. Names that any form defines are visible to all of them, as they are
when the whole program runs. Nothing is compiled or evaluated.
"""
from __future__ import annotations

import attrs

from ..analyzer import Analyzer, Env
from ..errors import PtcError, Span
from ..reader import read


@attrs.frozen(slots=True)
class Problem:
    kind: str
    message: str
    span: Span | None

    def render(self, filename: str) -> str:
        where = f"{filename}:{self.span.line}:{self.span.col}" if self.span else filename
        return f"{where}: {self.kind}: {self.message}"


def check_source(text: str, env: Env | None = None) -> list[Problem]:
    """Every static problem found in `text`, in source order (empty when it is clean)."""
    try:
        forms = read(text)
    except PtcError as exc:
        return [Problem(exc.kind, exc.message, exc.span)]
    env = env or Env()
    defined = _defined_names(forms)
    problems = []
    for form in forms:
        scoped = Env(user_names=set(env.user_names) | defined, tools=env.tools, preludes=env.preludes,
                     strict_data=env.strict_data, history=env.history, protected=env.protected)
        try:
            Analyzer(scoped).analyze_program([form])
        except PtcError as exc:
            problems.append(Problem(exc.kind, exc.message, exc.span or form.span))
        except RecursionError:
            problems.append(Problem("memory_exceeded", "form nested too deeply to analyze", form.span))
    return problems


def _defined_names(forms) -> set[str]:
    """Names that `def`/`defn` forms anywhere in the program introduce."""
    az = Analyzer(Env())
    az._collect_defs(forms)  # the analyzer's own rule, so check and run agree on what is defined
    return set(az.program_defs)
