"""What the model is shown of a successful program: a bounded observation.

Owns `observe(value, prints, max_chars)`: the `user=> <preview>` text of a
value plus its printed lines, capped at `max_chars` characters, and the
preview facts the feedback needs (`truncated?`, `caps_hit`, `sampled_keys`,
`prints_truncated?`).  The complete value stays in the mission history; the
observation is only what the transcript carries.  Sizes are counted in code
points, which never undercounts graphemes, so a code-point cap is also a
grapheme cap.  Imports values.
"""
from __future__ import annotations

import re

from ..values.preview import PreviewCaps, preview
from ..values import Keyword, Map, Vector

CLOSING_MARKER = "</untrusted_ptc_output>"
ESCAPED_MARKER = "</untrusted_ptc_output (escaped)>"
PROMPT = "user=> "
PRINTS_HEADER = "\nprintln:\n"
TRUNCATED_SUFFIX = "\n... (observation truncated)"
MAX_SAMPLED_KEYS = 8
PRINTS_RESERVE_CAP = 512

_HIT = re.compile(r" #<preview truncated: ([a-z_,]+)>$")


def _sampled_keys(value) -> list[str]:
    m = value
    if type(m) is Vector and m.lst() and type(m.lst()[0]) is Map:
        m = m.lst()[0]
    if type(m) is not Map:
        return []
    keys = []
    for k, _ in m.items():
        keys.append(k.name if type(k) is Keyword else (k if type(k) is str else str(k)))
        if len(keys) >= MAX_SAMPLED_KEYS:
            break
    return sorted(keys)


def _preview(value, chars: int) -> tuple[str, list[str]]:
    """A preview of at most `chars` characters, ending with a truncation notice when a cap bit."""
    caps = PreviewCaps(chars=max(chars, 16), items=16, depth=4, nodes=256, string=min(256, max(chars // 2, 16)))
    text = preview(value, caps)
    m = _HIT.search(text)
    if not m:
        return text, []
    hit = sorted(m.group(1).split(","))
    keys = _sampled_keys(value)
    notice = " #<preview truncated: " + ",".join(hit) + (f"; sampled keys: {','.join(keys)}" if keys else "") + ">"
    body = text[: m.start()]
    room = max(chars - len(notice), 0)
    if len(body) > room:
        body = body[: max(room - 4, 0)] + " ..."
    return body + notice, hit


def observe(value, prints: list[str], max_chars: int) -> tuple[str, dict]:
    """(observation text, preview facts) for a successful value and its printed lines."""
    reserve = min(max_chars // 3, PRINTS_RESERVE_CAP) if prints else 0
    value_budget = max(max_chars - len(PROMPT) - reserve - (len(PRINTS_HEADER) if prints else 0), 1)
    text, hit = _preview(value, value_budget)
    body = PROMPT + text
    prints_truncated = False
    if prints:
        room = max(max_chars - len(body) - len(PRINTS_HEADER), 0)
        kept: list[str] = []
        used = 0
        for line in prints:
            cost = len(line) + (1 if kept else 0)
            if used + cost > room:
                prints_truncated = True
                break
            kept.append(line)
            used += cost
        if kept:
            body += PRINTS_HEADER + "\n".join(kept)
        elif prints:
            prints_truncated = True
    body = body.replace(CLOSING_MARKER, ESCAPED_MARKER)
    if len(body) > max_chars:
        keep = max(max_chars - len(TRUNCATED_SUFFIX), 0)
        body = (body[:keep] + TRUNCATED_SUFFIX)[:max_chars]
        if "output" not in hit:
            hit = sorted(set(hit) | {"output"})
    facts = {"truncated?": bool(hit), "caps_hit": hit, "sampled_keys": _sampled_keys(value) if hit else [],
             "prints_truncated?": prints_truncated}
    return body, facts
