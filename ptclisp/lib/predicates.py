"""Type and shape predicates, `type` (docs/spec/functions.md §1.5) and the numeric
predicates (§1.6).

Every predicate here is total: it never raises, whatever it is given, and
answers `true` or `false` (the numeric ones answer false for non-numbers).
`describe` lives in lib/describe.py.
Imports values, lib.arguments, registry.
"""
from __future__ import annotations

import math

from ..values import JavaObject, Keyword, Map, Regex, Set, Vector, is_fn, is_list
from .arguments import count_str
from ..registry.builtins import builtin

_isinf = math.isinf
_CORE = ("core",)


def _pred(name: str, doc: str, *examples: str, core: bool = True, prim: str | None = None):
    return builtin(name, f"({name} x)", doc=doc, groups=_CORE if core else (), category="predicates",
                   examples=examples, returns_bool=True, prim=prim)


# ------------------------------------------------------------------ kinds of value

@_pred("nil?", "True when x is nil.", "(nil? nil) ;=> true", "(nil? false) ;=> false", prim="isnil")
def is_nil(x):
    return x is None


@_pred("some?", "True when x is anything but nil (false included).", "(some? false) ;=> true",
       "(some? nil) ;=> false", prim="issome")
def is_some(x):
    return x is not None


@_pred("boolean?", "True when x is true or false.", "(boolean? false) ;=> true", "(boolean? nil) ;=> false")
def is_boolean(x):
    return type(x) is bool


@_pred("true?", "True only for the value true itself.", "(true? true) ;=> true", "(true? 1) ;=> false")
def is_true(x):
    return x is True


@_pred("false?", "True only for the value false itself.", "(false? false) ;=> true", "(false? nil) ;=> false")
def is_false(x):
    return x is False


@_pred("number?", "True for integers and floats, including ##Inf, ##-Inf and ##NaN.",
       "(number? 1.5) ;=> true", "(number? \"1\") ;=> false")
def is_number(x):
    t = type(x)
    return t is int or t is float


def _is_int(x):
    return type(x) is int


builtin("int?", "(int? x)", doc="True for integers of any size.", groups=_CORE, category="predicates",
        returns_bool=True,
        examples=("(int? 42) ;=> true", "(int? 42.0) ;=> false"), aliases=("integer?",))(_is_int)


def _is_float(x):
    return type(x) is float


builtin("float?", "(float? x)", doc="True for floats, ##Inf and ##NaN included. `double?` is the same function.",
        returns_bool=True,
        groups=_CORE, category="predicates", aliases=("double?",),
        examples=("(float? 1.5) ;=> true", "(float? 1) ;=> false"))(_is_float)


@_pred("rational?", "True for integers (there are no ratios or decimals).", "(rational? 3) ;=> true",
       "(rational? 0.5) ;=> false")
def is_rational(x):
    return type(x) is int


@_pred("decimal?", "Always false: there is no BigDecimal type.", "(decimal? 1.5) ;=> false")
def is_decimal(x):
    return False


@_pred("ratio?", "Always false: there is no ratio type.", "(ratio? 0.5) ;=> false")
def is_ratio(x):
    return False


@_pred("nat-int?", "True for integers >= 0.", "(nat-int? 0) ;=> true", "(nat-int? -1) ;=> false")
def is_nat_int(x):
    return type(x) is int and x >= 0


@_pred("pos-int?", "True for integers > 0.", "(pos-int? 1) ;=> true", "(pos-int? 1.0) ;=> false")
def is_pos_int(x):
    return type(x) is int and x > 0


@_pred("neg-int?", "True for integers < 0.", "(neg-int? -1) ;=> true", "(neg-int? 0) ;=> false")
def is_neg_int(x):
    return type(x) is int and x < 0


@_pred("infinite?", "True for ##Inf and ##-Inf; false for every other value, non-numbers included.",
       "(infinite? ##-Inf) ;=> true", "(infinite? 1e308) ;=> false")
def is_infinite(x):
    return type(x) is float and _isinf(x)


@_pred("NaN?", "True for ##NaN; false for every other value, non-numbers included.",
       "(NaN? ##NaN) ;=> true", "(NaN? 0) ;=> false")
def is_nan(x):
    return type(x) is float and x != x


@_pred("string?", "True for strings (character literals are strings too).", "(string? \"a\") ;=> true",
       "(string? :a) ;=> false")
def is_string(x):
    return type(x) is str


@_pred("char?", "True for a string of exactly one character (one grapheme).", "(char? \\a) ;=> true",
       "(char? \"ab\") ;=> false")
def is_char(x):
    if type(x) is not str or not x:
        return False
    return len(x) == 1 or count_str(x) == 1


@_pred("keyword?", "True for keywords.", "(keyword? :a) ;=> true", "(keyword? \"a\") ;=> false")
def is_keyword(x):
    return type(x) is Keyword


@_pred("symbol?", "Always false: a quoted symbol is an inert reference, not a symbol value.",
       "(symbol? 'a) ;=> false")
def is_symbol(x):
    return False


@_pred("vector?", "True for vectors (not for lists: '(1 2) or what `list` builds).", "(vector? [1]) ;=> true",
       "(vector? '(1)) ;=> false")
def is_vector(x):
    return type(x) is Vector and not is_list(x)


@_pred("list?", "True for lists: '(1 2) and what `list` builds (a sequence function's result is a vector).",
       "(list? '(1 2)) ;=> true", "(list? [1 2]) ;=> false")
def is_list_(x):
    return is_list(x)


@_pred("map?", "True for maps.", "(map? {:a 1}) ;=> true", "(map? [[:a 1]]) ;=> false")
def is_map(x):
    return type(x) is Map


@_pred("fn?", "True for function values: closures, builtins, combinator results, tool and Java "
              "callables. Keywords, maps and sets are callable but are not functions.",
       "(fn? inc) ;=> true", "(fn? :a) ;=> false")
def is_fn_(x):
    return is_fn(x)


@_pred("ifn?", "True for anything that can be called: functions, keywords, maps, sets and vectors "
               "(a vector is called with an index).",
       "(ifn? :a) ;=> true", "(ifn? [1]) ;=> true", "(ifn? \"a\") ;=> false")
def is_ifn(x):
    t = type(x)
    return t is Keyword or t is Map or t is Set or t is Vector or is_fn(x)


# ------------------------------------------------------------------ collection shapes

@_pred("coll?", "True for vectors, maps and sets (strings are not collections here).",
       "(coll? [1]) ;=> true", "(coll? \"abc\") ;=> false")
def is_coll(x):
    t = type(x)
    return t is Vector or t is Map or t is Set


@_pred("sequential?", "True for vectors, the only sequential type.", "(sequential? [1]) ;=> true",
       "(sequential? #{1}) ;=> false")
def is_sequential(x):
    return type(x) is Vector


@_pred("seq?", "True for vectors, which stand in for Clojure's seqs and lists.", "(seq? [1 2]) ;=> true",
       "(seq? {:a 1}) ;=> false")
def is_seq(x):
    return type(x) is Vector


@_pred("associative?", "True for vectors and maps (collections with keys or indexes).",
       "(associative? {:a 1}) ;=> true", "(associative? #{1}) ;=> false")
def is_associative(x):
    t = type(x)
    return t is Vector or t is Map


@_pred("counted?", "True for vectors, maps and sets, whose size is known at once.",
       "(counted? #{1}) ;=> true", "(counted? \"abc\") ;=> false")
def is_counted(x):
    t = type(x)
    return t is Vector or t is Map or t is Set


@_pred("indexed?", "True for vectors.", "(indexed? [1]) ;=> true", "(indexed? {:a 1}) ;=> false")
def is_indexed(x):
    return type(x) is Vector


@_pred("reversible?", "True for vectors.", "(reversible? [1]) ;=> true", "(reversible? #{1}) ;=> false")
def is_reversible(x):
    return type(x) is Vector


@_pred("sorted?", "Always false: there are no sorted collections.", "(sorted? [1 2]) ;=> false")
def is_sorted(x):
    return False


@_pred("seqable?", "True for values sequence functions accept: vectors, maps, sets, strings and nil.",
       "(seqable? \"abc\") ;=> true", "(seqable? 1) ;=> false")
def is_seqable(x):
    t = type(x)
    return x is None or t is Vector or t is Map or t is Set or t is str


@_pred("map-entry?", "Always false: map entries are plain two-element vectors.",
       "(map-entry? (first (seq {:a 1}))) ;=> false")
def is_map_entry(x):
    return False


# ------------------------------------------------------------------ type

_TYPE_KW = {
    bool: Keyword("boolean"), int: Keyword("number"), float: Keyword("number"), str: Keyword("string"),
    Keyword: Keyword("keyword"), Vector: Keyword("vector"), Map: Keyword("map"), Set: Keyword("set"),
    Regex: Keyword("regex"),
}
_FUNCTION = Keyword("function")
_JAVA = Keyword("java_object")
_UNKNOWN = Keyword("unknown")


@builtin("type", "(type x)", groups=_CORE, category="predicates")
def type_(x):
    """The kind of x as a keyword: :boolean :number :string :keyword :vector :map :set :function :regex or
    :java_object; nil for nil; :unknown otherwise (e.g. a quoted symbol).

    (type 1) ;=> :number
    (type "a") ;=> :string
    (type nil) ;=> nil
    """
    if x is None:
        return None
    k = _TYPE_KW.get(type(x))
    if k is not None:
        return k
    if isinstance(x, JavaObject):
        return _JAVA
    if is_fn(x):
        return _FUNCTION
    return _UNKNOWN


# ------------------------------------------------------------------ §1.6 numeric predicates

def _pred_num(name: str, doc: str, *examples: str, prim: str | None = None):
    return builtin(name, f"({name} x)", doc=doc, groups=_CORE, category="predicates", examples=examples,
                   returns_bool=True, prim=prim)


@_pred_num("zero?", "True when x is a number equal to zero (0, 0.0 or -0.0); false for anything else, nil included.",
           "(zero? 0) ;=> true", "(zero? 0.0) ;=> true", "(zero? nil) ;=> false", prim="zero")
def is_zero(x):
    t = type(x)
    return (t is int or t is float) and x == 0


@_pred_num("pos?", "True when x is a number above zero (##Inf included); false for NaN and non-numbers.",
           "(pos? 3) ;=> true", "(pos? 0) ;=> false")
def is_pos(x):
    t = type(x)
    return (t is int or t is float) and x > 0


@_pred_num("neg?", "True when x is a number below zero (##-Inf included); false for NaN and non-numbers.",
           "(neg? -3) ;=> true", "(neg? 0) ;=> false")
def is_neg(x):
    t = type(x)
    return (t is int or t is float) and x < 0


def _whole_int(x):
    """x as an integer when it is an integer or a whole finite float, else None."""
    t = type(x)
    if t is int:
        return x
    if t is float and not _isinf(x) and x == x and x == math.floor(x):
        return int(x)
    return None


@_pred_num("even?", "True for even integers and even whole-number floats (4.0); false for other "
                    "floats and non-numbers.",
           "(even? 4) ;=> true", "(even? 4.0) ;=> true", "(even? 4.5) ;=> false")
def is_even(x):
    n = _whole_int(x)
    return n is not None and n % 2 == 0


@_pred_num("odd?", "True for odd integers and odd whole-number floats (3.0); false for other "
                   "floats and non-numbers.",
           "(odd? 3) ;=> true", "(odd? 2) ;=> false", "(odd? \"x\") ;=> false")
def is_odd(x):
    n = _whole_int(x)
    return n is not None and n % 2 == 1
