"""`(require '[clojure.string :as str])` and `(ns name (:require [clojure.set :as s]))` in programs.

Programs have no namespaces of their own; these forms only give aliases to the namespaces that
exist (clojure.string, clojure.set, clojure.walk, json, regex, and the attached preludes). The
aliases are collected from the program's top-level forms before anything is analyzed
(`collect_aliases`), so every qualified name of the program sees them; each form itself is nil.
An alias lasts for the program it is written in.
"""
from __future__ import annotations

from ..registry import builtins as R
from ..reader.forms import List, Lit, Quote, Sym, VecForm
from ..values import Keyword
from . import nodes as N
from .base import err, special


def _known(az, ns: str) -> bool:
    return ns in R.QUALIFIERS or ns in az.env.preludes


def _libspec(az, spec, out: dict, where):
    """Record the alias of one libspec `[ns :as alias]` (a bare `ns` is allowed and names nothing)."""
    if type(spec) is Sym and spec.ns is None:
        if not _known(az, spec.name):
            raise _unknown(az, spec.name, spec)
        return
    if type(spec) is not VecForm or not spec.items or type(spec.items[0]) is not Sym:
        raise err("invalid_form", f"{where} takes libspecs like [clojure.string :as str], got {spec!r}", spec)
    target = spec.items[0].full
    if not _known(az, target):
        raise _unknown(az, target, spec.items[0])
    opts = spec.items[1:]
    if len(opts) % 2:
        raise err("invalid_form", f"{where}: options come in pairs (:as alias), got {spec!r}", spec)
    for i in range(0, len(opts), 2):
        k, v = opts[i], opts[i + 1]
        if not (type(k) is Lit and type(k.value) is Keyword):
            raise err("invalid_form", f"{where}: expected an option keyword such as :as, got {k!r}", k)
        if k.value.name == "as" and type(v) is Sym and v.ns is None:
            out[v.name] = target
        elif k.value.name == "refer":
            raise err("invalid_form", f"{where}: :refer is not supported; use :as and qualified names "
                                      f"(str/join)", k)
        else:
            raise err("invalid_form", f"{where}: only :as alias is supported, got {k!r} {v!r}", k)


def _unknown(az, ns, form):
    available = sorted(set(R.QUALIFIERS) | set(az.env.preludes))
    return err("invalid_form", f"unknown namespace {ns} (available: {', '.join(available)})", form,
               kind="unknown_namespace", rejected_namespace=ns, available_namespaces=available)


def _quoted(f):
    """The form under a quote: `'[...]` reads as (quote [...]), `'name` as a Quote."""
    if type(f) is Quote:
        return f.sym
    if type(f) is List and len(f.items) == 2 and type(f.items[0]) is Sym and f.items[0].name == "quote":
        return f.items[1]
    return None


def require_aliases(az, form: List) -> dict:
    out: dict = {}
    for arg in form.items[1:]:
        spec = _quoted(arg)
        if spec is None:
            raise err("invalid_form", "require takes quoted libspecs: (require '[clojure.string :as str])", arg)
        _libspec(az, spec, out, "require")
    return out


def ns_aliases(az, form: List) -> dict:
    items = form.items
    if len(items) < 2 or type(items[1]) is not Sym:
        raise err("invalid_form", "ns needs a name: (ns name (:require [clojure.set :as s]))", form)
    out: dict = {}
    rest = items[2:]
    if rest and type(rest[0]) is Lit and type(rest[0].value) is str:
        rest = rest[1:]   # a docstring
    for clause in rest:
        if not (type(clause) is List and clause.items and type(clause.items[0]) is Lit
                and clause.items[0].value == Keyword("require")):
            raise err("invalid_form", f"only (:require ...) clauses are supported in ns, got {clause!r}", clause)
        for spec in clause.items[1:]:
            _libspec(az, spec, out, "(:require ...)")
    return out


def collect_aliases(az, forms) -> dict:
    """The aliases the program's top-level require and ns forms give (each such form is noted in
    `az.top_requires`: one anywhere else is refused, as its aliases would come too late)."""
    out: dict = {}
    for f in forms:
        if type(f) is List and f.items and type(f.items[0]) is Sym and f.items[0].ns is None:
            head = f.items[0].name
            if head == "require":
                out.update(require_aliases(az, f))
                az.top_requires.add(id(f))
            elif head == "ns" and az.env.own_namespace is None:
                out.update(ns_aliases(az, f))
                az.top_requires.add(id(f))
    return out


def _placed(az, form):
    head = form.items[0].name
    if id(form) not in az.top_requires:
        raise err("invalid_form", f"{head} must stand at the top level of the program (its aliases apply to "
                                  f"the whole program)", form)
    return N.Const(None, form.span)


@special("require")
def analyze_require(az, form, scope, tail):
    return _placed(az, form)


@special("ns")
def analyze_ns(az, form, scope, tail):
    if az.env.own_namespace is not None:
        raise err("invalid_form", "ns is not allowed here", form)
    return _placed(az, form)
