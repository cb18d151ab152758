"""The placement ladder: where a hunk's old side goes in the running file.

Placing a hunk takes two steps, each an ordered list tried from the top; a hunk they do not
place goes, once the three-way rescue had its say, down a third list, the last rungs.

Finding (``find``, ``RUNGS``): each rung seeks copies of the old side under one comparison level
(match.py), on the hunk as written, then on the hunk without the trailing blank context lines
that may only be separators. The first rung that finds any copy decides: its level is the
hunk's, and what it tolerated goes into the receipt. A rung that finds several copies still
decides; choosing among them is the second step.

    rung                   tolerates                                  reports
    exact                  a missing final newline                    -
    line_endings           CRLF for LF                                line_endings
    trailing_whitespace    and blanks at line ends                    trailing_whitespace
    whitespace             and any run of blanks, indentation too     whitespace
    punctuation            and typographic quotes, dashes, spaces     punctuation
    each again, on the     the hunk's last context lines being        trailing_blank_lines_
    hunk without its       blank lines the file does not have there   as_separator, and the
    trailing blank lines                                              level's

Choosing (``pick``): a deletion with no context is placed only at its line number; a sole copy
before the line an envelope's '@@ <text>' names is refused; then the only copy, else the copy
at the hinted line (as written, or moved by the hunks before it), else the first copy after
the one line matching the '@@ <text>'; else the hunk is ambiguous.

A hunk with no old side is an insertion (``insertion_point``): at the end of the file, when the
hunk says it goes there or the file is empty.

After the rescue (``LAST_RUNGS``, ``salvage_hunk``): when no rung above finds the old side and the
three-way rescue finds no version the file patch applies to (or there is none to ask: no
history, --no-3way), the plan plans the file patch again and sends each hunk no rung above
places down the last rungs (salvage/), in order. Each reads the hunk without lines the model
got wrong and places it only at the one place that reading occurs (never by its line number);
the first whose reading occurs anywhere decides, placing the hunk or refusing it.

    rung                   tolerates                                  reports
    context_indent         context lines away from the change         context_indent
                           indented deeper than the file's
    context_gap            one line of the file the context skips,    context_gap
                           or one blank context line too many
    context_invented       the context of one side not in the file    context_invented
    context_invented       the context of both sides not in the       context_invented
                           file: the removed lines alone (two, or
                           one distinctive line)
    context_invented       the far context lines of both sides:       context_invented
                           the changed lines with the nearest ones
                           (or of one side, the other whole: only
                           to pick the closer of the places a rung
                           before found)
    unidiff_zero           an insertion with no context, in a patch   unidiff_zero
                           with none at all (or whose other hunks
                           prove the line numbers: zero.py): at its
                           line number

The last one answers an insertion refused as ambiguous_context (nothing anchors it), the
others a hunk whose old side no rung found.

The ladder only finds and chooses; whether the hunk is there already is applied.py's, asked by
the plan between the steps (core/plan/hunks.py).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, NamedTuple

from ...errors import PatchError
from ..model import Hunk, HunkLine
from ..model import sides as sides_of
from .match import LEVELS, Candidate, Found, Matches, RunningFile

if TYPE_CHECKING:
    from .numbers import Numbers
    from .salvage.reading import Attempt, Hints, Reading, Salvage


class Sides(NamedTuple):
    """A hunk's body as placement reads it, with its old side (context and removed lines)
    and its new side (context and added lines)."""

    lines: Sequence[HunkLine]
    old: list[bytes]
    new: list[bytes]


class Ask:
    """What the ladder is asked: where ``sides.old`` sits, ending at the file's end when
    ``at_end``, sought outward from ``near`` (the line of the original file the hunk's number
    points to, moved by the hunks before it), and how many of its last context lines are
    blank lines that may only be separators (``optional_tail``)."""

    __slots__ = ("sides", "at_end", "near", "optional_tail", "_trimmed")

    def __init__(self, sides: Sides, at_end: bool, near: int | None,
                 optional_tail: int) -> None:
        self.sides, self.at_end, self.near = sides, at_end, near
        self.optional_tail = optional_tail
        self._trimmed: Sides | None = None

    def trimmed(self) -> Sides | None:
        """The sides without the optional trailing blank lines; None when there are none to
        drop (or nothing would be left)."""
        if not 0 < self.optional_tail < len(self.sides.old):
            return None
        if self._trimmed is None:
            lines = list(self.sides.lines)[: len(self.sides.lines) - self.optional_tail]
            self._trimmed = Sides(lines, *sides_of(lines))
        return self._trimmed


class Copies(NamedTuple):
    """A rung's answer: the copies of the old side (found lazily, at ``found.level``), the
    sides the rung read, and what it tolerated, as the receipt names it."""

    found: Matches
    sides: Sides
    tolerated: tuple[str, ...]


class Rung(NamedTuple):
    name: str
    seek: Callable[[RunningFile, Ask], Copies | None]  # None: the rung does not apply


def _at_level(level: int, trimmed: bool) -> Rung:
    """The rung that seeks the old side under ``level``, on the hunk as written or without
    its optional trailing blank lines."""
    tolerated = (("trailing_blank_lines_as_separator",) if trimmed else ()) \
        + ((LEVELS[level],) if level else ())

    def seek(running: RunningFile, ask: Ask) -> Copies | None:
        read = ask.trimmed() if trimmed else ask.sides
        if read is None:
            return None
        return Copies(running.matches(read.old, level, ask.at_end, ask.near), read, tolerated)

    return Rung(LEVELS[level] + (" without the trailing blank lines" if trimmed else ""), seek)


RUNGS: tuple[Rung, ...] = (*(_at_level(level, False) for level in range(len(LEVELS))),
                           *(_at_level(level, True) for level in range(len(LEVELS))))


def find(running: RunningFile, ask: Ask) -> Copies:
    """The copies at the first rung that finds any. When none does, no copies, with the
    sides the last rung read (a refusal words them)."""
    last = Copies(Found([], len(LEVELS) - 1), ask.sides, ())
    for rung in RUNGS:
        copies = rung.seek(running, ask)
        if copies is None:
            continue
        if copies.found:
            return copies
        last = copies
    return last


class Pick(NamedTuple):
    """The copy chosen, and what chose it when there were several: the hinted line, or the
    line matching the hunk's '@@ <text>' (``anchor_line``, 0-based)."""

    candidate: Candidate
    by_hint: bool
    anchor_line: int | None = None


def pick(running: RunningFile, found: Matches, hunk: Hunk, read: Sides,
         hints: Sequence[int | None]) -> Pick:
    """Choose among the copies ``found`` of ``read.old``; ``hints`` are the lines (of the
    original file) the hunk's number points to, as written and moved by the hunks before it.
    Raises ambiguous_context (or context_not_found for a copy before the '@@' line)."""
    if not read.new and hints[0] is not None and len(read.old) < running.length:
        found = _at_hint_only(found, hints)
    if hunk.anchor_text and len(some := found.some(2)) == 1:
        from .anchor import refuse_copy_before_anchor

        refuse_copy_before_anchor(running.lines(), some[0], len(read.old), hunk.anchor_text)
    try:
        candidate, by_hint = choose(found, hints)
    except PatchError as err:
        if not hunk.anchor_text or err.code != "ambiguous_context":
            raise
        from .anchor import copy_after_anchor

        candidate, anchor_line = copy_after_anchor(
            running.lines(), found.candidates, hunk.anchor_text, err)
        return Pick(candidate, False, anchor_line)
    return Pick(candidate, by_hint)


def choose(found: Matches, hints: Sequence[int | None]) -> tuple[Candidate, bool]:
    """Pick the one candidate; returns (candidate, decided_by_hint) or raises. Only as many
    copies are sought as decide it: a second one, then the copies at the hinted lines."""
    some = found.some(2)
    if len(some) == 1:
        return some[0], False
    at_hint = [c for h in sorted({h for h in hints if h is not None})
               if (c := found.at_original(h)) is not None]
    if len(at_hint) == 1:
        return at_hint[0], True
    cands = found.candidates
    lines = [(c.original if c.original is not None else c.start) + 1 for c in cands]
    raise PatchError(
        "ambiguous_context",
        f"the hunk's old lines occur {len(cands)} times (at lines "
        f"{', '.join(map(str, lines[:10]))}{', ...' if len(lines) > 10 else ''})",
        details={"candidate_lines": lines[:50], "level": LEVELS[found.level]},
    )


def _at_hint_only(found: Matches, hints: Sequence[int | None]) -> Found:
    """A hunk that only removes lines, with no context (diff -U0), leaves nothing behind to
    recognise it by: sent again, it would remove the next copy of its lines. So when it has
    a line number, it is placed only where that number (or the drift-corrected one) says
    (unless it removes the whole file, which has no second copy)."""
    at_hint = [c for h in sorted({h for h in hints if h is not None})
               if (c := found.at_original(h)) is not None]
    if not at_hint:
        lines = ", ".join(str((c.original if c.original is not None else c.start) + 1)
                          for c in found.candidates[:10])
        raise PatchError("ambiguous_context", "the hunk only removes lines and has no context; "
                         f"its line number does not hold them (they are at line {lines}), so "
                         "nothing says which lines are meant",
                         hint="add a few unchanged lines around the removed lines as context")
    return Found(sorted(at_hint), found.level)


def insertion_point(running: RunningFile, hunk: Hunk) -> int:
    """Where a hunk with no old side goes: after the last line, when the file is empty or
    the hunk is tied to the file's end; elsewhere nothing anchors it."""
    if running.length and not hunk.anchor_end:
        raise PatchError("ambiguous_context", "the hunk has no context or removed lines, so "
                         "nothing anchors it in a non-empty file",
                         hint="add a few unchanged lines around the insertion as context (in an "
                         "envelope, '*** End of File' after the hunk appends it at the end)")
    return running.length


# -- after the rescue: the last rungs ---------------------------------------------------------
# Their modules (salvage/) are imported only when a hunk gets this far: a refused hunk.

class LastRung(NamedTuple):
    name: str  # the diagnostic and tolerance it reports
    read: Callable[[Attempt], list[Reading]]  # the hunk read without what the model got wrong


def _indented_deeper(attempt: Attempt) -> list[Reading]:
    from .salvage.indent import readings

    return readings(attempt)


def _gap(attempt: Attempt) -> list[Reading]:
    from .salvage.gap import readings

    return readings(attempt)


def _one_side_invented(attempt: Attempt) -> list[Reading]:
    from .salvage.invented import one_side

    return one_side(attempt)


def _both_sides_invented(attempt: Attempt) -> list[Reading]:
    from .salvage.invented import removed_only

    return removed_only(attempt)


def _both_edges_invented(attempt: Attempt) -> list[Reading]:
    from .salvage.invented import near_the_change

    return near_the_change(attempt)


LAST_RUNGS: tuple[LastRung, ...] = (
    LastRung("context_indent", _indented_deeper),
    LastRung("context_gap", _gap),
    LastRung("context_invented", _one_side_invented),
    LastRung("context_invented", _both_sides_invented),
    LastRung("context_invented", _both_edges_invented),
)
# and, for an insertion refused as ambiguous_context in a patch with no context at all,
# "unidiff_zero" (salvage/zero.py): at its line number


def salvage_hunk(running: RunningFile, hunk: Hunk, refusal: PatchError, *, drift: int,
                 delta: int, zero_context: bool, numbers: Numbers | None = None,
                 clean: bool = False, stale: bool = False) -> tuple[Hunk, Salvage]:
    """A hunk no rung placed (``refusal``), down the last rungs: the hunk rewritten to go
    where one places it (its context the file's own there), and that rung's Salvage. Raises
    ``refusal`` (with a rung's note when its reading fit no one place), or
    salvage.reading.AlreadyThere when the hunk's new side, read the same way, is where it
    would go. ``drift`` and ``delta``: where the hunks before it went and what they added
    minus removed; ``zero_context``: the whole patch has no context line (diff -U0);
    ``numbers``: what the file patch says of its line numbers (the judge weighs it);
    ``clean``: the file equals its index and HEAD; ``stale``: the patch's index line names
    another version of the file than this one (the judge weighs both)."""
    from .numbers import NO_NUMBERS
    from .salvage.hunk import rewrite

    return rewrite(running, hunk, refusal, LAST_RUNGS, drift=drift, delta=delta,
                   zero_context=zero_context, numbers=numbers or NO_NUMBERS, clean=clean,
                   stale=stale)


def climb_last(lines: Sequence[bytes], body: Sequence[HunkLine], hints: Hints | None = None
               ) -> Salvage | None:
    """The last rungs on a file's lines alone (no running file): a Salvage, Unplaced or
    AlreadyThere raised, or None when no rung's reading occurs."""
    from .salvage.hunk import climb_lines

    return climb_lines(lines, body, LAST_RUNGS, hints)
