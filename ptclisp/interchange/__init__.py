"""Values across the host boundary.

    python.py     Python data <-> PTC values
    json_out.py   PTC values -> JSON (the one conversion every JSON-facing output uses)
    json_in.py    JSON text as host data, at any depth the host API accepts
    documents.py  the files a user names, read as regular files within a size bound
"""
