"""Compaction: fitting a model request into the transcript budget without rewriting the history.

Owns `request_chars(request)` (the measure every transcript limit uses: the
characters of the request as compact JSON) and `fit(request, ...)`, which
the host's `llm-request` binding applies to every request: under the
trigger (`compaction_at` x `max_transcript_chars`) the request goes as it
is; over it, older exchanges are replaced *in that request* by one bounded
summary so it fits, always keeping the system prompt, the task (the first
message) and the last complete exchanges, and never splitting a program
(the assistant's call) from its feedback.  A policy's `compact` hook may
write the summary and pin exchanges; when its result does not fit, the
structural trimmer (one line per summarized exchange) does; when nothing
fits, `BudgetExceeded`.  The loop's own messages are never changed: the
caller keeps and traces the canonical request.  Imports the agent's policy
module.
"""
from __future__ import annotations

import json
import re

import attrs

from .policy import wrap_untrusted

LINE_PROGRAM = 120
LINE_FEEDBACK = 200
HOOK_TEXT = 2_000


class BudgetExceeded(Exception):
    def __init__(self, size: int, budget: int):
        super().__init__(f"request of {size} characters over {budget}")
        self.size, self.budget = size, budget


def request_chars(request) -> int:
    """Characters of `request` as compact JSON text (non-ASCII kept as it is)."""
    return len(json.dumps(request, ensure_ascii=False, separators=(",", ":"), default=str))


@attrs.define(slots=True)
class Compaction:
    """What one compaction did (the `compaction` trace event)."""

    before_chars: int
    after_chars: int
    budget_chars: int
    trigger_chars: int
    turns_summarized: list
    pinned: list
    kept_last: int
    fallback_trimmer: bool
    summary: str

    def event(self) -> dict:
        return {"type": "compaction", "before_chars": self.before_chars, "after_chars": self.after_chars,
                "budget_chars": self.budget_chars, "trigger_chars": self.trigger_chars,
                "turns_summarized": list(self.turns_summarized), "pins": list(self.pinned),
                "kept_last": self.kept_last, "fallback_trimmer": self.fallback_trimmer,
                "summary_chars": len(self.summary)}


def exchanges(messages: list) -> tuple[list, list]:
    """(head, units): the first message, then the rest cut where each assistant message starts, so an
    exchange is the model's call together with the feedback (and any phase opening) that answered it."""
    head, units = messages[:1], []
    for m in messages[1:]:
        if not units or (isinstance(m, dict) and m.get("role") == "assistant"):
            units.append([m])
        else:
            units[-1].append(m)
    return head, units


def _program(unit: list) -> str:
    for m in unit:
        for c in (m.get("tool_calls") or []) if isinstance(m, dict) else []:
            args = c.get("args") if isinstance(c, dict) else None
            if isinstance(args, dict) and isinstance(args.get("program"), str):
                return args["program"]
    return ""


def _feedback(unit: list) -> str:
    return "\n".join(m.get("content") for m in unit
                     if isinstance(m, dict) and m.get("role") in ("tool", "user") and isinstance(m.get("content"), str))


_OUTPUT = re.compile(r"<untrusted_ptc_output[^>]*>\n?(.*?)(?:\n?</untrusted_ptc_output>|$)", re.S)


def _feedback_head(unit: list) -> str:
    """What a summary line says of the feedback: the program's output when the feedback carries one."""
    text = _feedback(unit)
    m = _OUTPUT.search(text)
    return "output " + m.group(1) if m else text


def _one_line(s: str, n: int) -> str:
    s = " ".join(s.split())
    return s if len(s) <= n else s[: n - 1] + "…"


def structural_summary(units: list, first_turn: int, cap: int) -> str:
    """One line per exchange (program head, feedback head), the oldest dropped first when over `cap`."""
    lines = [f"- turn {first_turn + i}: program ({len(_program(u))} chars) {_one_line(_program(u), LINE_PROGRAM)}"
             f" -> {_one_line(_feedback_head(u), LINE_FEEDBACK)}" for i, u in enumerate(units)]
    head = (f"EARLIER TURNS: {len(units)} earlier exchange(s) were summarized by the host to fit the transcript "
            "budget. Definitions they made are still available.")
    while lines and len(head) + sum(len(x) + 1 for x in lines) > cap:
        lines.pop(0)
    omitted = len(units) - len(lines)
    note = f"\n- ({omitted} oldest not listed)" if omitted else ""
    return head + note + ("\n" + "\n".join(lines) if lines else "")


def _summary_message(text: str) -> dict:
    return {"role": "user", "content": wrap_untrusted(text, "compaction")}


def _with(request: dict, messages: list) -> dict:
    out = dict(request)
    out["messages"] = messages
    return out


def fit(request: dict, budget: int, at: float, enabled: bool, hook=None):
    """(request to send, Compaction or None). `hook(turns, budget_info)` -> {"summary", "pin"} or None.

    Raises BudgetExceeded when the request cannot be brought within `budget`.
    """
    size = request_chars(request)
    trigger = max(1, int(budget * at))
    if not enabled or size <= trigger:
        if size > budget:
            raise BudgetExceeded(size, budget)
        return request, None
    messages = request.get("messages") if isinstance(request.get("messages"), list) else []
    head, units = exchanges(messages)
    cap = max(200, min(16_000, budget // 8))
    for keep in (2, 1):
        if len(units) <= keep:
            continue
        older, tail = units[:-keep], units[-keep:]
        first_turn = 1
        if hook is not None:
            got = _hooked(request, head, older, tail, hook, size, budget, trigger, cap, keep)
            if got is not None and got[1].after_chars <= budget:
                return got
        # sizes by arithmetic (a list's JSON is its items' texts, a comma between each, and brackets), so
        # trying every cut costs one pass over the messages, not a serialization per cut
        outer = size - request_chars(messages)
        head_n = sum(request_chars(x) for x in head)
        unit_n = [sum(request_chars(x) for x in u) for u in units]
        unit_k = [len(u) for u in units]
        tail_n, tail_k = sum(unit_n[len(older):]), sum(unit_k[len(older):])
        rest_n, rest_k = sum(unit_n[:len(older)]), sum(unit_k[:len(older)])
        best = None
        for m in range(1, len(older) + 1):
            rest_n, rest_k = rest_n - unit_n[m - 1], rest_k - unit_k[m - 1]
            summary = structural_summary(older[:m], first_turn, cap)
            items = len(head) + 1 + rest_k + tail_k
            n = outer + 2 + head_n + request_chars(_summary_message(summary)) + rest_n + tail_n + items - 1
            if n <= budget and (best is None or n < best[2]):
                best = (None, m, n, summary)
            if n <= trigger:
                break
        if best is not None:
            _, m, n, summary = best
            msgs = head + [_summary_message(summary)] + [x for u in older[m:] for x in u] + [x for u in tail for x in u]
            cand = _with(request, msgs)
            n = request_chars(cand)
            return cand, Compaction(size, n, budget, trigger, list(range(first_turn, first_turn + m)), [], keep,
                                    True, summary)
    if size <= budget:
        return request, None
    raise BudgetExceeded(size, budget)


def _hooked(request, head, older, tail, hook, size, budget, trigger, cap, keep):
    turns = [{"index": i, "turn": i + 1, "program": _program(u)[:HOOK_TEXT], "feedback": _feedback(u)[:HOOK_TEXT],
              "chars": request_chars(u)} for i, u in enumerate(older)]
    info = {"max_transcript_chars": budget, "request_chars": size, "target_chars": trigger, "summary_chars": cap,
            "kept_last": keep}
    out = hook(turns, info)
    if not isinstance(out, dict) or not isinstance(out.get("summary"), str):
        return None
    summary = out["summary"][:cap]
    pins = sorted({p for p in out.get("pin") or [] if isinstance(p, int) and 0 <= p < len(older)})
    summarized = [i for i in range(len(older)) if i not in pins]
    msgs = head + [_summary_message(summary)] + [x for i in pins for x in older[i]] + [x for u in tail for x in u]
    cand = _with(request, msgs)
    n = request_chars(cand)
    return cand, Compaction(size, n, budget, trigger, [i + 1 for i in summarized], [i + 1 for i in pins], keep,
                            False, summary)
