"""The hard stop never leaves a lock of the guards held (found by the differential campaign, issue 25).

A hard stop delivered as an evaluation finishes fires at the interpreter's next check, which can come
right after a C call returns. When that call was a lock's acquire() with the `try` still to come, the
lock was never released and every later evaluation of the process waited for ever. These tests end
many evaluations at their deadlines at once, on several threads and in pmap workers, in a child
process: they pass when every evaluation ends and the process is still usable afterwards.
"""
from __future__ import annotations

import subprocess
import sys
import textwrap

CHILD = textwrap.dedent(r"""
    import sys, threading
    import ptclisp
    from ptclisp import Limits
    from ptclisp.runtime.guards import ENFORCER, DEPTH

    PROGRAMS = [
        "(loop [i 0] (if (< i 100000000) (recur (inc i)) i))",
        "(defn f [n] (if (= n 0) 0 (+ (f (dec n)) (f (dec n))))) (f 40)",
        "(pmap (fn [i] (loop [j 0] (recur (inc j)))) (range 6))",
        "(reduce + (map inc (range 100000000)))",
    ]
    kinds = {}
    lock = threading.Lock()

    def worker(k):
        for i in range(int(sys.argv[1])):
            # deadlines of 3-9 ms: most evaluations are hard-stopped around the time they end
            lim = Limits(timeout_ms=3 + (i + k) % 7, loop_limit=10**9, pmap_timeout_ms=50)
            r = ptclisp.run(PROGRAMS[(i + k) % len(PROGRAMS)], limits=lim)
            with lock:
                kinds[r.error.kind if r.error else r.status] = kinds.get(r.error.kind if r.error else r.status, 0) + 1

    threads = [threading.Thread(target=worker, args=(k,)) for k in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    # neither lock is held now, and an evaluation still runs
    assert ENFORCER._lock.acquire(timeout=5), "the hard stop's lock was left held"
    ENFORCER._lock.release()
    assert DEPTH._lock.acquire(timeout=5), "the recursion budget's lock was left held"
    DEPTH._lock.release()
    assert ptclisp.run("(+ 1 2)").value == 3
    print(sorted(kinds.items()))
""")


def test_many_evaluations_stopped_at_their_deadlines_leave_no_lock_held():
    out = subprocess.run([sys.executable, "-c", CHILD, "60"], capture_output=True, text=True, timeout=240)
    assert out.returncode == 0, out.stderr[-2000:]
    assert "timeout" in out.stdout   # the deadlines were reached (the case under test)



ENTRY = textwrap.dedent(r"""
    import ctypes, threading, time
    from ptclisp.runtime.guards import ENFORCER, DEPTH, HardStop, exit_guard, enter_guard, _DELIVERED, _set_async_exc
    from ptclisp.runtime.meter import Limits, Meter

    main = threading.get_ident()
    for target in (ENFORCER, DEPTH):
        tid = enter_guard(Meter(Limits(timeout_ms=None)))
        ENFORCER._armed[tid][-1][_DELIVERED] = True
        held = threading.Event()

        def stopper(lock=target._lock):
            # hold the lock until the main thread waits for it, deliver a hard stop to it (pending while
            # it waits in C), then let it have the lock: the stop fires as soon as its acquire returns
            with lock:
                held.set()
                time.sleep(0.3)
                _set_async_exc(ctypes.c_ulong(main), ctypes.py_object(HardStop))
        t = threading.Thread(target=stopper)
        t.start()
        held.wait()
        try:
            exit_guard(tid)
        except HardStop:
            pass
        t.join()
        assert target._lock.acquire(timeout=2), type(target).__name__ + "'s lock was left held"
        target._lock.release()
        ENFORCER._armed.pop(tid, None)
        DEPTH._needs[:] = [n for n in DEPTH._needs if n[0] != tid]
    print("released")
""")



def test_a_hard_stop_firing_right_after_a_guard_lock_is_taken_leaves_it_released():
    try:
        out = subprocess.run([sys.executable, "-c", ENTRY], capture_output=True, text=True, timeout=60)
    except subprocess.TimeoutExpired:
        raise AssertionError("a guard lock was left held: the child hung") from None
    assert out.returncode == 0 and "released" in out.stdout, out.stderr[-2000:]
