"""The last rung ``context_invented``: the hunk read without context the model wrote from
memory. Tried in two readings, in order:

- one side: the changed lines with the context of one side only (the other side is not in
  the file). For a pure insertion that is one whole side alone, and the other side, read
  alone too, must then occur nowhere (it would be a second place);
- both sides: the removed lines (with the context between them) alone, when there are at
  least two, or one that is distinctive (reading.distinctive).

A side a reading leaves out must be invented, not context that is there (``check_left_out``).
"""

from __future__ import annotations

import re

from ...model import REMOVE, HunkLine
from ..match import KEYS, WHITESPACE
from .reading import (
    PLACING,
    Attempt,
    Reading,
    Unplaced,
    distinctive,
    enough,
    new_side,
    old_side,
    quote,
)

EDITED = 0.6  # share of words and signs a line and its edited form have in common, at least
_TOKEN = re.compile(rb"\w+|[^\w\s]")


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


def check_left_out(attempt: Attempt, reading: Reading, start: int) -> None:
    """A side the reading leaves out must be invented, not context that is there:
    - not found, whitespace ignored, on the very lines the reading matched (context after
      a removed line that repeats that line: the hunk contradicts the file);
    - not the file's lines there but for the one next to the change, when its other lines
      are (``enough`` of them to say where they are, or one not blank while that one is not
      distinctive) or that one is the file's line there edited (a changed neighbour: the
      file changed beside the edit since the patch was written, which git merge-file calls
      a conflict);
    - not a run of the file's lines elsewhere where the whole hunk is the file's lines
      but for one (``_refuse_a_near_copy``: the hunk was written for that place);
    - when none of its lines is the file's line there, none of its distinctive lines a
      line of the file elsewhere (the side is then not invented but copied from another
      place, which the hunk may describe)."""
    end, key, lines = start + len(reading.old), KEYS[PLACING - 1], attempt.file.lines
    for name, at in reading.left_out(start):
        side = old_side(attempt.side(name))
        if any(line.strip() for line in side):
            for found in range(start - len(side) + 1, end):
                if attempt.file.at(side, found, WHITESPACE):
                    raise Unplaced(f"read {reading.what}, its {name} context "
                                   f"({quote(side)}) is at line {found + 1}, on the lines "
                                   "it matched: the hunk contradicts the file there",
                                   [found + 1])
        differ = [j for j, line in enumerate(side)
                  if not 0 <= at + j < len(lines) or key(line) != key(lines[at + j])]
        beside = len(side) - 1 if name == "leading" else 0
        kept = [line for j, line in enumerate(side) if j not in differ]
        # the side's other lines in place say the file changed there, unless they are one
        # short line (an 'else:') beside a line the model plainly wrote from memory
        in_place = enough(kept) or (any(line.strip() for line in kept)
                                    and not distinctive(side[beside]))
        if differ == [beside] and 0 <= at + beside < len(lines) \
                and (in_place or _edited(side[beside], lines[at + beside])):
            raise Unplaced(f"read {reading.what}, its context line next to the change, "
                           f"{quote([side[beside]])}, is line {at + beside + 1} of the "
                           f"file, {quote([lines[at + beside]])}, edited: the file changed "
                           "beside the edit since the patch was written",
                           [at + beside + 1])
        if differ:
            _refuse_a_near_copy(attempt, reading, name, side, at)
        if len(differ) < len(side):
            continue
        for line in side:
            elsewhere = attempt.elsewhere(line) if distinctive(line) else []
            if elsewhere:
                raise Unplaced(f"read {reading.what}, its {name} context is nowhere the "
                               f"file's lines there, but its line {quote([line])} is line "
                               f"{elsewhere[0]} of the file: the context is not invented "
                               "but copied from elsewhere, and the hunk may describe that "
                               "place", elsewhere)


def _refuse_a_near_copy(attempt: Attempt, reading: Reading, name: str, side: list[bytes],
                        at: int) -> None:
    """The left-out side is a run of the file's lines elsewhere, and there the whole hunk's
    old side is the file's lines but for one: the hunk was written for that place, whose
    line changed since (a stale patch), not with invented context for this one."""
    whole = [*old_side(attempt.lead), *old_side(attempt.core), *old_side(attempt.tail)]
    into = 0 if name == "leading" else len(whole) - len(side)
    key, lines = KEYS[WHITESPACE], attempt.file.lines
    for found in attempt.file.find(side) if enough(side) else []:
        start = found - into
        if found == at or start < 0 or start + len(whole) > len(lines):
            continue
        differ = sum(key(line) != key(lines[start + j]) for j, line in enumerate(whole))
        if differ <= 1:
            raise Unplaced(f"read {reading.what}, its {name} context is lines {found + 1}-"
                           f"{found + len(side)} of the file, where the whole hunk is the "
                           f"file's lines but for {'one' if differ else 'none'}: the hunk was "
                           "written for that place, which changed since", [start + 1])


def new_lines_elsewhere(attempt: Attempt, reading: Reading, start: int) -> None:
    """Placed by its removed lines alone (at ``start``), a hunk whose new lines the file
    already has elsewhere (they say where they are: ``enough``) may have been applied there,
    its context invented, and the removed lines found be another copy: GNU patch's
    'reversed (or previously applied)' case. Refused. New lines found only within the
    removed lines' own match are those lines (a block unwrapped and dedented: its new lines
    equal some old ones, whitespace ignored), no sign of an earlier apply."""
    new = [line for line in reading.new if line is not None]
    if not enough(new):
        return
    inside = range(start, start + len(reading.old) - len(new) + 1)
    found = [at for at in attempt.file.find(new) if at not in inside]
    if found:
        raise Unplaced(f"read {reading.what}, its new lines are already at line "
                       f"{found[0] + 1}: the hunk may be applied there", found[:10])


def _edited(patch_line: bytes, file_line: bytes) -> bool:
    """Is the patch's line the file's line edited (an identifier renamed, an argument added,
    an index turned into a call): at least three in five of their words and signs the same,
    in order?"""
    from difflib import SequenceMatcher  # a refusal's question only

    ours, theirs = _TOKEN.findall(patch_line), _TOKEN.findall(file_line)
    return SequenceMatcher(None, ours, theirs, autojunk=False).ratio() >= EDITED
