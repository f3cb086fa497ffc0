"""The MCP SDK is optional (the ptclisp[mcp] extra): nothing imports it until a server is connected."""
import subprocess
import sys

import pytest

from ptclisp.commands.main import main
from ptclisp.mcp.client import MCPServerSpec, MCPStartError, MCPTools


def test_importing_the_command_line_and_the_client_does_not_import_the_sdk():
    code = "import sys, ptclisp.commands.main, ptclisp.mcp.client, ptclisp.commands.mcp_flags; print('mcp' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "False"


def test_without_the_sdk_the_error_says_what_to_install(monkeypatch):
    monkeypatch.setitem(sys.modules, "mcp", None)      # `import mcp` now fails as if it were not installed
    with pytest.raises(MCPStartError, match=r"pip install 'ptclisp\[mcp\]'"):
        MCPTools([MCPServerSpec("t", command=["mcp-server-time"])]).open()


def test_without_the_sdk_an_mcp_flag_exits_4(monkeypatch, capsys):
    monkeypatch.setitem(sys.modules, "mcp", None)
    assert main(["eval", "--mcp", "t=mcp-server-time", "1"]) == 4
    assert capsys.readouterr().err == "ptclisp: MCP servers need the mcp package: pip install 'ptclisp[mcp]'\n"


def test_without_mcp_flags_nothing_changes(capsys):
    assert main(["eval", "(+ 1 2)"]) == 0
    assert capsys.readouterr().out == "3\n"
