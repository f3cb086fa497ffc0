"""A small synchronous driver of `ptclisp lsp` over stdio, on pygls's own LanguageClient.

One `Client` starts one server process (`python -m ptclisp lsp`), initializes it and keeps the
diagnostics it publishes; each request runs the client's event loop until the answer arrives.
Used by tests/lsp/test_lsp.py (one server per module).
"""
from __future__ import annotations

import asyncio
import os
import pathlib
import sys

from lsprotocol import types as T
from pygls.lsp.client import LanguageClient

TIMEOUT = 30


class Client:
    def __init__(self, cwd: str, debounce_ms: int = 50):
        self.loop = asyncio.new_event_loop()
        self.lsp = LanguageClient("ptclisp-tests", "0")
        self.diagnostics: dict = {}
        self.logs: list = []
        self.versions: dict = {}

        @self.lsp.feature(T.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
        def on_diagnostics(params):
            self.diagnostics.setdefault(params.uri, []).append(params)

        @self.lsp.feature(T.WINDOW_LOG_MESSAGE)
        def on_log(params):
            self.logs.append(params.message)

        env = dict(os.environ, PYTHONPATH=str(pathlib.Path(__file__).resolve().parents[1]))
        self.run(self.lsp.start_io(sys.executable, "-m", "ptclisp", "lsp", "--debounce-ms", str(debounce_ms),
                                   env=env, cwd=cwd))
        self.init = self.run(self.lsp.initialize_async(T.InitializeParams(
            capabilities=T.ClientCapabilities(), root_uri=pathlib.Path(cwd).as_uri())))
        self.lsp.initialized(T.InitializedParams())

    def run(self, coro):
        return self.loop.run_until_complete(asyncio.wait_for(coro, TIMEOUT))

    def pump(self, seconds: float = 0.05):
        self.loop.run_until_complete(asyncio.sleep(seconds))

    # -- documents
    def open(self, path, text: str) -> str:
        uri = pathlib.Path(path).resolve().as_uri()
        self.versions[uri] = 1
        self.lsp.text_document_did_open(T.DidOpenTextDocumentParams(
            T.TextDocumentItem(uri=uri, language_id="clojure", version=1, text=text)))
        return uri

    def change(self, uri: str, text: str) -> None:
        self.versions[uri] += 1
        self.lsp.text_document_did_change(T.DidChangeTextDocumentParams(
            T.VersionedTextDocumentIdentifier(uri=uri, version=self.versions[uri]),
            [T.TextDocumentContentChangeWholeDocument(text=text)]))

    def close(self, uri: str) -> None:
        self.lsp.text_document_did_close(T.DidCloseTextDocumentParams(T.TextDocumentIdentifier(uri)))

    def wait_diagnostics(self, uri: str, version: int | None = None) -> list:
        """The diagnostics of `uri` published for `version` (default: its current version)."""
        version = self.versions[uri] if version is None else version

        async def wait():
            while True:
                for p in reversed(self.diagnostics.get(uri, [])):
                    if p.version == version:
                        return p.diagnostics
                await asyncio.sleep(0.02)
        return self.run(wait())

    def published(self, uri: str) -> int:
        """How many times diagnostics of `uri` were published so far."""
        return len(self.diagnostics.get(uri, []))

    def wait_next_diagnostics(self, uri: str, after: int) -> list:
        """The diagnostics of the first publication for `uri` after the first `after` ones."""
        async def wait():
            while len(self.diagnostics.get(uri, [])) <= after:
                await asyncio.sleep(0.02)
            return self.diagnostics[uri][after].diagnostics
        return self.run(wait())

    # -- requests
    def _doc(self, uri):
        return T.TextDocumentIdentifier(uri)

    def completion(self, uri, line, col):
        return self.run(self.lsp.text_document_completion_async(
            T.CompletionParams(self._doc(uri), T.Position(line, col))))

    def hover(self, uri, line, col):
        return self.run(self.lsp.text_document_hover_async(T.HoverParams(self._doc(uri), T.Position(line, col))))

    def signature_help(self, uri, line, col):
        return self.run(self.lsp.text_document_signature_help_async(
            T.SignatureHelpParams(self._doc(uri), T.Position(line, col))))

    def definition(self, uri, line, col):
        return self.run(self.lsp.text_document_definition_async(
            T.DefinitionParams(self._doc(uri), T.Position(line, col))))

    def symbols(self, uri):
        return self.run(self.lsp.text_document_document_symbol_async(T.DocumentSymbolParams(self._doc(uri))))

    def folding(self, uri):
        return self.run(self.lsp.text_document_folding_range_async(T.FoldingRangeParams(self._doc(uri))))

    def formatting(self, uri):
        return self.run(self.lsp.text_document_formatting_async(T.DocumentFormattingParams(
            self._doc(uri), T.FormattingOptions(tab_size=2, insert_spaces=True))))

    def range_formatting(self, uri, start, end):
        return self.run(self.lsp.text_document_range_formatting_async(T.DocumentRangeFormattingParams(
            self._doc(uri), T.Range(T.Position(*start), T.Position(*end)),
            T.FormattingOptions(tab_size=2, insert_spaces=True))))

    # -- ending
    def shutdown_and_exit(self) -> int:
        """Send shutdown, then exit; the server's exit status."""
        self.run(self.lsp.shutdown_async(None))
        self.lsp.exit(None)
        server = self.lsp._server
        code = self.run(server.wait())
        self.run(self.lsp.stop())
        self.loop.close()
        return code

    def kill(self) -> None:
        server = self.lsp._server
        if server is not None and server.returncode is None:
            server.kill()
            self.run(server.wait())
        if not self.loop.is_closed():
            self.run(self.lsp.stop())
            self.loop.close()


def apply_edits(text: str, edits) -> str:
    """`text` with LSP TextEdits applied (positions in characters: ASCII text)."""
    lines = text.splitlines(True)
    starts = [0]
    for ln in lines:
        starts.append(starts[-1] + len(ln))

    def off(p):
        if p.line >= len(lines):
            return len(text)
        return starts[p.line] + p.character

    for e in sorted(edits, key=lambda e: (e.range.start.line, e.range.start.character), reverse=True):
        text = text[:off(e.range.start)] + e.new_text + text[off(e.range.end):]
    return text
