"""The top of the ladder, on bytes: a hunk's old side, exact, at the one place it occurs.

Most hunks of a good patch sit exactly once in their file. ``Unique`` is the file as the hunks
placed so far left it, kept the way that needs no line index and no copy per hunk: the part
before the last edit's end, already written out (``done``, appended to as hunks are placed in
order), and the original bytes from there on (``data[tail:]``). The file is spliced once, when
the last hunk is placed (``content``).

A copy is whole lines starting a line. ``copies`` finds them in the current file with one pass
in C over its bytes: in ``done``, across the seam where ``done`` meets the original, and in the
original after it. A hunk goes here only when its one copy lies after the last edit, in hunk
order; anything else (a second copy, a copy before the last edit, a tolerance, a file that
does not end with a newline) is left to the ladder's line search, the reference
(core/plan/fast.py decides).
"""

from __future__ import annotations

from collections.abc import Sequence


class Unique:
    """A non-empty file that ends with a newline, as the hunks placed so far left it."""

    __slots__ = ("data", "done", "done_lines", "tail", "tail_line", "_lines")

    def __init__(self, data: bytes) -> None:
        self.data = data  # the original file
        self.done = bytearray()  # the current file up to the end of the last edit
        self.done_lines = 0
        self.tail = 0  # where the original takes over: a line start of ``data``
        self.tail_line = 0  # its line in the original
        self._lines: int | None = None  # lines of the original, counted when first asked

    # -- searching the current file ----------------------------------------------------------
    def copies_before(self, needle: bytes) -> bool:
        """Does a copy of ``needle`` (whole lines) start in ``done``, wholly inside it or
        reaching across the seam into the original?"""
        done = self.done
        if not done:
            return False
        after_newline = b"\n" + needle
        if done.startswith(needle) or done.find(after_newline) >= 0:
            return True
        # across the seam: a line start in the last len(needle) - 1 bytes of ``done``
        size = len(needle)
        keep = min(len(done), size)
        seam = bytes(done[len(done) - keep :]) + self.data[self.tail : self.tail + size - 1]
        if keep == len(done) and seam.startswith(needle):
            return True
        return seam.find(after_newline, 0, keep - 1 + size) >= 0

    def copies_after(self, needle: bytes, limit: int = 2) -> list[int]:
        """Where copies of ``needle`` start in the original after the last edit (offsets of
        ``data``), up to ``limit`` of them, left to right."""
        data, tail = self.data, self.tail
        out: list[int] = []
        if tail == 0 and data.startswith(needle):
            out.append(0)
        # the byte before ``tail`` is a newline (the edit before ended a line) or none
        after_newline = b"\n" + needle
        at = max(tail - 1, 0) - 1
        while len(out) < limit:
            at = data.find(after_newline, at + 1)
            if at < 0:
                break
            out.append(at + 1)
        return out

    def count(self, needle: bytes, limit: int = 2) -> int:
        """Copies of ``needle`` in the current file, up to ``limit``."""
        found = len(self.copies_after(needle, limit))
        return found + (found < limit and self.copies_before(needle))

    # -- lines -------------------------------------------------------------------------------
    def original_line(self, at: int) -> int:
        """The line of the original that starts at ``at`` (an offset after ``tail``)."""
        return self.tail_line + self.data.count(b"\n", self.tail, at)

    def current_line(self, original: int) -> int:
        """The current line of an original line after the last edit."""
        return self.done_lines + original - self.tail_line

    @property
    def length(self) -> int:
        """Lines of the current file."""
        if self._lines is None:
            self._lines = self.data.count(b"\n")
        return self.done_lines + self._lines - self.tail_line

    # -- editing -----------------------------------------------------------------------------
    def replace(self, at: int, line: int, old: Sequence[bytes], new: Sequence[bytes],
                head: int, tail: int) -> None:
        """Replace the copy of ``old`` at offset ``at`` (line ``line`` of the original) with
        ``new``, whose first ``head`` and last ``tail`` lines are ``old``'s (counted as
        RunningFile.replace counts them). Only the lines between count as the edit, as
        RunningFile.replace records it: the unchanged lines at either end stay the
        original's, where the next hunk may find its own context."""
        start = at + sum(map(len, old[:head]))
        end = at + sum(map(len, old[: len(old) - tail]))
        done = self.done
        done += memoryview(self.data)[self.tail : start]
        done += b"".join(new[head : len(new) - tail])
        self.done_lines += line + head - self.tail_line + len(new) - head - tail
        self.tail, self.tail_line = end, line + len(old) - tail

    def content(self) -> bytes:
        """The current file, spliced once."""
        return bytes(self.done) + self.data[self.tail :] if self.done else self.data[self.tail :]
