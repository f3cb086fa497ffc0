"""Shared fixtures. Shared plain helpers (`run`, `ok`, `expect`, ...) are in helpers.py."""
import os

import httpx
import pytest

from ptclisp.pipeline import BACKENDS

LOCAL_LLM_ENV = "PTCLISP_LOCAL_LLM_URL"


@pytest.fixture(params=BACKENDS)
def backend(request) -> str:
    """Each back end in turn: "tiered" (closures, hot code compiled) and "compiled" (whole program)."""
    return request.param


@pytest.fixture(scope="session")
def local_llm() -> str:
    """Base URL of a real OpenAI-compatible model server for the optional live tests, taken from
    PTCLISP_LOCAL_LLM_URL (for example http://127.0.0.1:8765/v1). The test is skipped when the
    variable is unset or no server answers there. Probed once per run."""
    url = os.environ.get(LOCAL_LLM_ENV, "").rstrip("/")
    if not url:
        pytest.skip(f"set {LOCAL_LLM_ENV} to the base URL of a local OpenAI-compatible model server")
    try:
        up = httpx.get(url + "/models", timeout=1.0).status_code == 200
    except httpx.HTTPError:
        up = False
    if not up:
        pytest.skip(f"no model server answers at {LOCAL_LLM_ENV}={url}")
    return url
