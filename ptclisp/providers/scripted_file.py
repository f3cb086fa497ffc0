"""The answers of a `scripted:FILE` model, read from the JSON file a user names.

Owns `load_script(path)`: the list of answers a `ScriptedProvider` gives in order (the agent
command's `--model NAME=scripted:FILE`, a project's scripted models, `ptclisp candidate propose`).
Every failure is an exception with its exit class (ptclisp/exit_codes.py): an unreadable file a
UsageError, a file that is not a list of answers a DocumentError. Imports ptclisp.exit_codes and
ptclisp.interchange.documents.
"""
from __future__ import annotations

import json

from ..exit_codes import DocumentError
from ..interchange.documents import read_text


def load_script(path: str) -> list:
    """The answers of a `scripted:FILE` model, in order.

    FILE holds a JSON list.  Each item is a program (a string: the answer
    calls run_ptc_lisp with it), `{"program": ..., "content": narration?}`,
    or a complete provider response (any other object).
    """
    try:
        items = json.loads(read_text(path, "scripted model file "))
    except ValueError as e:
        raise DocumentError(f"scripted model file {path} is not valid JSON: {e}", "script_invalid") from None
    if not isinstance(items, list) or not items:
        raise DocumentError(f"scripted model file {path} must hold a non-empty JSON list of answers",
                            "script_invalid")
    out = []
    for i, item in enumerate(items, start=1):
        if isinstance(item, dict) and "program" in item:
            item, content = item["program"], item.get("content")
        else:
            content = None
        if isinstance(item, str):
            out.append({"content": content, "finish_reason": "tool_calls",
                        "tool_calls": [{"id": f"call-{i}", "name": "run_ptc_lisp", "args": {"program": item}}]})
        elif isinstance(item, dict):
            out.append(item)
        else:
            raise DocumentError(f"scripted model file {path}: answer {i} must be a program string or an object",
                                "script_invalid")
    return out
