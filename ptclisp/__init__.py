"""ptclisp: PTC-Lisp, a small bounded Clojure-like language for programmatic tool calling.

    import ptclisp
    r = ptclisp.run("(->> data/xs (filter odd?) (reduce +))", context={"xs": [1, 2, 3]})
    r.status, r.value        # "ok", 4
"""
from .api import Session, equal, pr_str, read_string, run
from .convert import from_python, to_python
from .errors import PtcError
from .evaluator import ErrorInfo, Result
from .meter import Limits
from . import parallel as _parallel  # noqa: F401 - installs the pmap/pcalls engine into lib.parallel
from .tools import Tool

__version__ = "0.1.0"

__all__ = [
    "run", "Session", "Limits", "Tool", "Result", "ErrorInfo", "PtcError",
    "read_string", "equal", "pr_str", "to_python", "from_python",
]
