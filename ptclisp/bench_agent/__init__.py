"""LLM task benchmarks: measure and A/B models, prompts and preludes on task suites.

    ptclisp bench agent --suite data-qa --model ref=scripted:reference --variant bad=builtin:wrong

Modules: suite (manifests and tasks), validate (answer validators),
models (model specs, the scripted reference model, record/replay),
variants (mission preludes and agent settings under test), runner_adapter
(the single seam to the agent library: `run_task`), jsontools (the plain
function-calling baseline), runs (one run: its spec, running, scoring and
storing it), runner (the matrix: resumable, on threads), ray_executor (the
matrix's runs as Ray tasks), stats (Wilson, exact McNemar, bootstrap),
metrics (results.json), report (terminal table and HTML).

The command (`cli_main`) lives in `ptclisp.commands.bench_agent` (and `python -m
ptclisp.bench_agent`); this package re-exports only the library: `run_task`
and `load_suite`.
"""
from .runner_adapter import run_task
from .suite import load_suite

__all__ = ["run_task", "load_suite"]
