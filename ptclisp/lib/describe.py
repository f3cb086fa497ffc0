"""`describe`: a bounded shape summary of a value (docs/spec/functions.md §1.5).

The summary is a keyword-keyed map whose nested keys and values are strings,
numbers, booleans and vectors, so it stays JSON-encodable for JSON-native
data. Work is bounded whatever the input size: at most `MAX_ROOT_ITEMS` root
items are scanned, `MAX_MAP_KEYS` keys per map (and per collection of maps),
`MAX_PATHS` distinct paths and `MAX_PATH_VALUES` path values; examples are
previews of at most `MAX_EXAMPLE_CHARS` characters and distinct counting
stops at `DISTINCT_CAP`. Every cap that bites is named in `:caps_hit` and
sets `:truncated`.

Shape of the result:
  vector root  {:type "vector" :count :scanned :item_types
                [:keys {k {:present :pct :types :examples :distinct_count}} :key_types]}
               (`:keys` summarises the map items, keyed by rendered key text)
  map root     {:type "map" :count :key_types :keys {k {:types :examples ...}}}
  set root     {:type "set" :count :scanned :item_types}
  other        {:type :sample :types :examples [:distinct_count]}
With `{:paths true}` a `:paths` map ("a.b" dotted paths down to `:depth`
levels, through nested vectors) is added, each with presence counts.
Imports values, errors, meter, registry.
"""
from __future__ import annotations

import heapq
from collections import Counter

from ..errors import PtcError
from ..runtime.meter import current, map_cost
from ..values.preview import PreviewCaps, preview
from ..values import JavaObject, Keyword, Map, Regex, Set, SymbolRef, Vector, hk, is_fn, type_name, unhk
from ..registry.builtins import builtin

DEFAULT_DEPTH = 1
MAX_DEPTH = 5
MAX_ROOT_ITEMS = 1_000
MAX_MAP_KEYS = 100
MAX_PATHS = 300
MAX_PATH_VALUES = 10_000
MAX_EXAMPLES = 3
MAX_EXAMPLE_CHARS = 120
DISTINCT_CAP = 50

_PREVIEW = PreviewCaps(chars=MAX_EXAMPLE_CHARS, items=8, depth=2, nodes=32, string=MAX_EXAMPLE_CHARS)
_SCALAR_PY = frozenset((type(None), bool, int, float, str, Keyword))
K = Keyword


# ------------------------------------------------------------------ small helpers

_KINDS = {
    type(None): "nil", bool: "boolean", int: "integer", float: "float", str: "string",
    Keyword: "keyword", Vector: "vector", Map: "map", Set: "set", Regex: "regex",
}


def kind(x) -> str:
    """The summary type label of a value (integers and floats are told apart)."""
    k = _KINDS.get(type(x))
    if k is not None:
        return k
    if isinstance(x, JavaObject):
        return x.java_class
    if type(x) is not SymbolRef and is_fn(x):
        return "function"
    return "unknown"


def _truncate(s: str, limit: int = MAX_EXAMPLE_CHARS) -> str:
    if len(s) > limit:
        return s[:limit] + f"...({len(s)} chars)"
    return s


def _preview(x) -> str:
    return preview(x, _PREVIEW)


def _example(x):
    """An example value as shown in the summary: scalars as they are, others as preview text."""
    t = type(x)
    if t is str:
        return _truncate(x)
    if x is None or t is bool or t is int or t is float or t is Keyword:
        if t is int and x.bit_length() > 256:
            return _preview(x)
        return x
    return _preview(x)


def _render_key(k) -> str:
    """Text naming a map key in the summary (strings as they are, others as printed)."""
    t = type(k)
    if t is str:
        return _truncate(k)
    if t is Keyword:
        return _truncate(":" + k.name)
    return _preview(k)


def _ekey(v):
    """A cheap hashable identity for de-duplicating examples, distinct values and keys.

    Values that preview alike count as one (long strings by their first
    MAX_EXAMPLE_CHARS characters; 1 and 1.0 stay distinct).
    """
    t = type(v)
    if t is str:
        return ("s", v[:MAX_EXAMPLE_CHARS])
    if t is Keyword or t is int or v is None:
        return v
    if t is bool:
        return ("b", v)
    if t is float:
        return ("f", repr(v))
    return ("p", kind(v), _preview(v))


def _key_hash(k) -> str:
    import hashlib  # imported on first use: keeps `ptclisp` start-up short
    raw = k if type(k) is str else kind(k) + ":" + _preview(k)
    return hashlib.sha256(raw.encode("utf-8", "surrogatepass")).hexdigest()[:8]


def _histogram(labels) -> Map:
    return Map.from_pairs(sorted(Counter(labels).items()))


def _histogram_of(values) -> Map:
    get = _KINDS.get
    return _histogram(get(type(v)) or kind(v) for v in values)


def _pct(present: int, denominator: int) -> float:
    if denominator <= 0:
        return 0.0
    return round(present / denominator * 100.0, 1)


def _add_caps(summary: dict, caps) -> dict:
    caps = set(caps)
    if caps:
        caps.update(summary.get("caps_hit", ()))
        summary["truncated"] = True
        summary["caps_hit"] = sorted(caps)
    return summary


def _option(opts: Map, name: str, default):
    v = opts.lookup(K(name), _MISSING)
    return default if v is _MISSING else v


_MISSING = object()


def _bounded_int(v, default: int, lo: int, hi: int) -> int:
    if type(v) is not int:
        return default
    return max(lo, min(hi, v))


# ------------------------------------------------------------------ map entries

def _map_entries(m: Map):
    """Up to MAX_MAP_KEYS (key, value) pairs of m, in rendered-key order, and the caps hit."""
    if len(m) <= MAX_MAP_KEYS:
        return list(m.items()), []

    def order(kv):
        k = kv[0]
        return (_render_key(k), kind(k))

    return heapq.nsmallest(MAX_MAP_KEYS, m.items(), key=order), ["max_keys"]


def _key_names(keys: list) -> list:
    """Text naming each key; keys that render alike get their type (and a short hash) prefixed."""
    texts = [_render_key(k) for k in keys]
    if len(set(texts)) == len(texts):
        return texts
    groups: dict = {}
    for k, text in zip(keys, texts):
        groups.setdefault(text, []).append(kind(k))
    names = []
    for k, text in zip(keys, texts):
        kinds = groups[text]
        if len(kinds) == 1:
            names.append(text)
            continue
        label = kind(k)
        name = label + ":" + text
        if kinds.count(label) > 1:
            name += "#" + _key_hash(k)
        names.append(name)
    return names


# ------------------------------------------------------------------ field summaries

def _field_summary(values: list, sample: int) -> dict:
    summary = {"types": _histogram_of(values)}
    examples = []
    seen_examples = set()
    for v in values:
        if len(examples) >= sample:
            break
        key = _ekey(v)
        if key not in seen_examples:
            seen_examples.add(key)
            examples.append(_example(v))
    summary["examples"] = Vector(examples)
    scalars = [v for v in values if type(v) in _SCALAR_PY]
    if scalars:
        seen: set = set()
        capped = False
        for v in scalars:
            key = _ekey(v)
            if key in seen:
                continue
            if len(seen) >= DISTINCT_CAP:
                capped = True
                break
            seen.add(key)
        summary["distinct_count"] = len(seen)
        if capped:
            summary["distinct_capped"] = True
    return summary


def _with_presence(summary: dict, present: int, denominator: int) -> dict:
    summary["present"] = present
    summary["pct"] = _pct(present, denominator)
    return summary


# ------------------------------------------------------------------ root summaries

def _summarize_vector(items: list, total: int, sample: int) -> dict:
    scanned = items[:MAX_ROOT_ITEMS]
    caps = ["max_items"] if total > MAX_ROOT_ITEMS else []
    summary = {"type": "vector", "count": total, "scanned": len(scanned),
               "item_types": _histogram_of(scanned)}
    maps = [x for x in scanned if type(x) is Map]
    if maps:
        grouped: dict = {}      # stored key identity (hk) -> (key, [values])
        for m in maps:
            d = m.d()
            if len(d) > MAX_MAP_KEYS:
                entries = [(hk(k), v) for k, v in _map_entries(m)[0]]
                caps.append("max_keys")
            else:
                entries = dict.items(d)
            for hkey, v in entries:
                g = grouped.get(hkey)
                if g is None:
                    if len(grouped) >= MAX_MAP_KEYS:
                        caps.append("max_keys")
                        continue
                    g = grouped[hkey] = (unhk(hkey), [])
                g[1].append(v)
        groups = list(grouped.values())
        key_types: Counter = Counter()
        for k, vals in groups:
            key_types[kind(k)] += len(vals)
        summary["key_types"] = Map.from_pairs(sorted(key_types.items()))
        # a key occurs at most once per map, so its value count is its presence count
        summary["keys"] = [
            (name, _with_presence(_field_summary(vals, sample), len(vals), len(scanned)))
            for name, (k, vals) in zip(_key_names([k for k, _ in groups]), groups)
        ]
    return _add_caps(summary, caps)


def _summarize_map(m: Map, sample: int) -> dict:
    entries, caps = _map_entries(m)
    names = _key_names([k for k, _ in entries])
    summary = {"type": "map", "count": len(m), "key_types": _histogram(kind(k) for k, _ in entries),
               "keys": [(name, _field_summary([v], sample)) for name, (k, v) in zip(names, entries)]}
    return _add_caps(summary, caps)


def _summarize_set(s: Set) -> dict:
    members = s.members()
    scanned = members[:MAX_ROOT_ITEMS]
    summary = {"type": "set", "count": len(members), "scanned": len(scanned),
               "item_types": _histogram_of(scanned)}
    return _add_caps(summary, ["max_items"] if len(members) > MAX_ROOT_ITEMS else [])


def _summarize_other(x, sample: int) -> dict:
    summary = _field_summary([x], sample)
    summary["type"] = kind(x)
    summary["sample"] = _example(x)
    return summary


# ------------------------------------------------------------------ paths

class _PathState:
    __slots__ = ("seen", "values", "count", "paths_capped", "values_capped", "caps")

    def __init__(self):
        self.seen: dict = {}          # path text -> [(root_id, value)]
        self.count = 0
        self.paths_capped = False
        self.values_capped = False
        self.caps: list = []


def _escape(part: str) -> str:
    if "." not in part and "\\" not in part:
        return part
    return part.replace("\\", "\\\\").replace(".", "\\.")


def _collect(value, prefix: str, depth: int, max_depth: int, root_id: int, st: _PathState, nest: int):
    """Walk maps (and vectors below a key) iteratively, recording (root_id, value) per path."""
    stack = [(value, prefix, depth, nest)]
    while stack:
        v, pre, d, n = stack.pop()
        t = type(v)
        if t is Map and d < max_depth:
            entries, caps = _map_entries(v)
            st.caps += caps
            todo = []
            for name, (k, child) in zip(_key_names([k for k, _ in entries]), entries):
                part = _escape(name)
                path = pre + "." + part if pre else part
                bucket = st.seen.get(path)
                if bucket is None:
                    if len(st.seen) >= MAX_PATHS:
                        st.paths_capped = True
                        continue
                    bucket = st.seen[path] = []
                if st.count >= MAX_PATH_VALUES:
                    st.values_capped = True
                    continue
                st.count += 1
                bucket.append((root_id, child))
                todo.append((child, path, d + 1, n))
            stack.extend(reversed(todo))
        elif t is Vector and pre and d < max_depth:
            items = v.lst()
            if n >= MAX_DEPTH:
                if items:
                    st.caps.append("max_depth")
                continue
            if len(items) > MAX_ROOT_ITEMS:
                st.caps.append("max_items")
            stack.extend((item, pre, d, n + 1) for item in reversed(items[:MAX_ROOT_ITEMS]))


def _paths(value, max_depth: int, sample: int):
    st = _PathState()
    if type(value) is Vector:
        items = value.lst()
        if len(items) > MAX_ROOT_ITEMS:
            st.caps.append("max_items")
        roots = items[:MAX_ROOT_ITEMS]
        for i, item in enumerate(roots):
            _collect(item, "", 0, max_depth, i, st, 0)
        denominator = len(roots)
    else:
        _collect(value, "", 0, max_depth, 0, st, 0)
        denominator = 1
    out = []
    for path in sorted(st.seen):
        pairs = st.seen[path]
        present = len({i for i, _ in pairs})
        fs = _with_presence(_field_summary([v for _, v in pairs], sample), present, denominator)
        if len(pairs) > present:
            fs["value_count"] = len(pairs)
        out.append((path, fs))
    caps = list(st.caps)
    if st.paths_capped:
        caps.append("max_paths")
    if st.values_capped:
        caps.append("max_path_values")
    return out, caps


# ------------------------------------------------------------------ output

def _to_map(summary: dict) -> Map:
    pairs = []
    for name, v in summary.items():
        if name in ("keys", "paths"):
            v = Map.from_pairs((k, _to_map(fs)) for k, fs in v)
        elif name == "caps_hit":
            v = Vector(list(v))
        pairs.append((K(name), v))
    return Map.from_pairs(pairs)


@builtin("describe", "(describe x)", "(describe x opts)", category="predicates")
def describe(x, opts=None):
    """A bounded summary of the shape of x, for exploring unfamiliar data: its type and count, the types of
    items, and for collections of maps a per-key report (how many items have the key, the value types, a few
    examples, the number of distinct values). Options: {:depth 1-5 :paths true :sample 1-3}; :paths adds dotted
    paths into nested maps down to :depth levels. Large inputs are sampled; :truncated and :caps_hit say when a
    limit was reached.

    (describe [{"id" 1} {"id" 2 "tag" "x"}])
    (describe {:a {:b 1}} {:paths true :depth 2})
    """
    if opts is None:
        opts = Map()
    elif type(opts) is not Map:
        raise PtcError("type_error", f"describe: options must be a map, got {type_name(opts)}")
    depth = _bounded_int(_option(opts, "depth", DEFAULT_DEPTH), DEFAULT_DEPTH, 1, MAX_DEPTH)
    sample = _bounded_int(_option(opts, "sample", MAX_EXAMPLES), MAX_EXAMPLES, 1, MAX_EXAMPLES)
    want_paths = _option(opts, "paths", False)
    want_paths = want_paths is not None and want_paths is not False

    t = type(x)
    if t is Vector:
        items = x.lst()
        summary = _summarize_vector(items, len(items), sample)
    elif t is Map:
        summary = _summarize_map(x, sample)
    elif t is Set:
        summary = _summarize_set(x)
    else:
        summary = _summarize_other(x, sample)
    if want_paths:
        paths, caps = _paths(x, depth, sample)
        summary["paths"] = paths
        _add_caps(summary, caps)
    nkeys = len(summary.get("keys", ())) + len(summary.get("paths", ()))
    current().alloc(map_cost(8 + 8 * nkeys) + 200 * nkeys)
    return _to_map(summary)
