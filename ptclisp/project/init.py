"""`ptclisp init DIR [--example NAME]`: a new project from one of the shipped examples.

The examples live in this package (`ptclisp/project/examples/NAME/`, package
data in the wheel), each a complete project that runs offline out of the
box with a scripted model:

    orders    the orders analysis: which region had the highest paid revenue (the default)
    tools     a tool-using agent: Python functions whose signatures become tool schemas
    workflow  a multi-mission workflow: two missions, two models, one program joining them

`EXAMPLES` lists them with a line each; `init(dir, example)` copies one
into `dir` (which must not exist, or be empty), adds AGENTS.md (how a
coding agent runs, validates, tests and traces the project:
`agents_md.py`) and returns the files written.  Imports ptclisp.exit_codes
(UsageError) and agents_md.
"""
from __future__ import annotations

import os
from importlib import resources

from ..exit_codes import UsageError

EXAMPLES = {
    "orders": "the orders analysis: the region with the highest paid revenue, checked by a result schema",
    "tools": "a tool-using agent: plain Python functions (signature and type hints give the tool schemas)",
    "workflow": "a multi-mission workflow: a workflow program runs two missions with two models",
}
DEFAULT_EXAMPLE = "orders"
_SKIP = {"__pycache__", ".DS_Store"}


def example_root(name: str):
    return resources.files("ptclisp.project").joinpath("examples", name)


def _walk(node, rel=""):
    for child in sorted(node.iterdir(), key=lambda c: c.name):
        if child.name in _SKIP or child.name.endswith(".pyc"):
            continue
        path = f"{rel}/{child.name}" if rel else child.name
        if child.is_dir():
            yield from _walk(child, path)
        else:
            yield path, child


def init(directory: str, example: str = DEFAULT_EXAMPLE) -> list[str]:
    """Copy the example `example` into `directory`; the relative paths written."""
    if example not in EXAMPLES:
        raise UsageError(f"unknown example {example!r}; choose one of: {', '.join(EXAMPLES)}")
    if os.path.exists(directory):
        if not os.path.isdir(directory):
            raise UsageError(f"{directory} exists and is not a directory")
        if os.listdir(directory):
            raise UsageError(f"{directory} is not empty; init writes only into a new or empty directory")
    from .agents_md import agents_md
    files = list(_walk(example_root(example)))
    written = [rel for rel, _ in files]
    try:
        for rel, node in files:
            target = os.path.join(directory, *rel.split("/"))
            os.makedirs(os.path.dirname(target), exist_ok=True)
            with open(target, "wb") as fh:
                fh.write(node.read_bytes())
        if "AGENTS.md" not in written:
            import tomllib
            with open(os.path.join(directory, "ptclisp.toml"), "rb") as fh:
                missions = list((tomllib.load(fh).get("missions") or {"default": {}}))
            with open(os.path.join(directory, "AGENTS.md"), "w", encoding="utf-8") as fh:
                fh.write(agents_md(directory, example, missions[0] if missions else "default"))
            written.append("AGENTS.md")
    except OSError as e:
        raise UsageError(f"cannot write {directory}: {e.strerror or e}") from None
    return written
