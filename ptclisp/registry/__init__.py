"""Facts about builtins, filled by the lib families at load.

    builtins.py  Builtin records: names, arities, docs, purity, the one table every layer reads
    java.py      the Java-interop table (classes, member records, lookups)
"""
