"""Assembling a host's policy: the gate's components, policy preludes, and the final-value check.

Owns `gate_components(replace)` (the active `agent.feedback` and
`agent.prompt`: shipped or replaced), `policy_components(items)` (policy
preludes as loader Components; each must be a namespace exporting at least
one hook, checked when the gate first attaches them) and
`check_final_value(contract, outcome)`: the host's own check of the value
`agent.main/run` finished with against the application's result contract,
whatever the loop did.  Imports the agent's errors, library and prelude.
"""
from __future__ import annotations

from ..prelude import Component, PreludeError, as_component
from .errors import RunError
from .library import SHIPPED, shipped_source

GATED = ("agent.feedback", "agent.prompt")


def gate_components(replace: dict) -> dict:
    out = {}
    for cid in GATED:
        r = replace.get(cid)
        if r is None:
            out[cid] = Component(shipped_source(cid), f"ptclisp.preludes/{cid}.clj", SHIPPED[cid])
        elif isinstance(r, Component):
            out[cid] = Component(r.source, r.origin, SHIPPED[cid])
        else:
            out[cid] = Component(r, f"<replacement of {cid}>", SHIPPED[cid])
    return out


def policy_components(items) -> list:
    comps = [as_component(c) for c in items]
    origins = [c.origin for c in comps]
    for i, o in enumerate(origins):
        if o in origins[:i]:
            comps[i] = Component(comps[i].source, f"{o} (#{i + 1})", comps[i].dependencies)
    return comps


def check_hooks(gate) -> None:
    """Refuse a policy prelude that exports none of the hooks (a misspelt hook would silently do nothing)."""
    from .policy import HOOKS, policy_namespaces
    try:
        with gate.set.active.use(strict=True) as sandbox:
            preludes = sandbox.env.preludes
    except PreludeError as e:
        d = e.details
        if e.kind == "prelude_attach_failed" and d.get("tool") and d.get("origin") in \
                {c.origin for c in gate.policies}:
            raise PreludeError("invalid_policy", f"{d.get('ref')} names tool/{d['tool']}, but policy code runs "
                                                 "without tools", origin=d["origin"], tool=d["tool"]) from None
        raise
    for comp in gate.policies:
        names = [n for n in preludes if n in policy_namespaces(comp)]
        if not any(h in preludes[n] for n in names for h in HOOKS):
            raise PreludeError("invalid_policy", "the policy exports none of the hooks "
                                                 f"{', '.join(HOOKS)}", origin=comp.origin)


def check_final_value(contract, out) -> None:
    """Turn a successful `out` whose value breaks the result contract into a result_contract_failed one."""
    check = contract.check(out.raw)
    if check["valid?"]:
        return
    details = {}
    v = check["details"].get("violations") or []
    if v:
        details["constraint"] = v[0].get("kind")
        details["path"] = v[0].get("segments", [])
    out.ok = False
    out._value = None
    out.error = RunError("workflow_failed", "result_contract_failed",
                         "the workflow's value does not satisfy the application result contract (checked by the host)",
                         details)
