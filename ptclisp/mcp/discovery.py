"""What a client's model may call in the served PTC-Lisp: the `describe_ptc_lisp` tool and the resources.

`Catalog` is built once per server, lazily, from
* the builtin registry (`language_facts.builtins()`): name, signatures and the
  first sentence of the doc of every function, grouped by category, and the
  special forms by name;
* the data keys: `data/NAME` with the bounded shape summary the language's
  own `(describe data/NAME)` gives (at most `MAX_DATA_KEYS` keys, each
  summary at most `MAX_SHAPE_CHARS` of JSON, else only its type and count);
* the granted tools (Python `--tools` and upstream `--mcp` servers): the call
  form spelled from the input schema's required keys, description, effect,
  signature and input schema;
* the public exports of the attached preludes, through the language's
  `(dir)` and `(export-meta ref)`.

The data and prelude facts come from running small programs in a fresh
evaluation of the server's environment (`run_program`), under the server's
limits, so discovery reads the same data and exports a program sees.
Imports the public API, jsonout and language_facts; never the MCP SDK.
"""
from __future__ import annotations

import json
import re
import threading

from ..interchange.json_out import JsonValueError, to_json

MAX_DATA_KEYS = 50
MAX_SHAPE_CHARS = 8_000
MAX_SEARCH_HITS = 60
_KEYWORD = re.compile(r"^[A-Za-z_*+!?<>=$%&][A-Za-z0-9_*+!?<>=$%&.'-]*$")

INTRO = (
    "PTC-Lisp is a small, bounded, Clojure-like language for transforming data and calling granted tools. "
    "Send a whole program to run_ptc_lisp: its last form's value comes back as JSON, with what it printed "
    "and the tool calls it made. Read data as data/NAME, call a tool as (tool/NAME {:arg value}), "
    "and explore from inside a program with (doc f), (apropos \"text\"), (dir) and (describe x). "
    "Pass the same `session` to keep definitions (def, defn) between calls; without it every call starts fresh."
)

_EXPORTS_PROGRAM = "(let [d (dir)] (if (vector? d) (mapv export-meta (mapcat dir d)) []))"


def one_line(doc: str, limit: int = 200) -> str:
    """The first sentence (or line) of a docstring, at most `limit` characters."""
    text = " ".join((doc or "").split())
    m = re.search(r"(?<=[.!?])\s", text)
    if m:
        text = text[:m.start()]
    return text if len(text) <= limit else text[:limit - 3] + "..."


def call_form(name: str, schema) -> str:
    """`(tool/NAME {:a a :b b})` with the required keys of the tool's input schema (none: `(tool/NAME {})`)."""
    required = []
    if isinstance(schema, dict):
        props = schema.get("properties") if isinstance(schema.get("properties"), dict) else {}
        req = [r for r in (schema.get("required") or ()) if isinstance(r, str)]
        required = [r for r in props if r in req] + [r for r in req if r not in props]
    parts = []
    for key in required:
        if _KEYWORD.match(key):
            parts.append(f":{key} {_placeholder(key)}")
        else:
            parts.append(f"{json.dumps(key, ensure_ascii=False)} {_placeholder(key)}")
    return f"(tool/{name} {{{' '.join(parts)}}})"


def _placeholder(key: str) -> str:
    p = re.sub(r"[^A-Za-z0-9_-]", "-", key).strip("-") or "value"
    return p if p[0].isalpha() else "v-" + p


def tool_entry(tool) -> dict:
    """The description of one granted `ptclisp.Tool`."""
    entry = {"name": f"tool/{tool.name}", "call": call_form(tool.name, tool.input_schema),
             "description": tool.description or "", "effect": tool.effect}
    if tool.signature:
        entry["signature"] = tool.signature
    if tool.input_schema is not None:
        entry["input_schema"] = tool.input_schema
    return entry


class Catalog:
    """The facts `describe_ptc_lisp` and the resources give; computed on first use, then kept."""

    def __init__(self, run_program, data_keys, tools: dict, limits: dict, sessions: dict):
        self._run = run_program
        self._data_keys = [k for k in data_keys if isinstance(k, str)]
        self._tools = tools
        self._limits = limits
        self._sessions = sessions
        self._lock = threading.Lock()
        self._facts: dict | None = None

    # ------------------------------------------------------------------ building

    def facts(self) -> dict:
        with self._lock:
            if self._facts is None:
                self._facts = self._build()
            return self._facts

    def _build(self) -> dict:
        from . import language_facts
        functions = sorted(({"name": name, "signatures": list(sigs), "doc": one_line(doc), "category": cat}
                            for name, sigs, doc, cat in language_facts.builtins()), key=lambda f: f["name"])
        return {
            "functions": functions,
            "special_forms": language_facts.special_forms(),
            "data": self._data_entries(),
            "tools": [tool_entry(t) for _, t in sorted(self._tools.items()) if not t.private],
            "exports": self._exports(),
        }

    def _data_entries(self) -> list:
        out = []
        keys = self._data_keys
        for key in keys[:MAX_DATA_KEYS]:
            entry = {"name": f"data/{key}"}
            if not _KEYWORD.match(key):
                entry["note"] = "not a symbol name, so a program cannot read it as data/NAME"
                out.append(entry)
                continue
            shape = self._value_of(f"(describe data/{key})")
            if isinstance(shape, dict):
                text = json.dumps(shape, ensure_ascii=False)
                if len(text) > MAX_SHAPE_CHARS:
                    shape = {k: shape[k] for k in ("type", "count", "scanned", "item_types", "key_types") if k in shape}
                    shape["truncated"] = True
                entry["shape"] = shape
            out.append(entry)
        if len(keys) > MAX_DATA_KEYS:
            out.append({"note": f"{len(keys) - MAX_DATA_KEYS} more data keys are not listed"})
        return out

    def _exports(self) -> list:
        value = self._value_of(_EXPORTS_PROGRAM)
        if not isinstance(value, list):
            return []
        keep = ("ref", "call", "kind", "doc", "signature", "type", "effect")
        return [{k: m[k] for k in keep if k in m} for m in value if isinstance(m, dict)]

    def _value_of(self, program: str):
        result = self._run(program)
        if result is None or getattr(result, "status", None) != "ok":
            return None
        try:
            return to_json(result.value)
        except JsonValueError:
            return None

    # ------------------------------------------------------------------ views

    def overview(self) -> dict:
        """Everything but the function details: data shapes, tools, prelude exports, function names by category."""
        f = self.facts()
        by_category: dict[str, list] = {}
        for fn in f["functions"]:
            by_category.setdefault(fn["category"], []).append(fn["name"])
        return {
            "language": INTRO,
            "data": f["data"],
            "tools": f["tools"],
            "exports": f["exports"],
            "special_forms": f["special_forms"],
            "functions_by_category": dict(sorted(by_category.items())),
            "hint": "Call describe_ptc_lisp with `search` (e.g. \"group\" or \"str\") for the signatures and "
                    "docs of the matching functions, tools and exports.",
            "limits": self._limits,
            "sessions": self._sessions,
        }

    def search(self, query: str) -> dict:
        """The functions, tools, exports and data keys whose name (first) or description contain `query`."""
        q = query.strip().lower()
        f = self.facts()

        def ranked(items, name_of, text_of):
            by_name = [x for x in items if q in name_of(x).lower()]
            by_text = [x for x in items if q not in name_of(x).lower() and q in text_of(x).lower()]
            return by_name + by_text

        functions = ranked(f["functions"], lambda x: x["name"], lambda x: " ".join(x["signatures"]) + " " + x["doc"])
        out = {
            "search": query,
            "functions": [{k: x[k] for k in ("name", "signatures", "doc")} for x in functions[:MAX_SEARCH_HITS]],
            "special_forms": [s for s in f["special_forms"] if q in s.lower()],
            "tools": ranked(f["tools"], lambda x: x["name"], lambda x: x["description"]),
            "exports": ranked(f["exports"], lambda x: x.get("ref", ""), lambda x: x.get("doc") or ""),
            "data": [d for d in f["data"] if q in d.get("name", "").lower()],
        }
        if len(functions) > MAX_SEARCH_HITS:
            out["more_functions"] = len(functions) - MAX_SEARCH_HITS
        return out

    def functions(self) -> dict:
        """Every function: name, signatures, one-line doc, category; and the special forms."""
        f = self.facts()
        return {"functions": f["functions"], "special_forms": f["special_forms"]}

    def data(self) -> dict:
        return {"data": self.facts()["data"]}

    def tools(self) -> dict:
        f = self.facts()
        return {"tools": f["tools"], "exports": f["exports"]}
