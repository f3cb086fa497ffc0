"""Forms -> core AST: the `Analyzer`, symbol resolution, calls and literals.

Owns `Analyzer` (one per program) and `Env` (what a program may resolve
against), dispatches special forms through `base.SPECIALS` (filled by
`bindings`, `control` and `iteration`, which the package imports), and runs
the static checks that precede execution: unbound symbols, duplicate literal
keys, malformed forms; `resolve` checks calls (builtin arity, tools, Java
members, qualified names).
Imports errors, meter, forms, values, nodes, the builtin registry, the regex
engine and the analyzer's `base`, `bindings`, `resolve` and `hints`.
"""
from __future__ import annotations

from ..errors import PtcError
from ..runtime.meter import compile_tick
from ..patterns.engine import compile_regex
from ..reader.forms import Form, List, Lit, MapForm, Quote, RegexLit, SetForm, ShortFn, Sym, VarQuote, VecForm
from ..registry.builtins import BUILTINS
from ..values import Keyword, SymbolRef, type_name
from . import nodes as N
from . import bindings as _bindings
from . import resolve as _resolve
from .requires import collect_aliases
from .base import NOT_TAIL, SPECIALS, UNSHADOWABLE, Scope, Tail, check_duplicates, err

class Env:
    """What the analyzer may resolve against, supplied by the host (session)."""

    def __init__(self, user_names=(), tools=None, preludes=None, strict_data=False, history=True,
                 own_namespace=None, protected=()):
        self.user_names = set(user_names)     # names already in the user namespace
        self.tools = tools                    # None = any tool/ name allowed (checked at run time)
        self.preludes = preludes or {}        # ns -> {name: ExportInfo}
        self.strict_data = strict_data
        self.history = history
        self.own_namespace = own_namespace    # set while compiling a prelude namespace
        self.protected = set(protected)


_DEF_HEADS = frozenset(("def", "defonce", "defn", "defn-"))
# the symbols a program must contain to define a name (`_collect_defs`)
DEFINING_HEADS = _DEF_HEADS | {"declare", "require", "ns"}   # (require/ns: aliases to collect)
_OTHER_SEQS = frozenset((VecForm, MapForm, SetForm, ShortFn))


class Analyzer:
    """Analyzes one program (a list of top-level forms)."""

    def __init__(self, env: Env | None = None):
        self.env = env or Env()
        self.program_defs: set[str] = set()
        self.short_fn: dict | None = None     # placeholder state inside #()
        self.ticks = 1024                     # forms until the next look at the compile clock
        self.host_refs: dict = {}             # key -> value the compiled code needs (Java members, exports)
        self.tools_used: set[str] = set()
        self.data_used: set[str] = set()
        self.aliases: dict[str, str] = {}     # alias -> namespace, from top-level require/ns forms
        self.top_requires: set[int] = set()   # ids of those forms (analyzer/requires.py)

    # ---------------------------------------------------------------- entry
    def analyze_program(self, forms: list[Form], may_define: bool = True) -> N.Node:
        """The core AST of a program. `may_define=False` says no symbol of the program is one of
        DEFINING_HEADS (the reader's symbol set shows it), so there are no definitions to collect."""
        if may_define:
            self._collect_defs(forms)
            self.aliases = collect_aliases(self, forms)
        if not forms:
            return N.Const(None)
        body = [self.analyze(f, Scope(), NOT_TAIL) for f in forms]
        return body[0] if len(body) == 1 else N.Do(body, forms[0].span)

    def _collect_defs(self, forms):
        """Names def'd anywhere in the program: later forms and bodies may refer to them."""
        stack = list(forms)
        pop, extend = stack.pop, stack.extend
        while stack:
            f = pop()
            t = type(f)
            if t is List:
                items = f.items
                if items:
                    head = items[0]
                    if type(head) is Sym and head.name in _DEF_HEADS and head.ns is None \
                            and len(items) > 1 and type(items[1]) is Sym and items[1].ns is None:
                        self.program_defs.add(items[1].name)
                    elif type(head) is Sym and head.name == "declare" and head.ns is None:
                        self.program_defs.update(x.name for x in items[1:] if type(x) is Sym and x.ns is None)
                    extend(items)
            elif t in _OTHER_SEQS:
                extend(f.items)

    # ---------------------------------------------------------------- dispatch
    def analyze(self, form: Form, scope: Scope, tail: Tail) -> N.Node:
        self.ticks -= 1
        if not self.ticks:
            self.ticks = 1024
            compile_tick()
        t = type(form)
        if t is Sym:
            if form.ns is None:   # a local: the commonest symbol, resolved here (as `symbol` does first)
                local = scope.vars.get(form.name)
                if local is not None:
                    return N.LocalRef(local, form.span)
            return self.symbol(form, scope)
        if t is List:
            return self.list_form(form, scope, tail)
        if t is Lit:
            return N.Const(form.value, form.span)
        if t is VecForm:
            return self.collection(form, scope, N.VectorLit)
        if t is MapForm:
            return self.map_literal(form, scope)
        if t is SetForm:
            return self.collection(form, scope, N.SetLit)
        if t is ShortFn:
            return _bindings.analyze_short_fn(self, form, scope)
        if t is Quote:
            return N.Const(SymbolRef(form.sym.ns, form.sym.name), form.span)
        if t is VarQuote:
            return self.symbol(form.sym, scope)
        if t is RegexLit:
            try:
                return N.Const(compile_regex(form.source), form.span)
            except PtcError as e:
                raise err("invalid_form", f"invalid regex literal: {e.message}", form) from None
        raise err("invalid_form", f"cannot evaluate {form!r}", form)  # pragma: no cover

    def body(self, forms: list[Form], scope: Scope, tail: Tail, span=None) -> N.Node:
        """An implicit `do`: nil when empty; the last form is in tail position."""
        if not forms:
            return N.Const(None, span)
        if len(forms) == 1:
            return self.analyze(forms[0], scope, tail)
        nodes = [self.analyze(f, scope, NOT_TAIL) for f in forms[:-1]]
        nodes.append(self.analyze(forms[-1], scope, tail))
        return N.Do(nodes, span or forms[0].span)

    # ---------------------------------------------------------------- literals
    def collection(self, form, scope, cls):
        items = self.args(form.items, scope)
        if cls is N.SetLit:
            check_duplicates(form.items, form)
        return cls(items, form.span)

    def map_literal(self, form: MapForm, scope):
        it = form.items
        check_duplicates(it[0::2], form)
        pairs = []
        for i in range(0, len(it), 2):
            pairs.append((self.analyze(it[i], scope, NOT_TAIL), self.analyze(it[i + 1], scope, NOT_TAIL)))
        return N.MapLit(pairs, form.span)

    # ---------------------------------------------------------------- symbols
    def symbol(self, sym: Sym, scope: Scope, *, in_or: bool = False) -> N.Node:
        if sym.ns is not None:
            return self.qualified(sym, scope)
        name = sym.name
        local = scope.vars.get(name)
        if local is not None:
            return N.LocalRef(local, sym.span)
        if name in BUILTINS and name not in self.program_defs and name not in self.env.user_names:
            # (no builtin's name is a placeholder, history or Java spelling: the checks below pass it)
            return N.BuiltinRef(name, sym.span)
        if name.startswith("%"):
            return self.placeholder(sym)
        if name in ("*1", "*2", "*3"):
            return N.HistoryRef(int(name[1]), sym.span)
        if name in self.program_defs or name in self.env.user_names:
            return N.GlobalRef(name, sym.span)
        if name.startswith(".") and len(name) > 1:
            return self.java_method_ref(sym)
        if name.endswith(".") and len(name) > 1:
            return self.java_ctor_ref(sym)
        if name in BUILTINS:
            return N.BuiltinRef(name, sym.span)
        if name in SPECIALS or name == "juxt":
            raise err("invalid_form", f"{name} is a special form and cannot be used as a value", sym)
        if in_or:
            return N.MaybeGlobal(name, sym.span)
        raise self.unbound(sym)

    def unbound(self, sym: Sym) -> PtcError:
        from .hints import unbound_hint
        return err("unbound_var", f"Unable to resolve symbol: {sym.full} in this context{unbound_hint(sym.full)}",
                   sym, unbound_names=[sym.full])

    def placeholder(self, sym: Sym) -> N.Node:
        st = self.short_fn
        if st is None:
            raise err("invalid_placeholder", f"{sym.name} can only be used inside #(...)", sym)
        name = sym.name
        if name == "%&":
            st["rest"] = True
            return N.LocalRef(st["rest_local"], sym.span)
        n = 1 if name == "%" else name[1:]
        try:
            n = int(n)
        except ValueError:
            raise err("invalid_placeholder", f"invalid placeholder {name}", sym) from None
        if n < 1 or n > 20:
            raise err("invalid_form", f"placeholder {name} out of range (%1 to %20)", sym)
        st["max"] = max(st["max"], n)
        locs = st["locals"]
        while len(locs) < n:
            locs.append(N.Local(f"p{len(locs) + 1}"))
        return N.LocalRef(locs[n - 1], sym.span)

    def qualified(self, sym: Sym, scope: Scope) -> N.Node:
        return _resolve.resolve_qualified(self, self.unalias(sym))

    def unalias(self, sym: Sym) -> Sym:
        """`s/union` as `clojure.set/union` where the program required clojure.set :as s."""
        target = self.aliases.get(sym.ns) if self.aliases else None
        return sym if target is None else Sym(target, sym.name, sym.span)

    def java_method_ref(self, sym: Sym) -> N.Node:
        return _resolve.java_method_node(self, sym, None)

    def java_ctor_ref(self, sym: Sym) -> N.Node:
        return _resolve.java_ctor_node(self, sym, None)

    def host_ref(self, key: str, value, span=None, member=None) -> N.Node:
        self.host_refs[key] = value
        return N.HostRef(key, member, span)

    # ---------------------------------------------------------------- lists
    def list_form(self, form: List, scope: Scope, tail: Tail) -> N.Node:
        items = form.items
        if not items:
            raise err("invalid_form", "Empty list is not a valid expression; use [] for an empty vector", form)
        head = items[0]
        if type(head) is Sym and head.ns is None:
            name = head.name
            handler = SPECIALS.get(name)
            if handler is None:
                # a call of a plain name (`call` without its other cases)
                if scope.vars.get(name) is None and name not in self.program_defs \
                        and name not in self.env.user_names:
                    node = _resolve.builtin_call(self, head, items[1:], scope, form)
                    if node is not None:
                        return node
                return N.Call(self.analyze(head, scope, NOT_TAIL), self.args(items[1:], scope), form.span)
            if name in UNSHADOWABLE or scope.vars.get(name) is None:
                return handler(self, form, scope, tail)
        return self.call(form, scope)

    def args(self, forms, scope) -> list[N.Node]:
        """The nodes of `forms`, none in tail position. A literal, or a symbol naming a local, is
        analysed here as `analyze` would (and counts toward the compile clock alike), without a
        call per form: most arguments are such leaves."""
        out = []
        for f in forms:
            if self.ticks > 1:   # (the form that brings the count to zero goes through `analyze`)
                t = type(f)
                if t is Lit:
                    self.ticks -= 1
                    out.append(N.Const(f.value, f.span))
                    continue
                if t is Sym and f.ns is None:
                    local = scope.vars.get(f.name)
                    if local is not None:
                        self.ticks -= 1
                        out.append(N.LocalRef(local, f.span))
                        continue
            out.append(self.analyze(f, scope, NOT_TAIL))
        return out

    def call(self, form: List, scope: Scope) -> N.Node:
        head, rest = form.items[0], form.items[1:]
        th = type(head)
        if th is Sym:
            if head.ns is None:
                name = head.name
                if scope.vars.get(name) is None and name not in self.program_defs and name not in self.env.user_names:
                    node = _resolve.builtin_call(self, head, rest, scope, form)
                    if node is not None:
                        return node
            else:
                return _resolve.qualified_call(self, self.unalias(head), rest, scope, form)
        elif th is Lit:
            v = head.value
            if type(v) is Keyword:
                if len(rest) not in (1, 2):
                    raise err("arity_error", f"keyword :{v.name} called with {len(rest)} arguments (expects 1 or 2)", form)
                return N.RtCall("kw_get", [N.Const(v, head.span)] + self.args(rest, scope), form.span)
            raise err("not_callable", f"{type_name(v)} {head!r} is not a function", form)
        fn = self.analyze(head, scope, NOT_TAIL)
        return N.Call(fn, self.args(rest, scope), form.span)
