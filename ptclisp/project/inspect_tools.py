"""A project's Python tools inspected without running them (`ptclisp validate`).

`static_capability(project, name)` finds the module of `[tools.NAME] python =
"module:attr"` (in the project directory first, else on the import path, found
with `importlib.machinery.PathFinder`, which executes nothing), parses its
source with `ast` and looks the attribute up among the module's top-level
bindings. A function gives its parameters and the argument schema its simple
annotations describe (the rules of `ptclisp.host.calling`, read from the source
text instead of live type objects); a constant (a string, a number, a list ...)
is refused as not callable; anything else (a `Tool(...)` call, an import) is
taken as it is, since only running it could tell more. The capability's
function refuses to run: validation never calls a tool. `ptclisp doctor` and
the commands that run the project import the module instead.
"""
from __future__ import annotations

import ast
import os

MAX_SOURCE_BYTES = 4_000_000

# annotation text -> JSON Schema (the simple spellings; anything else: no constraint)
_SCALARS = {"int": "integer", "float": "number", "str": "string", "bool": "boolean", "None": "null"}
_ARRAYS = ("list", "tuple", "set", "frozenset", "List", "Tuple", "Set", "Sequence", "typing.List")
_MAPPINGS = ("dict", "Dict", "Mapping", "MutableMapping", "typing.Dict", "typing.Mapping")
_CONSTANTS = (ast.Constant, ast.List, ast.Dict, ast.Tuple, ast.Set, ast.JoinedStr, ast.ListComp, ast.DictComp,
              ast.SetComp)


class ToolProblems(Exception):
    """What is wrong with a tool's source, as the project's problems (load.py raises them as a ProjectError)."""

    def __init__(self, problems: list):
        super().__init__(problems[0])
        self.problems = problems


def static_capability(project, name: str):
    """The Capability of [tools.NAME] from the module's source; raises ToolProblems for what is wrong."""
    from ..agent import Capability
    spec = project.tools[name]
    ref = spec["python"]
    ptr = f"/tools/{name}/python"
    mod_name, _, attr = ref.partition(":")

    def problem(message: str):
        return ToolProblems([project.problem(ptr, f"{ref}: {message}", "tool_unresolved")])

    path = _module_file(project.root, mod_name)
    if path is None:
        raise problem(f"no module named {mod_name!r} (in the project directory or installed)")
    description, schema = "", None
    if path.endswith(".py"):
        tree = _parse(path, problem)
        binding = _binding(tree, attr.split(".")[0])
        if binding is None:
            raise problem(f"{mod_name} has no attribute {attr!r}")
        if "." not in attr:
            if isinstance(binding, _CONSTANTS):
                raise ToolProblems([project.problem(ptr, f"{ref} is a {_kind(binding)}, not a function or "
                                                         f"ptclisp.Tool", "tool_unresolved")])
            if isinstance(binding, (ast.FunctionDef, ast.AsyncFunctionDef)):
                doc = (ast.get_docstring(binding) or "").strip()
                description = doc.splitlines()[0] if doc else ""
                schema = _schema(binding.args)
    cap = Capability(name, _not_run(name), description=description, input_schema=schema)
    if "description" in spec:
        cap.description = spec["description"]
    if "effect" in spec:
        cap.effect = spec["effect"]
    return cap


def _not_run(name: str):
    def refuse(args):
        raise RuntimeError(f"tool/{name} was inspected, not imported: validation never runs a tool")
    return refuse


def _module_file(root: str, mod_name: str) -> str | None:
    """The file of module `mod_name`: in the project directory, else on sys.path (nothing is imported)."""
    rel = mod_name.replace(".", os.sep)
    for candidate in (os.path.join(root, rel + ".py"), os.path.join(root, rel, "__init__.py")):
        if os.path.isfile(candidate):
            return candidate
    import sys
    from importlib.machinery import PathFinder
    if mod_name in sys.builtin_module_names:
        return "<built-in>"
    locations, spec = None, None
    parts = mod_name.split(".")
    for i in range(len(parts)):
        try:
            spec = PathFinder.find_spec(".".join(parts[:i + 1]), locations)
        except (ImportError, ValueError):
            return None
        if spec is None:
            return None
        locations = spec.submodule_search_locations
        if i < len(parts) - 1 and locations is None:
            return None
    return spec.origin if spec is not None and spec.origin else "<namespace>"


def _parse(path: str, problem):
    import stat
    try:
        st = os.stat(path)
        if not stat.S_ISREG(st.st_mode):
            raise problem(f"{path} is not a regular file")
        if st.st_size > MAX_SOURCE_BYTES:
            raise problem(f"{path} is larger than {MAX_SOURCE_BYTES} bytes")
        with open(path, "rb") as fh:
            source = fh.read(MAX_SOURCE_BYTES + 1)
        return ast.parse(source, filename=path)
    except SyntaxError as e:
        raise problem(f"{os.path.basename(path)} does not parse: {e.msg} (line {e.lineno})") from None
    except (OSError, ValueError, RecursionError, MemoryError) as e:
        raise problem(f"cannot read {path}: {getattr(e, 'strerror', None) or e}") from None


def _binding(tree, name: str):
    """The last top-level statement of `tree` that binds `name` (descending into if/try blocks): a
    def or class node, the assigned value's node, or the import node."""
    found = None
    for node in _statements(tree.body):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and node.name == name:
            found = node
        elif isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == name for t in node.targets):
            found = node.value
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name) and node.target.id == name:
            found = node.value if node.value is not None else found
        elif isinstance(node, (ast.Import, ast.ImportFrom)) and \
                any((a.asname or a.name.split(".")[0]) == name or a.name == "*" for a in node.names):
            found = node
    return found


def _statements(body):
    for node in body:
        yield node
        if isinstance(node, ast.If):
            yield from _statements(node.body)
            yield from _statements(node.orelse)
        elif isinstance(node, ast.Try):
            for block in (node.body, node.orelse, node.finalbody, *(h.body for h in node.handlers)):
                yield from _statements(block)


def _kind(node) -> str:
    if isinstance(node, ast.Constant):
        return type(node.value).__name__
    return {ast.List: "list", ast.ListComp: "list", ast.Dict: "dict", ast.DictComp: "dict", ast.Tuple: "tuple",
            ast.Set: "set", ast.SetComp: "set", ast.JoinedStr: "str"}.get(type(node), "value")


def _schema(args: ast.arguments):
    """The input schema of a function's parameters, by the rules of `ptclisp.host.calling` (None: the
    function takes the argument map itself, or cannot be called with keywords alone)."""
    params = [*args.posonlyargs, *args.args, *args.kwonlyargs]
    if len(params) == 1 and args.kwarg is None and not args.kwonlyargs and args.vararg is None:
        ann = params[0].annotation
        # unannotated, a mapping, or a class of its own (a TypedDict): the function takes the map itself
        if ann is None or _annotation_schema(ann).get("type") in (None, "object"):
            return None
    if args.posonlyargs or args.vararg is not None:
        return None
    n_pos_defaults = len(args.defaults)
    positional = [*args.args]
    has_default = {p.arg for p in positional[len(positional) - n_pos_defaults:]} if n_pos_defaults else set()
    has_default |= {p.arg for p, d in zip(args.kwonlyargs, args.kw_defaults) if d is not None}
    props = {p.arg: _annotation_schema(p.annotation) for p in params}
    schema = {"type": "object", "properties": props, "additionalProperties": args.kwarg is not None}
    required = [p.arg for p in params if p.arg not in has_default]
    if required:
        schema["required"] = required
    return schema


def _annotation_text(node) -> str:
    try:
        text = ast.unparse(node)
    except Exception:  # noqa: BLE001 - an odd annotation says nothing
        return ""
    return text.strip("'\"")


def _annotation_schema(node) -> dict:
    if node is None:
        return {}
    text = _annotation_text(node).replace(" ", "")
    optional = False
    if text.startswith("Optional[") and text.endswith("]"):
        text, optional = text[len("Optional["):-1], True
    parts = text.split("|")
    if len(parts) == 2 and "None" in parts:
        text, optional = parts[0] if parts[1] == "None" else parts[1], True
    base = text.split("[")[0]
    if base in _SCALARS:
        out = {"type": _SCALARS[base]}
    elif base in _ARRAYS:
        out = {"type": "array"}
    elif base in _MAPPINGS:
        out = {"type": "object"}
    else:
        return {}
    if optional and isinstance(out.get("type"), str):
        out["type"] = [out["type"], "null"]
    return out
