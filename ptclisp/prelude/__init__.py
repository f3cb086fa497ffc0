"""Preludes: Lisp components that add namespaced exports to a session (docs/spec/runtime.md §13).

The prelude loader, in four steps:

* `source`: reading component source (`ns` plus `defn`/`defn-`/`def` with
  docstrings and metadata maps) into namespace specs, with the checks that
  need no compilation (reserved and duplicate namespaces, duplicate names,
  qualified self references, metadata, signatures);
* `compiling`: analyzing and compiling each namespace once against its
  dependencies' exports (dependency closure with unknown/cycle checks), the
  cache of compiled namespaces keyed by source hash;
* `exports`: the export records (arity, params, doc, visibility, effect,
  transitive tool requirements) and compiled namespaces;
* `attach`: instantiating each compiled namespace against one session and
  checking that every tool an export needs is granted.

The loader sits below the session layer (it never imports ptclisp.session):
it works on any environment with the session's `ns`/`preludes`/`tools`/
`data_get`/`hist`/`extra_globals`/`programs` attributes, and makes each
namespace a `ptclisp.runtime.namespace.Namespace`. This module gathers the public
names of the four.
"""
from .attach import INIT_LIMITS, attach_preludes, instantiate
from .compiling import build, compile_namespace
from .exports import CompiledNamespace, Export, ExportRecord, ExportTable, NsInstance
from .source import (DEF_META_KEYS, EFFECTS, RESERVED, VISIBILITIES, Component, Definition, NsSpec, PreludeError,
                     as_component, parse_component)

__all__ = [
    "Component", "PreludeError", "as_component", "parse_component", "build", "compile_namespace",
    "attach_preludes", "instantiate", "Export", "ExportRecord", "ExportTable", "CompiledNamespace", "NsInstance",
    "Definition", "NsSpec", "INIT_LIMITS", "RESERVED", "VISIBILITIES", "EFFECTS", "DEF_META_KEYS",
]
