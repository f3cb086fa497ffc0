"""A fake OpenAI-compatible chat-completions server on 127.0.0.1, answering from a script.

    with FakeOpenAI() as llm:
        llm.program("(return 42)")            # one run_ptc_lisp tool call
        llm.error(500)                        # an HTTP error (optionally with headers, e.g. Retry-After)
        llm.text("```clojure\n(return 1)\n```")   # a plain text answer
        llm.url                               # http://127.0.0.1:PORT/v1
        llm.requests                          # the JSON bodies received, in order

When the script runs out the server answers HTTP 500. Nothing leaves the machine.
"""
from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


class FakeOpenAI:
    def __init__(self):
        self.script: list = []
        self.requests: list[dict] = []
        self.headers: list[dict] = []
        self.release = threading.Event()
        self._lock = threading.Lock()
        self._ids = 0
        fake = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):  # noqa: N802 - http.server's naming
                raw = self.rfile.read(int(self.headers.get("Content-Length", "0")))
                with fake._lock:
                    fake.requests.append(json.loads(raw) if raw else None)
                    fake.headers.append({k.lower(): v for k, v in self.headers.items()})
                    status, body, headers, delay = fake.script.pop(0) if fake.script else (500, b"{}", {}, 0)
                if delay:
                    fake.release.wait(delay)
                try:
                    self.send_response(status)
                    for k, v in {"Content-Type": "application/json", **headers}.items():
                        self.send_header(k, v)
                    self.send_header("Content-Length", str(len(body)))
                    self.end_headers()
                    self.wfile.write(body)
                except OSError:
                    pass

            def log_message(self, *args):
                pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.thread = threading.Thread(target=self.httpd.serve_forever, kwargs={"poll_interval": 0.02},
                                       daemon=True)
        self.thread.start()

    # -- script
    def _answer(self, message: dict, finish: str, usage: dict | None = None, delay: float = 0.0):
        body = {"id": "fake", "object": "chat.completion", "model": "fake-model",
                "choices": [{"index": 0, "message": {"role": "assistant", **message}, "finish_reason": finish}],
                "usage": usage or {"prompt_tokens": 100, "completion_tokens": 20, "total_tokens": 120}}
        self.script.append((200, json.dumps(body).encode(), {}, delay))
        return self

    def program(self, program: str, content: str | None = None, delay: float = 0.0):
        self._ids += 1
        call = {"id": f"call-{self._ids}", "type": "function",
                "function": {"name": "run_ptc_lisp", "arguments": json.dumps({"program": program})}}
        return self._answer({"content": content, "tool_calls": [call]}, "tool_calls", delay=delay)

    def text(self, content: str):
        return self._answer({"content": content}, "stop")

    def error(self, status: int, headers: dict | None = None, body: dict | None = None, delay: float = 0.0):
        payload = json.dumps(body or {"error": {"type": "server_error", "message": "boom"}}).encode()
        self.script.append((status, payload, dict(headers or {}), delay))
        return self

    # -- inspection
    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"

    @property
    def host(self) -> str:
        return f"127.0.0.1:{self.httpd.server_address[1]}"

    def system(self, i: int = 0) -> str:
        """The system prompt of request i."""
        return next(m["content"] for m in self.requests[i]["messages"] if m["role"] == "system")

    # -- lifetime
    def close(self):
        self.release.set()
        self.httpd.shutdown()
        self.httpd.server_close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
