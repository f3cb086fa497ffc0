"""What a file can see: builtins only, or the mission of the nearest agent project above it.

`context_for(path, text)` finds the nearest `ptclisp.toml` in the file's directory or above it.
Outside a project a program sees the builtins (and a prelude file is checked on its own). In a
project the file belongs to one mission: the mission whose preludes list the file, else the entry's
mission (or the first); the entry's workflow file sees the shipped agent library and the entry's
preludes. The mission gives:

* data names: the keys of its `data` table, with each file's shape (`type_of_data`, the keys and
  types the agent prompt shows), read from the JSON files it names;
* tool names: its Python `tools` (description and signature read from the module's source with
  `ast`, never imported: the language server runs no project code), and `SERVER.NAME` for every
  MCP server it grants. No MCP server is started and projects keep no cached tool lists today, so
  for a granted server any tool name passes; only the server part is checked;
* preludes: compiled (never run) with `check_preludes`, their exports visible to programs.

Reading is cached per project and mission and redone when ptclisp.toml or a file it names
changes. A ptclisp.toml that does not parse or validate gives a context with `problem` set (one
diagnostic on the file) and builtins only. Imports the project loader (parse only), the prelude
compiler of ptclisp.tooling.check, the agent library's sources and `ptclisp.agent.context`.
"""
from __future__ import annotations

import ast
import json
import os
from importlib import resources

import attrs

from ..project.load import PROJECT_FILE, Project, parse


@attrs.define
class DataInfo:
    name: str
    path: str
    shape: dict | None = None     # the type node of the value (agent.context.type_of_data)
    error: str | None = None


@attrs.define
class ToolInfo:
    name: str
    kind: str                     # "python" | "mcp"
    description: str | None = None
    signature: str | None = None  # "customer(customer_id: str) -> dict"
    path: str | None = None       # where it is defined (the module, or ptclisp.toml)
    line: int = 0                 # 0-based


class McpTools:
    """The analyzer's view of granted tool names: the Python tools by name, and any `SERVER.NAME`
    of a granted MCP server (their lists are not known without starting the servers)."""

    def __init__(self, names, servers):
        self.names = set(names)
        self.servers = set(servers)
        self.private = ()

    def __contains__(self, name) -> bool:
        return name in self.names or (isinstance(name, str) and name.split(".", 1)[0] in self.servers
                                      and "." in name)

    def __iter__(self):
        return iter(sorted(self.names | {f"{s}.*" for s in self.servers}))


@attrs.define
class Context:
    root: str | None = None                  # the project directory (None: outside any project)
    mission: str | None = None
    role: str = "program"                    # "program" | "prelude" (of the mission) | "workflow"
    problem: str | None = None               # ptclisp.toml does not parse or validate
    data: dict | None = None                 # name -> DataInfo (None: not checked)
    strict_data: bool = False
    tools: dict | None = None                # name -> ToolInfo (None: any tool name passes)
    mcp_servers: tuple = ()                  # granted MCP servers
    prelude_paths: tuple = ()                # the mission's (or workflow's) prelude files
    prelude_texts: dict = attrs.Factory(dict)  # path -> text (an open document's unsaved text)
    compiled: dict = attrs.Factory(dict)     # namespace -> CompiledNamespace
    stamp: tuple = ()

    def tool_names(self):
        if self.tools is None:
            return None
        return McpTools(self.tools, self.mcp_servers)


BUILTINS_ONLY = Context()

_CACHE: dict = {}     # (root, mission, role) -> Context
_PARSED: dict = {}    # root -> (stamp of ptclisp.toml, document, problems)


def find_root(path: str | None) -> str | None:
    """The nearest directory holding ptclisp.toml at or above `path`'s directory."""
    if not path:
        return None
    d = os.path.dirname(os.path.abspath(path))
    while True:
        if os.path.isfile(os.path.join(d, PROJECT_FILE)):
            return d
        parent = os.path.dirname(d)
        if parent == d:
            return None
        d = parent


def _stamp(paths) -> tuple:
    out = []
    for p in paths:
        try:
            st = os.stat(p)
            out.append((p, st.st_mtime_ns, st.st_size))
        except OSError:
            out.append((p, None, None))
    return tuple(out)


def context_for(path: str | None, overlay: dict | None = None) -> Context:
    """The Context of the file at `path` (`overlay`: path -> text of open, unsaved documents)."""
    root = find_root(path)
    if root is None:
        return BUILTINS_ONLY
    toml = os.path.join(root, PROJECT_FILE)
    toml_stamp = _stamp([toml])
    parsed = _PARSED.get(root)
    if parsed is None or parsed[0] != toml_stamp:
        parsed = (toml_stamp, *parse(root))
        _PARSED[root] = parsed
    _, doc, problems = parsed
    if problems:
        first = problems[0]
        more = f" (and {len(problems) - 1} more: run ptclisp validate)" if len(problems) > 1 else ""
        return Context(root=root, problem=f"{PROJECT_FILE}: {first.pointer or '/'}: {first.message}{more}")
    project = Project(root, doc)
    mission, role = _mission_of(project, os.path.abspath(path))
    files = _named_files(project, mission, role)
    overlay = overlay or {}
    key = (root, mission, role)
    unsaved = tuple(hash(overlay[p]) for p in map(os.path.abspath, files) if p in overlay)
    stamp = (toml_stamp, _stamp(files), unsaved)
    cached = _CACHE.get(key)
    if cached is not None and cached.stamp == stamp:
        return cached
    ctx = _build(project, mission, role, stamp, overlay)
    _CACHE[key] = ctx
    return ctx


def _mission_of(project: Project, path: str) -> tuple[str | None, str]:
    workflow = project.entry.get("workflow")
    if isinstance(workflow, str) and os.path.abspath(project.path(workflow)) == path:
        return None, "workflow"
    for name, spec in project.missions.items():
        for rel in (spec or {}).get("preludes") or ():
            if os.path.abspath(project.path(rel)) == path:
                return name, "prelude"
    return project.default_mission(), "program"


def _named_files(project: Project, mission: str | None, role: str) -> list[str]:
    if role == "workflow":
        return [project.path(r) for r in project.entry.get("preludes") or ()]
    spec = project.missions.get(mission) or {}
    out = [project.path(r) for r in (spec.get("data") or {}).values()]
    out += [project.path(r) for r in spec.get("preludes") or ()]
    for t in spec.get("tools") or ():
        module = _tool_module(project, t)
        if module:
            out.append(module)
    return out


def _build(project: Project, mission: str | None, role: str, stamp: tuple, overlay: dict) -> Context:
    if role == "workflow":
        rels = project.entry.get("preludes") or ()
        paths = tuple(os.path.abspath(project.path(r)) for r in rels)
        texts = _texts(paths, overlay)
        return Context(root=project.root, role=role, prelude_paths=paths, prelude_texts=texts, stamp=stamp,
                       compiled=_compile(texts, library=True))
    spec = project.missions.get(mission) or {}
    data = {}
    for name, rel in (spec.get("data") or {}).items():
        data[name] = _data_info(name, project.path(rel))
    tools = {t: _python_tool(project, t) for t in spec.get("tools") or () if isinstance(t, str)}
    servers = tuple(s for s in spec.get("mcp") or () if isinstance(s, str))
    paths = tuple(os.path.abspath(project.path(r)) for r in spec.get("preludes") or ())
    texts = _texts(paths, overlay)
    return Context(root=project.root, mission=mission, role=role, data=data,
                   strict_data=spec.get("strict_data", True), tools=tools, mcp_servers=servers,
                   prelude_paths=paths, prelude_texts=texts, stamp=stamp, compiled=_compile(texts))


def _data_info(name: str, path: str) -> DataInfo:
    from ..agent.context import type_of_data
    try:
        with open(path, encoding="utf-8") as fh:
            value = json.load(fh)
    except OSError as e:
        return DataInfo(name, path, error=f"cannot read {path}: {e.strerror or e}")
    except (ValueError, UnicodeDecodeError, RecursionError) as e:
        return DataInfo(name, path, error=f"{path}: not valid JSON: {e}")
    return DataInfo(name, path, shape=type_of_data(value))


def _tool_module(project: Project, name: str) -> str | None:
    spec = project.tools.get(name) or {}
    ref = spec.get("python")
    if not isinstance(ref, str):
        return None
    mod = ref.partition(":")[0].replace(".", os.sep)
    for candidate in (os.path.join(project.root, mod + ".py"), os.path.join(project.root, mod, "__init__.py")):
        if os.path.isfile(candidate):
            return candidate
    return None


def _python_tool(project: Project, name: str) -> ToolInfo:
    """What the project says of a Python tool, and its signature and docstring read from the source."""
    spec = project.tools.get(name) or {}
    info = ToolInfo(name, "python", description=spec.get("description"), path=project.file)
    module = _tool_module(project, name)
    attr = str(spec.get("python", "")).partition(":")[2]
    if module is None or not attr or "." in attr:
        return info
    try:
        with open(module, encoding="utf-8") as fh:
            tree = ast.parse(fh.read(), module)
    except (OSError, SyntaxError, ValueError, UnicodeDecodeError, RecursionError):
        return info
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name == attr:
            ret = f" -> {ast.unparse(node.returns)}" if node.returns is not None else ""
            info.signature = f"{attr}({ast.unparse(node.args)}){ret}"
            info.description = info.description or ast.get_docstring(node)
            info.path, info.line = module, node.lineno - 1
    return info


def _library_components():
    from ..agent.library import components
    return components(("agent.main",))


def library_path(origin: str) -> str | None:
    """The file of a shipped prelude named by its loader origin (`ptclisp.preludes/ID.clj`)."""
    prefix = "ptclisp.preludes/"
    if origin.startswith(prefix):
        try:
            return str(resources.files("ptclisp.preludes").joinpath(origin[len(prefix):]))
        except (ModuleNotFoundError, ValueError):
            return None
    return origin if os.path.isabs(origin) else None


def _texts(paths, overlay: dict) -> dict:
    """path -> text of the prelude files (an open document's unsaved text first); unreadable files
    are left out (ptclisp validate reports them)."""
    out = {}
    for p in paths:
        text = overlay.get(p)
        if text is None:
            try:
                with open(p, encoding="utf-8") as fh:
                    text = fh.read()
            except (OSError, UnicodeDecodeError):
                continue
        out[p] = text
    return out


def _compile(texts: dict, library: bool = False) -> dict:
    """The namespaces of the prelude texts, compiled and never run (with `library`, after the
    shipped agent library); a file that does not compile contributes what did compile."""
    from ..prelude import PreludeError, build
    from ..tooling.check import check_preludes
    attached: dict = {}
    if library:
        try:
            attached = {c.name: c for c in build(_library_components())}
        except PreludeError:
            attached = {}
    if not texts:
        return attached
    try:
        _, compiled = check_preludes(list(texts.items()), attached)
    except RecursionError:
        return attached
    return {**attached, **compiled}
