"""What holds an evaluation to its limits while it runs.

    meter.py      Limits, the per-evaluation meter (time, memory, loops, prints), the watchdog
    guards.py     the hard stop, the recursion budget, size estimates at boundaries
    namespace.py  the user namespace (def, defn) of a session
    failures.py   whatever ended an evaluation, as a PtcError / ErrorInfo
"""
