"""The REPL without a terminal: session, meta-commands, evaluation, rendering.

`Repl.handle(text)` takes one submitted input (what a person typed until the
brackets balanced, or one chunk of piped input) and returns what to show as
a list of `(style, text)` lines; the terminal front end colours them, the
piped front end writes them plainly. Keeping this part free of
prompt-toolkit makes it testable with plain strings.

Each top-level form of an input is one evaluation (docs/spec/runtime.md §15): a form
that fails leaves the definitions and `*1 *2 *3` of the ones before it.
Forms are evaluated with their original line and column, so error positions
point into what was typed.
"""
from __future__ import annotations

import shlex
import time

import attrs

from .. import api
from ..errors import PtcError, Span
from ..registry.builtins import BUILTINS
from ..runtime.meter import Limits
from ..values.preview import PreviewCaps, preview
from ..reader.parser import read, scan, strip_bom

# (style, text) — one element per output line; "value" text is PTC and gets highlighted
Line = tuple[str, str]

META_HELP = [
    (":help", "this help"),
    (":quit", "leave (also :q, :exit, or Ctrl-D on an empty prompt)"),
    (":defs", "list the definitions committed so far"),
    (":reset", "start a fresh session (same preludes, data and tools)"),
    (":load FILE", "evaluate a file in this session, as one program"),
    (":time", "toggle showing how long each evaluation takes"),
    (":time FORM", "evaluate FORM and show how long it took"),
]
META_NAMES = {":help", ":quit", ":q", ":exit", ":defs", ":reset", ":load", ":time"}


class SetupError(Exception):
    """The session could not be built (a prelude, data or tool problem): shown once, no traceback.
    `code`: the command's exit class (3 when a named prelude is not a document at all, else 2)."""

    code = 2


@attrs.define
class ReplConfig:
    """What a REPL session is built from.

    `session_factory` (optional) builds the session instead of preludes/data/
    tools/limits: any object with `eval(source) -> ptclisp.Result` and an
    evaluator `env` (e.g. a project mission's environment). `commands` adds
    meta-commands: name -> (help text, fn(arg) -> text to show).
    """

    preludes: list = attrs.Factory(list)
    data: dict | None = None
    tools: object = None
    limits: Limits = attrs.Factory(Limits)
    preview_chars: int = 2048
    session_factory: object = None
    commands: dict = attrs.Factory(dict)
    banner: str | None = None
    strict_data: bool = False     # an unknown data/ name is an error (True) or nil
    # session limits (for REPLs driven by scripts and agents): None is no limit
    session_timeout_ms: int | None = None   # wall clock from the start; also bounds each evaluation
    max_evaluations: int | None = None      # top-level forms (and :load files) evaluated


def new_session(config: ReplConfig) -> api.Session:
    """A Session for `config`; every way it can fail becomes a SetupError with a readable message."""
    if config.session_factory is not None:
        return config.session_factory()
    try:
        return api.Session(context=config.data, tools=config.tools, limits=config.limits,
                           preludes=config.preludes or None, strict_data=config.strict_data)
    except PtcError as exc:
        where = f" at {exc.span}" if exc.span else ""
        err = SetupError(f"Error ({exc.kind}): {exc.message}{where}")
        if getattr(exc, "refused_document", False):
            err.code = 3
        raise err from None
    except OSError as exc:
        raise SetupError(f"cannot read prelude {exc.filename or ''}: {exc.strerror or exc}") from None
    except ImportError:
        raise SetupError("preludes are not supported by this build of ptclisp") from None
    except (ValueError, TypeError) as exc:
        raise SetupError(str(exc)) from None


def is_meta(text: str) -> bool:
    """Is `text` a meta-command? (`:help` etc.; any other `:word` is an ordinary keyword.)"""
    words = text.strip().split(None, 1)
    return bool(words) and words[0] in META_NAMES


def is_complete(text: str) -> bool:
    """Should Enter submit `text`? Yes when brackets balance, or when more text could not fix it."""
    if not text.strip() or is_meta(text):
        return True
    problem = scan(text)
    return problem is None or not problem[2]


class Repl:
    """One REPL session and its settings."""

    def __init__(self, config: ReplConfig):
        self.config = config
        self.session = new_session(config)
        self.show_timing = False
        self.had_error = False
        self.quit = False
        self.started = time.monotonic()
        self.evaluations = 0
        self.ended_by: str | None = None    # the session limit that ended the session, as a message

    # ------------------------------------------------------------------ session limits
    def session_limit_reached(self) -> str | None:
        """The message of the session limit that ends the session now (and sets `quit`), or None."""
        c = self.config
        if self.ended_by is None:
            if c.max_evaluations is not None and self.evaluations >= c.max_evaluations:
                self.ended_by = (f"session ended: --max-evaluations {c.max_evaluations} reached "
                                 f"({self.evaluations} evaluation{'s' * (self.evaluations != 1)} done)")
            elif c.session_timeout_ms is not None and self._session_ms_left() <= 0:
                self.ended_by = (f"session ended: --session-timeout-ms {c.session_timeout_ms} reached "
                                 f"(the session ran {_ms((time.monotonic() - self.started) * 1000)})")
        if self.ended_by is not None:
            self.quit = True
        return self.ended_by

    def _session_ms_left(self) -> float:
        return self.config.session_timeout_ms - (time.monotonic() - self.started) * 1000

    def eval_source(self, src: str):
        """One evaluation, counted and bounded by the session limits: a Result, or None when a session
        limit ended the session first (see `session_limit_reached`)."""
        if self.session_limit_reached():
            return None
        self.evaluations += 1
        limits = None
        if self.config.session_timeout_ms is not None and self.config.session_factory is None:
            left = max(1, int(self._session_ms_left()))
            lim = self.config.limits
            if lim.timeout_ms is None or left < lim.timeout_ms:
                limits = attrs.evolve(lim, timeout_ms=left)
        return self.session.eval(src) if limits is None else self.session.eval(src, limits)

    # ------------------------------------------------------------------ input
    def handle(self, text: str, *, filename: str = "", first_line: int = 1) -> list[Line]:
        """Evaluate or execute one submitted input; returns the lines to show.

        `filename` and `first_line` say where the text came from (piped input), for error positions.
        A leading byte-order mark is dropped, as the reader skips it.
        """
        text = strip_bom(text)
        if not text.strip():
            return []
        word, _, arg = text.strip().partition(" ")
        if word in self.config.commands:
            return [("info", line) for line in str(self.config.commands[word][1](arg.strip())).split("\n")]
        if is_meta(text):
            return self.meta(text.strip())
        return self.evaluate(text, filename=filename, first_line=first_line)

    def evaluate(self, text: str, *, timed: bool = False, filename: str = "", first_line: int = 1) -> list[Line]:
        origin = (filename, first_line - 1)
        try:
            forms = read(text)
        except PtcError as exc:
            self.had_error = True
            if first_line > 1:  # read again in place, so the message's own positions are the real ones
                padded = "\n" * (first_line - 1) + text
                try:
                    read(padded)
                except PtcError as placed:
                    return self.error_lines(placed.kind, placed.message, placed.span, padded, filename)
            return self.error_lines(exc.kind, exc.message, exc.span, text, *origin)
        starts = _line_starts(text)
        out: list[Line] = []
        for form in forms:
            src = _positioned_source(text, starts, form.span)
            t0 = time.perf_counter()
            result = self.eval_source(src)
            if result is None:
                return out + [("error", self.ended_by)]
            elapsed = (time.perf_counter() - t0) * 1000
            if result.status in ("ok", "returned"):
                record_sources(self.session, [form], text, starts)
            out += self.result_lines(result, text, form.span, *origin)
            if timed or self.show_timing:
                out.append(("timing", f"Elapsed: {_ms(elapsed)}"))
        return out

    # ------------------------------------------------------------------ output
    def result_lines(self, result, text: str, form_span: Span | None = None, filename: str = "",
                     line_offset: int = 0) -> list[Line]:
        out: list[Line] = [("print", p) for p in result.prints]
        caps = PreviewCaps(chars=self.config.preview_chars)
        if result.status in ("ok", "returned"):
            out.append(("value", preview(result.value, caps)))
        elif result.status == "failed":
            self.had_error = True
            out.append(("fail", "Failed: " + preview(result.value, caps)))
        else:
            self.had_error = True
            e = result.error
            span = e.span if _inside(e.span, form_span) else None
            out += self.error_lines(e.kind, e.message, span, text, filename, line_offset)
        return out

    def error_lines(self, kind: str, message: str, span: Span | None, text: str, filename: str = "",
                    line_offset: int = 0) -> list[Line]:
        if filename:
            where = f"{filename}:{span.line + line_offset}:{span.col}: " if span else f"{filename}: "
        else:
            where = ""
        out: list[Line] = [("error", f"{where}Error ({kind}): {message}")]
        if span is not None:
            out += caret_lines(text, span, line_offset=line_offset)
        return out

    # ------------------------------------------------------------------ meta-commands
    def meta(self, text: str) -> list[Line]:
        cmd, _, arg = text.partition(" ")
        arg = arg.strip()
        if cmd in (":quit", ":q", ":exit"):
            self.quit = True
            return []
        if cmd == ":help":
            return self.help_lines()
        if cmd == ":defs":
            return self.defs_lines()
        if cmd == ":reset":
            try:
                self.session = new_session(self.config)
            except SetupError as exc:
                self.had_error = True
                return [("error", f"cannot reset, the session is unchanged: {exc}")]
            return [("info", "Session reset: definitions and *1 *2 *3 cleared.")]
        if cmd == ":load":
            return self.load(arg)
        if cmd == ":time":
            if arg:
                return self.evaluate(arg, timed=True)
            self.show_timing = not self.show_timing
            return [("info", f"Timing {'on' if self.show_timing else 'off'}.")]
        return [("error", f"unknown command {cmd}")]  # pragma: no cover - is_meta guards this

    def help_lines(self) -> list[Line]:
        out: list[Line] = [("info", "Commands:")]
        out += [("info", f"  {name:<12} {what}") for name, what in META_HELP]
        out += [("info", f"  {name:<12} {what}") for name, (what, _) in self.config.commands.items()]
        out += [("info", "Keys:"),
                ("info", "  Enter        evaluate when the brackets balance, else start a new line"),
                ("info", "  Alt-Enter    always start a new line (Esc then Enter also works)"),
                ("info", "  Tab          complete builtins, preludes' exports and your definitions"),
                ("info", "  Ctrl-C       clear the input (or interrupt a running evaluation)"),
                ("info", "  Ctrl-D       leave, on an empty prompt"),
                ("info", "  Ctrl-R       search the history"),
                ("info", "*1 *2 *3 hold the last three values." + discovery_hint())]
        return out

    def defs_lines(self) -> list[Line]:
        ns = self.session.env.ns
        if not ns:
            return [("info", "No definitions yet.")]
        caps = PreviewCaps(chars=70, items=6, depth=2, nodes=40, string=40)
        out: list[Line] = []
        for name in sorted(ns):
            value = ns[name]
            doc = (ns.docs.get(name) or "").strip().split("\n")[0]
            text = f"{name}  {preview(value, caps)}"
            if doc:
                text += f"  ; {doc[:70]}"
            out.append(("value", text))
        return out

    def load(self, arg: str) -> list[Line]:
        try:
            parts = shlex.split(arg)
        except ValueError:
            parts = [arg]
        if len(parts) != 1:
            return [("error", "usage: :load FILE")]
        path = parts[0]
        try:
            from pathlib import Path

            from ..interchange.documents import read_document_text
            source = read_document_text(Path(path).expanduser())   # a regular file within the size bound
        except (OSError, UnicodeDecodeError) as exc:
            self.had_error = True
            reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
            return [("error", f"cannot read {path}: {reason}")]
        result = self.eval_source(source)
        if result is None:
            return [("error", self.ended_by)]
        if result.status in ("ok", "returned"):
            try:
                record_sources(self.session, read(source), source, _line_starts(source))
            except PtcError:  # pragma: no cover - it was just evaluated, so it reads
                pass
        return self.result_lines(result, source, None, filename=path)


def discovery_hint() -> str:
    forms = [f for f in ("doc", "dir", "apropos", "source") if f in BUILTINS or _is_special(f)]
    if not forms:
        return ""
    shown = {"doc": "(doc map)", "dir": "(dir)", "apropos": '(apropos "str")', "source": "(source f)"}
    return " Explore with " + ", ".join(shown[f] for f in forms) + "."


def _is_special(name: str) -> bool:
    from ..analyzer import SPECIALS
    return name in SPECIALS


def caret_lines(text: str, span: Span, width: int = 100, line_offset: int = 0) -> list[Line]:
    """The source line `span` points into, with carets under the offending columns."""
    lines = text.split("\n")
    if not 1 <= span.line <= len(lines):
        return []
    src = lines[span.line - 1].replace("\t", " ").rstrip("\r")
    if span.line == 1:
        src = strip_bom(src)  # positions are counted without it (reader.read)
    col = span.col - 1
    if col < 0 or col > len(src):
        return []
    n = 1
    if span.end_line == span.line and span.end_col and span.end_col > span.col:
        n = min(span.end_col - span.col, max(1, len(src) - col))
    if len(src) > width:  # show a window around the column
        start = max(0, min(col - width // 2, len(src) - width))
        src, col = src[start:start + width], col - start
        n = min(n, max(1, len(src) - col))
        if start:
            src, col = "..." + src, col + 3
    gutter = f"{span.line + line_offset:>4} | "
    blank = " " * (len(gutter) - 2) + "| "
    return [("error-detail", gutter + src), ("caret", blank + " " * col + "^" * n)]


_DEFINING = frozenset(("def", "defn", "defn-", "defonce"))


def record_sources(session, forms, text: str, starts: list[int]) -> None:
    """Keep the text of each `(def NAME ...)`-family form of `forms` (read from `text`) as NAME's source,
    for `(source NAME)` (the environment's `sources`, which the introspection builtins read)."""
    from ..reader.forms import List, Sym
    sources = getattr(getattr(session, "env", None), "sources", None)
    if sources is None:
        return
    for form in forms:
        items = getattr(form, "items", None)
        if type(form) is List and len(items) >= 2 and type(items[0]) is Sym and items[0].name in _DEFINING \
                and type(items[1]) is Sym and items[1].ns is None and form.span is not None and form.span.end_line is not None:
            begin = starts[form.span.line - 1] + form.span.col - 1
            end = starts[form.span.end_line - 1] + form.span.end_col - 1
            sources[items[1].name] = text[begin:end]


def _line_starts(text: str) -> list[int]:
    starts = [0]
    for i, c in enumerate(text):
        if c == "\n":
            starts.append(i + 1)
    return starts


def _positioned_source(text: str, starts: list[int], span: Span | None) -> str:
    """The text of one form, padded so that its lines and columns are those it had in `text`."""
    if span is None or span.end_line is None or span.end_col is None:
        return text  # pragma: no cover - every read form carries a full span
    begin = starts[span.line - 1] + span.col - 1
    end = starts[span.end_line - 1] + span.end_col - 1
    return "\n" * (span.line - 1) + " " * (span.col - 1) + text[begin:end]


def _inside(span: Span | None, form: Span | None) -> bool:
    """Does an error position fall inside the form just evaluated?

    A runtime error inside a function defined by an earlier input carries
    that input's position; showing it under the current text would mislead.
    """
    if span is None:
        return False
    if form is None:
        return True
    after_start = (span.line, span.col) >= (form.line, form.col)
    before_end = form.end_line is None or (span.line, span.col) < (form.end_line, form.end_col or 0)
    return after_start and before_end


def _ms(ms: float) -> str:
    return f"{ms:.2f} ms" if ms < 1000 else f"{ms / 1000:.2f} s"
