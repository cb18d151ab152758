"""The one judge of evidence: whether a tolerant rung's proposal stands.

Each last rung (indent.py, gap.py, invented.py, zero.py) only proposes: a place, and what it
tolerated to get there (a ``Reading``: context left out, a line of the file skipped or a blank
line dropped, context indented deeper; or, for zero.py, a line number). A hunk's line numbers
placing context-less lines are a proposal too (``numbers_refusal``, asked by the ladder and the
planner). This module alone decides; a rung never refuses a place on its own evidence (a test
keeps it so: tests/test_layers.py). "The model misremembered" and "the file changed since the
model read it" look alike at a rung; the difference is in what the rung left out, so a
proposal is refused when

- **what it left out is in the file**: a left-out side is invented only when its lines are
  nowhere in the file, not where the rest fits, not as the block the patch wrote, not as any
  of its distinctive lines; found elsewhere (or found where the rest fits but for the line
  next to the change: a changed neighbour), they are evidence of another place, or of a file
  that changed there since the patch was written;
- **the section text disagrees**: the hunk header's text after '@@' is a definition
  (``def load(self):``, ``class TextLoader:``) and a line of the file, and the place is
  inside the scope of none of its occurrences;
- **a line gained or lost touches a change**: between a line of the file the context skips
  (or a blank context line the file lacks) and the nearest added or removed line, no context
  line: ``git merge-file`` calls a change next to another change a conflict;
- **the numbers are contradicted or unproven**: lines with no context at all go where their
  header says only when nothing says the file is not the one the numbers were read off (the
  ``index`` line names another blob, the section text another scope); removed lines that
  occur more than once need proof the numbers are current (``Numbers.proven``);
- and, as before: the reading fits more than one place, or matches only with whitespace
  ignored, or what it matched is too little to say where it is.

Every refusal is ``Unplaced`` (the planner words it as the hunk's ``context_not_found``),
naming the evidence that decided and the lines to re-read. The same reading of the hunk's
new side found where it would go is a re-send (``AlreadyThere``), which applied.py words.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

from ...model import ADD, CONTEXT, REMOVE, Hunk, HunkLine
from ..edges import Edges
from ..match import KEYS, WHITESPACE, telling_levels
from ..numbers import Numbers
from ..reindent import indent_style, learned_indent
from .reading import (
    PLACING,
    AlreadyThere,
    Attempt,
    Hints,
    Reading,
    Salvage,
    TooMany,
    Unplaced,
    distinctive,
    enough,
    new_side,
    old_side,
    quote,
)

EDITED = 0.6  # share of words and signs a line and its edited form have in common, at least
_TOKEN = re.compile(rb"\w+|[^\w\s]")
_AROUND = 3  # lines either side of a place a refusal asks to re-read


# -- the proposals of the last rungs ----------------------------------------------------------

def decide(attempt: Attempt, rung: str, found: list[tuple[int, Reading]],
           before: list[int]) -> Salvage:
    """The proposals of the first rung whose readings occur: ``found`` (start, reading) in
    the file as it is, ``before`` (1-based lines) in the file as it was before the patch's
    earlier hunks. A Salvage when one place is left and every rule holds; raises Unplaced."""
    places: dict[tuple[int, int, tuple[bytes, ...]],
                 list[tuple[int, Reading, list[HunkLine]]]] = {}
    for start, reading in found:
        at, lines = reading.rebuild(start)
        result = (at, sum(line.kind != ADD for line in lines), tuple(new_side(lines)))
        places.setdefault(result, []).append((start, reading, lines))
    readings = {id(reading): reading for _, reading in found}
    read = (next(iter(readings.values())).what if len(readings) == 1
            else "without the lines that are not in the file")
    if len(places) > 1 and not before and len({at for at, _, _ in places}) == 1:
        line = next(iter(places))[0] + 1
        raise Unplaced(f"read {read}, it fits line {line} in {len(places)} ways that "
                       "put its lines differently (the lines around its change repeat): "
                       "nothing says which", [line], several=True)
    if len(places) > 1 or before:
        numbers = sorted({at + 1 for at, _, _ in places})
        rivals: dict[int, int] = {}
        # one reading repeated (context that recurs) may be told apart by a reading that
        # keeps more; two readings that each fit a place of their own (the leading side
        # here, the trailing side there) are two places the hunk's own sides point to
        if not before and len(readings) == 1:
            for (at, _, _), ways in places.items():
                rivals[at] = max(rivals.get(at, 0), *(kept(reading) for _, reading, _ in ways))
        also = (f", and line{'s' if len(before) > 1 else ''} "
                f"{', '.join(map(str, before[:10]))} of the file as it was before the "
                "patch's earlier hunks changed them" if before else "")
        raise Unplaced(f"read {read}, it fits {len(places) + len(before)} places (line"
                       f"{'s' if len(numbers) != 1 else ''} "
                       f"{', '.join(map(str, numbers[:10]))}{also}): nothing says which",
                       [*numbers, *before], several=True, rivals=rivals)
    ((at, _, _), ways), = places.items()
    # readings that give one result at one place (a skipped line among equal lines): the
    # place stands when the evidence holds for one of them
    refusal: Unplaced | None = None
    for start, reading, lines in ways:
        try:
            return _one_place(attempt, rung, start, reading, at, lines)
        except Unplaced as refused:
            refusal = refusal or refused
    assert refusal is not None
    raise refusal


def _one_place(attempt: Attempt, rung: str, start: int, reading: Reading, at: int,
               lines: list[HunkLine]) -> Salvage:
    """The rules on one reading at the one place it occurs (``start``; the rewritten hunk
    at ``at``): a Salvage, or Unplaced naming the evidence that decided."""
    forgave = None
    level = PLACING  # the levels at which the reading's lines are the file's
    if reading.indented:
        forgave = (f"its context lines {quote(_deeper_lines(attempt, reading, start))} are "
                   "indented deeper than the file's")
    elif not attempt.file.placed_at(reading.old, start):
        if reading.unanchored or (reading.dropped is not None
                                  and all(reading.dropped.values())):
            # context left out at both edges and indentation forgiven: three slips, and
            # little left to say where the hunk is; lines that look alike at another
            # depth in another function are no evidence (one side kept whole and the far
            # lines of the other left out is two slips, as the one-side reading's are)
            raise Unplaced(f"read {reading.what}, it matches line {start + 1} only with "
                           "whitespace ignored", [start + 1])
        lines = _indented_otherwise(attempt, reading, start, at, lines)
        forgave, level = "its lines are indented other than the file's, one way", WHITESPACE + 1
    if not enough(reading.telling) and not _at_its_number(attempt, reading, at) \
            and not _once_in_an_edit(attempt, reading):
        raise Unplaced(f"read {reading.what}, what is left of it ({quote(reading.telling)})"
                       f" is too little to say that line {start + 1} is meant", [start + 1])
    _numbers_of_bare_lines(attempt, at, lines)
    _left_out(attempt, reading, start, level)
    if reading.left_out(start):
        _near_copy(attempt, reading, start)
        _written_elsewhere(attempt, start, reading.what, len(reading.old))
    _stale_neighbours(attempt, reading, start)
    _shifted_side(attempt, reading, start)
    _stale_edge(attempt, at, lines, reading.what)
    _seams(attempt, reading, start)
    _section(attempt, at, lines, reading.what)
    _guard(attempt, reading, start, level)
    if attempt.hints.by_text:
        _as_close_elsewhere(attempt, reading, start)
    if reading.unanchored:
        _new_lines_elsewhere(attempt, reading, start)
    return Salvage(rung, at, list(lines), _message(attempt, reading, start, at, forgave),
                   kept(reading))


def kept(reading: Reading) -> int:
    """How many of the hunk's old lines, not blank, a reading matches: the evidence of its
    place (a blank line, or a skipped one, says nothing of where it is)."""
    return sum(line is not None and bool(line.strip()) for line in reading.old)


def closer(refused: Unplaced, proposal: Salvage) -> bool:
    """A rung's one reading fits several places (``refused.rivals``); a later rung's
    reading, which keeps more of the hunk's lines, places it at one of them (``proposal``,
    judged on its own): is it the closer match? It is when its place is one of the rivals
    and it matches more of the hunk's old lines, not blank, than the reading matched at
    any other place. The
    reading it rules out: "the hunk was meant for another of the places" — there fewer of
    its lines are the file's (the model misremembered more there, not less), and the lines
    only this reading keeps (exact, beside the change) are not there."""
    if proposal.start not in refused.rivals:
        return False
    return all(proposal.kept > held for at, held in refused.rivals.items()
               if at != proposal.start)


def _as_close_elsewhere(attempt: Attempt, reading: Reading, start: int) -> None:
    """An edit by its text has no line number or section text to say where it was meant:
    only its lines do. So the place a reading found stands only when no other place of the
    file holds as many of the edit's old lines (not blank, whitespace ignored, each at its
    own position in the old text) and as many of its removed lines as the place found
    (what the reading kept, or the old lines in their positions there, whichever is more:
    a removed line is where the change is, and a place without it holds nothing to change).
    The reading it rules out: the side the reading left out is not invented but the
    file's, at another place (the two-places trap: each side of an insertion fits a place
    of its own)."""
    old, keys, key = old_side(attempt.body), attempt.file.keys, KEYS[WHITESPACE]
    old_lines = [line for line in attempt.body if line.kind != ADD]
    removed = {j for j, line in enumerate(old_lines)
               if line.kind == REMOVE and line.text.strip()}
    wanted = {key(line) for line in old if line.strip()}
    where: dict[bytes, list[int]] = {}
    for at, have in enumerate(keys):
        if have in wanted:
            where.setdefault(have, []).append(at)
    votes: dict[int, list[int]] = {}  # an alignment of the old side: [old lines, removed]
    for j, line in enumerate(old):
        for at in where.get(key(line), []) if line.strip() else []:
            count = votes.setdefault(at - j, [0, 0])
            count[0] += 1
            count[1] += j in removed
    end = start + len(reading.old)

    def overlaps(first: int) -> bool:
        return first < end and start < first + len(old)

    kept = max([sum(1 for line in reading.old if line is not None and line.strip()),
                *(count[0] for first, count in votes.items() if overlaps(first))])
    rivals = sorted(first for first, (count, held) in votes.items()
                    if count >= kept and held >= len(removed) and not overlaps(first))
    if rivals:
        other = rivals[0]
        raise Unplaced(f"read {reading.what}, it fits line {start + 1} by {kept} of its "
                       f"lines, but at line {max(other, 0) + 1} the file holds "
                       f"{votes[other][0]} of its old lines in their order: an edit has no "
                       "line number to say which place it means; re-read lines "
                       f"{_around(max(other, 0), len(old))} and {_around(start, len(old))}",
                       [max(other, 0) + 1, start + 1])


def _indented_otherwise(attempt: Attempt, reading: Reading, start: int, at: int,
                        lines: list[HunkLine]) -> list[HunkLine]:
    """A reading that matches only with whitespace ignored, where every line it matched
    differs from the file's in its indentation alone, and the indentations map one to one
    (each of the patch's to one of the file's, and back: tabs for four spaces, a whole hunk
    one level off): two slips at once, the indentation and what the rung left out (issue
    43's combined slips). The hunk rewritten (``lines``, at line ``at``) with the file's
    lines for its context and removed lines, and its added lines indented the file's way:
    as the matched line of the same indentation is, or, for an indentation no matched line
    holds (a block nested deeper than its context), by the one rule every matched pair
    agrees with (reindent.learned_indent: a constant shift, a tab for N spaces); an added
    line no such rule maps refuses it (Unplaced), as does any other difference. The reading
    it rules out: lines that merely look alike at another indentation (the rest of the
    judge weighs them at the whitespace level)."""
    file = attempt.file.lines
    mapping: dict[bytes, bytes] = {}
    back: dict[bytes, bytes] = {}
    pairs: list[tuple[bytes, bytes]] = []
    for j, line in enumerate(reading.old):
        if line is None or not line.strip():
            continue
        have = file[start + j]
        pairs.append((line, have))
        ours, theirs = _split_indent(line), _split_indent(have)
        if ours[1] != theirs[1] or mapping.setdefault(ours[0], theirs[0]) != theirs[0] \
                or back.setdefault(theirs[0], ours[0]) != ours[0]:
            raise Unplaced(f"read {reading.what}, it matches line {start + 1} only with "
                           "whitespace ignored, and not by its indentation alone, one way",
                           [start + 1])
    out: list[HunkLine] = []
    style = indent_style(b"".join(file))
    p = at
    for written in lines:
        if written.kind == ADD:
            indent, text = _split_indent(written.text)
            rest = written.text[len(indent):]  # with its line ending
            if not text.strip():
                out.append(HunkLine(ADD, rest))
                continue
            # an indentation no matched line holds (a block nested deeper than its context)
            # takes the one rule every matched pair agrees with: a shift, a tab for N spaces
            mapped = mapping[indent] if indent in mapping else learned_indent(pairs, indent,
                                                                              style)
            if mapped is None:
                raise Unplaced(f"read {reading.what}, its lines are indented other than "
                               f"the file's, and its added line {quote([written.text])} has "
                               "an indentation the matched lines do not map one way",
                               [start + 1])
            out.append(HunkLine(ADD, mapped + rest))
            continue
        out.append(HunkLine(written.kind, file[p]))
        p += 1
    return out


def _split_indent(line: bytes) -> tuple[bytes, bytes]:
    """A line's indentation, and the rest without its trailing blanks and line ending."""
    text = line.lstrip(b" \t")
    return line[: len(line) - len(text)], text.rstrip(b"\r\n").rstrip(b" \t")


def _at_its_number(attempt: Attempt, reading: Reading, at: int) -> bool:
    """What a reading matched is too little to say where it is on its own (one short line,
    say an import, and blank lines), but it occurs once, and the hunk rewritten there starts
    exactly at the line its header's number points to: the number says it, nothing against
    it (as for a -U0 insertion)."""
    return attempt.hints.hinted == at and any(
        line is not None and line.strip() for line in reading.telling)


def either_way(first: Salvage | Unplaced | None, other: Salvage | Unplaced | None
               ) -> Salvage | None:
    """An edit by its text read with its changed lines where its line diff puts them
    (``first``) and as far up as they go among equal lines (``other``): what each reading
    gave (placed, refused, or found nowhere). An edit says which lines it keeps only by
    their text, so:
    - a reading that fits several places, or one place several ways, refuses the edit (a
      blank line the model skipped beside a change that could sit either side of it: the
      new lines' blank lines fall on one side or the other, and nothing says which);
    - two readings that place it must place it at one line with one result;
    - one reading that places it stands when the other places nothing, or is refused by
      evidence about the lines it put beside the change (which the edit never said): the
      edit read the way its lines fit the file.
    Raises Unplaced; None when neither reading occurs."""
    for said in (first, other):
        if isinstance(said, Unplaced) and said.several:
            raise said
    if isinstance(first, Salvage) and isinstance(other, Salvage):
        if other.start == first.start and old_side(other.lines) == old_side(first.lines) \
                and new_side(other.lines) == new_side(first.lines):
            return first
        where = (f"it places at line {other.start + 1}" if other.start != first.start
                 else "it puts its lines otherwise there")
        raise Unplaced(f"{first.message}; but read with its changed lines one line up among "
                       f"the equal lines around them, {where}: an edit does not say which of "
                       "those lines it keeps, so nothing says which the model meant",
                       [first.start + 1, other.start + 1], several=True)
    for said in (first, other):
        if isinstance(said, Salvage):
            return said
    for said in (first, other):
        if isinstance(said, Unplaced):
            raise said
    return None


def _once_in_an_edit(attempt: Attempt, reading: Reading) -> bool:
    """What an edit's reading matched is too little to say where it is on its own (one
    short line and blank lines), but a line of it, not blank, is a line of the file once
    (and of the file before the edit's earlier hunks): in place of the line number a diff's
    short match needs (``_at_its_number``), the edit's text is unique, and the judge's
    other rules (no place as close, what was left out nowhere else) still hold."""
    if not attempt.hints.by_text:
        return False
    return any(line is not None and line.strip() and attempt.elsewhere(line) == [at + 1]
               for line in reading.telling
               for at in attempt.file.find([line])[:1])


def too_many(most: int) -> Unplaced:
    """A reading whose every line occurs more than ``most`` times: not sought."""
    return Unplaced(f"every line of it occurs more than {most} times in the file: it would "
                    "fit too many places to tell")


def by_number(attempt: Attempt, proposal: Salvage) -> Salvage:
    """zero.py's proposal: a context-less insertion at its header's line. It stands unless
    the ``index`` line or the section text contradicts the number."""
    _numbers_of_bare_lines(attempt, proposal.start, proposal.lines)
    _section(attempt, proposal.start, proposal.lines, "by its line number")
    return proposal


# -- the comparison levels' loose placements --------------------------------------------------

def loose_refusal(lines: Sequence[bytes], body: Sequence[HunkLine], start: int,
                  hinted: int | None, section: str) -> Unplaced | None:
    """A placement the whitespace or punctuation level found (``body``'s old side at line
    ``start`` of ``lines``, 0-based) is a tolerance like a last rung's: it stands only when
    no evidence points elsewhere. The readings it must rule out are those of a stale patch:
    the place the hunk was written for changed since, and a look-alike block (the same
    statements at another indentation, in a sibling function) merely matches loosely. So
    it is refused (returned, for the planner to word) when the section text names a
    definition whose place this is not (``_section``), or where the hunk's number points
    (``hinted``, 0-based, in the file as it stands) or in the scope its section text names,
    the file shows the place it was written for, changed since (``_written_elsewhere``);
    else None."""
    attempt = Attempt(lines, body, Hints(section=section, hinted=hinted))
    what = "with whitespace ignored"
    try:
        _section(attempt, start, body, what)
        _written_elsewhere(attempt, start, what)
    except Unplaced as refused:
        return refused
    return None


# -- a stale patch: the version its index line names is not this text ------------------------

def stale_refusal(lines: Sequence[bytes], body: Sequence[HunkLine], start: int,
                  hinted: int | None, section: str, edges: Edges) -> Unplaced | None:
    """A placement by any comparison level (``body``'s old side at line ``start`` of
    ``lines``, 0-based; ``hinted``: where its number points, ``section``: its header's text,
    ``edges``: the file edges it claims) of a hunk whose file patch's ``index`` line names
    another version of the file than this text. Two readings are then allowed: the model's
    slip on this file, and a stale patch written against the version it names, which the
    file changed from since. The placement stands only when both lead to the same edit, so
    it is refused (returned, for the planner to word) when the stale reading puts the edit
    elsewhere or calls it a conflict: its change ends the file in the version named, and
    the file has lines after it now (``_stale_edge``); or, placed away from its number,
    where the number points, or in the scope its section text names, the file shows the
    place it was written for, changed since (``_written_elsewhere``). (A section
    text that merely no longer names the place is no such evidence: a definition added
    above the hunk since changes what git would write there, not the edit.) Else None."""
    attempt = Attempt(lines, body, Hints(section=section, hinted=hinted, stale=True,
                                         edges=edges))
    what = "as written"
    try:
        _stale_edge(attempt, start, body, what)
        if hinted is not None and hinted != start:
            _written_elsewhere(attempt, start, what)
    except Unplaced as refused:
        return refused
    return None


def moved_refusal(lines: Sequence[bytes], body: Sequence[HunkLine], start: int,
                  section: str) -> Unplaced | None:
    """An exact placement (``body``'s old side at line ``start`` of ``lines``, 0-based) away
    from the hunk's line number, with no version to read (issue 43, item 3: no index line,
    and the repository holds none that places the patch exactly, plan/stale.py). Its number
    and its section text are the patch's word for where it was written; when the scope that
    text names holds the old side but for one line while the copy found lies outside it
    (``_written_elsewhere``), the hunk was written for that scope, which changed since, and
    the exact copy is a sibling's: the slip reading ("the number and the section text are
    wrong, the copy is right") and the stale reading lead to two edits. Refused (returned,
    for the planner to word); else None."""
    attempt = Attempt(lines, body, Hints(section=section))
    try:
        _written_elsewhere(attempt, start, "as written", number=False)
    except Unplaced as refused:
        return refused
    return None


def _stale_edge(attempt: Attempt, at: int, body: Sequence[HunkLine], what: str) -> None:
    """A hunk whose change ends the file it claims (context before its changes, none after)
    in a patch that names another version: that version ended right at the change, and this
    file has lines after it now. The reading ruled out: "the model left out the trailing
    context" — the stale reading says lines were added right after the change since, which
    ``git merge-file`` calls a conflict, so the two readings do not lead to the same edit.
    The start is not weighed so: lines added above a file's first line (a header, a
    docstring, a licence) are taken as unrelated to a hunk there, as the edge rule has it
    (edges.py: removed lines that occur once place the hunk wherever the edges now are)."""
    lines = attempt.file.lines
    size = len(old_side(body))
    if not (attempt.hints.stale and attempt.hints.edges.end and body
            and body[-1].kind != CONTEXT and at + size != len(lines)):
        return
    raise Unplaced(f"read {what}, it fits line {at + 1}, but it claims the file's end (its "
                   "context runs out after its change) and its file patch names another "
                   "version of the file: the version it was written against ended at the "
                   f"change, and here the hunk ends at line {at + size}, and the file goes "
                   f"on to line {len(lines)}; lines were added right after the change since "
                   f"(a conflict for git merge-file); re-read lines {_around(at, size)}",
                   [at + 1])


def _stale_neighbours(attempt: Attempt, reading: Reading, start: int) -> None:
    """A reading that leaves a side of context out, in a patch that names another version:
    the side's line next to the change must be the file's line there (whitespace aside).
    The reading ruled out: "the model invented that side" — the stale reading says the
    line beside the change was rewritten, deleted or pushed away by lines inserted since,
    and ``git merge-file`` calls a change next to another change a conflict. (The far
    lines of a side whose near lines are kept, ``Reading.dropped``, are not next to it.)"""
    if not attempt.hints.stale:
        return
    key, lines = KEYS[WHITESPACE], attempt.file.lines
    for name, at in reading.left_out(start):
        if reading.dropped is not None and name in reading.dropped:
            continue
        side = old_side(attempt.side(name))
        if not side:
            continue
        beside = len(side) - 1 if name == "leading" else 0
        line = at + beside
        if 0 <= line < len(lines) and key(lines[line]) == key(side[beside]):
            continue
        have = (f"line {line + 1} is {quote([lines[line]])}" if 0 <= line < len(lines)
                else "the file has no line there")
        raise Unplaced(f"read {reading.what}, its {name} context line next to the change, "
                       f"{quote([side[beside]])}, is not in the file there ({have}), and its "
                       "file patch names another version of the file: the file changed "
                       "beside the edit since (a conflict for git merge-file); re-read lines "
                       f"{_around(at, len(side))}", [line + 1, start + 1])


def _shifted_side(attempt: Attempt, reading: Reading, start: int) -> None:
    """A side of context the reading leaves out (the whole side, not only its far lines) that
    is the file's lines a few lines away from the change, on its side (whitespace aside; all
    of them, or all but one that is the file's line edited), while it is not the file's
    lines where it would sit, but for one: the file gained lines between that side and the
    change since, or lost the side's line next to it. The reading ruled out: "the model
    invented that side" — an invented side is nowhere in the file, not the file's own lines
    moved away by a line or three; the stale reading says lines were added right next to the
    change, which ``git merge-file`` calls a conflict (issue 43, class 4: a side that is the
    file's lines shifted)."""
    key, lines = KEYS[WHITESPACE], attempt.file.lines
    for name, at in reading.left_out(start):
        if reading.dropped is not None and name in reading.dropped:
            continue
        side = old_side(attempt.side(name))
        size = len(side)
        if size < 2 or len(_differing(side, lines, at, key)) <= 1:
            continue  # a short side says little; one line off in place is a slip's shape
        for shift in range(1, _AROUND + 1):
            other = at - shift if name == "leading" else at + shift
            if other < 0 or other + size > len(lines):
                continue
            if _edited_off(side, lines, other) is None:
                continue
            gained = (range(other + size, at + size) if name == "leading"
                      else range(at, other))
            raise Unplaced(f"read {reading.what}, its {name} context ({quote(side)}) is "
                           f"the file's lines {other + 1}-{other + size}, {shift} line"
                           f"{'s' if shift > 1 else ''} away from the change, with "
                           f"{quote([lines[j] for j in gained])} between: the file changed "
                           "beside the edit since (a conflict for git merge-file); re-read "
                           f"lines {_around(other, size + shift)}", [other + 1, start + 1])


def _differing(side: Sequence[bytes | None], lines: Sequence[bytes], at: int,
               key: Callable[[bytes], bytes]) -> list[int]:
    """The lines of ``side`` that are not the file's at ``at`` on (by ``key``; None, a line
    skipped, is any line)."""
    return [j for j, line in enumerate(side) if line is not None
            and (not 0 <= at + j < len(lines) or key(line) != key(lines[at + j]))]


def _written_elsewhere(attempt: Attempt, start: int, what: str, size: int | None = None,
                       number: bool = True, section: bool = True) -> None:
    """The patch's own word for where the hunk was written (the line its number points to,
    and the scope its section text names) against the place found (``start``, a match of
    ``size`` lines: the whole old side unless a reading kept less). Where that word points
    away from the place found, the file shows the place the hunk was written for, changed
    since:

    - its whole old side there is the file's lines but for one (``_one_off``), around the
      line its number points to (``number``) or anywhere in the scope its section text names
      when no scope of that name holds the place found (``section``); or
    - farther off than the lines around the number (the place found not within them), a
      line there is an edited form of one of its removed lines (``_edited``).

    The reading it rules out: the number and the section text are the model's slips and the
    place found (a loose copy, a copy without the lines the model left out, a sibling's exact
    copy) is the hunk's place; the stale reading puts the edit where the patch's word
    points."""
    lines, old = attempt.file.lines, old_side(attempt.body)
    whole = len(old)
    end = start + (whole if size is None else size)
    if whole < 2:
        return _edited_where_hinted(attempt, start, what, end) if number else None
    pointed: list[tuple[str, range]] = []
    hinted = attempt.hints.hinted
    if number and hinted is not None:
        around = range(max(hinted - _AROUND, 0), min(hinted + _AROUND, len(lines) - whole) + 1)
        pointed.append(("where its line number points", around))
    if section:
        pointed.extend(_scopes_named(attempt, start, whole))
    for pointer, places in pointed:
        for other in places:
            if start - whole < other < start + whole:
                continue  # the place found, or overlapping it
            differ = _one_off(old, lines, other)
            if differ is None or len(differ) != 1:
                continue
            changed = other + differ[0]
            raise Unplaced(f"read {what}, it fits line {start + 1}, but {pointer}, at line "
                           f"{other + 1}, its old lines are the file's but for line "
                           f"{changed + 1}, {quote([lines[changed]])} (the patch has "
                           f"{quote([old[differ[0]]])}): the hunk was written for that place, "
                           f"which changed since; re-read lines {_around(other, whole)}",
                           [other + 1, start + 1])
    if number:
        _edited_where_hinted(attempt, start, what, end)
    return None


def _scopes_named(attempt: Attempt, start: int, size: int) -> list[tuple[str, range]]:
    """The scopes the hunk's section text names (a definition line of the file), as (how the
    refusal says it, the places of ``size`` lines inside), when none of them holds the place
    found (``start``): [] when one does, or the text names no definition."""
    text = attempt.hints.section.strip().encode("utf-8", "surrogateescape")
    if not _DEFINITION.match(text):
        return []
    lines = attempt.file.lines
    named = [(j, _scope_end(lines, j)) for j, line in enumerate(lines) if line.strip() == text]
    if any(j <= start < end for j, end in named):
        return []  # the place found is in a scope the text names
    return [(f"its header names {quote([text])} (line {j + 1}), and in its scope",
             range(j + 1, min(end, len(lines)) - size + 1)) for j, end in named]


def _edited_where_hinted(attempt: Attempt, start: int, what: str, end: int) -> None:
    """Farther from the hunk's number than the lines around it (the place found, ``start``
    to ``end``, not within them), a line where the number points is an edited form of one of
    its removed lines: the hunk was written for that place, which changed since."""
    hinted, lines = attempt.hints.hinted, attempt.file.lines
    whole = len(old_side(attempt.body))
    removed = [line.text for line in attempt.body if line.kind == REMOVE]
    if hinted is None or not removed or hinted - _AROUND <= start <= hinted + whole + _AROUND:
        return  # the place found is where the number points: nothing more says otherwise
    for at in range(max(hinted - _AROUND, 0), min(hinted + whole + _AROUND, len(lines))):
        if start - _AROUND <= at < end + _AROUND:
            continue
        for line in removed:
            if lines[at] != line and lines[at].strip() and _edited(line, lines[at]):
                raise Unplaced(f"read {what}, it fits line {start + 1}, but where its line "
                               f"number points, line {at + 1} is {quote([lines[at]])}, an "
                               f"edited form of its removed line {quote([line])}: the hunk "
                               "was written for that place, which changed since; re-read "
                               f"lines {_around(at, 1)}", [at + 1, start + 1])


def _one_off(pattern: Sequence[bytes | None], lines: Sequence[bytes], at: int
             ) -> list[int] | None:
    """Is ``pattern`` (None: a line skipped, any line) the file's lines at ``at`` on, with
    whitespace ignored, but for at most one line, the lines that agree saying where they
    are (``enough``)? The positions that differ (none, or one); None when it is not. The
    shape every "the hunk was written for that place, which changed since" rule looks for."""
    differ = _differing(pattern, lines, at, KEYS[WHITESPACE])
    if len(differ) > 1:
        return None
    same = [line for j, line in enumerate(pattern) if line is not None and j not in differ]
    return differ if enough(same) else None


def _edited_off(pattern: Sequence[bytes | None], lines: Sequence[bytes], at: int
                ) -> list[int] | None:
    """``_one_off``, where the one line that differs (if any) is the file's line there
    edited (``_edited``): the place the lines were written for, one of them rewritten since,
    not a place where another line merely stands."""
    differ = _one_off(pattern, lines, at)
    if differ and not _edited(pattern[differ[0]] or b"", lines[at + differ[0]]):
        return None
    return differ


# -- line numbers placing lines with no context -----------------------------------------------

def numbers_refusal(hunk: Hunk | Sequence[HunkLine], numbers: Numbers, copies: int
                    ) -> str | None:
    """Why a hunk with no context line (diff -U0) may not go by its line number: its file
    patch's ``index`` line names another blob than the file's (the numbers were read off
    another version, and with no context nothing shows the lines around the change are the
    same: git merge-file calls a change next to another change a conflict), or its removed
    lines occur ``copies`` > 1 times and nothing proves the numbers current. None when it
    may (a hunk with context, or nothing against the number)."""
    lines = hunk.lines if isinstance(hunk, Hunk) else hunk
    if any(line.kind == CONTEXT for line in lines):
        return None
    if numbers.blob is False:
        return ("it has no context lines and its file patch's index line names another "
                "version of the file than this one, so its line numbers were read off that "
                "version and nothing shows the lines around its change are the same here "
                "(the file may have changed right there)")
    if copies > 1 and not numbers.current and any(line.kind == REMOVE for line in lines):
        return (f"it has no context lines and its removed lines occur {copies} times; nothing "
                "proves its line numbers current (no index line naming this file's version, "
                "no other hunk exactly at its own line number)")
    return None


def _numbers_of_bare_lines(attempt: Attempt, at: int, lines: Sequence[HunkLine]) -> None:
    """A proposal for a hunk the patch wrote with no context (the rung took the file's lines
    as its context): refused when its numbers are contradicted (``numbers_refusal``)."""
    why = numbers_refusal(attempt.body, attempt.hints.numbers, 1)
    if why is not None:
        raise Unplaced(f"{why}; re-read lines {_around(at, len(old_side(lines)))} and send "
                       "the hunk with context lines", [at + 1])


# -- what a reading left out ------------------------------------------------------------------

def _left_out(attempt: Attempt, reading: Reading, start: int, level: int = PLACING) -> None:
    """A side the reading leaves out must be invented, not context that is there:
    - not found, whitespace ignored, on the very lines the reading matched (context after
      a removed line that repeats that line: the hunk contradicts the file);
    - not the file's lines there but for the one next to the change, when its other lines
      are (``enough`` of them to say where they are, or one not blank while that one is not
      distinctive) or that one is the file's line there edited (a changed neighbour: the
      file changed beside the edit since the patch was written, which git merge-file calls
      a conflict); the far lines of a side whose near lines the reading keeps
      (``Reading.dropped``) have those kept lines between them and the change, so an
      edited form of them there is no conflict: both readings make the same edit;
    - not a run of the file's lines elsewhere (the block the patch wrote, there);
    - none of its distinctive lines that is not the file's line there a line of the file
      elsewhere (the side is then not invented but copied from another place, which the
      hunk may describe)."""
    # a reading matched with its indentation forgiven compares its left-out lines so too
    end, key, lines = start + len(reading.old), KEYS[level - 1], attempt.file.lines
    for name, at in reading.left_out(start):
        side = old_side(reading.left_out_of(attempt, name))
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
        # a line of the side, not blank, in place says the file changed beside the change:
        # context a model invents is nowhere in the file, not the file's lines there
        in_place = any(line.strip() for line in kept)
        # the far lines of a side whose near lines are kept are not next to the change:
        # with the kept lines between them and it, "the file changed there since" and "the
        # model misremembered them" lead to one edit (git merge-file merges it cleanly);
        # kept lines that are all blank say too little of the place to stand between
        far = reading.dropped is not None and name in reading.dropped \
            and any(line.text.strip() for line in _near_lines(attempt, reading, name))
        if differ == [beside] and not far and 0 <= at + beside < len(lines) \
                and (in_place or _edited(side[beside], lines[at + beside])):
            raise Unplaced(f"read {reading.what}, its context line next to the change, "
                           f"{quote([side[beside]])}, is line {at + beside + 1} of the "
                           f"file, {quote([lines[at + beside]])}, edited: the file changed "
                           "beside the edit since the patch was written; re-read lines "
                           f"{_around(at, len(side))}", [at + beside + 1])
        if differ and not any(line.strip() for line in side) \
                and _occurs(attempt, side[differ[0]]):
            # the rule for an invented side, "its lines nowhere in the file", never
            # holds for blank lines: a side of blank lines where the file has other lines is
            # the file changed beside the edit (or the edit made already, a re-send)
            there = [lines[at + j] for j in differ if 0 <= at + j < len(lines)]
            raise Unplaced(f"read {reading.what}, its {name} context is blank lines only, "
                           f"and the file has {quote(there)} "
                           "there: blank lines are no invented context; the file changed "
                           "beside the edit since the patch was written; re-read lines "
                           f"{_around(at, len(side))}", [at + 1, start + 1])
        if differ:
            _side_elsewhere(attempt, reading, name, side, at, start)
        for j in differ:
            line = side[j]
            elsewhere = attempt.elsewhere(line) if distinctive(line) else []
            if reading.dropped is not None:
                # the far lines of a side whose near lines are kept (exact, beside the
                # change): only a place where those kept lines follow them is described
                elsewhere = [e for e in elsewhere
                             if _kept_beside(attempt, reading, name, e - 1 - j, len(side))]
            elif len(differ) < len(side):  # partly in place: only a place the hunk describes
                elsewhere = [e for e in elsewhere
                             if _changed_there(attempt, name, e - 1 - j, len(side))]
            if elsewhere:
                raise Unplaced(f"read {reading.what}, its {name} context line "
                               f"{quote([line])} is line {elsewhere[0]} of the file, not "
                               f"next to line {start + 1} where the rest fits: the hunk may "
                               "describe that place, and the file may have changed there "
                               "since the patch was written; re-read lines "
                               f"{_around(elsewhere[0] - 1, 1)} and {_around(start, 1)}",
                               [elsewhere[0], start + 1])


def _near_lines(attempt: Attempt, reading: Reading, name: str) -> list[HunkLine]:
    """The lines of the side ``name`` a reading that drops its far lines keeps (those
    between the dropped ones and the change)."""
    side = attempt.side(name)
    dropped = len(reading.left_out_of(attempt, name))
    return side[dropped:] if name == "leading" else side[: len(side) - dropped]


def _kept_beside(attempt: Attempt, reading: Reading, name: str, found: int, size: int
                 ) -> bool:
    """With the far lines of its ``name`` side (``size`` of them) at line ``found`` (0-based),
    are the reading's kept lines next to them, whitespace ignored, or an edited form of
    them: the place the hunk describes? Far lines copied from elsewhere in the file (a
    doctest further up the same docstring) have nothing of the hunk beside them."""
    lines, key = attempt.file.lines, KEYS[WHITESPACE]
    kept = [line for line in reading.old if line is not None]
    if not kept:
        return True
    near, at = (kept[0], found + size) if name == "leading" else (kept[-1], found - 1)
    return 0 <= at < len(lines) and (key(near) == key(lines[at]) or _edited(near, lines[at]))


def _occurs(attempt: Attempt, line: bytes) -> bool:
    """Is ``line`` a line of the file (at least once)?"""
    try:
        return bool(attempt.file.find([line], 1))
    except TooMany:
        return True


def _side_elsewhere(attempt: Attempt, reading: Reading, name: str, side: list[bytes],
                    at: int, start: int) -> None:
    """The left-out side, as the block the patch wrote (``enough`` of it to say where it
    is), is a run of the file's lines elsewhere: the hunk was written for that place."""
    if not enough(side):
        return
    for found in attempt.file.find(side):
        if found != at and abs(found - at) <= _AROUND:
            raise Unplaced(f"read {reading.what}, its {name} context is lines {found + 1}-"
                           f"{found + len(side)} of the file, {abs(found - at)} line(s) from "
                           "where it would be beside the change: the file gained or lost lines "
                           "next to the edit since the patch was written (a conflict for git "
                           f"merge-file); re-read lines {_around(min(found, at), len(side))}",
                           [found + 1, start + 1])
        if found != at and _changed_there(attempt, name, found, len(side)):
            raise Unplaced(f"read {reading.what}, its {name} context is lines {found + 1}-"
                           f"{found + len(side)} of the file, not next to line {start + 1} "
                           "where the rest fits: the hunk was written for that place, which "
                           "changed since; re-read lines "
                           f"{_around(found, len(side))}", [found + 1, start + 1])


def _near_copy(attempt: Attempt, reading: Reading, start: int) -> None:
    """What a reading kept (its changed lines and the context of one side, or its removed
    lines) is, at another place, the file's lines but for one, there an edited form of the
    reading's line, and the whole old side (the left-out lines too) is at least as close
    there as at the place found: the hunk was written for that place, which changed since
    (a look-alike must not take it). The reading it rules out: the model misremembered a
    context line, when the file changed at a sibling. A sibling the whole old side fits
    less well (the left-out side's other lines, a docstring or a comment, in place only at
    the place found) is no such evidence."""
    key, lines, pattern = KEYS[WHITESPACE], attempt.file.lines, reading.old
    whole = old_side(attempt.body)
    # where the reading's lines begin in the whole old side: after a left-out leading side
    offset = (len(old_side(reading.left_out_of(attempt, "leading")))
              if any(name == "leading" for name, _ in reading.left_out(start)) else 0)

    def in_place(at: int) -> set[int]:
        """The lines of the whole old side (their positions) that are the file's lines when
        the reading's lines sit at ``at``."""
        first = at - offset
        return {j for j, line in enumerate(whole)
                if 0 <= first + j < len(lines) and key(lines[first + j]) == key(line)}

    found = in_place(start)

    def as_close(other: int) -> bool:
        """Is the whole old side at least as close at ``other`` as where the reading fits,
        or does nothing but the reading's own lines tell the places apart (no left-out line,
        not blank, in place where it fits and not at ``other``)?"""
        there = in_place(other)
        kept = range(offset, offset + len(pattern))
        telling = [j for j in found - there if j not in kept and whole[j].strip()]
        return len(there) >= len(found) or not telling

    starts: set[int] = set()
    for j, line in enumerate(pattern):
        if line is not None and line.strip():
            starts.update(at - j for at in attempt.file.find([line]))
    for other in sorted(starts):
        if other == start or other < 0 or other + len(pattern) > len(lines):
            continue
        differ = _edited_off(pattern, lines, other)
        if differ and as_close(other):
            edited = other + differ[0]
            raise Unplaced(f"read {reading.what}, it fits line {start + 1}, but at line "
                           f"{other + 1} it is the file's lines but for one, line "
                           f"{edited + 1}, {quote([lines[edited]])}, an edited form of its "
                           f"{quote([pattern[differ[0]] or b''])}: the hunk was written for "
                           "that place, which changed since; re-read lines "
                           f"{_around(other, len(pattern))}", [other + 1, start + 1])


def _changed_there(attempt: Attempt, name: str, found: int, size: int) -> bool:
    """With its ``name`` side of ``size`` lines at line ``found`` (0-based), is that the place
    the hunk describes: its changed lines' old lines, where they would sit beside it, the
    file's lines or edited forms of them (the file changed there since), or, for a pure
    insertion, its other side's first line beside it? A side copied from an unrelated place
    (a model writing context from memory) has nothing of the hunk beside it."""
    core = old_side(attempt.core)
    other = old_side(attempt.tail if name == "leading" else attempt.lead)
    kept = core or (other[:1] if name == "leading" else other[-1:])
    lines = attempt.file.lines
    first = found + size if name == "leading" else found - len(kept)
    for j, line in enumerate(kept):
        at = first + j
        if 0 <= at < len(lines) and line.strip() and (
                KEYS[WHITESPACE](line) == KEYS[WHITESPACE](lines[at])
                or _edited(line, lines[at])):
            return True
    return False


# -- a line gained or lost --------------------------------------------------------------------

def _seams(attempt: Attempt, reading: Reading, start: int) -> None:
    """Each place the reading gained a line of the file the context skips, or lost a blank
    context line the file lacks, has a context line between it and the nearest added or
    removed line on both sides; else the file changed right beside the edit (or the patch
    did), which git merge-file calls a conflict."""
    body = attempt.body
    if _blank_slip(attempt, reading, start):
        return
    for above, below in reading.seams:
        touching = [j for j in (above, below) if 0 <= j < len(body) and body[j].kind != CONTEXT]
        if touching:
            line = body[touching[0]].text
            raise Unplaced(f"read {reading.what}, the line it skips (or adds) is right next "
                           f"to its changed line {quote([line])}: the file changed beside "
                           "the edit since the patch was written (a conflict for git "
                           f"merge-file); re-read lines {_around(start, len(reading.old))}",
                           [start + 1])


def _blank_slip(attempt: Attempt, reading: Reading, start: int) -> bool:
    """A blank line the context skips, or a blank context line the file lacks, next to a
    change, in a file that equals its index and HEAD, every other context line exact: the
    commonest slip, and nothing says the file changed (issue 43's contract): its patch names
    no other version. The reading it lets stand: the model dropped or added a blank line;
    the stale reading has no version to come from."""
    if not attempt.hints.clean or attempt.hints.stale \
            or not attempt.file.at(reading.old, start, 0):
        return False
    return all(not attempt.file.lines[start + j].strip()
               for j, line in enumerate(reading.old) if line is None)


def _deeper_lines(attempt: Attempt, reading: Reading, start: int) -> list[bytes]:
    """At the one place the old side matches with whitespace ignored: every removed line,
    and every context line next to a change, equal to the file's; the other context lines
    equal too, or indented deeper. Returns the deeper ones; raises Unplaced otherwise."""
    body = attempt.body
    deeper, at, key = [], start, KEYS[PLACING - 1]
    for j, line in enumerate(body):
        if line.kind == ADD:
            continue
        have = attempt.file.lines[at]
        at += 1
        if key(line.text) == key(have):
            continue
        beside = any(0 <= k < len(body) and body[k].kind != CONTEXT for k in (j - 1, j + 1))
        if line.kind == CONTEXT and not beside and _deeper(line.text, have):
            deeper.append(line.text)
            continue
        raise Unplaced("context_indent forgives only deeper context away from a change, "
                       f"and line {at} {_which(line.kind, beside)}", [at])
    return deeper


def _which(kind: str, beside: bool) -> str:
    """Which of context_indent's conditions a line that differs from the file's broke."""
    if kind != CONTEXT:
        return "is a removed line"
    return "is next to a change" if beside else "is not indented deeper than the file's"


def _deeper(patch_line: bytes, file_line: bytes) -> bool:
    """Is the patch's line the file's line indented further (its indentation the file's with
    more after it, the rest the same)?"""
    ours, theirs = patch_line.rstrip(b"\r\n"), file_line.rstrip(b"\r\n")
    ours_text, theirs_text = ours.lstrip(b" \t"), theirs.lstrip(b" \t")
    ours_indent = ours[: len(ours) - len(ours_text)]
    theirs_indent = theirs[: len(theirs) - len(theirs_text)]
    return (ours_text.rstrip() == theirs_text.rstrip() and len(ours_indent) > len(theirs_indent)
            and ours_indent.startswith(theirs_indent))


# -- the section text -------------------------------------------------------------------------

def _section(attempt: Attempt, at: int, body: Sequence[HunkLine], what: str) -> None:
    """The hunk header's section text, when it is a line of the file, names the scope the
    hunk is in (git writes there the nearest line above the hunk that starts a definition):
    for one of its occurrences, the hunk's first changed line is below it (or is it; an
    insertion's place, between two lines, is outside a definition that starts right after
    it) and the hunk (the ``body`` rewritten to start at line ``at``, 0-based) starts within
    its scope (up to the next line indented as much or less)."""
    section = attempt.hints.section.strip()
    text = section.encode("utf-8", "surrogateescape")
    if not _DEFINITION.match(text):
        return  # an import, an assignment, a 'try:': git's section line, but no scope
    lines = attempt.file.lines
    found = [j for j, line in enumerate(lines) if line.strip() == text]
    hinted = attempt.hints.hinted
    if hinted is not None:
        # the section text names several scopes: the hunk's number says which one
        named = [j for j in found if j - _AROUND <= hinted <= _scope_end(lines, j) + _AROUND]
        found = named or found
    first = next((k for k, line in enumerate(body) if line.kind != CONTEXT), 0)
    change = at + sum(line.kind != ADD for line in body[:first])
    # an insertion goes between lines: before line ``change``, so a definition starting
    # there does not hold it (git names the one above); a changed line is in its own
    inserting = bool(body) and body[first].kind == ADD
    if not found or any(((j < change or (j == change and not inserting))
                         and at <= _scope_end(lines, j))
                        or _funcname(lines, j, at) for j in found):
        return
    shown = ", ".join(str(j + 1) for j in found[:5])
    raise Unplaced(f"read {what}, it fits line {at + 1}, but its header names "
                   f"{quote([text])} (line{'s' if len(found) > 1 else ''} {shown}), whose "
                   f"scope line {at + 1} is not in: the hunk was written for that scope, "
                   "which may have changed since the patch was written; re-read lines "
                   f"{found[0] + 1}-{_scope_end(lines, found[0]) + 1}",
                   [*(j + 1 for j in found), at + 1])


_DEFINES = re.compile(rb"[A-Za-z_$]")  # git's default funcname: a line starting so
_PYTHON_FUNCNAME = re.compile(rb"[ \t]*(?:class|(?:async[ \t]+)?def)[ \t]")  # diff=python's
# a section line that opens a definition's scope (Python's, and the common C-like keywords)
_DEFINITION = re.compile(rb"(?:async\s+def|def|class|function|fn|func|struct|impl|interface|"
                         rb"module|sub)\b")


def _funcname(lines: Sequence[bytes], named: int, at: int) -> bool:
    """Would git write line ``named`` (0-based) as the section text of a hunk starting at
    line ``at``? git names the nearest line above the hunk's first line that its diff
    driver's funcname pattern takes: for the default driver a line starting with a letter,
    '_' or '$'; for ``diff=python`` (common, and imitated by models) a ``def`` or ``class``
    line at any depth. So module-level code after a function, an ``if __name__`` block, code
    after a nested function, and a hunk starting on a method's ``def`` line (named after the
    method before it) are named so. The reading ruled out: a hunk whose section text git
    could not have written for this place, because another definition lies between."""
    if not named < at <= len(lines):
        return False
    between = lines[named + 1 : at]
    return any(pattern.match(lines[named]) and not any(map(pattern.match, between))
               for pattern in (_DEFINES, _PYTHON_FUNCNAME))


def _scope_end(lines: Sequence[bytes], at: int) -> int:
    """The first line (0-based) after line ``at`` that is indented less, or as much and
    starts as a definition does for git (a letter, '_' or '$': a closing bracket, a
    decorator or a comment does not): where its scope ends."""
    def indent(line: bytes) -> int:
        return len(line) - len(line.lstrip(b" \t"))

    depth = indent(lines[at])
    for j in range(at + 1, len(lines)):
        text = lines[j].strip()
        if text and (indent(lines[j]) < depth
                     or (indent(lines[j]) == depth and _DEFINES.match(text))):
            return j
    return len(lines)


# -- re-sends and look-alikes -----------------------------------------------------------------

def _guard(attempt: Attempt, reading: Reading, start: int, placing: int = PLACING) -> None:
    """The same reading of the new side, found overlapping where the old side's is: the
    hunk is in already (a re-send). Compared only at the levels that tell the two sides
    apart (a hunk that only re-indents is the same at the whitespace level), up to the
    level the old side's reading matched at (``placing``: its indentation forgiven, the
    whitespace level too)."""
    new = reading.new
    olds = [line for line in reading.old if line is not None]
    news = [line for line in new if line is not None]
    if not news:
        return
    end = start + len(reading.old)
    for level in range(min(placing, telling_levels(olds, news))):
        for at in range(start - len(new) + 1, end):
            inside = reading.old[at - start : at - start + len(new)] if at >= start else []
            if attempt.file.at(new, at, level) and not (
                    len(inside) == len(new) and _same(inside, new)):
                raise AlreadyThere(at)


def _same(first: Sequence[bytes | None], second: Sequence[bytes | None]) -> bool:
    """Two patterns of one length, line for line the same (a skipped line as any line)."""
    return all(a is None or b is None or a == b for a, b in zip(first, second, strict=True))


def _new_lines_elsewhere(attempt: Attempt, reading: Reading, start: int) -> None:
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


def _around(at: int, size: int) -> str:
    """Lines (1-based) around a place of ``size`` lines at ``at`` (0-based), to re-read."""
    return f"{max(at - _AROUND, 0) + 1}-{at + size + _AROUND}"


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
               for line in attempt.absent(reading.left_out_of(attempt, name), side_at)]
    said = f"its context lines {quote(dropped)} are not in the file there"
    nowhere = [line for line in dropped if not attempt.file.find([line])]
    if nowhere:
        said += f" ({quote(nowhere)} nowhere in it)"
    return f"{said}; read {reading.what}, {placed}"
