"""The mission model context: what a mission offers, as the model is told it.

Owns `model_context(session)`: the deterministic JSON document (schema
version 2) that `agent.prompt/render` turns into the "Available API"
section.  It lists the prompt-visible exports of the mission's preludes,
the mission's capabilities (with a call form that spells out the required
arguments), one entry per data name carrying the shape of the value (its
keys and types, sampled and bounded: `type_of_data`), never the value, and,
when the application gave one, the type of the result it requires.  Type nodes are built from prelude signatures
(`ptclisp.prelude.contract.Type`) and from JSON Schemas.  Imports nothing from the
evaluator; it reads the session's attached export tables.
"""
from __future__ import annotations

import json
import re

SCHEMA_VERSION = 2
DATA_DOCS = "Mission data supplied by the application."
_DATA_NAME = re.compile(r"^[A-Za-z*+!?<>=_$%&][A-Za-z0-9*+!?<>=_$%&.'-]*$")

# contract primitive -> type-node kind
_PRIMITIVE_KINDS = {"string": "string", "int": "integer", "float": "number", "bool": "boolean",
                    "boolean": "boolean", "keyword": "keyword", "datetime": "datetime", "map": "object",
                    "any": "any"}
_SCHEMA_KINDS = {"string": "string", "integer": "integer", "number": "number", "boolean": "boolean",
                 "null": "nil", "array": "array", "object": "object"}
_SCHEMA_BOUNDS = (("minimum", "minimum"), ("maximum", "maximum"), ("minLength", "min_length"),
                  ("maxLength", "max_length"), ("minItems", "min_items"), ("maxItems", "max_items"))


# ------------------------------------------------------------------ type nodes

def type_from_contract(t) -> dict:
    """A type node for a `ptclisp.prelude.contract.Type`."""
    if t.kind == "vector":
        node = {"kind": "array", "nullable": t.optional, "items": type_from_contract(t.item)}
    elif t.kind == "shape":
        node = {"kind": "object", "nullable": t.optional, "closed": False,
                "fields": [{"name": n, "required": not ft.optional, "type": type_from_contract(ft)}
                           for n, ft in t.fields]}
    else:
        kind = _PRIMITIVE_KINDS.get(t.kind, "any")
        node = {"kind": kind, "nullable": t.optional or kind == "any"}
    return node


def type_from_schema(schema, depth: int = 0) -> dict:
    """A type node for a JSON Schema (the subset that describes plain JSON data)."""
    if not isinstance(schema, dict) or depth > 8:
        return {"kind": "any", "nullable": True}
    types = schema.get("type")
    if isinstance(types, list):
        nullable = "null" in types
        rest = [x for x in types if x != "null"]
        kind = _SCHEMA_KINDS.get(rest[0], "any") if len(rest) == 1 else "any"
    elif isinstance(types, str):
        nullable = types == "null"
        kind = _SCHEMA_KINDS.get(types, "any")
    else:
        nullable, kind = True, "any"
    if kind == "any":
        nullable = True
    node: dict = {"kind": kind, "nullable": nullable}
    if kind == "array":
        node["items"] = type_from_schema(schema.get("items"), depth + 1)
    elif kind == "object":
        props = schema.get("properties") if isinstance(schema.get("properties"), dict) else {}
        required = set(schema.get("required") or ())
        node["closed"] = schema.get("additionalProperties") is False
        node["fields"] = [{"name": name, "required": name in required, "type": type_from_schema(sub, depth + 1)}
                          for name, sub in props.items()]
    for key in ("title", "description"):
        if isinstance(schema.get(key), str):
            node[key] = schema[key]
    if isinstance(schema.get("enum"), list):
        node["enum"] = schema["enum"]
    if "const" in schema:
        node["const"] = schema["const"]
    for src, dst in _SCHEMA_BOUNDS:
        if isinstance(schema.get(src), (int, float)) and not isinstance(schema.get(src), bool):
            node[dst] = schema[src]
    return node


#: Bounds of a data shape: nesting, fields listed per object, items sampled per array, nodes in all.
SHAPE_DEPTH = 4
SHAPE_FIELDS = 24
SHAPE_SAMPLE = 20
SHAPE_NODES = 160
SHAPE_KEY_CHARS = 64


def type_of_data(value, depth: int = 0, budget: list | None = None) -> dict:
    """The shape of a data value: its kind and, for collections, keys and types (never a value).

    Objects list their keys (at most SHAPE_FIELDS, each key at most
    SHAPE_KEY_CHARS characters) with the type of each; arrays show the type
    of their items, merged over the first SHAPE_SAMPLE of them (a key
    missing from some sampled items is optional, a null makes a type
    nullable, kinds that differ give :any).  Nesting stops at SHAPE_DEPTH
    and the whole shape at SHAPE_NODES nodes; past either, a collection is
    described by its kind alone.
    """
    budget = [SHAPE_NODES] if budget is None else budget
    budget[0] -= 1
    if value is None:
        return {"kind": "nil", "nullable": True}
    if isinstance(value, bool):
        return {"kind": "boolean", "nullable": False}
    if isinstance(value, int):
        return {"kind": "integer", "nullable": False}
    if isinstance(value, float):
        return {"kind": "number", "nullable": False}
    if isinstance(value, str):
        return {"kind": "string", "nullable": False}
    deeper = depth < SHAPE_DEPTH and budget[0] > 0
    if isinstance(value, (list, tuple)):
        items = {"kind": "any", "nullable": True}
        if deeper and value:
            sampled = []
            for v in value[:SHAPE_SAMPLE]:
                t = type_of_data(v, depth + 1, budget)
                if budget[0] < 0 and sampled:
                    break               # this item was cut short by the budget: merging it would mislead
                sampled.append(t)
                if budget[0] <= 0:
                    break
            items = _merge_types(sampled)
        return {"kind": "array", "nullable": False, "items": items}
    if isinstance(value, dict):
        fields = []
        if deeper:
            for k, v in list(value.items())[:SHAPE_FIELDS]:
                if not isinstance(k, str) or len(k) > SHAPE_KEY_CHARS or budget[0] <= 0:
                    continue
                fields.append({"name": k, "required": True, "type": type_of_data(v, depth + 1, budget)})
        return {"kind": "object", "nullable": False, "closed": False, "fields": fields}
    return {"kind": "any", "nullable": True}


def _merge_types(types: list) -> dict:
    """One type node for values of the given types (see `type_of_data`)."""
    nullable = any(t["kind"] == "nil" for t in types)
    present = [t for t in types if t["kind"] != "nil"]
    if not present:
        return {"kind": "nil", "nullable": True}
    kinds = {t["kind"] for t in present}
    if kinds == {"integer", "number"}:
        kinds = {"number"}
    if len(kinds) != 1:
        return {"kind": "any", "nullable": True}
    kind = kinds.pop()
    if kind == "object":
        order, seen, by_name = [], {}, {}
        for t in present:
            for f in t["fields"]:
                if f["name"] not in by_name:
                    order.append(f["name"])
                    by_name[f["name"]] = []
                by_name[f["name"]].append(f["type"])
                seen[f["name"]] = seen.get(f["name"], 0) + 1
        fields = [{"name": n, "required": seen[n] == len(present), "type": _merge_types(by_name[n])}
                  for n in order[:SHAPE_FIELDS]]
        return {"kind": "object", "nullable": nullable, "closed": False, "fields": fields}
    if kind == "array":
        return {"kind": "array", "nullable": nullable, "items": _merge_types([t["items"] for t in present])}
    return {"kind": kind, "nullable": nullable or any(t.get("nullable") for t in present)}


# ------------------------------------------------------------------ entries

def _export_entries(env) -> tuple[list, list]:
    namespaces, entries = [], []
    for ns_name in sorted(env.preludes):
        table = env.preludes[ns_name]
        prompt_exports = [ex for ex in table.values() if ex.record.visibility == "prompt"]
        if not prompt_exports:
            continue
        compiled = table.instance.compiled
        if compiled.doc:
            namespaces.append({"namespace": ns_name, "doc": compiled.doc})
        for ex in prompt_exports:
            entries.append(_export_entry(ex))
    return namespaces, entries


def _export_entry(ex) -> dict:
    rec = ex.record
    if rec.kind == "constant":
        contract = {"value": type_from_contract(rec.type)} if rec.type is not None else None
        return {"kind": "value", "form": rec.ref, "contract": contract, "effect": ex.effect, "docs": rec.doc}
    contract = None
    sig = rec.signature
    if sig is not None:
        params = sig.params if sig.params is not None else ()
        contract = {"parameters": [{"name": n, "type": type_from_contract(t)} for n, t in params],
                    "returns": type_from_contract(sig.output)}
    return {"kind": "call", "form": rec.call_text(), "contract": contract, "effect": ex.effect, "docs": rec.doc}


def _capability_entry(cap) -> dict:
    schema = cap.input_schema if isinstance(cap.input_schema, dict) else {"type": "object"}
    props = schema.get("properties") if isinstance(schema.get("properties"), dict) else {}
    required = [r for r in (schema.get("required") or ()) if isinstance(r, str)]
    ordered = [r for r in props if r in required] + [r for r in required if r not in props]
    args = " ".join(f"{json.dumps(r, ensure_ascii=False)} {_placeholder(r)}" for r in ordered)
    form = f"(tool/{cap.name} {{{args}}})"
    contract = {"parameters": [{"name": "arguments", "type": type_from_schema(schema)}],
                "returns": type_from_schema(cap.output_schema) if cap.output_schema else None}
    return {"kind": "call", "form": form, "contract": contract, "effect": cap.effect,
            "docs": cap.description or None}


def _placeholder(name: str) -> str:
    p = re.sub(r"[^A-Za-z0-9_-]", "-", name).strip("-") or "value"
    return p if p[0].isalpha() else "v-" + p


def _data_entries(data: dict) -> list:
    out = []
    for name, value in (data or {}).items():
        if isinstance(name, str) and _DATA_NAME.match(name):
            out.append({"kind": "value", "form": f"data/{name}", "contract": {"value": type_of_data(value)},
                        "effect": "read", "docs": DATA_DOCS})
    return out


def model_context(session, result_schema: dict | None = None) -> str:
    """The deterministic JSON text of a mission session's model context.

    With the application's `result_schema` the document also carries
    `result`: the type node of the value the task must return.
    """
    namespaces, entries = _export_entries(session.env)
    entries += [_capability_entry(c) for c in session.tools.caps.values()]
    entries += _data_entries(session.mission.data)
    entries.sort(key=lambda e: e["form"])
    doc = {"schema_version": SCHEMA_VERSION, "namespaces": namespaces, "entries": entries,
           "limits": {"evaluation_timeout_ms": session.limits.evaluation_timeout_ms,
                      "mission_capability_calls": session.limits.mission_capability_calls}}
    if isinstance(result_schema, dict):
        doc["result"] = type_from_schema(result_schema)
    return json.dumps(doc, ensure_ascii=False, separators=(",", ":"))
