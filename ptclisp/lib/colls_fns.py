"""Function combinators and `apply` (docs/spec/functions.md §1.18).

`comp`, `partial`, `complement`, `constantly`, `every-pred`, `some-fn` and
`fnil` return plain Python closures, so they are ordinary PTC function
values. Their arguments are not checked when the combinator is built; a
value that cannot be called fails with `not_callable` when the combined
function runs (so `((comp nil inc) 1)` fails at the call, like Clojure).
`apply` checks its function and spreads its last argument at once.
Imports values, errors, lib.arguments, registry.
"""
from __future__ import annotations

from ..errors import PtcError
from ..values import Keyword, Map, Set, Vector, truthy, type_name
from ..registry.builtins import builtin
from .arguments import need_fn, seq_items

_NO = object()
_FunctionType = type(lambda: None)


def _call(f, args):
    """Call a PTC callable, turning non-callables into `not_callable`."""
    t = type(f)
    if t is Keyword or t is Map or t is Set or t is Vector:
        return f(*args)
    if f is None or t in (int, float, str, bool) or not callable(f):
        raise PtcError("not_callable", f"cannot call a {type_name(f)} as a function")
    return f(*args)


def _fn(py, label: str):
    py.ptc_combinator = label
    return py


def _identity(*args):
    if len(args) != 1:
        raise PtcError("arity_error", f"(comp) is identity and takes 1 argument, got {len(args)}")
    return args[0]


@builtin("comp", "(comp & fs)", groups=("core",), category="combinators")
def comp(*fs):
    """Composes functions right to left: the rightmost receives all the arguments and each function to its left
    receives the previous result. (comp) is identity.

    ((comp str inc) 5) ;=> "6"
    ((comp str +) 1 2 3) ;=> "6"
    ((comp) 42) ;=> 42
    """
    if not fs:
        return _fn(_identity, "comp")
    if len(fs) == 1:
        return fs[0]
    chain = tuple(reversed(fs))

    def composed(*args):
        x = _call(chain[0], args)
        for g in chain[1:]:
            x = _call(g, (x,))
        return x

    return _fn(composed, "comp")


@builtin("partial", "(partial f & args)", groups=("core",), category="combinators")
def partial(f, *args):
    """A function that calls f with the given arguments followed by the arguments it receives.

    ((partial + 10) 5) ;=> 15
    ((partial str "a" "b") "c" "d") ;=> "abcd"
    """
    if not args:
        return f

    def partially(*more):
        return _call(f, args + more)

    return _fn(partially, "partial")


@builtin("complement", "(complement f)", groups=("core",), category="combinators")
def complement(f):
    """A function returning true exactly when f returns nil or false for the same arguments.

    ((complement even?) 3) ;=> true
    (filter (complement even?) [1 2 3 4]) ;=> [1 3]
    """
    def complemented(*args):
        return not truthy(_call(f, args))

    return _fn(complemented, "complement")


@builtin("constantly", "(constantly x)", groups=("core",), category="combinators")
def constantly(x):
    """A function that ignores its arguments and always returns x.

    ((constantly 5) 1 2 3) ;=> 5
    """
    def constant(*_args):
        return x

    return _fn(constant, "constantly")


@builtin("every-pred", "(every-pred p & ps)", groups=("core",), category="combinators")
def every_pred(p, *ps):
    """A predicate that is true when every given predicate is truthy for every argument it receives (always a
    boolean).

    ((every-pred even? pos?) 4 6 8) ;=> true
    ((every-pred even? pos?) -4) ;=> false
    """
    preds = (p, *ps)

    def every(*args):
        for q in preds:
            for a in args:
                if not truthy(_call(q, (a,))):
                    return False
        return True

    return _fn(every, "every-pred")


@builtin("some-fn", "(some-fn f & fs)", groups=("core",), category="combinators")
def some_fn(f, *fs):
    """A function returning the first truthy (f arg), trying each function against each argument in turn; if
    none is truthy it returns the last result (nil or false).

    ((some-fn :a :b) {:b 2}) ;=> 2
    ((some-fn even? pos?) 3) ;=> true
    """
    fns = (f, *fs)

    def some(*args):
        r = None
        for g in fns:
            for a in args:
                r = _call(g, (a,))
                if truthy(r):
                    return r
        return r

    return _fn(some, "some-fn")


@builtin("fnil", "(fnil f x)", "(fnil f x y)", "(fnil f x y z)", groups=("core",), category="combinators")
def fnil(f, x, y=_NO, z=_NO):
    """A function like f that first replaces a nil first (second, third) argument with the matching default x
    (y, z).

    ((fnil + 0) nil 5) ;=> 5
    (update {:n nil} :n (fnil inc 0)) ;=> {:n 1}
    """
    call = _caller(f)
    if y is _NO:   # one default, the common case: no list made per call
        def patched(*args):
            if args and args[0] is None:
                args = (x, *args[1:])
            return call(*args)
        return _fn(patched, "fnil")
    defaults = (x, y) if z is _NO else (x, y, z)

    def patched(*args):  # noqa: F811 - the general form
        if args:
            args = list(args)
            for i, d in enumerate(defaults):
                if i < len(args) and args[i] is None:
                    args[i] = d
        return call(*args)

    return _fn(patched, "fnil")


def _caller(f):
    """What a combinator calls for `f`, decided once: `f` itself when `_call` would call it, else a
    function failing as `_call` does (whether a value can be called never changes)."""
    t = type(f)
    if t is _FunctionType or t is Keyword or t is Map or t is Set or t is Vector:
        return f
    if f is None or t in (int, float, str, bool) or not callable(f):
        def refuse(*args):
            return _call(f, args)
        return refuse
    return f


@builtin("apply", "(apply f args)", "(apply f x ... args)", groups=("core",), category="functions")
def apply_(f, *args):
    """Call f with the given arguments, the last of which is a collection spread into separate arguments: (apply
    + 1 [2 3]) is (+ 1 2 3).

    (apply + [1 2 3]) ;=> 6
    (apply max 1 [5 2]) ;=> 5
    """
    if not args:
        raise PtcError("arity_error", "apply needs a function and a collection of arguments")
    fn = need_fn(f, "apply")
    spread = seq_items(args[-1], "apply")
    return fn(*args[:-1], *spread)


@builtin("memoize", "(memoize f)", groups=("core",), category="functions")
def memoize(f):
    """A function that calls f once per distinct list of arguments and answers later calls with the same
    arguments from its memory. A recursive def through it, (def fib (memoize (fn [n] ... (fib (dec n)) ...))),
    is memoized at every level.

    (let [f (memoize inc)] [(f 1) (f 1)]) ;=> [2 2]
    """
    from ..runtime.meter import current
    from ..values import hk
    memory: dict = {}

    def memoized(*args):
        key = tuple(hk(a) for a in args)
        try:
            return memory[key]
        except KeyError:
            pass
        except TypeError:   # an argument that is no key (a mutable cell): not remembered
            return _call(f, args)
        value = _call(f, args)
        current().alloc(64 + 8 * len(args))   # the entry (its values are charged where they were made)
        memory[key] = value
        return value
    return _fn(memoized, "memoize")


@builtin("comparator", "(comparator pred)", groups=("core",), category="functions")
def comparator(pred):
    """A comparator (for sort and sort-by) from a two-argument predicate meaning 'goes before': -1 when (pred a
    b), 1 when (pred b a), otherwise 0.

    (sort (comparator >) [1 3 2]) ;=> [3 2 1]
    """
    def compare(a, b):
        if truthy(_call(pred, (a, b))):
            return -1
        if truthy(_call(pred, (b, a))):
            return 1
        return 0
    return _fn(compare, "comparator")
