"""The run viewer: `ptclisp view DIR --static OUT.html | --port PORT` and `ptclisp transcript`.

    html.py    render_page / render_app: the self-contained HTML view of a trace directory
    server.py  ViewServer: the same view on 127.0.0.1, updated live (server-sent events)

The view and transcript commands and `--runs DIR` are ptclisp/commands/view.py.
Imports ptclisp.trace (reading trace directories).
"""
