"""What a cold start loads (issue 18 row i): `ptclisp eval EXPR` and `import ptclisp` import only what
they use. No timing is asserted: each test runs a fresh interpreter with PYTHONPROFILEIMPORTTIME=1
(the `-X importtime` report, which also works for the console script) and reads which modules it
imported, compared with a bare `python -c pass` so a site customisation cannot fail it.
"""
from __future__ import annotations

import functools
import inspect
import os
import subprocess
import sys

import pytest

import ptclisp
from ptclisp.commands import main as cli
from ptclisp import lib
from ptclisp.registry import builtins as R

# never for a plain evaluation: the parser generator, schemas, HTTP, the terminal UI, the MCP SDK,
# and the agent / trace / project / viewer packages
HEAVY = ("lark", "jsonschema", "httpx", "prompt_toolkit", "pygments", "mcp", "asyncio", "ptclisp.agent",
         "ptclisp.trace", "ptclisp.project", "ptclisp.view", "ptclisp.providers", "ptclisp.mcp.client",
         "ptclisp.commands.mcp", "ptclisp.bench_agent", "ptclisp.tooling", "ptclisp.prelude")
# loaded only when used: a regex (or non-ASCII text), a logged record, a process-isolated run,
# argument flags, the grammar as a resource
ON_USE = ("regex", "logging", "traceback", "argparse", "importlib.resources", "hashlib", "ptclisp.isolation.process",
          "ptclisp.commands.operate", "ptclisp.interchange.json_out", "ptclisp.mcp.client_specs")


def _imported(cmd: list[str]) -> tuple[subprocess.CompletedProcess, set[str]]:
    env = dict(os.environ, PYTHONPROFILEIMPORTTIME="1")
    out = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=120, stdin=subprocess.DEVNULL)
    names = {line.rpartition("|")[2].strip() for line in out.stderr.splitlines()
             if line.startswith("import time:") and "self [us]" not in line}
    return out, names


@functools.cache
def _baseline() -> frozenset:
    return frozenset(_imported([sys.executable, "-c", "pass"])[1])


def _loaded(names: set[str], prefixes) -> list[str]:
    return sorted(n for n in names - _baseline() for p in prefixes if n == p or n.startswith(p + "."))


def _console_script() -> str | None:
    path = os.path.join(os.path.dirname(sys.executable), "ptclisp")
    return path if os.path.exists(path) else None


@pytest.mark.parametrize("how", ["-m", "script"])
def test_eval_imports_nothing_it_does_not_use(how):
    if how == "script" and _console_script() is None:
        pytest.skip("no ptclisp console script next to this interpreter")
    head = [sys.executable, "-m", "ptclisp"] if how == "-m" else [_console_script()]
    out, names = _imported(head + ["eval", "(+ 1 2)"])
    assert out.returncode == 0 and out.stdout == "3\n", out.stderr[-2000:]
    assert "ptclisp.lib.numbers" in names                  # the check sees what was imported
    assert _loaded(names, HEAVY + ON_USE) == []


def test_eval_with_flags_parses_them_without_the_other_commands_modules():
    out, names = _imported([sys.executable, "-m", "ptclisp", "eval", "--json", "--timeout-ms", "2000",
                            '(str/join "," [1 2])'])
    assert out.returncode == 0 and '"value": "1,2"' in out.stdout, out.stderr[-2000:]
    assert {"argparse", "ptclisp.interchange.json_out"} <= names
    assert _loaded(names, HEAVY + ("regex", "logging", "ptclisp.isolation.process")) == []


def test_import_ptclisp_is_light():
    out, names = _imported([sys.executable, "-c", "import ptclisp"])
    assert out.returncode == 0, out.stderr[-2000:]
    assert "ptclisp.session" in names
    assert _loaded(names, HEAVY + ON_USE + ("ptclisp.commands.main", "ptclisp.repl", "ptclisp.lib.numbers")) == []


def test_a_first_run_in_process_loads_only_what_it_uses():
    out, names = _imported([sys.executable, "-c", "import ptclisp; print(ptclisp.run('(+ 1 2)').value)"])
    assert out.stdout == "3\n", out.stderr[-2000:]
    assert _loaded(names, HEAVY + ON_USE + ("ptclisp.commands.main", "ptclisp.repl")) == []


def test_what_is_loaded_on_use_still_works_when_first_needed():
    code = ("import sys, ptclisp\n"
            "print(ptclisp.run('(re-pattern \"(\")').error.kind, 'regex' in sys.modules)\n"
            "print(ptclisp.run('(count \"h\u00e9llo\")').value)\n"
            "print(ptclisp.run('(re-find #\"b+\" \"abbc\")').value)\n"
            "r = ptclisp.run('(re-seq #\"(\" \"x\")')\n"
            "print(r.error.kind, r.error.span.line, r.error.span.col)\n"
            "print(ptclisp.run('(+ 1 2)', isolation='process').value)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.stdout.split("\n")[:5] == ["runtime_error True", "5", "bb", "invalid_form 1 9", "3"], out.stderr


def test_a_record_logged_before_logging_was_imported_reaches_no_stream():
    code = ("import sys, ptclisp\n"
            "assert 'logging' not in sys.modules\n"
            "from ptclisp.errors import logger\n"
            "logger('ptclisp.trace').error('not for the host')\n"
            "import logging\n"
            "print([type(h).__name__ for h in logging.getLogger('ptclisp').handlers])\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert (out.stdout, out.stderr) == ("['NullHandler']\n", "")


@pytest.mark.parametrize("expr", ["(+ 1 2)", "", "x y", "@", " (+ 1 2)", "(str \"--json\")"])
def test_a_bare_eval_gets_the_namespace_argparse_gives(expr):
    parsed = vars(cli.build_parser("eval").parse_args(["eval", expr]))
    parsed.pop("_parser")
    assert vars(cli._bare_eval(["eval", expr])) == parsed


@pytest.mark.parametrize("raw", [["eval"], ["eval", "-1"], ["eval", "--json", "1"], ["eval", "1", "--json"],
                                 ["run", "x.clj"], ["eval", "-h"], []])
def test_anything_but_a_bare_eval_goes_through_argparse(raw):
    assert cli._bare_eval(raw) is None


def test_the_parser_of_one_command_is_the_full_parsers_subcommand():
    full = cli.build_parser()
    for name in cli._COMMANDS:
        one = cli.build_parser(name)
        (sub,) = [a for a in one._actions if a.dest == "command"]
        (full_sub,) = [a for a in full._actions if a.dest == "command"]
        assert list(sub.choices) == [name]
        assert sub.choices[name].format_help() == full_sub.choices[name].format_help()


def _pos_only(a, b, /, c=1):
    pass


def _kw_only(a, *, b, c=2):
    pass


def _var(a, b=1, *rest, k=0, **kw):
    pass


def _wrapped(a, b):
    pass


@functools.wraps(_wrapped)
def _wrapper(*args):
    return _wrapped(*args)


class _Callable:
    def __call__(self, a, b=2):
        pass


def _signed(*args):
    pass


_signed.__signature__ = inspect.signature(_pos_only)


@pytest.mark.parametrize("fn", [_pos_only, _kw_only, _var, _wrapper, _Callable(), _signed, len, divmod,
                                functools.partial(_var, 1), lambda: None, lambda *a: None])
def test_arity_read_from_the_code_is_what_the_signature_says(fn):
    assert R._arity(fn) == R._signature_arity(fn)


def test_every_registered_builtin_has_the_arity_of_its_signature():
    lib.load()
    for spec in R.every_builtin():
        assert R._arity(spec.fn) == R._signature_arity(spec.fn), spec.name


def test_the_grammar_read_from_the_file_is_the_packaged_resource():
    from importlib import resources

    from ptclisp.reader import parser as reader
    packaged = resources.files("ptclisp.grammar").joinpath("ptclisp.lark").read_text(encoding="utf-8")
    assert reader._grammar_text() == packaged
    assert ptclisp.run("(count [1 2 3])").value == 3


@pytest.mark.parametrize("pattern, flags", [(r"[A-Za-z][A-Za-z0-9_?!\-]*", 0), (r"(a+)(b)?", 0),
                                            (r"\r\n|\n|\r", 0), (r"[\U00010000-\U0010FFFF]", 0), (r"x", 2)])
@pytest.mark.parametrize("text", ["", "abc", "aab\r\nb", "x\U0001F600y", "Xx", "  -ab! "])
def test_a_lazy_pattern_answers_as_the_compiled_one(pattern, flags, text):
    import re

    from ptclisp.lib.arguments import LazyPattern
    lazy, compiled = LazyPattern(pattern, flags), re.compile(pattern, flags)
    for _ in range(2):  # the first use compiles, the second uses what it kept
        for method in ("match", "fullmatch", "search"):
            a, b = getattr(lazy, method)(text), getattr(compiled, method)(text)
            assert (a and (a.span(), a.groups())) == (b and (b.span(), b.groups()))
        assert lazy.findall(text) == compiled.findall(text)
        assert lazy.split(text) == compiled.split(text)
        assert lazy.sub("-", text) == compiled.sub("-", text)
        assert (lazy.pattern, lazy.flags, lazy.groups) == (compiled.pattern, compiled.flags, compiled.groups)
    with pytest.raises(AttributeError):
        lazy.__deepcopy__


def test_only_the_process_entry_point_freezes_the_collector_before_exit():
    code = ("import gc, sys\n"
            "from ptclisp.commands import main as cli\n"
            "print(cli.main(['eval', '(+ 1 2)']), gc.get_freeze_count())\n"   # a host calling main: untouched
            "sys.argv = ['ptclisp', 'eval', '(fail :x)']\n"
            "print(cli.entry(), gc.get_freeze_count() > 0)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.stdout.split() == ["3", "0", "0", "1", "True"], (out.stdout, out.stderr)
    assert out.stderr == "fail: :x\n"
