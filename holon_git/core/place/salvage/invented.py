"""The last rung ``context_invented``: the hunk read without context the model wrote from
memory. Tried in two readings, in order:

- one side: the changed lines with the context of one side only (the other side is not in
  the file). For a pure insertion that is one whole side alone, and the other side, read
  alone too, must then occur nowhere (it would be a second place);
- both sides: the removed lines (with the context between them) alone, when there are at
  least two, or one that is distinctive (reading.distinctive);
- both edges (``near_the_change``): the changed lines with the context lines of each side
  nearest them, the far lines of both sides left out (two slips at once: context the model
  misremembered at each edge), the most lines kept that occur anywhere.

A side a reading leaves out must be invented, not context that is there: the judge
(judge.py) decides.
"""

from __future__ import annotations

from ...model import REMOVE, HunkLine
from .reading import (
    MANY,
    Attempt,
    Reading,
    TooMany,
    distinctive,
    enough,
    new_side,
    old_side,
)


def one_side(attempt: Attempt) -> list[Reading]:
    """The changed lines with the context of one side, the other side left out."""
    if not (attempt.core and attempt.lead and attempt.tail):
        return []
    lead, core, tail = attempt.lead, attempt.core, attempt.tail
    lead_old, core_old, tail_old = old_side(lead), old_side(core), old_side(tail)

    def keep_lead(start: int) -> tuple[int, list[HunkLine]]:
        end = start + len(lead_old) + len(core_old)
        return start, [*lead, *core, *attempt.after(end, len(tail))]

    def keep_tail(start: int) -> tuple[int, list[HunkLine]]:
        filled = attempt.before(start, len(lead))
        return start - len(filled), [*filled, *core, *tail]

    return [
        Reading([*lead_old, *core_old], [*new_side(lead), *new_side(core)], keep_lead,
                "by its leading context and changed lines, without its trailing context",
                [*lead_old, *core_old],
                lambda start: [("trailing", start + len(lead_old) + len(core_old))]),
        Reading([*core_old, *tail_old], [*new_side(core), *new_side(tail)], keep_tail,
                "by its changed lines and trailing context, without its leading context",
                [*core_old, *tail_old],
                lambda start: [("leading", start - len(lead_old))]),
    ]


def removed_only(attempt: Attempt) -> list[Reading]:
    """The removed lines (with the context between them) alone."""
    removed = [line.text for line in attempt.core if line.kind == REMOVE]
    if not (len(removed) >= 2 or (len(removed) == 1 and distinctive(removed[0]))):
        return []
    if not (attempt.lead or attempt.tail):
        return []  # the ladder searched exactly these lines already
    core_old = old_side(attempt.core)

    def rebuild(start: int) -> tuple[int, list[HunkLine]]:
        filled = attempt.before(start, len(attempt.lead))
        after = attempt.after(start + len(core_old), len(attempt.tail))
        return start - len(filled), [*filled, *attempt.core, *after]

    def left_out(start: int) -> list[tuple[str, int]]:
        return [(name, at) for name, side, at in (
            ("leading", attempt.lead, start - len(old_side(attempt.lead))),
            ("trailing", attempt.tail, start + len(core_old))) if side]

    return [Reading(core_old, new_side(attempt.core), rebuild,
                    "by its removed lines alone, without its context on either side",
                    core_old, left_out, unanchored=True)]


def near_the_change(attempt: Attempt) -> list[Reading]:
    """The changed lines with the context lines nearest them on each side, the far lines of
    both sides left out: the readings that keep the most lines and occur in the file (the
    judge decides among them, and on what each leaves out). Both sides keep a line or more
    and one side at least leaves one or more out; the readings that keep none of a side are
    the rungs before. A reading that keeps one side whole is what the one-side rung read,
    with the nearest lines of the other side kept too: it is found only where that rung's
    reading fits several places, and decides among them when it is the closer match
    (decide.climb, judge.closer)."""
    lead, core, tail = attempt.lead, attempt.core, attempt.tail
    if not (core and lead and tail) or len(lead) + len(tail) < 3:
        return []
    sizes: dict[int, list[Reading]] = {}
    for a in range(1, len(lead) + 1):
        for b in range(1, len(tail) + 1):
            if (a, b) != (len(lead), len(tail)):
                sizes.setdefault(a + b, []).append(_edges(attempt, a, b))
    for size in sorted(sizes, reverse=True):
        found = [reading for reading in sizes[size]
                 if enough(reading.telling) and _occurs(attempt, reading)]
        if found:
            return found
    return []


def _occurs(attempt: Attempt, reading: Reading) -> bool:
    """Does the reading occur in the file (one whose every line occurs too often counts:
    the search refuses it, as it refuses any such reading)?"""
    try:
        return bool(attempt.file.find(reading.old, most=MANY))
    except TooMany:
        return True


def _edges(attempt: Attempt, a: int, b: int) -> Reading:
    """The changed lines with the last ``a`` lines of the leading context and the first
    ``b`` of the trailing context."""
    lead, core, tail = attempt.lead, attempt.core, attempt.tail
    far_lead, near_lead = lead[: len(lead) - a], lead[len(lead) - a :]
    near_tail, far_tail = tail[:b], tail[b:]
    kept = [*near_lead, *core, *near_tail]
    kept_old = old_side(kept)

    def rebuild(start: int) -> tuple[int, list[HunkLine]]:
        filled = attempt.before(start, len(far_lead))
        after = attempt.after(start + len(kept_old), len(far_tail))
        return start - len(filled), [*filled, *kept, *after]

    def left_out(start: int) -> list[tuple[str, int]]:
        return [("leading", start - len(old_side(far_lead))),
                ("trailing", start + len(kept_old))]

    return Reading(kept_old, new_side(kept), rebuild,
                   f"by its changed lines with {a} context line{'s' if a > 1 else ''} "
                   f"before and {b} after, without the others", kept_old, left_out,
                   dropped={"leading": far_lead, "trailing": far_tail})
