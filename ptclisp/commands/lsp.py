"""`ptclisp lsp`: the language server editors start, over standard input and output.

Owns `add_lsp(sub)` (the subcommand and its flags) and `cmd_lsp(args)`, which serves
ptclisp.lsp.server when the lsp extra (pygls) is installed and says how to install it when not.
"""
from __future__ import annotations

from .common import UsageError


def add_lsp(sub) -> None:
    """Add `ptclisp lsp` to the subcommands `sub`."""
    sp = sub.add_parser("lsp", help="the language server editors start (LSP over stdio)",
                        description="Serve the Language Server Protocol on standard input and output: "
                                    "diagnostics, completion, hover, signature help, go to definition, "
                                    "symbols, folding and formatting for PTC-Lisp files, with the data, tools "
                                    "and preludes of the nearest ptclisp.toml. Needs the lsp extra (pip "
                                    "install 'ptclisp[lsp]'); docs/editors.md shows how editors start it.")
    sp.add_argument("--stdio", action="store_true", help="accepted for editors that pass it (stdio is the only "
                                                         "transport)")
    sp.add_argument("--debounce-ms", type=int, default=300, metavar="MS",
                    help="wait this long after the last change before checking a document (default 300)")
    sp.set_defaults(func=cmd_lsp)


def cmd_lsp(args) -> int:
    """Serve the language server until the editor ends the session; its exit code."""
    try:
        from ..lsp.server import serve
        import pygls  # noqa: F401 - the lsp extra
    except ImportError as exc:
        raise UsageError(f"the language server needs pygls ({exc.name} is not installed): "
                         f"pip install 'ptclisp[lsp]'") from None
    if args.debounce_ms < 0:
        raise UsageError("--debounce-ms must be 0 or more")
    return serve(debounce_ms=args.debounce_ms)
