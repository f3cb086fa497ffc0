"""The components of a project a candidate may change, and where each one's source lives.

A component id is one of

* `agent.feedback`, `agent.prompt`, `agent.core` - a shipped agent-loop prelude; the project's
  source is the file `[agent] replace` names for it, else the shipped text;
* `prelude:REL` - a mission prelude file, REL exactly as `[missions.M] preludes` spells it;
* `policy:REL` - a policy file, REL exactly as `[agent] policy` spells it (a hooks prelude, as
  `--policy FILE`; a candidate replaces a listed file, it cannot add one).

`parse_id(text)` checks the spelling, `current(project, ref)` gives the project's current source
of a component (text and where it came from), `doc_with(doc, ref, rel)` the project document
with the component's source moved to REL (the same change promotion writes into ptclisp.toml),
and `arm(project, name, override)` the bench variant that runs the project's components (with
one replaced) over a task suite.  Imports the agent library table, the prelude loader and the
bench's Variant.
"""
from __future__ import annotations

import copy
import hashlib
import os

import attrs

from ..agent.library import shipped_source
from ..bench_agent.variants import Variant

AGENT_COMPONENTS = ("agent.feedback", "agent.prompt", "agent.core")
KINDS = ("agent", "prelude", "policy")


class CandidateError(Exception):
    """A candidate command cannot go on: `message` is its one line, `code` the exit class."""

    def __init__(self, message: str, code: int = 2):
        super().__init__(message)
        self.message = message
        self.code = code


@attrs.frozen
class ComponentRef:
    id: str
    kind: str          # agent | prelude | policy
    target: str        # the shipped namespace, or the path as the project document spells it

    @property
    def file_stem(self) -> str:
        """A file name stem for a new source of this component."""
        if self.kind == "agent":
            return self.target
        return os.path.splitext(os.path.basename(self.target))[0]


def sha256(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


def parse_id(text: str) -> ComponentRef:
    """The ComponentRef of an id; CandidateError (usage) naming the accepted forms."""
    if text in AGENT_COMPONENTS:
        return ComponentRef(text, "agent", text)
    kind, sep, rest = text.partition(":")
    if sep and kind in ("prelude", "policy") and rest.strip():
        return ComponentRef(text, kind, rest)
    raise CandidateError(f"--component {text!r}: expected {', '.join(AGENT_COMPONENTS)}, prelude:FILE (a mission "
                         f"prelude as ptclisp.toml names it) or policy:FILE (a file of [agent] policy)")


def policies(doc: dict) -> list:
    """The files of `[agent] policy`, in order (empty without one)."""
    agent = doc.get("agent") if isinstance(doc.get("agent"), dict) else {}
    value = agent.get("policy") or []
    return [value] if isinstance(value, str) else list(value)


def mission_preludes(doc: dict) -> list:
    """Every mission prelude path the document names, first occurrence first."""
    out = []
    for spec in (doc.get("missions") or {}).values():
        for rel in (spec or {}).get("preludes") or ():
            if rel not in out:
                out.append(rel)
    return out


def all_ids(doc: dict) -> list:
    """The ids of every component the project has (the agent loop's, its mission preludes, its policies)."""
    return [*AGENT_COMPONENTS, *(f"prelude:{r}" for r in mission_preludes(doc)),
            *(f"policy:{r}" for r in policies(doc))]


@attrs.frozen
class Source:
    text: str
    origin: str          # the project-relative file, or ptclisp.preludes/ID.clj for a shipped one
    path: str | None     # the absolute path of a project file (None: shipped)


def current(project, ref: ComponentRef) -> Source:
    """The project's current source of `ref`; CandidateError (exit 3) when the project has no such component."""
    if ref.kind == "agent":
        rel = (project.doc.get("agent") or {}).get("replace", {}).get(ref.target)
        if rel is None:
            return Source(shipped_source(ref.target), f"ptclisp.preludes/{ref.target}.clj", None)
        return _file(project, rel)
    names = mission_preludes(project.doc) if ref.kind == "prelude" else policies(project.doc)
    if ref.target not in names:
        where = "[missions] preludes" if ref.kind == "prelude" else "[agent] policy"
        listed = ", ".join(names) or "none"
        raise CandidateError(f"{ref.id}: {ref.target} is not in the project's {where} (it has: {listed})", 3)
    return _file(project, ref.target)


def _file(project, rel: str) -> Source:
    path = project.path(rel)
    try:
        with open(path, encoding="utf-8") as fh:
            return Source(fh.read(), rel, path)
    except (OSError, UnicodeDecodeError) as e:
        raise CandidateError(f"{rel}: cannot read: {getattr(e, 'strerror', None) or e}", 3) from None


def doc_with(doc: dict, ref: ComponentRef, rel: str) -> dict:
    """A copy of the project document in which `ref`'s source is the file `rel`."""
    new = copy.deepcopy(doc)
    if ref.kind == "agent":
        new.setdefault("agent", {}).setdefault("replace", {})[ref.target] = rel
        return new
    if ref.kind == "prelude":
        for spec in (new.get("missions") or {}).values():
            if spec and spec.get("preludes"):
                spec["preludes"] = [rel if p == ref.target else p for p in spec["preludes"]]
        return new
    agent = new.setdefault("agent", {})
    agent["policy"] = [rel if p == ref.target else p for p in policies(new)]
    return new


def arm(project, name: str, override: tuple | None = None) -> Variant:
    """The bench Variant running the project's components in its entry mission, `override` = (ref, absolute
    path) put in place of one of them: the agent loop's replacements, the mission preludes, the policies."""
    doc = project.doc if override is None else doc_with(project.doc, override[0], override[1])
    def path(rel):
        return os.path.abspath(project.path(rel))
    replace = {ns: path(rel) for ns, rel in ((doc.get("agent") or {}).get("replace") or {}).items()}
    mission = (doc.get("missions") or {}).get(project.default_mission()) or {}
    preludes = tuple(path(rel) for rel in mission.get("preludes") or ())
    fields = {"preludes": preludes, "replace": replace,
              "description": f"the project's components{' with ' + override[0].id + ' replaced' if override else ''}"}
    fields["policy"] = tuple(path(rel) for rel in policies(doc))    # Variant.policy: absolute paths, in order
    return Variant(name, f"project:{project.name}", **fields)
