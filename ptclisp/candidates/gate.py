"""The static gate a candidate must pass before a trial counts and before promotion.

`check(project, record, text)` returns the broken rules, each `(rule, message)`, at most one per
rule (its message lists every instance):

    stale        the base is still the project's current source of the component
    compile      the source reads, analyzes and compiles (against the namespaces it runs with)
    policy       a policy candidate attaches as the host attaches policies (`[agent] policy`, `--policy`):
                 it exports at least one of the hooks and names no tool (policy code runs without tools)
    namespace    it defines exactly the namespaces of the base
    exports      every public definition of the base is still there, of the same kind, and accepts
                 every argument count the base accepted
    tool_call    no `tool/` call the base did not make
    grant        no `:requires` the base did not declare, no declared `:effect` above the base's
    write_tool   no call of a write (or unknown-effect) tool from a component whose base called none
    visibility   no definition changes between public and private, or its :visibility; the
                 namespace keeps its visibility
    size         the source stays within max(2 x base, base + 16 KiB), and at most 256 KiB

Tool effects are the project's ([tools.X] effect, [mcp.S] effects; unknown when not given).
Imports components, the agent library table and the prelude loader.
"""
from __future__ import annotations

from ..agent.library import components as library_components
from ..errors import PtcError
from ..prelude import Component, build
from .components import ComponentRef, current, mission_preludes, parse_id, policies, sha256

MAX_BYTES = 256 * 1024
RULES = ("stale", "compile", "policy", "namespace", "exports", "tool_call", "grant", "write_tool", "visibility",
         "size")
_EFFECT_RANK = {"read": 0, "write": 1, "unknown": 2, None: -1}


def check(project, record: dict, text: str) -> list:
    """[(rule, message)] of every broken rule, in RULES order (empty: the gate passes)."""
    ref = parse_id(record["component"])
    base = current(project, ref)
    broken: dict = {}
    if sha256(base.text) != record["base"]["sha256"]:
        broken["stale"] = (f"the project's {ref.id} changed since this candidate was made (base "
                           f"{record['base']['sha256'][:12]}, now {sha256(base.text)[:12]}); make it again "
                           f"against the current source with 'candidate new --component {ref.id} --file F'")
    limit = min(MAX_BYTES, max(2 * len(base.text.encode()), len(base.text.encode()) + 16 * 1024))
    size = len(text.encode())
    if size > limit:
        broken["size"] = f"{size} bytes; the bound is {limit} (twice the base or base + 16 KiB, at most 256 KiB)"
    old = _compiled(project, ref, base.text, base.origin)
    new = _compiled(project, ref, text, f"{ref.id} (candidate {record['id']})")
    if isinstance(new, str):
        broken["compile"] = new
    elif ref.kind == "policy":
        problem = _policy_problem(project, ref, text, f"{ref.id} (candidate {record['id']})")
        if problem:
            broken["policy"] = problem
    if not isinstance(new, str) and not isinstance(old, str):
        for rule, msgs in _compare(project, old, new).items():
            if msgs:
                broken[rule] = "; ".join(msgs)
    return [(r, broken[r]) for r in RULES if r in broken]


def _compiled(project, ref: ComponentRef, text: str, origin: str):
    """{namespace: CompiledNamespace} of the component's own namespaces, or the compile error as a string."""
    from ..lib import load
    load()                      # the builtins the analyzer resolves against
    mine = Component(text, origin)
    if ref.kind == "agent":
        comps = library_components(("agent.main",), {ref.target: mine})
        mine = next(c for c in comps if c.origin == origin)
    elif ref.kind == "prelude":
        comps = _mission_components(project, ref, mine)
    else:
        comps = library_components(("agent.main",)) + [mine]
    errors: list = []
    try:
        built = build(comps, errors=errors)
    except PtcError as e:
        return _error_text(e)
    except RecursionError:
        return "the source nests too deeply to read"
    if errors:
        return _error_text(errors[0])
    from ..prelude import parse_component
    names = {s.name for s in parse_component(mine)}
    return {c.name: c for c in built if c.name in names}


def _policy_problem(project, ref: ComponentRef, text: str, origin: str) -> str | None:
    """The host's own refusal of the project's policies with this one in place (None: the host attaches
    them): the check AgentHost makes when it is built, over the project's agent.feedback / agent.prompt."""
    from ..agent.bindings import WorkflowTools
    from ..agent.policy import PolicyGate, PolicySet
    from ..agent.policy_setup import check_hooks, gate_components, policy_components
    from ..prelude import PreludeError
    items = []
    for rel in policies(project.doc):
        if rel == ref.target:
            items.append(Component(text, origin))
        else:
            try:
                items.append(Component.file(project.path(rel)))
            except PtcError:
                continue
    try:
        replace = project.workflow_replacements() or {}
        policy_set = PolicySet(gate_components(replace), policy_components(items), WorkflowTools.BINDINGS)
        check_hooks(PolicyGate(policy_set, lambda event: None, lambda: 0))
    except PtcError as e:
        text = _error_text(e) if not isinstance(e, PreludeError) or e.kind != "invalid_policy" else e.message
        return text.replace(f"{origin}: ", "")
    return None


def _mission_components(project, ref: ComponentRef, mine: Component) -> list:
    """The preludes of the missions that use the file, in order, with this one replaced (each file once)."""
    out, seen = [], set()
    for spec in project.missions.values():
        rels = (spec or {}).get("preludes") or ()
        if ref.target not in rels:
            continue
        for rel in rels:
            if rel in seen:
                continue
            seen.add(rel)
            if rel == ref.target:
                out.append(mine)
            else:
                try:
                    out.append(Component.file(project.path(rel)))
                except PtcError:
                    continue
    return out or [mine]


def _error_text(e) -> str:
    span = getattr(e, "span", None)
    where = f" at line {span.line}, column {span.col}" if span is not None and span.line \
        and f"line {span.line}, column {span.col}" not in e.message else ""
    return f"Error ({e.kind}): {e.message}{where}"


def _tool_effects(project) -> dict:
    effects = {name: spec.get("effect", "unknown") for name, spec in project.tools.items()}
    for server, spec in project.mcp.items():
        rename = spec.get("rename") or {}
        for tool, eff in (spec.get("effects") or {}).items():
            effects[f"{server}.{rename.get(tool, tool)}"] = eff
    return effects


def _tools(cns: dict) -> set:
    """The tool names the namespaces' definitions call."""
    out: set = set()
    for c in cns.values():
        for names in c.tools.values():
            out |= set(names)
    return out


def _compare(project, old: dict, new: dict) -> dict:
    out = {r: [] for r in ("namespace", "exports", "tool_call", "grant", "write_tool", "visibility")}
    if set(old) != set(new):
        out["namespace"].append(f"defines {', '.join(sorted(new)) or 'no namespace'}; the base defines "
                                f"{', '.join(sorted(old))}")
    for ns in sorted(set(old) & set(new)):
        o, n = old[ns], new[ns]
        if o.visibility != n.visibility:
            out["visibility"].append(f"namespace {ns} is {n.visibility}, the base {o.visibility}")
        for name, rec in o.records.items():
            _export(out, rec, n.records.get(name), n.defs.get(name))
        for name, d in n.defs.items():
            od = o.defs.get(name)
            if od is not None and od.private == d.private and od.visibility != d.visibility:
                out["visibility"].append(f"{d.ref} is :visibility {d.visibility}, the base {od.visibility}")
            if od is not None and od.private and not d.private:
                out["visibility"].append(f"{d.ref} is public; the base keeps it private")
            grants = set(d.explicit_requires) - set(od.explicit_requires if od is not None else ())
            if grants:
                out["grant"].append(f"{d.ref} requires {', '.join(sorted(grants))}")
            if _EFFECT_RANK[d.declared_effect] > max(_EFFECT_RANK[od.declared_effect if od is not None else None], 0):
                was = "" if od is None else f" (base: {od.declared_effect or 'none'})"
                out["grant"].append(f"{d.ref} declares :effect {d.declared_effect}{was}")
    old_tools, new_tools = _tools(old), _tools(new)
    added = sorted(new_tools - old_tools)
    if added:
        out["tool_call"].append(f"calls {', '.join('tool/' + t for t in added)}, which the base never calls")
    effects = _tool_effects(project)
    writes = {t for t in new_tools if effects.get(t, "unknown") != "read"}
    if writes and not {t for t in old_tools if effects.get(t, "unknown") != "read"}:
        out["write_tool"].append(f"calls {', '.join('tool/' + t for t in sorted(writes))} (effect "
                                 f"{'/'.join(sorted({effects.get(t, 'unknown') for t in writes}))}); the base "
                                 f"calls no write tool")
    return out


def _export(out: dict, rec, new, new_def) -> None:
    if new is None:
        if new_def is not None and new_def.private:
            out["visibility"].append(f"{rec.ref} is private; the base exports it")
        else:
            out["exports"].append(f"{rec.ref} is gone")
        return
    if rec.kind != new.kind:
        out["exports"].append(f"{rec.ref} is a {new.kind}, the base a {rec.kind}")
        return
    if rec.kind != "function":
        return
    if rec.variadic:
        ok = new.variadic and new.arity <= rec.arity
    else:
        ok = new.arity == rec.arity or (new.variadic and new.arity <= rec.arity)
    if not ok:
        out["exports"].append(f"{rec.ref} takes {_arity(new)} argument(s), the base {_arity(rec)}")
    if rec.visibility != new.visibility:
        out["visibility"].append(f"{rec.ref} is :visibility {new.visibility}, the base {rec.visibility}")


def _arity(rec) -> str:
    return f"{rec.arity} or more" if rec.variadic else str(rec.arity)


def gate_record(project, record: dict, text: str) -> dict:
    """The stored gate result (gate.json)."""
    from .store import now
    broken = check(project, record, text)
    return {"candidate": record["id"], "time": now(), "passed": not broken, "base_sha256": record["base"]["sha256"],
            "broken": [{"rule": r, "message": m} for r, m in broken]}


__all__ = ["check", "gate_record", "RULES", "mission_preludes"]
