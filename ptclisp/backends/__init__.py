"""The back ends: what runs an analysed program.

    closures.py   the closure back end (a tree of Python closures; cold code, preludes)
    bytecode/     the bytecode back end (the program written out as one Python module, compiled)
    runtime.py    what compiled code and the closures call at run time (the shared runtime table)
"""
