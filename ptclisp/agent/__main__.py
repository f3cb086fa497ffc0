"""`python -m ptclisp.agent ...` = `ptclisp agent ...`."""
import sys

from ..commands.common import lenient_output
from ..commands.agent import cli_main

with lenient_output():
    code = cli_main(sys.argv[1:])
sys.exit(code)
