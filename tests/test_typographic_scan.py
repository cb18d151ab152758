"""typographic_characters (core/place/punctuation.py): the typographic characters a file holds,
read from its bytes without their ASCII, must be exactly those the whole file decoded holds,
for UTF-8 files and for files that are not (broken sequences whose pieces the ASCII between
them kept apart)."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from holon_git.core.place.match import TYPOGRAPHIC
from holon_git.core.place.punctuation import typographic_characters

# whole characters, their pieces (a first byte alone, continuation bytes alone), other
# non-ASCII text and ASCII: the pieces of ’ (e2 80 99) around an "a" join once it is gone.
# A few characters only, so that pieces meet often.
_SOME = [ch.encode() for ch in ("\u2019", "\u2014", "\u00a0", "\u2026")]
_PIECES = [*_SOME, *(e[:1] for e in _SOME), *(e[1:] for e in _SOME), b"\xe2\x80", b"\x99",
           "é".encode(), b"\xff", b"a", b" "]


def _by_decoding(content: bytes) -> frozenset[str]:
    return frozenset(TYPOGRAPHIC) & set(content.decode("utf-8", "surrogateescape"))


@given(st.lists(st.sampled_from(_PIECES), max_size=10))
def test_the_scan_finds_what_decoding_finds(pieces: list[bytes]):
    content = b"".join(pieces)
    assert typographic_characters(content) == _by_decoding(content)


def test_pieces_joined_by_taking_ascii_out_are_not_characters():
    assert typographic_characters(b"\xe2a\x80\x99") == frozenset()
    assert typographic_characters(b"\xe2a\x80\x99 \xe2\x80\x99") == {"\u2019"}
    assert typographic_characters("it’s … — ok".encode()) == {"\u2019", "\u2026", "\u2014"}
    assert typographic_characters(b"plain ASCII") == frozenset()
