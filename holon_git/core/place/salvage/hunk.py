"""The ladder's last rungs for the planner: a hunk every level refused, read by the rungs it
is handed (place/ladder.py's LAST_RUNGS) and rewritten to go where one places it."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from ....errors import PatchError
from ...model import ADD, REMOVE, Hunk, HunkLine, line_hunk
from ..edges import claimed_edges
from ..match import WHITESPACE, RunningFile
from ..numbers import NO_NUMBERS, Numbers
from . import judge
from .decide import Rung, climb
from .reading import LONGEST, Attempt, Hints, Salvage, Unplaced
from .zero import at_line_number


def climb_lines(lines: Sequence[bytes], body: Sequence[HunkLine], rungs: Sequence[Rung],
                hints: Hints | None = None) -> Salvage | None:
    """The first of ``rungs`` whose reading of the hunk ``body`` occurs in the file ``lines``
    places it (a Salvage), or refuses it (Unplaced; AlreadyThere for a re-send); None when no
    reading occurs."""
    if len(body) > LONGEST:
        return None
    return climb(Attempt(lines, body, hints or Hints()), rungs)


def _hinted(running: RunningFile, hunk: Hunk, drift: int) -> int | None:
    """The line of the running file (0-based) the hunk's old line number points to, moved by
    the hunks before it; None without a number."""
    if hunk.old_start is None:
        return None
    line = min(max(hunk.old_start - 1 + drift, 0), max(len(running.original) - 1, 0))
    at = running.to_current(line)
    return line if at is None else at


# Hunks no rung takes: cut off (their end is unknown), tied to the file's end or to an
# envelope's '@@' line, or changing whether the file ends with a newline.
def _salvageable(hunk: Hunk, by_number: bool) -> bool:
    """May a rung rewrite the hunk? Not one whose lines' ends or anchors a rewrite could lose;
    but a -U0 insertion of a last line without a newline (``by_number``: placed by its line
    number, which zero.py keeps at the file's end) may."""
    if hunk.unfinished or hunk.anchor_end or hunk.anchor_text or hunk.old_no_newline:
        return False
    return not hunk.new_no_newline or by_number


def _climbed(lines: Sequence[bytes], body: Sequence[HunkLine], rungs: Sequence[Rung],
             hints: Hints) -> Salvage | Unplaced | None:
    """What the rungs make of one reading of a hunk: placed, refused, or not found."""
    try:
        return climb_lines(lines, body, rungs, hints)
    except Unplaced as refused:
        return refused


def _both_ways(lines: Sequence[bytes], hunk: Hunk, rungs: Sequence[Rung],
               hints: Hints) -> Salvage | None:
    """An edit by its text says which lines it keeps only by their text: where its changed
    lines could sit a line up or down among equal lines, a diff would have said which (its
    context lines), and the edit does not. So the edit is climbed read both ways (its
    changed lines where the line diff puts them, and as far up as they go: model.line_hunk's
    ``upward``), and the judge says what the two readings together place (judge.either_way;
    raises Unplaced)."""
    body = list(hunk.lines)
    first = _climbed(lines, body, rungs, hints)
    other = line_hunk([line.text for line in body if line.kind != ADD],
                      [line.text for line in body if line.kind != REMOVE], old_start=None,
                      slides=True, upward=True).lines
    if other == body:
        if isinstance(first, Unplaced):
            raise first
        return first
    return judge.either_way(first, _climbed(lines, other, rungs, hints))


def rewrite(running: RunningFile, hunk: Hunk, refusal: PatchError, rungs: Sequence[Rung], *,
            drift: int, delta: int, zero_context: bool, numbers: Numbers = NO_NUMBERS,
            clean: bool = False, stale: bool = False) -> tuple[Hunk, Salvage]:
    """``hunk``, refused by every level (``refusal``), rewritten by the rung that places it,
    with that rung's Salvage. Raises ``refusal`` when no rung places it, with the note of a
    rung that found its lines at no one place; AlreadyThere when a rung finds its new side
    where it would go. ``delta`` is what the hunks before it added minus removed;
    ``zero_context``: the whole patch has no context line (diff -U0), so an insertion
    refused as ``ambiguous_context`` may go by its line number (zero.py); ``numbers``: what
    the file patch says of its line numbers (the judge weighs it); ``clean``: the file
    equals its index and HEAD, nothing says it changed since the patch was written;
    ``stale``: the patch's index line names another version of the file than this one."""
    if not _salvageable(hunk, zero_context and refusal.code == "ambiguous_context"):
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
                  original_keys=running.original_keys(WHITESPACE) if edited else None,
                  section=hunk.section, hinted=_hinted(running, hunk, drift),
                  numbers=numbers, clean=clean, stale=stale,
                  edges=claimed_edges(hunk, hunk.lines), by_text=hunk.edit is not None)
    try:
        if refusal.code == "ambiguous_context":
            found = at_line_number(lines, hunk, hints) if zero_context else None
        else:
            found = (climb_lines(lines, list(hunk.lines), rungs, hints) if hunk.edit is None
                     else _both_ways(lines, hunk, rungs, hints))
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
