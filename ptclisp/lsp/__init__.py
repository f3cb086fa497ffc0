"""The PTC-Lisp language server (`ptclisp lsp`): what `ptclisp check` knows, in an editor, as you type.

    source.py       positions and offsets, the form under the cursor and the forms around it, the
                    locals in scope there, a tolerant read of text that is still being typed
    context.py      what a file can see: the nearest ptclisp.toml above it (its mission's data, tools,
                    MCP servers and preludes, read without running project code), or builtins only
    diagnostics.py  reader errors, analyzer errors (unbound symbols, arity, form shapes), arity of the
                    file's own functions, data/ and tool/ names against the mission
    describe.py     signatures and docs of builtins, special forms, definitions, exports, data, tools
    features.py     completion, hover, signature help, go to definition
    outline.py      document symbols, folding ranges, formatting (the `fmt` formatter)
    server.py       the pygls server over stdio: documents, debounced diagnostics, the handlers

Everything but server.py works on text and plain records and never imports pygls; server.py
converts positions to the client's encoding and builds the protocol's types. Imports the reader,
the analyzer, the registry, the prelude loader, the source tools (check, fmt), the project
loader (reading ptclisp.toml only) and the agent's data shapes (`ptclisp.agent.context`).
"""
