"""JSON text as host data, at any depth the host API accepts.

`parse(text)` gives exactly what `json.loads(text)` gives (same values, same
acceptance of `NaN` and `Infinity`, last duplicate key wins), but for nesting
up to `convert.MAX_DEPTH` containers whatever the interpreter's recursion
limit: `json.loads` (C, recursive) is tried first, and a document it gives
up on with RecursionError is read again by an iterative parser that keeps
its own stack. A document nested deeper than the bound raises
`JsonTooDeep` (a ValueError) naming it, the same bound `from_python` applies
to the data it is then handed (the top-level container counts as one).
Invalid JSON raises `json.JSONDecodeError` either way. The command line
reads `--data` files with it (ptclisp.commands.common.load_data). Imports convert.
"""
from __future__ import annotations

import json
import re
from json.decoder import scanstring

from .python import MAX_DEPTH

_WS = re.compile(r"[ \t\n\r]*")
_NUMBER = re.compile(r"(-?(?:0|[1-9]\d*))(\.\d+)?([eE][-+]?\d+)?")
_CONSTANTS = {"null": None, "true": True, "false": False,
              "NaN": float("nan"), "Infinity": float("inf"), "-Infinity": float("-inf")}
_CONSTANT = re.compile(r"null|true|false|NaN|Infinity|-Infinity")


class JsonTooDeep(ValueError):
    """A JSON document nested deeper than the bound."""

    def __init__(self, max_depth: int):
        super().__init__(f"nested deeper than {max_depth:,} levels (the limit for host data)")
        self.max_depth = max_depth


def parse(text: str, max_depth: int = MAX_DEPTH):
    """The value of the JSON document `text` (see the module docstring)."""
    try:
        return json.loads(text)
    except RecursionError:
        return parse_iteratively(text, max_depth)


def parse_iteratively(text: str, max_depth: int = MAX_DEPTH):
    """`parse` without recursion: an explicit stack of open containers, at most `max_depth` of them."""
    end = _WS.match(text, 0).end()
    stack: list = []   # open containers: [list] or [dict, key]
    while True:
        # a value starts at `end`
        if end >= len(text):
            raise json.JSONDecodeError("Expecting value", text, end)
        c = text[end]
        if c == "{" or c == "[":
            if len(stack) >= max_depth:
                raise JsonTooDeep(max_depth)
            end = _WS.match(text, end + 1).end()
            if c == "[":
                if text.startswith("]", end):
                    value, end = [], end + 1
                else:
                    stack.append([[]])
                    continue
            else:
                if text.startswith("}", end):
                    value, end = {}, end + 1
                else:
                    frame = [{}, None]
                    stack.append(frame)
                    end = _key(text, end, frame)
                    continue
        elif c == '"':
            value, end = scanstring(text, end + 1, True)
        else:
            value, end = _atom(text, end)
        # a value ended at `end`: add it to the innermost open container, closing those that end here
        while True:
            if not stack:
                end = _WS.match(text, end).end()
                if end != len(text):
                    raise json.JSONDecodeError("Extra data", text, end)
                return value
            frame = stack[-1]
            container = frame[0]
            if type(container) is list:
                container.append(value)
            else:
                container[frame[1]] = value
            end = _WS.match(text, end).end()
            sep = text[end:end + 1]
            if sep == ",":
                end = _WS.match(text, end + 1).end()
                if type(container) is dict:
                    end = _key(text, end, frame)
                break
            if sep == ("]" if type(container) is list else "}"):
                stack.pop()
                value, end = container, end + 1
                continue
            raise json.JSONDecodeError("Expecting ',' delimiter", text, end)


def _key(text: str, end: int, frame: list) -> int:
    """Read an object key and its colon at `end` into `frame`; the position of its value."""
    if not text.startswith('"', end):
        raise json.JSONDecodeError("Expecting property name enclosed in double quotes", text, end)
    frame[1], end = scanstring(text, end + 1, True)
    end = _WS.match(text, end).end()
    if not text.startswith(":", end):
        raise json.JSONDecodeError("Expecting ':' delimiter", text, end)
    return _WS.match(text, end + 1).end()


def _atom(text: str, end: int):
    """A number or a constant at `end`: (value, the position after it)."""
    m = _NUMBER.match(text, end)
    if m is not None:
        integer, frac, exp = m.groups()
        if frac or exp:
            return float(integer + (frac or "") + (exp or "")), m.end()
        return int(integer), m.end()
    m = _CONSTANT.match(text, end)
    if m is not None:
        return _CONSTANTS[m.group()], m.end()
    raise json.JSONDecodeError("Expecting value", text, end)
