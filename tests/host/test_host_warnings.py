"""No warning of ours reaches a host's stderr, even with every warning shown (`python -X dev`).

A fresh interpreter plays the host: it imports ptclisp, runs programs, and exits. Development
mode shows every warning (ResourceWarning and DeprecationWarning included) and reports what is
left open at shutdown; stderr must stay empty.
"""
import subprocess
import sys

import pytest

COMPILED = r'''
import ptclisp
from ptclisp.pipeline import evaluate
loop = "(loop [i 0] (if (< i 2) (recur (inc i)) [(nil? \"s\") (some? 5) ((do \"s\") 1) (nil? (+ 3 4))]))"
s = ptclisp.Session()
for backend in ("tiered", "compiled"):
    r = evaluate(s.env, loop, s.limits, backend=backend)
    assert r.error is not None and r.error.kind == "not_callable", r.error
print("done")
'''

# the fork server of isolation="process" lives as long as the host: it must end with it
ISOLATED = r'''
import ptclisp
print(ptclisp.pr_str(ptclisp.run("(mapv inc [1 2])", isolation="process").value))
'''


@pytest.mark.parametrize("host,out", [(COMPILED, "done\n"), (ISOLATED, "[2 3]\n")], ids=["compiled", "isolated"])
def test_a_host_in_development_mode_sees_no_warning(host, out):
    proc = subprocess.run([sys.executable, "-X", "dev", "-c", host], capture_output=True, text=True, timeout=120)
    assert (proc.stdout, proc.returncode) == (out, 0), proc.stderr
    assert proc.stderr == ""
