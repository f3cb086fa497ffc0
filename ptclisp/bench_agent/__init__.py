"""LLM task benchmarks: measure and A/B models, prompts and preludes on task suites.

    ptclisp bench agent --suite data-qa --model ref=scripted:reference --variant bad=builtin:wrong

Modules: suite (manifests and tasks), validate (answer validators),
models (model specs, the scripted reference model, record/replay),
variants (mission preludes and agent settings under test), runner_adapter
(the single seam to the agent library: `run_task`), jsontools (the plain
function-calling baseline), runner (the matrix, resumable, parallel),
stats (Wilson, exact McNemar, bootstrap), metrics (results.json),
report (terminal table and HTML), cli (`cli_main`).
"""
from .cli import cli_main
from .runner_adapter import run_task
from .suite import load_suite

__all__ = ["cli_main", "run_task", "load_suite"]
