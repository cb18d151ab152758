"""The last rung ``context_gap``: context that skips a line of the file, or has a blank line
the file does not have there (a model copies context from memory, one line short or one blank
line long)."""

from __future__ import annotations

from ...model import ADD, CONTEXT, REMOVE, HunkLine
from .reading import MANY, Attempt, Reading, TooMany, new_side, old_side, quote


def readings(attempt: Attempt) -> list[Reading]:
    """One line of the file skipped between two lines of the hunk's old side, not both
    removed lines (the skipped line would survive a removal of the lines around it). Where
    added lines sit between them, the hunk says what its added lines follow and precede: the
    skipped line goes between them and one of those lines only when that line is blank (a
    blank line says nothing of where it is); so both readings may be tried. After a removed
    line the added lines replace it where it was, so the skipped line follows them. Or one blank
    context line of the hunk, between two context lines, not in the file; every blank
    context line next to it in the old side is a reading too (and, in a file that equals its
    index and HEAD, when none of these occurs, one blank context line next to a change: the
    judge weighs it). Readings that give different results at
    one place are two places: among equal lines, nothing says which one the model skipped or
    added, nor so where its added lines go."""
    body, out = attempt.body, []
    olds = [j for j, line in enumerate(body) if line.kind != ADD]
    for k in range(1, len(olds)):
        before, after = olds[k - 1], olds[k]
        if body[before].kind == REMOVE and body[after].kind == REMOVE:
            continue
        if after == before + 1:
            out.append(_skipped(attempt, k, after))
            continue
        if not body[before].text.strip():  # between that blank line and the added lines
            out.append(_skipped(attempt, k, before + 1))
        if not body[after].text.strip() or body[before].kind == REMOVE:
            # between the added lines and that blank line; or after a replacement's added
            # lines, which take the removed line's place
            out.append(_skipped(attempt, k, after))
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
    out.extend(_extra_blank(attempt, olds[k], k) for k in sorted(dropped))
    if attempt.hints.clean and not any(_occurs(attempt, reading) for reading in out):
        # in a file that equals its index and HEAD, a blank context line next to a change
        # the file does not have (the judge weighs it), when no reading above occurs
        out = [_extra_blank(attempt, olds[k], k) for k in blank
               if 0 < olds[k] < len(body) - 1 and k not in dropped]
    return out


def _occurs(attempt: Attempt, reading: Reading) -> bool:
    """Does the reading occur in the file (one whose every line occurs too often counts)?"""
    try:
        return bool(attempt.file.find(reading.old, most=MANY))
    except TooMany:
        return True


def _skipped(attempt: Attempt, k: int, cut: int) -> Reading:
    """The file's line skipped before old line ``k``, put at body position ``cut``."""
    body = attempt.body
    old = old_side(body)

    def rebuild(start: int) -> tuple[int, list[HunkLine]]:
        line = HunkLine(CONTEXT, attempt.file.lines[start + k])
        return start, [*body[:cut], line, *body[cut:]]

    new_cut = sum(line.kind != REMOVE for line in body[:cut])
    new = new_side(body)
    return Reading([*old[:k], None, *old[k:]], [*new[:new_cut], None, *new[new_cut:]],
                   rebuild, "with the line of the file it skipped between its lines "
                   f"{quote([old[k - 1]])} and {quote([old[k]])}", old,
                   seams=[(cut - 1, cut)])


def _extra_blank(attempt: Attempt, j: int, k: int) -> Reading:
    """Without the blank context line at body position ``j`` (old line ``k``)."""
    old, body = old_side(attempt.body), [*attempt.body[:j], *attempt.body[j + 1 :]]
    before = old_side(attempt.body[:j])
    what = (f"without its blank context line after {quote([before[-1]])}" if before
            else "without its first, blank, context line")
    return Reading([*old[:k], *old[k + 1 :]], new_side(body), lambda start: (start, body),
                   f"{what}, which the file does not have there", old,
                   seams=[(j - 1, j + 1)])
