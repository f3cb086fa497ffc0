"""ptclisp: PTC-Lisp, a small bounded Clojure-like language for programmatic tool calling.

    import ptclisp
    r = ptclisp.run("(->> data/xs (filter odd?) (reduce +))", context={"xs": [1, 2, 3]})
    r.status, r.value        # "ok", 4

Importing changes no interpreter setting. Diagnostics go to the "ptclisp"
logger, which gets a NullHandler before its first record (`errors.logger`;
importing ptclisp alone does not import `logging`): nothing of ours reaches
the host's streams unless the host configures logging.
"""
from .api import Session, equal, from_python, pr_str, read_string, run, to_python
from .runtime.failures import ErrorInfo
from .errors import PtcError
from .fastpaths import general_path
from .runtime.meter import Limits
from .pipeline import Result
from . import parallel as _parallel  # noqa: F401 - installs the pmap/pcalls engine into lib.parallel
from .host.tools import Tool

__version__ = "0.1.0"

__all__ = [
    "run", "Session", "Limits", "Tool", "Result", "ErrorInfo", "PtcError",
    "read_string", "equal", "pr_str", "to_python", "from_python", "general_path",
]
