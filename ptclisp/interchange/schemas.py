"""The JSON Schemas shipped in ptclisp/schemas/ (envelope, project, candidate, trial, promotion).

`schema_text(name)` is a schema's text (what `ptclisp docs envelope-schema` prints), `load_schema(name)`
the parsed document the project reader, the candidate store and the tests validate against. A leaf:
imports the standard library only.
"""
from __future__ import annotations

import json
from importlib import resources


def schema_text(name: str) -> str:
    """The text of a JSON Schema shipped in ptclisp/schemas/ (`envelope`, `project`, ...)."""
    return resources.files("ptclisp").joinpath("schemas", f"{name}.schema.json").read_text(encoding="utf-8")


def load_schema(name: str) -> dict:
    """The JSON Schema `name`, parsed."""
    return json.loads(schema_text(name))
