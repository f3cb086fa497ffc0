"""The pattern weigher (ptclisp/patterns/size.py): a bound on a pattern's compiled size, taken from its text
before the regex compiler sees it."""
import pytest
from hypothesis import given, strategies as st

from ptclisp.patterns.size import MAX_EXPANSION, expansion, too_large


@pytest.mark.parametrize("src, weight", [
    ("abc", 3), (r"\d+", 1), ("[abc]d", 2), ("a|bc", 3),   # atoms count 1; alternation adds its branches
    ("a{10}", 10), ("a{2,5}", 5), ("a{3,}", 4),             # a count multiplies by its largest reading
    ("(ab){3}", 6), ("(a{10}){10}", 100),                   # a group repeats all it holds; counts nest
])
def test_the_weight_of_a_pattern(src, weight):
    assert expansion(src) == weight


@pytest.mark.parametrize("src", ["(?x)a{3}", "(a{3}", "(?#c)a{3}"])
def test_text_whose_structure_is_unsure_is_weighed_at_least_as_its_structured_reading(src):
    assert expansion(src) >= 3


def test_the_limit_is_inclusive_and_the_refusal_says_why():
    assert too_large("a" + "{%d}" % MAX_EXPANSION) is None
    why = too_large("a{%d}" % (MAX_EXPANSION + 1))
    assert why is not None and str(MAX_EXPANSION) in why and "nested" in why


def test_nested_counts_stop_being_counted_once_past_the_limit():
    # ten nested {1000} would be 10**30 units: the weigher answers without counting them all
    assert expansion("(" * 10 + "a" + "){1000}" * 10) > MAX_EXPANSION


@given(st.text(alphabet="abcxyz", max_size=50))
def test_plain_letters_weigh_their_length(src):
    assert expansion(src) == len(src)
