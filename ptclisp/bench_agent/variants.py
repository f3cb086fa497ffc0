"""Variants: what is A/B-tested besides the model - mission preludes and agent settings.

`--variant NAME=SPEC` where SPEC is

* a `.clj` file: one mission prelude attached to every task's mission;
* `policy:FILE.clj` - a loop policy prelude (its hooks, ptclisp docs agent), so a
  policy is measured like a prelude;
* a directory: every `*.clj` in it (sorted), plus an optional `variant.json`
  ``{"description": str, "agent": {agent config overrides, e.g. "max_turns": 8},
  "replace": {"agent.prompt": "my_prompt.clj"}, "policy": ["policy.clj"]}`` (`replace`
  swaps a shipped workflow prelude for one in the directory: the prompt seam of
  the agent library; `policy` names loop policy preludes in it);
* `builtin:NAME` - a variant shipped in ptclisp/bench_agent/variants/
  (`wrong`: the control variant that makes the scripted reference model
  answer wrongly on purpose);
* empty or `none` - no preludes (the baseline).

Mission preludes are what the model can call; their namespace docstrings
and exported function docs also reach the prompt (the json-tools mode, which
cannot run Lisp, gets only those notes).  Imports ptclisp.prelude.
"""
from __future__ import annotations

import hashlib
import json
import pathlib
import re
from importlib import resources

import attrs

_NAME = re.compile(r"^[a-z][a-z0-9._-]{0,63}$")


class VariantError(ValueError):
    """A variant spec cannot be used (the message says why)."""


@attrs.frozen
class Variant:
    name: str
    spec: str
    preludes: tuple = ()            # absolute paths of mission prelude files
    agent: dict = attrs.field(factory=dict)
    replace: dict = attrs.field(factory=dict)   # workflow namespace -> absolute path
    policy: tuple = ()              # absolute paths of loop policy preludes (ptclisp docs agent)
    description: str = ""

    def notes(self) -> list[str]:
        """Prompt notes: one line per prelude namespace docstring and one per public function."""
        return prelude_notes(self.preludes)

    def fingerprint(self) -> str:
        """A short hash of everything the variant feeds into a run (prelude texts, settings)."""
        h = hashlib.sha256()
        for p in self.preludes:
            h.update(pathlib.Path(p).read_bytes())
        for k, p in sorted(self.replace.items()):
            h.update(k.encode() + pathlib.Path(p).read_bytes())
        for p in self.policy:
            h.update(b"policy:" + pathlib.Path(p).read_bytes())
        h.update(json.dumps(self.agent, sort_keys=True).encode())
        return h.hexdigest()[:12]


BASELINE = Variant("base", "none")


def builtin_variants() -> list[str]:
    root = resources.files("ptclisp.bench_agent") / "variants"
    return sorted(p.name for p in root.iterdir() if p.is_dir() and not p.name.startswith(("_", ".")))


def parse_variant(text: str) -> Variant:
    name, sep, spec = text.partition("=")
    if not sep:
        name, spec = (text, f"builtin:{text}") if text in builtin_variants() else (pathlib.Path(text).stem, text)
        name = re.sub(r"[^a-z0-9._-]+", "-", name.lower()).strip("-") or "variant"
    name = name.strip()
    if not _NAME.match(name):
        raise VariantError(f"variant name {name!r} must match [a-z][a-z0-9._-]*")
    spec = spec.strip()
    if spec in ("", "none"):
        return Variant(name, "none")
    if spec.startswith("policy:"):
        path = pathlib.Path(spec[len("policy:"):])
        if not (path.is_file() and path.suffix == ".clj"):
            raise VariantError(f"variant {name!r}: policy {str(path)!r} is not a .clj file")
        return Variant(name, spec, policy=(str(path.resolve()),))
    if spec.startswith("builtin:"):
        which = spec[len("builtin:"):]
        if which not in builtin_variants():
            raise VariantError(f"no built-in variant {which!r} (have: {', '.join(builtin_variants())})")
        path = pathlib.Path(str(resources.files("ptclisp.bench_agent") / "variants" / which))
        return _from_dir(name, spec, path)
    path = pathlib.Path(spec)
    if path.is_dir():
        return _from_dir(name, spec, path)
    if path.is_file() and path.suffix == ".clj":
        return Variant(name, spec, preludes=(str(path.resolve()),))
    raise VariantError(f"variant {name!r}: {spec!r} is neither a .clj file, a directory, builtin:NAME nor none")


def _from_dir(name: str, spec: str, path: pathlib.Path) -> Variant:
    path = path.resolve()
    config = {}
    cfg_file = path / "variant.json"
    if cfg_file.is_file():
        try:
            config = json.loads(cfg_file.read_text(encoding="utf-8"))
        except ValueError as e:
            raise VariantError(f"variant {name!r}: variant.json is not valid JSON: {e}") from None
        if not isinstance(config, dict) or set(config) - {"description", "agent", "replace", "policy"}:
            raise VariantError(f"variant {name!r}: variant.json may hold only description, agent, replace "
                               "and policy")
    replace = {}
    for ns, rel in (config.get("replace") or {}).items():
        target = (path / rel).resolve()
        if not target.is_file():
            raise VariantError(f"variant {name!r}: replacement for {ns} ({rel}) not found")
        replace[ns] = str(target)
    policy = []
    for rel in config.get("policy") or ():
        target = (path / str(rel)).resolve()
        if not target.is_file():
            raise VariantError(f"variant {name!r}: policy {rel} not found")
        policy.append(str(target))
    replaced = set(replace.values()) | set(policy)
    preludes = tuple(str(p) for p in sorted(path.glob("*.clj")) if str(p.resolve()) not in replaced)
    agent = config.get("agent") or {}
    if not isinstance(agent, dict):
        raise VariantError(f"variant {name!r}: 'agent' must be an object")
    return Variant(name, spec, preludes=preludes, agent=agent, replace=replace, policy=tuple(policy),
                   description=str(config.get("description", "")))


def with_policy(variant: Variant, paths) -> Variant:
    """`variant` with the policy preludes `paths` added (`bench agent --policy`)."""
    extra = []
    for p in paths:
        path = pathlib.Path(p)
        if not (path.is_file() and path.suffix == ".clj"):
            raise VariantError(f"--policy {p!r} is not a .clj file")
        extra.append(str(path.resolve()))
    return attrs.evolve(variant, policy=tuple(variant.policy) + tuple(extra))


def prelude_notes(paths) -> list[str]:
    """Namespace docstrings and public function docs of prelude files, as prompt lines."""
    from ..prelude import Component, parse_component
    lines = []
    for p in paths:
        for spec in parse_component(Component.file(p)):
            if spec.doc:
                lines.append(f"{spec.name}: {spec.doc}")
            for d in spec.defs.values():
                if d.private or d.visibility != "prompt":
                    continue
                params = " ".join(d.params) if d.kind == "function" else ""
                call = f"({d.ref}{' ' + params if params else ''})" if d.kind == "function" else d.ref
                lines.append(f"{call}{' - ' + d.doc if d.doc else ''}")
    return lines
