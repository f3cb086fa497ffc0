"""Shared fixtures. Shared plain helpers (`run`, `ok`, `expect`, ...) are in helpers.py."""
import os

import httpx
import pytest

from ptclisp.evaluator import BACKENDS


@pytest.fixture(params=BACKENDS)
def backend(request) -> str:
    """Each back end in turn: "tiered" (closures, hot code compiled) and "compiled" (whole program)."""
    return request.param


@pytest.fixture(scope="session")
def local_llm() -> str:
    """Base URL of the real local model of ../shared/tools/local-llm.sh (PTCLISP_LOCAL_LLM_URL
    overrides it); the test is skipped when no server answers there. Probed once per run."""
    url = os.environ.get("PTCLISP_LOCAL_LLM_URL", "http://127.0.0.1:8765/v1")
    try:
        up = httpx.get(url + "/models", timeout=1.0).status_code == 200
    except httpx.HTTPError:
        up = False
    if not up:
        pytest.skip("local model server (shared/tools/local-llm.sh serve) not running")
    return url
