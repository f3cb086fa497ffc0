"""A fake OpenAI-compatible chat-completions server on 127.0.0.1, answering from a script.

    with FakeOpenAI() as llm:
        llm.program("(return 42)")            # one run_ptc_lisp tool call
        llm.error(500)                        # an HTTP error (optionally with headers, e.g. Retry-After)
        llm.text("```clojure\n(return 1)\n```")   # a plain text answer
        llm.url                               # http://127.0.0.1:PORT/v1
        llm.requests                          # the JSON bodies received, in order

When the script runs out the server answers HTTP 500, unless a responder is set: then it
answers every further request from what the request says (a prompt-sensitive model):

    llm.respond(fn)                           # fn(request body) -> a program (str) or a message dict
    llm.respond(feedback_sensitive(first="(count data/items)", trigger="Check the value",
                                   good="(return (count data/items))", bad="(return 0)"))

`python tests/fake_openai.py --port 8765 --first P --trigger T --good P --bad P` serves the
feedback-sensitive model until interrupted, `--script FILE` a JSON list of programs instead
(both used for docs/improving-agents.md). Nothing leaves
the machine.
"""
from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


class FakeOpenAI:
    def __init__(self, port: int = 0):
        self.script: list = []
        self.responder = None
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
                    if fake.script:
                        status, body, headers, delay = fake.script.pop(0)
                    elif fake.responder is not None:
                        status, body, headers, delay = fake.responded(fake.requests[-1])
                    else:
                        status, body, headers, delay = (500, b"{}", {}, 0)
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

        self.httpd = ThreadingHTTPServer(("127.0.0.1", port), Handler)
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

    def respond(self, fn):
        """Answer every request past the script with `fn(body)`: a program string or a message dict."""
        self.responder = fn
        return self

    def responded(self, body) -> tuple:
        answer = self.responder(body)
        if isinstance(answer, str):
            self._ids += 1
            answer = {"content": None, "tool_calls": [{"id": f"call-{self._ids}", "type": "function", "function": {
                "name": "run_ptc_lisp", "arguments": json.dumps({"program": answer})}}]}
        finish = "tool_calls" if answer.get("tool_calls") else "stop"
        payload = {"id": "fake", "object": "chat.completion", "model": "fake-model",
                   "choices": [{"index": 0, "message": {"role": "assistant", **answer}, "finish_reason": finish}],
                   "usage": {"prompt_tokens": 100, "completion_tokens": 20, "total_tokens": 120}}
        return 200, json.dumps(payload).encode(), {}, 0

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


def feedback_sensitive(first: str, trigger: str, good: str, bad: str):
    """A responder: `first` on the first turn; later `good` when anything the loop sent back after the task
    (the feedback) contains `trigger`, else `bad`. So a better feedback text really changes the answer."""
    def answer(body) -> str:
        messages = body.get("messages") or []
        if not any(m.get("role") == "assistant" for m in messages):
            return first
        later = messages[next(i for i, m in enumerate(messages) if m.get("role") == "assistant"):]
        text = " ".join(str(m.get("content") or "") for m in later if m.get("role") != "assistant")
        return good if trigger in text else bad
    return answer


def main(argv=None) -> int:
    import argparse
    import time
    p = argparse.ArgumentParser(description="serve the feedback-sensitive fake model on 127.0.0.1")
    p.add_argument("--port", type=int, default=8765)
    p.add_argument("--first")
    p.add_argument("--trigger")
    p.add_argument("--good")
    p.add_argument("--bad")
    p.add_argument("--script", help="instead: a JSON file with a list of programs, answered in order")
    args = p.parse_args(argv)
    fake = FakeOpenAI(port=args.port)
    if args.script:
        with open(args.script, encoding="utf-8") as fh:
            for program in json.load(fh):
                fake.program(program)
    else:
        fake.respond(feedback_sensitive(args.first, args.trigger, args.good, args.bad))
    print(fake.url, flush=True)
    try:
        while True:
            time.sleep(3600)
    except KeyboardInterrupt:
        fake.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
