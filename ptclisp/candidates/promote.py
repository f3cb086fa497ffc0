"""Promotion: a person's command that puts a gated, trialled candidate into the project.

`promote(project, cid, require_p=None, min_delta=0.0)` refuses (CandidateError, one line) unless

* the gate passes now (which includes: the candidate is not stale),
* a trial of this candidate against the project's current source of the component exists
  (the latest such trial counts), and
* its thresholds hold: the candidate's pass rate minus the incumbent's is at least `min_delta`
  (default 0: not worse), and with `require_p` the improvement is positive with McNemar p <= it.
  Without `require_p` an improvement is *claimed* in the record only when p <= 0.05.

Then it copies the source into the project (`components/ID.CID.clj` for an agent-loop
component, beside the old file for a prelude or policy; the old file is kept), points
ptclisp.toml at it (a textual edit that keeps every comment, checked by parsing the result:
it must be exactly the document with that one change), runs `validate` on the result (and puts
the old file back when it fails), and appends the promotion record to .ptclisp/promotions.jsonl.
Imports components, gate, store, the project loader and validator.
"""
from __future__ import annotations

import json
import os
import re
import tomllib

from ..project.load import PROJECT_FILE
from . import store
from .components import CandidateError, ComponentRef, current, doc_with, parse_id, sha256
from .gate import check

CLAIM_P = 0.05


def latest_trial(project, rec: dict) -> dict | None:
    ok = [t for t in store.trials(project, rec["id"]) if t["incumbent_sha256"] == rec["base"]["sha256"]
          and t["candidate_sha256"] == rec["source"]["sha256"]]
    return ok[-1] if ok else None


def verdict(trial: dict, require_p: float | None, min_delta: float) -> tuple[bool, str]:
    c = trial["comparison"]
    diff, p = c["diff"], c["mcnemar_p"]
    if diff < min_delta:
        return False, (f"trial {trial['id']}: the candidate's pass rate is {100 * diff:+.1f} pts against the "
                       f"incumbent, below --min-delta {100 * min_delta:+.1f} pts")
    if require_p is not None and not (diff > 0 and p <= require_p):
        return False, (f"trial {trial['id']}: no improvement at McNemar p <= {require_p} (diff "
                       f"{100 * diff:+.1f} pts, p = {p:.4g})")
    if diff > 0 and p <= (require_p if require_p is not None else CLAIM_P):
        return True, f"improvement ({100 * diff:+.1f} pts, McNemar p = {p:.4g})"
    return True, f"not worse ({100 * diff:+.1f} pts, McNemar p = {p:.4g}: no significant difference)"


def promote(project, cid: str, *, require_p: float | None = None, min_delta: float = 0.0) -> dict:
    rec = store.load(project, cid)
    if any(p.get("candidate") == cid for p in store.promotions(project)):
        raise CandidateError(f"{cid} is already promoted", 3)
    text = store.source(project, cid)
    broken = check(project, rec, text)
    if broken:
        rule, msg = broken[0]
        more = f" (and {len(broken) - 1} more: run 'ptclisp candidate gate')" if len(broken) > 1 else ""
        raise CandidateError(f"{cid} does not pass the gate: {rule}: {msg}{more}", 3)
    trial = latest_trial(project, rec)
    if trial is None:
        raise CandidateError(f"{cid} has no trial against the current {rec['component']}: run 'ptclisp candidate "
                             f"trial {project.root} {cid} --suite DIR --model ...' first", 3)
    ok, why = verdict(trial, require_p, min_delta)
    if not ok:
        raise CandidateError(f"{cid} is not promoted: {why}", 3)
    ref = parse_id(rec["component"])
    before = current(project, ref)
    new_rel = _new_rel(ref, cid)
    path = project.path(new_rel)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    existed = os.path.exists(path)
    with open(path, "w", encoding="utf-8") as fh:
        fh.write(text)
    try:
        _write_document(project, ref, new_rel)
    except CandidateError:
        if not existed:
            os.unlink(path)
        raise
    record = {"format": "ptclisp-promotion/1", "candidate": cid, "component": ref.id, "time": store.now(),
              "base_sha256": rec["base"]["sha256"], "candidate_sha256": rec["source"]["sha256"],
              "previous_source": before.origin, "new_source": new_rel, "verdict": why,
              "thresholds": {"min_delta": min_delta, "require_p": require_p, "claim_p": require_p or CLAIM_P},
              "trial": {"id": trial["id"], "suite": trial["suite"]["name"], "model": trial["model"]["spec"],
                        "repeat": trial["repeat"], "time": trial["time"],
                        "incumbent": {k: trial["arms"]["incumbent"][k] for k in ("passed", "runs", "pass_rate")},
                        "candidate": {k: trial["arms"]["candidate"][k] for k in ("passed", "runs", "pass_rate")},
                        "diff": trial["comparison"]["diff"], "mcnemar_p": trial["comparison"]["mcnemar_p"]}}
    store.append_promotion(project, record)
    return record


def _new_rel(ref: ComponentRef, cid: str) -> str:
    if ref.kind == "agent":
        return f"components/{ref.target}.{cid}.clj"
    head, _ = os.path.split(ref.target)
    return (f"{head}/" if head else "") + f"{ref.file_stem}.{cid}.clj"


def _write_document(project, ref: ComponentRef, new_rel: str) -> None:
    """Point ptclisp.toml at `new_rel` for `ref`, keeping the rest of the text; validate the result."""
    from ..project.validate import validate
    file = os.path.join(project.root, PROJECT_FILE)
    with open(file, encoding="utf-8") as fh:
        old_text = fh.read()
    want = doc_with(project.doc, ref, new_rel)
    new_text = edited(old_text, project.doc, ref, new_rel)
    try:
        ok = tomllib.loads(new_text) == want
    except tomllib.TOMLDecodeError:
        ok = False
    if not ok:
        raise CandidateError(f"{file}: cannot point {ref.id} at {new_rel} by a safe edit of the file; set it by hand "
                             f"(the candidate's source is written there)", 3)
    with open(file, "w", encoding="utf-8") as fh:
        fh.write(new_text)
    _, problems = validate(project.root)
    if problems:
        with open(file, "w", encoding="utf-8") as fh:
            fh.write(old_text)
        raise CandidateError(f"not promoted: the project would not validate: {problems[0].render()}", 3)


def _q(s: str) -> str:
    return json.dumps(s, ensure_ascii=False)


def edited(text: str, doc: dict, ref: ComponentRef, new_rel: str) -> str:
    """The text of ptclisp.toml with `ref`'s source named `new_rel` (checked by the caller)."""
    if ref.kind != "agent":
        return _swap_string(text, ref.target, new_rel)
    agent = doc.get("agent") or {}
    old = (agent.get("replace") or {}).get(ref.target)
    if old is not None:
        return _swap_string(text, old, new_rel)
    entry = f"{_q(ref.target)} = {_q(new_rel)}"
    header = re.search(r"(?m)^\[agent\.replace\][ \t]*(#.*)?$", text)
    if header:
        return text[:header.end()] + "\n" + entry + text[header.end():]
    inline = re.search(r"(?m)^([ \t]*replace[ \t]*=[ \t]*\{)([ \t]*)(?=\S)", text)
    header = re.search(r"(?m)^\[agent\][ \t]*(#.*)?$", text)
    if inline and header and "replace" in agent:
        if text[inline.end():].startswith("}"):
            return text[:inline.end(1)] + f" {entry} " + text[inline.end():]
        return text[:inline.end(1)] + f" {entry}," + text[inline.end(1):]
    if header:
        return text[:header.end()] + f"\nreplace = {{ {entry} }}" + text[header.end():]
    sep = "" if text.endswith("\n") else "\n"
    return text + f"{sep}\n[agent]\nreplace = {{ {entry} }}\n"


def _swap_string(text: str, old: str, new: str) -> str:
    """Every TOML string spelling `old` (basic or literal) as `new`."""
    out = text.replace(_q(old), _q(new))
    if "'" not in old:
        out = out.replace(f"'{old}'", _q(new))
    return out


__all__ = ["promote", "verdict", "latest_trial", "edited", "sha256"]
