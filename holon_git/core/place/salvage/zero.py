"""The last rung ``unidiff_zero``: a pure insertion of a patch that has no context at all
(``diff -U0``) goes where its header says, as ``git apply --unidiff-zero`` puts it, when the
header agrees with itself and with the hunks placed before it, and the judge (judge.py) finds
nothing against the number. Tried only for such an insertion, which every other rung refuses
as ``ambiguous_context`` (nothing anchors it).

A file patch that mixes such insertions with hunks that have context (a model trimming the
context of one hunk) gets the same rung when the file proves its line numbers
(``line_numbers_hold``): every other hunk's old side is in the file exactly at its header's
line, and every header's new start agrees with its old start and the hunks before it."""

from __future__ import annotations

from collections.abc import Sequence

from ...model import ADD, REMOVE, Hunk
from ..match import KEYS
from . import judge
from .reading import PLACING, AlreadyThere, Attempt, Hints, Salvage


def at_line_number(lines: Sequence[bytes], hunk: Hunk, hints: Hints) -> Salvage | None:
    """A pure insertion with no context, of a patch with no context at all: placed after its
    header's old line, when its header's counts agree with its body, its new start with its
    old start and the lines the hunks before it added and removed (``hints.delta``), and
    those hunks went where their own line numbers said (``hints.drift`` 0). None otherwise,
    or when an earlier hunk removed that line. Raises AlreadyThere when the added lines
    already follow it."""
    body = list(hunk.lines)
    added = [line.text for line in body if line.kind == ADD]
    if len(added) != len(body) or not added or hints.drift:
        return None
    if hunk.old_start is None or hunk.new_start is None or hunk.old_count != 0 \
            or hunk.new_count != len(added) \
            or hunk.new_start != hunk.old_start + 1 + hints.delta:
        return None
    if hunk.old_start == 0:
        at: int | None = 0
    else:
        before = hints.to_current(hunk.old_start - 1)
        at = None if before is None else before + 1
    if at is None or at > len(lines):
        return None
    if at == len(lines) and lines and not lines[-1].endswith(b"\n"):
        return None  # after a last line without an ending: the patch would say so
    if hunk.new_no_newline and at != len(lines):
        return None  # a line without an ending is the file's last: only at its end
    key = KEYS[PLACING - 1]
    # the added lines equal the lines after the insertion point: a re-send, or an insertion
    # that repeats them, unless the index line says this file is the one the numbers were
    # read off (then those are its own lines, and the insertion goes in)
    if not hints.numbers.blob and \
            [key(line) for line in lines[at : at + len(added)]] == list(map(key, added)):
        raise AlreadyThere(at, repeat=True)
    attempt = Attempt(lines, body, hints)
    lead, tail = attempt.before(at, 1), attempt.after(at, 1)
    if not (lead or tail):
        return None
    where = f"after line {at}" if at else "at the start of the file"
    return judge.by_number(attempt, Salvage(
        "unidiff_zero", at - len(lead), [*lead, *body, *tail],
        f"the hunk has no context lines (diff -U0); its {len(added)} added line(s) went "
        f"{where}, where its header says, as git apply --unidiff-zero puts them"))


def line_numbers_hold(lines: Sequence[bytes], hunks: Sequence[Hunk]) -> bool:
    """Do ``lines`` (the file the patch is applied to) prove the line numbers of ``hunks``, a
    file patch with at least one context-less pure insertion and at least one hunk with old
    lines? Each hunk has both starts; each new start is its old start plus what the hunks
    before it added minus removed (plus one for an insertion's "after line N"); each hunk
    with old lines has them exactly (KEYS[0]) at its header's old line, in header order; and
    the last insertion has such a hunk after it (lines added or removed between the last
    proven hunk and an insertion below it would show nowhere). Then the insertions' line
    numbers were read off this very file, as ``diff -U0``'s are."""
    key = KEYS[0]
    delta, end, anchored, bare = 0, 0, False, False  # anchored: a proven hunk after a bare one
    for hunk in hunks:
        if hunk.old_start is None or hunk.new_start is None or hunk.old_count is None:
            return False
        old = [key(line.text) for line in hunk.lines if line.kind != ADD]
        new_count = sum(line.kind != REMOVE for line in hunk.lines)
        if not old:
            if new_count > 0 and len(hunk.lines) == new_count:
                bare, anchored = True, False
            if hunk.old_count != 0 or hunk.new_start != hunk.old_start + 1 + delta \
                    or hunk.old_start < end:
                return False
            end = hunk.old_start
        else:
            start = hunk.old_start - 1
            # git's "after line N" start when a side is empty: a deletion's new start
            new_start = hunk.old_start + delta - (new_count == 0)
            if hunk.old_count != len(old) or start < end or hunk.new_start != new_start \
                    or [key(line) for line in lines[start:start + len(old)]] != old:
                return False
            anchored, end = True, start + len(old)
        delta += new_count - len(old)
    return anchored and bare
