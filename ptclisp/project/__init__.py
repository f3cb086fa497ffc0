"""Agent projects: a directory whose `ptclisp.toml` describes an agent as a document.

    ptclisp init P [--example orders|tools|workflow]   a project that runs offline out of the box
    ptclisp validate P          the schema, the files it names, preludes, tools, fixtures, the workflow
    ptclisp doctor P [--connect]  plus credentials, and one tiny request per model
    ptclisp models P            the aliases and what they resolve to
    ptclisp run P [--input FILE] [--mission M]
    ptclisp repl --project P [--mission M]

The file's shape is the JSON Schema `ptclisp/schemas/project.schema.json`
(`ptclisp docs project-schema`); `ptclisp docs project` explains it.

    load.py      parse, check against the schema and cross references; `Project` -> what a run needs
    validate.py  everything checkable without a model
    doctor.py    credentials and --connect
    init.py      the shipped examples (examples/NAME/, package data)
    commands.py  the command-line side of all of the above
"""
from .load import PROJECT_FILE, Problem, Project, ProjectError, load_project

__all__ = ["PROJECT_FILE", "Problem", "Project", "ProjectError", "load_project"]
