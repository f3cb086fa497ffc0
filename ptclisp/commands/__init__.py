"""The command line: every `ptclisp` command.

    main.py  the entry point and the parser of every subcommand
    docs.py  `ptclisp docs`
"""
