"""The gated policy functions of the loop, with the policy prelude's hooks applied around them.

Owns `gated(run, ref, args)`: the value of an `agent.feedback` /
`agent.prompt` function called through the run's gate
(`ptclisp.agent.policy.PolicyGate`), and where a policy prelude exports
one, its hook on top:

    agent.feedback/<feedback>  then render-feedback [turn state] may replace the text
    agent.prompt/render        with the model context project-context [shapes mission] chose,
                               then render-prompt [sections state] may reorder or add sections

Text a hook writes reaches the model inside untrusted-output markers, as
tool output does.  Imports the agent's data and policy modules.
"""
from __future__ import annotations

import json

from ..values import Keyword, Map
from .envelopes import K, envelope_ok, kwmap
from .policy import FEEDBACK, SECTION_CHARS, wrap_untrusted

SHAPE_DOCS = 300


def _name(x):
    return x.name if type(x) is Keyword else x


def _state(run) -> dict:
    o = run.options
    out = {"turn": run.loop_requests, "max_transcript_chars": o.max_transcript_chars}
    if o.turns is not None:
        out.update(max_turns=o.turns, turns_remaining=max(o.turns - run.loop_requests, 0))
    return out


def gated(run, ref: str, args: list):
    gate = run.gate
    if ref == "agent.prompt/render":
        return _render_prompt(run, gate, args)
    value = gate.call_function(ref, args)
    short = ref.split("/", 1)[1]
    if ref.startswith("agent.feedback/") and short in FEEDBACK and gate.has_hook("render-feedback"):
        turn = {"feedback": short, "text": value}
        ev = args[0] if args and type(args[0]) is Map else None
        if ev is not None and short != "protocol-error":
            for key in ("outcome", "kind", "reason"):
                v = ev.lookup(K(key))
                if type(v) is Keyword:
                    turn[key] = v.name
            obs = ev.lookup(K("observation"))
            if isinstance(obs, str):
                turn["observation"] = obs
        elif ev is not None:
            turn["reason"] = _name(ev.lookup(K("reason")))
        out = gate.call_hook("render-feedback", [turn, _state(run)])
        if isinstance(out, str):
            return wrap_untrusted(out, "policy:render-feedback")
    return value


def _context_envelope(run, gate, mission):
    env = run.kernel_mission_model_context(kwmap({"mission": mission}))
    if env.lookup(K("status")) != K("ok") or not gate.has_hook("project-context"):
        return env
    doc = json.loads(env.lookup(K("value")))
    entries = doc.get("entries") or []
    shapes = [{"form": e.get("form"), "kind": e.get("kind"), "effect": e.get("effect"),
               "docs": (e.get("docs") or "")[:SHAPE_DOCS], "contract": e.get("contract")} for e in entries]
    keep = gate.call_hook("project-context", [shapes, mission])
    if keep is None:
        return env
    wanted = set(keep)
    doc["entries"] = [e for e in entries if e.get("form") in wanted]
    return envelope_ok(json.dumps(doc, ensure_ascii=False, separators=(",", ":")))


def _render_prompt(run, gate, args):
    state = args[0] if args else None
    mission = state.lookup(K("mission")) if type(state) is Map else None
    if not isinstance(mission, str):
        mission = "default"
    envelope = _context_envelope(run, gate, mission)
    if envelope.lookup(K("status")) != K("ok"):
        return envelope           # the loop reports the mission as unavailable, as it always has
    text = gate.call_function("agent.prompt/render", args, {"model_contexts": Map({mission: envelope})})
    if not isinstance(text, str) or not gate.has_hook("render-prompt"):
        return text
    parts = text.split("\n\n")
    sections = [{"name": p.split("\n", 1)[0][:80] or "section", "text": p[:SECTION_CHARS]} for p in parts]
    st = {"mission": mission, "terminal_only": state.lookup(K("terminal-only?")) is True} | _state(run)
    out = gate.call_hook("render-prompt", [sections, st])
    if out is None:
        return text
    shipped = {p[:SECTION_CHARS]: p for p in parts}
    rendered = "\n\n".join(shipped[s["text"]] if s["text"] in shipped else
                           wrap_untrusted(s["text"], f"policy:render-prompt:{s['name']}") for s in out)
    return rendered if rendered.strip() and len(rendered) <= gate.options.output_chars else text
