"""Rendering values as text (docs/spec/runtime.md §11): the API the layers above the data model use.

    pr_str(x)      readable text (`pr-str`)       str_of(x)   display text (`str`)
    preview(x)     a bounded structural preview   PreviewCaps its bounds
    float_readable / float_display, fn_label, FN_META (closure code -> parameter names)

They are part of the data model, since the order of map and set views falls
back on the text of values and a vector's call error shows a preview: they
live in values/text.py and values/preview.py, and this module names them for
everything above.
Imports values.
"""
from __future__ import annotations

from .values.preview import PreviewCaps, preview
from .values.text import FN_META, float_display, float_readable, fn_label, pr_str, str_of

__all__ = ["FN_META", "PreviewCaps", "float_display", "float_readable", "fn_label", "pr_str", "preview", "str_of"]
