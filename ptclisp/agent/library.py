"""The shipped agent preludes and their dependency table (docs/spec/agent-library.md §1.2).

Owns `SHIPPED` (component id -> dependencies; the id is also the namespace
and `preludes/<id>.clj` the file), `shipped_source(id)` (the packaged text)
and `components(select, replace, extra)`: the dependency closure of the
selected ids as loader `Component`s, with sources swapped by `replace`
(the seam a user takes to trial their own `agent.prompt`).  Imports prelude.
"""
from __future__ import annotations

from functools import lru_cache
from importlib import resources

from ..prelude import Component, PreludeError

#: id -> direct dependencies.
SHIPPED: dict[str, tuple[str, ...]] = {
    "agent.main": ("agent.core",),
    "agent.core": ("agent.feedback", "agent.native", "agent.prompt", "agent.retry", "kernel", "llm", "result",
                   "workflow.event"),
    "agent.prompt": ("kernel",),
    "agent.feedback": (),
    "agent.native": (),
    "agent.retry": (),
    "kernel": (),
    "llm": (),
    "result": (),
    "workflow.event": (),
    "cap": (),
}


@lru_cache(maxsize=None)
def shipped_source(component_id: str) -> str:
    """The text of a shipped prelude."""
    if component_id not in SHIPPED:
        raise KeyError(component_id)
    return resources.files("ptclisp.preludes").joinpath(f"{component_id}.clj").read_text(encoding="utf-8")


def closure(select) -> list[str]:
    """The selected ids plus everything they depend on, dependencies first."""
    order: list[str] = []
    seen: set[str] = set()

    def visit(cid: str, path: tuple):
        if cid in seen:
            return
        if cid not in SHIPPED:
            raise PreludeError("unknown_dependency", f"{cid} is not a shipped library component", namespace=cid)
        for dep in SHIPPED[cid]:
            visit(dep, path + (cid,))
        seen.add(cid)
        order.append(cid)

    for cid in select:
        if cid in seen and cid in select[: select.index(cid)]:
            raise PreludeError("invalid_namespace", f"library component {cid} is selected twice", namespace=cid)
        visit(cid, ())
    return order


def components(select=("agent.main",), replace: dict | None = None) -> list[Component]:
    """Loader components for the closure of `select`; `replace` maps an id to replacement source
    (text, or a `Component` whose origin, e.g. the file name, errors then name).

    A replacement keeps the component's id and dependency list; only the source changes.
    """
    replace = dict(replace or {})
    unknown = sorted(set(replace) - set(SHIPPED))
    if unknown:
        raise PreludeError("unknown_dependency", f"cannot replace {', '.join(unknown)}: not a shipped component")
    out = []
    for cid in closure(list(select)):
        if cid in replace:
            r = replace[cid]
            src, origin = (r.source, r.origin) if isinstance(r, Component) else (r, f"<replacement of {cid}>")
        else:
            src, origin = shipped_source(cid), f"ptclisp.preludes/{cid}.clj"
        out.append(Component(src, origin, SHIPPED[cid]))
    return out
