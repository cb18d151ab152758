"""Whether a last rung places a hunk: its readings sought in the file, and what they found
handed to the judge (judge.py), which alone decides.

A reading is searched with whitespace ignored, in the file as the earlier hunks left it and in
the file as it was before them (the patch was written against that one), so that a look-alike
block, or a copy an earlier hunk changed, counts as a second place. The first rung whose
reading occurs anywhere decides: the judge places the hunk at the one place left, or refuses
it (``Unplaced``). Line numbers never break a tie on these rungs.

A placed hunk is rewritten with the file's own lines as its context there (``Salvage.lines``),
so that the ordinary placement, with its already-applied checks, takes it at that one place.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from . import judge
from .reading import MANY, AlreadyThere, Attempt, Reading, Salvage, TooMany, Unplaced

# a rung: its name (the diagnostic and tolerance it reports) and its readings of a hunk
Rung = tuple[str, Callable[[Attempt], list[Reading]]]


def climb(attempt: Attempt, rungs: Sequence[Rung]) -> Salvage | None:
    """The first rung whose readings occur in the file places the hunk (a Salvage) or
    refuses it (Unplaced; AlreadyThere for a re-send), as the judge decides; None when no
    reading occurs. When its readings fit several places, a later rung whose reading keeps
    more of the hunk's lines may still place it at one of them, the closer match
    (judge.closer: the model's slips are fewer there); else the first refusal stands."""
    unsure: Unplaced | None = None
    for rung, read in rungs:
        readings = read(attempt)
        try:
            found = [(start, reading) for reading in readings
                     for start in attempt.file.find(reading.old, most=MANY)]
            before = _only_before(attempt, readings, found)
        except TooMany as many:
            if unsure is not None:
                raise unsure from None
            raise judge.too_many(many.most) from None
        if not (found or before):
            continue
        if unsure is None:
            try:
                return judge.decide(attempt, rung, found, before)
            except Unplaced as refused:
                if not refused.rivals:
                    raise
                unsure = refused  # several places: a reading that keeps more may decide
            continue
        try:
            proposal = judge.decide(attempt, rung, found, before)
        except (Unplaced, AlreadyThere):
            continue
        if judge.closer(unsure, proposal):
            return proposal
    if unsure is not None:
        raise unsure
    return None


def _only_before(attempt: Attempt, readings: list[Reading],
                 found: list[tuple[int, Reading]]) -> list[int]:
    """Where the readings occur in the file as it was before the earlier hunks, at lines
    those hunks changed (1-based): places the patch's own text saw, that a placement in
    the file as it is now would not see."""
    if attempt.original is None:
        return []
    now = {(start, id(reading)) for start, reading in found}
    out = []
    for reading in readings:
        for start in attempt.original.find(reading.old, most=MANY):
            at = attempt.hints.from_original(start, len(reading.old))
            if at is None or (at, id(reading)) not in now:
                out.append(start + 1)
    return out
