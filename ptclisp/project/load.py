"""Reading a project: `ptclisp.toml`, checked against the shipped JSON Schema, and what it names.

Owns `Problem` (one finding: file, key or JSON pointer, message, rule),
`ProjectError` (a DocumentError carrying the problems), `load_project(dir)`
(parse with tomllib, validate against `ptclisp/schemas/project.schema.json`,
check the cross references; a `Project` or ProjectError) and `Project`,
which turns the document into what a run needs: model specs with their
options and prices, missions (data read from their files, tools imported,
preludes loaded), the agent limits under the host's ceilings, the result
and input schemas, and the entry.  Paths in the file are relative to the
project directory.  Imports ptclisp.exit_codes (DocumentError, UsageError),
ptclisp.interchange.schemas (the schema), and lazily the prelude loader, the agent, the providers and ptclisp.mcp.client
(`MCPServerSpec` for each [mcp] server).
"""
from __future__ import annotations

import hashlib
import importlib
import importlib.util
import json
import os
import sys
import tomllib

import attrs

from ..exit_codes import DocumentError, UsageError
from ..interchange.schemas import load_schema

PROJECT_FILE = "ptclisp.toml"
#: The key of a mission's `mcp_tools` map whose tools every mission gets (the servers of --mcp flags).
ALL_MISSIONS = "*"
#: The host's ceilings; a project's [limits] may lower them (the schema's maxima say the same).
CEILINGS = {"timeout_ms": 600_000, "evaluation_timeout_ms": 30_000, "memory_bytes": 10_000_000,
            "max_tool_calls": 256, "max_turns": 128, "max_evaluations": 128, "max_model_calls": 256}
DEFAULT_MAX_TURNS = 4


@attrs.frozen
class Problem:
    """One finding of `ptclisp validate`: in `file`, at `pointer` (a JSON pointer), `message`; `rule` names it."""

    file: str
    pointer: str
    message: str
    rule: str

    def render(self) -> str:
        where = f"{self.file}: {self.pointer}: " if self.pointer else f"{self.file}: "
        return f"{where}{self.message} [rule: {self.rule}]"


class ProjectError(DocumentError):
    """The project is invalid: `problems` lists every finding (the message is the first)."""

    def __init__(self, problems: list[Problem]):
        self.problems = list(problems)
        first = self.problems[0]
        more = f" (and {len(self.problems) - 1} more problem{'s' * (len(self.problems) > 2)}: run ptclisp " \
               f"validate)" if len(self.problems) > 1 else ""
        super().__init__(first.render() + more, first.rule,
                         {"file": first.file, "pointer": first.pointer, "rule": first.rule})


def pointer(path) -> str:
    """A JSON pointer (RFC 6901) for a sequence of keys and indexes."""
    parts = [str(p).replace("~", "~0").replace("/", "~1") for p in path]
    return "/" + "/".join(parts) if parts else ""


def project_dir(path: str) -> str:
    """`path` as a project directory; UsageError when it is not a directory holding ptclisp.toml."""
    if not os.path.isdir(path):
        raise UsageError(f"{path}: no such project directory")
    if not os.path.isfile(os.path.join(path, PROJECT_FILE)):
        raise UsageError(f"{path}: not a project (no {PROJECT_FILE}; create one with 'ptclisp init {path}')")
    return path


def parse(root: str) -> tuple[dict | None, list[Problem]]:
    """The document of ROOT/ptclisp.toml and the problems of its syntax and schema."""
    from ..interchange.documents import read_document_text
    file = os.path.join(root, PROJECT_FILE)
    try:
        doc = tomllib.loads(read_document_text(file, MAX_PROJECT_FILE_BYTES))
    except OSError as e:
        return None, [Problem(file, "", f"cannot read: {e.strerror or e}", "file_unreadable")]
    except tomllib.TOMLDecodeError as e:
        return None, [Problem(file, "", f"not valid TOML: {e}", "toml_syntax")]
    except UnicodeDecodeError as e:
        return None, [Problem(file, "", f"not UTF-8 text: {e.reason}", "toml_syntax")]
    except ValueError as e:   # an integer too long for Python to convert (over 4300 digits)
        return None, [Problem(file, "", f"not valid TOML: {str(e).split(';')[0]}", "toml_syntax")]
    except RecursionError:
        return None, [Problem(file, "", "not valid TOML: arrays or tables nested too deeply", "toml_syntax")]
    bad = _out_of_range_integer(doc)
    if bad is not None:
        return None, [Problem(file, pointer(bad), "not valid TOML: an integer outside the 64-bit range TOML "
                                                  "allows", "toml_syntax")]
    return doc, schema_problems(file, doc) + reference_problems(file, doc)


MAX_PROJECT_FILE_BYTES = 1024 * 1024
_INT64 = (-(1 << 63), (1 << 63) - 1)


def _out_of_range_integer(doc):
    """The path (a list of keys and indexes) of the first integer of `doc` outside TOML's 64-bit range."""
    stack = [((), doc)]
    while stack:
        path, value = stack.pop()
        if type(value) is int and not _INT64[0] <= value <= _INT64[1]:
            return list(path)
        if isinstance(value, dict):
            stack.extend((path + (k,), v) for k, v in value.items())
        elif isinstance(value, list):
            stack.extend((path + (i,), v) for i, v in enumerate(value))
    return None


def schema_problems(file: str, doc: dict) -> list[Problem]:
    import jsonschema
    validator = jsonschema.Draft202012Validator(load_schema("project"))
    out = []
    for e in sorted(validator.iter_errors(doc), key=lambda e: (list(map(str, e.absolute_path)), e.validator)):
        out.append(Problem(file, pointer(e.absolute_path), _schema_message(e), str(e.validator)))
    return out


def _schema_message(e) -> str:
    if e.validator == "additionalProperties":
        return f"{e.message} (see 'ptclisp docs project-schema')"
    if e.validator == "maximum" and e.absolute_path and e.absolute_path[0] == "limits":
        return f"{e.instance} is above the host's ceiling {e.validator_value}: a project may lower a limit, " \
               f"never raise it"
    if e.validator == "oneOf" and isinstance(e.instance, dict):
        keys = " or ".join(f"'{k['required'][0]}'" for k in e.validator_value if "required" in k)
        return f"needs exactly one of {keys}"
    return e.message


def reference_problems(file: str, doc: dict) -> list[Problem]:
    """Names used in one section that another must define (tools, mcp servers, missions, aliases)."""
    out = []
    models, tools = _table(doc, "models"), _table(doc, "tools")
    mcp, missions = _table(doc, "mcp"), _table(doc, "missions")
    for name, m in missions.items():
        if not isinstance(m, dict):
            continue
        for i, t in enumerate(m.get("tools") or []):
            if isinstance(t, str) and t not in tools:
                out.append(Problem(file, pointer(["missions", name, "tools", i]),
                                   f"names tool {t!r}, which no [tools.{t}] section defines", "unknown_reference"))
        for i, t in enumerate(m.get("mcp") or []):
            if isinstance(t, str) and t not in mcp:
                out.append(Problem(file, pointer(["missions", name, "mcp", i]),
                                   f"names MCP server {t!r}, which no [mcp.{t}] section defines",
                                   "unknown_reference"))
    entry = _table(doc, "entry")
    mission = entry.get("mission")
    if isinstance(mission, str) and mission not in (missions or {"default": {}}):
        out.append(Problem(file, "/entry/mission", f"names mission {mission!r}, which no [missions.{mission}] "
                                                   f"section defines", "unknown_reference"))
    alias = entry.get("model")
    if isinstance(alias, str) and models and alias not in models:
        out.append(Problem(file, "/entry/model", f"names model {alias!r}, which no [models.{alias}] section "
                                                 f"defines", "unknown_reference"))
    limits = _table(doc, "limits")
    turns = entry.get("max_turns")
    if isinstance(turns, int) and isinstance(limits.get("max_turns"), int) and turns > limits["max_turns"]:
        out.append(Problem(file, "/entry/max_turns", f"{turns} is above [limits] max_turns {limits['max_turns']}",
                           "maximum"))
    if mcp and not mcp_available():
        out.append(Problem(file, "/mcp", "MCP support not installed: the mcp package is missing (pip install "
                                         "'ptclisp[mcp]'), so [mcp] servers cannot be used", "mcp_unavailable"))
    return out


def mcp_available() -> bool:
    """Can [mcp] servers be used here: is the MCP SDK (`mcp`, the `ptclisp[mcp]` extra) installed?"""
    try:
        return importlib.util.find_spec("mcp") is not None
    except (ModuleNotFoundError, ValueError):
        return False


def _table(doc, key) -> dict:
    t = doc.get(key) if isinstance(doc, dict) else None
    return t if isinstance(t, dict) else {}


def load_project(path: str) -> "Project":
    """The Project in directory `path`, or ProjectError (syntax, schema, references); UsageError for no project."""
    root = project_dir(path)
    doc, problems = parse(root)
    if problems:
        raise ProjectError(problems)
    return Project(root, doc)


# ------------------------------------------------------------------ the project

class Project:
    """A checked project document and the directory it lives in."""

    def __init__(self, root: str, doc: dict):
        self.root = root
        self.file = os.path.join(root, PROJECT_FILE)
        self.doc = doc
        self.name = doc["project"]["name"]
        self.models = dict(doc["models"])
        self.tools = dict(doc.get("tools") or {})
        self.mcp = dict(doc.get("mcp") or {})
        self.missions = dict(doc.get("missions") or {"default": {}})
        self.entry = dict(doc["entry"])
        self.schemas = dict(doc.get("schemas") or {})
        self.limit_table = dict(doc.get("limits") or {})
        self.traces = dict(doc.get("traces") or {})
        self.agent = dict(doc.get("agent") or {})
        self.bench = dict(doc.get("bench") or {})
        # validate: Python tools are parsed (project/inspect_tools.py), never imported or run
        self.inspect_only = False

    # -- paths
    def path(self, rel: str) -> str:
        return rel if os.path.isabs(rel) else os.path.join(self.root, rel)

    def problem(self, ptr: str, message: str, rule: str, file: str | None = None) -> Problem:
        return Problem(file or self.file, ptr, message, rule)

    # -- models
    @property
    def default_alias(self) -> str:
        return self.entry.get("model") or next(iter(self.models))

    def model_specs(self) -> list:
        """(alias, ModelSpec) pairs; replay and script files resolved against the project directory."""
        from ..providers import ModelSpec
        out = []
        for alias, m in self.models.items():
            model = self.path(m["model"]) if m["provider"] in ("replay", "scripted") else m["model"]
            out.append((alias, ModelSpec(m["provider"], model, m.get("base_url"))))
        return out

    def key_env(self) -> dict:
        """alias -> the environment variable holding its key (HTTP providers only)."""
        from ..providers.spec import KEY_ENV
        return {a: m.get("api_key_env") or KEY_ENV[m["provider"]] for a, m in self.models.items()
                if m["provider"] in KEY_ENV}

    def alias_options(self, env) -> dict:
        """alias -> provider options from [models.ALIAS] (params, and the key read from api_key_env)."""
        from ..providers.spec import KEY_ENV
        out = {}
        for alias, m in self.models.items():
            if m["provider"] not in KEY_ENV:
                continue
            params = dict(m.get("params") or {})
            params.pop("max_calls", None)
            opts = {k: params[k] for k in ("temperature", "max_tokens", "tool_choice", "timeout_s") if k in params}
            key = env.get(self.key_env()[alias])
            if key:
                opts["api_key"] = key
            out[alias] = opts
        return out

    def context_windows(self) -> dict:
        """alias -> the context window (tokens) its [models.ALIAS] table declares."""
        return {a: int(m["context_window"]) for a, m in self.models.items() if m.get("context_window") is not None}

    def max_calls(self) -> dict:
        return {a: m["params"]["max_calls"] for a, m in self.models.items()
                if isinstance(m.get("params"), dict) and "max_calls" in m["params"]}

    def prices(self) -> dict:
        return {a: dict(m["price"]) for a, m in self.models.items() if isinstance(m.get("price"), dict)}

    def describe_models(self) -> dict:
        return {alias: f"{m['provider']}:{m['model']}" for alias, m in self.models.items()}

    # -- limits
    def agent_limits(self, cli_timeout_ms: int | None = None):
        """AgentLimits: the host's defaults, lowered by [limits] (and by --timeout-ms, the host's own say)."""
        from ..agent import AgentLimits
        t = self.limit_table
        base = AgentLimits()
        timeout = min(x for x in (t.get("timeout_ms"), cli_timeout_ms, base.workflow_timeout_ms) if x)
        return AgentLimits(
            workflow_timeout_ms=timeout,
            evaluation_timeout_ms=min(t.get("evaluation_timeout_ms", base.evaluation_timeout_ms),
                                      base.evaluation_timeout_ms),
            evaluation_allocation_bytes=min(t.get("memory_bytes", base.evaluation_allocation_bytes),
                                            base.evaluation_allocation_bytes),
            mission_capability_calls=min(t.get("max_tool_calls", base.mission_capability_calls),
                                         base.mission_capability_calls),
            subordinate_evaluations=min(t.get("max_evaluations", base.subordinate_evaluations),
                                        base.subordinate_evaluations))

    def max_turns(self) -> int:
        turns = self.entry.get("max_turns") or DEFAULT_MAX_TURNS
        return min(turns, self.limit_table.get("max_turns", CEILINGS["max_turns"]))

    def max_model_calls(self) -> int:
        return min(self.limit_table.get("max_model_calls", CEILINGS["max_model_calls"]), CEILINGS["max_model_calls"])

    # -- documents
    def read_json(self, rel: str, ptr: str):
        """The JSON value of a file the project names at `ptr`; ProjectError naming both when it fails."""
        from ..interchange.documents import read_document_text
        path = self.path(rel)
        try:
            return json.loads(read_document_text(path))   # a regular file within the size bound
        except OSError as e:
            raise ProjectError([self.problem(ptr, f"{rel}: {e.strerror or e}", "file_missing")]) from None
        except (ValueError, UnicodeDecodeError) as e:
            raise ProjectError([Problem(path, "", f"not valid JSON: {e}", "invalid_json")]) from None
        except RecursionError:
            raise ProjectError([Problem(path, "", "not valid JSON: nested too deeply", "invalid_json")]) from None

    def read_text(self, rel: str, ptr: str) -> str:
        from ..interchange.documents import read_document_text
        path = self.path(rel)
        try:
            return read_document_text(path)   # a regular file within the size bound
        except OSError as e:
            raise ProjectError([self.problem(ptr, f"{rel}: {e.strerror or e}", "file_missing")]) from None
        except UnicodeDecodeError as e:
            raise ProjectError([Problem(path, "", f"not UTF-8 text: {e.reason}", "file_unreadable")]) from None

    def schema(self, which: str) -> dict | None:
        """The [schemas] input or result JSON Schema, checked to be a valid schema."""
        rel = self.schemas.get(which)
        if rel is None:
            return None
        import jsonschema
        schema = self.read_json(rel, f"/schemas/{which}")
        try:
            jsonschema.validators.validator_for(schema, default=jsonschema.Draft202012Validator) \
                .check_schema(schema)
        except jsonschema.SchemaError as e:
            raise ProjectError([Problem(self.path(rel), pointer(e.absolute_path),
                                        f"not a valid JSON Schema: {e.message}", "schema_invalid")]) from None
        except (TypeError, AttributeError):
            raise ProjectError([Problem(self.path(rel), "", "not a valid JSON Schema: not an object",
                                        "schema_invalid")]) from None
        return schema

    def check_input(self, value, source: str) -> None:
        """ProjectError-like DocumentError when `value` does not satisfy [schemas] input."""
        schema = self.schema("input")
        if schema is None:
            return
        import jsonschema
        cls = jsonschema.validators.validator_for(schema, default=jsonschema.Draft202012Validator)
        errors = sorted(cls(schema).iter_errors(value), key=lambda e: list(map(str, e.absolute_path)))
        if errors:
            e = errors[0]
            raise DocumentError(f"{source}: {pointer(e.absolute_path) or '/'}: {e.message} "
                                f"(does not match [schemas] input {self.schemas['input']}) [rule: {e.validator}]",
                                "input_invalid")

    # -- tools
    def python_tool(self, name: str):
        """The Capability of [tools.NAME] (imported from the project directory; with `inspect_only`,
        read from its source without importing it)."""
        if self.inspect_only:
            from .inspect_tools import ToolProblems, static_capability
            try:
                return static_capability(self, name)
            except ToolProblems as e:
                raise ProjectError(e.problems) from None
        from ..agent import Capability
        from ..agent.python_tools import capability_for
        from ..host.tools import Tool
        spec = self.tools[name]
        obj = self.import_attr(spec["python"], f"/tools/{name}/python")
        if isinstance(obj, Tool):
            cap = Capability(name, obj.fn, obj.description, obj.input_schema, None, obj.effect)
        elif callable(obj):
            cap = capability_for(name, obj)
        else:
            raise ProjectError([self.problem(f"/tools/{name}/python", f"{spec['python']} is a "
                                             f"{type(obj).__name__}, not a function or ptclisp.Tool",
                                             "tool_unresolved")])
        if "description" in spec:
            cap.description = spec["description"]
        if "effect" in spec:
            cap.effect = spec["effect"]
        return cap

    def import_attr(self, ref: str, ptr: str):
        """`module:attr` with the module taken from the project directory first (by file, so two projects
        with a tools.py each never see each other's), else from the installed packages."""
        mod_name, _, attr = ref.partition(":")
        try:
            module = self._import(mod_name)
        except ProjectError:
            raise
        except ModuleNotFoundError as e:
            raise ProjectError([self.problem(ptr, f"{ref}: no module named {e.name or mod_name!r} (in the project "
                                                  f"directory or installed)", "tool_unresolved")]) from None
        except BaseException as e:  # noqa: BLE001 - the project's module raised while importing
            if isinstance(e, KeyboardInterrupt):
                raise
            raise ProjectError([self.problem(ptr, f"{ref}: importing {mod_name} failed: {type(e).__name__}: {e}",
                                             "tool_unresolved")]) from None
        obj = module
        for part in attr.split("."):
            if not hasattr(obj, part):
                raise ProjectError([self.problem(ptr, f"{ref}: {mod_name} has no attribute {attr!r}",
                                                 "tool_unresolved")])
            obj = getattr(obj, part)
        return obj

    def _import(self, mod_name: str):
        rel = mod_name.replace(".", os.sep)
        for candidate in (os.path.join(self.root, rel + ".py"), os.path.join(self.root, rel, "__init__.py")):
            if os.path.isfile(candidate):
                digest = hashlib.sha256(os.path.abspath(candidate).encode()).hexdigest()[:12]
                unique = f"_ptclisp_project_{digest}_{mod_name.replace('.', '_')}"
                if unique in sys.modules:
                    return sys.modules[unique]
                spec = importlib.util.spec_from_file_location(unique, candidate)
                module = importlib.util.module_from_spec(spec)
                sys.modules[unique] = module
                try:
                    spec.loader.exec_module(module)
                except BaseException:
                    del sys.modules[unique]
                    raise
                return module
        return importlib.import_module(mod_name)

    # -- missions
    def mission_names(self) -> list[str]:
        return list(self.missions)

    def default_mission(self) -> str:
        return self.entry.get("mission") or next(iter(self.missions))

    def mission(self, name: str, *, input_value=None, mcp_tools: dict | None = None):
        """The Mission [missions.NAME] describes; `input_value` (when given) is data/input.

        `mcp_tools` maps an [mcp] server name to its open tools ({"NAME.TOOL": ptclisp.Tool}); the
        mission gets those of the servers it names, and those under `ALL_MISSIONS` (--mcp flags)."""
        from ..agent import Mission
        spec = self.missions[name] or {}
        data = {key: self.read_json(rel, f"/missions/{name}/data/{key}") for key, rel in (spec.get("data") or {}).items()}
        if input_value is not None:
            if "input" in data:
                raise ProjectError([self.problem(f"/missions/{name}/data/input",
                                                 "data/input is reserved for --input", "reserved_name")])
            data["input"] = input_value
        caps = [self.python_tool(t) for t in spec.get("tools") or ()]
        for server in [*(spec.get("mcp") or ()), ALL_MISSIONS]:
            caps += list((mcp_tools or {}).get(server, {}).values())
        preludes = [_component(self.read_text(rel, f"/missions/{name}/preludes/{i}"), self.path(rel))
                    for i, rel in enumerate(spec.get("preludes") or ())]
        return Mission(data=data, capabilities=caps, preludes=preludes, strict_data=spec.get("strict_data", True))

    def policy_preludes(self) -> list:
        """The [agent] table's policy preludes (loop hooks, ptclisp docs agent)."""
        return [_component(self.read_text(rel, f"/agent/policy/{i}"), self.path(rel))
                for i, rel in enumerate((self.doc.get("agent") or {}).get("policy") or ())]

    def agent_options(self) -> dict:
        """The [agent] table's loop options (compaction, compaction_at)."""
        table = self.doc.get("agent") or {}
        return {k: table[k] for k in ("compaction", "compaction_at") if k in table}

    def workflow_preludes(self) -> list:
        return [_component(self.read_text(rel, f"/entry/preludes/{i}"), self.path(rel))
                for i, rel in enumerate(self.entry.get("preludes") or ())]

    def workflow_replacements(self) -> dict | None:
        """[agent] replace as {shipped id: prelude Component} for AgentHost(replace=...); None without it."""
        table = self.agent.get("replace") or {}
        if not table:
            return None
        from ..prelude import Component
        return {cid: Component(self.read_text(rel, f"/agent/replace/{cid}"), self.path(rel))
                for cid, rel in table.items()}

    def workflow_source(self) -> str | None:
        rel = self.entry.get("workflow")
        return None if rel is None else self.read_text(rel, "/entry/workflow")

    # -- MCP
    def mcp_specs(self, names) -> list:
        """`ptclisp.mcp.client.MCPServerSpec`s of the named [mcp] servers (ProjectError without MCP support)."""
        if not names:
            return []
        if not mcp_available():
            raise ProjectError([self.problem("/mcp", "MCP support not installed: the mcp package is missing "
                                                     "(pip install 'ptclisp[mcp]'), so [mcp] servers cannot be "
                                                     "used", "mcp_unavailable")])
        from ..mcp.client import MCPServerSpec
        out = []
        for name in names:
            s = self.mcp[name]
            kw = {k: s[k] for k in ("allow", "hide", "rename", "effects") if k in s}
            if "command" in s:
                kw["command"] = list(s["command"])
                kw["cwd"] = self.root
            else:
                kw["url"] = s["url"]
            try:
                out.append(MCPServerSpec(name, **kw))
            except (ValueError, TypeError) as e:
                raise ProjectError([self.problem(f"/mcp/{name}", str(e), "mcp_invalid")]) from None
        return out

    def used_mcp(self, missions=None) -> list[str]:
        names = []
        for m in (missions or self.missions):
            for s in (self.missions[m] or {}).get("mcp") or ():
                if s not in names:
                    names.append(s)
        return names


def _component(text: str, origin: str):
    """A prelude Component for `text` whose errors name `origin` (the loader is imported on first use)."""
    from ..prelude import Component
    return Component(text, origin)
