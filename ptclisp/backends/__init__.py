"""The back ends: what runs an analysed program.

    closures.py   the closure back end (a tree of Python closures; cold code, preludes)
    bytecode/     the bytecode back end (the program written out as one Python module, compiled)
    table.py      what both read: the runtime table, the registry facts, the node kinds and the
                  name of each kind's handler (from which closures.BUILD and bytecode.emit.EMIT are made)
    runtime.py    the helpers compiled code and the closures call at run time (the table holds them)
"""
