"""`ptclisp view DIR --port PORT`: the run viewer served on 127.0.0.1, updated live.

Owns `ViewServer(directory, port)`: `GET /` the page (`html.render_page`,
live), `GET /app` the part that changes, `GET /events` server-sent events
(one `data: change` whenever a run file under the directory grows or
appears; a comment line every 15 s keeps the stream open), `GET /state` the
current change signature as JSON (for polling clients).  It listens on
127.0.0.1 only and answers only requests whose Host header names the
loopback address (a page elsewhere cannot read it through DNS rebinding);
nothing is ever written.

Private evidence (prompts, programs, values) is served only to a browser that
shows the server's token, as Jupyter does: the address printed at start
(`private_url`) carries it as `?token=...`; that request sets an HttpOnly,
SameSite=Strict cookie, so the page's own updates (/app, /events) carry it
too.  Without the token every page is the public view (content-free events
only), so another local user who can reach the port sees no private evidence.
Imports view.html and trace.reader.
"""
from __future__ import annotations

import hmac
import http.cookies
import http.server
import json
import os
import secrets
import threading
import time
import urllib.parse

from ..trace.reader import TraceReadError, list_run_ids, load_runs
from ..trace.writer import PRIVATE_DIR, PRIVATE_FILE, PUBLIC_FILE
from .html import render_app, render_page

POLL_S = 0.5
KEEPALIVE_S = 15.0
TOKEN_COOKIE = "ptclisp_view_token"


def signature(directory: str) -> list:
    """What changes when a run is added or written to: (id, size, mtime) of each run file."""
    sig = []
    try:
        ids = list_run_ids(directory)
    except TraceReadError:
        return sig
    for rid in ids:
        for rel in (PUBLIC_FILE, os.path.join(PRIVATE_DIR, PRIVATE_FILE)):
            try:
                st = os.stat(os.path.join(directory, rid, rel))
            except OSError:
                continue
            sig.append([rid, rel, st.st_size, st.st_mtime_ns])
    return sig


class _Handler(http.server.BaseHTTPRequestHandler):
    server_version = "ptclisp-view"
    protocol_version = "HTTP/1.1"

    def log_message(self, fmt, *args):      # quiet: the terminal shows only what the command prints
        pass

    def _host_ok(self) -> bool:
        host = (self.headers.get("Host") or "").strip().lower()
        port = self.server.server_address[1]
        return host in (f"127.0.0.1:{port}", f"localhost:{port}", f"[::1]:{port}", "127.0.0.1", "localhost")

    def _token_given(self) -> tuple[bool, bool]:
        """(the request shows the server's token, it came in the query: set the cookie)."""
        expected = self.server.token
        query = urllib.parse.parse_qs(urllib.parse.urlsplit(self.path).query).get("token", [])
        if query and hmac.compare_digest(query[0].encode(), expected.encode()):
            return True, True
        try:
            jar = http.cookies.SimpleCookie(self.headers.get("Cookie") or "")
        except http.cookies.CookieError:
            return False, False
        morsel = jar.get(TOKEN_COOKIE)
        return bool(morsel is not None and hmac.compare_digest(morsel.value.encode(), expected.encode())), False

    def _send(self, code: int, body: str, ctype: str, cookie: str | None = None) -> None:
        data = body.encode("utf-8")
        self.send_response(code)
        if cookie is not None:
            self.send_header("Set-Cookie", f"{TOKEN_COOKIE}={cookie}; HttpOnly; SameSite=Strict; Path=/")
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(data)))
        self.send_header("Cache-Control", "no-store")
        self.send_header("X-Content-Type-Options", "nosniff")
        self.send_header("Referrer-Policy", "no-referrer")
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self):  # noqa: N802 - the http.server name
        if not self._host_ok():
            self._send(403, "forbidden host\n", "text/plain; charset=utf-8")
            return
        path = self.path.split("?", 1)[0]
        d = self.server.directory
        private, from_query = self._token_given()
        try:
            if path == "/":
                page = render_page(d, load_runs(d, include_private=private), live=True, public_only=not private)
                self._send(200, page, "text/html; charset=utf-8", cookie=self.server.token if from_query else None)
            elif path == "/app":
                self._send(200, render_app(d, load_runs(d, include_private=private)), "text/html; charset=utf-8")
            elif path == "/state":
                self._send(200, json.dumps({"signature": signature(d)}), "application/json")
            elif path == "/events":
                self._events()
            else:
                self._send(404, "not found\n", "text/plain; charset=utf-8")
        except TraceReadError as e:
            self._send(500, f"{e}\n", "text/plain; charset=utf-8")
        except (BrokenPipeError, ConnectionResetError):
            pass

    def _events(self):
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Cache-Control", "no-store")
        self.send_header("Connection", "close")
        self.end_headers()
        self.close_connection = True
        last = signature(self.server.directory)
        quiet_since = time.monotonic()
        self.wfile.write(b": connected\n\n")
        self.wfile.flush()
        while not self.server.stopping.wait(POLL_S):
            now = signature(self.server.directory)
            if now != last:
                last = now
                self.wfile.write(b"data: change\n\n")
                self.wfile.flush()
                quiet_since = time.monotonic()
            elif time.monotonic() - quiet_since > KEEPALIVE_S:
                self.wfile.write(b": keep-alive\n\n")
                self.wfile.flush()
                quiet_since = time.monotonic()


class ViewServer(http.server.ThreadingHTTPServer):
    """The live viewer of `directory` on 127.0.0.1:`port` (0 picks a free port; see `.port`)."""

    daemon_threads = True

    def __init__(self, directory: str, port: int, token: str | None = None):
        self.directory = directory
        self.stopping = threading.Event()
        self.token = token or secrets.token_urlsafe(24)   # private evidence needs it (module docstring)
        super().__init__(("127.0.0.1", port), _Handler)

    @property
    def port(self) -> int:
        return self.server_address[1]

    @property
    def url(self) -> str:
        """The public view's address."""
        return f"http://127.0.0.1:{self.port}/"

    @property
    def private_url(self) -> str:
        """The address that also shows private evidence (it carries the token)."""
        return f"{self.url}?token={self.token}"

    def stop(self) -> None:
        self.stopping.set()
        self.shutdown()
        self.server_close()
