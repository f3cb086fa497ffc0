"""Numeric builtins: arithmetic (docs/spec/functions.md §1.2), comparison (§1.3),
logic and identity (§1.4); the math functions (§6) are in numbers_math.py.

Numbers are Python `int` (unbounded) and `float` (IEEE double). Booleans are
never numbers, so every check is `type(x) is int` / `type(x) is float`.

Speed: `+ - * < > <= >= = inc dec` are the hottest builtins of every program.
Each has a two-argument fast path; the compiler calls the plain functions
`add2 sub2 mul2 lt2 gt2 le2 ge2 eq2` directly for two-argument calls (they are
not registered and have exactly the semantics of the variadic builtins).

Big integers: a product is sized from `bit_length()` *before*
it is computed; results over 64 bits are charged to the meter and results
over `MAX_INT_BITS` are refused with `memory_exceeded`, so a squaring loop
stops at once instead of spending minutes inside one multiplication.

Mixed int/float arithmetic follows the JVM: the integer is widened to a
double, and an integer too large for a double widens to ±Infinity.
Imports values, errors, meter, registry.
"""
from __future__ import annotations

import math

from ..errors import PtcError
from ..runtime.meter import current
from ..values import compare as _compare
from ..values import Keyword, equal, truthy, type_name
from ..registry.builtins import builtin, primitive

INF = math.inf
NAN = math.nan
MAX_INT_BITS = 1 << 18      # about 79,000 decimal digits; printing one takes ~0.1 s

_isinf = math.isinf
_trunc = math.trunc


# ------------------------------------------------------------------ helpers

def _not_num(who: str, *args) -> PtcError:
    """The type_error for the first non-number among `args`."""
    for a in args:
        t = type(a)
        if t is not int and t is not float:
            return PtcError("type_error", f"{who}: expected a number, got {type_name(a)}")
    return PtcError("type_error", f"{who}: expected numbers")  # pragma: no cover


def _not_ordered(who: str, *args) -> PtcError:
    for a in args:
        t = type(a)
        if t is not int and t is not float:
            hint = " (use compare to order strings)" if t is str else ""
            return PtcError("type_error", f"{who}: can only compare numbers, got {type_name(a)}{hint}")
    return PtcError("type_error", f"{who}: can only compare numbers")  # pragma: no cover


def _tof(x) -> float:
    """Widen a number to a float; integers beyond the double range become ±Infinity."""
    try:
        return float(x)
    except OverflowError:
        return INF if x > 0 else -INF


def _is_num(x) -> bool:
    t = type(x)
    return t is int or t is float


def int_result_bits(bits: int, who: str):
    """Charge (or refuse) an integer result of about `bits` bits before it is built."""
    if bits > 64:
        if bits > MAX_INT_BITS:
            raise PtcError(
                "memory_exceeded",
                f"{who}: integer result would need "
                f"{f'about {bits}' if bits < 1 << 64 else 'more than 2**64'} bits (limit {MAX_INT_BITS})",
                details={"limit_bits": MAX_INT_BITS, "requested_bits": bits},
            )
        current().alloc(bits >> 3)


# ------------------------------------------------------------------ two-argument fast paths

@primitive("add")
def add2(a, b):
    """`(+ a b)`."""
    ta = type(a)
    tb = type(b)
    if (ta is int or ta is float) and (tb is int or tb is float):
        try:
            return a + b
        except OverflowError:
            return _tof(a) + _tof(b)
    raise _not_num("+", a, b)


@primitive("sub")
def sub2(a, b):
    """`(- a b)`."""
    ta = type(a)
    tb = type(b)
    if (ta is int or ta is float) and (tb is int or tb is float):
        try:
            return a - b
        except OverflowError:
            return _tof(a) - _tof(b)
    raise _not_num("-", a, b)


@primitive("mul")
def mul2(a, b):
    """`(* a b)`; large integer products are sized before they are computed."""
    ta = type(a)
    tb = type(b)
    if ta is int and tb is int:
        bits = a.bit_length() + b.bit_length()
        if bits > 64:
            int_result_bits(bits, "*")
        return a * b
    if (ta is int or ta is float) and (tb is int or tb is float):
        try:
            return a * b
        except OverflowError:
            return _tof(a) * _tof(b)
    raise _not_num("*", a, b)


def div2(a, b):
    """`(/ a b)`: always a float; integer 0 divisor raises, float 0.0 gives IEEE values."""
    ta = type(a)
    tb = type(b)
    if not ((ta is int or ta is float) and (tb is int or tb is float)):
        raise _not_num("/", a, b)
    if b == 0:
        if tb is int:
            raise PtcError("arithmetic_error", "/: division by zero")
        if a != a or a == 0:
            return NAN
        neg = (a < 0) != (math.copysign(1.0, b) < 0)
        return -INF if neg else INF
    try:
        return a / b
    except OverflowError:
        if ta is int and tb is int:  # the exact quotient is beyond the double range
            return INF if (a > 0) == (b > 0) else -INF
        return _tof(a) / _tof(b)     # a huge integer widened to ±Infinity


@primitive("lt")
def lt2(a, b):
    """`(< a b)`."""
    ta = type(a)
    tb = type(b)
    if (ta is int or ta is float) and (tb is int or tb is float):
        return a < b
    raise _not_ordered("<", a, b)


@primitive("gt")
def gt2(a, b):
    """`(> a b)`."""
    ta = type(a)
    tb = type(b)
    if (ta is int or ta is float) and (tb is int or tb is float):
        return a > b
    raise _not_ordered(">", a, b)


@primitive("le")
def le2(a, b):
    """`(<= a b)`."""
    ta = type(a)
    tb = type(b)
    if (ta is int or ta is float) and (tb is int or tb is float):
        return a <= b
    raise _not_ordered("<=", a, b)


@primitive("ge")
def ge2(a, b):
    """`(>= a b)`."""
    ta = type(a)
    tb = type(b)
    if (ta is int or ta is float) and (tb is int or tb is float):
        return a >= b
    raise _not_ordered(">=", a, b)


@primitive("eq")
def eq2(a, b):
    """`(= a b)`: structural, numbers by value, NaN never equal."""
    ta = type(a)
    if ta is int or ta is float:
        tb = type(b)
        return (tb is int or tb is float) and a == b
    if ta is str:
        return type(b) is str and a == b
    if ta is Keyword or a is None:
        return a is b
    return equal(a, b)


# ------------------------------------------------------------------ §1.2 arithmetic

@builtin("+", "(+)", "(+ x)", "(+ x y & more)", prim="add", groups=("core",), aliases=("+'",),
         category="arithmetic")
def add(*args):
    """Adds numbers; with no arguments gives 0. NaN anywhere gives NaN and Infinity plus -Infinity gives NaN.
    Integers never overflow. `+'` is the same function.

    (+ 1 2 3) ;=> 6
    (+) ;=> 0
    (+ 1 2.5) ;=> 3.5
    """
    if len(args) == 2:
        a, b = args
        ta = type(a)
        tb = type(b)
        if (ta is int or ta is float) and (tb is int or tb is float):
            try:
                return a + b
            except OverflowError:
                return _tof(a) + _tof(b)
        raise _not_num("+", a, b)
    if not args:
        return 0
    acc = args[0]
    if len(args) == 1:
        if _is_num(acc):
            return acc
        raise _not_num("+", acc)
    for x in args[1:]:
        acc = add2(acc, x)
    return acc


@builtin("-", "(- x)", "(- x y & more)", prim="sub", groups=("core",), aliases=("-'",), category="arithmetic")
def sub(x, *more):
    """With one argument negates it; otherwise subtracts the remaining arguments from the first, left to right.
    `-'` is the same function.

    (- 10 3) ;=> 7
    (- 5) ;=> -5
    (- 10 1 2) ;=> 7
    """
    if len(more) == 1:
        b = more[0]
        ta = type(x)
        tb = type(b)
        if (ta is int or ta is float) and (tb is int or tb is float):
            try:
                return x - b
            except OverflowError:
                return _tof(x) - _tof(b)
        raise _not_num("-", x, b)
    if not more:
        t = type(x)
        if t is int or t is float:
            return -x
        raise _not_num("-", x)
    acc = x
    for y in more:
        acc = sub2(acc, y)
    return acc


@builtin("*", "(*)", "(* x)", "(* x y & more)", prim="mul", groups=("core",), aliases=("*'",),
         category="arithmetic")
def mul(*args):
    """Multiplies numbers; with no arguments gives 1. Zero times Infinity is NaN. Integer products are exact;
    one that would be enormous fails with memory_exceeded. `*'` is the same function.

    (* 2 3 4) ;=> 24
    (*) ;=> 1
    (* 1.5 2) ;=> 3.0
    """
    if len(args) == 2:
        a, b = args
        if type(a) is int and type(b) is int:
            bits = a.bit_length() + b.bit_length()
            if bits > 64:
                int_result_bits(bits, "*")
            return a * b
        return mul2(a, b)
    if not args:
        return 1
    acc = args[0]
    if len(args) == 1:
        if _is_num(acc):
            return acc
        raise _not_num("*", acc)
    for x in args[1:]:
        acc = mul2(acc, x)
    return acc


@builtin("/", "(/ x)", "(/ x y & more)", groups=("core",), category="arithmetic")
def div(x, *more):
    """Divides the first argument by each of the others in turn; with one argument gives its reciprocal. The
    result is always a float. An integer 0 divisor is an arithmetic_error; dividing by 0.0 gives Infinity,
    -Infinity or NaN as IEEE does.

    (/ 10 2) ;=> 5.0
    (/ 2) ;=> 0.5
    (/ 1.0 0.0) ;=> ##Inf
    (/ 1 0) ;!! arithmetic_error
    """
    if len(more) == 1:
        return div2(x, more[0])
    if not more:
        return div2(1, x)
    acc = x
    for y in more:
        acc = div2(acc, y)
    return acc


@builtin("inc", "(inc x)", prim="inc", groups=("core",), aliases=("inc'",), category="arithmetic")
def inc(x):
    """The number plus one. Infinity and NaN come back unchanged. `inc'` is the same function.

    (inc 5) ;=> 6
    (inc 1.5) ;=> 2.5
    """
    t = type(x)
    if t is int:
        return x + 1
    if t is float:
        return x + 1.0
    raise _not_num("inc", x)


@builtin("dec", "(dec x)", prim="dec", groups=("core",), aliases=("dec'",), category="arithmetic")
def dec(x):
    """The number minus one. Infinity and NaN come back unchanged. `dec'` is the same function.

    (dec 5) ;=> 4
    (dec 0.5) ;=> -0.5
    """
    t = type(x)
    if t is int:
        return x - 1
    if t is float:
        return x - 1.0
    raise _not_num("dec", x)


def _float_div_parts(who: str, a, b):
    """Float operands of quot/rem/mod and their quotient (JVM double semantics).

    A zero divisor, or a quotient that is NaN or infinite (NaN/Infinity
    operands), is an arithmetic_error, as in Clojure.
    """
    fa, fb = _tof(a), _tof(b)
    if fb == 0:
        raise PtcError("arithmetic_error", f"{who}: division by zero")
    q = fa / fb
    if q != q or _isinf(q):
        raise PtcError("arithmetic_error", f"{who}: no finite quotient for these operands (NaN or Infinity)")
    return fa, fb, q


def _rem_float(who: str, a, b) -> float:
    fa, fb, q = _float_div_parts(who, a, b)
    return fa - _trunc(q) * fb


@builtin("quot", "(quot num div)", groups=("core",), category="math")
def quot(num, div):
    """The quotient of num by div rounded toward zero, always an integer (floats are divided first, then
    truncated). A zero divisor is an arithmetic_error.

    (quot 10 3) ;=> 3
    (quot -7 2) ;=> -3
    (quot 7.5 2) ;=> 3
    """
    if type(num) is int and type(div) is int:
        if div == 0:
            raise PtcError("arithmetic_error", "quot: division by zero")
        q = abs(num) // abs(div)
        return q if (num < 0) == (div < 0) else -q
    if not (_is_num(num) and _is_num(div)):
        raise _not_num("quot", num, div)
    _, _, q = _float_div_parts("quot", num, div)
    return _trunc(q)


@builtin("rem", "(rem num div)", groups=("core",), category="arithmetic")
def rem(num, div):
    """The remainder of truncating division: it has the sign of num. Works on floats. A zero divisor is an
    arithmetic_error.

    (rem 10 3) ;=> 1
    (rem -10 3) ;=> -1
    (rem 5.5 2) ;=> 1.5
    """
    if type(num) is int and type(div) is int:
        if div == 0:
            raise PtcError("arithmetic_error", "rem: division by zero")
        r = num % div
        if r and (num < 0) != (div < 0):
            r -= div
        return r
    if not (_is_num(num) and _is_num(div)):
        raise _not_num("rem", num, div)
    return _rem_float("rem", num, div)


@builtin("mod", "(mod num div)", prim="mod", groups=("core",), category="arithmetic")
def mod(num, div):
    """The remainder of floored division: it has the sign of div. Works on floats. A zero divisor is an
    arithmetic_error.

    (mod 10 3) ;=> 1
    (mod -10 3) ;=> 2
    (mod 10 -3) ;=> -2
    """
    if type(num) is int and type(div) is int:
        if div == 0:
            raise PtcError("arithmetic_error", "mod: division by zero")
        return num % div
    if not (_is_num(num) and _is_num(div)):
        raise _not_num("mod", num, div)
    m = _rem_float("mod", num, div)
    if m == 0 or (num > 0) == (div > 0):
        return m
    return m + _tof(div)


# ------------------------------------------------------------------ §1.3 comparison

@builtin("=", "(= x)", "(= x y & more)", groups=("core",), aliases=("==",), category="comparison", prim="eq",
         returns_bool=True)
def eq(x, *more):
    """True when all arguments are equal: structural over collections, numbers by value (so 1 equals 1.0), NaN
    equal to nothing. A keyword never equals a string. `==` is the same function.

    (= 1 1.0) ;=> true
    (= [1 2] [1 2]) ;=> true
    (= :a "a") ;=> false
    """
    if len(more) == 1:
        return eq2(x, more[0])
    for y in more:
        if not equal(x, y):
            return False
        x = y
    return True


@builtin("not=", "(not= x)", "(not= x y & more)", prim="ne", returns_bool=True, groups=("core",),
         category="comparison")
def not_eq(x, *more):
    """The negation of `=`: true when some argument differs.

    (not= 1 2) ;=> true
    (not= 1 1.0) ;=> false
    """
    return not eq(x, *more)


def _chain(op2, x, more):
    if len(more) == 1:
        return op2(x, more[0])
    if not more:
        return True
    for y in more:
        if not op2(x, y):
            # the remaining arguments are not inspected, as in Clojure
            return False
        x = y
    return True


@builtin("<", "(< x)", "(< x y & more)", prim="lt", returns_bool=True, groups=("core",), category="comparison")
def lt(x, *more):
    """True when the numbers strictly increase. Numbers only: anything else reached is a type_error (use compare
    for strings). Any comparison with NaN is false.

    (< 1 2 3) ;=> true
    (< 1 1) ;=> false
    (< 1.0 ##Inf) ;=> true
    """
    # two arguments are inlined by the compiler; this is the value and the 1- and 3+-argument form
    return _chain(lt2, x, more)


@builtin(">", "(> x)", "(> x y & more)", prim="gt", returns_bool=True, groups=("core",), category="comparison")
def gt(x, *more):
    """True when the numbers strictly decrease. Numbers only; NaN comparisons are false.

    (> 3 2 1) ;=> true
    (> 1 2) ;=> false
    """
    # two arguments are inlined by the compiler; this is the value and the 1- and 3+-argument form
    return _chain(gt2, x, more)


@builtin("<=", "(<= x)", "(<= x y & more)", prim="le", returns_bool=True, groups=("core",), category="comparison")
def le(x, *more):
    """True when the numbers never decrease. Numbers only; NaN comparisons are false.

    (<= 1 1 2) ;=> true
    (<= 2 1) ;=> false
    """
    # two arguments are inlined by the compiler; this is the value and the 1- and 3+-argument form
    return _chain(le2, x, more)


@builtin(">=", "(>= x)", "(>= x y & more)", prim="ge", returns_bool=True, groups=("core",), category="comparison")
def ge(x, *more):
    """True when the numbers never increase. Numbers only; NaN comparisons are false.

    (>= 3 3 1) ;=> true
    (>= ##NaN 0.0) ;=> false
    """
    # two arguments are inlined by the compiler; this is the value and the 1- and 3+-argument form
    return _chain(ge2, x, more)


@builtin("compare", "(compare a b)", groups=("core",), category="comparison")
def compare(a, b):
    """Natural order of two values as -1, 0 or 1: nil first, numbers by value, strings by UTF-16 code units,
    keywords by name, false before true, vectors by length then element by element. Unrelated kinds, maps, sets
    and NaN are a type_error.

    (compare 1 2) ;=> -1
    (compare nil 1) ;=> -1
    (compare "b" "a") ;=> 1
    """
    return _compare(a, b)


# ------------------------------------------------------------------ §1.4 logic and identity

@builtin("not", "(not x)", prim="not", returns_bool=True, groups=("core",), category="logic")
def not_(x):
    """True when x is nil or false, otherwise false.

    (not nil) ;=> true
    (not 0) ;=> false
    """
    return x is None or x is False


@builtin("boolean", "(boolean x)", groups=("core",), category="logic")
def boolean(x):
    """The truthiness of x as a boolean: false for nil and false, true for everything else.

    (boolean 0) ;=> true
    (boolean nil) ;=> false
    """
    return truthy(x)


@builtin("identity", "(identity x)", groups=("core",), category="logic")
def identity(x):
    """Returns its argument unchanged.

    (identity 42) ;=> 42
    (filter identity [1 nil 2]) ;=> [1 2]
    """
    return x
