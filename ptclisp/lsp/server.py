"""`ptclisp lsp`: the language server over stdio, on pygls.

Owns `build_server()` (a pygls `LanguageServer` with the handlers below) and `serve()` (run it on
standard input and output until the client says exit). Documents live in pygls's workspace; each
open document keeps its last forms that read and its context. Diagnostics are published when a
document opens or is saved, and `debounce_ms` after the last change while typing. Positions are
converted between our character columns and the client's encoding (UTF-16 unless the client
offers another) with the document's position codec. A handler that fails logs the error to the
client and answers nothing: the server keeps running. Imports pygls and lsprotocol (the `lsp`
extra), the builtin library and the other modules of this package.
"""
from __future__ import annotations

import asyncio
import logging

from .. import lib
from ..errors import PtcError
from ..reader.parser import read, strip_bom
from . import features as F
from .context import BUILTINS_ONLY, context_for
from ..tooling.check import is_prelude_source
from .diagnostics import diagnose
from .outline import FormatError, folding_ranges, format_edits, format_range_edits, symbols

NAME = "ptclisp"
DEFAULT_DEBOUNCE_MS = 300

_log = logging.getLogger("ptclisp.lsp")


def _types():
    from lsprotocol import types
    return types


def build_server(debounce_ms: int = DEFAULT_DEBOUNCE_MS):
    """The language server, its handlers registered (not yet started)."""
    from pygls.lsp.server import LanguageServer

    from .. import __version__
    T = _types()
    lib.load()   # every builtin registered before the first document (a fresh process knows none)
    server = LanguageServer(NAME, __version__, text_document_sync_kind=T.TextDocumentSyncKind.Incremental)
    state = _State(server, debounce_ms / 1000)

    @server.feature(T.TEXT_DOCUMENT_DID_OPEN)
    def did_open(ls, params):
        state.publish(params.text_document.uri)

    @server.feature(T.TEXT_DOCUMENT_DID_CHANGE)
    def did_change(ls, params):
        state.schedule(params.text_document.uri)

    @server.feature(T.TEXT_DOCUMENT_DID_SAVE)
    def did_save(ls, params):
        state.publish(params.text_document.uri)
        state.recheck_others(params.text_document.uri)

    @server.feature(T.TEXT_DOCUMENT_DID_CLOSE)
    def did_close(ls, params):
        state.close(params.text_document.uri)

    # the requests answered from the open documents: method, its options, the answer (run guarded)
    for method, options, answer in (
            (T.TEXT_DOCUMENT_COMPLETION, T.CompletionOptions(trigger_characters=["/"]), _completion),
            (T.TEXT_DOCUMENT_HOVER, None, _hover),
            (T.TEXT_DOCUMENT_SIGNATURE_HELP,
             T.SignatureHelpOptions(trigger_characters=[" ", "("], retrigger_characters=[" "]), _signature_help),
            (T.TEXT_DOCUMENT_DEFINITION, None, _definition),
            (T.TEXT_DOCUMENT_DOCUMENT_SYMBOL, None, _document_symbols),
            (T.TEXT_DOCUMENT_FOLDING_RANGE, None, _folding),
            (T.TEXT_DOCUMENT_FORMATTING, None, _formatting),
            (T.TEXT_DOCUMENT_RANGE_FORMATTING, None, _range_formatting)):
        server.feature(method, options)(_guarded_request(state, answer))

    return server


def _guarded_request(state, answer):
    """A request handler that answers with `answer(state, params)` run through `state.guarded`."""

    def handle(ls, params):
        return state.guarded(answer, params)

    handle.__name__ = answer.__name__.lstrip("_")
    return handle


class _State:
    """The server's view of the open documents: pending diagnostics, last forms that read."""

    def __init__(self, server, delay: float):
        self.server = server
        self.delay = delay
        self.pending: dict = {}          # uri -> asyncio.TimerHandle
        self.forms: dict = {}            # uri -> (version, the forms the features use)
        self.good: dict = {}             # uri -> the last forms that read

    # -- documents
    def doc(self, uri: str):
        return self.server.workspace.get_text_document(uri)

    def overlay(self) -> dict:
        out = {}
        for d in self.server.workspace.text_documents.values():
            if d.path:
                out[d.path] = d.source
        return out

    def document(self, uri: str) -> tuple:
        """(pygls document, features.Document) of an open document. Its forms are read once per
        version: as they are, or (a text that does not read) the last forms that did, or failing
        those the text with its open brackets closed."""
        d = self.doc(uri)
        text = d.source
        cached = self.forms.get(uri)
        if cached is not None and cached[0] == d.version:
            forms = cached[1]
        else:
            try:
                forms = read(strip_bom(text))
                self.good[uri] = forms
            except PtcError:
                forms = self.good.get(uri)
            if forms is None:
                forms = F.Document(text, d.path, BUILTINS_ONLY).forms
            self.forms[uri] = (d.version, forms)
        return d, F.Document(text, d.path, context_for(d.path, self.overlay()), forms)

    # -- diagnostics
    def schedule(self, uri: str, cascade: bool = True) -> None:
        handle = self.pending.pop(uri, None)
        if handle is not None:
            handle.cancel()
        loop = asyncio.get_running_loop()
        self.pending[uri] = loop.call_later(self.delay, self.publish, uri, cascade)

    def publish(self, uri: str, cascade: bool = True) -> None:
        """Check `uri` and publish its diagnostics; with `cascade`, a prelude's change also checks
        the other open documents again."""
        T = _types()
        handle = self.pending.pop(uri, None)
        if handle is not None:
            handle.cancel()
        try:
            d = self.doc(uri)
            found = diagnose(d.source, context_for(d.path, self.overlay()), d.path)
            lines = d.lines
            codec = d.position_codec
            diags = [T.Diagnostic(range=_range(codec, lines, x.start, x.end), message=x.message,
                                  severity=T.DiagnosticSeverity.Error, code=x.kind, source=NAME) for x in found]
        except Exception as exc:  # noqa: BLE001 - a bug of ours must not end the server
            self.log_failure("diagnostics", exc)
            return
        self.server.text_document_publish_diagnostics(
            T.PublishDiagnosticsParams(uri=uri, diagnostics=diags, version=d.version))
        if cascade and d.path and is_prelude_source(d.source):
            self.recheck_others(uri)

    def recheck_others(self, uri: str) -> None:
        """Check the other open documents again (after a prelude changed: they may call it)."""
        for other in list(self.server.workspace.text_documents):
            if other != uri and other not in self.pending:
                self.schedule(other, cascade=False)

    def close(self, uri: str) -> None:
        T = _types()
        handle = self.pending.pop(uri, None)
        if handle is not None:
            handle.cancel()
        self.forms.pop(uri, None)
        self.good.pop(uri, None)
        self.server.text_document_publish_diagnostics(T.PublishDiagnosticsParams(uri=uri, diagnostics=[]))

    # -- requests
    def guarded(self, handler, params):
        try:
            return handler(self, params)
        except Exception as exc:  # noqa: BLE001 - a bug of ours answers nothing, the server goes on
            self.log_failure(handler.__name__.lstrip("_"), exc)
            return None

    def log_failure(self, what: str, exc: Exception) -> None:
        T = _types()
        _log.exception("%s failed", what)
        try:
            self.server.window_log_message(T.LogMessageParams(type=T.MessageType.Error,
                                                              message=f"ptclisp lsp: {what} failed: "
                                                                      f"{type(exc).__name__}: {exc}"))
        except Exception:  # noqa: BLE001 - the client may be gone
            pass


# ------------------------------------------------------------------ conversions

def _range(codec, lines, start, end):
    T = _types()
    return T.Range(start=codec.position_to_client_units(lines, T.Position(line=start[0], character=start[1])),
                   end=codec.position_to_client_units(lines, T.Position(line=end[0], character=end[1])))


def _pos(d, position) -> tuple:
    p = d.position_codec.position_from_client_units(d.lines, position)
    return p.line, p.character


def _markup(text: str):
    T = _types()
    return T.MarkupContent(kind=T.MarkupKind.Markdown, value=text)


_ITEM_KINDS = {"local": "Variable", "function": "Function", "value": "Variable", "data": "Value",
               "tool": "Method", "export": "Function", "special": "Keyword", "builtin": "Function"}


# ------------------------------------------------------------------ handlers

def _completion(state: _State, params):
    T = _types()
    d, doc = state.document(params.text_document.uri)
    pos = _pos(d, params.position)
    items, start = F.complete(doc, pos)
    rng = _range(d.position_codec, d.lines, (pos[0], start), pos)
    out = []
    for i, it in enumerate(items):
        info = it.info
        detail = info.signatures[0] if info.signatures else info.detail
        out.append(T.CompletionItem(
            label=it.label, kind=getattr(T.CompletionItemKind, _ITEM_KINDS.get(info.kind, "Text")),
            detail=detail, documentation=_markup(info.markdown()), sort_text=f"{i:05d}",
            text_edit=T.TextEdit(range=rng, new_text=it.label),
            label_details=T.CompletionItemLabelDetails(description=info.kind)))
    return T.CompletionList(is_incomplete=False, items=out)


def _hover(state: _State, params):
    T = _types()
    d, doc = state.document(params.text_document.uri)
    pos = _pos(d, params.position)
    found = F.hover(doc, pos)
    if found is None:
        return None
    info, start, end = found
    return T.Hover(contents=_markup(info.markdown()),
                   range=_range(d.position_codec, d.lines, (pos[0], start), (pos[0], end)))


def _signature_help(state: _State, params):
    d, doc = state.document(params.text_document.uri)
    found = F.signature_help(doc, _pos(d, params.position))
    if found is None:
        return None
    T = _types()
    sigs, which, active = found
    out = []
    for s in sigs:
        out.append(T.SignatureInformation(
            label=s.label, documentation=_markup(s.doc) if s.doc else None,
            parameters=[T.ParameterInformation(label=(a, b)) for a, b in s.params]))
    chosen = sigs[which]
    param = min(active, len(chosen.params) - 1) if chosen.variadic and chosen.params else active
    return T.SignatureHelp(signatures=out, active_signature=which, active_parameter=param)


def _definition(state: _State, params):
    T = _types()
    from pygls.uris import from_fs_path
    d, doc = state.document(params.text_document.uri)
    info = F.definition(doc, _pos(d, params.position))
    if info is None:
        return None
    if info.span is not None:
        start = (info.span.line - 1, info.span.col - 1)
        end = (info.span.end_line - 1, info.span.end_col - 1) if info.span.end_line else start
    else:
        start = end = (info.line or 0, 0)
    uri = params.text_document.uri if info.path == d.path else from_fs_path(info.path)
    target = state.server.workspace.text_documents.get(uri)
    if target is not None:
        rng = _range(target.position_codec, target.lines, start, end)
    else:
        rng = T.Range(start=T.Position(line=start[0], character=start[1]),
                      end=T.Position(line=end[0], character=end[1]))
    return T.Location(uri=uri, range=rng)


_SYMBOL_KINDS = {"function": "Function", "variable": "Variable", "namespace": "Namespace"}


def _document_symbols(state: _State, params):
    T = _types()
    d, doc = state.document(params.text_document.uri)
    out = []
    for s in symbols(doc.forms):
        out.append(T.DocumentSymbol(
            name=s.name, kind=getattr(T.SymbolKind, _SYMBOL_KINDS[s.kind]), detail=s.detail,
            range=_range(d.position_codec, d.lines, s.start, s.end),
            selection_range=_range(d.position_codec, d.lines, s.name_start, s.name_end)))
    return out


def _folding(state: _State, params):
    T = _types()
    _, doc = state.document(params.text_document.uri)
    return [T.FoldingRange(start_line=a, end_line=b) for a, b in folding_ranges(doc.forms)]


def _formatting(state: _State, params):
    d = state.doc(params.text_document.uri)
    try:
        edits = format_edits(d.source)
    except FormatError:
        return None          # a text that does not read is not formatted (its diagnostic says why)
    return _edits(d, edits)


def _range_formatting(state: _State, params):
    d = state.doc(params.text_document.uri)
    try:
        forms = read(strip_bom(d.source))
    except PtcError:
        return None
    rng = d.position_codec.range_from_client_units(d.lines, params.range)
    start = (rng.start.line, rng.start.character)
    end = (rng.end.line, rng.end.character)
    if strip_bom(d.source) != d.source:
        return None          # positions after a byte-order mark: format the whole document instead
    return _edits(d, format_range_edits(d.source, forms, start, end))


def _edits(d, edits):
    T = _types()
    return [T.TextEdit(range=_range(d.position_codec, d.lines, e.start, e.end), new_text=e.text) for e in edits]


# ------------------------------------------------------------------ running

def serve(debounce_ms: int = DEFAULT_DEBOUNCE_MS) -> int:
    """Serve one client on stdin/stdout until it sends exit; the exit status pygls gives (0 after
    shutdown)."""
    logging.basicConfig(level=logging.WARNING, format="ptclisp lsp: %(levelname)s %(message)s")
    server = build_server(debounce_ms)
    server.start_io()
    return 0
