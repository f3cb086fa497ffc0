"""`ptclisp.run` with no inputs but the source takes a short path through the input checks;
every other input still goes through them all (same errors as before)."""
import pytest

import ptclisp


def test_defaults_run():
    r = ptclisp.run("(+ 1 2)")
    assert r.ok and r.value == 3


@pytest.mark.parametrize("kwargs,fragment", [
    ({"strict_data": 0}, "strict_data must be True or False"),
    ({"strict_data": None}, "strict_data must be True or False"),
    ({"context": [1]}, "context must be a dict"),
    ({"tools": "x"}, "tools must be a dict"),
    ({"limits": 5}, "limits must be a ptclisp.Limits"),
    ({"limits": {"nope": 1}}, "unknown Limits field"),
    ({"preludes": b"x"}, "preludes must be a path"),
])
def test_other_inputs_still_checked(kwargs, fragment):
    r = ptclisp.run("1", **kwargs)
    assert r.status == "error" and r.error.kind == "type_error"
    assert fragment in r.error.message


def test_limits_dict_on_short_path():
    r = ptclisp.run("(range 10)", limits={"memory_bytes": 10})
    assert r.status == "error" and r.error.kind == "memory_exceeded"
