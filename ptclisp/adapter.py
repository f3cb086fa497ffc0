"""The internal names the project, docs and operation modules use, gathered in one place.

`ptclisp.operate`, `ptclisp.project`, `ptclisp.commands.docs` and
`ptclisp.agent.python_tools` reach everything that is not a public name of `ptclisp`,
`ptclisp.agent` or `ptclisp.providers` through the functions below, so a
move of a core module is re-pointed here once.  Every import is lazy: importing this module loads nothing.
"""
from __future__ import annotations


def _load_builtins() -> None:
    """Fill the registry (importing ptclisp loads no builtin family until a session needs them)."""
    from . import lib
    lib.load()


def max_time_ms() -> int:
    """The largest time limit `ptclisp.Limits` accepts."""
    from .runtime.meter import MAX_TIME_MS
    return MAX_TIME_MS


def builtins() -> dict:
    """The builtin registry: plain name -> Builtin record (signatures, doc, arity, groups, category)."""
    from .registry.builtins import BUILTINS
    _load_builtins()
    return BUILTINS


def qualified_builtins() -> dict:
    """(group, name) -> Builtin for the builtins reachable only with a qualifier (json/, regex/, ...)."""
    from .registry.builtins import QUALIFIED
    _load_builtins()
    return QUALIFIED


def group_qualifiers() -> dict:
    """Qualifier -> group ("clojure.string" -> "string", ...)."""
    from .registry.builtins import QUALIFIERS
    _load_builtins()
    return QUALIFIERS


def special_forms() -> list[str]:
    """The names of the special forms the analyzer knows (not its internal ones, spelt with a `#`
    no program can write)."""
    from .analyzer import SPECIALS
    return sorted(name for name in SPECIALS if not name.endswith("#"))


def limit_defaults():
    """The default `ptclisp.Limits` (documented in `ptclisp docs limits`)."""
    from .runtime.meter import Limits
    return Limits()


def component(source: str, origin: str):
    """A prelude loader Component for `source` whose errors name `origin`."""
    from .prelude import Component
    return Component(source, origin)


def prelude_error_class():
    from .prelude import PreludeError
    return PreludeError


def evaluate(env, source: str, limits):
    """Evaluate `source` in a session Environment under `limits`; a `ptclisp.Result`."""
    from .session import evaluate as run
    return run(env, source, limits)


def analyze(env, source: str) -> None:
    """Read and analyze `source` against an Environment without running it (raises PtcError)."""
    from .analyzer import Analyzer
    from .reader.parser import read
    Analyzer(env.analyzer_env()).analyze_program(read(source))


def mission_session(name: str, mission, limits):
    """A MissionSession: the exact environment a mission's programs run in."""
    from .agent.mission import MissionSession
    usage = {"llm_calls": {}, "subordinate_evaluations": 0}
    return MissionSession(name, mission, limits, lambda: dict(usage))


def keyword(name: str):
    from .values import Keyword
    return Keyword(name)


def is_map(value) -> bool:
    from .values import Map
    return type(value) is Map


def pr_str(value) -> str:
    from .values.text import pr_str as show
    return show(value)
