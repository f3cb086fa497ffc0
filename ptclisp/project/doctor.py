"""`ptclisp doctor DIR [--connect]`: is this project ready to run here?

Everything `ptclisp validate` checks (importing the Python tools, which validate
only parses), then for each model: is its key
present in the environment (the variable is named, its value never
shown)?  With `connect=True`, one tiny real request per HTTP model: a
one-line question with one trivial tool, a few output tokens.  The answer
tells a bad key (authentication refused), an unknown model (not found),
a model without tool calling (refused tools, or an answer with no tool
call: usable only with --text-protocol), or that it is ready.

`doctor(...)` returns (report lines, exit class).  Imports the project
loader and validator, ptclisp.commands.operate and (lazily) the providers.
"""
from __future__ import annotations

from .. import exit_codes as X
from .validate import validate

PING_TOOL = {"type": "function", "function": {
    "name": "ping", "description": "Answer the connectivity check by calling this tool.",
    "parameters": {"type": "object", "properties": {"ok": {"type": "boolean"}}, "required": ["ok"],
                   "additionalProperties": False}}}
PING = {"system": "You are being checked for tool calling. Call the ping tool with ok true.",
        "messages": [{"role": "user", "content": "Call ping with ok true."}], "tools": [PING_TOOL]}


def doctor(path: str, env: dict, *, connect: bool = False, timeout_s: float = 30.0) -> tuple[list[str], int]:
    from ..providers.spec import KEY_ENV   # the HTTP provider families and their key variables
    lines: list[str] = []
    project, problems = validate(path, import_tools=True)   # doctor may import the Python tools
    if problems:
        lines += [p.render() for p in problems]
        lines.append(f"{len(problems)} problem{'s' * (len(problems) != 1)}: the project is not valid")
        return lines, X.INVALID_DOCUMENT
    lines.append(f"ok  {project.file}: valid (project {project.name})")
    code = X.OK
    key_env = project.key_env()
    for alias, m in project.models.items():
        what = f"{m['provider']}:{m['model']}" if m["provider"] in KEY_ENV else m["provider"]
        if m["provider"] not in KEY_ENV:
            lines.append(f"ok  model {alias} ({what}): offline, no key needed")
            continue
        var = key_env[alias]
        if not (env.get(var) or "").strip():
            lines.append(f"FAIL model {alias} ({what}): no API key configured (set {var})")
            code = X.PROVIDER_NOT_READY
            continue
        if not connect:
            lines.append(f"ok  model {alias} ({what}): key present in {var} (not checked: add --connect)")
            continue
        verdict, ready = _connect(project, alias, env, timeout_s)
        lines.append(f"{'ok ' if ready else 'FAIL'} model {alias} ({what}): {verdict}")
        if not ready:
            code = X.PROVIDER_NOT_READY
    return lines, code


def _connect(project, alias: str, env: dict, timeout_s: float) -> tuple[str, bool]:
    """One tiny request: (what happened, ready?)."""
    from ..providers import LlmRequestError, build_provider
    spec = dict(project.model_specs())[alias]
    options = dict(project.alias_options(env).get(alias, {}))
    options.update(max_tokens=64, timeout_s=min(timeout_s, options.get("timeout_s", timeout_s)), max_retries=0)
    try:
        provider = build_provider(spec, env=env, **options)
    except ValueError as e:
        return f"cannot be configured: {e}", False
    try:
        response = provider.complete(dict(PING))
    except LlmRequestError as e:
        detail = e.details if isinstance(e.details, str) else e.reason
        verdict = {"authentication_failed": "the key was refused (authentication failed)",
                   "not_found": "unknown model or endpoint (not found)",
                   "tool_calling_unsupported": "no tool calling: the endpoint refused tools; run with "
                                               "--text-protocol"}.get(e.reason, f"{e.reason}")
        return f"{verdict}: {detail}", False
    finally:
        close = getattr(provider, "close", None)
        if close:
            close()
    if not response.get("tool_calls"):
        return "answered without a tool call: no tool calling here; run with --text-protocol", False
    return "ready (answered with a tool call)", True
