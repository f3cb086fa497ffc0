"""How long does the language server take for one diagnostics pass on a 2,000-line file?

The pass is what `ptclisp lsp` runs after an edit (ptclisp/lsp/diagnostics.py `diagnose`): read
the text, analyze each top-level form, check the file's own functions' arity and the data/ names.
The file is generated: helpers with `defn`, `let` and destructuring, threading over data/orders,
`for` comprehensions, maps, a few deliberate mistakes (an unbound name, a wrong arity) so the
retry path is measured too. It is checked inside a project (a ptclisp.toml naming data/orders,
built in a temporary directory) and outside any project.

Per case: the first pass in a fresh process (what opening the file costs: the reader and analyzer
warm up, the project is read) and the median of the following passes (each edit), as wall time and
as this process's CPU time (on a machine shared with other jobs the wall time includes waiting for a
core; the CPU time does not).
Also, with --server, the time from a didChange to its publishDiagnostics through a real
`ptclisp lsp` process (debounce 0), the editor's view, and of a completion request at the end of
the file while a form there is half-typed.

    .venv/bin/python benchmarks/lsp_diagnostics.py [--lines 2000] [--reps 5] [--server]

The target (issue #31) is under 200 ms per pass on the development machine.
"""
from __future__ import annotations

import argparse
import json
import os
import pathlib
import statistics
import sys
import tempfile
import time

_HELPER = """\
(defn total-{i} [orders]
  "The paid total of orders in batch {i}."
  (let [paid (filter #(= "paid" (:status %)) orders)
        amounts (map :amount paid)]
    (reduce + 0 amounts)))

(defn by-region-{i} [orders]
  (->> orders
       (group-by :region)
       (map (fn [[region rows]] {{:region region :total (total-{i} rows) :n (count rows)}}))
       (sort-by :total >)
       (vec)))

(defn summary-{i} [{{:keys [region total n] :as row}}]
  (when (pos? n)
    (str region ": " (format "%.2f" (double total)) " over " n " orders")))

(def report-{i}
  (for [row (by-region-{i} data/orders)
        :let [line (summary-{i} row)]
        :when line]
    (assoc row :line line :rank (inc (count line)))))

"""
_MISTAKES = """\
(defn broken [xs]
  (map inc xs undefined-name))
(total-0 data/orders 1)
"""


def program(lines: int) -> str:
    """A program of about `lines` lines."""
    parts = []
    n = 0
    i = 0
    per = _HELPER.count("\n")
    while n + per <= lines - _MISTAKES.count("\n"):
        parts.append(_HELPER.format(i=i))
        n += per
        i += 1
    parts.append(_MISTAKES)
    return "".join(parts)


def make_project(root: pathlib.Path) -> pathlib.Path:
    (root / "data").mkdir(parents=True, exist_ok=True)
    orders = [{"id": k, "region": ["north", "south", "east"][k % 3], "status": "paid" if k % 4 else "open",
               "amount": 10.5 + k} for k in range(200)]
    (root / "data" / "orders.json").write_text(json.dumps(orders))
    (root / "ptclisp.toml").write_text(
        '[project]\nname = "bench"\nversion = "0.1.0"\n\n[models.main]\nprovider = "scripted"\n'
        'model = "models/main.script.json"\n\n[missions.default]\ndata = { orders = "data/orders.json" }\n\n'
        '[entry]\ntask = "Summarize the orders."\n')
    return root / "report.clj"


def _passes(text: str, path: str | None, reps: int) -> tuple[float, float, float, int]:
    """(first pass, median wall time, median CPU time of this process, diagnostics), in ms."""
    from ptclisp.lsp.context import context_for
    from ptclisp.lsp.diagnostics import diagnose
    t0 = time.perf_counter()
    found = diagnose(text, context_for(path))
    first = time.perf_counter() - t0
    times, cpu = [], []
    for _ in range(reps):
        t0, c0 = time.perf_counter(), time.process_time()
        diagnose(text, context_for(path))
        times.append(time.perf_counter() - t0)
        cpu.append(time.process_time() - c0)
    return first * 1000, statistics.median(times) * 1000, statistics.median(cpu) * 1000, len(found)


def _server(text: str, path: pathlib.Path, reps: int) -> tuple[float, float]:
    sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1] / "tests"))
    from lsp_client import Client
    c = Client(str(path.parent), debounce_ms=0)
    try:
        uri = c.open(path, text)
        c.wait_diagnostics(uri)
        times = []
        for k in range(reps):
            t0 = time.perf_counter()
            c.change(uri, text + f"\n;; edit {k}\n")
            c.wait_diagnostics(uri)
            times.append(time.perf_counter() - t0)
        typing = text + "(let [abc 1]\n  (ma"
        c.change(uri, typing)
        line = typing.count("\n")
        completions = []
        for _ in range(reps):
            t0 = time.perf_counter()
            c.completion(uri, line, 5)
            completions.append(time.perf_counter() - t0)
        c.shutdown_and_exit()
    finally:
        c.kill()
    return statistics.median(times) * 1000, statistics.median(completions) * 1000


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--lines", type=int, default=2000)
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--server", action="store_true", help="also time didChange -> publishDiagnostics")
    args = ap.parse_args(argv)
    text = program(args.lines)
    with tempfile.TemporaryDirectory() as tmp:
        path = make_project(pathlib.Path(tmp) / "proj")
        path.write_text(text)
        outside = pathlib.Path(tmp) / "loose" / "report.clj"
        outside.parent.mkdir()
        outside.write_text(text)
        print(f"{text.count(chr(10))} lines, {len(text)} characters")
        for label, p in (("in a project", path), ("outside a project", outside)):
            first, median, cpu, n = _passes(text, str(p), args.reps)
            print(f"{label:<18} first pass {first:7.1f} ms   next passes (median of {args.reps}) {median:7.1f} ms"
                  f" wall, {cpu:7.1f} ms CPU   {n} diagnostics")
        if args.server:
            ms, completion = _server(text, path, args.reps)
            print(f"through the server: didChange -> publishDiagnostics median {ms:.1f} ms; completion at the "
                  f"end of the file (which does not read) median {completion:.1f} ms")
    return 0


if __name__ == "__main__":
    os.environ.setdefault("PYTHONHASHSEED", "0")
    sys.exit(main())
