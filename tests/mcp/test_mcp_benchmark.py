"""benchmarks/mcp_overhead.py still runs (a smoke run: few calls, short sleeps; no timing is asserted)."""
import pathlib
import subprocess
import sys

from mcp_client_helpers import need_sdk

need_sdk()

ROOT = pathlib.Path(__file__).resolve().parents[2]


def test_mcp_overhead_benchmark_smoke_run():
    proc = subprocess.run([sys.executable, "benchmarks/mcp_overhead.py", "--calls", "3", "--sleep-ms", "10",
                           "--repeat", "1"], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert "through ptclisp" in proc.stdout and "pmap, 8 slow calls" in proc.stdout
