"""The hard stop reads overdue threads' frames without crashing the interpreter (issue 24).

To decide whether an overdue evaluation may be stopped, the hard stop looks at the frames of its
thread from its own thread. On CPython 3.11 making the frame object for another thread's frame
could run a garbage collection whose finalizers let that thread return from the frame and free its
memory, which was then read: a segmentation fault, seen twice in differential campaigns. The child
here makes that likely: threads overdue in code the hard stop may not interrupt (so it looks at
their frames every millisecond) push and pop deep stacks, and cyclic garbage with finalizers that
give up the interpreter lock is collected often. It crashed within seconds before the fix.
"""
from __future__ import annotations

import subprocess
import sys
import textwrap

CHILD = textwrap.dedent(r"""
    import gc, sys, threading, time
    from ptclisp.errors import PTC_FILENAME
    from ptclisp.runtime.guards import ENFORCER, _NEVER_UNDER, enter_guard, exit_guard
    from ptclisp.runtime.meter import Limits, Meter

    gc.set_threshold(50, 5, 5)
    end = time.monotonic() + float(sys.argv[1])

    class Cycle:
        def __init__(self):
            self.me = self            # only the collector frees it
        def __del__(self):
            time.sleep(0)             # gives up the interpreter lock in the middle of a collection

    # deep stacks that span and free the interpreter's stack chunks, made of frames the hard stop reads
    # one by one (they pass for generated code) over a frame it must not interrupt (a tool call's):
    # every look walks them all, and ends in "not now"
    code = {}
    exec(compile("def deep(n):\n    return deep(n - 1) if n else 0\n", PTC_FILENAME, "exec"), code)
    exec(compile("def tool(deep, end, clock):\n    while clock() < end:\n        deep(400)\n",
                 _NEVER_UNDER[0], "exec"), code)

    def overdue():
        meter = Meter(Limits(timeout_ms=1))
        meter.start()
        tid = enter_guard(meter)
        try:
            code["tool"](code["deep"], end, time.monotonic)
        finally:
            exit_guard(tid)
            meter.stop()

    def garbage():
        while time.monotonic() < end:
            Cycle()
            time.sleep(0)

    threads = [threading.Thread(target=f) for f in (overdue, overdue, garbage)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert gc.isenabled()
    print("survived", ENFORCER.delivered)
""")


def test_reading_overdue_threads_frames_does_not_crash_the_interpreter():
    out = subprocess.run([sys.executable, "-c", CHILD, "4"], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, f"exit {out.returncode}: {out.stderr[-2000:]}"
    assert out.stdout.split() == ["survived", "0"]   # looked at, never interrupted (a tool call)


HOST_SETTING = textwrap.dedent(r"""
    import gc, threading, time
    from ptclisp.runtime.guards import enter_guard, exit_guard
    from ptclisp.runtime.meter import Limits, Meter

    gc.disable()                      # the host's choice: it must still hold after overdue evaluations
    meter = Meter(Limits(timeout_ms=1))
    meter.start()
    tid = enter_guard(meter)
    t_end = time.monotonic() + 0.5
    while time.monotonic() < t_end:
        pass
    exit_guard(tid)
    meter.stop()
    print("enabled" if gc.isenabled() else "disabled")
""")


def test_a_host_that_disabled_the_collector_keeps_it_disabled():
    out = subprocess.run([sys.executable, "-c", HOST_SETTING], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.strip() == "disabled"
