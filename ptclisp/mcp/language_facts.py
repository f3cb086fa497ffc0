"""What the MCP server tells clients about the language: its builtins, special forms, printed sizes, carets.

Everything else in `ptclisp.commands.mcp` uses the public API (`ptclisp.run`,
`ptclisp.Session`, `ptclisp.Limits`, `ptclisp.interchange.json_out`, ...). These reads
have no public name (they read the registry and the analyzer), so they are gathered here:

* `builtins()`: (name, signatures, doc, category) of every builtin in the
  registry, plus the admitted Java members;
* `special_forms()`: the names of the special forms the analyzer knows;
* `prelude_component(path)`: a prelude file read once, as the Component a
  Session attaches;
* `printed_size(value, cap)`: about how many bytes the printed form of a
  value takes, counting stops past `cap`;
* `caret_lines(source, span)`: the source line an error points at, with
  carets under it;
* `STACK_LOCK`: the lock held while a thread starts with a chosen stack size.
"""
from __future__ import annotations



def builtins() -> list[tuple[str, tuple[str, ...], str, str]]:
    """(name, signatures, doc, category) of each builtin (qualified-only ones as `ns/name`) and Java member."""
    from .. import lib
    from ..registry.builtins import BUILTINS, QUALIFIED, QUALIFIERS as qualifiers
    lib.load()   # fill the registry (importing ptclisp loads no builtin family)
    out = [(name, tuple(spec.signatures), spec.doc or "", spec.category or "core")
           for name, spec in BUILTINS.items()]
    for (group, name), spec in QUALIFIED.items():
        if not spec.plain:
            ns = next((k for k, g in qualifiers.items() if g == group and "." not in k), group)
            out.append((f"{ns}/{name}", tuple(spec.signatures), spec.doc or "", spec.category or "core"))
    from ..registry import java as J
    for m in J.all_members():
        out.append((m.spelling, (m.signature,) if m.signature else (), m.doc or "", "java"))
    return out


def special_forms() -> list[str]:
    """The sorted names of the special forms (let, fn, if, ->>, ...)."""
    from ..analyzer import SPECIALS
    return sorted(name for name in SPECIALS if not name.endswith("#"))   # (`#` names are internal)


def prelude_component(path: str):
    """The prelude file at `path`, read now (raises a PtcError when it cannot be read)."""
    from ..prelude import Component
    return Component.file(path)


def printed_size(value, cap: int) -> int:
    """About how many bytes the printed form of `value` takes; stops counting once past `cap`."""
    from ..runtime.guards import result_bytes
    return result_bytes(value, cap)


def _stack_lock():
    from ..parallel import _STACK_LOCK
    return _STACK_LOCK


#: Held while a thread is started with a non-default stack size (`threading.stack_size` is process-wide);
#: the same lock the parallel workers take, so neither resets the size under the other.
STACK_LOCK = _stack_lock()


def caret_lines(source: str, span) -> list[str]:
    """The line of `source` that `span` points into and a line of carets under it (empty if out of range)."""
    from ..repl.headless import caret_lines as lines
    return [text for _, text in lines(source, span)]
