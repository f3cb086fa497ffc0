"""AGENTS.md of a new project (`ptclisp init`): how a coding agent runs, validates, tests and traces it.

`agents_md(directory, example)` gives the text; `init` writes it beside ptclisp.toml unless the
example ships its own. The commands name the project directory as the user gave it. Imports nothing.
"""
from __future__ import annotations

import shlex

_TEMPLATE = """# AGENTS.md: working on this ptclisp agent project

This directory is a ptclisp agent project (created from the `{example}` example). `ptclisp.toml`
describes it: models, Python tools, missions (data, tools, preludes), the entry (a task or a
workflow program), the input and result schemas, limits and traces. The model's programs are
PTC-Lisp; run `ptclisp docs agent-guide` for the language tools and `ptclisp docs project` for the
file format.

## Commands (from the directory `ptclisp init` ran in)

| what | command | runs |
|---|---|---|
| check everything, run nothing | `ptclisp validate {dir}` | nothing: Python tools are parsed, not imported |
| is it ready to run here | `ptclisp doctor {dir}` (`--connect`: one tiny request per model) | imports the Python tools |
| the model aliases | `ptclisp models {dir}` | nothing |
| run it | `ptclisp run {dir}` (`--envelope` for one JSON document, `--input FILE`) | models and tools |
| explore a mission's environment | `ptclisp repl --project {dir} --mission {mission}` (`:context`) | your programs, no model |
| check PTC-Lisp files | `ptclisp check FILE.clj ...` and `ptclisp fmt --check FILE.clj ...` | nothing |

As created, the project runs offline: a scripted model answers (`models/`), so `ptclisp run {dir}`
needs no key and no network. Replace the model in `ptclisp.toml` to go live; keys come from the
environment or `--env-file FILE`, never from the project file.

## Exit classes

0 ok; 2 bad arguments or an unreadable file; 3 an invalid document (ptclisp.toml, a schema, a prelude,
the workflow) - the message names the file, the key as a JSON pointer and the rule; 4 a provider not
ready (no API key, an MCP server that cannot start); 5 the run failed (turn limit, the model's
`fail`, the result contract not met); 6 a limit was hit; 7 the output could not be written.

## Testing

Run `ptclisp validate {dir}` first; it is exit 0 when every file, tool, prelude and the workflow
check. Test runs offline and deterministically: keep the scripted model, or record a live run once
with `ptclisp run {dir} --record answers.jsonl` and replay it with `--replay answers.jsonl`. Assert on
`ptclisp run {dir} --envelope`: `ok`, `value`, `error.kind`, `exit_code` (its JSON Schema:
`ptclisp docs envelope-schema`).

## Traces

`ptclisp run {dir} --trace-dir traces` writes each run to `traces/<run id>/` (content-free events,
the `--envelope` document as `envelope.json`); add `--inspect` for prompts, programs and values
(owner-only files). Look at them with `ptclisp view traces --static runs.html`,
`ptclisp transcript RUN_ID --runs traces`, or
`ptclisp repl --runs traces -e '(analysis/runs {{:status "failed"}})'`. `[traces]` in ptclisp.toml
sets these for every run.
"""


def agents_md(directory: str, example: str, mission: str = "default") -> str:
    """The AGENTS.md text for a project created in `directory` from `example` (`mission`: one of its missions)."""
    return _TEMPLATE.format(dir=shlex.quote(directory.rstrip("/") or "."), example=example,
                            mission=shlex.quote(mission))
