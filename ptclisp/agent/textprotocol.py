"""`--text-protocol`: PTC-Lisp in a fenced block, for models without tool calling.

`TextProtocol(provider)` wraps any provider.  On the way out it removes the
request's tool definitions, adds one instruction to the system prompt, and
rewrites the transcript in plain messages (an earlier run_ptc_lisp call
becomes the assistant's fenced program, a tool result a user message).  On
the way back, an answer with no tool call whose text holds a fenced block
(```clojure, ```clj, ```lisp, ```ptc-lisp or a bare ```) is turned into the
one run_ptc_lisp call the agent loop expects; the text before the block
is kept as the model's narration.  An answer without a block passes
through unchanged (the loop then asks again, as for any answer without a
program).  Imports providers.base (describing and closing the wrapped provider).
"""
from __future__ import annotations

import itertools
import re

from ..providers.base import close_provider, wrapped_description

TOOL_NAME = "run_ptc_lisp"
FENCE = re.compile(r"```[ \t]*(?:clojure|clj|lisp|ptc-lisp|ptclisp|ptc|edn)?[ \t]*\r?\n(.*?)```",
                   re.S | re.I)
INSTRUCTION = ("Answer format: this model is used without tool calls. Wherever these instructions say to call "
               "run_ptc_lisp, reply instead with exactly one PTC-Lisp program in a fenced code block that "
               "starts with ```clojure and ends with ```. The program is run exactly as a run_ptc_lisp call "
               "would run it, and its result comes back in the next message.")


def fenced_program(text) -> tuple[str | None, str | None]:
    """(the first fenced program in `text`, the narration before it), or (None, None)."""
    if not isinstance(text, str):
        return None, None
    m = FENCE.search(text)
    if m is None or not m.group(1).strip():
        return None, None
    narration = text[:m.start()].strip()
    return m.group(1).strip(), narration or None


def _as_text(message: dict) -> dict:
    role = message.get("role")
    if role == "assistant" and message.get("tool_calls"):
        parts = [message["content"]] if isinstance(message.get("content"), str) and message["content"] else []
        for call in message["tool_calls"]:
            args = call.get("args") if isinstance(call, dict) else None
            program = args.get("program") if isinstance(args, dict) else None
            if isinstance(program, str):
                parts.append(f"```clojure\n{program}\n```")
        return {"role": "assistant", "content": "\n\n".join(parts)}
    if role == "tool":
        return {"role": "user", "content": message.get("content") or ""}
    return message


class TextProtocol:
    """A provider wrapper that speaks the fenced-block protocol to the model (see the module docstring)."""

    def __init__(self, inner):
        self.inner = inner
        self.kind = getattr(inner, "kind", "provider")
        self._ids = itertools.count(1)

    def complete(self, request: dict) -> dict:
        req = {k: v for k, v in request.items() if k != "tools"}
        if request.get("tools"):
            system = req.get("system")
            req["system"] = f"{system}\n\n{INSTRUCTION}" if isinstance(system, str) and system else INSTRUCTION
        messages = request.get("messages")
        if isinstance(messages, list):
            req["messages"] = [_as_text(m) if isinstance(m, dict) else m for m in messages]
        return self.adopt(self.inner.complete(req))

    def adopt(self, response):
        """`response` with a fenced program turned into a run_ptc_lisp call (unchanged otherwise)."""
        if not isinstance(response, dict) or response.get("tool_calls"):
            return response
        program, narration = fenced_program(response.get("content"))
        if program is None:
            return response
        out = dict(response)
        out["content"] = narration
        out["tool_calls"] = [{"id": f"text-{next(self._ids)}", "name": TOOL_NAME, "args": {"program": program}}]
        if out.get("finish_reason") in (None, "stop"):
            out["finish_reason"] = "tool_calls"
        return out

    def describe(self) -> dict:
        return wrapped_description(self.inner, self.kind, text_protocol=True)

    def close(self) -> None:
        close_provider(self.inner)
