"""A hunk placed with punctuation ignored: typographic characters in its added lines written
as the ASCII the file uses.

Where the matched lines show a typographic character in the patch and its ASCII form in the
file (a ’ for a '), a transport "smartened" the patch, added lines included: those characters,
and their families (‘ with ’), are written as ASCII ('punctuation_normalized'). Quotes go
together: a transport that smartened single quotes smartened double ones (and the reverse), so
evidence of either normalizes both, unless the file itself has the other family anywhere. A
family the file itself uses at the matched lines is left as the patch has it.

The transport smartened the whole patch, not one hunk: when a file patch's old lines hold
typographic characters the file has nowhere (so the hunks holding them could only be placed
with punctuation ignored), the added lines of its other hunks, placed exactly, are written
the same way (``smartened_mapping``), for families the file has nowhere. Pure.
"""

from __future__ import annotations

from collections.abc import Sequence

from ..model import ADD, Hunk, HunkLine, old_side
from .match import TYPOGRAPHIC

# Characters that come in families: a transport that smartened one member smartened all.
_QUOTES = [set("\u2018\u2019\u201a\u201b"), set("\u201c\u201d\u201e\u201f")]
_FAMILIES = [*_QUOTES,
             set("\u2010\u2011\u2012\u2013\u2014\u2015\u2212"), {"\u2026"},
             {ch for ch, ascii_form in TYPOGRAPHIC.items() if ascii_form == " "}]
_TYPOGRAPHIC_SET = frozenset(TYPOGRAPHIC)


def _typographic_mapping(pairs: Sequence[tuple[bytes, bytes]],
                         in_file: frozenset[str]) -> dict[str, str]:
    """Typographic characters of the patch's old lines that the file has in ASCII at the
    same places, widened to their families (‘ with ’) and from one quote family to the other
    when the file (``in_file``: its typographic characters) has none of that other family,
    unless the file keeps one of them at the matched lines."""
    to_ascii: set[str] = set()
    kept: set[str] = set()
    for patch_line, file_line in pairs:
        ours, theirs = _spelled(patch_line), _spelled(file_line)
        if len(ours) != len(theirs):
            continue
        for (_, mine), (_, found) in zip(ours, theirs, strict=True):
            if mine in TYPOGRAPHIC:
                (kept if found == mine else to_ascii).add(mine)
            elif found in TYPOGRAPHIC and found != mine:
                kept.add(found)
    chars = _widened(to_ascii, kept, in_file)
    odd_spaces = _FAMILIES[-1]  # blanks are not compared one for one: any at all counts
    if any(_has(patch_line, odd_spaces) for patch_line, _ in pairs) \
            and not any(_has(file_line, odd_spaces) for _, file_line in pairs):
        chars |= odd_spaces
    return {ch: TYPOGRAPHIC[ch] for ch in chars}


def _widened(to_ascii: set[str], kept: set[str], in_file: frozenset[str]) -> set[str]:
    chars: set[str] = set()
    for family in _FAMILIES:
        if family & to_ascii and not family & kept:
            chars |= family
    if any(quotes <= chars for quotes in _QUOTES):
        chars.update(*(quotes for quotes in _QUOTES if not quotes & (kept | in_file)))
    return chars


def smartened_mapping(hunks: Sequence[Hunk], in_file: frozenset[str]) -> dict[str, str]:
    """Typographic characters of the file patch's old lines that the file has nowhere,
    widened to their families and across quote families the file has nowhere either."""
    seen: set[str] = set()
    for hunk in hunks:
        for line in hunk.lines:
            if line.kind != ADD and not line.text.isascii():
                seen.update(line.text.decode("utf-8", "surrogateescape"))
    evidence = (seen & set(TYPOGRAPHIC)) - in_file - _FAMILIES[-1]
    if not evidence:
        return {}
    kept = {ch for family in _FAMILIES if family & in_file for ch in family}
    chars = _widened(evidence, kept, in_file)
    return {ch: TYPOGRAPHIC[ch] for ch in chars}


def normalize_with(lines: Sequence[HunkLine], mapping: dict[str, str]
                   ) -> tuple[list[HunkLine], bool]:
    """The hunk's lines with ``mapping`` applied to its added lines, and whether any changed."""
    table = str.maketrans(mapping)
    out = []
    for line in lines:
        if line.kind == ADD and not line.text.isascii():
            text = line.text.decode("utf-8", "surrogateescape").translate(table)
            line = HunkLine(ADD, text.encode("utf-8", "surrogateescape"))
        out.append(line)
    return out, any(a != b for a, b in zip(out, lines, strict=True))


def _has(line: bytes, chars: set[str]) -> bool:
    return not line.isascii() and any(ch in chars
                                      for ch in line.decode("utf-8", "surrogateescape"))


def _spelled(line: bytes) -> list[tuple[str, str]]:
    """(ASCII form, character as written) for each non-blank character, an ellipsis counted
    as its three dots."""
    out: list[tuple[str, str]] = []
    for ch in line.decode("utf-8", "surrogateescape"):
        plain = TYPOGRAPHIC.get(ch, ch)
        if plain.isspace() or ch.isspace():
            continue
        out.extend((dot, ch) for dot in plain)
    return out


_ASCII = bytes(range(128))
_ENCODED = {ch: ch.encode("utf-8") for ch in TYPOGRAPHIC}


def typographic_characters(content: bytes) -> frozenset[str]:
    """The typographic characters a file's text holds.

    Read from the file's bytes without its ASCII (most of a text file), not from the whole
    file decoded. Taking ASCII bytes out keeps every UTF-8 sequence whole, but may join the
    pieces of two broken ones (a file that is not UTF-8) into a character the file does not
    hold: one counts only if its bytes are in the file as they are. That is exact: a UTF-8
    sequence's first byte is never a continuation byte, so wherever its bytes stand, the
    file decodes to the character there."""
    if content.isascii():
        return frozenset()
    found = _TYPOGRAPHIC_SET.intersection(
        content.translate(None, _ASCII).decode("utf-8", "surrogateescape"))
    return frozenset(ch for ch in found if _ENCODED[ch] in content)


def normalize_punctuation(lines: Sequence[HunkLine], window: Sequence[bytes],
                          in_file: frozenset[str] = frozenset()) -> tuple[list[HunkLine], bool]:
    """The hunk's lines with typographic characters in its added lines written as the ASCII
    the matched lines show the file uses, and whether any changed."""
    return normalize_with(lines, _typographic_mapping(list(zip(old_side(lines), window,
                                                               strict=True)), in_file))
