"""`ptclisp docs [PAGE]`: the documentation shipped in the package (issue 17)."""
from __future__ import annotations

import json
import pathlib

import jsonschema
import pytest

from ptclisp.commands.main import main
from ptclisp.commands.docs import PAGES, functions_page, render

ROOT = pathlib.Path(__file__).resolve().parents[2]


def test_functions_reference_is_current():
    committed = (ROOT / "docs" / "reference" / "functions.md").read_text(encoding="utf-8")
    assert committed == functions_page(), \
        "docs/reference/functions.md is stale: regenerate it with 'ptclisp docs functions > docs/reference/functions.md'"


def test_functions_page_lists_every_builtin_with_signature_and_doc():
    from ptclisp import lib
    from ptclisp.registry.builtins import BUILTINS
    lib.load()
    page = functions_page()
    for name, b in BUILTINS.items():
        assert f"### `{name}`" in page
        assert f"`{b.signatures[0]}`" in page
    assert "### `json/parse-string`" in page


@pytest.mark.parametrize("page", list(PAGES))
def test_every_page_prints(capsys, page):
    assert main(["docs", page]) == 0
    out = capsys.readouterr().out
    assert out.strip() and out == render(page)


def test_forms_page_covers_every_special_form():
    from ptclisp.commands.docs import special_forms
    page = render("forms")
    for name in special_forms():
        assert f"`{name}`" in page


def test_limits_page_shows_the_defaults_of_the_code():
    from ptclisp import Limits
    from ptclisp.agent import AgentLimits
    page = render("limits")
    assert f"| `timeout_ms` | `{Limits().timeout_ms!r}` |" in page
    assert f"| `workflow_timeout_ms` | `{AgentLimits().workflow_timeout_ms!r}` |" in page


@pytest.mark.parametrize("name", ["project-schema", "envelope-schema"])
def test_schema_pages_are_json_schemas(name):
    jsonschema.Draft202012Validator.check_schema(json.loads(render(name)))


def test_an_unknown_page_is_a_usage_error(capsys):
    assert main(["docs", "nope"]) == 2
    assert "pages: functions, forms" in capsys.readouterr().err


def test_readme_links_the_reference():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    for target in ("docs/reference/functions.md", "ptclisp/docs/project.md", "ptclisp/docs/cli.md",
                   "ptclisp/docs/agent.md", "ptclisp/docs/forms.md", "ptclisp/docs/limits.md"):
        assert f"]({target})" in readme
