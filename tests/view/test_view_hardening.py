"""The viewer against crafted traces, its CSP, and the live server's token (issue #30, item 12).

Every command runs as a user runs it: `python -m ptclisp view ...` in a subprocess, the live server
over real HTTP, pages checked in headless Chromium when it is on PATH (DOM text and a screenshot).
"""
from __future__ import annotations

import base64
import hashlib
import json
import os
import pathlib
import re
import shutil
import subprocess
import sys
import urllib.error
import urllib.request

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
needs_chromium = pytest.mark.skipif(CHROMIUM is None, reason="needs chromium on PATH")
RUN = "20260101T000000Z-abcdef"
MARKUP = '<img src=x onerror="alert(1)">'


def ptclisp(*argv, cwd):
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run([sys.executable, "-m", "ptclisp", *argv], cwd=cwd, capture_output=True, text=True,
                          env=env, timeout=120)


def write_run(directory: pathlib.Path, events: list, private: list | None = None, run=RUN) -> pathlib.Path:
    d = directory / run
    d.mkdir(parents=True)
    (d / "events.jsonl").write_text("".join(json.dumps(e) + "\n" for e in events), encoding="utf-8")
    if private is not None:
        (d / "private").mkdir()
        (d / "private" / "evidence.jsonl").write_text("".join(json.dumps(e) + "\n" for e in private),
                                                      encoding="utf-8")
    return d


def event(seq, kind, **fields):
    return {"seq": seq, "ts": "2026-01-01T00:00:00.000Z", "t_ms": float(seq), "kind": kind, **fields}


CRAFTED = [
    event(1, "run_start", run_id=RUN, command="agent", models={"m": {"provider": "openai", "model": "x"}}),
    event(2, "model_response", turn=1, alias="m", status="ok", duration_ms=5.0, tokens={"input": 10, "output": 2}),
    event(3, "evaluation", turn=1, outcome="continued", prints=MARKUP, duration_ms=MARKUP),   # markup in numbers
    event(4, "model_request", turn=MARKUP, messages=2),                                        # markup as a turn
    event(5, "run_end", status="failed", usage={"calls": MARKUP, "input_tokens": [1]},       # wrong types
          error={"kind": "workflow_failed", "reason": "x"}),
]


def static_page(tmp_path, events, private=None) -> str:
    write_run(tmp_path / "traces", events, private)
    done = ptclisp("view", "traces", "--static", "v.html", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert "internal error" not in done.stderr
    return (tmp_path / "v.html").read_text(encoding="utf-8")


def test_a_crafted_trace_is_escaped_and_its_malformed_records_are_skipped_visibly(tmp_path):
    page = static_page(tmp_path, CRAFTED + ["not an object", "{broken"])
    assert MARKUP not in page and "onerror=" not in page.replace("onerror=&quot;", "")
    assert "<img" not in page
    # three typed-wrong records and two unparsable lines were skipped, and the page says so
    assert re.search(r"<dt>skipped lines</dt><dd><span class=\"err-text\">5 malformed trace line\(s\) skipped", page)


def test_private_evidence_of_the_wrong_type_is_skipped_not_a_type_error(tmp_path):
    events = CRAFTED[:2] + [event(3, "evaluation", turn=1, outcome="continued", prints=0, duration_ms=1.0)]
    private = [{"seq": 3, "kind": "evaluation", "program": {"x": MARKUP}, "prints": [1, 2]},
               {"seq": 2, "kind": "model_response", "content": MARKUP}]
    page = static_page(tmp_path, events, private)
    assert "1 malformed trace line(s) skipped" in page
    assert "&lt;img src=x onerror=&quot;alert(1)&quot;&gt;" in page and MARKUP not in page


def test_the_page_allows_only_its_own_hashed_scripts(tmp_path):
    page = static_page(tmp_path, CRAFTED[:2])
    csp = re.search(r'http-equiv="Content-Security-Policy" content="([^"]+)"', page).group(1)
    script_src = re.search(r"script-src ([^;]+);", csp).group(1)
    assert "unsafe-inline" not in script_src
    scripts = re.findall(r"<script>(.*?)</script>", page, flags=re.S)
    assert scripts and all(
        "'sha256-" + base64.b64encode(hashlib.sha256(s.encode()).digest()).decode() + "'" in script_src
        for s in scripts)
    assert re.findall(r"<script\b", page) == ["<script"] * len(scripts)     # no other script element


def test_a_failed_call_is_counted_and_an_empty_token_chart_says_why(tmp_path):
    events = [
        event(1, "run_start", run_id=RUN, command="agent", models={"m": {"provider": "openai", "model": "x"}}),
        event(2, "model_request", turn=1, messages=1),
        event(3, "model_response", turn=1, alias="m", status="error", duration_ms=3.0,
              error={"kind": "provider_error", "reason": "unavailable", "retryable": True}),
        event(4, "run_end", status="failed", usage={"calls": 0, "input_tokens": 0, "output_tokens": 0,
                                                     "cached_tokens": 0, "unreported_calls": 0, "cost_usd": None},
              error={"kind": "workflow_failed", "reason": "provider_error"}),
    ]
    page = static_page(tmp_path, events)
    assert "<dt>model calls</dt><dd>1 (1 failed)</dd>" in page
    assert "model call failed: provider_error/unavailable" in page
    assert 'id="chart-runs-none"' in page and 'id="chart-runs"' not in page


# ------------------------------------------------------------------ the live server's token

def get(url: str, cookie: str | None = None):
    req = urllib.request.Request(url, headers={"Cookie": cookie} if cookie else {})
    try:
        with urllib.request.urlopen(req, timeout=30) as r:
            return r.status, r.read().decode("utf-8"), r.headers.get("Set-Cookie")
    except urllib.error.HTTPError as e:
        return e.code, e.read().decode("utf-8"), None


@pytest.fixture
def served(tmp_path):
    events = CRAFTED[:2] + [event(3, "evaluation", turn=1, outcome="continued", prints=0, duration_ms=1.0)]
    write_run(tmp_path / "traces", events, [{"seq": 3, "kind": "evaluation", "program": "(+ 1 SECRETPROGRAM)"}])
    proc = subprocess.Popen([sys.executable, "-m", "ptclisp", "view", "traces", "--port", "0"], cwd=tmp_path,
                            stderr=subprocess.PIPE, text=True, env={**os.environ, "PYTHONPATH": str(ROOT)})
    try:
        public = proc.stderr.readline()
        private = proc.stderr.readline()
        yield public, private
    finally:
        proc.terminate()
        proc.wait(30)
        proc.stderr.close()


def test_the_live_view_shows_private_evidence_only_with_its_token(served):
    public_line, private_line = served
    base = re.search(r"(http://127\.0\.0\.1:\d+/) \(public view", public_line).group(1)
    token_url = re.search(r"with private evidence: (http://127\.0\.0\.1:\d+/\?token=[\w-]+)", private_line).group(1)
    code, body, cookie = get(base)
    assert code == 200 and "SECRETPROGRAM" not in body and "public view" in body and cookie is None
    assert "SECRETPROGRAM" not in get(base + "app")[1]
    assert "SECRETPROGRAM" not in get(base + "?token=wrong")[1]
    code, body, cookie = get(token_url)
    assert code == 200 and "SECRETPROGRAM" in body
    assert "HttpOnly" in cookie and "SameSite=Strict" in cookie
    session = cookie.split(";", 1)[0]
    assert "SECRETPROGRAM" in get(base + "app", cookie=session)[1]         # the page's updates carry it
    assert "SECRETPROGRAM" not in get(base + "app", cookie="ptclisp_view_token=nope")[1]


@needs_chromium
def test_the_crafted_page_in_chromium(tmp_path):
    sys.path.insert(0, str(ROOT / "tests" / "trace"))  # the browser helpers of tests/trace/test_trace_view.py
    from test_trace_view import chromium, dom_text
    static_page(tmp_path, CRAFTED)
    shot = tmp_path / "crafted.png"
    dom = chromium((tmp_path / "v.html").as_uri(), tmp_path, screenshot=shot)
    text = dom_text(dom)
    assert "3 malformed trace line(s) skipped" in text
    assert "<img" not in dom.split("<body", 1)[1].replace("&lt;img", "")
    assert 'id="shown">1<' in dom          # the hashed filter script ran (it counts the shown rows)
