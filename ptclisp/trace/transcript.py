"""One run's conversation as readable text (`ptclisp transcript RUN_ID --runs DIR`).

Owns `transcript(run, system=False) -> str`: the task, then per turn what
the model said and the program it wrote, the program's result (outcome,
error kind and position, message, observation, prints, tool calls), the
feedback sent back, and the run's outcome.  It needs private evidence
(`NoEvidence` otherwise).  Imports trace.reader.
"""
from __future__ import annotations

import json

from .reader import Run


class NoEvidence(ValueError):
    """The run was recorded without --inspect: there is no conversation to show."""


def _indent(text: str, pad: str = "    ") -> str:
    return "\n".join(pad + line if line else line for line in text.splitlines()) or pad


def _plain(x) -> str:
    return x if isinstance(x, str) else json.dumps(x, ensure_ascii=False)


def transcript(run: Run, system: bool = False) -> str:
    if not run.has_private:
        raise NoEvidence(f"run {run.id} has no private evidence: record runs with --trace-dir DIR --inspect "
                         f"to keep the conversation")
    s = run.summary()
    err = s["error"]
    status = s["status"] + (f" ({err['kind']}/{err['reason']})" if err else "")
    out = [f"run {run.id}: {status}, {s['turns']} turns, model {s['model'] or '-'}, "
           f"{s['input_tokens']} input + {s['output_tokens']} output tokens"]
    task = run.task_text()
    turns = run.turns()
    if system:
        sysprompt = next((t.get("system") for t in turns if t.get("system")), None)
        if sysprompt:
            out += ["", "== system ==", sysprompt]
    if turns and turns[0].get("sent"):
        for m in turns[0]["sent"]:
            out += ["", f"== {m.get('role', '?')} ==", _plain(m.get("content") or "")]
    elif task:
        out += ["", "== task ==", task]
    for t in turns:
        resp = t.get("response") or {}
        tokens = resp.get("tokens") or {}
        usage = (f"{tokens.get('input', 0)} in / {tokens.get('output', 0)} out" if tokens else "usage not reported")
        out += ["", f"== turn {t['turn']}: assistant ({resp.get('alias')}, {resp.get('duration_ms')} ms, {usage}) =="]
        if resp.get("status") == "error":
            e = resp.get("error") or {}
            out.append(f"[model call failed: {e.get('kind')}/{e.get('reason')}]")
        if t.get("text"):
            out.append(t["text"])
        if t.get("program") is not None:
            out += ["run_ptc_lisp:", _indent(t["program"])]
        ev = t.get("evaluation")
        if ev:
            e = ev.get("error") if isinstance(ev.get("error"), dict) else None
            where = f" at line {e.get('line')}, column {e.get('col')}" if e and e.get("line") else ""
            kind = f" {e.get('kind')}" if e and e.get("kind") else ""
            out.append(f"-> {ev.get('outcome')}{kind}{where} ({ev.get('duration_ms')} ms)")
            if t.get("message"):
                out.append(_indent(t["message"]))
            for c in t.get("tool_calls") or []:
                out.append(f"   tool/{c.get('name')} {c.get('status')} in {c.get('duration_ms')} ms")
            if t.get("prints"):
                out += ["   prints:", _indent("\n".join(t["prints"]), "      ")]
            if t.get("observation"):
                out.append(_indent(t["observation"]))
        for m in t.get("feedback") or []:
            out += ["", f"== {m.get('role')} (feedback) ==", _plain(m.get("content") or "")]
    o = run.outcome()
    out += ["", f"== outcome: {o.get('status')} =="]
    if "value" in o:
        out.append(_plain(o["value"]) if o["value"] is not None else "nil")
    if o.get("error"):
        out.append(f"{o['error'].get('kind')}/{o['error'].get('reason')}")
    if o.get("message"):
        out.append(o["message"])
    return "\n".join(out) + "\n"
