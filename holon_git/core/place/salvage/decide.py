"""Whether a last rung places a hunk: its readings sought in the file, and their one place
checked until nothing but that place is left.

A reading is searched with whitespace ignored, in the file as the earlier hunks left it and in
the file as it was before them (the patch was written against that one), so that a look-alike
block, or a copy an earlier hunk changed, counts as a second place. The first rung whose
reading occurs anywhere decides. The hunk is placed only when the reading occurs at exactly
one place, there with at most trailing whitespace or line endings differing (unless the rung
forgives more, Reading.forgiven), when what it matched carries enough to go on
(reading.enough), and when a side it left out is invented (invented.check_left_out).
Otherwise it is refused (``Unplaced``). Line numbers never break a tie on these rungs.

A placed hunk is rewritten with the file's own lines as its context there (``Salvage.lines``),
so that the ordinary placement, with its already-applied checks, takes it at that one place.
Before that, the same reading of the hunk's new side is sought: found overlapping where the
hunk would go, the patch is in already (``AlreadyThere``), as a re-sent salvaged patch is.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from ...model import ADD, HunkLine
from ..match import telling_levels
from .invented import check_left_out, new_lines_elsewhere
from .reading import (
    MANY,
    PLACING,
    AlreadyThere,
    Attempt,
    Reading,
    Salvage,
    Unplaced,
    enough,
    new_side,
    quote,
)

# a rung: its name (the diagnostic and tolerance it reports) and its readings of a hunk
Rung = tuple[str, Callable[[Attempt], list[Reading]]]


def climb(attempt: Attempt, rungs: Sequence[Rung]) -> Salvage | None:
    """The first rung whose readings occur in the file places the hunk (a Salvage) or
    refuses it (Unplaced; AlreadyThere for a re-send); None when no reading occurs."""
    for rung, read in rungs:
        readings = read(attempt)
        found = [(start, reading) for reading in readings
                 for start in attempt.file.find(reading.old, most=MANY)]
        before = _only_before(attempt, readings, found)
        if found or before:
            return _decide(attempt, rung, found, before)
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


def _decide(attempt: Attempt, rung: str, found: list[tuple[int, Reading]],
            before: list[int]) -> Salvage:
    # one place: one result (where, how many lines, what they become), however read
    places: dict[tuple[int, int, tuple[bytes, ...]],
                 tuple[int, Reading, list[HunkLine]]] = {}
    for start, reading in found:
        at, lines = reading.rebuild(start)
        result = (at, sum(line.kind != ADD for line in lines), tuple(new_side(lines)))
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
    if reading.forgiven is None and not attempt.file.placed_at(reading.old, start):
        raise Unplaced(f"read {reading.what}, it matches line {start + 1} only with "
                       "whitespace ignored", [start + 1])
    if not enough(reading.telling):
        raise Unplaced(f"read {reading.what}, what is left of it ({quote(reading.telling)})"
                       f" is too little to say that line {start + 1} is meant", [start + 1])
    forgave = reading.forgiven(start) if reading.forgiven is not None else None
    check_left_out(attempt, reading, start)
    _guard(attempt, reading, start)
    if reading.unanchored:
        new_lines_elsewhere(attempt, reading, start)
    return Salvage(rung, at, list(lines), _message(attempt, reading, start, at, forgave))


def _guard(attempt: Attempt, reading: Reading, start: int) -> None:
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
            if attempt.file.at(new, at, level) and not (
                    len(inside) == len(new) and _same(inside, new)):
                raise AlreadyThere(at)


def _same(first: Sequence[bytes | None], second: Sequence[bytes | None]) -> bool:
    """Two patterns of one length, line for line the same (a skipped line as any line)."""
    return all(a is None or b is None or a == b for a, b in zip(first, second, strict=True))


def _message(attempt: Attempt, reading: Reading, start: int, at: int,
             forgave: str | None) -> str:
    placed = f"placed at line {at + 1}"
    if forgave is not None:
        return f"{forgave}; read {reading.what}, {placed}"
    left_out = reading.left_out(start)
    if not left_out:
        return f"read {reading.what}, {placed}"
    # the rewritten hunk holds the file's lines where the left-out sides were
    dropped = [line for name, side_at in left_out
               for line in attempt.absent(attempt.side(name), side_at)]
    said = f"its context lines {quote(dropped)} are not in the file there"
    nowhere = [line for line in dropped if not attempt.file.find([line])]
    if nowhere:
        said += f" ({quote(nowhere)} nowhere in it)"
    return f"{said}; read {reading.what}, {placed}"
