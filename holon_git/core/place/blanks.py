"""A run of lines sought in a file's bytes with blanks ignored (the whitespace level's key,
``match.KEYS[WHITESPACE]``), without splitting the file into lines or keying any of them.

The history log's re-send rule (plan/applied.py) asks whether a hunk's new side is in the file
anywhere but at its place. Keying every line of the file for that made a call cost the file's
length (issue 37: 45% of a steady-state apply of a 2,000-line file). Here one regular
expression per run, led by the run's first word so that the search runs in C from one literal
to the next, finds the copies; Python looks only at a copy the expression found (is it at a
line's start, on which line), and stops at the first one outside the place to skip.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

# bytes.split()'s whitespace but b"\n", which ends a line (split_lines splits at it alone)
_BLANKS = b" \t\r\x0b\x0c"
_BLANK = rb"[ \t\r\x0b\x0c]"


def _line(words: list[bytes]) -> bytes:
    """One line's words, any run of blanks between them, blanks after them (nothing for a
    blank line: the blanks before its words are the caller's, and two runs side by side would
    backtrack over a long run of blanks)."""
    if not words:
        return b""
    return (_BLANK + b"+").join(re.escape(word) for word in words) + _BLANK + b"*"


def _pattern(lines: Sequence[bytes]) -> tuple[re.Pattern[bytes], int]:
    """The expression for ``lines`` from the first one with a word (its leading blanks and the
    blank lines before it are checked by the caller: an expression starting with a literal is
    searched for fast), and how many blank lines come before that line."""
    words = [line.split() for line in lines]
    first = next((i for i, w in enumerate(words) if w), None)
    flags = 0
    if first is None:  # blank lines only: anchored at line starts, no literal to lead
        first, lead, flags = 0, b"^" + _BLANK + b"*", re.MULTILINE
    else:
        lead = b""
    parts = [lead + _line(words[first])]
    parts += [_BLANK + b"*" + _line(w) for w in words[first + 1:]]
    # every line but the last ends in b"\n"; the last may end the file instead
    parts[-1] = b"(?P<last>" + parts[-1] + b")"
    return re.compile(b"\n".join(parts) + rb"(?:\n|\Z)", flags), first


def copy_elsewhere(data: bytes, lines: Sequence[bytes], skip: range) -> bool:
    """Whether ``lines`` (non-empty) occur in ``data``, line for line with blanks ignored,
    starting at a line (0-based) outside ``skip``."""
    pattern, before = _pattern(lines)
    counted_to, line_no = 0, 0  # newlines before counted_to: matches come in order
    pos = 0
    while pos <= len(data):  # search() would clamp a later pos to the end and match again
        found = pattern.search(data, pos)
        if found is None:
            return False
        start = found.start()
        pos = start + 1
        line_start = data.rfind(b"\n", 0, start) + 1
        if data[line_start:start].strip(_BLANKS):
            continue  # the first word sits inside a line, not after its indentation
        if found.start("last") == len(data):
            continue  # a blank last line matched where the file ends: no such line
        line_no += data.count(b"\n", counted_to, line_start)
        counted_to = line_start
        at = line_no - before
        if at < 0 or at in skip or not _blank_lines_before(data, line_start, before):
            continue
        return True
    return False


def _blank_lines_before(data: bytes, line_start: int, count: int) -> bool:
    """Whether the ``count`` lines before the one starting at ``line_start`` are blank."""
    end = line_start - 1  # the b"\n" ending the line before
    for _ in range(count):
        start = data.rfind(b"\n", 0, end) + 1
        if data[start:end].strip(_BLANKS):
            return False
        end = start - 1
    return True
