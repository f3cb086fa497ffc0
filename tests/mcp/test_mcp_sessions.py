"""The session store of `ptclisp mcp serve` (ptclisp/mcp/sessions.py): bounded in number and idle time.

Pure Python, no MCP SDK needed; the clock is a counter the test moves.
"""
import pytest

from ptclisp.mcp.sessions import MAX_NAME_CHARS, SessionStore


class Clock:
    def __init__(self):
        self.now = 1000.0

    def __call__(self):
        return self.now


def store(ttl=10.0, n=2):
    made = []

    def factory():
        made.append(object())
        return made[-1]

    clock = Clock()
    return SessionStore(factory, ttl, n, clock), clock, made


def test_same_name_same_session():
    s, _, made = store()
    a, note = s.open("a")
    b, _ = s.open("a")
    assert a is b and a.session is made[0] and len(made) == 1 and note is None


def test_idle_session_expires_and_the_next_open_says_why():
    s, clock, made = store(ttl=10)
    first, _ = s.open("a")
    clock.now += 10.5
    assert s.sweep() == ["a"] and "a" not in s
    again, note = s.open("a")
    assert again is not first and again.session is made[1]
    assert "idle for more than 10 s" in note and "--session-ttl" in note


def test_use_keeps_a_session_alive():
    s, clock, _ = store(ttl=10)
    e, _ = s.open("a")
    for _ in range(5):
        clock.now += 6
        s.touch(e)
        assert s.sweep() == []
    assert "a" in s


def test_opening_one_too_many_evicts_the_least_recently_used():
    s, clock, _ = store(n=2)
    s.open("a")
    clock.now += 1
    s.open("b")
    clock.now += 1
    s.open("a")           # a is now the most recently used
    clock.now += 1
    s.open("c")           # evicts b
    assert s.names() == ["a", "c"]
    _, note = s.open("b")
    assert "least recently used of 2 sessions" in note and "--max-sessions" in note
    assert len(s) == 2


def test_drop_remembers_the_reason_once():
    s, _, _ = store()
    s.open("a")
    assert s.drop("a", "it grew too big")
    assert not s.drop("a", "again")
    _, note = s.open("a")
    assert note == "it grew too big"
    _, note = s.open("a")
    assert note is None


def test_touch_after_eviction_does_not_bring_it_back():
    s, _, _ = store(n=1)
    a, _ = s.open("a")
    s.open("b")
    s.touch(a)
    assert s.names() == ["b"]


@pytest.mark.parametrize("name, why", [("", "non-empty"), ("x" * (MAX_NAME_CHARS + 1), "at most"),
                                       ("a\nb", "printable"), (3, "non-empty string")])
def test_bad_names_are_refused(name, why):
    s, _, made = store()
    with pytest.raises(ValueError, match=why):
        s.open(name)
    assert not made


def test_bounds_must_be_sensible():
    with pytest.raises(ValueError):
        SessionStore(object, 10, 0)
    with pytest.raises(ValueError):
        SessionStore(object, 0, 3)
