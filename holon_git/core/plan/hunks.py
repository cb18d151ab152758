"""One file patch's hunks applied to a file's content, in order: each placed (core/place/),
checked against being there already (applied.py), and spliced in. Raises the first hunk's
refusal, located; the plan decides what a refusal leads to (the rescue, rescue.py).

Each hunk takes the same steps (``_HunkApplier.apply``): read its sides and hints, place it
down the ladder (place/ladder.py) with the hunk rules asked in between (applied.HunkCheck),
write its added lines the file's way, and splice its new lines into the running file.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cached_property
from typing import TYPE_CHECKING, NamedTuple

from ...errors import PatchError, let_go
from ..change import HunkResult, RejectedHunk
from ..model import ADD, CONTEXT, Diagnostic, FilePatch, Hunk, HunkLine, new_side, sides
from ..place.edges import away_from, claimed_edges
from ..place.ladder import Ask, Sides, find, insertion_point, pick, salvage_hunk
from ..place.match import (
    LEVELS,
    WHITESPACE,
    RunningFile,
    check_call_budget,
    near_miss,
    split_lines,
    telling_levels,
)
from ..place.numbers import NO_NUMBERS, Numbers, bare, numbers_of
from ..place.splice import dominant_eol, new_window
from .applied import HunkCheck, hunk_in_file, insertion_repeat_error
from .fast import apply_fast, repairs

if TYPE_CHECKING:
    from ..place.reindent import FileIndent, Mapping
    from ..place.salvage.reading import Unplaced


# A file is searched on its bytes while hunks x size stays under this: each hunk's search
# reads the whole file (in C), where the line search splits and indexes it once.
BYTES_FIRST_BUDGET = 8 << 20


def apply_hunks(fp: FilePatch, content: bytes, reverse: bool, matching: str = "auto",
                 seek_elsewhere: bool = False, salvage: bool = False,
                 exact_repeats: bool = False,
                 rejected: list[RejectedHunk] | None = None, clean: bool = False,
                 stale: bool = False) -> tuple[bytes, list[HunkResult], list[Diagnostic]]:
    """The file patch's hunks applied to ``content``: the new content, where each hunk went,
    and the notes; raises the first hunk's refusal, located.

    ``matching``: "auto" places on the file's bytes first (exact.py) and falls back to the
    line search for anything unusual; "lines" uses the line search only; "exhaustive" also
    lists every copy of an old side before deciding (the reference the tests compare with).
    ``salvage``: a hunk no level places goes on down the ladder's last rungs (place/salvage/).
    ``exact_repeats``: a hunk whose added lines repeat their neighbours is let through where
    its line numbers fit exactly (applied.HunkCheck; only when the plan knows it is no
    re-send: applied.repeat_by_line_numbers).
    ``rejected`` (--reject): a refused hunk is added to it, with its refusal, and left out;
    the hunks after it still apply (each hunk is independent, as git apply --reject has it).
    An edit by its text (Hunk.edit) is first found in ``content`` and made a line hunk there
    (edits.py): each version the plan asks (the file, a rescue's base) finds it anew.
    ``clean``: the file equals its index and HEAD versions (and the version the patch's
    index line names): nothing says it changed since the patch was written (the judge
    weighs it on the last rungs).
    ``stale``: the repository holds another version of the file the patch was written
    against (plan/stale.py), though its index line names none: the judge weighs the stale
    reading at every level, as for an index line naming another version.
    """
    fp = _resolved(fp, content)
    numbers = numbers_of(fp, content)
    stale = stale or names_another_version(fp, content)
    if matching == "auto" and not (salvage or exact_repeats) and rejected is None \
            and numbers.blob is not False and not stale:
        fast = apply_fast(fp, content)  # the top rung: the common case, on bytes
        if fast is not None and not any(
                result.offset and fp.hunks[result.index - 1].section.strip()
                for result in fast[1]):
            return fast  # (a hunk away from its number that names a scope: judged below)
        if _bytes_first(fp, content):
            from ..place.exact import ByteFile, Unusual

            try:
                return apply_on(ByteFile(content), fp, content, reverse, seek_elsewhere,
                                numbers=numbers)
            except (Unusual, PatchError):
                pass  # the line search decides, and words any refusal
    check_call_budget()  # spent: refused before the file is split and indexed
    running = RunningFile(split_lines(content))
    running.exhaustive = matching == "exhaustive"
    try:
        return apply_on(running, fp, content, reverse, seek_elsewhere, salvage, exact_repeats,
                        rejected, numbers, clean, stale=stale)
    except PatchError as err:
        from ..advice import advise  # a refusal only: say what most likely went wrong

        raise advise(err, fp, running.original) from None


def hunks_already_in(fp: FilePatch, content: bytes, reverse: bool, salvage: bool = False
                     ) -> tuple[list[int], PatchError | None]:
    """The hunks (1-based) of ``fp`` whose change ``content`` already holds, by the hunk
    rules (applied.HunkCheck), and the first refusal of another hunk, located (None when
    every other hunk places cleanly). Each hunk is placed on the file as the hunks before it
    left it (``salvage``: down the last rungs too, as apply_hunks does); one refused, as
    there already or otherwise, is left out, as are those --reject left out already
    (``fp.left_out``: never the refusal, never counted)."""
    check_call_budget()  # spent: refused before the file is split and indexed
    fp = _resolved(fp, content)
    running = RunningFile(split_lines(content))
    applier = _HunkApplier(running, content, reverse, fp.hunks, False,
                           numbers=numbers_of(fp, content))
    applier.stale = names_another_version(fp, content)
    there: list[int] = []
    other: PatchError | None = None
    for number, hunk in enumerate(fp.hunks, 1):
        if number in fp.left_out:
            continue
        try:
            try:
                applier.apply(hunk, number)
            except PatchError as err:
                if not salvage or hunk_in_file(err, reverse):
                    raise
                _apply_salvaged(applier, fp, hunk, number, err)
        except PatchError as err:
            if hunk_in_file(err, reverse):
                there.append(number)
            elif other is None:
                other = err.located(hunk=number, patch_line=hunk.patch_line)
    if other is not None:
        from ..advice import advise  # a refusal only

        other = advise(other, fp, running.original)
    return there, other


def names_another_version(fp: FilePatch, content: bytes) -> bool:
    """Does the file patch's ``index`` line name an old blob other than ``content``'s? Then
    it says it was written against another version of the file: a stale patch is a reading
    the judge must weigh (salvage/judge.py's stale_refusal)."""
    if fp.blob_ids is None or not fp.blob_ids[0].strip("0"):
        return False
    import hashlib  # loads OpenSSL: only for a patch with an index line

    blob = hashlib.sha1(b"blob %d\0" % len(content) + content, usedforsecurity=False)
    return not blob.hexdigest().startswith(fp.blob_ids[0].lower())


def _resolved(fp: FilePatch, content: bytes) -> FilePatch:
    """``fp`` with its edits by their text made line hunks against ``content`` (edits.py,
    loaded only for them: a diff's hunks have none)."""
    if all(hunk.edit is None for hunk in fp.hunks):
        return fp
    from .edits import resolved

    return resolved(fp, content)


def _bytes_first(fp: FilePatch, content: bytes) -> bool:
    return (content.endswith(b"\n") and len(fp.hunks) * len(content) <= BYTES_FIRST_BUDGET
            and not any(h.anchor_text or h.anchor_end or h.old_no_newline or h.new_no_newline
                        or h.unfinished for h in fp.hunks))


def apply_on(running: RunningFile, fp: FilePatch, content: bytes, reverse: bool,
             seek_elsewhere: bool = False, salvage: bool = False, exact_repeats: bool = False,
             rejected: list[RejectedHunk] | None = None, numbers: Numbers = NO_NUMBERS,
             clean: bool = False, transports: list[list[Mapping]] | None = None,
             stale: bool = False
             ) -> tuple[bytes, list[HunkResult], list[Diagnostic]]:
    """apply_hunks on one kind of running file (``content``, as bytes or as lines);
    ``numbers``: what the file patch says of its line numbers (judge.numbers_of);
    ``clean``: apply_hunks'; ``transports``: what the hunks written with tabs for the
    file's spaces showed a tab is, on a first pass (one transport per file patch);
    ``stale``: the patch's index line names another version of the file than ``content``
    (names_another_version)."""
    applier = _HunkApplier(running, content, reverse, fp.hunks, seek_elsewhere, exact_repeats,
                           numbers)
    applier.clean, applier.stale = clean, stale
    applier.transports_given = transports
    rejected_before = None if rejected is None else len(rejected)
    results = []
    for number, hunk in enumerate(fp.hunks, 1):
        if number in fp.left_out:
            continue
        try:
            try:
                results.append(applier.apply(hunk, number))
            except PatchError as err:
                if applier.in_sequence == number:
                    # written against the text the hunks before it leave: applied to it,
                    # as a second file patch of the same path would be
                    let_go(err)
                    applier = applier.restarted(number)
                    results.append(applier.apply(hunk, number))
                    continue
                if not salvage:
                    raise
                results.append(_apply_salvaged(applier, fp, hunk, number, err))
        except PatchError as err:
            err.located(hunk=number, patch_line=hunk.patch_line)
            if rejected is None:
                raise err from None
            # a refusal is raised before the hunk changes the running file: the hunks after
            # it apply to the file as the hunks before it left it
            from ..advice import advise

            let_go(err)
            rejected.append(RejectedHunk(number, hunk, advise(err, fp, running.original)))
    pending = applier.transport_pending
    if pending and transports is None:
        # an exact hunk added tab-indented lines before every hunk written with tabs had
        # shown what a tab is: planned again, their readings given (one transport)
        if not applier.transports:
            raise _one_transport().located(hunk=pending,
                                           patch_line=fp.hunks[pending - 1].patch_line)
        if rejected is not None and rejected_before is not None:
            del rejected[rejected_before:]
        return apply_on(RunningFile(split_lines(content)), fp, content, reverse,
                        seek_elsewhere, salvage, exact_repeats, rejected, numbers, clean,
                        applier.transports, stale)
    return applier.running.content(), results, applier.diagnostics


def _apply_salvaged(applier: _HunkApplier, fp: FilePatch, hunk: Hunk, number: int,
                    refusal: PatchError) -> HunkResult:
    """The one place the ladder's last rungs (place/ladder.py's salvage_hunk) join the plan: the
    hunk rewritten by the rung that places it, applied by the ordinary rules (already-applied
    checks included), and said in its tolerances and a diagnostic; else ``refusal``."""
    from ..place.salvage.reading import AlreadyThere

    delta = sum(h.added - h.removed for h in fp.hunks[: number - 1])
    try:
        rewritten, found = salvage_hunk(applier.running, hunk, refusal, drift=applier.drift,
                                        delta=delta, zero_context=fp.unidiff_zero,
                                        numbers=applier.numbers, clean=applier.clean,
                                        stale=applier.stale)
    except AlreadyThere as there:
        if there.repeat:
            raise insertion_repeat_error(applier.check.reverse, there.at) from None
        raise applier.check.salvaged_there(there.at) from None
    result = applier.apply(rewritten, number, judged=True)
    result.hinted_line = hunk.old_start
    result.tolerances.append(found.rung)
    applier.diagnostics.append(Diagnostic(found.rung, f"hunk {number}: {found.message}",
                                          hunk.patch_line))
    return result


class _HunkApplier:
    """Applies the hunks of one file in order, carrying the drift between hint and match."""

    def __init__(self, running: RunningFile, content: bytes, reverse: bool,
                 hunks: Sequence[Hunk], seek_elsewhere: bool,
                 exact_repeats: bool = False, numbers: Numbers = NO_NUMBERS) -> None:
        self.running = running
        self.numbers = numbers  # what the file patch says of its line numbers
        self.content = content
        self.hunks = hunks  # the file patch's hunks (punctuation evidence)
        self.drift = 0
        self.moved = 0  # lines the hunks applied so far added, less those they removed
        self.diagnostics: list[Diagnostic] = []
        # is a hunk's change there already? (``seek_elsewhere``, ``exact_repeats``: HunkCheck)
        self.check = HunkCheck(running, reverse, seek_elsewhere, exact_repeats)
        self.seek_elsewhere = seek_elsewhere
        # the hunk refused overlapping_edits whose old side is only in the text the hunks
        # before it left, once: it applies to that text (apply_on restarts there)
        self.in_sequence = 0
        self.clean = False  # apply_hunks' ``clean``
        # one transport per file patch (issue 43, class 6): what each hunk written with tabs
        # for the file's spaces showed a tab stands for; the readings of a first pass, given
        # to the second (apply_on), by which an exact hunk's tab-indented added lines are
        # mapped back; the first such hunk met before they were given
        self.transports: list[list[Mapping]] = []
        self.transports_given: list[list[Mapping]] | None = None
        self.transport_pending = 0
        self.stale = False  # apply_on's ``stale``

    def restarted(self, number: int) -> _HunkApplier:
        """An applier for the hunks from ``number`` on, on the file as the hunks before it
        left it (a fresh running file: those lines are now the file's own), keeping the
        notes so far."""
        content = self.running.content()
        applier = _HunkApplier(RunningFile(split_lines(content)), content,
                               self.check.reverse, self.hunks, self.seek_elsewhere,
                               self.check.exact_repeats, self.numbers)
        applier.diagnostics, applier.clean = self.diagnostics, self.clean
        applier.transports, applier.transports_given = self.transports, self.transports_given
        applier.transport_pending = self.transport_pending
        applier.stale = self.stale
        self.diagnostics.append(Diagnostic(
            "hunks_in_sequence", f"hunk {number}: its old lines are only in the text the "
            "hunks before it leave, once: it was applied to that text, as a second file "
            "patch of the same path would be", self.hunks[number - 1].patch_line))
        return applier

    @cached_property
    def eol(self) -> bytes | None:
        """The file's usual line ending; needed only when a tolerance matched or a line must
        gain an ending, so most files are never scanned for it."""
        return dominant_eol(self.content)

    @cached_property
    def indent_style(self) -> FileIndent:
        """How the file indents (read only when a hunk matched with whitespace ignored)."""
        from ..place.reindent import indent_style

        return indent_style(self.content)

    @cached_property
    def typographic(self) -> frozenset[str]:
        """The file's typographic characters (read only when a hunk matched loosely)."""
        from ..place.punctuation import typographic_characters

        return typographic_characters(self.content)

    @cached_property
    def smartened(self) -> dict[str, str]:
        """Typographic characters a transport put into the whole file patch, to ASCII
        (punctuation.py; read only for a hunk adding a non-ASCII line)."""
        from ..place.punctuation import smartened_mapping

        return smartened_mapping(self.hunks, self.typographic)

    @cached_property
    def _tabs_for_spaces(self) -> bool:
        """Was the file patch written with tabs where the file indents with spaces: a
        context or removed line of some hunk indented with a tab, in a file whose every
        indentation is spaces (so that hunk can match only with whitespace ignored)?"""
        from ..place.reindent import SPACE  # only for a hunk adding tab-indented lines

        written = any(line.kind != ADD and line.text[:1] == b"\t"
                      for hunk in self.hunks for line in hunk.lines)
        return written and self.indent_style.char == SPACE

    def fill_eol(self) -> bytes:
        return self.eol or b"\n"

    def apply(self, hunk: Hunk, number: int, judged: bool = False) -> HunkResult:
        """Place one hunk, check its change is not there already, write its lines the file's
        way and splice them in: the running file then holds it. ``judged``: a last rung's
        rewrite, whose place the judge has weighed already."""
        reading = self._read(hunk)
        if self.numbers.blob is False and self.running.length:
            self._refuse_by_numbers(hunk, [])
        self.check.next_hunk(self.check.exact_repeats and self._fits(hunk, reading))
        placed = (self._place(hunk, number, reading) if reading.sides.old
                  else self._place_insertion(hunk, reading))
        lines, old, _ = placed.sides
        running = self.running
        off_edge = bool(old) and away_from(hunk, lines, running, placed.start, len(old),
                                           placed.level)
        window = running.window(placed.start, len(old))
        if placed.level >= WHITESPACE:
            self._judge_loose(hunk, placed, reading)
        if self.stale and old and not judged:
            self._judge_stale(hunk, placed, reading)
        elif old and not judged and hunk.section.strip() and placed.level < WHITESPACE \
                and self.numbers.blob is None:
            self._judge_moved(hunk, placed, reading)
        lines, new, tolerances = self._adapt(placed, reading, window, number)
        added_eol = self._added_eol(placed, reading, lines, tolerances)
        tolerances += repairs(hunk)
        self._splice(hunk, number, placed, window, lines, new, added_eol)
        raw_hint = reading.hints[0]
        if raw_hint is not None:
            self.drift = placed.original - raw_hint
        self.moved += len(new) - len(old)
        if placed.by_hint:
            self.diagnostics.append(Diagnostic(
                "placed_by_line_number",
                f"hunk {number}: its old lines occur more than once; the copy at the hinted "
                f"line {placed.original + 1} was used", hunk.patch_line))
        return HunkResult(number, hunk.old_start, placed.original + 1, tolerances,
                          placed.by_hint, placed.by_anchor, self.check.new_side_elsewhere,
                          off_edge)

    def _fits(self, hunk: Hunk, reading: _Reading) -> bool:
        """Do the hunk's line numbers fit the file exactly: its old side, byte for byte, at
        its old line number, no hunk before it moved off its own, and its new line number
        what the hunks before it added and removed make of its old one?"""
        raw_hint, old = reading.hints[0], reading.sides.old
        if raw_hint is None or hunk.new_start is None or hunk.old_start is None or self.drift \
                or hunk.new_start - hunk.old_start != self.moved:
            return False
        at = self.running.to_current(raw_hint)
        return at is not None and self.running.sits_at(at, old, 1) == 0

    def _read(self, hunk: Hunk) -> _Reading:
        """The hunk as placement reads it."""
        running = self.running
        lines: Sequence[HunkLine] = hunk.lines  # a packed body stays packed unless needed
        old, new = sides(lines)
        raw_hint = None
        if hunk.old_start is not None:
            raw_hint = max(hunk.old_start - (1 if old else 0), 0)
        hint = None if raw_hint is None else raw_hint + self.drift
        at_end = (hunk.old_no_newline or hunk.new_no_newline or hunk.anchor_end
                  or hunk.unfinished)
        # a hunk with no context says nothing about the file's line endings (_added_eol)
        no_context = not old and running.length > 0
        if not old and hunk.anchor_end:
            last_line = running.last_line()
            if last_line and not last_line.endswith(b"\n"):
                # Appending after a last line that has no line ending: that line gains one,
                # so it joins the hunk as context (and is found at the end like any other).
                lines = [HunkLine(CONTEXT, last_line), *lines]
                old, new = [last_line], [last_line, *new]
        return _Reading(Sides(lines, old, new), (raw_hint, hint), at_end, no_context)

    def _place(self, hunk: Hunk, number: int, reading: _Reading) -> _Placed:
        """Down the ladder: the copies of the old side, then the one chosen; the hunk rules
        asked in between (applied.py)."""
        running, hint = self.running, reading.hints[1]
        copies = find(running, Ask(reading.sides, reading.at_end, hint, hunk.optional_tail))
        read, found = copies.sides, copies.found
        if not found:
            raise self._not_found(hunk, number, read, hint)
        self.check.claimed(hunk, read.lines, read.old, read.new, found, hint, self.drift)
        if not self.numbers.current and bare(hunk) and hunk.old_start is not None \
                and not hunk.anchor_text and len(found.some(2)) > 1:
            self._refuse_by_numbers(hunk, [(c.original if c.original is not None else c.start)
                                           + 1 for c in found.candidates])
        chosen = pick(running, found, hunk, read, reading.hints)
        candidate = chosen.candidate
        if chosen.anchor_line is not None:
            self.diagnostics.append(Diagnostic(
                "placed_by_anchor", f"hunk {number}: its old lines occur "
                f"{len(found.candidates)} times; the first copy after line "
                f"{chosen.anchor_line + 1}, which matches its '@@ {hunk.anchor_text}' line, "
                "was used", hunk.patch_line))
        if candidate.original is None:
            earlier = running.hunks_in_current(candidate.start, len(read.old))
            if found.level < WHITESPACE and len(found.some(2)) == 1 \
                    and not running.find_original(read.old, reading.at_end):
                self.in_sequence = number
            raise _overlapping(earlier, number)
        if hunk.unfinished and candidate.start and claimed_edges(hunk, read.lines).start:
            raise _cut_off_at_start(hunk, candidate.start)
        self.check.at_match(hunk, read.old, read.new, candidate, found.level, hint,
                            chosen.by_hint)
        return _Placed(candidate.start, candidate.original, found.level, read,
                       list(copies.tolerated), chosen.by_hint, chosen.anchor_line is not None)

    def _judge_loose(self, hunk: Hunk, placed: _Placed, reading: _Reading) -> None:
        """A placement the whitespace or punctuation level found passes the one judge
        (salvage/judge.py's loose_refusal): refused ``context_not_found`` when the section
        text or the line number points elsewhere (the rescue and the last rungs may still
        take it). A re-send is told first (applied.HunkCheck.loose)."""
        from ..place.salvage.judge import loose_refusal  # a loose placement only

        lines, old, new = placed.sides
        self.check.loose(old, new, reading.at_end)
        hint = reading.hints[1]
        hinted = None if hint is None else self.running.to_current(hint)
        refused = loose_refusal(self.running.lines(), lines, placed.start, hinted,
                                hunk.section)
        if refused is not None:
            raise _judged_elsewhere("the hunk's old lines were found only "
                                    f"{LEVELS[placed.level]} ignored, at line "
                                    f"{placed.original + 1}; {refused.note}", refused)

    def _judge_stale(self, hunk: Hunk, placed: _Placed, reading: _Reading) -> None:
        """A placement of a hunk whose patch's index line names another version of the file
        passes the one judge at every level (salvage/judge.py's stale_refusal): refused
        ``context_not_found`` when the stale reading puts the edit elsewhere or calls it a
        conflict (the rescue may still merge from the version named)."""
        from ..place.salvage.judge import stale_refusal  # a patch naming another version

        lines = placed.sides.lines
        hint = reading.hints[1]
        hinted = None if hint is None else self.running.to_current(hint)
        refused = stale_refusal(self.running.lines(), lines, placed.start, hinted,
                                hunk.section, claimed_edges(hunk, lines))
        if refused is not None:
            raise _judged_elsewhere(f"the hunk's old lines are at line {placed.original + 1}, "
                                    "but its file patch names another version of the file, "
                                    f"and {refused.note}", refused)

    def _judge_moved(self, hunk: Hunk, placed: _Placed, reading: _Reading) -> None:
        """An exact placement away from the hunk's line number passes the judge's section
        rule (salvage/judge.py's moved_refusal): refused ``context_not_found`` when the scope
        its section text names holds its old side but for one line (the rescue and the last
        rungs may still take it)."""
        hint = reading.hints[1]
        hinted = None if hint is None else self.running.to_current(hint)
        if hinted is None or hinted == placed.start:
            return
        from ..place.salvage.judge import moved_refusal  # a hunk away from its number

        refused = moved_refusal(self.running.lines(), placed.sides.lines, placed.start,
                                hunk.section)
        if refused is not None:
            raise _judged_elsewhere(f"the hunk's old lines are at line {placed.original + 1}, "
                                    f"away from its line number, and {refused.note}", refused)

    def _refuse_by_numbers(self, hunk: Hunk, copies: list[int]) -> None:
        """A hunk with no context goes by its line numbers alone: refused when the judge
        finds them contradicted, or, for removed lines found at several ``copies`` (1-based
        lines), unproven (judge.numbers_refusal): ``context_not_found`` (a merge from the
        version its index line names may still take it), or ``ambiguous_context``."""
        from ..place.salvage.judge import numbers_refusal  # a hunk by its numbers alone

        why = numbers_refusal(hunk, self.numbers, len(copies))
        if why is None:
            return
        hint = "re-read the file and send the hunk with a few unchanged lines around it"
        if len(copies) > 1:
            raise PatchError("ambiguous_context", f"the hunk's old lines occur {len(copies)} "
                             f"times (at lines {', '.join(map(str, copies[:10]))}): {why}",
                             hint=hint, details={"candidate_lines": copies[:50]})
        raise PatchError("context_not_found", f"the hunk was not placed: {why}", hint=hint)

    def _place_insertion(self, hunk: Hunk, reading: _Reading) -> _Placed:
        """A hunk with no old side: at the end of the file, when nothing refuses it."""
        running = self.running
        if running.length:
            self.check.insertion(hunk, reading.sides.lines, reading.sides.new)
        start = insertion_point(running, hunk)
        original = running.to_original(start, 0)
        assert original is not None
        return _Placed(start, original, 0, reading.sides, [], False, False)

    def _adapt(self, placed: _Placed, reading: _Reading, window: list[bytes], number: int
               ) -> tuple[Sequence[HunkLine], list[bytes], list[str]]:
        """The hunk's lines with its added lines written the file's way (its indentation and
        punctuation, when the hunk matched loosely or the patch was smartened, or the file
        patch's transport, _by_transport), its new side, and its tolerances so far."""
        lines, old, new = placed.sides
        tolerances, level = placed.tolerated, placed.level
        if level >= WHITESPACE:
            from ..place.reindent import adapt_added_lines, transport_of

            if self._tabs_for_spaces:
                learned = transport_of(lines, window)
                if learned is not None:
                    self.transports.append(learned)

            lines, rewritten = adapt_added_lines(list(lines), window, level,
                                                 placed.original + 1, self.indent_style,
                                                 self.typographic)
            tolerances.extend(rewritten)
            new = new_side(lines)
        if level < WHITESPACE and any(line.kind == ADD and line.text[:1] == b"\t"
                                      for line in lines) and self._tabs_for_spaces:
            lines, changed = self._by_transport(lines, number)
            if changed:
                new = new_side(lines)
                tolerances.append("reindented")
        if level >= WHITESPACE and any(b"\t" in line for line in new) \
                and telling_levels(old, new) > WHITESPACE:
            # a tab added, in a hunk matched with whitespace ignored that does more than
            # re-indent lines: rare. A hunk whose lines match exactly applies as written, as
            # git applies it
            from ..place.reindent import refuse_tabs_in_spaces

            refuse_tabs_in_spaces(lines, window, placed.original + 1, self.indent_style)
        if new != old and not all(line.isascii() for line in new) and self.smartened:
            from ..place.punctuation import normalize_with

            lines, changed = normalize_with(lines, self.smartened)
            if changed:
                new = new_side(lines)
                if "punctuation_normalized" not in tolerances:
                    tolerances.append("punctuation_normalized")
        return lines, new, tolerances

    def _by_transport(self, lines: Sequence[HunkLine], number: int
                      ) -> tuple[Sequence[HunkLine], bool]:
        """An exact hunk adding tab-indented lines, in a file patch written with tabs for the
        file's spaces: its added lines mapped back as every other hunk's reading says a tab
        is (issue 43, class 6), once those readings are known (the second pass apply_on
        makes; the first notes the hunk and keeps its lines); refused when they disagree."""
        if self.transports_given is None:
            self.transport_pending = self.transport_pending or number
            return lines, False
        from ..place.reindent import by_transport

        mapped = by_transport(lines, self.transports_given, self.indent_style)
        if mapped is None:
            raise _one_transport()
        return mapped

    def _added_eol(self, placed: _Placed, reading: _Reading, lines: Sequence[HunkLine],
                   tolerances: list[str]) -> bytes | None:
        """The line ending added lines take: the file's usual one when a tolerance matched,
        else the patch's own (None)."""
        added_eol = self.eol if placed.level else None
        if reading.no_context and self._endings_differ(lines):
            # Its added lines take the file's usual ending, as under a tolerance: an LF
            # envelope's append to a CRLF file writes CRLF lines (and the reverse).
            added_eol = self.eol
            if LEVELS[1] not in tolerances:
                tolerances.append(LEVELS[1])
        return added_eol

    def _splice(self, hunk: Hunk, number: int, placed: _Placed, window: list[bytes],
                lines: Sequence[HunkLine], new: list[bytes], added_eol: bytes | None) -> None:
        """Replace the matched window of the running file with the hunk's new lines."""
        running = self.running
        size = len(placed.sides.old)
        # an empty file does not "lack" a final newline: only a last line can
        last = running.last_line()
        final_newline = last is None or last.endswith(b"\n")
        if hunk.old_no_newline != hunk.new_no_newline:
            final_newline = hunk.old_no_newline
        written = new_window(window, lines, added_eol=added_eol, fill_eol=self.fill_eol,
                             at_end=placed.start + size == running.length,
                             final_newline=final_newline, new=new)
        if written == window:
            # a hunk that changes nothing here (its change is the file's text already, as a
            # line the file has empty where the patch removes blanks) records no edit: the
            # hunks after it may read its lines as the file's own, not as its output
            return
        running.replace(placed.start, size, written, number)

    def _endings_differ(self, lines: Sequence[HunkLine]) -> bool:
        """Does an added line end other than the file's usual way (LF in a CRLF file, or
        CRLF in an LF file)?"""
        eol = self.eol
        return eol is not None and any(
            line.kind == ADD and line.text.endswith(b"\n")
            and line.text.endswith(b"\r\n") != (eol == b"\r\n") for line in lines)

    def _not_found(self, hunk: Hunk, number: int, read: Sides, hint: int | None
                   ) -> PatchError:
        """The refusal of a hunk whose old side no rung found."""
        running, old = self.running, read.old
        at_end = (hunk.old_no_newline or hunk.new_no_newline or hunk.anchor_end
                  or hunk.unfinished)
        for start in running.find_original(old, at_end):
            earlier = running.hunks_in_original(start, len(old))
            if earlier:
                return _overlapping(earlier, number)
        applied = self.check.not_found(old, read.new, at_end)
        if applied is not None:
            return applied
        if hunk.unfinished and running.search(old):
            return _cut_off(hunk)  # found, but not where a cut-off hunk may end
        # near misses are shown in the file as it is on disk, never as earlier hunks left it
        details = near_miss(running.original, old, hint)
        diff = details.get("first_difference")
        message = "the hunk's old lines were not found"
        if diff:
            message += (f"; nearest match at line {details['nearest_line']}, first difference "
                        f"at line {diff['line']}: expected {diff['expected']!r}, found "
                        + ("the end of the file" if diff["found"] is None
                           else repr(diff["found"])))
        return PatchError("context_not_found", message, details=details)


def _one_transport() -> PatchError:
    """Issue 43, class 6: a file patch is one transport. A hunk whose context matched exactly
    but whose added lines are indented with tabs, in a file patch whose other hunks were
    written with tabs for the file's spaces, may not keep its tabs while the others are
    mapped back: its lines are mapped back as the others' readings say a tab is. When they
    disagree (or none shows what a tab is), its own lines (no indented line) do not show
    which spaces a tab stands for, so it is refused rather than guessed."""
    return PatchError(
        "indentation_mismatch", "the hunk adds lines indented with tabs to a file indented "
        "with spaces, and the file patch's other hunks were written with tabs for the file's "
        "spaces without showing one width for a tab: its own lines do not show which spaces "
        "a tab stands for",
        hint="re-emit the patch with the file's own indentation (spaces)")


def _cut_off(hunk: Hunk) -> PatchError:
    """A hunk the input ended inside (Hunk.unfinished) whose old side does not reach the end
    of the file: lines after it may be missing."""
    return PatchError(
        "truncated_patch", f"the patch ends inside this hunk, with "
        f"{hunk.old_count} old lines in its header but fewer in its body; the hunk's lines do "
        "not reach the end of the file, so the rest of it looks cut off",
        details={"header": [hunk.old_count, hunk.new_count]})


def _cut_off_at_start(hunk: Hunk, start: int) -> PatchError:
    """A cut-off hunk (Hunk.unfinished, so held to the file's end) that also claims the
    file's start by git's rule (edges.py): its old lines end the file only from line
    ``start`` + 1 on, which is not its start, so no one place holds both claims (git applies
    a hunk claiming both edges only to the whole file)."""
    return PatchError(
        "truncated_patch", f"the patch ends inside this hunk, with "
        f"{hunk.old_count} old lines in its header but fewer in its body; the hunk starts at "
        f"line {hunk.old_start} with context, so it claims the file's start, but its lines "
        f"end the file only from line {start + 1} on",
        details={"header": [hunk.old_count, hunk.new_count]})


def _overlapping(earlier: list[int], number: int) -> PatchError:
    hunks = [*earlier, number]
    named = ", ".join(map(str, earlier))
    return PatchError("overlapping_edits", f"hunk {number} changes lines that hunk"
                      f"{'s' if len(earlier) > 1 else ''} {named} of this file also "
                      "change", details={"hunks": hunks})


class _Reading(NamedTuple):
    """A hunk as placement reads it: its sides; the line (of the original file) its number
    points to, as written and moved by the hunks before it; whether its old side must end
    at the file's end; whether it has no old side in a non-empty file."""

    sides: Sides
    hints: tuple[int | None, int | None]
    at_end: bool
    no_context: bool


class _Placed(NamedTuple):
    """Where a hunk goes: its first line in the current and the original file, the level
    it matched at, the sides the ladder read, the tolerances so far, and what chose it."""

    start: int
    original: int
    level: int
    sides: Sides
    tolerated: list[str]
    by_hint: bool
    by_anchor: bool


def _judged_elsewhere(message: str, refused: Unplaced) -> PatchError:
    """The judge's refusal of a placement (salvage/judge.py): ``context_not_found``, with its
    note and the lines it names as evidence."""
    return PatchError("context_not_found", message,
                      hint="re-read the file where the hunk was written for and send its lines "
                      "as they are now",
                      details={"evidence": {"note": refused.note, "lines": refused.lines[:50]}})
