"""The rungs below the matching ladder: a hunk placed by the lines the model got right.

A model copies the lines it changes from the file it read, but often writes the context
around them from memory: an edge of context that is not in the file, a line it skipped, a
blank line too many or too few, context indented like the code it adds. Every comparison
level of match.py then fails, and so may the three-way rescue (no other version holds those
lines either). These rungs are tried only then, in this order, each reading the hunk one way:

1. ``context_indent``: the whole old side, with whitespace ignored; only context lines that
   are not next to a change may differ, and only by being indented deeper than the file's.
2. ``context_gap``: the old side with one line of the file skipped between two of its context
   lines, or with one of its blank context lines (between two context lines) left out.
3. ``context_invented``, one side: the changed lines with the context of one side only (the
   other side is not in the file). For a pure insertion that is one whole side alone, and the
   other side, read alone too, must then occur nowhere (it would be a second place).
4. ``context_invented``, both sides: the removed lines (with the context between them) alone,
   when there are at least two, or one that is distinctive (``distinctive``).

A reading is searched with whitespace ignored, in the file as the earlier hunks left it and in
the file as it was before them (the patch was written against that one), so that a look-alike
block, or a copy an earlier hunk changed, counts as a second place. The first rung whose
reading occurs anywhere decides. The hunk is placed only when the reading occurs at exactly
one place, there with at most trailing whitespace or line endings differing, when what it
matched carries enough to go on (``enough``), and when a side it left out is not found,
whitespace ignored, on the very lines it matched (context after a removed line that repeats
that line: the hunk then contradicts the file). Otherwise it is refused (``Unplaced``). Line
numbers never break a tie on these rungs.

A placed hunk is rewritten with the file's own lines as its context there (``Salvage.lines``),
so that the ordinary placement, with its already-applied checks, takes it at that one place.
Before that, the same reading of the hunk's new side is sought: found overlapping where the
hunk would go, the patch is in already (``AlreadyThere``), as a re-sent salvaged patch is.

Apart from the ladder, ``at_line_number``: a pure insertion of a patch that has no context
at all (``diff -U0``) goes where its header says, as ``git apply --unidiff-zero`` puts it, when
the header agrees with itself and with the hunks placed before it.

Pure: the file's lines and the hunk's lines in, a Salvage (or None) out.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace

from ..errors import PatchError
from .model import ADD, CONTEXT, REMOVE, Hunk, HunkLine
from .place.match import KEYS, WHITESPACE, RunningFile, show_line, telling_levels

PLACING = 3  # levels a reading may be placed at: exact, line_endings, trailing_whitespace
DISTINCTIVE_CHARS = 20  # non-blank characters of a distinctive line, at least
DISTINCTIVE_WORDS = 2  # different identifiers in it, at least
EDITED = 0.6  # share of words and signs a line and its edited form have in common, at least
_TOKEN = re.compile(rb"\w+|[^\w\s]")
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


class Unplaced(Exception):
    """A rung's reading occurs in the file, but not at one place it may take: the hunk stays
    refused, and ``note`` says why."""

    def __init__(self, note: str, lines: Sequence[int] = ()) -> None:
        super().__init__(note)
        self.note = note
        self.lines = list(lines)  # 1-based lines of the file where the reading occurs


class AlreadyThere(Exception):
    """The same reading of the hunk's new side sits where the hunk would go."""

    def __init__(self, at: int) -> None:
        super().__init__(at)
        self.at = at  # 0-based line of the file


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
    # for at_line_number: the current line of an original one (None: an earlier hunk
    # removed it), the drift of the hunks before, and the lines they added minus removed
    to_current: Callable[[int], int | None] = _identity
    drift: int = 0
    delta: int = 0


class _File:
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
        that is not looked for (Unplaced: it would fit too many places to tell)."""
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
                raise Unplaced(f"every line of it occurs more than {most} times in the file: "
                               "it would fit too many places to tell")
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
class _Reading:
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


def _quote(lines: Sequence[bytes]) -> str:
    shown = []
    for line in lines[:SHOWN]:
        text = show_line(line)
        shown.append(repr(text if len(text) <= _CLIP else text[: _CLIP - 3] + "..."))
    more = f" and {len(lines) - SHOWN} more" if len(lines) > SHOWN else ""
    return ", ".join(shown) + more


def _old(lines: Sequence[HunkLine]) -> list[bytes]:
    return [line.text for line in lines if line.kind != ADD]


def _new(lines: Sequence[HunkLine]) -> list[bytes]:
    return [line.text for line in lines if line.kind != REMOVE]


def _split(lines: Sequence[HunkLine]) -> tuple[list[HunkLine], list[HunkLine], list[HunkLine]]:
    """(context before the first change line, first to last change line, context after)."""
    changes = [j for j, line in enumerate(lines) if line.kind != CONTEXT]
    if not changes:
        return list(lines), [], []
    return (list(lines[: changes[0]]), list(lines[changes[0] : changes[-1] + 1]),
            list(lines[changes[-1] + 1 :]))


def _same(first: Sequence[bytes | None], second: Sequence[bytes | None]) -> bool:
    """Two patterns of one length, line for line the same (a skipped line as any line)."""
    return all(a is None or b is None or a == b for a, b in zip(first, second, strict=True))


def _edited(patch_line: bytes, file_line: bytes) -> bool:
    """Is the patch's line the file's line edited (an identifier renamed, an argument added,
    an index turned into a call): at least three in five of their words and signs the same,
    in order?"""
    from difflib import SequenceMatcher  # a refusal's question only

    ours, theirs = _TOKEN.findall(patch_line), _TOKEN.findall(file_line)
    return SequenceMatcher(None, ours, theirs, autojunk=False).ratio() >= EDITED


def _deeper(patch_line: bytes, file_line: bytes) -> bool:
    """Is the patch's line the file's line indented further (its indentation the file's with
    more after it, the rest the same)?"""
    ours, theirs = patch_line.rstrip(b"\r\n"), file_line.rstrip(b"\r\n")
    ours_text, theirs_text = ours.lstrip(b" \t"), theirs.lstrip(b" \t")
    ours_indent = ours[: len(ours) - len(ours_text)]
    theirs_indent = theirs[: len(theirs) - len(theirs_text)]
    return (ours_text.rstrip() == theirs_text.rstrip() and len(ours_indent) > len(theirs_indent)
            and ours_indent.startswith(theirs_indent))


class _Ladder:
    """The rungs, for one hunk against one file."""

    def __init__(self, lines: Sequence[bytes], body: Sequence[HunkLine], hints: Hints) -> None:
        self.file = _File(lines, hints.keys)
        self.original = (None if hints.original is None
                         else _File(hints.original, hints.original_keys))
        self.body = list(body)
        self.hints = hints
        self.lead, self.core, self.tail = _split(self.body)

    # -- the file's own context around a place ----------------------------------------------
    def _before(self, start: int, count: int) -> list[HunkLine]:
        """Up to ``count`` lines of the file just before ``start``, as context, stopping at a
        line an earlier hunk wrote."""
        out: list[HunkLine] = []
        at = start - 1
        while len(out) < count and at >= 0 and not self.hints.written(at):
            out.insert(0, HunkLine(CONTEXT, self.file.lines[at]))
            at -= 1
        return out

    def _after(self, end: int, count: int) -> list[HunkLine]:
        out: list[HunkLine] = []
        at = end
        while len(out) < count and at < len(self.file.lines) and not self.hints.written(at):
            out.append(HunkLine(CONTEXT, self.file.lines[at]))
            at += 1
        return out

    def _absent(self, side: Sequence[HunkLine], start: int) -> list[bytes]:
        """The lines of a context side that are not the file's lines from ``start`` on."""
        key, lines = KEYS[PLACING - 1], self.file.lines
        return [line.text for j, line in enumerate(side)
                if not 0 <= start + j < len(lines) or key(line.text) != key(lines[start + j])]

    # -- the rungs ---------------------------------------------------------------------------
    def indent(self) -> list[_Reading]:
        """Rung 1: the whole old side, found with whitespace ignored; see check_indent."""
        if not self.core:
            return []
        return [_Reading(_old(self.body), _new(self.body), self._reindented,
                         "with the file's indentation for its context lines indented deeper "
                         "than the file's", _old(self.body))]

    def _reindented(self, start: int) -> tuple[int, list[HunkLine]]:
        out, at = [], start
        for line in self.body:
            if line.kind == CONTEXT:
                line = HunkLine(CONTEXT, self.file.lines[at])
            out.append(line)
            at += line.kind != ADD
        return start, out

    def check_indent(self, start: int) -> list[bytes]:
        """At the one place the old side matches with whitespace ignored: every removed line,
        and every context line next to a change, equal to the file's; the other context lines
        equal too, or indented deeper. Returns the deeper ones; raises Unplaced otherwise."""
        deeper, at, key = [], start, KEYS[PLACING - 1]
        for j, line in enumerate(self.body):
            if line.kind == ADD:
                continue
            have = self.file.lines[at]
            at += 1
            if key(line.text) == key(have):
                continue
            beside = any(0 <= k < len(self.body) and self.body[k].kind != CONTEXT
                         for k in (j - 1, j + 1))
            if line.kind == CONTEXT and not beside and _deeper(line.text, have):
                deeper.append(line.text)
                continue
            raise Unplaced(f"its line {_quote([line.text])} matches line {at} of the file only "
                           "with whitespace ignored, and is a removed line, a context line "
                           "next to a change, or not indented deeper than the file's", [at])
        return deeper

    def gap(self) -> list[_Reading]:
        """Rung 2: one line of the file skipped between two lines of the hunk's old side, not
        both removed lines (the skipped line would survive a removal of the lines around it).
        Where added lines sit between them, the hunk says what its added lines follow and
        precede: the skipped line goes between them and one of those lines only when that
        line is blank (a blank line says nothing of where it is); so both readings may be
        tried. Or one blank context line of the hunk, between two context lines, not in the
        file; every blank context line next to it in the old side is a reading too. Readings
        that give different results at one place are two places: among equal lines, nothing
        says which one the model skipped or added, nor so where its added lines go."""
        body, readings = self.body, []
        olds = [j for j, line in enumerate(body) if line.kind != ADD]
        for k in range(1, len(olds)):
            before, after = olds[k - 1], olds[k]
            if body[before].kind == REMOVE and body[after].kind == REMOVE:
                continue
            if after == before + 1:
                readings.append(self._skipped(k, after))
                continue
            if not body[before].text.strip():  # between that blank line and the added lines
                readings.append(self._skipped(k, before + 1))
            if not body[after].text.strip():  # between the added lines and that blank line
                readings.append(self._skipped(k, after))
        blank = [k for k, j in enumerate(olds) if body[j].kind == CONTEXT
                 and not body[j].text.strip()]
        dropped: set[int] = set()
        for k in blank:
            j = olds[k]
            if 0 < j < len(body) - 1 and body[j - 1].kind == CONTEXT \
                    and body[j + 1].kind == CONTEXT:
                run = {k}
                for step in (-1, 1):  # the blank context lines next to it in the old side
                    at = k + step
                    while at in blank:
                        run.add(at)
                        at += step
                dropped |= run
        readings.extend(self._extra_blank(olds[k], k) for k in sorted(dropped))
        return readings

    def _skipped(self, k: int, cut: int) -> _Reading:
        """The file's line skipped before old line ``k``, put at body position ``cut``."""
        old = _old(self.body)
        body = self.body

        def rebuild(start: int) -> tuple[int, list[HunkLine]]:
            line = HunkLine(CONTEXT, self.file.lines[start + k])
            return start, [*body[:cut], line, *body[cut:]]

        new_cut = sum(line.kind != REMOVE for line in body[:cut])
        new = _new(body)
        return _Reading([*old[:k], None, *old[k:]], [*new[:new_cut], None, *new[new_cut:]],
                        rebuild, "with the line of the file it skipped between its lines "
                        f"{_quote([old[k - 1]])} and {_quote([old[k]])}", old)

    def _extra_blank(self, j: int, k: int) -> _Reading:
        """Without the blank context line at body position ``j`` (old line ``k``)."""
        old, body = _old(self.body), [*self.body[:j], *self.body[j + 1 :]]
        before = _old(self.body[:j])
        what = (f"without its blank context line after {_quote([before[-1]])}" if before
                else "without its first, blank, context line")
        return _Reading([*old[:k], *old[k + 1 :]], _new(body), lambda start: (start, body),
                        f"{what}, which the file does not have there", old)

    def one_side(self) -> list[_Reading]:
        """Rung 3: the changed lines with the context of one side, the other side left out."""
        if not (self.core and self.lead and self.tail):
            return []
        lead, core, tail = self.lead, self.core, self.tail
        lead_old, core_old, tail_old = _old(lead), _old(core), _old(tail)

        def keep_lead(start: int) -> tuple[int, list[HunkLine]]:
            end = start + len(lead_old) + len(core_old)
            return start, [*lead, *core, *self._after(end, len(tail))]

        def keep_tail(start: int) -> tuple[int, list[HunkLine]]:
            filled = self._before(start, len(lead))
            return start - len(filled), [*filled, *core, *tail]

        return [
            _Reading([*lead_old, *core_old], [*_new(lead), *_new(core)], keep_lead,
                     "by its leading context and changed lines, without its trailing context",
                     [*lead_old, *core_old],
                     lambda start: [("trailing", start + len(lead_old) + len(core_old))]),
            _Reading([*core_old, *tail_old], [*_new(core), *_new(tail)], keep_tail,
                     "by its changed lines and trailing context, without its leading context",
                     [*core_old, *tail_old],
                     lambda start: [("leading", start - len(lead_old))]),
        ]

    def removed_only(self) -> list[_Reading]:
        """Rung 4: the removed lines (with the context between them) alone."""
        removed = [line.text for line in self.core if line.kind == REMOVE]
        if not (len(removed) >= 2 or (len(removed) == 1 and distinctive(removed[0]))):
            return []
        if not (self.lead or self.tail):
            return []  # the ladder searched exactly these lines already
        core_old = _old(self.core)

        def rebuild(start: int) -> tuple[int, list[HunkLine]]:
            filled = self._before(start, len(self.lead))
            after = self._after(start + len(core_old), len(self.tail))
            return start - len(filled), [*filled, *self.core, *after]

        def left_out(start: int) -> list[tuple[str, int]]:
            return [(name, at) for name, side, at in (
                ("leading", self.lead, start - len(_old(self.lead))),
                ("trailing", self.tail, start + len(core_old))) if side]

        return [_Reading(core_old, _new(self.core), rebuild,
                         "by its removed lines alone, without its context on either side",
                         core_old, left_out, unanchored=True)]

    # -- deciding ----------------------------------------------------------------------------
    def climb(self) -> Salvage | None:
        for rung, readings in (("context_indent", self.indent()), ("context_gap", self.gap()),
                               ("context_invented", self.one_side()),
                               ("context_invented", self.removed_only())):
            found = [(start, reading) for reading in readings
                     for start in self.file.find(reading.old, most=MANY)]
            before = self._only_before(readings, found)
            if found or before:
                return self._decide(rung, found, before)
        return None

    def _only_before(self, readings: list[_Reading],
                     found: list[tuple[int, _Reading]]) -> list[int]:
        """Where the readings occur in the file as it was before the earlier hunks, at lines
        those hunks changed (1-based): places the patch's own text saw, that a placement in
        the file as it is now would not see."""
        if self.original is None:
            return []
        now = {(start, id(reading)) for start, reading in found}
        out = []
        for reading in readings:
            for start in self.original.find(reading.old, most=MANY):
                at = self.hints.from_original(start, len(reading.old))
                if at is None or (at, id(reading)) not in now:
                    out.append(start + 1)
        return out

    def _decide(self, rung: str, found: list[tuple[int, _Reading]],
                before: list[int]) -> Salvage:
        # one place: one result (where, how many lines, what they become), however read
        places: dict[tuple[int, int, tuple[bytes, ...]],
                     tuple[int, _Reading, list[HunkLine]]] = {}
        for start, reading in found:
            at, lines = reading.rebuild(start)
            result = (at, sum(line.kind != ADD for line in lines), tuple(_new(lines)))
            places.setdefault(result, (start, reading, lines))
        readings = {id(reading): reading for _, reading in found}
        read = (next(iter(readings.values())).what if len(readings) == 1
                else "without the lines that are not in the file")
        if len(places) > 1 and not before and len({at for at, _, _ in places}) == 1:
            line = next(iter(places))[0] + 1
            raise Unplaced(f"read {read}, it fits line {line} in {len(places)} ways that "
                           "put its lines differently (the lines around its change repeat): "
                           "nothing says which", [line])
        if len(places) > 1 or before:
            numbers = sorted({at + 1 for at, _, _ in places})
            also = (f", and line{'s' if len(before) > 1 else ''} "
                    f"{', '.join(map(str, before[:10]))} of the file as it was before the "
                    "patch's earlier hunks changed them" if before else "")
            raise Unplaced(f"read {read}, it fits {len(places) + len(before)} places (line"
                           f"{'s' if len(numbers) != 1 else ''} "
                           f"{', '.join(map(str, numbers[:10]))}{also}): nothing says which",
                           [*numbers, *before])
        ((at, _, _), (start, reading, lines)), = places.items()
        if rung != "context_indent" and not self.file.placed_at(reading.old, start):
            raise Unplaced(f"read {reading.what}, it matches line {start + 1} only with "
                           "whitespace ignored", [start + 1])
        if not enough(reading.telling):
            raise Unplaced(f"read {reading.what}, what is left of it ({_quote(reading.telling)})"
                           f" is too little to say that line {start + 1} is meant", [start + 1])
        deeper = self.check_indent(start) if rung == "context_indent" else []
        self._check_left_out(reading, start)
        self._guard(reading, start)
        if reading.unanchored:
            self._new_lines_elsewhere(reading)
        return Salvage(rung, at, list(lines), self._message(rung, reading, start, at, deeper))

    def _new_lines_elsewhere(self, reading: _Reading) -> None:
        """Placed by its removed lines alone, a hunk whose new lines the file already has
        elsewhere (they say where they are: ``enough``) may have been applied there, its
        context invented, and the removed lines found be another copy: GNU patch's
        'reversed (or previously applied)' case. Refused."""
        new = [line for line in reading.new if line is not None]
        if not enough(new):
            return
        found = self.file.find(new)
        if found:
            raise Unplaced(f"read {reading.what}, its new lines are already at line "
                           f"{found[0] + 1}: the hunk may be applied there", found[:10])

    def _check_left_out(self, reading: _Reading, start: int) -> None:
        """A side the reading leaves out must be invented, not context that is there:
        - not found, whitespace ignored, on the very lines the reading matched (context after
          a removed line that repeats that line: the hunk contradicts the file);
        - not the file's lines there but for the one next to the change, which is the file's
          line there edited (a changed neighbour: the file changed beside the edit since the
          patch was written, which git merge-file calls a conflict);
        - when none of its lines is the file's line there, none of its distinctive lines a
          line of the file elsewhere (the side is then not invented but copied from another
          place, which the hunk may describe)."""
        end, key, lines = start + len(reading.old), KEYS[PLACING - 1], self.file.lines
        for name, at in reading.left_out(start):
            side = _old(self.lead if name == "leading" else self.tail)
            if any(line.strip() for line in side):
                for found in range(start - len(side) + 1, end):
                    if self.file.at(side, found, WHITESPACE):
                        raise Unplaced(f"read {reading.what}, its {name} context "
                                       f"({_quote(side)}) is at line {found + 1}, on the lines "
                                       "it matched: the hunk contradicts the file there",
                                       [found + 1])
            differ = [j for j, line in enumerate(side)
                      if not 0 <= at + j < len(lines) or key(line) != key(lines[at + j])]
            beside = len(side) - 1 if name == "leading" else 0
            if differ == [beside] and 0 <= at + beside < len(lines) \
                    and _edited(side[beside], lines[at + beside]):
                raise Unplaced(f"read {reading.what}, its context line next to the change, "
                               f"{_quote([side[beside]])}, is line {at + beside + 1} of the "
                               f"file, {_quote([lines[at + beside]])}, edited: the file changed "
                               "beside the edit since the patch was written",
                               [at + beside + 1])
            if len(differ) < len(side):
                continue
            for line in side:
                elsewhere = self._elsewhere(line) if distinctive(line) else []
                if elsewhere:
                    raise Unplaced(f"read {reading.what}, its {name} context is nowhere the "
                                   f"file's lines there, but its line {_quote([line])} is line "
                                   f"{elsewhere[0]} of the file: the context is not invented "
                                   "but copied from elsewhere, and the hunk may describe that "
                                   "place", elsewhere)

    def _elsewhere(self, line: bytes) -> list[int]:
        """Where a line is in the file, or was before the patch's earlier hunks (1-based)."""
        found = {at + 1 for at in self.file.find([line])}
        if self.original is not None:
            found.update(at + 1 for at in self.original.find([line]))
        return sorted(found)

    def _guard(self, reading: _Reading, start: int) -> None:
        """The same reading of the new side, found overlapping where the old side's is: the
        hunk is in already (a re-send). Compared only at the levels that tell the two sides
        apart (a hunk that only re-indents is the same at the whitespace level)."""
        new = reading.new
        olds = [line for line in reading.old if line is not None]
        news = [line for line in new if line is not None]
        if not news:
            return
        end = start + len(reading.old)
        for level in range(min(PLACING, telling_levels(olds, news))):
            for at in range(start - len(new) + 1, end):
                inside = reading.old[at - start : at - start + len(new)] if at >= start else []
                if self.file.at(new, at, level) and not (
                        len(inside) == len(new) and _same(inside, new)):
                    raise AlreadyThere(at)

    def _message(self, rung: str, reading: _Reading, start: int, at: int,
                 deeper: list[bytes]) -> str:
        placed = f"placed at line {at + 1}"
        if rung == "context_indent":
            return (f"its context lines {_quote(deeper)} are indented deeper than the file's; "
                    f"read {reading.what}, {placed}")
        if rung == "context_gap":
            return f"read {reading.what}, {placed}"
        # the rewritten hunk holds the file's lines where the left-out sides were
        dropped = [line for name, side_at in reading.left_out(start) for line in self._absent(
            self.lead if name == "leading" else self.tail, side_at)]
        said = f"its context lines {_quote(dropped)} are not in the file there"
        nowhere = [line for line in dropped if not self.file.find([line])]
        if nowhere:
            said += f" ({_quote(nowhere)} nowhere in it)"
        return f"{said}; read {reading.what}, {placed}"


def climb(lines: Sequence[bytes], body: Sequence[HunkLine],
          hints: Hints | None = None) -> Salvage | None:
    """The first rung whose reading of the hunk ``body`` occurs in the file ``lines`` places
    it (a Salvage), or refuses it (Unplaced; AlreadyThere for a re-send); None when no
    reading occurs."""
    if len(body) > LONGEST:
        return None
    return _Ladder(lines, body, hints or Hints()).climb()


def at_line_number(lines: Sequence[bytes], hunk: Hunk, hints: Hints) -> Salvage | None:
    """A pure insertion with no context, of a patch with no context at all: placed after its
    header's old line (``git apply --unidiff-zero``), when its header's counts agree with its
    body, its new start with its old start and the lines the hunks before it added and
    removed (``hints.delta``), and those hunks went where their own line numbers said
    (``hints.drift`` 0). None otherwise, or when an earlier hunk removed that line. Raises
    AlreadyThere when the added lines already follow it."""
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
    key = KEYS[PLACING - 1]
    if [key(line) for line in lines[at : at + len(added)]] == list(map(key, added)):
        raise AlreadyThere(at)
    ladder = _Ladder(lines, body, hints)
    lead, tail = ladder._before(at, 1), ladder._after(at, 1)
    if not (lead or tail):
        return None
    where = f"after line {at}" if at else "at the start of the file"
    return Salvage("unidiff_zero", at - len(lead), [*lead, *body, *tail],
                   f"the patch has no context lines at all (diff -U0); its {len(added)} "
                   f"added line(s) went {where}, where its header says, as git apply "
                   "--unidiff-zero puts them")


# Hunks no rung takes: cut off (their end is unknown), tied to the file's end or to an
# envelope's '@@' line, or changing whether the file ends with a newline.
def _salvageable(hunk: Hunk) -> bool:
    return not (hunk.unfinished or hunk.anchor_end or hunk.anchor_text or hunk.old_no_newline
                or hunk.new_no_newline)


def salvage_hunk(running: RunningFile, hunk: Hunk, refusal: PatchError, *, drift: int,
                 delta: int, zero_context: bool) -> tuple[Hunk, Salvage]:
    """For the planner: ``hunk``, refused by every level (``refusal``), rewritten by the rung
    that places it, with that rung's Salvage. Raises ``refusal`` when no rung places it, with
    the note of a rung that found its lines at no one place; AlreadyThere when a rung finds
    its new side where it would go. ``delta`` is what the hunks before it added minus
    removed; ``zero_context``: the whole patch has no context line (diff -U0)."""
    if not _salvageable(hunk):
        raise refusal
    lines = running.lines()

    def from_original(start: int, size: int) -> int | None:
        at = running.to_current(start)
        return at if at is not None and running.to_original(at, size) == start else None

    edited = running.edited
    hints = Hints(written=lambda at: running.to_original(at, 1) is None,
                  original=running.original if edited else None,
                  from_original=from_original, to_current=running.to_current, drift=drift,
                  delta=delta, keys=running.keys(WHITESPACE),
                  original_keys=running.original_keys(WHITESPACE) if edited else None)
    try:
        if refusal.code == "ambiguous_context":
            found = at_line_number(lines, hunk, hints) if zero_context else None
        else:
            found = climb(lines, list(hunk.lines), hints)
    except Unplaced as unsure:
        refusal.message += f"; {unsure.note}"
        refusal.details["salvage"] = {"note": unsure.note, "lines": unsure.lines[:50]}
        raise refusal from None
    if found is None:
        raise refusal
    old_count = sum(line.kind != ADD for line in found.lines)
    new_count = sum(line.kind != REMOVE for line in found.lines)
    rewritten = replace(hunk, lines=found.lines, old_count=old_count, new_count=new_count,
                        optional_tail=0)
    if found.rung == "unidiff_zero":  # its line number is all that places it: say it there
        original = running.to_original(found.start, 1)
        assert original is not None
        rewritten.old_start, rewritten.new_start = original + 1, None
    return rewritten, found
