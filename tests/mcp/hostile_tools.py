"""Tools of the containment test server (tests/mcp/test_mcp_containment.py): `slow` blocks its thread."""
import time


def slow(args):
    time.sleep(float(args.get("s", 3)))
    return {"late": True}


TOOLS = {"slow": slow}
