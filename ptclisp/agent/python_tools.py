"""Plain Python functions as agent tools: `capability_for(name, fn)`.

Turns a callable granted with `--tools module:attr` (or a project's
`[tools.NAME] python = "module:attr"`) into a mission `Capability` whose
input schema the model is shown, so its first request spells out
`(tool/lookup {"id" id})` with `id :int` instead of a bare `(tool/lookup {})`.
How the callable is called and its schema come from `ptclisp.host.calling`,
the one binding path `ptclisp.host.tools.ToolSet` uses too.  Imports ptclisp.agent
(Capability) and tool_calling.
"""
from __future__ import annotations

import inspect

from ..host.calling import MAX_DEPTH, calling_convention, schema_of  # noqa: F401 - re-exported


def capability_for(name: str, fn):
    """A `ptclisp.agent.Capability` for the plain callable `fn` (see `ptclisp.host.calling`)."""
    from . import Capability
    doc = (inspect.getdoc(fn) or "").strip()
    description = doc.splitlines()[0] if doc else ""
    call, schema = calling_convention(fn)
    return Capability(name, call, description=description, input_schema=schema)
