"""The PTC-Lisp data model: how every PTC value is represented in Python, compared, ordered, written and walked.

Representation:
    nil -> None, booleans -> bool, integers -> int, floats -> float,
    strings (and characters) -> str, keywords -> `Keyword` (interned),
    vectors -> `Vector`, maps -> `Map`, sets -> `Set`, regexes -> `Regex`,
    functions -> Python callables, quoted symbols -> `SymbolRef`,
    `#'name` displays -> `VarRef`.

Collections are immutable to programs. To keep the common agent idiom of
growing a collection one element at a time linear, each collection type grows
in place in its own way, only when no one else can see the change:
vectors steal the backing list of the version they extend (values/vectors.py),
sets steal the backing dict and leave an undo step (values/sets.py), maps are
extended when their last holder hands them over (values/maps.py; the
reference count in values/ownership.py), and so are vectors nobody else holds
(lib/colls_maps.conj_owned, before trying a steal). `IN_PLACE_GROWTH` below
turns them all off.

The modules, bottom up (each imports only those before it):
    ownership  owner tokens, the lock, the reference-count probes
    keys       the storage identity of keys and set members (`hk`)
    atoms      quoted symbols, vars, regexes, the base of Java values
    maps       keywords and maps;  vectors;  sets
    kinds      `value_kind`, `type_name`, `truthy`
    compare    `equal` and natural order (`compare`)
    text       printed text and the order of map/set views
    walk       the one walk over values, with hooks
    copies     independent copies (`detach`)
    preview    bounded previews
This module re-exports the public names and attaches the collection methods
that need modules above the collection types (their text, their deep copy,
the message of a vector called with a non-index). Outside the package, its
modules import only ptclisp.errors.
"""
from __future__ import annotations

from .atoms import JavaObject, Regex, SymbolRef, VarRef
from .compare import SortKey, compare, equal, utf16_key
from .copies import detach, detach_all
from .keys import MISSING, hk, unhk
from .kinds import is_fn, is_number, truthy, type_name, value_kind
from .maps import Keyword, Map
from .ownership import INLINE_GROWTH, LOCAL_REFS, OWNED_GROWTH, OWNED_REFS, SLOT_LIST_REFS, OwnerToken, owner_token
from .ownership import OWNER as _OWNER
from .preview import PreviewCaps, preview
from .sets import SORTED, Set
from .text import FN_META, float_display, float_readable, fn_label, pr_str, sorted_items, sorted_members, \
    str_of, total_order_key
from .vectors import LIST, LIST_REFS, Vector, is_list, make_list

# The switch for every in-place growth scheme above, for differential tests
# (tests/end_to_end/test_differential.py): with False, evaluations run without an owner token (no
# vector or set steals) and the compiler never hands a map over (no `assoc_owned` and kin),
# so every extension copies. Process-wide; set it before building programs (a program or
# function already compiled keeps what it was built with). Read when a token is installed
# and when a program is compiled, never per operation.
IN_PLACE_GROWTH = True


def set_owner_token(tok):
    """Install `tok` as this thread's owner token (None when IN_PLACE_GROWTH is off); returns the previous one."""
    prev = _OWNER.tok
    _OWNER.tok = tok if IN_PLACE_GROWTH else None
    return prev


# ------------------------------------------------------------------ methods that need the modules above

def _repr(self):
    return pr_str(self)


def _deepcopy(self, memo):
    return detach(self)


def _call_hint(self, arg) -> str:
    """Why `(v arg)` failed for a non-integer arg, and what was probably meant."""
    msg = f"a vector called as a function takes an integer index, got {type_name(arg)}"
    items = self.lst()
    if len(items) == 1 and type(items[0]) is Keyword:
        return f"{msg}; to read a field use {preview(items[0])} instead of [{preview(items[0])}]"
    if len(items) == 1:
        return f"{msg}; to read a field use #(get % {preview(items[0])})"
    return f"{msg}; to follow a path use #(get-in % path)"


for _cls in (Vector, Map, Set):
    _cls.__repr__ = _repr
    _cls.__deepcopy__ = _deepcopy
Vector._call_hint = _call_hint
del _cls

__all__ = [
    "FN_META", "LIST", "SORTED", "INLINE_GROWTH", "IN_PLACE_GROWTH", "JavaObject", "Keyword", "LIST_REFS", "LOCAL_REFS", "MISSING", "Map",
    "OWNED_GROWTH", "OWNED_REFS", "OwnerToken", "SLOT_LIST_REFS", "PreviewCaps", "Regex", "Set", "SortKey", "SymbolRef", "VarRef", "Vector", "compare",
    "detach", "is_list", "make_list", "detach_all", "equal", "float_display", "float_readable", "fn_label", "hk", "is_fn", "is_number",
    "owner_token", "pr_str", "preview", "set_owner_token", "sorted_items", "sorted_members", "str_of",
    "total_order_key", "truthy", "type_name", "unhk", "utf16_key", "value_kind",
]
