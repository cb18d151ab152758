"""Where does a hunk's old side sit in a file? Context first; line numbers only break ties.

Pure functions and classes over lists of byte lines; nothing here knows about files or git.

A hunk matches at a position when every old line (context and removed) equals the file's line
there under one comparison level, tried in order and stopping at the first level that finds
anything:

    0 exact                 bytes equal apart from a missing final newline
    1 line_endings          CRLF and LF are the same
    2 trailing_whitespace   and trailing spaces/tabs are ignored
    3 whitespace            and runs of blanks, indentation (tabs or spaces, any width) too
    4 punctuation           and typographic quotes, dashes, ellipses and odd spaces read as
                            their ASCII forms

The placement ladder (ladder.py) tries the levels in that order and chooses among the copies
the first one finds: the only copy, or the one at the hinted line. Hunks of one file see the
file as the earlier hunks left it (``RunningFile``).

Copies are found only as far as a question needs (``Matches``): whether there is one, whether
there is a second (searching outward from the hinted line), whether one starts at a given
line. All of them are listed only to word a refusal, or for an envelope's '@@' anchor; so a
line repeated a hundred thousand times costs a hunk a few window comparisons, not one each.
"""

from __future__ import annotations

import io
from bisect import bisect_left, bisect_right
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from itertools import repeat
from operator import add, eq
from typing import Any, NamedTuple

from ...errors import PatchError
from ..model import whole_lines

# The one ladder every search uses (placing a hunk, finding its new side already there).
LEVELS = ("exact", "line_endings", "trailing_whitespace", "whitespace", "punctuation")
WHITESPACE, PUNCTUATION = LEVELS.index("whitespace"), LEVELS.index("punctuation")


def _key_exact(line: bytes) -> bytes:
    return line if line.endswith(b"\n") else line + b"\n"


def _key_eol(line: bytes) -> bytes:
    return line.rstrip(b"\r\n")


def key_ws(line: bytes) -> bytes:
    return line.rstrip(b" \t\r\n\f\v")


def _key_blanks(line: bytes) -> bytes:
    return b" ".join(line.split())  # ASCII whitespace: blanks, tabs, CR, LF, FF, VT


# Typographic characters and the ASCII a transport or editor "smartened" them from.
TYPOGRAPHIC = {
    **dict.fromkeys("\u2010\u2011\u2012\u2013\u2014\u2015\u2212", "-"),
    **dict.fromkeys("\u2018\u2019\u201a\u201b", "'"),
    **dict.fromkeys("\u201c\u201d\u201e\u201f", '"'),
    "\u2026": "...",
    **dict.fromkeys("\u00a0\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a"
                    "\u202f\u205f\u3000", " "),
}
_ASCII_OF = str.maketrans(TYPOGRAPHIC)


def _key_punct(line: bytes) -> bytes:
    if line.isascii():
        return _key_blanks(line)
    text = line.decode("utf-8", "surrogateescape").translate(_ASCII_OF)
    return _key_blanks(text.encode("utf-8", "surrogateescape"))


KEYS: tuple[Callable[[bytes], bytes], ...] = (_key_exact, _key_eol, key_ws, _key_blanks,
                                              _key_punct)


def split_lines(data: bytes) -> list[bytes]:
    """Split file content into lines that keep their endings; only '\\n' ends a line."""
    return io.BytesIO(data).readlines()  # splits at b"\\n" only, in C


_FEW_LOOKUPS = 4  # look-ups answered by scanning before a file's lines are all counted


class _Index:
    """Where each line (under one level's key) occurs in the original file.

    A file that only a few hunks touch is scanned in C for each looked-up line; from the
    fifth look-up on, every line is counted and indexed once, which many hunks amortize.
    """

    def __init__(self, keys: list[bytes]) -> None:
        self.keys = keys
        self.count: Counter[bytes] | None = None  # None while look-ups are few
        self._lookups = 0
        self._first: dict[bytes, int] | None = None
        self._positions: dict[bytes, list[int]] = {}
        self._scanned = 0  # lines list.index() walked past before the first dict exists
        self._counted: Counter[bytes] | None = None

    def counted(self) -> Counter[bytes]:
        """Every line's count, built once in C (apart from the look-ups' own switch to
        counting, so that asking does not change which line they take as the anchor)."""
        if self._counted is None:
            self._counted = self.count if self.count is not None else Counter(self.keys)
        return self._counted

    def positions(self, key: bytes) -> list[int]:
        found = self._positions.get(key)
        if found is not None:
            return found
        keys = self.keys
        self._lookups += 1
        if self.count is None and self._lookups > _FEW_LOOKUPS:
            self.count = Counter(keys)
        if self.count is None:
            found = []
            try:
                while True:
                    found.append(keys.index(key, found[-1] + 1 if found else 0))
            except ValueError:
                pass
            self._positions[key] = found
            return found
        total = self.count.get(key, 0)
        if not total:
            return []
        if self._first is None and self._scanned < len(keys):
            # Few look-ups (a file with few hunks): scanning in C beats indexing every line.
            found = [keys.index(key)]
            self._scanned += found[0] + 1
        else:
            if self._first is None:  # built in C: later (lower) indexes overwrite
                self._first = dict(zip(reversed(keys), range(len(keys) - 1, -1, -1),
                                       strict=True))
            found = [self._first[key]]
        while len(found) < total:
            found.append(keys.index(key, found[-1] + 1))
        self._positions[key] = found
        return found


# Records of the search (named tuples: a dataclass costs start-up time to build, and these
# are neither part of the model nor ever changed).
class _Edit(NamedTuple):
    start: int  # original index of the first replaced line
    end: int  # original index after the last replaced line
    new: list[bytes]
    hunk: int = 0  # the 1-based number of the hunk that made it (0: unknown)


class Candidate(NamedTuple):
    start: int  # index in the current (running) file
    original: int | None  # index in the original file; None when it overlaps an earlier edit


class Matches:
    """The copies of a hunk's old side at one comparison level, found only as far as a
    question needs. ``candidates`` lists them all, in order; the other questions stop early."""

    level: int

    def some(self, limit: int) -> list[Candidate]:
        """Up to ``limit`` copies (the first ones found, nearest the hinted line first)."""
        return self.candidates[:limit]

    def __bool__(self) -> bool:
        return bool(self.some(1))

    def at(self, start: int) -> Candidate | None:
        """The copy starting at line ``start`` of the current file, if there is one."""
        return next((c for c in self.candidates if c.start == start), None)

    def at_original(self, original: int) -> Candidate | None:
        """The copy made of untouched lines that starts at ``original`` in the original file."""
        return next((c for c in self.candidates if c.original == original), None)

    @property
    def candidates(self) -> list[Candidate]:
        raise NotImplementedError


class Found(Matches):
    """Copies already listed (a search's answer narrowed down, or the exhaustive reference)."""

    def __init__(self, candidates: list[Candidate], level: int) -> None:
        self._candidates = candidates
        self.level = level

    @property
    def candidates(self) -> list[Candidate]:
        return self._candidates


class _LineMatches(Matches):
    """Copies in a RunningFile: every copy holds the old side's ``anchor`` line, so the
    places of that line (in the original file's index, and in the lines earlier hunks added)
    are the places to try; they are tried outward from ``pivot`` (an original line)."""

    def __init__(self, running: RunningFile, keys: list[bytes], level: int, at_end: bool,
                 anchor: int, pivot: int) -> None:
        self.running, self.keys, self.level = running, keys, level
        self.at_end, self.anchor, self.pivot = at_end, anchor, pivot
        self._found: list[Candidate] = []
        self._pending: Iterator[int] | None = None  # starts not yet tried
        self._all: list[Candidate] | None = None

    def _starts(self) -> Iterator[int]:
        """Where copies may start: the anchor line's places in the original file and in the
        lines earlier hunks added, both walked outward from the pivot, in turn (a hunk whose
        copy is near its line number is found after a few tries, whatever the rest holds)."""
        running, anchor, level = self.running, self.anchor, self.level
        running.check_budget()  # before the file's lines are counted and indexed
        want = self.keys[anchor]
        walks = [self._original_places(want)]
        if running._added[level].get(want):
            center = running.approx_current(self.pivot + anchor)
            walks.append(running.added_outward(level, want, center))
        possible = self._possible_starts()
        if possible is not None and not possible:
            return
        for cur in _in_turn(walks):
            if possible is None or cur - anchor in possible:
                yield cur - anchor

    def _possible_starts(self) -> set[int] | None:
        """When the anchor line has many places, the starts its rarest line allows (every
        copy holds that line too): a line that is nowhere allows none, and a hunk of lines
        repeated throughout the file is tried only where its rare line is, not at every
        place of the anchor's (issue 35: 400 + 400 context lines of one repeated line around
        a line the file lacks cost the anchor's 40,000 places times 400 lines compared). The
        walk's order is kept: this only skips starts that cannot match. None: no filter."""
        running, level, keys = self.running, self.level, self.keys
        index, added = running._index(level), running._added[level]
        counts = index.counted()
        rarity = [counts.get(key, 0) + added.get(key, 0) for key in keys]
        if rarity[self.anchor] <= _MANY_PLACES:
            return None
        rare = rarity.index(min(rarity))
        if not rarity[rare]:
            return set()  # a line of the hunk is nowhere in the file: no copy
        if added.get(keys[rare]) or rarity[rare] * 4 > rarity[self.anchor]:
            return None  # in lines earlier hunks added, or not much rarer: walk them all
        return {cur - rare for cur in map(running.to_current, index.positions(keys[rare]))
                if cur is not None}

    def _original_places(self, want: bytes) -> Iterator[int]:
        """The current lines of the original lines that hold ``want``, outward from the
        pivot."""
        running = self.running
        running.check_budget()
        places = running._index(self.level).positions(want)
        right = bisect_left(places, self.pivot + self.anchor)
        left = right - 1
        while left >= 0 or right < len(places):
            if right < len(places):
                cur = running.to_current(places[right])
                if cur is not None:
                    yield cur
                right += 1
            if left >= 0:
                cur = running.to_current(places[left])
                if cur is not None:
                    yield cur
                left -= 1

    def some(self, limit: int) -> list[Candidate]:
        if self._all is not None:
            return self._all[:limit]
        if self._pending is None:
            self._pending = self._starts()
        while len(self._found) < limit:
            start = next(self._pending, None)
            if start is None:
                break
            found = self.at(start)
            if found is not None and found not in self._found:
                self._found.append(found)
        return self._found[:limit]

    def at(self, start: int) -> Candidate | None:
        size, running = len(self.keys), self.running
        if start < 0 or start + size > running.length or (
                self.at_end and start + size != running.length):
            return None
        running.spend(size)
        keys = self.keys
        original = running.to_original(start, size)
        if original is not None:  # untouched lines: their keys are in the index already
            if running._index(self.level).keys[original:original + size] == keys:
                return Candidate(start, original)
            return None
        window = running.window(start, size)
        if self.level:
            same = all(map(eq, map(KEYS[self.level], window), keys))
        else:  # equal lists, or the file's last line without its newline (the key adds one)
            same = window == keys or (start + size == running.length
                                      and all(map(eq, map(_key_exact, window), keys)))
        return Candidate(start, running.to_original(start, size)) if same else None

    def at_original(self, original: int) -> Candidate | None:
        start = self.running.to_current(original)
        found = None if start is None else self.at(start)
        return found if found is not None and found.original == original else None

    @property
    def candidates(self) -> list[Candidate]:
        if self._all is None:
            starts = set(self._starts())
            self._all = [c for c in map(self.at, sorted(starts)) if c is not None]
        return self._all


# The placement search's budget, per call (every file patch of a patch, every version the
# rescue tries, every pass of the last rungs: one_search_budget), in lines compared (a window
# tried costs its lines and _WINDOW_COST more): about a second of CPU. An ordinary hunk tries
# a few windows; the 5,000 hunks of bench/'s 100,000 repeated lines, about 20,000 windows of
# 3 lines.
SEARCH_BUDGET = 20_000_000
_WINDOW_COST = 16
_MANY_PLACES = 64  # an anchor with more places than this has its starts filtered


class SearchBudget:
    """Lines the placement search may still compare: one for a whole call (issue 42, item
    8: per file patch, 60 file patches each just under it took 20 s, and each version the
    rescue tried had a fresh one), shared by every RunningFile made while it is in force."""

    def __init__(self, lines: int) -> None:
        self.lines = lines
        self.spent = 0

    def spend(self, lines: int) -> None:
        """Count a window of ``lines`` compared; past the budget, refuse: a search that would
        take minutes is answered at once (issue 35), never waited for, and so is every
        search after it in the same call."""
        self.spent += lines + _WINDOW_COST
        self.check()

    def check(self) -> None:
        """Refuse when the budget is spent already: a later file patch's search is not begun
        (the places of its anchor line alone are a walk of the whole file)."""
        if self.spent > self.lines:
            raise PatchError(
                "search_too_costly", "finding where the hunk goes would compare more than "
                f"{self.lines:,} lines of the files this call searched: the hunks' lines "
                "repeat throughout them", details={"lines_compared": self.spent})


_CALL_BUDGET: ContextVar[SearchBudget | None] = ContextVar("holon_search_budget",
                                                           default=None)


@contextmanager
def one_search_budget() -> Iterator[SearchBudget]:
    """Every search made within (in this thread) spends from one budget; within another
    such block, from that block's."""
    budget = _CALL_BUDGET.get()
    if budget is not None:
        yield budget
        return
    budget = SearchBudget(RunningFile.budget)
    token = _CALL_BUDGET.set(budget)
    try:
        yield budget
    finally:
        _CALL_BUDGET.reset(token)


def check_call_budget() -> None:
    """Refuse (search_too_costly) when the call's search budget is spent already: a file
    patch that needs the line search is refused before its file is split into lines."""
    budget = _CALL_BUDGET.get()
    if budget is not None:
        budget.check()


def _in_turn(walks: list[Iterator[int]]) -> Iterator[int]:
    """One item of each walk in turn, until all are spent."""
    while walks:
        for walk in list(walks):
            item = next(walk, None)
            if item is None:
                walks.remove(walk)
            else:
                yield item


class _ListedMatches(_LineMatches):
    """The exhaustive reference, for tests: every window of the current file compared with
    the old side by the level's definition alone (no index, no anchor line), then every
    question answered from that list."""

    def some(self, limit: int) -> list[Candidate]:
        return self.candidates[:limit]

    def at(self, start: int) -> Candidate | None:
        return Matches.at(self, start)

    def at_original(self, original: int) -> Candidate | None:
        return Matches.at_original(self, original)

    @property
    def candidates(self) -> list[Candidate]:
        if self._all is None:
            lines, size, key = self.running.lines(), len(self.keys), KEYS[self.level]
            self._all = [Candidate(start, self.running.to_original(start, size))
                         for start in range(len(lines) - size + 1)
                         if (not self.at_end or start + size == len(lines))
                         and [key(line) for line in lines[start : start + size]] == self.keys]
        return self._all


class RunningFile:
    """A file as the hunks applied so far left it, searchable through the original's index.

    The current file is never rebuilt while hunks apply: it is the original plus a sorted list
    of edits, and any window of it is read through that list. ``lines()`` builds it once.
    """

    exhaustive = False  # True: list every copy before deciding (the reference, for tests)
    budget = SEARCH_BUDGET  # lines the search may compare in a call (SearchBudget)

    def __init__(self, lines: list[bytes]) -> None:
        self.original = lines
        self._base = len(lines)  # lines of the original file
        self._edits: list[_Edit] = []
        self._ends: list[int] = []  # original end of each edit
        self._cstarts: list[int] = []  # current index of each edit's new lines
        self._bends: list[int] = []  # current index after each edit's new lines
        self._shift = [0]  # _shift[k]: how far edits[:k] moved the lines after them
        self._moved = 0  # the largest shift any line had (edits only add to the list)
        self.length = len(lines)  # of the current file
        self._indexes: dict[int, _Index] = {}
        self._added: dict[int, Counter[bytes]] = {}
        # per level, the edits whose new lines hold a key, in file order: a hunk's search
        # looks at those near its place, never at every edit (added_outward, added_within)
        self._holders: dict[int, dict[bytes, list[_Edit]]] = {}
        # the call's budget (one_search_budget), or this file's own outside any call
        self._budget = _CALL_BUDGET.get() or SearchBudget(self.budget)

    def spend(self, lines: int) -> None:
        """Count a window of ``lines`` compared, against the call's budget."""
        self._budget.spend(lines)

    def check_budget(self) -> None:
        """Refuse (search_too_costly) when the call's budget is spent already."""
        self._budget.check()

    # -- reading the current file ------------------------------------------------------------
    def window(self, start: int, size: int) -> list[bytes]:
        """Lines ``start`` to ``start + size`` of the current file."""
        if not self._bends or start >= self._bends[-1]:  # after every edit: one slice
            first = max(start, 0) - self._shift[-1]
            return self.original[first : first + min(start + size, self.length) - max(start, 0)]
        out: list[bytes] = []
        i, end = start, min(start + size, self.length)
        k = bisect_right(self._bends, i)
        while i < end:
            if k < len(self._edits) and self._cstarts[k] <= i:
                offset = i - self._cstarts[k]
                take = min(end, self._bends[k]) - i
                out.extend(self._edits[k].new[offset : offset + take])
                k += 1
            else:
                limit = self._cstarts[k] if k < len(self._edits) else self.length
                take = min(end, limit) - i
                first = i - self._shift[k]
                out.extend(self.original[first : first + take])
            i += take
        return out

    def lines(self) -> list[bytes]:
        """The whole current file."""
        return self.window(0, self.length)

    def content(self) -> bytes:
        """The whole current file, as bytes."""
        return b"".join(self.lines())

    @property
    def current(self) -> list[bytes]:
        return self.lines()

    def last_line(self) -> bytes | None:
        return self.window(self.length - 1, 1)[0] if self.length else None

    @property
    def edited(self) -> bool:
        """Has a hunk changed the file yet?"""
        return bool(self._edits)

    def original_keys(self, level: int) -> list[bytes]:
        """The original file's lines as ``level`` compares them (indexed once per level)."""
        return self._index(level).keys

    def keys(self, level: int) -> list[bytes]:
        """The current file's lines as ``level`` compares them: the original's keys, with
        the edits' lines keyed in their places."""
        original = self._index(level).keys
        if not self._edits:
            return original
        key = KEYS[level] if level else _key_exact
        out: list[bytes] = []
        pos = 0
        for edit in self._edits:
            out += original[pos : edit.start]
            out += map(key, edit.new)
            pos = edit.end
        out += original[pos:]
        return out

    # -- coordinates -------------------------------------------------------------------------
    def to_current(self, original: int) -> int | None:
        """Current index of an original line, or None when an edit removed it."""
        k = bisect_right(self._ends, original)
        if k < len(self._edits) and self._edits[k].start <= original:
            return None
        return original + self._shift[k]

    def approx_current(self, original: int) -> int:
        """Where an original line is in the current file, or would be had no edit removed
        it."""
        return original + self._shift[bisect_right(self._ends, original)]

    def to_original(self, start: int, length: int) -> int | None:
        """Original index of a current window made only of untouched original lines."""
        k = bisect_right(self._bends, start)
        # edits[k] is the first whose new lines end after ``start``; the window is clean unless
        # it reaches that edit (for a pure deletion: the point where lines were removed).
        if k < len(self._edits) and self._cstarts[k] < start + length:
            return None
        return start - self._shift[k]

    def sits_at(self, start: int, lines: Sequence[bytes],
                levels: int = len(LEVELS)) -> int | None:
        """The first comparison level (of the first ``levels``) at which ``lines`` are the
        current file's lines from ``start`` on, or None."""
        if start < 0 or start + len(lines) > self.length or not lines:
            return None
        level = equal_level(self.window(start, len(lines)), lines, levels)
        return level if level < levels else None

    # -- which hunks made what ---------------------------------------------------------------
    def hunks_in_current(self, start: int, length: int) -> list[int]:
        """The hunks whose edits a window of the current file reaches into."""
        return sorted({e.hunk for e, cstart, bend in zip(self._edits, self._cstarts,
                                                         self._bends, strict=True)
                       if bend > start and cstart < start + length})

    def hunks_in_original(self, start: int, length: int) -> list[int]:
        """The hunks whose edits changed lines of a window of the original file (or inserted
        lines inside it)."""
        end = start + length
        return sorted({e.hunk for e in self._edits
                       if (e.start < end and e.end > start if e.start < e.end
                           else start < e.start < end)})

    def find_original(self, old: Sequence[bytes], at_end: bool = False) -> list[int]:
        """Where ``old`` occurs in the original file, at the first level that finds it."""
        size = len(self.original)
        for level, key in enumerate(KEYS):
            index = self._index(level)
            keys = [key(line) if level else _key_exact(line) for line in old]
            counts = index.counted()  # the rarest line finds the fewest places to check
            rarity = [counts.get(k, 0) for k in keys]
            anchor = rarity.index(min(rarity))
            found = []
            for s in sorted({pos - anchor for pos in index.positions(keys[anchor])}):
                if s >= 0 and s + len(keys) <= size and (not at_end or s + len(keys) == size):
                    self.spend(len(keys))
                    if index.keys[s : s + len(keys)] == keys:
                        found.append(s)
            if found:
                return found
        return []

    # -- search ------------------------------------------------------------------------------
    def _index(self, level: int) -> _Index:
        index = self._indexes.get(level)
        if index is None:
            key = KEYS[level]
            keys = self.original if level == 0 else [key(line) for line in self.original]
            if level == 0 and keys and not keys[-1].endswith(b"\n"):
                keys = [*keys[:-1], keys[-1] + b"\n"]
            index = self._indexes[level] = _Index(keys)
            self._added[level] = Counter(key(line) for e in self._edits for line in e.new)
            holders: dict[bytes, list[_Edit]] = {}
            for edit in self._edits:
                for held in dict.fromkeys(map(key, edit.new)):
                    holders.setdefault(held, []).append(edit)
            self._holders[level] = holders
        return index

    # -- the lines earlier hunks added -------------------------------------------------------
    def _edit_index(self, edit: _Edit) -> int:
        """The place of ``edit`` in the sorted list of edits."""
        k = bisect_left(self._ends, edit.end)
        while self._edits[k] is not edit:
            k += 1
        return k

    def _cstart_of(self, edit: _Edit) -> int:
        return self._cstarts[self._edit_index(edit)]

    def _bend_of(self, edit: _Edit) -> int:
        return self._bends[self._edit_index(edit)]

    def added_outward(self, level: int, want: bytes, center: int) -> Iterator[int]:
        """The current lines, added by earlier hunks, whose key under ``level`` is ``want``:
        the edits holding them walked outward from the current line ``center``."""
        holders = self._holders[level].get(want, [])
        key = KEYS[level]
        right = bisect_right(holders, center, key=self._cstart_of)
        left = right - 1
        while left >= 0 or right < len(holders):
            for k in (right, left):
                if 0 <= k < len(holders):
                    edit = holders[k]
                    cstart = self._cstart_of(edit)
                    yield from (cstart + offset for offset, line in enumerate(edit.new)
                                if key(line) == want)
            right, left = right + 1, left - 1

    def added_within(self, level: int, want: bytes, lo: int, hi: int) -> Iterator[int]:
        """The current lines from ``lo`` to ``hi`` (both included), added by earlier hunks,
        whose key under ``level`` is ``want``."""
        holders = self._holders[level].get(want, [])
        key = KEYS[level]
        for edit in holders[bisect_right(holders, lo, key=self._bend_of):]:
            cstart = self._cstart_of(edit)
            if cstart > hi:
                return
            yield from (at for offset, line in enumerate(edit.new)
                        if lo <= (at := cstart + offset) <= hi and key(line) == want)

    def keys_of(self, old: Sequence[bytes], level: int) -> list[bytes]:
        """The old side's lines as ``level`` compares them."""
        if level == 0:  # _key_exact, inline: this runs for every line of every hunk
            return list(old) if whole_lines(old) else [
                line if line.endswith(b"\n") else line + b"\n" for line in old]
        key = KEYS[level]
        return [key(line) for line in old]

    def matches(self, old: Sequence[bytes], level: int, at_end: bool = False,
                near: int | None = None) -> Matches:
        """The copies of ``old`` under ``level``, found lazily outward from the original line
        ``near`` (the hinted line)."""
        keys = self.keys_of(old, level)
        kind = _ListedMatches if self.exhaustive else _LineMatches
        return kind(self, keys, level, at_end, self._anchor(keys, level), near or 0)

    def _anchor(self, keys: Sequence[bytes], level: int) -> int:
        """Which of the keys to look the copies up by. Every match contains every old line,
        so any line finds them all; a rare one finds the fewest places to check. Before a
        file's lines are counted, the longest is taken."""
        index, added = self._index(level), self._added[level]
        if index.count is None:
            sizes = list(map(len, keys))
            return sizes.index(max(sizes))
        zeros = repeat(0)
        rarity = list(map(add, map(index.count.get, keys, zeros), map(added.get, keys, zeros)))
        return rarity.index(min(rarity))

    def starts_near(self, lines: Sequence[bytes], level: int, center: int, radius: int,
                    limit: int | None = None) -> list[int] | None:
        """The current starts strictly within ``radius`` of line ``center`` where ``lines``
        may sit under ``level``: every copy's start is among them (the caller checks each),
        found through the places of one of its lines, not by reading every window. None when
        that line occurs more than ``limit`` times in the file (a line repeated throughout)."""
        keys = self.keys_of(lines, level)
        index, added = self._index(level), self._added[level]
        anchor = self._anchor(keys, level)
        want = keys[anchor]
        places = index.positions(want)  # found once per line, then remembered
        if limit is not None and added.get(want, 0) + len(places) > limit:
            return None
        lo, hi = center - radius + 1, center + radius - 1
        out: list[int] = []
        if added.get(want):
            out.extend(at - anchor for at in self.added_within(level, want, lo + anchor,
                                                               hi + anchor))
        if not places:
            return out
        slack = self._moved  # how far an original line may have moved
        first = bisect_left(places, lo + anchor - slack)
        last = bisect_right(places, hi + anchor + slack)
        for place in places[first:last]:
            cur = self.to_current(place)
            if cur is not None and lo <= cur - anchor <= hi:
                out.append(cur - anchor)
        return out

    def find(self, old: Sequence[bytes], level: int, at_end: bool = False) -> list[Candidate]:
        """Every current position where ``old`` matches under ``level``."""
        return self.matches(old, level, at_end).candidates

    def search(self, old: Sequence[bytes], at_end: bool = False,
               levels: Iterable[int] = range(len(LEVELS)), near: int | None = None) -> Matches:
        """The copies at the first level that finds any (none if no level does)."""
        for level in levels:
            found = self.matches(old, level, at_end, near)
            if found:
                return found
        return Found([], len(LEVELS) - 1)

    # -- editing -----------------------------------------------------------------------------
    def replace(self, start: int, old_size: int, new: list[bytes], hunk: int = 0) -> int:
        """Replace a clean window of the current file; only the lines that differ are recorded
        as the edit (made by ``hunk``), so later hunks may still use this hunk's unchanged
        context. Returns the edit's place in the sorted list of edits."""
        window = self.window(start, old_size)
        head = 0
        while head < min(len(window), len(new)) and window[head] == new[head]:
            head += 1
        tail = 0
        while (tail < min(len(window), len(new)) - head
               and window[-1 - tail] == new[-1 - tail]):
            tail += 1
        original = self.to_original(start, old_size)
        if original is None:
            raise ValueError("replace() needs a window of untouched original lines")
        edit = _Edit(original + head, original + old_size - tail, new[head : len(new) - tail],
                     hunk)
        k = bisect_right(self._ends, edit.start)
        while (k < len(self._edits) and self._edits[k].start == self._edits[k].end == edit.start
               and self._bends[k] <= start + head):
            k += 1  # an earlier insertion at the same point that lies before this one
        self._edits.insert(k, edit)
        self._ends.insert(k, edit.end)
        del self._cstarts[k:], self._bends[k:], self._shift[k + 1:]
        for later in self._edits[k:]:  # in-order hunks append: this loop runs once
            cstart = later.start + self._shift[-1]
            self._cstarts.append(cstart)
            self._bends.append(cstart + len(later.new))
            self._shift.append(self._shift[-1] + len(later.new) - (later.end - later.start))
            self._moved = max(self._moved, abs(self._shift[-1]))
        self.length = self._base + self._shift[-1]
        for level, counter in self._added.items():
            if level == 0 and whole_lines(edit.new):
                added = edit.new  # every line ends with a newline: its own exact key
            else:
                added = list(map(KEYS[level], edit.new))
            counter.update(added)
            holders = self._holders[level]
            for held in dict.fromkeys(added):
                edits = holders.setdefault(held, [])
                # after the edits that start before it (an edit with new lines starts after
                # the one before it in the current file)
                edits.insert(bisect_left(edits, self._cstarts[k], key=self._cstart_of), edit)
        return k


def equal_level(first: Sequence[bytes], second: Sequence[bytes],
                limit: int = len(LEVELS)) -> int:
    """The first comparison level at which two runs of lines (of one length) are equal, or
    ``limit`` when none below it makes them so. Each level makes equal whatever a stricter
    one does, so the answer is the loosest level any one pair of lines needs: a pair is
    compared level by level only from the level the pairs before it needed."""
    level = 0
    loosest = KEYS[limit - 1] if limit else None
    for a, b in zip(first, second, strict=True):
        if a == b:
            continue
        if loosest is None or loosest(a) != loosest(b):
            return limit  # no level up to the limit makes this pair equal
        while KEYS[level](a) != KEYS[level](b):
            level += 1
    return level


def telling_levels(old: Sequence[bytes], new: Sequence[bytes]) -> int:
    """How many levels, from the strictest, tell ``new`` from ``old`` (a hunk that only
    re-indents lines has old and new sides that the whitespace level makes equal: there it
    cannot say which of them a file holds)."""
    if len(old) != len(new):
        return len(LEVELS)
    return equal_level(old, new)


# A refusal quotes the file to help fix the hunk, but never echoes megabytes back.
MAX_REGION = 200
MAX_SHOWN = 500


def show_line(line: bytes) -> str:
    text = line[:MAX_SHOWN * 4].decode("utf-8", "replace").rstrip("\r\n")
    return text if len(text) <= MAX_SHOWN else text[:MAX_SHOWN] + "..."


def near_miss(current: Sequence[bytes], old: Sequence[bytes], hint: int | None
              ) -> dict[str, Any]:
    """The region most like ``old`` and its first differing line, to help fix the hunk."""
    keys = [key_ws(line) for line in old]
    wanted: dict[bytes, list[int]] = {}
    for j, k in enumerate(keys):
        wanted.setdefault(k, []).append(j)
    votes: Counter[int] = Counter()
    hits: Counter[bytes] = Counter()
    for pos, line in enumerate(current):
        k = key_ws(line)
        offsets = wanted.get(k)
        if offsets and hits[k] < 500:
            hits[k] += 1
            for j in offsets:
                votes[pos - j] += 1
    if votes:
        start = max(votes, key=lambda s: (votes[s], -abs(s - (hint or 0))))
    else:
        start = max(0, min(hint or 0, max(len(current) - 1, 0)))
    first_diff = next(
        (j for j in range(len(old))
         if not 0 <= start + j < len(current) or key_ws(current[start + j]) != keys[j]),
        None,
    )
    lo, hi = max(start, 0), min(max(start, 0) + len(old), len(current), start + MAX_REGION)
    region = [{"line": i + 1, "text": show_line(current[i])} for i in range(lo, hi)]
    out: dict[str, Any] = {"nearest_line": lo + 1, "region": region}
    if first_diff is not None:
        at = start + first_diff
        out["first_difference"] = {
            "line": at + 1,
            "expected": show_line(old[first_diff]),
            "found": show_line(current[at]) if 0 <= at < len(current) else None,
        }
    return out
