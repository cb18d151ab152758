"""Exact placement on the file's bytes: the common case, without splitting the file into lines.

A ``ByteFile`` is a RunningFile whose current text is one bytes object. A hunk's old side is
found with one search over those bytes (its lines joined, at the start of a line), and a
second search proves it unique; the hinted copy is checked where the line number says. Line
numbers are counted only between places already known (the file's start and end, earlier
matches), so a file that a few hunks touch is never split into lines.

It answers only for the exact level, and only while the file ends with a newline. Anything
else raises ``Unusual``, and the caller starts the file again with the line-based search
(match.RunningFile), which stays the reference: a tolerance level, a hunk tied to the end of
the file or to an '@@' anchor, a hint far from any known place, a refusal of any kind. The
decisions themselves (ambiguity, hints, drift, the claimed places of issue 19) are the plan's
own code, run on either kind of file; tests/test_exact_properties.py checks that both kinds
decide the same.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right, insort
from collections.abc import Sequence

from ..model import whole_lines
from .match import Candidate, Matches, RunningFile, split_lines

# Lines walked from the nearest known place to find where a line starts; past this the line
# search, which indexes every line once, is cheaper.
MAX_WALK = 4096
_MAX_KNOWN = 16  # known places kept before all but the file's ends are forgotten


class Unusual(Exception):
    """The file needs the line-based search; nothing about the patch is wrong."""


class ByteFile(RunningFile):
    """A file as the hunks so far left it, kept as bytes. Built only for a non-empty file
    that ends with a newline, which every edit keeps so (new sides are whole lines)."""

    def __init__(self, content: bytes) -> None:
        super().__init__([])
        self.data = content
        self._base = self.length = content.count(b"\n")
        self._known = [(0, 0), (self.length, len(content))]  # (line, offset), sorted
        self._windows: dict[tuple[int, int], list[bytes]] = {}  # read since the last edit
        self._mean = len(content) // max(self.length, 1) + 1  # bytes per line, roughly

    # -- lines and offsets -----------------------------------------------------------------
    def offset(self, line: int) -> int:
        """Where current line ``line`` starts (``line == length``: the end)."""
        known = self._known
        i = bisect_left(known, (line, -1))
        if i < len(known) and known[i][0] == line:
            return known[i][1]
        before, after = known[i - 1], known[i]  # line 0 and the end are always known
        if after[0] - line < line - before[0]:
            steps = after[0] - line
            pos = after[1] - sum(map(len, self._lines_before(after[1], steps)))
        else:
            steps = line - before[0]
            pos = before[1] + sum(map(len, self._lines_after(before[1], steps)))
        if steps > 1:
            self._remember(line, pos)
        return pos

    def _lines_after(self, pos: int, count: int) -> list[bytes]:
        """The ``count`` lines from byte ``pos`` on (a line start), split in C from a stretch
        guessed from the file's mean line length and doubled until it holds them."""
        if count > MAX_WALK:
            raise Unusual("line far from any known place")
        data = self.data
        reach = (count + 1) * self._mean
        while True:
            lines = split_lines(data[pos : pos + reach])
            if len(lines) > count or pos + reach >= len(data):
                return lines[:count]
            reach *= 2

    def _lines_before(self, pos: int, count: int) -> list[bytes]:
        """The ``count`` lines that end at byte ``pos`` (a line start)."""
        if count > MAX_WALK:
            raise Unusual("line far from any known place")
        data = self.data
        reach = (count + 1) * self._mean
        while True:
            lines = split_lines(data[max(pos - reach, 0) : pos])
            if len(lines) > count or pos - reach <= 0:
                return lines[len(lines) - count :]
            reach *= 2

    def line_of(self, pos: int) -> int:
        """The line that starts at byte ``pos``."""
        known = self._known
        line, offset = known[bisect_right(known, pos, key=lambda k: k[1]) - 1]
        line += self.data.count(b"\n", offset, pos)
        self._remember(line, pos)
        return line

    def _remember(self, line: int, pos: int) -> None:
        known = self._known
        if len(known) > _MAX_KNOWN:
            del known[1:-1]
        insort(known, (line, pos))

    # -- reading the current file ----------------------------------------------------------
    def window(self, start: int, size: int) -> list[bytes]:
        start = max(start, 0)
        size = min(start + size, self.length) - start
        if size <= 0:
            return []
        lines = self._windows.get((start, size))
        if lines is None:
            lines = self._windows[start, size] = self._lines_after(self.offset(start), size)
        return list(lines)

    def lines(self) -> list[bytes]:
        return split_lines(self.data)

    def content(self) -> bytes:
        return self.data

    def last_line(self) -> bytes | None:
        data = self.data
        return data[data.rfind(b"\n", 0, len(data) - 1) + 1 :] if data else None

    # -- search ------------------------------------------------------------------------------
    def starts_near(self, lines: Sequence[bytes], level: int, center: int, radius: int,
                    limit: int | None = None) -> list[int] | None:
        if level or not lines or not whole_lines(lines):
            raise Unusual("not an exact search of whole lines")
        lo = max(center - radius + 1, 0)
        hi = min(center + radius - 1, self.length - len(lines))
        if lo > hi:
            return []
        data, needle = self.data, b"".join(lines)
        first, stop = self.offset(lo), self.offset(hi) + len(needle)
        out: list[int] = []
        at = data.find(needle, first, stop)
        while at >= 0:
            if at == 0 or data[at - 1] == 10:  # a copy starts a line
                if limit is not None and len(out) == limit:
                    return None
                out.append(self.line_of(at))
            at = data.find(needle, at + 1, stop)
        return out

    def matches(self, old: Sequence[bytes], level: int, at_end: bool = False,
                near: int | None = None) -> Matches:
        """The exact copies of whole lines, left to right (``near`` does not matter: every
        copy is found by one search over the bytes)."""
        if level or at_end or not old or not whole_lines(old):
            raise Unusual("only an exact search of whole lines is made on bytes")
        return _ByteMatches(self, b"".join(old), len(old))

    def find_original(self, old: Sequence[bytes], at_end: bool = False) -> list[int]:
        raise Unusual("a refusal is worded by the line search")

    # -- editing -----------------------------------------------------------------------------
    def replace(self, start: int, old_size: int, new: list[bytes], hunk: int = 0) -> int:
        if not whole_lines(new):
            raise Unusual("the file would no longer end with a newline")
        # The edit goes where the line search records it (only the lines that differ; after
        # an earlier insertion at the same place), so both read the same file afterwards.
        k = super().replace(start, old_size, new, hunk)
        edit = self._edits[k]
        at, removed = self._cstarts[k], edit.end - edit.start
        first, last = self.offset(at), self.offset(at + removed)
        piece = b"".join(edit.new)
        self.data = self.data[:first] + piece + self.data[last:]
        lines, size = len(edit.new) - removed, len(piece) - (last - first)
        known = {line: pos for line, pos in self._known if line <= at}
        known[at + len(edit.new)] = first + len(piece)
        known.update((line + lines, pos + size) for line, pos in self._known
                     if line > at + removed)
        self._known = sorted(known.items())
        self._windows.clear()
        return k


class _ByteMatches(Matches):
    """Copies of a needle (whole lines) in a ByteFile, found left to right on demand."""

    level = 0

    def __init__(self, file: ByteFile, needle: bytes, size: int) -> None:
        self.file, self.needle, self.size = file, needle, size
        self._after_newline = b"\n" + needle
        self._offsets: list[int] = []
        self._done = False
        self._found: list[Candidate] = []

    def _next(self) -> None:
        data, offsets = self.file.data, self._offsets
        if not offsets and data.startswith(self.needle):
            offsets.append(0)
            return
        # a copy starts a line: the newline before it is part of what is sought
        at = data.find(self._after_newline, offsets[-1] if offsets else 0)
        if at < 0:
            self._done = True
        else:
            offsets.append(at + 1)

    def some(self, limit: int) -> list[Candidate]:
        while len(self._offsets) < limit and not self._done:
            self._next()
        file, found = self.file, self._found
        for pos in self._offsets[len(found) : limit]:
            start = file.line_of(pos)
            found.append(Candidate(start, file.to_original(start, self.size)))
        return found[:limit]

    def at(self, start: int) -> Candidate | None:
        file = self.file
        if start < 0 or start + self.size > file.length:
            return None
        if file.data.startswith(self.needle, file.offset(start)):
            return Candidate(start, file.to_original(start, self.size))
        return None

    def at_original(self, original: int) -> Candidate | None:
        start = self.file.to_current(original)
        found = None if start is None else self.at(start)
        return found if found is not None and found.original == original else None

    @property
    def candidates(self) -> list[Candidate]:
        while not self._done:
            self._next()
        return self.some(len(self._offsets))
