"""`ptclisp view`: the static page and the live server, checked in headless Chromium (DOM text, not pixels).

The runs are the two of test_trace.py (a run that fixes its type_error, a
run that hits the turn limit) against the same fake OpenAI-compatible
server.  Chromium tests skip when `chromium` is not on PATH.  Each Chromium
run also takes a screenshot; with PTCLISP_UPDATE_SCREENSHOTS=1 they are
copied to docs/view-static.png and docs/view-live.png (how the committed
ones were made).
"""
from __future__ import annotations

import html
import json
import os
import pathlib
import re
import shutil
import subprocess
import sys
import threading
import time
import urllib.request

import pytest

import test_trace as T
from ptclisp.view.server import ViewServer

ROOT = pathlib.Path(__file__).resolve().parents[2]
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
needs_chromium = pytest.mark.skipif(CHROMIUM is None, reason="needs chromium on PATH")
WAIT_S = 60          # generous: only a broken server takes this long


@pytest.fixture(scope="module")
def recorded(tmp_path_factory):
    work = tmp_path_factory.mktemp("view")
    (work / "data.json").write_text(json.dumps(T.DATA), encoding="utf-8")
    ids = {}
    with T.fake_openai() as server:
        model = f"m=openai:gpt-4o-mini@http://127.0.0.1:{server.server_port}/v1"
        for name, task in (("fix", T.FIX_TASK), ("loop", T.LOOP_TASK)):
            _, out, _ = T.run_cli(["agent", task, "--model", model, "--data", str(work / "data.json"),
                                   "--max-turns", "2", "--trace-dir", str(work / "traces"), "--inspect", "--json"],
                                  env={"OPENAI_API_KEY": T.API_KEY})
            ids[name] = json.loads(out)["trace"]["run_id"]
    return work, ids


def chromium(url: str, tmp_path: pathlib.Path, screenshot: pathlib.Path | None = None,
             netlog: pathlib.Path | None = None) -> str:
    """The DOM of `url` after load (and a screenshot when asked)."""
    common = [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
              "--disable-dev-shm-usage", "--hide-scrollbars", f"--user-data-dir={tmp_path / 'profile'}"]
    extra = [f"--log-net-log={netlog}"] if netlog else []
    dom = subprocess.run([*common, *extra, "--dump-dom", url], capture_output=True, text=True, timeout=120)
    assert dom.returncode == 0, dom.stderr[-2000:]
    if screenshot is not None:
        shot = subprocess.run([*common, "--window-size=1280,1800", f"--screenshot={screenshot}", url],
                              capture_output=True, text=True, timeout=120)
        assert shot.returncode == 0 and screenshot.stat().st_size > 10_000, shot.stderr[-2000:]
        if os.environ.get("PTCLISP_UPDATE_SCREENSHOTS") == "1":
            shutil.copyfile(screenshot, ROOT / "docs" / screenshot.name)
    return dom.stdout


def dom_text(dom: str) -> str:
    body = re.sub(r"<(script|style)\b.*?</\1>", "", dom, flags=re.S)
    return html.unescape(re.sub(r"<[^>]+>", "", body))


def page_requests(netlog: pathlib.Path) -> list[str]:
    """URLs the page itself asked for (Chromium's own background requests have no origin)."""
    log = json.loads(netlog.read_text(encoding="utf-8"))
    names = {v: k for k, v in log["constants"]["logEventTypes"].items()}
    urls = []
    for e in log.get("events", []):
        p = e.get("params") or {}
        if names.get(e.get("type")) == "URL_REQUEST_START_JOB" and "url" in p and \
                p.get("initiator") != "not an origin":
            urls.append(str(p.get("url")))
    return urls


def check_runs_rendered(dom: str, ids: dict) -> None:
    text = dom_text(dom)
    for rid in ids.values():
        assert rid in text
    fix = dom.split(f'id="run-{ids["fix"]}"', 1)[1]
    turn1 = dom_text(fix.split('-t1"', 1)[1].split("</article>", 1)[0])
    assert "type_error" in turn1 and "at line 2, column 3" in turn1
    assert "^ type_error: +: expected a number, got string" in turn1
    turn2 = dom_text(fix.split('-t2"', 1)[1].split("</article>", 1)[0])
    assert T.FIXED in turn2 and "returned" in turn2
    assert "workflow_failed/runtime_limit_exceeded" in text


# ------------------------------------------------------------------ static

@needs_chromium
def test_static_view_renders_runs_the_error_and_the_fix_and_requests_nothing(recorded, tmp_path):
    work, ids = recorded
    page = tmp_path / "v.html"
    code, _, _ = T.run_cli(["view", str(work / "traces"), "--static", str(page)])
    assert code == 0
    netlog = tmp_path / "net.json"
    dom = chromium(page.as_uri(), tmp_path, screenshot=tmp_path / "view-static.png", netlog=netlog)
    check_runs_rendered(dom, ids)
    assert [u for u in page_requests(netlog) if not u.startswith("file:")] == []


@needs_chromium
def test_the_status_filter_and_search_run_in_the_page(recorded, tmp_path):
    work, ids = recorded
    page = tmp_path / "v.html"
    T.run_cli(["view", str(work / "traces"), "--static", str(page)])
    # the page's own script hides what a preset filter excludes: choose "failed" before it runs
    text = page.read_text(encoding="utf-8").replace('<option value="failed">', '<option value="failed" selected>')
    page.write_text(text, encoding="utf-8")
    dom = chromium(page.as_uri(), tmp_path)
    rows = {m.group(1): "hidden" in m.group(0) for m in re.finditer(r'<tr data-run="([^"]+)"[^>]*>', dom)}
    assert rows == {ids["fix"]: True, ids["loop"]: False}
    sections = {m.group(1): "hidden" in m.group(0)
                for m in re.finditer(r'<section class="[^"]*" id="run-[^"]+" data-run="([^"]+)"[^>]*>', dom)}
    assert sections == {ids["fix"]: True, ids["loop"]: False}


# ------------------------------------------------------------------ live

@pytest.fixture
def live(recorded):
    work, ids = recorded
    server = ViewServer(str(work / "traces"), 0)
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.1}, daemon=True)
    thread.start()
    try:
        yield server, work, ids
    finally:
        server.stop()


def get(url: str, host: str | None = None) -> tuple[int, str]:
    req = urllib.request.Request(url, headers={"Host": host} if host else {})
    try:
        with urllib.request.urlopen(req, timeout=WAIT_S) as r:
            return r.status, r.read().decode("utf-8")
    except urllib.error.HTTPError as e:
        return e.code, e.read().decode("utf-8")


def test_live_view_serves_html_at_root_and_refuses_other_hosts(live):
    server, _, ids = live
    code, body = get(f"http://127.0.0.1:{server.port}/")
    assert code == 200 and body.startswith("<!DOCTYPE html>") and ids["fix"] in body
    assert "new EventSource('/events')" in body and "connect-src 'self'" in body
    assert get(f"http://127.0.0.1:{server.port}/", host="attacker.example:80")[0] == 403
    assert get(f"http://127.0.0.1:{server.port}/nothing")[0] == 404


def test_live_view_announces_a_new_run_as_it_is_written(live, tmp_path):
    server, work, _ = live
    stream = urllib.request.urlopen(f"http://127.0.0.1:{server.port}/events", timeout=WAIT_S)
    assert stream.readline() == b": connected\n"
    seen = []

    def first_data_line():
        for line in stream:                  # blank lines end events; ": ..." lines are comments
            if line.startswith(b"data:"):
                seen.append(line)
                return

    reader = threading.Thread(target=first_data_line, daemon=True)
    reader.start()
    (tmp_path / "s.json").write_text(json.dumps(["(return :new-run)"]), encoding="utf-8")
    T.run_cli(["agent", "t", "--model", f"m=scripted:{tmp_path / 's.json'}", "--trace-dir", str(work / "traces")])
    reader.join(WAIT_S)
    stream.close()
    assert seen == [b"data: change\n"]
    new_id = sorted(p.name for p in (work / "traces").iterdir())[-1]
    assert new_id in get(f"http://127.0.0.1:{server.port}/app")[1]
    shutil.rmtree(work / "traces" / new_id)          # the other tests expect two runs


@needs_chromium
def test_live_view_renders_in_chromium(live, tmp_path):
    server, _, ids = live
    dom = chromium(server.private_url, tmp_path, screenshot=tmp_path / "view-live.png")   # private evidence needs the token
    check_runs_rendered(dom, ids)


def test_the_view_command_serves_until_stopped(recorded, tmp_path):
    work, ids = recorded
    proc = subprocess.Popen([sys.executable, "-c", "import sys; from ptclisp.commands.main import main; sys.exit(main())",
                             "view", str(work / "traces"), "--port", "0"], stderr=subprocess.PIPE, text=True)
    try:
        line = proc.stderr.readline()
        m = re.search(r"http://127\.0\.0\.1:(\d+)/", line)
        assert m, line
        code, body = get(f"http://127.0.0.1:{m.group(1)}/")
        assert code == 200 and ids["loop"] in body
    finally:
        proc.terminate()
        proc.wait(WAIT_S)
        proc.stderr.close()


def test_view_needs_static_or_port(tmp_path):
    code, _, err = T.run_cli(["view", str(tmp_path)])
    assert code == 2 and "--static" in err
    code, _, err = T.run_cli(["view", str(tmp_path / "missing"), "--static", str(tmp_path / "v.html")])
    assert code == 2 and "no trace directory" in err
