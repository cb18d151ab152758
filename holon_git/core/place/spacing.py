"""A hunk placed with whitespace ignored: the file's spacing inside its lines kept.

The whitespace level makes ``a  b`` equal ``a b``. A removed line matched so, whose spacing
inside the text differs from the file's line (two spaces in a string literal, alignment, a
spacing fix made since the patch was written), says nothing about that spacing: the patch's
added lines that carry the patch's form of it are the file's form edited, and must be written
with the file's spacing, or the file silently loses (or regains) characters no one meant to
change. Each such difference maps back when it is one-to-one: the patch's spacing between
those two words occurs once in the added lines. Written more than once, nothing says which
occurrence is the file's text and which the patch's own: refused (indentation_mismatch).
Indentation is reindent.py's; line ends are splice.py's. Pure; bytes only.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from ...errors import PatchError
from ..model import ADD, CONTEXT, REMOVE, HunkLine

_RUN = re.compile(rb"[ \t]+")


def _inside(line: bytes) -> bytes:
    """The line without its indentation, line ending and trailing blanks."""
    return line.rstrip(b"\r\n").rstrip(b" \t\f").lstrip(b" \t")


def _differences(ours: bytes, theirs: bytes) -> list[tuple[bytes, bytes]]:
    """Where the patch's line and the file's have the same words but other blanks between
    two of them: each as (the patch's form, the file's form), the blanks with the word
    before them and the first character of the word after. Empty when the words differ
    (punctuation.py's case) or the spacing is the same."""
    mine, yours = _inside(ours), _inside(theirs)
    if mine == yours:
        return []
    words, other = _RUN.split(mine), _RUN.split(yours)
    if words != other:
        return []
    gaps, their_gaps = _RUN.findall(mine), _RUN.findall(yours)
    return [(words[j] + gap + words[j + 1][:1], words[j] + their_gaps[j] + words[j + 1][:1])
            for j, gap in enumerate(gaps) if gap != their_gaps[j]]


def keep_file_spacing(lines: Sequence[HunkLine], window: Sequence[bytes], first_line: int
                      ) -> tuple[list[HunkLine], bool]:
    """The hunk's lines with its added lines' spacing inside the text mapped back to the
    file's, where a removed line matched with other spacing (``window``: the file's lines
    its old side matched, from line ``first_line``); and whether any changed. Raises
    indentation_mismatch when a difference is written more than once in the added lines."""
    old = [line for line in lines if line.kind in (CONTEXT, REMOVE)]
    pairs = [(line.text, have) for line, have in zip(old, window, strict=False)
             if line.kind == REMOVE]
    out, changed = list(lines), False
    added = [j for j, line in enumerate(out) if line.kind == ADD]
    for ours, theirs in pairs:
        for mine, yours in _differences(ours, theirs):
            where = [j for j in added if mine in out[j].text]
            count = sum(out[j].text.count(mine) for j in where)
            if count > 1:
                raise PatchError(
                    "indentation_mismatch",
                    f"its old lines match lines {first_line}-{first_line + len(window) - 1} "
                    f"only with whitespace ignored; its removed line {ours.strip()!r} has "
                    f"{mine!r} where the file has {yours!r}, and its added lines write "
                    f"{mine!r} {count} times: nothing says which is the file's text, kept, "
                    "and which the patch's own",
                    hint="copy the removed lines exactly from the file, spacing inside "
                    "them included")
            for j in where:
                out[j] = HunkLine(ADD, out[j].text.replace(mine, yours))
                changed = True
    return out, changed
