"""PTC values -> JSON: the one conversion every JSON-facing output uses.

`to_json(value)` gives plain JSON data (dict with str keys, list, str, int,
finite float, bool, None); `dumps(value)` gives JSON text. `ptclisp eval
--json`, `run --json`, `ptclisp agent` (text and --json), traces,
`AgentOutcome.value` and the agent library's projections
(`ptclisp.agent.envelopes.project`) all go through here. The rules (also in
docs/json.md):

* nil, booleans, strings and integers stay as they are; finite floats stay
  floats. `##NaN`, `##Inf` and `##-Inf` are refused: JSON has no such
  numbers, and writing null or a bare `NaN` would lie.
* keywords become their name (`:a` -> "a").
* vectors become arrays; sets become arrays in the order printing uses.
* maps become objects whose members follow the sorted key order printing
  uses. A key that is a string stays; a keyword gives its name; an integer
  or float its JSON number text (1 -> "1", 1.5 -> "1.5"); true, false and
  nil give "true", "false" and "null". Any other key (a collection, a
  function, ...) is refused. Two keys of one map that become the same
  string (`{1 2 "1" 3}`, `{:a 1 "a" 2}`) are refused, naming both keys.
* Java values (dates, instants) become their canonical text, as `str` shows it.
* anything else (functions, vars, quoted symbols, regexes, host objects) is
  refused, naming its type.
* plain Python containers (dict, list, tuple, set) are accepted with the same
  rules, so a host record that holds PTC values converts in one pass; dicts
  keep their insertion order.

A refusal raises `JsonValueError`: a `PtcError` (kind `type_error`, or
`public_projection_collision` for a key collision) and a `ValueError`, whose
message names what has no JSON form and where (`at [:a 0]`, the path of keys
and indexes from the top). Both directions are iterative, so deep data
cannot exhaust the Python stack. Imports errors, values.
"""
from __future__ import annotations

import json
import math
import sys

from ..errors import PtcError
from ..values import JavaObject, Keyword, Map, Set, Vector, sorted_items, sorted_members, type_name
from ..values.walk import ExpansionBudget

#: Deeper data is refused (the same bound as ptclisp.interchange.python).
MAX_DEPTH = 10_000
#: Below this depth `dumps` uses the C encoder; deeper data is encoded iteratively.
_C_ENCODER_DEPTH = 200
#: Integers this long (in bits) may exceed the host's int -> str digit limit: check them.
_LONG_INT_BITS = 10_000


class JsonValueError(PtcError, ValueError):
    """A value has no JSON form: `kind` is type_error, public_projection_collision or memory_exceeded (it would
    expand past `ExpansionBudget`); `path` locates it."""

    def __init__(self, kind: str, message: str, path: tuple = ()):
        super().__init__(kind, message, details={"path": [_plain_path_item(p) for p in path[:32]]})
        self.path = path


def _plain_path_item(p):
    t = type(p)
    if t is Keyword:
        return p.name
    if p is None or t in (bool, int, float, str):
        return p
    return type_name(p)


def _path_of(node) -> tuple:
    out = []
    while node is not None:
        node, key = node
        out.append(key)
    return tuple(reversed(out))


def _show(x, limit: int = 40) -> str:
    from ..values.text import pr_str
    t = type(x)
    if x is None or t in (bool, int, float, str, Keyword):
        text = pr_str(x) if t is not int or x.bit_length() < 256 else f"{str(x)[:12]}..."
    else:
        return f"a {type_name(x)}"
    return text if len(text) <= limit else text[:limit] + "..."


def _where(node) -> str:
    path = _path_of(node)
    if not path:
        return ""
    parts = [_show(p) if type(p) is not int else str(p) for p in path[:8]]
    if len(path) > 8:
        parts.append("...")
    return " at [" + " ".join(parts) + "]"


def _refuse(what: str, node, hint: str = "", kind: str = "type_error") -> JsonValueError:
    return JsonValueError(kind, f"{what} has no JSON form{_where(node)}{hint}", _path_of(node))


def _int_text(x: int, node) -> str:
    try:
        return str(x)
    except ValueError:
        raise _refuse(f"an integer with more than {sys.get_int_max_str_digits()} digits", node) from None


def _float_problem(x: float) -> str:
    return "##NaN" if x != x else ("##Inf" if x > 0 else "##-Inf")


_NUMBER_HINT = "; JSON has no NaN or infinity"


def _key_text(k, node) -> str:
    t = type(k)
    if t is str:
        return k
    if t is Keyword:
        return k.name
    if t is bool:
        return "true" if k else "false"
    if t is int:
        return _int_text(k, node) if k.bit_length() > _LONG_INT_BITS else str(k)
    if t is float:
        if not math.isfinite(k):
            raise _refuse(f"the map key {_float_problem(k)}", node, _NUMBER_HINT)
        return repr(k)
    if k is None:
        return "null"
    if isinstance(k, str):
        return str(k)
    name = type_name(k)
    raise _refuse(f"a {name if name != 'unknown' else 'Python ' + type(k).__name__} map key", node,
                  "; keys must be strings, keywords, numbers, booleans or nil")


def _collision(k, text, items, node) -> JsonValueError:
    other = next(ok for ok, _ in items if ok is not k and _key_text(ok, node) == text)
    shown = json.dumps(text, ensure_ascii=False)
    return JsonValueError("public_projection_collision",
                          f"map keys {_show(other)} and {_show(k)} both become the JSON key "
                          f"{shown if len(shown) <= 44 else shown[:40] + '...'}{_where(node)}; "
                          f"a JSON object needs distinct keys", _path_of(node))


def _child_depth(depth: int, node) -> int:
    """The depth of the items of a container at `depth`; data nested past MAX_DEPTH is refused."""
    if depth >= MAX_DEPTH:
        raise _refuse(f"data nested deeper than {MAX_DEPTH} levels", node)
    return depth + 1


def _convert(value):
    """(plain JSON data, deepest nesting) of `value`; raises JsonValueError."""
    root: list = [None]
    deepest = 0
    # (value, container, slot, depth, path node) where a path node is (parent node, key) or None
    stack = [(value, root, 0, 0, None)]
    pop, push = stack.pop, stack.append
    budget = ExpansionBudget(value)   # a value sharing one part many times may not expand past it
    while stack:
        x, parent, slot, depth, node = pop()
        t = type(x)
        if t is str or x is None or t is bool:
            parent[slot] = x
        elif t is int:
            if x.bit_length() > _LONG_INT_BITS:
                _int_text(x, node)
            parent[slot] = x
        elif t is float:
            if not math.isfinite(x):
                raise _refuse(_float_problem(x), node, _NUMBER_HINT)
            parent[slot] = x
        elif t is Keyword:
            parent[slot] = x.name
        elif t is Vector or t is Set or t is list or t is tuple:
            items = x.lst() if t is Vector else sorted_members(x) if t is Set else x
            if not budget.add(len(items)):
                raise _too_large(budget, node)
            out = [None] * len(items)
            parent[slot] = out
            if items:
                depth = _child_depth(depth, node)
                if depth > deepest:
                    deepest = depth
                for i in range(len(items) - 1, -1, -1):
                    push((items[i], out, i, depth, (node, i)))
        elif t is Map or isinstance(x, dict):
            if not budget.add(2 * len(x)):
                raise _too_large(budget, node)
            items = sorted_items(x) if t is Map else list(x.items())
            out = {}
            parent[slot] = out
            if items:
                depth = _child_depth(depth, node)
                if depth > deepest:
                    deepest = depth
                for k, _ in items:
                    text = k if type(k) is str else _key_text(k, node)
                    if text in out:
                        raise _collision(k, text, items, node)
                    out[text] = None
                pending = []
                for (k, v), text in zip(items, out):
                    pending.append((v, out, text, depth, (node, k)))
                stack.extend(reversed(pending))
        elif isinstance(x, JavaObject):
            parent[slot] = x.to_text()
        elif isinstance(x, (set, frozenset)):
            try:
                items = sorted(x)
            except TypeError:
                items = list(x)
            push((items, parent, slot, depth, node))
        elif isinstance(x, bool):
            parent[slot] = bool(x)
        elif isinstance(x, int):
            push((int(x), parent, slot, depth, node))
        elif isinstance(x, float):
            push((float(x), parent, slot, depth, node))
        elif isinstance(x, str):
            parent[slot] = str(x)
        else:
            name = type_name(x)
            raise _refuse(f"a {name if name != 'unknown' else 'Python ' + type(x).__name__}", node)
    return root[0], deepest


def _too_large(budget, node) -> JsonValueError:
    return JsonValueError("memory_exceeded", f"the value shares its parts so widely that its JSON would have more "
                                             f"than {budget.limit} cells (twice what it holds, at least "
                                             f"{budget.FLOOR}){_where(node)}; return a summary of it", _path_of(node))


def to_json(value):
    """Plain JSON data for a PTC value (or host data holding PTC values); raises JsonValueError."""
    return _convert(value)[0]


def dumps(value, *, indent: int | None = None, sort_keys: bool = False, ensure_ascii: bool = False) -> str:
    """JSON text of `value` under the rules of `to_json`; non-ASCII is written as it is unless `ensure_ascii`.

    Separators are json.dumps' defaults (", " and ": "; "," between items
    when indenting). Deep data is encoded without recursion.
    """
    return _text(*_convert(value), indent, sort_keys, ensure_ascii)


def write_json(stream, value, *, indent: int | None = None) -> None:
    """Write `dumps(value)` and a newline to a text stream, as valid JSON whatever the stream's encoding.

    Text the stream's encoding cannot hold (an ASCII terminal, a lone
    surrogate) is written with JSON `\\u` escapes instead, so the line still
    parses as the same JSON.
    """
    data, deepest = _convert(value)
    text = _text(data, deepest, indent, False, False)
    encoding = getattr(stream, "encoding", None)
    if encoding:
        try:
            text.encode(encoding)
        except UnicodeEncodeError:
            text = _text(data, deepest, indent, False, True)
        except LookupError:
            pass
    stream.write(text + "\n")


def _text(data, deepest: int, indent, sort_keys: bool, ensure_ascii: bool) -> str:
    if deepest < _C_ENCODER_DEPTH:
        return json.dumps(data, ensure_ascii=ensure_ascii, allow_nan=False, indent=indent, sort_keys=sort_keys)
    return _encode(data, indent, sort_keys, ensure_ascii)


_encode_str = getattr(json.encoder, "c_encode_basestring", None) or json.encoder.py_encode_basestring
_encode_ascii = getattr(json.encoder, "c_encode_basestring_ascii", None) or json.encoder.py_encode_basestring_ascii
_END = object()


def _encode(data, indent: int | None, sort_keys: bool, ensure_ascii: bool) -> str:
    """json.dumps(data, ensure_ascii=ensure_ascii, indent=indent, sort_keys=sort_keys) of converted data,
    iteratively."""
    out: list[str] = []
    encode_str = _encode_ascii if ensure_ascii else _encode_str
    item_sep = "," if indent is not None else ", "

    def scalar(x) -> str:
        if x is None:
            return "null"
        if x is True:
            return "true"
        if x is False:
            return "false"
        if type(x) is str:
            return encode_str(x)
        if type(x) is int:
            return int.__repr__(x)
        return float.__repr__(x)

    def opening(x, depth):
        """Write the opening of container x (or all of it when empty); the frame to push, if any."""
        is_dict = type(x) is dict
        if not x:
            out.append("{}" if is_dict else "[]")
            return None
        out.append("{" if is_dict else "[")
        it = iter(sorted(x.items()) if sort_keys else x.items()) if is_dict else iter(x)
        return [it, is_dict, 0, depth + 1]

    first = opening(data, 0) if type(data) in (dict, list) else None
    if first is None:
        if type(data) not in (dict, list):
            out.append(scalar(data))
        return "".join(out)
    stack = [first]
    while stack:
        frame = stack[-1]
        it, is_dict, count, depth = frame
        nxt = next(it, _END)
        if nxt is _END:
            stack.pop()
            if indent is not None:
                out.append("\n" + " " * (indent * (depth - 1)))
            out.append("}" if is_dict else "]")
            continue
        if count:
            out.append(item_sep)
        frame[2] = count + 1
        if indent is not None:
            out.append("\n" + " " * (indent * depth))
        if is_dict:
            key, v = nxt
            out.append(encode_str(key) + ": ")
        else:
            v = nxt
        if type(v) in (dict, list):
            child = opening(v, depth)
            if child is not None:
                stack.append(child)
        else:
            out.append(scalar(v))
    return "".join(out)


__all__ = ["JsonValueError", "to_json", "dumps", "write_json"]
