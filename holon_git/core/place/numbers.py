"""What a file patch says of its line numbers, for hunks placed by them alone (``diff -U0``):
its ``index`` line's old blob, and whether another hunk of it sits exactly at its own number.
Kept apart from the last rungs (salvage/), which weigh it, so that planning a patch with
context imports none of them."""

from __future__ import annotations

from typing import NamedTuple

from ..model import ADD, CONTEXT, FilePatch, Hunk


class Numbers(NamedTuple):
    """What a file patch says of whether its line numbers were read off the file it is
    applied to: its ``index`` line's old blob is the file's (True), another (False), or there
    is none (None); ``proven``: another hunk of it sits exactly at its own line number, with
    every header's new start consistent with the hunks before it (salvage/judge.py weighs it)."""

    blob: bool | None = None
    proven: bool = False

    @property
    def current(self) -> bool:
        return bool(self.blob) or self.proven


NO_NUMBERS = Numbers()  # no index line, nothing proven


def numbers_of(fp: FilePatch, content: bytes) -> Numbers:
    """What ``fp`` says of whether its line numbers were read off ``content``; asked only
    when a hunk of it has no context line (else NO_NUMBERS: nothing goes by numbers alone)."""
    if not any(bare(hunk) for hunk in fp.hunks):
        return NO_NUMBERS
    if fp.numbers_given:
        return Numbers(True, True)  # --unidiff-zero: git's behaviour
    blob = None
    if fp.blob_ids is not None and fp.blob_ids[0].strip("0"):
        from hashlib import sha1  # only for a hunk with no context, beside an index line

        named = fp.blob_ids[0]
        blob = sha1(b"blob %d\0" % len(content) + content).hexdigest().startswith(named)
    return Numbers(blob, _proven(fp, content))


def bare(hunk: Hunk) -> bool:
    """A hunk with lines and no context line (diff -U0)."""
    kinds = hunk.kinds()
    return bool(kinds) and CONTEXT not in kinds


def _proven(fp: FilePatch, content: bytes) -> bool:
    """Does a hunk with context sit exactly (byte for byte) at its header's old line, with
    every header's new start what its old start and the hunks before it make of it?"""
    from .match import split_lines  # only for a file patch with a bare hunk

    lines, delta, exact = split_lines(content), 0, False
    for hunk in fp.hunks:
        if hunk.old_start is None or hunk.new_start is None:
            return False
        old = hunk.old_lines
        new_count = hunk.count_kind(CONTEXT) + hunk.count_kind(ADD)
        # git's "after line N" starts for an empty side
        expected = hunk.old_start + delta + (1 if not old else 0) - (1 if not new_count else 0)
        if hunk.new_start != expected:
            return False
        if not bare(hunk) and old and lines[hunk.old_start - 1 : hunk.old_start - 1
                                             + len(old)] == old:
            exact = True
        delta += new_count - len(old)
    return exact
