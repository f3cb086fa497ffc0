"""The application's result contract: a JSON Schema the final value must satisfy.

Owns `ResultContract(schema)`: JSON projection of the candidate, validation
with jsonschema, and *safe* diagnostics.  A diagnostic may say what kind of
value was seen, where a violation is (path segments that the schema itself
names, or array indices), which constraint failed, small numeric or type
bounds, the declared keys and the missing required ones.  It never carries
the candidate's values, the names of keys the schema does not declare, or
enum/const literals, so feeding it back to the model or into an error
cannot leak the candidate.  Imports the agent data helpers.
"""
from __future__ import annotations

from ..values.intstr import brief_ints
from .envelopes import NotJson, lisp_kind, project

MAX_LISTED_KEYS = 32
MAX_VIOLATIONS = 16
#: Constraints whose bound is small and schema-owned, so it may be shown.
SHOWN_BOUNDS = frozenset({"type", "minLength", "maxLength", "minimum", "maximum", "exclusiveMinimum",
                          "exclusiveMaximum", "minItems", "maxItems", "minProperties", "maxProperties",
                          "multipleOf", "uniqueItems", "format"})


class ResultContract:
    """Validates final values against one JSON Schema (draft chosen by `$schema`, 2020-12 by default)."""

    def __init__(self, schema: dict):
        import jsonschema
        if not isinstance(schema, dict):
            raise TypeError("a result schema must be a JSON Schema object (a dict)")
        cls = jsonschema.validators.validator_for(schema, default=jsonschema.Draft202012Validator)
        cls.check_schema(schema)
        self.schema = schema
        self._validator = cls(schema)

    def check(self, value) -> dict:
        """{"valid?": bool, "details": {...}} for a Lisp (or plain JSON) value."""
        details: dict = {"value_kind": lisp_kind(value)}
        try:
            candidate = project(value)
        except NotJson:
            details["json_value"] = False
            details["violations"] = [{"kind": "json_value"}]
            return {"valid?": False, "details": details}
        details["json_value"] = True
        errors = sorted(self._validator.iter_errors(brief_ints(candidate)),  # messages show no huge digits
                        key=lambda e: (len(e.absolute_path), e.validator))
        violations = _once([self._violation(e) for e in _leaves(errors)])
        if len(violations) > MAX_VIOLATIONS:
            details["violations_truncated"] = True
            violations = violations[:MAX_VIOLATIONS]
        details["violations"] = violations
        return {"valid?": not errors, "details": details}

    def _violation(self, e) -> dict:
        out: dict = {"kind": str(e.validator), "segments": _safe_segments(self.schema, list(e.absolute_path))}
        if e.validator in SHOWN_BOUNDS and isinstance(e.validator_value, (int, float, str, bool, list)):
            bound = e.validator_value
            if not isinstance(bound, list) or all(isinstance(b, str) for b in bound):
                out["expected"] = bound
        sub = e.schema if isinstance(e.schema, dict) else {}
        if e.validator == "additionalProperties" and isinstance(e.instance, dict):
            declared = sorted(sub.get("properties", {}) or {})
            out.update(_listed("allowed_keys", declared))
            patterns = sub.get("patternProperties") or {}
            undeclared = [k for k in e.instance if k not in declared and not _matches_any(k, patterns)]
            out["undeclared_key_count"] = len(undeclared)
        elif e.validator == "required" and isinstance(e.instance, dict):
            missing = [k for k in (e.validator_value or []) if isinstance(k, str) and k not in e.instance]
            out.update(_listed("missing_required", missing))
        elif e.validator in ("enum", "const"):
            out["expected"] = "one of the values the schema lists" if e.validator == "enum" else \
                "the value the schema fixes"
        return out


def _once(violations: list[dict]) -> list[dict]:
    """Each violation once, in order: two errors that read the same (the same rule at the same safe path,
    e.g. at two undeclared keys both shown as "*", or one reached through two schema branches) are one."""
    import json
    seen, out = set(), []
    for v in violations:
        key = json.dumps(v, sort_keys=True, default=str)
        if key not in seen:
            seen.add(key)
            out.append(v)
    return out


def _leaves(errors: list) -> list:
    """Expand combinator errors (anyOf/oneOf/allOf) into their most specific parts, once."""
    out = []
    for e in errors:
        if e.validator in ("anyOf", "oneOf", "allOf") and e.context:
            out.append(e)
            deepest = sorted(e.context, key=lambda c: -len(c.absolute_path))[:3]
            out.extend(deepest)
        else:
            out.append(e)
    return out


def _listed(name: str, keys: list[str]) -> dict:
    out = {name: keys[:MAX_LISTED_KEYS], f"{name}_count": len(keys)}
    if len(keys) > MAX_LISTED_KEYS:
        out[f"{name}_truncated"] = True
    return out


def _matches_any(key: str, patterns: dict) -> bool:
    import re
    for p in patterns:
        try:
            if re.search(p, key):
                return True
        except re.error:
            continue
    return False


def _safe_segments(schema, path: list) -> list:
    """The path with every object key the schema does not declare replaced by "*"."""
    out = []
    node = schema if isinstance(schema, dict) else {}
    for seg in path:
        if isinstance(seg, int):
            out.append(seg)
            items = node.get("items")
            prefix = node.get("prefixItems")
            if isinstance(prefix, list) and seg < len(prefix) and isinstance(prefix[seg], dict):
                node = prefix[seg]
            else:
                node = items if isinstance(items, dict) else {}
            continue
        props = node.get("properties") if isinstance(node.get("properties"), dict) else {}
        if seg in props:
            out.append(seg)
            node = props[seg] if isinstance(props[seg], dict) else {}
        else:
            out.append("*")
            extra = node.get("additionalProperties")
            node = extra if isinstance(extra, dict) else {}
    return out
