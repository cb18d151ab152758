"""What the ladder's last rungs share: a hunk read one way (``Reading``), the file it is
sought in (``Searched``), one hunk against one file (``Attempt``), and what a rung answers
(``Salvage``, or ``Unplaced``/``AlreadyThere``).

A model copies the lines it changes from the file it read, but often writes the context
around them from memory. Each last rung reads the hunk without what the model got wrong
(rungs: indent.py, gap.py, invented.py); decide.py says whether a reading's one place is
certain; zero.py places a ``diff -U0`` insertion by its line number. Pure: lines in, lines
out.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from ...model import ADD, CONTEXT, REMOVE, HunkLine
from ..edges import Edges
from ..match import KEYS, WHITESPACE, show_line
from ..numbers import NO_NUMBERS, Numbers

PLACING = 3  # levels a reading may be placed at: exact, line_endings, trailing_whitespace
DISTINCTIVE_CHARS = 20  # non-blank characters of a distinctive line, at least
DISTINCTIVE_WORDS = 2  # different identifiers in it, at least
_WORD = re.compile(rb"[A-Za-z_][A-Za-z0-9_]*")
_CLIP = 60
SHOWN = 3  # lines quoted in a message
_ANCHORS = 4  # lines of a pattern whose copies are counted to pick the rarest, at first
MANY = 1000  # copies of a reading's rarest line beyond which it is not sought
LONGEST = 400  # lines of a hunk the rungs read, at most (a model's hunk is far shorter)


def distinctive(line: bytes) -> bool:
    """Does one line say on its own which line of a file it is? At least 20 non-blank
    characters with at least two different identifiers: a statement or a signature, not a
    bracket, a keyword, ``return None`` or ``pass``, which any function may hold. (It must
    also occur once in the file, with whitespace ignored: the rung's search sees to that.)"""
    text = line.strip()
    return (len(b"".join(text.split())) >= DISTINCTIVE_CHARS
            and len(set(_WORD.findall(text))) >= DISTINCTIVE_WORDS)


def enough(lines: Sequence[bytes]) -> bool:
    """Do the lines a reading matched say where they are: two non-blank lines, or one
    distinctive line? A blank line, or a lone ``else:``, does not."""
    solid = [line for line in lines if line.strip()]
    return len(solid) >= 2 or any(map(distinctive, solid))


@dataclass(frozen=True)
class Salvage:
    """Where a rung placed a hunk, and the hunk rewritten to go there."""

    rung: str  # the diagnostic code and tolerance name
    start: int  # 0-based line of the file where the rewritten hunk's old side starts
    lines: list[HunkLine]  # the changed lines as written; the context the file's own there
    message: str  # what was read otherwise, naming the hunk's lines that are not in the file
    kept: int = 0  # the hunk's old lines the reading matched there (its evidence of the place)


class Unplaced(Exception):
    """A rung's reading occurs in the file, but not at one place it may take: the hunk stays
    refused, and ``note`` says why. Raised by the judge alone (judge.py)."""

    def __init__(self, note: str, lines: Sequence[int] = (), several: bool = False,
                 rivals: dict[int, int] | None = None) -> None:
        super().__init__(note)
        self.note = note
        self.lines = list(lines)  # 1-based lines of the file where the reading occurs
        # the reading fits several places, or one place several ways: nothing says which
        self.several = several
        # the readings fit several places of the file as it is (and none before the earlier
        # hunks): each place (0-based, where the rewritten hunk starts) with the most of the
        # hunk's old lines a reading matched there; a later rung's reading that keeps more
        # lines than any other place holds may decide among them (decide.climb)
        self.rivals = rivals or {}


class TooMany(Exception):
    """A pattern whose every line occurs more than ``most`` times: not looked for."""

    def __init__(self, most: int) -> None:
        super().__init__(most)
        self.most = most




class AlreadyThere(Exception):
    """The same reading of the hunk's new side sits where the hunk would go. ``repeat``: the
    hunk only inserts, with no context, so those lines may as well be the file's own lines
    next to the insertion point (applied.insertion_repeat_error says so)."""

    def __init__(self, at: int, repeat: bool = False) -> None:
        super().__init__(at)
        self.at = at  # 0-based line of the file
        self.repeat = repeat


def _identity(line: int) -> int | None:
    return line


def _untouched(start: int, size: int) -> int | None:
    return start


@dataclass
class Hints:
    """What the planner knows beside the file's lines."""

    # is a line of the file (0-based, as it now stands) one an earlier hunk wrote? The
    # context a rewritten hunk takes from the file stops before such lines
    written: Callable[[int], bool] = field(default=lambda at: False)
    # the file before the earlier hunks of the patch (None: they changed nothing), and the
    # current start of a window of it that they left untouched (None: they changed it)
    original: Sequence[bytes] | None = None
    from_original: Callable[[int, int], int | None] = _untouched
    # the whitespace-level keys of the file's lines and of the original's, when known
    keys: list[bytes] | None = None
    original_keys: list[bytes] | None = None
    # for zero.at_line_number: the current line of an original one (None: an earlier hunk
    # removed it), the drift of the hunks before, and the lines they added minus removed
    to_current: Callable[[int], int | None] = _identity
    drift: int = 0
    delta: int = 0
    # the hunk header's text after '@@', the line of the file (0-based, as it now stands) its
    # old line number points to (moved by the hunks before it; None: no number), and what
    # the file patch says of its line numbers
    section: str = ""
    hinted: int | None = None
    numbers: Numbers = NO_NUMBERS
    # the file equals its index and HEAD (and the blob the patch's index line names): nothing
    # says it changed since the patch was written
    clean: bool = False
    # the patch's index line names a version of the file other than this text: "a stale
    # patch, written against that version" is a reading the evidence allows (judge.py)
    stale: bool = False
    # the file edges the hunk claims (edges.py: git's match_beginning and match_end)
    edges: Edges = Edges(False, False)
    # the hunk is an edit by its text (no line number, no section text, no context lines of
    # its own: the judge asks that no other place of the file be as close)
    by_text: bool = False


class Searched:
    """Lines of a file, with their whitespace-level keys (given, or computed when first
    needed); searched in C (list.index, list.count), so that a rung costs a few passes over
    the keys, not an index built line by line in Python."""

    def __init__(self, lines: Sequence[bytes], keys: list[bytes] | None = None) -> None:
        self.lines = lines
        self._keys = keys

    @property
    def keys(self) -> list[bytes]:
        if self._keys is None:
            self._keys = list(map(KEYS[WHITESPACE], self.lines))
        return self._keys

    def find(self, pattern: Sequence[bytes | None], most: int | None = None) -> list[int]:
        """Every start where the pattern's lines (None: any one line) equal the file's with
        whitespace ignored. With ``most``: a pattern whose every line occurs more often than
        that is not looked for (TooMany: it would fit too many places to tell)."""
        keys, size = self.keys, len(pattern)
        keyed = [None if line is None else KEYS[WHITESPACE](line) for line in pattern]
        # the longest lines are the likely rare ones: the rarest of the first few anchors
        known = sorted({key for key in keyed if key is not None}, key=len, reverse=True)
        if not known:
            return []
        counts = {key: keys.count(key) for key in known[:_ANCHORS]}
        want = min(counts, key=counts.__getitem__)
        if most is not None and counts[want] > most:
            counts.update((key, keys.count(key)) for key in known[_ANCHORS:])
            want = min(counts, key=counts.__getitem__)
            if counts[want] > most:
                raise TooMany(most)
        offsets = [j for j, key in enumerate(keyed) if key == want]
        starts, at = set(), -1
        for _ in range(counts[want]):
            at = keys.index(want, at + 1)
            for offset in offsets:
                start = at - offset
                if 0 <= start <= len(keys) - size and all(
                        key is None or keys[start + j] == key for j, key in enumerate(keyed)):
                    starts.add(start)
        return sorted(starts)

    def at(self, pattern: Sequence[bytes | None], start: int, level: int) -> bool:
        """Does the pattern match at ``start`` under ``level``?"""
        window = self.lines[start : start + len(pattern)] if start >= 0 else []
        key = KEYS[level]
        return len(window) == len(pattern) and all(
            line is None or key(line) == key(have)
            for line, have in zip(pattern, window, strict=True))

    def placed_at(self, pattern: Sequence[bytes | None], start: int) -> bool:
        """Does the pattern match at ``start`` under a level that may place a hunk?"""
        return self.at(pattern, start, PLACING - 1)


@dataclass(frozen=True)
class Reading:
    """One way of reading a hunk: what is sought for its old side and for its new side, and
    the hunk rewritten from where the old side's reading starts."""

    old: Sequence[bytes | None]
    new: Sequence[bytes | None]
    rebuild: Callable[[int], tuple[int, list[HunkLine]]]
    what: str  # how the hunk was read, for the diagnostic and a refusal
    telling: Sequence[bytes]  # the lines whose match says where the hunk goes (``enough``)
    # the sides of context it leaves out ("leading", "trailing"), each with the line of the
    # file where it would start, from where the old side's reading starts
    left_out: Callable[[int], list[tuple[str, int]]] = lambda start: []
    # no context of the hunk's is in the reading: nothing ties the place to the hunk but its
    # removed lines, so its new lines found anywhere are a second place
    unanchored: bool = False
    # a reading that may be placed where it matches only with whitespace ignored, its
    # context indented deeper than the file's (the judge checks the lines at that place);
    # else it is placed only where it matches at a placing level (PLACING)
    indented: bool = False
    # where it gained a line of the file the context skips, or lost a blank context line the
    # file lacks: the body positions of the hunk's lines just above and just below
    seams: Sequence[tuple[int, int]] = ()
    # the lines it leaves out of a side it keeps in part (the far ones: "leading" and
    # "trailing"); a side not named here is left out whole, when left_out names it
    dropped: dict[str, list[HunkLine]] | None = None

    def left_out_of(self, attempt: Attempt, name: str) -> list[HunkLine]:
        """The lines of the side ``name`` this reading leaves out."""
        if self.dropped is not None and name in self.dropped:
            return self.dropped[name]
        return attempt.side(name)


def quote(lines: Sequence[bytes]) -> str:
    shown = []
    for line in lines[:SHOWN]:
        text = show_line(line)
        shown.append(repr(text if len(text) <= _CLIP else text[: _CLIP - 3] + "..."))
    more = f" and {len(lines) - SHOWN} more" if len(lines) > SHOWN else ""
    return ", ".join(shown) + more


def old_side(lines: Sequence[HunkLine]) -> list[bytes]:
    return [line.text for line in lines if line.kind != ADD]


def new_side(lines: Sequence[HunkLine]) -> list[bytes]:
    return [line.text for line in lines if line.kind != REMOVE]


def _split(lines: Sequence[HunkLine]) -> tuple[list[HunkLine], list[HunkLine], list[HunkLine]]:
    """(context before the first change line, first to last change line, context after)."""
    changes = [j for j, line in enumerate(lines) if line.kind != CONTEXT]
    if not changes:
        return list(lines), [], []
    return (list(lines[: changes[0]]), list(lines[changes[0] : changes[-1] + 1]),
            list(lines[changes[-1] + 1 :]))


class Attempt:
    """One hunk (``body``) against one file (``lines``): what every rung reads."""

    def __init__(self, lines: Sequence[bytes], body: Sequence[HunkLine], hints: Hints) -> None:
        self.file = Searched(lines, hints.keys)
        self.original = (None if hints.original is None
                         else Searched(hints.original, hints.original_keys))
        self.body = list(body)
        self.hints = hints
        # the leading context, the change lines (first to last), the trailing context
        self.lead, self.core, self.tail = _split(self.body)

    # -- the file's own context around a place ----------------------------------------------
    def before(self, start: int, count: int) -> list[HunkLine]:
        """Up to ``count`` lines of the file just before ``start``, as context, stopping at a
        line an earlier hunk wrote."""
        out: list[HunkLine] = []
        at = start - 1
        while len(out) < count and at >= 0 and not self.hints.written(at):
            out.insert(0, HunkLine(CONTEXT, self.file.lines[at]))
            at -= 1
        return out

    def after(self, end: int, count: int) -> list[HunkLine]:
        """Up to ``count`` lines of the file from ``end`` on, as context, stopping at a line
        an earlier hunk wrote."""
        out: list[HunkLine] = []
        at = end
        while len(out) < count and at < len(self.file.lines) and not self.hints.written(at):
            out.append(HunkLine(CONTEXT, self.file.lines[at]))
            at += 1
        return out

    def absent(self, side: Sequence[HunkLine], start: int) -> list[bytes]:
        """The lines of a context side that are not the file's lines from ``start`` on."""
        key, lines = KEYS[PLACING - 1], self.file.lines
        return [line.text for j, line in enumerate(side)
                if not 0 <= start + j < len(lines) or key(line.text) != key(lines[start + j])]

    def side(self, name: str) -> list[HunkLine]:
        """The context side named "leading" or "trailing"."""
        return self.lead if name == "leading" else self.tail

    def elsewhere(self, line: bytes) -> list[int]:
        """Where a line is in the file, or was before the patch's earlier hunks (1-based)."""
        found = {at + 1 for at in self.file.find([line])}
        if self.original is not None:
            found.update(at + 1 for at in self.original.find([line]))
        return sorted(found)
