"""core/place/blanks.py: a run of lines sought on a file's bytes with blanks ignored answers as
keying every line of the file and comparing windows would (the whitespace level's definition),
for any bytes: blanks of every kind, CR, lines without a newline, blank lines, a file's end."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from holon_git.core.place.blanks import copy_elsewhere
from holon_git.core.place.match import KEYS, WHITESPACE, split_lines

KEY = KEYS[WHITESPACE]
PIECES = [b"a", b"b", b"ab", b"a.b", b"*", b"(", b" ", b"  ", b"\t", b"\r", b"\x0b", b"\x0c"]


def by_definition(data: bytes, lines: list[bytes], skip: range) -> bool:
    keys = [KEY(line) for line in split_lines(data)]
    wanted = [KEY(line) for line in lines]
    return any(keys[at:at + len(wanted)] == wanted for at in range(len(keys)) if at not in skip)


line = st.builds(lambda parts, end: b"".join(parts) + end,
                 st.lists(st.sampled_from(PIECES), max_size=5),
                 st.sampled_from([b"\n", b"\r\n", b""]))


@pytest.mark.slow
@settings(max_examples=1500, deadline=None)
@given(file=st.lists(st.lists(st.sampled_from(PIECES), max_size=4), max_size=8),
       end=st.booleans(), lines=st.lists(line, min_size=1, max_size=3),
       first=st.integers(0, 8), size=st.integers(0, 3))
def test_same_answer_as_keying_every_line(file: list[list[bytes]], end: bool,
                                          lines: list[bytes], first: int, size: int):
    data = b"\n".join(b"".join(parts) for parts in file) + (b"\n" if end and file else b"")
    skip = range(first, first + size)
    assert copy_elsewhere(data, lines, skip) == by_definition(data, lines, skip)


def test_examples():
    data = b"def f():\n    return  1\n\n\tx = 2\n"
    assert copy_elsewhere(data, [b"return 1\n"], range(0))
    assert not copy_elsewhere(data, [b"return 1\n"], range(1, 2))  # its only copy skipped
    assert copy_elsewhere(data, [b"\n", b"x   =  2"], range(0))  # a blank line, then words
    assert not copy_elsewhere(data, [b"turn 1\n"], range(0))  # a word's tail is not a word
    assert not copy_elsewhere(data, [b"x = 2\n", b"\n"], range(0))  # no line after the last
    assert not copy_elsewhere(b"a\n", [b" \r\n"], range(0))  # nor a blank one
