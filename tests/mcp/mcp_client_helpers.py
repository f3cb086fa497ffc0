"""Helpers of the MCP client tests: the fixture server's command line, real servers' commands, an HTTP port."""
from __future__ import annotations

import os
import pathlib
import shutil
import socket
import subprocess
import sys
import time

import pytest

HERE = pathlib.Path(__file__).resolve().parent
FIXTURE = HERE / "fixture_server.py"


def need_sdk():
    """Skip the calling module unless the MCP SDK (the `ptclisp[mcp]` extra) is installed."""
    pytest.importorskip("mcp.client.stdio", reason="the mcp package (ptclisp[mcp]) is not installed")


def fixture_command(state_dir) -> list[str]:
    """The stdio command of the failure-injecting fixture server, observing into `state_dir`."""
    return [sys.executable, str(FIXTURE), str(state_dir)]


def script(name: str, module: str) -> list[str]:
    """A PyPI server's console script next to this Python (else `python -m module`); skip if not installed."""
    pytest.importorskip(module, reason=f"{name} is not installed (the test extra installs it)")
    exe = pathlib.Path(sys.executable).with_name(name)
    return [str(exe)] if exe.exists() else [sys.executable, "-m", module]


def calls_of(state_dir) -> list[str]:
    """The tool calls the fixture server started, in order."""
    p = pathlib.Path(state_dir) / "calls.log"
    return p.read_text().split() if p.exists() else []


def max_inflight(state_dir) -> int:
    p = pathlib.Path(state_dir) / "inflight.max"
    return int(p.read_text()) if p.exists() else 0


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_until(predicate, timeout: float = 10.0, what: str = "the condition"):
    """Poll `predicate` until it is true (a bounded wait, not a timing assertion)."""
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if predicate():
            return
        time.sleep(0.02)
    raise AssertionError(f"{what} did not hold within {timeout} s")


class HttpFixture:
    """The fixture server on streamable HTTP at 127.0.0.1:PORT/mcp, as a child process."""

    def __init__(self, state_dir):
        self.state_dir = state_dir
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}/mcp"
        self.proc = subprocess.Popen([*fixture_command(state_dir), "--http", str(self.port)],
                                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)

        def up():
            if self.proc.poll() is not None:
                raise AssertionError("the HTTP fixture server exited")
            with socket.socket() as s:
                return s.connect_ex(("127.0.0.1", self.port)) == 0
        wait_until(up, 20.0, "the HTTP fixture server accepting connections")

    def stop(self):
        stop_process(self.proc)


def stop_process(proc: subprocess.Popen) -> None:
    """Terminate `proc` and wait for it; kill it when it has not ended after 10 s."""
    proc.terminate()
    try:
        proc.wait(timeout=10)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


def git_repo(path: pathlib.Path) -> pathlib.Path:
    """A temporary git repository with one commit (skip without git)."""
    git = shutil.which("git")
    if git is None:
        pytest.skip("git is not installed")
    env = {**os.environ, "GIT_AUTHOR_NAME": "T", "GIT_AUTHOR_EMAIL": "t@example.com",
           "GIT_COMMITTER_NAME": "T", "GIT_COMMITTER_EMAIL": "t@example.com"}
    path.mkdir()
    (path / "notes.txt").write_text("hello\n")
    for args in (["init", "-q"], ["add", "notes.txt"], ["commit", "-qm", "first commit"]):
        subprocess.run([git, *args], cwd=path, env=env, check=True, capture_output=True)
    return path
