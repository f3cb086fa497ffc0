"""Text -> forms: the reader.

    parser.py       the reader (a fast scanner, lark's LALR parser over grammar/ptclisp.lark when needed)
    forms.py        what the reader produces (symbols, lists, spans)
    diagnostics.py  reader errors with their line, column and excerpt
"""
