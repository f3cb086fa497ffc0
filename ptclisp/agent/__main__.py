"""`python -m ptclisp.agent ...` = `ptclisp agent ...`."""
import sys

from ..cli_common import lenient_output
from .cli import cli_main

with lenient_output():
    code = cli_main(sys.argv[1:])
sys.exit(code)
