"""The top of the ladder: a file patch placed on bytes in one pass, when each of its hunks is
the common case.

The common case: a hunk found exactly (no tolerance), at the only copy of its old side in the
file as the hunks before it left it, after the place the hunk before it went, with a new side
that occurs nowhere in that file (applied.nothing_to_ask: no hunk rule has anything to say).
Then no line number, drift or claimed place can change where the hunk goes or what it writes,
and the file (place/unique.py) is searched in C once per side and spliced once.

Anything else hands the whole file patch back (None) to the ladder's line search, which stays
the reference and decides, places or refuses as it always has: a second copy, an out-of-order
or overlapping hunk, a new side already somewhere, a hunk with no old or no new side, a
tolerance, an envelope's '@@' text or end-of-file mark, a missing final newline on either
side or in the file, a cut-off hunk, a file patch --reject has left hunks out of.
tests/test_fast_properties.py checks that both give the same plan.
"""

from __future__ import annotations

from ..change import HunkResult
from ..model import Diagnostic, FilePatch, Hunk, sides
from ..place.edges import off_claimed_edge
from ..place.unique import Unique
from . import applied

# Each hunk reads the whole file twice (in C); past this many hunks x bytes, the line search,
# which indexes the file's lines once, is cheaper.
BUDGET = 64 << 20


def apply_fast(fp: FilePatch, content: bytes
               ) -> tuple[bytes, list[HunkResult], list[Diagnostic]] | None:
    """The file patch's hunks applied to ``content`` as hunks.apply_hunks would apply them
    (the new content, where each went, no notes), or None when a hunk is not the common
    case and the ladder must decide."""
    if not content.endswith(b"\n") or fp.left_out or len(fp.hunks) * len(content) > BUDGET:
        return None
    file = Unique(content)
    results = []
    drift = 0  # how far the hunks so far were from their line numbers (as the ladder keeps it)
    for number, hunk in enumerate(fp.hunks, 1):
        if (hunk.anchor_text or hunk.anchor_end or hunk.old_no_newline or hunk.new_no_newline
                or hunk.unfinished):
            return None
        old, new = sides(hunk.lines)
        if not old or not new:
            return None  # an insertion, or a deletion with nothing left to recognise it by
        placed = _place(file, old, new)
        if placed is None:
            return None
        at, sits, head, tail, new_bytes = placed
        line = file.original_line(at)
        hinted = None
        if hunk.old_start is not None:
            raw_hint = max(hunk.old_start - 1, 0)
            if raw_hint + drift >= file.tail_line:  # before it, the hint is no line of the copy
                hinted = raw_hint + drift - line
            drift = line - raw_hint
        inside = [file.data.count(b"\n", at, where) for where in sits]
        if not applied.nothing_to_ask(hunk, inside, hinted):
            return None
        start = file.current_line(line)
        off_edge = off_claimed_edge(
            hunk, hunk.lines, start, len(old), lambda: file.length,
            lambda removed: file.count(b"".join(removed)))
        file.replace(at, line, old, new, head, tail)
        results.append(HunkResult(number, hunk.old_start, line + 1, repairs(hunk),
                                  off_edge=off_edge))
    # The typographic characters a transport may have put into the patch (punctuation.py's
    # smartened_mapping) are those of its old lines that the file has nowhere: every old side
    # is in the file here, so there are none to undo.
    return file.content(), results, []


def _place(file: Unique, old: list[bytes], new: list[bytes]
           ) -> tuple[int, list[int], int, int, bytes] | None:
    """Where the only copy of ``old`` is (an offset of the original after the last edit),
    where ``new`` sits inside it (offsets), how many lines the two sides share at their start
    and end, and ``new`` joined; None when ``old`` is not there once, exactly, after the last
    edit, or ``new`` sits anywhere else.

    Both sides begin with the lines they share at their start (and end with those they share
    at their end): when those lines occur once, one search finds every copy of both."""
    old_bytes, new_bytes = b"".join(old), b"".join(new)
    if not (old_bytes.endswith(b"\n") and new_bytes.endswith(b"\n")):
        return None  # only the last line can lack a newline: these are whole lines
    most = min(len(old), len(new))
    head = 0
    while head < most and old[head] == new[head]:
        head += 1
    tail = 0
    while tail < most - head and old[-1 - tail] == new[-1 - tail]:
        tail += 1
    data = file.data
    if head or tail:
        shared = b"".join(old[:head] if head else old[len(old) - tail :])
        found = file.copies_after(shared)
        if len(found) == 1 and not file.copies_before(shared):
            end = found[0] + (0 if head else len(shared))  # where both copies start or end
            at = end if head else end - len(old_bytes)
            if at < file.tail or not data.startswith(old_bytes, at) or (
                    at and data[at - 1] != 10):
                return None  # no copy of the old side after the last edit
            where = end if head else end - len(new_bytes)
            if where < file.tail:
                if file.done:
                    return None  # a copy of the new side there would reach into the edits
                return at, [], head, tail, new_bytes  # the file starts after ``where``
            if (where and data[where - 1] != 10) or not data.startswith(new_bytes, where):
                return at, [], head, tail, new_bytes
            if len(new_bytes) > len(old_bytes):
                return None  # the new side holds the old side, and sits there
            return at, [where], head, tail, new_bytes
    found = file.copies_after(old_bytes)
    if len(found) != 1 or file.copies_before(old_bytes):
        return None
    at = found[0]
    room = max(len(old) - len(new) + 1, 0)  # places the new side can take inside the copy
    sits = file.copies_after(new_bytes, room + 1)
    if file.copies_before(new_bytes) or len(sits) > room or any(
            not at <= where <= at + len(old_bytes) - len(new_bytes) for where in sits):
        return None
    return at, sits, head, tail, new_bytes


def repairs(hunk: Hunk) -> list[str]:
    """The tolerances of the parser's repairs of the hunk's body."""
    return (["blank_context_line"] if hunk.blank_context_lines else []) \
        + (["unprefixed_context_line"] if hunk.unprefixed_context_lines else [])
