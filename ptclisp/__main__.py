"""`python -m ptclisp ...` = `ptclisp ...`."""
import sys

from .commands.main import entry

sys.exit(entry())
