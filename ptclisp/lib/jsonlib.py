"""JSON builtins: `json/parse-string`, `json/parse-lines`, `json/generate-string`.

Owns docs/spec/functions.md §8. Parsing never raises: anything that is not valid JSON
text (including non-strings, NaN/Infinity literals, numbers that overflow a
float, and documents nested deeper than 512 arrays/objects) gives nil.
Objects become maps with string keys, arrays become vectors, integers stay
integers and decimals become floats.

Generation refuses values JSON cannot carry faithfully with a `type_error`
that names the path to the offending value: keyword values, sets, functions,
regexes, ±Infinity/NaN, and map keys other than strings, keywords (encoded
by name) and integers (encoded as decimal text), as well as two keys of one
map that encode to the same text. Output is compact (`,` and `:` without
spaces), non-ASCII is left unescaped, and object members follow the sorted
key order every map view uses.

Both directions are iterative (no Python recursion) and charge the meter.
Imports values, errors, meter, registry.
"""
from __future__ import annotations

import json as _json
import math

from ..errors import PtcError
from ..values.intstr import int_text, text_int
from ..runtime.meter import current, map_cost, seq_cost, str_cost
from ..values.text import pr_str
from ..values import Keyword, Map, Set, Vector, sorted_items, type_name
from ..registry.builtins import builtin
from .arguments import LazyPattern

MAX_DEPTH = 512

# ------------------------------------------------------------------- parsing

_TOKENS = LazyPattern(r'"[^"\\]*(?:\\.[^"\\]*)*"|[\[\]{}]')


def _depth_ok(s: str) -> bool:
    """False when arrays/objects nest deeper than MAX_DEPTH (strings skipped)."""
    if s.count("[") + s.count("{") <= MAX_DEPTH:
        return True
    depth = 0
    for m in _TOKENS.finditer(s):
        c = s[m.start()]
        if c == "[" or c == "{":
            depth += 1
            if depth > MAX_DEPTH:
                return False
        elif c == "]" or c == "}":
            depth -= 1
    return True


class _Reject(Exception):
    pass


class _Obj:
    __slots__ = ("pairs",)

    def __init__(self, pairs):
        self.pairs = pairs


def _no_constant(name):
    raise _Reject(name)


def _finite_float(text):
    f = float(text)
    if not math.isfinite(f):
        raise _Reject(text)
    return f


JSON_INT_DIGITS = 80_000  # about the largest integer the language holds (numbers.MAX_INT_BITS)


def _json_int(text):
    """An integer of the JSON text, whatever the interpreter's digit limit; longer ones are refused."""
    if len(text) > JSON_INT_DIGITS:
        raise _Reject(text[:20])
    return text_int(text)


def _convert(root):
    """Turn the decoder's lists/_Obj into Vectors/Maps, bottom-up, without recursion."""
    t = type(root)
    if t is not list and t is not _Obj:
        return root
    m = current()
    result = None
    stack = [[root, 0, []]]
    while stack:
        frame = stack[-1]
        node, i, acc = frame
        is_list = type(node) is list
        items = node if is_list else node.pairs
        if i < len(items):
            frame[1] = i + 1
            child = items[i] if is_list else items[i][1]
            ct = type(child)
            if ct is list or ct is _Obj:
                stack.append([child, 0, []])
            else:
                acc.append(child)
            continue
        stack.pop()
        if is_list:
            m.alloc(seq_cost(len(acc)))
            val = Vector(acc)
        else:
            m.alloc(map_cost(len(acc)))
            d = {}
            for (k, _), v in zip(node.pairs, acc):
                d[k] = v
            val = Map(d)
        if stack:
            stack[-1][2].append(val)
        else:
            result = val
    return result


def parse_json(s):
    """Decode JSON text to a PTC value, or None when it is not acceptable JSON."""
    if type(s) is not str:
        return None
    if not _depth_ok(s):
        return None
    if len(s) > 256:
        current().alloc(str_cost(len(s)))
    try:
        raw = _json.loads(s, object_pairs_hook=_Obj, parse_constant=_no_constant, parse_float=_finite_float,
                          parse_int=_json_int)
    except (ValueError, RecursionError, _Reject, OverflowError):
        return None
    return _convert(raw)


_LINE_BREAK = LazyPattern(r"\r\n|\n|\r")


@builtin("parse-string", "(json/parse-string s)", groups=("json",), plain=False, category="json")
def parse_string(s):
    r"""Decodes JSON text: objects become maps with string keys, arrays become vectors, null becomes nil. Invalid
    JSON, nil or a non-string gives nil instead of an error, as does nesting deeper than 512 levels.

    (json/parse-string "{\"a\":[1,2.5,null]}") ;=> {"a" [1 2.5 nil]}
    (json/parse-string "not json") ;=> nil
    """
    return parse_json(s)


@builtin("parse-lines", "(json/parse-lines s)", groups=("json",), plain=False, category="json")
def parse_lines(s):
    r"""Decodes JSON Lines text: one value per non-blank line, nil for a line that is not valid JSON. A
    non-string argument gives nil.

    (json/parse-lines "{\"a\":1}\n\n[2]") ;=> [{"a" 1} [2]]
    """
    if type(s) is not str:
        return None
    lines = [ln for ln in _LINE_BREAK.split(s) if ln.strip()]
    current().alloc(seq_cost(len(lines)))
    return Vector([parse_json(ln) for ln in lines])


# ---------------------------------------------------------------- generating

_END = object()


def _path_text(path) -> str:
    shown = path[:8]
    parts = []
    for p in shown:
        t = pr_str(p) if type(p) is not str or len(p) <= 40 else pr_str(p[:40] + "...")
        parts.append(t if len(t) <= 48 else t[:48] + "...")
    if len(path) > 8:
        parts.append("...")
    return "[" + " ".join(parts) + "]"


def _refuse(what: str, path, hint: str = "") -> PtcError:
    where = f" at {_path_text(path)}" if path else ""
    return PtcError("type_error", f"json/generate-string: cannot encode {what}{where}{hint}",
                    details={"path": list(path[:32])})


def _value_problem(x) -> tuple[str, str]:
    t = type(x)
    if t is Keyword:
        return f"the keyword value :{x.name}", "; use (name k) to send it as a string"
    if t is Set:
        return "a set", "; convert it with (vec s)"
    if t is float:
        return ("##NaN" if x != x else ("##Inf" if x > 0 else "##-Inf")), ""
    return f"a {type_name(x)}", ""


def _key_text(k, path):
    t = type(k)
    if t is str:
        return k
    if t is Keyword:
        return k.name
    if t is int:
        return str(k)
    raise _refuse(f"a {type_name(k)} map key ({pr_str(k)[:40]})", path, "; keys must be strings, keywords or integers")


def _atom_json(x):
    """JSON text of a scalar, or None when x is not an encodable scalar."""
    if x is None:
        return "null"
    t = type(x)
    if t is bool:
        return "true" if x else "false"
    if t is int:
        return int_text(x)
    if t is float:
        if not math.isfinite(x):
            return None
        return repr(x)
    if t is str:
        if len(x) > 1024:
            current().alloc(str_cost(len(x) + 2))
        return _json.dumps(x, ensure_ascii=False)
    return None


def _children(x, path):
    """Iterator of (path element, value) for a container, validating keys up front."""
    if type(x) is Vector:
        return enumerate(x.lst())
    seen = {}
    entries = []
    for k, v in sorted_items(x):
        kt = _key_text(k, path)
        if kt in seen:
            raise _refuse(f"map keys {pr_str(seen[kt])[:40]} and {pr_str(k)[:40]} (both encode as {_json.dumps(kt)[:40]})",
                          path)
        seen[kt] = k
        entries.append((k, kt, v))
    return iter(entries)


def generate_json(value) -> str:
    """Encode a PTC value as compact JSON text (raises type_error when not encodable)."""
    t = type(value)
    if t is not Vector and t is not Map:
        text = _atom_json(value)
        if text is None:
            what, hint = _value_problem(value)
            raise _refuse(what, [], hint)
        return text
    m = current()
    out: list[str] = []
    pending = 0
    path: list = []
    # frame: [iterator, is_map, count]
    stack = [[_children(value, path), t is Map, 0]]
    out.append("{" if t is Map else "[")
    while stack:
        frame = stack[-1]
        nxt = next(frame[0], _END)
        if nxt is _END:
            out.append("}" if frame[1] else "]")
            stack.pop()
            if path:
                path.pop()
            continue
        if frame[2]:
            out.append(",")
        frame[2] += 1
        if frame[1]:
            key, kt, v = nxt
            piece = _json.dumps(kt, ensure_ascii=False) + ":"
            out.append(piece)
            pending += len(piece)
        else:
            key, v = nxt
        vt = type(v)
        if vt is Vector or vt is Map:
            path.append(key)
            stack.append([_children(v, path), vt is Map, 0])
            out.append("{" if vt is Map else "[")
            pending += 2
        else:
            text = _atom_json(v)
            if text is None:
                what, hint = _value_problem(v)
                raise _refuse(what, path + [key], hint)
            out.append(text)
            pending += len(text) + 1
        if pending > 4096:
            m.alloc(pending)
            pending = 0
    m.alloc(str_cost(pending))
    return "".join(out)


@builtin("generate-string", "(json/generate-string value)", groups=("json",), plain=False, category="json")
def generate_string(value):
    r"""Encodes a value as compact JSON text. Map keys may be strings, keywords (written by name) or integers
    (written as decimal text). Keyword values, sets, functions, regexes, ##Inf/##NaN, other key kinds and two
    keys that encode alike are refused with a type_error naming where they are.

    (json/generate-string {:max-turns 3}) ;=> "{\"max-turns\":3}"
    (json/generate-string [1 "a" nil]) ;=> "[1,\"a\",null]"
    """
    return generate_json(value)
