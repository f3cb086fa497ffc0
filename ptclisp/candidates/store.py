"""Candidate records under a project: `P/.ptclisp/candidates/<id>/` and `P/.ptclisp/promotions.jsonl`.

A candidate directory holds

    candidate.json   the record (ptclisp/schemas/candidate.schema.json): component, base and own sha256,
                     origin (file / runs / proposed), time
    source.clj       the candidate's source
    base.clj         the source it was made against (for the diff and for a look later)
    diff.patch       unified diff base -> candidate
    gate.json        the last `candidate gate` result (rules broken, time)
    trials/tN/       each trial: the bench output (runs, results.json, report.html) and trial.json

`create(project, ref, text, origin)` writes a new one (an identical one made against the same base
is the same id), `load(project, id)`, `ids(project)`, `promotions(project)`, `status(project, rec)`
and `validate_record(kind, record)` (the shipped JSON Schemas).  Nothing here changes the project's
own files.  Imports components, envelope (the schemas).
"""
from __future__ import annotations

import datetime as _dt
import difflib
import json
import os
import pathlib

from ..interchange.schemas import load_schema
from .components import CandidateError, ComponentRef, current, parse_id, sha256

STORE = os.path.join(".ptclisp", "candidates")
PROMOTIONS = os.path.join(".ptclisp", "promotions.jsonl")
FORMAT = "ptclisp-candidate/1"


def now() -> str:
    return _dt.datetime.now(_dt.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def root(project) -> pathlib.Path:
    return pathlib.Path(project.root).resolve() / STORE


def cdir(project, cid: str) -> pathlib.Path:
    return root(project) / cid


def write_json(path: pathlib.Path, obj) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    tmp.write_text(json.dumps(obj, indent=1, sort_keys=True, ensure_ascii=False) + "\n", encoding="utf-8")
    os.replace(tmp, path)


def validate_record(kind: str, record: dict) -> None:
    """Raise CandidateError (exit 7: the command's own output is wrong) when `record` breaks its schema."""
    import jsonschema
    errors = list(jsonschema.Draft202012Validator(load_schema(kind)).iter_errors(record))
    if errors:
        e = errors[0]
        where = "/" + "/".join(map(str, e.absolute_path))
        raise CandidateError(f"internal: the {kind} record breaks its schema at {where}: {e.message}", 7)


def create(project, ref: ComponentRef, text: str, origin: dict) -> dict:
    """Record a candidate for `ref` with source `text`; its record (already stored when identical)."""
    base = current(project, ref)
    base_hash, own = sha256(base.text), sha256(text)
    cid = "c-" + sha256(f"{ref.id}\0{base_hash}\0{own}")[:10]
    d = cdir(project, cid)
    if (d / "candidate.json").is_file():
        return load(project, cid)
    diff = "".join(difflib.unified_diff(base.text.splitlines(True), text.splitlines(True),
                                        fromfile=f"a/{base.origin}", tofile=f"b/{ref.id} ({cid})"))
    record = {"format": FORMAT, "id": cid, "component": ref.id, "created": now(),
              "base": {"sha256": base_hash, "origin": base.origin, "bytes": len(base.text.encode())},
              "source": {"sha256": own, "file": "source.clj", "bytes": len(text.encode())},
              "diff": {"file": "diff.patch", "added": _count(diff, "+"), "removed": _count(diff, "-")},
              "origin": origin}
    earlier = [c for c in map(lambda i: load(project, i), ids(project))
               if c["component"] == ref.id and c["base"]["sha256"] != base_hash
               and (c["source"]["sha256"] == own or (origin.get("file") and c["origin"].get("file") == origin["file"]))]
    if earlier:
        record["rebased_from"] = earlier[-1]["id"]
    validate_record("candidate", record)
    d.mkdir(parents=True, exist_ok=True)
    (d / "source.clj").write_text(text, encoding="utf-8")
    (d / "base.clj").write_text(base.text, encoding="utf-8")
    (d / "diff.patch").write_text(diff, encoding="utf-8")
    write_json(d / "candidate.json", record)
    return record


def _count(diff: str, sign: str) -> int:
    return sum(1 for line in diff.splitlines() if line.startswith(sign) and not line.startswith(sign * 3))


def ids(project) -> list:
    """Every candidate id of the project, oldest first."""
    r = root(project)
    if not r.is_dir():
        return []
    found = []
    for d in r.iterdir():
        f = d / "candidate.json"
        if f.is_file():
            try:
                found.append((json.loads(f.read_text(encoding="utf-8"))["created"], d.name))
            except (OSError, ValueError, KeyError):
                continue
    return [cid for _, cid in sorted(found)]


def load(project, cid: str) -> dict:
    f = cdir(project, cid) / "candidate.json"
    if not cid or "/" in cid or not f.is_file():
        raise CandidateError(f"no candidate {cid!r} in {project.root} (see 'ptclisp candidate list "
                             f"{project.root}')", 2)
    try:
        return json.loads(f.read_text(encoding="utf-8"))
    except (OSError, ValueError) as e:
        raise CandidateError(f"{f}: unreadable candidate record: {e}", 3) from None


def source(project, cid: str) -> str:
    return (cdir(project, cid) / "source.clj").read_text(encoding="utf-8")


def read_json(path: pathlib.Path):
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None


def trials(project, cid: str) -> list:
    """The trial records of a candidate, oldest first."""
    t = cdir(project, cid) / "trials"
    if not t.is_dir():
        return []
    out = [read_json(d / "trial.json") for d in t.iterdir() if (d / "trial.json").is_file()]
    return sorted((r for r in out if r), key=lambda r: int(r["id"][1:]))


def promotions(project) -> list:
    p = pathlib.Path(project.root) / PROMOTIONS
    if not p.is_file():
        return []
    out = []
    for line in p.read_text(encoding="utf-8").splitlines():
        try:
            out.append(json.loads(line))
        except ValueError:
            continue
    return out


def append_promotion(project, record: dict) -> None:
    validate_record("promotion", record)
    p = pathlib.Path(project.root) / PROMOTIONS
    p.parent.mkdir(parents=True, exist_ok=True)
    with open(p, "a", encoding="utf-8") as fh:
        fh.write(json.dumps(record, sort_keys=True, ensure_ascii=False) + "\n")


def current_hash(project, rec: dict) -> str | None:
    """The sha256 of the project's current source of the candidate's component (None: it has none now)."""
    try:
        return sha256(current(project, parse_id(rec["component"])).text)
    except CandidateError:
        return None


def status(project, rec: dict) -> str:
    """promoted, stale, failed gate, trialled, gated or new (in that order of precedence)."""
    if any(p.get("candidate") == rec["id"] for p in promotions(project)):
        return "promoted"
    if current_hash(project, rec) != rec["base"]["sha256"]:
        return "stale"
    gate = read_json(cdir(project, rec["id"]) / "gate.json")
    if gate is not None and gate.get("base_sha256") == rec["base"]["sha256"] and not gate.get("passed"):
        return "failed gate"
    if any(t.get("incumbent_sha256") == rec["base"]["sha256"] for t in trials(project, rec["id"])):
        return "trialled"
    if gate is not None and gate.get("passed"):
        return "gated"
    return "new"
