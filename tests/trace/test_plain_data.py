"""Values as trace data (ptclisp/trace/plain_data.py): JSON where JSON carries them, PTC text otherwise."""
import ptclisp
from ptclisp.trace.plain_data import _short_origin, plain, prelude_list


def test_a_value_json_can_carry_becomes_plain_json():
    assert plain(ptclisp.read_string('{:a [1 #{2}]}')) == {"a": [1, [2]]}


def test_a_value_json_cannot_carry_becomes_its_ptc_text_cut_to_the_cap():
    fn = ptclisp.run("(fn [x] x)").value
    assert plain(fn) == {"ptc": "#fn[x]"}
    assert plain(fn, max_chars=3) == {"ptc": "#fn"}


def test_a_prelude_origin_loses_its_directories_but_a_shipped_one_keeps_its_name():
    assert _short_origin("/home/someone/agents/policy.clj") == "policy.clj"
    assert _short_origin("C:\\Users\\someone\\policy.clj") == "policy.clj"
    assert _short_origin("ptclisp.preludes/agent.clj") == "ptclisp.preludes/agent.clj"


def test_an_environment_without_preludes_lists_none():
    assert prelude_list(object()) == []
