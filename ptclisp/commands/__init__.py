"""The command line: every `ptclisp` command, and the only package that parses arguments.

    main.py         the entry point (`ptclisp`, `python -m ptclisp`) and the table of subcommands
    agent.py        `ptclisp agent`, and `ptclisp run FILE --model ...` (a workflow)
    bench.py        `ptclisp bench lang` (the interpreter benchmarks of ptclisp.bench)
    bench_agent.py  `ptclisp bench agent` (the LLM task suites of ptclisp.bench_agent)
    candidates.py   `ptclisp candidate ...` and `ptclisp run DIR --candidate ID`
    docs.py         `ptclisp docs`
    lsp.py          `ptclisp lsp` (the language server of ptclisp.lsp)
    mcp.py          `ptclisp mcp serve` (the server of ptclisp.mcp)
    project.py      init, validate, doctor, models, `run DIR`, `repl --project DIR`
    view.py         `ptclisp view`, `ptclisp transcript`, `--runs DIR`
    common.py       --data, --tools, the limit flags, streams that write any text
    operate.py      what the agent-running commands share: exit classes of a run, --envelope, --output, retries
    envelope.py     the --envelope document
    mcp_flags.py    the --mcp flags
    trace_flags.py  the --trace-dir / --inspect / --price flags and the usage summary

The libraries these commands call import no argparse and nothing of this package; they raise
the exceptions of ptclisp/exit_codes.py, which the commands turn into one line and an exit code.
Only the entry points (ptclisp/__main__.py, ptclisp/agent/__main__.py,
ptclisp/bench_agent/__main__.py) import it (tests/test_commands_layout.py).
"""
