"""`python -m ptclisp.bench_agent ...` = `ptclisp bench agent ...`."""
import sys

from .cli import cli_main

sys.exit(cli_main(sys.argv[1:]))
