"""The interactive REPL: prompt-toolkit over a `Repl`.

Highlighting (pygments), multi-line editing that submits only when the
brackets balance, auto-indent of continuation lines, completion on Tab,
a bottom line describing the function being called, suggestions from
history, and a persistent history file (`~/.ptclisp_history`, or
`$PTCLISP_HISTORY`; set it empty to keep history in memory only).
"""
from __future__ import annotations

import os
from ..exit_codes import LIMIT_HIT
from pathlib import Path

from prompt_toolkit import PromptSession, print_formatted_text
from prompt_toolkit.auto_suggest import AutoSuggestFromHistory
from prompt_toolkit.filters import has_completions
from prompt_toolkit.formatted_text import FormattedText, PygmentsTokens
from prompt_toolkit.history import FileHistory, History, InMemoryHistory
from prompt_toolkit.key_binding import KeyBindings
from prompt_toolkit.layout.processors import HighlightMatchingBracketProcessor
from prompt_toolkit.lexers import PygmentsLexer
from prompt_toolkit.styles import Style

from .completion import Names, PtcCompleter, enclosing_head
from .headless import Repl, discovery_hint, is_complete
from ..tooling.formatter import indent_after
from .highlight import STYLE_RULES, PtcLispLexer

PROMPT = "ptc> "
CONTINUATION = "...> "
HISTORY_ENV = "PTCLISP_HISTORY"


def history_path() -> Path | None:
    """Where history persists: $PTCLISP_HISTORY if set (empty: nowhere), else ~/.ptclisp_history."""
    value = os.environ.get(HISTORY_ENV)
    if value is not None:
        return Path(value).expanduser() if value.strip() else None
    try:
        return Path.home() / ".ptclisp_history"
    except RuntimeError:  # no home directory to be found: keep history in memory
        return None


def make_history() -> tuple[History, str | None]:
    """The history store, and a warning when the file cannot be used."""
    path = history_path()
    if path is None:
        return InMemoryHistory(), None
    try:
        with open(path, "a", encoding="utf-8"):
            pass
    except OSError as exc:
        return InMemoryHistory(), f"history not saved: cannot write {path} ({exc.strerror or exc})"
    return FileHistory(str(path)), None


def _bindings() -> KeyBindings:
    kb = KeyBindings()

    @kb.add("enter", filter=~has_completions)
    def _enter(event):
        buf = event.current_buffer
        if is_complete(buf.text):
            buf.validate_and_handle()
            return
        indent = indent_after(buf.document.text_before_cursor)
        buf.insert_text("\n" + " " * (indent or 0))

    @kb.add("enter", filter=has_completions)
    def _pick(event):
        buf = event.current_buffer
        state = buf.complete_state
        if state is not None and state.current_completion is not None:
            buf.apply_completion(state.current_completion)
        else:
            buf.cancel_completion()
            _enter(event)

    @kb.add("escape", "enter")
    def _newline(event):
        buf = event.current_buffer
        indent = indent_after(buf.document.text_before_cursor)
        buf.insert_text("\n" + " " * (indent or 0))

    return kb


class Terminal:
    """The prompt loop and the rendering of results on a terminal."""

    def __init__(self, repl: Repl):
        self.repl = repl
        self.names = Names(repl)
        self.style = Style.from_dict(STYLE_RULES)
        self.lexer = PtcLispLexer()
        history, self.history_warning = make_history()
        self.prompt = PromptSession(
            message=FormattedText([("class:prompt", PROMPT)]),
            multiline=True,
            prompt_continuation=lambda width, line_no, wrap: FormattedText(
                [("class:continuation", CONTINUATION.rjust(width))]),
            lexer=PygmentsLexer(PtcLispLexer),
            completer=PtcCompleter(self.names),
            complete_while_typing=False,
            auto_suggest=AutoSuggestFromHistory(),
            history=history,
            enable_history_search=False,
            key_bindings=_bindings(),
            style=self.style,
            include_default_pygments_style=False,
            bottom_toolbar=self.toolbar,
            input_processors=[HighlightMatchingBracketProcessor(chars="[](){}")],
            reserve_space_for_menu=6,
        )

    def toolbar(self):
        try:
            buf = self.prompt.default_buffer
            head = enclosing_head(buf.document.text_before_cursor)
            text = self.names.describe(head) if head else None
        except Exception:  # noqa: BLE001 - a hint must never break typing
            text = None
        return FormattedText([("class:bottom-toolbar.text", text or "")])

    def show(self, lines):
        for style, text in lines:
            if style == "value":
                tokens = list(self.lexer.get_tokens(text))
                if tokens and tokens[-1][1] == "\n" and not text.endswith("\n"):
                    tokens = tokens[:-1]
                print_formatted_text(PygmentsTokens(tokens), style=self.style)
            else:
                print_formatted_text(FormattedText([(f"class:{style}", text)]), style=self.style)

    def banner(self):
        from .. import __version__ as version
        env = self.repl.session.env
        lines = [("info", f"PTC-Lisp {version} REPL. :help for commands, Ctrl-D to quit.")]
        if self.repl.config.banner:
            lines.append(("info", self.repl.config.banner))
        if discovery_hint():
            lines.append(("info", discovery_hint().strip()))
        parts = []
        if env.preludes:
            parts.append("preludes: " + ", ".join(f"{ns} ({len(ex)})" for ns, ex in sorted(env.preludes.items())))
        keys = sorted(str(k) for k in env.context.keys())
        if keys:
            parts.append("data: " + ", ".join(f"data/{k}" for k in keys[:8]) + (" ..." if len(keys) > 8 else ""))
        tools = sorted(env.tools.names())
        if tools:
            parts.append("tools: " + ", ".join(f"tool/{t}" for t in tools[:8]) + (" ..." if len(tools) > 8 else ""))
        if parts:
            lines.append(("info", " | ".join(parts)))
        if self.history_warning:
            lines.append(("error-detail", self.history_warning))
        self.show(lines)

    def run(self) -> int:
        self.banner()
        while not self.repl.quit:
            if self.repl.session_limit_reached():   # --session-timeout-ms passed while at the prompt
                self.show([("error", self.repl.ended_by)])
                break
            try:
                text = self.prompt.prompt()
            except KeyboardInterrupt:
                continue
            except EOFError:
                break
            if self.repl.session_limit_reached():
                self.show([("error", self.repl.ended_by)])
                break
            try:
                self.show(self.repl.handle(text))
            except KeyboardInterrupt:
                self.show([("error", "Interrupted.")])
            except Exception as exc:  # noqa: BLE001 - keep the session alive; a bug shows as one line
                self.show([("error", f"Error (internal_error): {type(exc).__name__}: {exc}")])
        return LIMIT_HIT if self.repl.ended_by else 0


def run_terminal(repl: Repl) -> int:
    return Terminal(repl).run()
