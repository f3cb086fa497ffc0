"""The `ptclisp` command: run, eval (and more subcommands as they land).

Exit codes: 0 value or `return`; 1 `fail`; 2 error (including bad usage).
"""
from __future__ import annotations

import argparse
import json
import sys

from . import api
from .convert import to_python
from .meter import Limits
from .printer import preview


def _load_data(path: str | None):
    if not path:
        return None
    try:
        with open(path, encoding="utf-8") as fh:
            data = json.load(fh)
    except (OSError, ValueError) as exc:
        raise SystemExit(_usage_error(f"cannot read --data {path}: {exc}"))
    if not isinstance(data, dict):
        raise SystemExit(_usage_error("--data must hold a JSON object (its keys become data/<name>)"))
    return data


def _usage_error(msg: str) -> int:
    print(f"ptclisp: {msg}", file=sys.stderr)
    return 2


def _report(result, as_json: bool, source_name: str = "") -> int:
    if as_json:
        rec = {"status": result.status, "prints": result.prints, "duration_ms": round(result.duration_ms, 3)}
        if result.error is not None:
            e = result.error
            rec["error"] = {"kind": e.kind, "message": e.message,
                            "line": e.span.line if e.span else None, "column": e.span.col if e.span else None}
        else:
            try:
                json.dumps(to_python(result.value))
                rec["value"] = to_python(result.value)
            except (TypeError, ValueError):
                rec["value"] = api.pr_str(result.value)
        print(json.dumps(rec, ensure_ascii=False))
    else:
        for line in result.prints:
            print(line)
        if result.status == "error":
            e = result.error
            where = f"{source_name}:{e.span.line}:{e.span.col}: " if e.span else (f"{source_name}: " if source_name else "")
            print(f"{where}Error ({e.kind}): {e.message}", file=sys.stderr)
        elif result.status == "failed":
            print(f"fail: {preview(result.value)}", file=sys.stderr)
        else:
            print(api.pr_str(result.value) if result.value is not None or result.status == "ok" else "nil")
    return {"ok": 0, "returned": 0, "failed": 1}.get(result.status, 2)


def cmd_run(args) -> int:
    try:
        with open(args.file, encoding="utf-8") as fh:
            source = fh.read()
    except OSError as exc:
        return _usage_error(f"cannot read {args.file}: {exc.strerror}")
    limits = Limits(timeout_ms=args.timeout_ms)
    result = api.run(source, context=_load_data(args.data), limits=limits, preludes=args.prelude or None)
    return _report(result, args.json, args.file)


def cmd_eval(args) -> int:
    limits = Limits(timeout_ms=args.timeout_ms)
    result = api.run(args.expr, context=_load_data(args.data), limits=limits, preludes=args.prelude or None)
    return _report(result, args.json, "<eval>")


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="ptclisp", description="PTC-Lisp: run, evaluate and explore programs.")
    sub = p.add_subparsers(dest="command", metavar="COMMAND")

    def common(sp):
        sp.add_argument("--data", metavar="FILE.json", help="JSON object whose keys become data/<name>")
        sp.add_argument("--prelude", metavar="FILE", action="append", help="attach a prelude (repeatable)")
        sp.add_argument("--json", action="store_true", help="print the result record as JSON")
        sp.add_argument("--timeout-ms", type=int, default=5000, help="wall-clock limit (default 5000)")

    r = sub.add_parser("run", help="run a .clj program", description="Run a PTC-Lisp program file.")
    r.add_argument("file", help="program file (.clj)")
    common(r)
    r.set_defaults(func=cmd_run)
    e = sub.add_parser("eval", help="evaluate one expression", description="Evaluate a PTC-Lisp expression.")
    e.add_argument("expr", help="the program text")
    common(e)
    e.set_defaults(func=cmd_eval)
    return p


def main(argv=None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        parser.print_help()
        return 2
    try:
        return args.func(args)
    except SystemExit as exc:
        return exc.code if isinstance(exc.code, int) else 2
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
