"""The fast path of `from_python` (convert._fast) against the general walk (convert._general).

JSON-shaped host data (exact dicts, lists, tuples, sets of atoms, at most 200 levels deep) is
converted by a recursion of its own; anything else starts over with the one iterative walk. Both
must give the same values, with the same key types and the same sharing (one value per host
container, distinct containers distinct), and the same errors, for any host data.
"""
from __future__ import annotations

import copy
import enum
import sys
from collections import OrderedDict

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import ptclisp
from ptclisp.interchange import python as convert
from ptclisp.interchange.python import MAX_DEPTH, HostDataError, from_python
from ptclisp.values import Keyword, Map, Set, Vector
from ptclisp.values.keys import _BoolKey, _FloatKey

K = Keyword


class Color(enum.IntEnum):
    RED = 1


class Name(str):
    pass


def _canon(v, seen: dict):
    """A comparable form of a converted value: types exact (stored keys too), floats by their
    text (nan), each PTC collection numbered where first met and a reference where met again."""
    t = type(v)
    if t is Map or t is Vector or t is Set:
        if id(v) in seen:
            return ("again", seen[id(v)])
        seen[id(v)] = len(seen)
        if t is Vector:
            return ("vector", tuple(_canon(x, seen) for x in v.lst()))
        pairs = dict.items(v) if t is Map else v.d().items()
        return (t.__name__, tuple((_canon(k, seen), _canon(x, seen)) for k, x in pairs))
    if t is _FloatKey or t is _BoolKey:
        return (t.__name__, _canon(v.v, seen))
    if t is float:
        return ("float", repr(v))
    if t in (type(None), bool, int, str):
        return (t.__name__, v)
    if t is Keyword:
        return ("keyword", v.name)
    return ("kept", t.__name__, id(v))   # a host object kept as it is: the very same object


def _outcome(f):
    try:
        return "ok", _canon(f(), {})
    except HostDataError as e:
        return "error", e.kind, e.message, e.reason
    except Exception as e:   # noqa: BLE001 - whatever one raises, the other must raise alike
        return "raised", type(e).__name__, str(e)


def _general(data, strict=False, max_depth=MAX_DEPTH, meter=None):
    """What `from_python` gave before the fast path: an empty dict at once, else the walk."""
    if type(data) is dict and not data:
        return Map()
    return convert._general(data, strict, max_depth, meter, convert._alone())


def _fast(data, strict=False, max_depth=MAX_DEPTH, meter=None):
    if type(data) not in convert._FAST_ROOTS:   # from_python does not take the fast path
        raise convert._Unusual
    alone = convert._alone()
    return convert._fast(data, convert._HostData(strict, max_depth, meter),
                         *(convert._FAST_ALONE if alone > 0 else convert._UNMEASURED))


# ------------------------------------------------------------------ random host data

_atom = (st.none() | st.booleans() | st.integers(-3, 3) | st.floats(allow_nan=True)
         | st.text(max_size=2) | st.sampled_from([K("a"), K("b")]))
_json_atom = st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=4)
_json = st.recursive(_json_atom, lambda ch: st.lists(ch, max_size=5) | st.dictionaries(st.text(max_size=3), ch,
                                                                                      max_size=5), max_leaves=40)
_record = st.dictionaries(st.text(max_size=3), _json_atom, max_size=4)
_json = _json | st.lists(_record, min_size=convert._RECORDS - 1, max_size=convert._RECORDS + 3)
_LAMBDA = lambda: 1  # noqa: E731 - a host function: kept, or refused in strict mode
_odd = st.sampled_from([
    Color.RED, Name("n"), _LAMBDA, len, object(), OrderedDict(a=[1]), ptclisp.read_string("{:a [1 #{2}] 1.5 true}"),
    ptclisp.read_string("[1 {2.5 :x}]"), ptclisp.read_string("#{[1] :k}"), Map({"s": Vector([1])}),
])


def _hashable(x) -> bool:
    try:
        hash(x)
    except TypeError:
        return False
    return True


@st.composite
def _host(draw, odd: bool):
    """Host data whose containers may be shared: each new container takes its parts from atoms (and
    odd values) and from the containers made before it, some several times; sometimes a back edge
    (a cycle) and a wrapping deeper than the fast path's bound."""
    made: list = []
    leaves = (_atom | _odd) if odd else _atom
    for _ in range(draw(st.integers(1, 10))):
        def part(hashable=False):
            pool = [m for m in made if not hashable or _hashable(m)]
            if pool and draw(st.booleans()):
                return draw(st.sampled_from(pool))
            return draw(leaves.filter(_hashable) if hashable else leaves)
        kind = draw(st.sampled_from(["list", "tuple", "dict", "anykeys", "set", "frozenset", "records"]))
        n = draw(st.integers(0, 4))
        if kind == "records":   # a list of dicts of atoms, some made before (shared), or not quite records
            dicts = [m for m in made if type(m) is dict]
            made.append([draw(st.sampled_from(dicts)) if dicts and draw(st.booleans())
                         else {draw(st.text(max_size=2)): draw(_atom) for _ in range(n)}
                         for _ in range(convert._RECORDS + draw(st.integers(-1, 2)))])
        elif kind == "list":
            made.append([part() for _ in range(n)])
        elif kind == "tuple":
            made.append(tuple(part() for _ in range(n)))
        elif kind == "dict":
            made.append({draw(st.text(max_size=2)): part() for _ in range(n)})
        elif kind == "anykeys":
            made.append({part(hashable=True): part() for _ in range(n)})
        else:
            members = [part(hashable=True) for _ in range(n)]
            made.append(set(members) if kind == "set" else frozenset(members))
    root = made[-1] if draw(st.booleans()) else list(made)
    lists = [m for m in made if type(m) is list]
    if lists and draw(st.integers(0, 4)) == 0:
        draw(st.sampled_from(lists)).append(root)   # may close a cycle
    for i in range(draw(st.sampled_from([0, 0, 0, 120, 199, 200, 201, 260]))):
        root = [root] if i % 2 else {"k": root}
    return root


@settings(max_examples=300, deadline=None)
@given(_json)
def test_json_data_takes_the_fast_path_and_gives_what_the_walk_gives(data):
    data = {"data": data}   # the fast path starts at a container (from_python returns atoms at once)
    before = copy.deepcopy(data)
    fast = _outcome(lambda: _fast(data))
    assert fast[0] == "ok"   # no `_Unusual`: JSON data never starts over
    assert fast == _outcome(lambda: _general(data)) == _outcome(lambda: from_python(data, strict=True))
    assert data == before   # the host's data untouched


@settings(max_examples=400, deadline=None)
@given(_host(odd=False), st.booleans(), st.sampled_from([MAX_DEPTH, MAX_DEPTH, 0, 1, 3, 199, 201]))
def test_shared_and_cyclic_data_convert_alike(data, strict, max_depth):
    expected = _outcome(lambda: _general(data, strict, max_depth))
    assert _outcome(lambda: from_python(data, strict=strict, max_depth=max_depth)) == expected
    fast = _outcome(lambda: _fast(data, strict, max_depth))
    assert fast == expected or fast[:2] == ("raised", "_Unusual")


@settings(max_examples=400, deadline=None)
@given(_host(odd=True), st.booleans())
def test_any_host_data_converts_alike(data, strict):
    # PTC values, subclasses, host functions and foreign objects: the fast path starts over with the
    # walk, or (a leaf it can judge: a function, a foreign object, a subclass of an atom) agrees with it
    expected = _outcome(lambda: _general(data, strict))
    assert _outcome(lambda: from_python(data, strict=strict)) == expected
    fast = _outcome(lambda: _fast(data, strict))
    assert fast == expected or fast[:2] == ("raised", "_Unusual")


# ------------------------------------------------------------------ focused cases

def test_the_count_of_a_part_held_once_was_measured_for_the_fast_path_too():
    if sys.gettrace() is not None:
        pytest.skip("measured only without a tracer (coverage, a debugger)")
    convert._alone()
    assert min(convert._FAST_ALONE) > 0


def test_shared_parts_stay_shared_on_the_fast_path():
    x = [1, 2]
    for _ in range(18):   # 2**18 paths: converting each path would not end in time
        x = [x, {"a": x, "b": x}]
    out = _fast(x)
    assert out.lst()[0] is out.lst()[1].lookup("a") is out.lst()[1].lookup("b")
    row = {"id": 1}
    out = _fast([row, row, {"r": row}])
    assert out.lst()[0] is out.lst()[1] is out.lst()[2].lookup("r")
    rows = [row] + [{"id": i} for i in range(convert._RECORDS)] + [row]   # a list of records
    out = _fast({"a": rows, "b": [row, rows]})
    a = out.lookup("a").lst()
    assert a[0] is a[-1] is out.lookup("b").lst()[0] and out.lookup("b").lst()[1] is out.lookup("a")
    assert len({id(m) for m in a}) == len(a) - 1


def test_a_cycle_on_the_fast_path_is_the_walks_error():
    d = {"a": [1, {"b": None}]}
    d["a"][1]["b"] = d
    with pytest.raises(HostDataError) as e:
        _fast(d)
    assert e.value.kind == "type_error" and e.value.reason == "a cycle"
    assert _outcome(lambda: from_python(d)) == _outcome(lambda: _general(d))


def test_keys_keep_their_types():
    out = from_python({1.5: "f", True: "b", 2: "i", None: "n", (1, 2): "t", K("k"): "kw"})
    assert [type(k) for k in dict.keys(out)] == [_FloatKey, _BoolKey, int, type(None), Vector, Keyword]
    assert out.get_exact(1.5) == "f" and out.get_exact(True) == "b" and out.get_exact(Vector([1, 2])) == "t"


def test_data_deeper_than_the_fast_bound_is_converted_by_the_walk():
    x = {"leaf": [1]}
    for _ in range(convert._FAST_DEPTH + 50):
        x = [x]
    with pytest.raises(convert._Unusual):
        _fast(x)
    assert _outcome(lambda: from_python(x)) == _outcome(lambda: _general(x))


def test_a_short_python_stack_falls_back_to_the_walk():
    data = {"a": [{"b": [i, {"c": [i]}]} for i in range(3)]}
    for _ in range(150):
        data = [data]
    expected = _outcome(lambda: _general(data))
    got = []

    def near_the_limit(n):   # leaves fewer frames than the fast path needs, enough for the walk
        if n:
            return near_the_limit(n - 1)
        got.append(from_python(data))
    depth = 0
    f = sys._getframe()
    while f is not None:
        depth, f = depth + 1, f.f_back
    near_the_limit(sys.getrecursionlimit() - depth - 60)
    assert _outcome(lambda: got[0]) == expected


class _Meter:
    def __init__(self, fail_at=None):
        self.checks, self.fail_at = 0, fail_at

    def check(self):
        self.checks += 1
        if self.checks == self.fail_at:
            raise ptclisp.PtcError("timeout", "deadline passed")


def test_the_deadline_is_checked_as_often_as_by_the_walk():
    data = [{"a": [i], "b": {"c": i}} for i in range(3000)]   # 9,001 containers: 8 checks
    fast, walk = _Meter(), _Meter()
    _fast(data, meter=fast)
    _general(data, meter=walk)
    assert fast.checks == walk.checks == 9001 // convert._TICK
    records = [{"i": i} for i in range(3000)]   # one list of records: counted together, as many checks
    fast, walk = _Meter(), _Meter()
    _fast(records, meter=fast)
    _general(records, meter=walk)
    assert fast.checks == walk.checks == 3001 // convert._TICK
    with pytest.raises(ptclisp.PtcError) as e:
        from_python(data, strict=True, meter=_Meter(fail_at=2))
    assert e.value.kind == "timeout"


def test_converting_leaves_no_reference_cycle_behind():
    import gc
    deep_data = {"x": [1]}
    for _ in range(convert._FAST_DEPTH + 5):
        deep_data = [deep_data]
    cases = [{"a": [{"b": 1}]}, [1, (2, 3), {4.5: {5}}], [Map({"a": 1})], deep_data]
    for data in cases:
        from_python(data)   # first uses fill the caches
    gc.disable()
    try:
        for data in cases:
            gc.collect()
            from_python(data)
            assert gc.collect() == 0, data
    finally:
        gc.enable()
