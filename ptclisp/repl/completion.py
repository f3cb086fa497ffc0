"""What the REPL knows about names: completion candidates and one-line descriptions.

Names come from the same places the analyzer resolves them: the builtin
registry (plain and qualified spellings), the special forms, the exports of
attached preludes, the granted tools, the `data/` keys, and the definitions
committed in the session so far. Nothing here is a hand-kept list.
"""
from __future__ import annotations

import re

from prompt_toolkit.completion import Completer, Completion

from ..analyzer import SPECIALS
from ..registry.builtins import BUILTINS, QUALIFIED, QUALIFIERS
from .headless import META_HELP, Repl
from ..tooling.tokens import CLOSERS, OPENERS, PREFIXES, lex_prefix

# the symbol (or keyword / meta-command) being typed just before the cursor
_WORD = re.compile(r"[A-Za-z0-9+\-*/<>=?!_%.&':]*$")


def _first_sentence(doc: str, limit: int = 90) -> str:
    doc = " ".join((doc or "").split())
    cut = doc.find(". ")
    if cut >= 0:
        doc = doc[:cut + 1]
    return doc if len(doc) <= limit else doc[:limit - 1] + "…"


class Names:
    """Every name a session can resolve, each with a short description."""

    def __init__(self, repl: Repl):
        self.repl = repl

    def candidates(self, qualified: bool):
        """(name, kind) pairs; qualified spellings (`str/join`) only when asked for."""
        env = self.repl.session.env
        for name in sorted(env.ns):
            yield name, "definition"
        for name in sorted(n for n in SPECIALS if n != "program"):
            yield name, "special form"
        for name, b in sorted(BUILTINS.items()):
            if b.plain:
                yield name, b.signatures[0] if b.signatures else "builtin"
        yield from (("*1", "last value"), ("*2", "value before"), ("*3", "value before that"))
        yield from (("nil", ""), ("true", ""), ("false", ""))
        for ns, exports in sorted(env.preludes.items()):
            for name in sorted(exports):
                yield f"{ns}/{name}", f"prelude {ns}"
        for name in sorted(env.tools.names()):
            yield f"tool/{name}", "tool"
        for key in sorted(_data_keys(env)):
            yield f"data/{key}", "data"
        if qualified:
            for qual, group in sorted(QUALIFIERS.items()):
                for (g, name), b in sorted(QUALIFIED.items()):
                    if g == group:
                        yield f"{qual}/{name}", b.signatures[0] if b.signatures else "builtin"

    def describe(self, name: str) -> str | None:
        """A one-line description of `name` (signature and first sentence of its doc), or None."""
        env = self.repl.session.env
        if name in env.ns:
            doc = env.ns.docs.get(name)
            from ..values.preview import PreviewCaps, preview
            text = f"{name}: {preview(env.ns[name], PreviewCaps(chars=60, items=4, depth=2))}"
            return text + (f" — {_first_sentence(doc)}" if doc else "")
        if name in SPECIALS:
            return f"{name}: special form"
        ns, _, short = name.partition("/")
        b = None
        if short and ns in QUALIFIERS:
            b = QUALIFIED.get((QUALIFIERS[ns], short))
        elif not short or not ns:
            b = BUILTINS.get(name)
        if b is not None:
            return f"{'  '.join(b.signatures) or name} — {_first_sentence(b.doc)}"
        if short and ns in env.preludes and short in env.preludes[ns]:
            return _describe_export(name, env.preludes[ns][short])
        if ns == "tool" and short in env.tools.names():
            t = env.tools.tools[short]
            return f"tool/{short}" + (f" — {_first_sentence(t.description)}" if t.description else "")
        return None


def _describe_export(name: str, export) -> str:
    rec = getattr(export, "record", export)
    call = getattr(rec, "call_text", None)
    head = call() if callable(call) else name
    sig = getattr(rec, "signature_text", None)
    if isinstance(sig, str) and sig:
        head += f"  {sig}"
    doc = getattr(rec, "doc", None)
    return head + (f" — {_first_sentence(doc)}" if isinstance(doc, str) and doc else "")


def _data_keys(env) -> list[str]:
    try:
        return [k for k in (str(k) for k in env.context.keys()) if re.fullmatch(r"[A-Za-z_][\w\-?!*]*", k)]
    except Exception:  # noqa: BLE001 - completion must never break typing
        return []


class PtcCompleter(Completer):
    """prompt-toolkit completer over `Names` and the meta-commands."""

    def __init__(self, names: Names):
        self.names = names

    def get_completions(self, document, complete_event):
        try:
            yield from self._completions(document)
        except Exception:  # noqa: BLE001 - completion must never break typing
            return

    def _completions(self, document):
        before = document.text_before_cursor
        word = _WORD.search(before).group(0)
        if before.lstrip() == word and word.startswith(":") and "\n" not in before:
            for cmd, what in META_HELP:
                name = cmd.split()[0]
                if name.startswith(word) and name != word:
                    yield Completion(name, -len(word), display_meta=what)
            return
        if not word or word.startswith(":") or word[0].isdigit():
            return
        seen = set()
        for name, kind in self.names.candidates(qualified="/" in word):
            if name.startswith(word) and name not in seen:
                seen.add(name)
                yield Completion(name, -len(word), display_meta=kind)


def enclosing_head(text: str) -> str | None:
    """The head symbol of the innermost list that is open at the end of `text`."""
    toks, in_string = lex_prefix(text)
    stack: list[list] = []
    prefix = False
    for tok in toks:
        t = tok.type
        if t in ("WS", "COMMENT"):
            continue
        if t in CLOSERS:
            if stack:
                stack.pop()
            continue
        if stack and stack[-1][1] == 0 and not prefix:
            stack[-1][1] = 1
            if t == "SYMBOL" and stack[-1][0] in ("LPAR", "HASH_LPAR"):
                stack[-1][2] = tok.text
        prefix = t in PREFIXES
        if t in OPENERS:
            stack.append([t, 0, None])
    for kind, _, head in reversed(stack):
        if kind in ("LPAR", "HASH_LPAR"):
            return head
    return None
