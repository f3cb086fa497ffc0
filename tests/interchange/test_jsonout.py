"""The one PTC -> JSON conversion (ptclisp/interchange/json_out.py, docs/json.md), and to_python's keys."""
import io
import json
import sys

import pytest

import ptclisp
from ptclisp.interchange.json_out import MAX_DEPTH, JsonValueError, _encode, dumps, to_json, write_json
from ptclisp.values import Keyword


def value(src: str):
    r = ptclisp.run(src)
    assert r.status == "ok", r.error
    return r.value


# ------------------------------------------------------------------ what converts, and to what

CONVERTS = [
    ("nil", None),
    ("true", True),
    ("42", 42),
    ("1.5", 1.5),
    ('"日本"', "日本"),
    (":k", "k"),                                                           # keywords -> names
    ("#{3 1 2}", [1, 2, 3]),                                               # sets -> arrays, printing order
    ("{:a 1 :b #{1}}", {"a": 1, "b": [1]}),                                # one set no longer spoils the map
    ("{:a :b}", {"a": "b"}),                                               # keyword keys and values
    ("(frequencies [1 1 2])", {"1": 2, "2": 1}),                           # integer keys -> their text
    ("{1.5 :x true 1 false 2 nil 3}", {"1.5": "x", "true": 1, "false": 2, "null": 3}),
    ('[1 [2 #{[3]}] {"s" nil :t [:u]}]', [1, [2, [[3]]], {"s": None, "t": ["u"]}]),   # nested
    ('(java.time.LocalDate/parse "2024-01-02")', "2024-01-02"),            # Java values -> canonical text
]


@pytest.mark.parametrize("src,expected", CONVERTS, ids=[c[0] for c in CONVERTS])
def test_converts(src, expected):
    got = to_json(value(src))
    assert got == expected
    assert json.loads(dumps(value(src))) == expected


def test_map_members_follow_the_printing_order():
    assert dumps(value("{:b 1 :a 2 :c {:z 1 :y 2}}")) == '{"a": 2, "b": 1, "c": {"y": 2, "z": 1}}'


def test_host_containers_follow_the_same_rules():
    data = {"v": value("{:a #{1}}"), 2: (1, Keyword("k")), "s": {3}}
    assert to_json(data) == {"v": {"a": [1]}, "2": [1, "k"], "s": [3]}
    assert list(to_json({"z": 1, "a": 2})) == ["z", "a"]        # a host dict keeps its own order
    with pytest.raises(JsonValueError, match="both become the JSON key"):
        to_json({1: "a", "1": "b"})


# ------------------------------------------------------------------ what is refused, and how it is named

REFUSED = [
    ("##NaN", "type_error", "##NaN has no JSON form; JSON has no NaN or infinity", []),
    ("[1 {:x [##Inf]}]", "type_error", "##Inf has no JSON form at [1 :x 0]", [1, "x", 0]),
    ("{:a ##-Inf}", "type_error", "##-Inf has no JSON form at [:a]", ["a"]),
    ("{##NaN 1}", "type_error", "the map key ##NaN has no JSON form", []),
    ('{1 2 "1" 3}', "public_projection_collision", 'map keys 1 and "1" both become the JSON key "1"', []),
    ('{:m {true 1 "true" 2}}', "public_projection_collision",
     'map keys true and "true" both become the JSON key "true" at [:m]', ["m"]),
    ("{:f inc}", "type_error", "a function has no JSON form at [:f]", ["f"]),
    ("[(fn [x] x)]", "type_error", "a function has no JSON form at [0]", [0]),
    ("(def v 1)", "type_error", "a var has no JSON form", []),
    ('#"re"', "type_error", "a regex has no JSON form", []),
    ("'sym", "type_error", "a symbol has no JSON form", []),
    ("{[1] 2}", "type_error", "a vector map key has no JSON form", []),
]


@pytest.mark.parametrize("src,kind,message,path", REFUSED, ids=[c[0] for c in REFUSED])
def test_refuses_and_names_what_and_where(src, kind, message, path):
    with pytest.raises(JsonValueError) as ei:
        to_json(value(src))
    assert ei.value.kind == kind
    assert message in ei.value.message
    assert ei.value.details["path"] == path
    with pytest.raises(JsonValueError):
        dumps(value(src))


def test_keyword_and_string_key_collision_names_both_keys():
    with pytest.raises(JsonValueError) as ei:
        to_json(value('{:a 1 "a" 2}'))
    assert ei.value.kind == "public_projection_collision"
    assert ':a' in ei.value.message and '"a"' in ei.value.message


def test_the_error_is_a_ptc_error_and_a_value_error():
    with pytest.raises(JsonValueError) as ei:
        to_json(float("nan"))
    assert isinstance(ei.value, ptclisp.PtcError) and isinstance(ei.value, ValueError)


def test_integers_beyond_the_hosts_digit_limit_are_refused():
    big = 10 ** 5000
    before = sys.get_int_max_str_digits()
    sys.set_int_max_str_digits(4300)
    try:
        with pytest.raises(JsonValueError, match="more than 4300 digits"):
            to_json([big])
        with pytest.raises(JsonValueError, match="more than 4300 digits"):
            to_json({big: 1})
    finally:
        sys.set_int_max_str_digits(before)


# ------------------------------------------------------------------ depth and text

def test_deep_data_converts_and_encodes_without_recursion():
    deep = value("(reduce (fn [a _] [a]) [] (range 5000))")
    assert dumps(deep) == "[" * 5001 + "]" * 5001
    nested = value("(reduce (fn [a i] {:k a}) {} (range 3000))")
    assert dumps(nested).count('{"k": ') == 3000


def test_data_nested_beyond_the_bound_is_refused():
    x: list = []
    for _ in range(MAX_DEPTH + 1):
        x = [x]
    with pytest.raises(JsonValueError, match=f"nested deeper than {MAX_DEPTH} levels"):
        to_json(x)


SAMPLES = [
    {"a": [1, 2, {"b": None, "c": [True, False, 1.5, 'é"\n\u2028😀']}], "z": {}, "y": []},
    [], {}, [[[]]], "x", 3, None, [{"k": [{}]}],
]


@pytest.mark.parametrize("indent", [None, 2])
@pytest.mark.parametrize("sort_keys", [False, True])
@pytest.mark.parametrize("ensure_ascii", [False, True])
def test_the_iterative_encoder_writes_what_json_dumps_writes(indent, sort_keys, ensure_ascii):
    for data in SAMPLES:
        assert _encode(data, indent, sort_keys, ensure_ascii) == json.dumps(
            data, ensure_ascii=ensure_ascii, indent=indent, sort_keys=sort_keys)


def test_write_json_stays_valid_json_on_an_ascii_stream():
    raw = io.BytesIO()
    stream = io.TextIOWrapper(raw, encoding="ascii")
    write_json(stream, value('{:s "é日本"}'))
    stream.flush()
    text = raw.getvalue().decode("ascii")
    assert "\\u00e9\\u65e5\\u672c" in text and json.loads(text) == {"s": "é日本"}


# ------------------------------------------------------------------ to_python: Python keys, no silent merge

def test_to_python_keeps_key_types():
    assert ptclisp.to_python(value('{1 2 "1" 3}')) == {1: 2, "1": 3}


@pytest.mark.parametrize("src,fragment", [
    ('{:a 1 "a" 2}', 'map keys :a and "a"'),
    ("(hash-map 1 :a 1.0 :b)", "map keys 1 and 1.0"),
    ('#{:a "a"}', 'set members :a and "a"'),
])
def test_to_python_refuses_keys_python_would_merge(src, fragment):
    with pytest.raises(ptclisp.PtcError) as ei:
        ptclisp.to_python(value(src))
    assert ei.value.kind == "public_projection_collision"
    assert fragment in ei.value.message
