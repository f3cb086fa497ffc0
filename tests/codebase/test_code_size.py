"""The size rules of the developers' guide, checked over the whole package: no module under
ptclisp/ is longer than 800 lines and no function or method is longer than 80 lines.

A long module is a sign of two concerns in one file; a long function, of steps that want names.
The failure message lists every offender, so one run shows all that needs splitting."""

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[2] / "ptclisp"
MAX_MODULE_LINES = 800
MAX_FUNCTION_LINES = 80


def _modules() -> list[Path]:
    return sorted(PACKAGE.rglob("*.py"))


def _name(path: Path) -> str:
    return path.relative_to(PACKAGE.parent).as_posix()


def _long_functions(source: str) -> list[tuple[str, int, int]]:
    """(name, first line, lines) of every function or method in `source` over the limit; a nested
    function counts on its own and as part of the function that holds it."""
    return [(node.name, node.lineno, node.end_lineno - node.lineno + 1)
            for node in ast.walk(ast.parse(source))
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))
            and node.end_lineno - node.lineno + 1 > MAX_FUNCTION_LINES]


def test_the_package_has_modules_to_check():
    names = {_name(p) for p in _modules()}
    assert "ptclisp/__init__.py" in names and "ptclisp/reader/parser.py" in names


def test_no_module_is_over_800_lines():
    long = []
    for path in _modules():
        lines = len(path.read_text(encoding="utf-8").splitlines())
        if lines > MAX_MODULE_LINES:
            long.append(f"{_name(path)} ({lines} lines)")
    assert not long, f"modules over {MAX_MODULE_LINES} lines: " + "; ".join(long)


def test_no_function_is_over_80_lines():
    long = [f"{_name(path)}:{line} {name} ({lines} lines)"
            for path in _modules()
            for name, line, lines in _long_functions(path.read_text(encoding="utf-8"))]
    assert not long, f"functions over {MAX_FUNCTION_LINES} lines: " + "; ".join(long)


def _function(header: str, lines: int, indent: str = "") -> str:
    """A function of exactly `lines` lines: the `def` line and `lines - 1` statements."""
    body = "".join(f"{indent}    x{i} = {i}\n" for i in range(lines - 1))
    return f"{indent}{header}\n{body}"


def test_the_function_check_counts_from_def_to_last_line():
    source = (_function("def at_limit():", MAX_FUNCTION_LINES)
              + "\n\nclass C:\n"
              + _function("async def over(self):", MAX_FUNCTION_LINES + 1, indent="    "))
    over_line = MAX_FUNCTION_LINES + 4   # after the first function, two blank lines and `class C:`
    assert _long_functions(source) == [("over", over_line, MAX_FUNCTION_LINES + 1)]
