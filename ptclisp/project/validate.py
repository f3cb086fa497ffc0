"""`ptclisp validate DIR`: everything about a project that can be checked without a model.

`validate(dir) -> (project | None, problems)` checks, in order: the TOML
syntax and the JSON Schema of `ptclisp.toml`, the cross references (tools,
MCP servers, missions and aliases named where they must be defined), that
every file it names exists and parses (mission data as JSON, the input and
result schemas as JSON Schemas, replay fixtures by the fixture rules,
scripted answers), that the Python tools exist and are functions (read from
their source with `ast`: validate imports and runs no project code; `doctor`
imports them, `import_tools=True`), that
every prelude compiles and every mission can be built, and that the
workflow program reads and analyzes against the agent library (nothing is
run, no model is called).  Each problem names the file, the key as a JSON
pointer and the rule.  Imports the project loader, the agent and providers
the prelude loader, the pipeline and the mission session (lazily).
"""
from __future__ import annotations

import os

from ..exit_codes import CommandFailure
from .load import Problem, Project, ProjectError, load_project, parse, pointer, project_dir


def validate(path: str, *, import_tools: bool = False) -> tuple[Project | None, list[Problem]]:
    """The project (None when the file itself is invalid) and every problem found.

    Python tools are inspected from their source (nothing of the project is imported or run) unless
    `import_tools` (what `ptclisp doctor` asks: it imports them and checks they are callables)."""
    root = project_dir(path)
    doc, problems = parse(root)
    if problems:
        return None, problems
    project = Project(root, doc)
    project.inspect_only = not import_tools
    out: list[Problem] = []
    out += _models(project)
    out += _schemas(project)
    tools_ok = _tools(project, out)
    _mcp(project, out)
    _missions(project, out, tools_ok)
    _workflow(project, out)
    _policy(project, out)
    _bench(project, out)
    project.inspect_only = False   # what is returned is the project as the other commands use it
    return project, out


def _collect(out: list, fn, *args, **kwargs):
    """Run `fn(*args, **kwargs)`, adding its ProjectError problems to `out`; the result, or None on a problem."""
    try:
        return fn(*args, **kwargs)
    except ProjectError as e:
        out.extend(e.problems)
    except CommandFailure as e:
        out.append(Problem("", "", e.message, e.reason))
    return None


def _models(project: Project) -> list[Problem]:
    from ..providers.scripted_file import load_script
    from ..providers import ReplayLoadError, load_fixtures
    out = []
    for alias, m in project.models.items():
        ptr = f"/models/{alias}/model"
        if m["provider"] not in ("replay", "scripted"):
            continue
        path = project.path(m["model"])
        if not os.path.isfile(path):
            out.append(project.problem(ptr, f"{m['model']}: no such file", "file_missing"))
            continue
        if m["provider"] == "replay":
            try:
                load_fixtures(path)
            except ReplayLoadError as e:
                out.append(Problem(path, f"line {e.line}" if e.line else "", str(e), e.rule))
        else:
            try:
                load_script(path)
            except CommandFailure as e:
                out.append(Problem(path, "", e.message, "script_invalid"))
            except Exception as e:  # noqa: BLE001 - UsageError: unreadable
                out.append(Problem(path, "", str(e), "file_unreadable"))
    return out


def _schemas(project: Project) -> list[Problem]:
    out: list[Problem] = []
    for which in ("input", "result"):
        _collect(out, project.schema, which)
    return out


def _tools(project: Project, out: list) -> set[str]:
    ok = set()
    for name in project.tools:
        if _collect(out, project.python_tool, name) is not None:
            ok.add(name)
    return ok


def _mcp(project: Project, out: list) -> None:
    """Each [mcp] server makes a valid MCPServerSpec (when MCP support is installed; nothing is started)."""
    from .load import mcp_available
    if not project.mcp or not mcp_available():
        return                                  # without MCP support the reference check reported it
    for name in project.mcp:
        try:
            project.mcp_specs([name])
        except ProjectError as e:
            out.extend(e.problems)
        except (ValueError, TypeError) as e:
            out.append(project.problem(f"/mcp/{name}", str(e), "mcp_invalid"))


def _missions(project: Project, out: list, tools_ok: set[str]) -> None:
    from ..agent import AgentLimits
    from ..agent.mission import MissionSession
    from ..prelude import PreludeError
    limits = _collect(out, project.agent_limits) or AgentLimits()
    for name, spec in project.missions.items():
        spec = spec or {}
        before = len(out)
        for key, rel in (spec.get("data") or {}).items():
            _collect(out, project.read_json, rel, f"/missions/{name}/data/{key}")
        for i, rel in enumerate(spec.get("preludes") or ()):
            _collect(out, project.read_text, rel, f"/missions/{name}/preludes/{i}")
        if len(out) > before or not set(spec.get("tools") or ()) <= tools_ok:
            continue            # what is missing was reported; building the mission would report it again
        mission = _collect(out, project.mission, name, input_value=None,
                           mcp_tools={s: {} for s in spec.get("mcp") or ()})
        if mission is None:
            continue
        try:
            MissionSession.alone(name, mission, limits)     # attaches (compiles) the mission's preludes
        except PreludeError as e:
            out.append(Problem(e.details.get("origin") or project.file, f"/missions/{name}/preludes",
                               f"Error ({e.kind}): {e.message}" + (f" at {e.span}" if e.span else ""),
                               "prelude_error"))
        except (ValueError, TypeError) as e:
            out.append(project.problem(f"/missions/{name}", str(e), "mission_invalid"))


def _workflow(project: Project, out: list) -> None:
    """The workflow preludes attach after the agent library and the workflow program analyzes."""
    from ..pipeline import check_program
    from ..prelude import PreludeError
    from ..agent import AgentHost
    from ..providers import ScriptedProvider
    preludes = _collect(out, project.workflow_preludes)
    source = _collect(out, project.workflow_source)
    before = len(out)
    replace = _collect(out, project.workflow_replacements)
    if preludes is None or len(out) > before:
        return
    try:
        host = AgentHost({"check": ScriptedProvider([])}, {}, workflow=preludes, replace=replace)
    except PreludeError as e:
        ptr = "/agent/replace" if replace and e.details.get("origin") in {c.origin for c in replace.values()} \
            else "/entry/preludes"
        out.append(Problem(e.details.get("origin") or project.file, ptr,
                           f"Error ({e.kind}): {e.message}" + (f" at {e.span}" if e.span else ""), "prelude_error"))
        return
    if source is None:
        return
    rel = project.entry["workflow"]
    from .. import PtcError
    try:
        check_program(source, host.session().env.analyzer_env())
    except PtcError as e:
        where = f"line {e.span.line}, column {e.span.col}" if e.span else ""
        out.append(Problem(project.path(rel), where, f"Error ({e.kind}): {e.message}", "workflow_error"))


def _policy(project: Project, out: list) -> None:
    """The [agent] table's policy preludes compile, attach without tools and export at least one hook."""
    from ..prelude import PreludeError
    from ..agent import AgentHost
    from ..providers import ScriptedProvider
    preludes = _collect(out, project.policy_preludes)
    if not preludes:
        return
    try:
        AgentHost({"check": ScriptedProvider([])}, {}, policy=preludes, agent_options=project.agent_options())
    except PreludeError as e:
        out.append(Problem(e.details.get("origin") or project.file, "/agent/policy",
                           f"Error ({e.kind}): {e.message}" + (f" at {e.span}" if e.span else ""), "policy_error"))


def _bench(project: Project, out: list) -> None:
    """[bench] suite names a task suite that loads ('bench agent' format)."""
    rel = project.bench.get("suite")
    if rel is None:
        return
    from ..bench_agent.suite import SuiteError, load_suite
    if not os.path.isdir(project.path(rel)):
        out.append(project.problem("/bench/suite", f"{rel}: no such suite directory", "file_missing"))
        return
    try:
        load_suite(project.path(rel))
    except SuiteError as e:
        out.append(project.problem("/bench/suite", f"{rel}: {e}", "suite_invalid"))


__all__ = ["validate", "load_project", "pointer"]
