"""The walk of one evaluation: which ptclisp code `ptclisp.run(src)` passes through.

    .venv/bin/python -m benchmarks.walk                 # a table
    .venv/bin/python -m benchmarks.walk --json          # one JSON object
    .venv/bin/python -m benchmarks.walk --src '(+ 1 2)' --calls

Runs the program once to warm up (the builtin families are loaded, modules imported), then
once under `sys.setprofile`, counting the Python calls made in files under `ptclisp/`, the
distinct ptclisp files they are in, the file switches (consecutive calls in different
files), and the stack of ptclisp functions when the reader is first entered. `--calls` also lists the call sequence (file:function), up to the reader.
"""
from __future__ import annotations

import argparse
import json
import os
import sys

import ptclisp

_PKG = os.path.dirname(os.path.abspath(ptclisp.__file__)) + os.sep


def walk(src: str) -> dict:
    ptclisp.run(src)  # warm: imports and the registry
    calls: list[tuple[str, str]] = []
    chain: list[str] = []

    def profile(frame, event, _arg):
        if event == "call":
            path = frame.f_code.co_filename
            if path.startswith(_PKG):
                rel = path[len(_PKG):]
                calls.append((rel, frame.f_code.co_name))
                if not chain and rel.startswith("reader" + os.sep):
                    f = frame
                    while f is not None and f.f_code.co_filename.startswith(_PKG):
                        chain.append(f"{f.f_code.co_filename[len(_PKG):]}:{f.f_code.co_name}")
                        f = f.f_back
                    chain.reverse()

    sys.setprofile(profile)
    try:
        result = ptclisp.run(src)
    finally:
        sys.setprofile(None)
    files = [f for f, _ in calls]
    switches = sum(1 for a, b in zip(files, files[1:]) if a != b)
    to_reader = []
    for f, fn in calls:
        to_reader.append(f"{f}:{fn}")
        if f.startswith("reader" + os.sep):
            break
    return {"source": src, "status": result.status, "calls": len(calls), "files": len(set(files)),
            "file_switches": switches, "path_to_reader": to_reader,
            "stack_at_reader": chain, "boundaries_before_reader": max(len(chain) - 2, 0), "sequence": [f"{f}:{fn}" for f, fn in calls]}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description="Count the ptclisp calls, files and file switches of one ptclisp.run.")
    ap.add_argument("--src", default="(+ 1 2)", help="the program (default: (+ 1 2))")
    ap.add_argument("--json", action="store_true", help="print one JSON object")
    ap.add_argument("--calls", action="store_true", help="also list every call (file:function)")
    args = ap.parse_args(argv)
    w = walk(args.src)
    if not args.calls:
        del w["sequence"]
    if args.json:
        print(json.dumps(w, indent=1))
        return 0
    print(f"ptclisp.run({args.src!r}) -> {w['status']}: {w['calls']} calls in {w['files']} ptclisp files, "
          f"{w['file_switches']} file switches")
    print(f"stack when the reader is entered ({w['boundaries_before_reader']} functions between ptclisp.run and "
          f"the reader): " + " -> ".join(w["stack_at_reader"]))
    for c in w.get("sequence", ()):
        print("  " + c)
    return 0


if __name__ == "__main__":
    sys.exit(main())
