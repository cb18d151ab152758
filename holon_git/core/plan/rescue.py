"""The three-way rescue, run by the plan: which version of a file a file patch was written
against, and what merging it with the current text gives.

The plan calls it in these cases:

- a hunk's old side is nowhere in the current text (``context_not_found``), or only where its
  indentation maps to the file's in no one way (``indentation_mismatch``): the first other
  version the whole file patch applies to is the base;
- every hunk was placed, but some only at a loose level (``whitespace`` or ``punctuation``),
  or by their context away from a file edge they claim by git's rules (a hunk starting at
  line 1 with context, or with context and none after its changes: match_beginning and
  match_end): a version where each of those hunks matches at a stricter level, or at its
  edge, is better evidence of the place the patch meant than a look-alike block or a copy
  of the context that the agent's own edit moved off the edge, so it is the base and the
  merge decides;
- some hunks' changes are in the current text already and others are not (an agent re-sent
  its whole change since HEAD with one new hunk: ``rescue_partly_applied``): the first other
  version the whole file patch applies to is the base, and the hunks already in are reported.
  When every hunk is in, the change is, and the refusal stands (applied.py), unless that
  reading rests on the weakest evidence and a merge contradicts it (``_merge_telling``);
- a hunk's added lines repeat their neighbours, and the history log did not decide it
  (``rescue_repeat``);
- every hunk was placed, but one only by its line number among copies of its old side, or
  the patch's index line names a blob the repository has that is not the current text
  (``rescue_numbers``, issue 43): line numbers fit the version they were written against,
  not a working tree an edit has shifted since. A version where the numbers chose (a hunk
  sits at its line number there, and, for the named blob, one among copies) is the base and
  the merge decides; and when a hunk's copies are not told apart in the current text (its
  number points at none of them: ``rescue_copies``), a version where its number points
  exactly at one is;
- a hunk with no context line (``diff -U0``) that nothing places in the current text by its
  line numbers, because the patch's index line names another blob (``rescue_bare``, issue 43):
  that blob, when the repository has it as one of the path's versions, is the base, the
  hunks planned there by their numbers (the patch's own word says they are that blob's), and
  the merge decides, as for a hunk with context; with no index line, every version the
  repository holds (the index, HEAD, HEAD's recent history) where a context-less hunk's
  removed lines sit at its numbers (any, for an insertion) is a reading, and the hunk
  placed in the current text stands only when each, made there by its numbers and merged,
  gives the same file (``confirm_numbers``), else it is refused; with no other version to
  weigh, nothing contradicts the numbers and the hunk stands by them;
  its removed lines found more than once are merged from the versions where its number
  points exactly at one copy (``rescue_copies``).

Base = that version, ours = the current text, theirs = base + the file patch, merged by the
target's three-way text merge (threeway.KnownVersions, libgit2). Only the ``three_way``
outcome is written: a clean merge, or a refusal (``merge_conflict``; ``already_applied`` when
the current text already holds the patch's change). When no version takes the file patch, the
ladder's last rungs (place/salvage/) may still place it by the lines the model got right.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace
from functools import partial

from ...errors import PatchError, let_go
from ..change import FileChange, HunkResult
from ..model import REMOVE, Diagnostic, FilePatch
from ..place.match import LEVELS, WHITESPACE, split_lines
from ..threeway import KnownVersions, conflict_error, conflicts, marker_size_for
from . import applied
from .hunks import apply_hunks, hunks_already_in


def level_of(result: HunkResult) -> int:
    """The comparison level a hunk was placed at (0: exact), from its tolerances."""
    return max((LEVELS.index(t) for t in result.tolerances if t in LEVELS), default=0)


def _weak(result: HunkResult) -> bool:
    """Was the hunk placed on weak evidence: loosely, or off a file edge it claims?"""
    return result.off_edge or level_of(result) >= WHITESPACE


def weakly_placed(results: Sequence[HunkResult]) -> bool:
    return any(map(_weak, results))


def rescue(fp: FilePatch, change: FileChange, ours: bytes, three_way: KnownVersions,
           reverse: bool) -> FileChange | None:
    """The file patch's old side is not in ``ours``: merge from the first version it
    applies to; None when none takes it (the ladder's last rungs, place/salvage/, may
    then)."""
    return _merge_from(fp, change, ours, three_way, reverse, None,
                       "the hunks did not match the current text")


def rescue_partly_applied(fp: FilePatch, change: FileChange, ours: bytes,
                          three_way: KnownVersions | None, reverse: bool,
                          refusal: PatchError) -> FileChange:
    """A hunk's change is in ``ours`` already (``refusal``): when every hunk's is, the
    refusal stands; when only some are, merge from the first version the whole file patch
    applies to, reporting the hunks already in (a clean merge gives the patch's intended file
    exactly: the changes both sides made are taken once), or refuse: ``merge_conflict``; when
    no version takes the patch, the refusal of a hunk that is not in and does not place
    either, else ``partly_applied`` (the rest would place, but without a version to merge
    from nothing checks what the hunk rules read as being in)."""
    there, other = hunks_already_in(fp, ours, reverse)
    if applied.wholly_in(fp, there):
        if three_way is not None and applied.merge_may_tell(refusal):
            told = _merge_telling(fp, change, ours, three_way, reverse, refusal)
            if told is not None:
                return told
        raise refusal
    merged = None if three_way is None else _merge_from(
        fp, change, ours, three_way, reverse, None,
        f"{_listed(there)} {'were' if len(there) > 1 else 'was'} "
        f"{'not in the current text' if reverse else 'in the current text already'}, the rest "
        "not")
    if merged is None:
        raise other or applied.partly_applied_error(fp, there, reverse)
    for result in merged.hunks:
        result.already_applied = result.index in there
    merged.diagnostics.append(_already_in(fp, there, reverse))
    return merged


def rescue_repeat(fp: FilePatch, change: FileChange, ours: bytes, three_way: KnownVersions,
                  reverse: bool, refusal: PatchError) -> FileChange | None:
    """A hunk whose added lines repeat their neighbours, which the history log did not
    decide (applied.repeat_by_history): merge from the first other version the whole file
    patch applies to. A clean merge that changes the current text is applied, unless it
    holds a line more (or less) often than both sides (applied.refuse_unless_merge_tells:
    ``refusal`` stands); one that changes nothing is already_applied; a conflict is
    merge_conflict. None when no version takes the patch."""

    def trusted(merged: bytes, theirs: bytes) -> None:
        applied.refuse_unless_merge_tells(refusal, merged, ours, theirs)

    return _merge_from(fp, change, ours, three_way, reverse, None,
                       "a hunk's added lines repeat the lines beside them, so the current "
                       "text alone cannot tell whether its change is in", trusted)


def _merge_telling(fp: FilePatch, change: FileChange, ours: bytes, three_way: KnownVersions,
                   reverse: bool, refusal: PatchError) -> FileChange | None:
    """The hunk rules read every hunk's change as in the file, on the weakest evidence (the
    old side nowhere: applied.merge_may_tell). A clean merge from the first other version the
    whole file patch applies to, that changes the current text (and does not take one change
    for two: applied.refuse_unless_merge_tells), says it is not: it is applied. A merge
    that changes nothing, or conflicts (a re-send next to the agent's later edits looks so),
    leaves ``refusal`` standing. None when no version takes it."""

    def trusted(merged: bytes, theirs: bytes) -> None:
        applied.refuse_unless_merge_tells(refusal, merged, ours, theirs)

    try:
        return _merge_from(fp, change, ours, three_way, reverse, None,
                           "the hunks' new lines are in the current text, but their old lines "
                           "are not, and the merge changes it: the change is not in", trusted)
    except PatchError as err:
        if err.code not in ("merge_conflict", refusal.code):
            raise
        raise refusal from None  # the merge does not contradict the hunk rules: their words


def _listed(hunks: Sequence[int]) -> str:
    return ("hunk " if len(hunks) == 1 else "hunks ") + ", ".join(map(str, hunks))


def _already_in(fp: FilePatch, there: Sequence[int], reverse: bool) -> Diagnostic:
    verb = "were" if len(there) > 1 else "was"
    return Diagnostic(
        "hunks_already_applied", f"{_listed(there)} {verb} "
        f"{'not in the file (nothing to undo there)' if reverse else 'in the file already'}: "
        "the patch repeats a change made before (an agent's whole change since HEAD, sent "
        "again with a new hunk); the rest was merged", fp.patch_line)


def rescue_loose(fp: FilePatch, change: FileChange, ours: bytes, three_way: KnownVersions,
                 reverse: bool, placed: list[HunkResult]) -> FileChange | None:
    """Every hunk was placed in ``ours`` (``placed``), some only at a loose level or off a file
    edge they claim: merge from the first version where each of those matches at a stricter
    level or at its edge (_stricter); None (the placement stands) when no version does. A
    conflicting merge is refused even when it conflicts over the very lines the loose hunks
    matched (the agent re-indented them): the patch was written against that version, and
    git's merge is the judge of two edits."""
    return _merge_from(fp, change, ours, three_way, reverse, placed,
                       "the hunks " + _why_weak(placed))


def rescue_numbers(fp: FilePatch, change: FileChange, ours: bytes, three_way: KnownVersions,
                   reverse: bool, placed: list[HunkResult]) -> FileChange | None:
    """Every hunk was placed in ``ours`` (``placed``), but the placement leans on line numbers
    that may be stale (files._leans_on_numbers): merge from a version they fit, None (the
    placement stands) when no version is one. A version fits when each hunk placed by its
    line number in ``ours`` sits at its line number there; the blob the patch's index line
    names fits when a hunk's copies were told apart by their line numbers there (the reading
    "the patch was written against the current text" is then no stronger than the merge: a
    copy the edit since made unique may be the other one)."""
    numbered = [result.by_line_number for result in placed]

    def fits(results: Sequence[HunkResult], named: bool) -> bool:
        if any(numbered) and all(r.offset == 0 for r, n in zip(results, numbered, strict=True)
                                 if n):
            return True
        return named and any(r.by_line_number for r in results)

    return _merge_from(fp, change, ours, three_way, reverse, None,
                       "the hunks' places were told by their line numbers", fits=fits,
                       only_named=not any(numbered))


def rescue_stale(fp: FilePatch, change: FileChange, ours: bytes, three_way: KnownVersions,
                 reverse: bool, placed: list[HunkResult], refusal: PatchError) -> FileChange:
    """Every hunk was placed in ``ours`` (``placed``), some other than exactly, and a version
    the repository holds places them exactly (stale.py): the judge, weighing the stale
    reading from it, refused the placement (``refusal``: the edit lands elsewhere, or next to
    a change made since). Merge from the first version the whole file patch applies to, as
    for a refusal of the hunks (every other version that takes it agreeing); a conflict is
    ``merge_conflict``. ``refusal`` stands when none takes it."""
    why = ("the hunks " + _why_weak(placed) if weakly_placed(placed) else
           "the hunks matched the current text only away from their line numbers, and a "
           "version the repository holds places them exactly")
    merged = _merge_from(fp, change, ours, three_way, reverse, None, why)
    if merged is None:
        raise refusal
    return merged


def rescue_copies(fp: FilePatch, change: FileChange, ours: bytes, three_way: KnownVersions,
                  reverse: bool) -> FileChange | None:
    """A hunk's old side occurs several times in ``ours`` and its line number points exactly
    at none of them (``ambiguous_context``): an edit above the copies moved them since the
    numbers were read. Merge from a version where each hunk told from its copies by its
    number sits exactly at it (as ``rescue_numbers`` asks of a copy the number chose in
    ``ours``), every such version agreeing (``_merge_from``); None when none is one."""

    def fits(results: Sequence[HunkResult], named: bool) -> bool:
        told = [r for r in results if r.by_line_number]
        return bool(told) and all(r.offset == 0 for r in told)

    if not _bare_unnamed(fp):
        return _merge_from(fp, change, ours, three_way, reverse, None,
                           "the hunks' old lines occur more than once in the current text "
                           "and their line numbers point at none of the copies", fits=fits)
    merged = _merge_from(fp, change, ours, three_way, reverse, None,
                         "a hunk with no context lines has old lines that occur more than "
                         "once in the current text, and nothing in the patch says which "
                         "version its line numbers were read off", fits=fits,
                         plan=_trusting_numbers)
    if merged is not None and merged.three_way is not None:
        _ours_agrees(fp, ours, reverse, merged.after, merged.three_way["base"])
    return merged


def _bare_unnamed(fp: FilePatch) -> bool:
    """A file patch with a hunk with no context line and nothing naming the version its
    numbers were read off (no index line, no --unidiff-zero): each version where such a
    hunk's removed lines sit exactly at its numbers is a reading (``confirm_numbers``)."""
    from ..place.numbers import bare  # a -U0 hunk only

    return (not fp.numbers_given and (fp.blob_ids is None or not fp.blob_ids[0].strip("0"))
            and any(bare(hunk) and hunk.old_start is not None for hunk in fp.hunks))


def _trusting_numbers(fp: FilePatch, content: bytes, reverse: bool
                      ) -> tuple[bytes, list[HunkResult], list[Diagnostic]]:
    """The file patch planned on ``content`` read as the version its numbers were read off:
    a context-less hunk's copies told apart by its line number there."""
    return apply_hunks(replace(fp, numbers_given=True), content, reverse)


def _ours_agrees(fp: FilePatch, ours: bytes, reverse: bool, merged: bytes | None,
                 base: str) -> None:
    """The current text is a reading too when a copy sits exactly at each context-less
    hunk's numbers there: its edit must be the merge's, else the numbers read as two
    places (``merge_conflict``, naming both)."""
    try:
        here, results, _ = _trusting_numbers(fp, ours, reverse)
    except PatchError as err:
        let_go(err)
        return
    told = [r for r in results if r.by_line_number]
    if told and all(r.offset == 0 for r in told) and here != merged:
        raise PatchError(
            "merge_conflict", "a hunk with no context lines is told from the copies of its "
            f"old lines only by its line numbers, and they point at a copy both in {base} "
            "and in the current text, whose lines differ above it: read off either, they "
            "give two different edits, and nothing in the patch says which version it was "
            "written against", details={"base": base, "other_base": "the current text"},
            hint="re-read the file and send the hunk with a few unchanged lines around it")


Planner = Callable[[FilePatch, bytes, bool], tuple[bytes, list[HunkResult], list[Diagnostic]]]


def rescue_bare(fp: FilePatch, change: FileChange, ours: bytes, three_way: KnownVersions,
                reverse: bool) -> FileChange | None:
    """A hunk with no context line that nothing places in ``ours`` (an insertion, which only
    its line number would place) while the patch's index line names another blob than
    ``ours``: the numbers are that blob's, by the patch's own word. Merge from that blob, when
    the repository has it as one of the path's versions (git/versions.py), the hunks planned
    there by their numbers (``plan_by_numbers``); None when it has not (the refusal stands).
    A conflict is merge_conflict: a change next to the insertion since, which a hunk with no
    context cannot show."""
    return _merge_from(fp, change, ours, three_way, reverse, None,
                       "the hunks have no context lines and their line numbers are those of "
                       "the version the patch's index line names", only_named=True,
                       plan=plan_by_numbers)


def confirm_numbers(fp: FilePatch, change: FileChange, ours: bytes,
                    three_way: KnownVersions | None, reverse: bool) -> None:
    """A hunk with no context line (``diff -U0``) was placed in ``ours`` (``change``: an
    insertion by its line number, removed lines where they occur) and nothing says the
    numbers are ``ours``'s (no index line, no other hunk exactly at its own number, no
    --unidiff-zero). The readings the evidence allows are the versions the repository holds
    of the file (the index, HEAD, this tool's logged pre-images, the path's recent versions
    in HEAD's history: git/versions.py) where each such hunk's removed lines sit exactly at
    its numbers (any version, for a pure insertion): the numbers may have been read off any
    of them. A
    reading's edit is the file patch made there by its numbers and merged into ``ours``; the
    placement stands only when every reading's merge is clean and gives ``change.after``
    (a version equal to ``ours`` near the hunk does). A reading that conflicts refuses the
    hunk (``merge_conflict``: the file changed right beside it since, which a hunk with no
    context cannot show), one that merges to another text too (``ambiguous_context``: the
    numbers read as two places). Versions weighed, none of which the numbers fit while they
    do not fit ``ours`` either: refused (``unproven_numbers``). With no other version at all
    to weigh (a new file, one whose only version is the current text, no repository), the
    numbers stand: nothing contradicts them."""
    assert fp.old_path is not None
    by_number = _first_bare(fp, change)
    weighed = read = False  # another version weighed; one the numbers were read off
    tried = {_digest(ours)}
    for version in () if three_way is None else three_way.versions(fp, fp.old_path):
        if version.named or _digest(version.content) in tried:
            continue  # named: not without an index line
        tried.add(_digest(version.content))
        weighed = True
        try:
            theirs, results, _ = plan_by_numbers(fp, version.content, reverse)
        except PatchError as err:
            let_go(err)
            continue
        if not _at_numbers(fp, results, reverse):
            continue  # its removed lines are elsewhere there: not read off this version
        read = True
        assert three_way is not None
        size = marker_size_for(version.content, ours, theirs)
        merged = three_way.merge(version.content, ours, theirs, size)
        if merged.clean and merged.content == change.after:
            continue
        named = "the index" if version.label == "index" else version.label
        if not merged.clean:
            conflict = conflict_error(conflicts(merged.content, size), ours, version.label,
                                      (line.text for hunk in fp.hunks for line in hunk.lines))
            conflict.message += (" (the hunk has no context lines and no index line: its "
                                 f"line numbers may be those of {named}, where the lines "
                                 "beside it differ from the current text)")
            raise conflict
        where = (f"after line {by_number.applied_line}" if _insertion(fp, by_number)
                 else f"at line {by_number.applied_line}")
        raise PatchError(
            "ambiguous_context", "the hunk has no context lines and goes by its line numbers "
            f"alone: read off the current text they place it {where}, read off {named} "
            "(whose lines differ from the current text) elsewhere or beside other lines; "
            "which version they were read off, nothing in the patch says",
            hint=f"re-read lines {_around(by_number)} of the file and send the hunk with a few "
            "unchanged lines around it (or an index line naming the version it was written "
            "against)", hunk=by_number.index,
            patch_line=fp.hunks[by_number.index - 1].patch_line,
            details={"other_version": version.label})
    # With no other version to weigh (a new file, one whose only version is the current
    # text, no repository, --no-3way), nothing contradicts the numbers: the hunk stands as
    # the patch's own word places it. A fresh -U0 insertion (a model's, in a one-commit
    # repository) reads exactly as a stale one there; refusing both, as git does without
    # --unidiff-zero, refused the fresh ones real models send (issue 43: blocked by design).
    if not (reverse or read) and weighed and not _at_numbers(fp, change.hunks, reverse):
        inside = _inside(fp, change.hunks, len(split_lines(ours)))
        if inside is not None:
            raise unproven_numbers(fp, inside)


def unproven_numbers(fp: FilePatch, by_number: HunkResult) -> PatchError:
    """The refusal of a hunk with no context line whose numbers fit no version of the file
    the repository holds, the current text included: nothing says where it goes (`git
    apply` refuses such a hunk inside a file unless --unidiff-zero is given)."""
    why = "they fit no version of the file the repository holds, the current text included"
    message = ("the hunk has no context lines, so only its line numbers say where it goes, "
               "and nothing proves them: no index line, no other hunk of the file at its own "
               f"line number, and {why}; a file changed since the numbers were read would "
               "take the change at the wrong place, or beside lines it never saw")
    hint = (f"re-read lines {_around(by_number)} and send the hunk with a few unchanged lines "
            "around it (git diff -U3); if its line numbers were read off this very file, "
            "apply it with --unidiff-zero, as git apply requires")
    hunk, line = by_number.index, fp.hunks[by_number.index - 1].patch_line
    if _insertion(fp, by_number):  # an insertion only its number places, as item 6 says
        return PatchError("ambiguous_context", message, hint=hint, hunk=hunk, patch_line=line)
    return PatchError("context_not_found", message, hint=hint, hunk=hunk, patch_line=line)


def _inside(fp: FilePatch, results: Sequence[HunkResult], length: int) -> HunkResult | None:
    """The first hunk with no context line and with line numbers placed with lines of the
    file after it (``length`` lines): git applies one at the file's end without
    --unidiff-zero (its match_end), and refuses one inside the file."""
    from ..place.numbers import bare  # a -U0 hunk only

    for result in results:
        hunk = fp.hunks[result.index - 1]
        if not bare(hunk) or hunk.old_start is None:
            continue
        last = result.applied_line if _insertion(fp, result) \
            else result.applied_line - 1 + len(hunk.old_lines)
        if last < length:
            return result
    return None


def _insertion(fp: FilePatch, result: HunkResult) -> bool:
    return not any(line.kind == REMOVE for line in fp.hunks[result.index - 1].lines)


def _first_bare(fp: FilePatch, change: FileChange) -> HunkResult:
    """The result of the file patch's first hunk with no context line."""
    from ..place.numbers import bare  # a -U0 hunk only

    return next(r for r in change.hunks if bare(fp.hunks[r.index - 1]))


def _at_numbers(fp: FilePatch, results: Sequence[HunkResult], reverse: bool) -> bool:
    """Does each hunk with no context line and removed lines sit exactly at its line number
    in the version planned (``results``)? An insertion goes by its number anywhere (undoing,
    only an insertion is weighed: -R of a context-less deletion)."""
    from ..place.numbers import bare  # a -U0 hunk only

    if reverse:
        return True
    for result in results:
        hunk = fp.hunks[result.index - 1]
        if bare(hunk) and hunk.old_lines and result.offset not in (0, None):
            return False
    return True


def _around(result: HunkResult) -> str:
    return f"{max(result.applied_line - 3, 1)}-{result.applied_line + 3}"


def plan_by_numbers(fp: FilePatch, content: bytes, reverse: bool
                    ) -> tuple[bytes, list[HunkResult], list[Diagnostic]]:
    """The file patch planned on ``content``, a version its line numbers are known to belong
    to: by the ladder, and a context-less insertion that nothing anchors by its line number
    (salvage/zero.py), in a patch with no context at all or whose other hunks sit exactly at
    their own numbers there (``line_numbers_hold``). No other last rung: in the version the
    patch was written against, a hunk with context matches as written."""
    try:
        return apply_hunks(fp, content, reverse)
    except PatchError as err:
        if err.code != "ambiguous_context":
            raise
        if not fp.unidiff_zero:
            from ..place.salvage.zero import line_numbers_hold  # a -U0 hunk only

            if not line_numbers_hold(split_lines(content), fp.hunks):
                raise
            fp = replace(fp, unidiff_zero=True)
        let_go(err)
    after, results, notes = apply_hunks(fp, content, reverse, "lines", salvage=True)
    from ..place.ladder import LAST_RUNGS

    rungs = {rung.name for rung in LAST_RUNGS}
    for result in results:
        if rungs.intersection(result.tolerances):
            raise PatchError("context_not_found", "a hunk matched the version only by a "
                             "reading of part of its lines", hunk=result.index)
    return after, results, notes


def _merge_from(fp: FilePatch, change: FileChange, ours: bytes, three_way: KnownVersions,
                reverse: bool, loose: list[HunkResult] | None, why: str,
                trusted: Callable[[bytes, bytes], None] | None = None,
                fits: Callable[[Sequence[HunkResult], bool], bool] | None = None,
                only_named: bool = False, plan: Planner = apply_hunks) -> FileChange | None:
    """Merge from the first other version the whole file patch applies to (and, with
    ``loose``, where those hunks match more strictly; with ``fits``, a version it accepts;
    with ``only_named``, the blob the patch's index line names alone; ``plan`` plans it on
    a version);
    ``trusted(merged, theirs)`` may refuse a clean merge. None when no version takes the
    patch.

    Unless the patch's own index line names that version, every other version that takes the
    patch must merge to the same text: which one the patch was written against, nothing in
    it says, and merges from two of them that disagree (one conflicts where the other does
    not, as an edit next to the patch's may read as touching it from one base and not from
    the other) leave its edit uncertain: merge_conflict."""
    assert fp.old_path is not None
    tried = {_digest(ours)}  # digests, not contents: each version is let go once tried
    chosen: tuple[str, bytes] | None = None  # (label, merged text) of the merge taken
    for version in three_way.versions(fp, fp.old_path):
        if only_named and not version.named:
            continue  # only the blob the index line names can fit: none other is planned
        if _digest(version.content) in tried:
            continue
        tried.add(_digest(version.content))
        try:
            theirs, results, notes = plan(fp, version.content, reverse)
        except PatchError as err:
            let_go(err)
            continue
        if loose is not None and not _stricter(results, loose):
            continue
        if fits is not None and not fits(results, version.named):
            continue
        size = marker_size_for(version.content, ours, theirs)
        merged = three_way.merge(version.content, ours, theirs, size)
        if chosen is not None and merged.clean:
            if merged.content != chosen[1]:
                raise _disagree(chosen[0], version.label)
            continue
        if chosen is None:
            applied.refuse_if_merged_in(
                three_way, version, ours, theirs, merged, size, reverse,
                partial(applied.change_slides, fp, results, version.content))
        if not merged.clean:
            conflict = conflict_error(conflicts(merged.content, size), ours, version.label,
                                      (line.text for hunk in fp.hunks for line in hunk.lines))
            if chosen is not None:
                conflict.message += f" (merged from {chosen[0]}, it applies: the two disagree)"
                conflict.details["other_base"] = chosen[0]
            raise conflict
        if trusted is not None:
            trusted(merged.content, theirs)
        for result in results:
            result.tolerances.append("three_way")
        change.after, change.hunks = merged.content, results
        change.three_way = {"base": version.label}
        if version.blob is not None:
            change.three_way["blob"] = version.blob
        change.diagnostics.extend(notes)
        change.diagnostics.append(Diagnostic(
            "three_way", f"{why}; merged from {version.label}, where they apply",
            fp.patch_line))
        if version.named:
            return change
        chosen = version.label, merged.content
    return None if chosen is None else change


def _disagree(label: str, other: str) -> PatchError:
    return PatchError(
        "merge_conflict", f"the patch applies to two other versions of the file, {label} and "
        f"{other}, and merged with the current text from each they give two different texts: "
        "which one it was written against, nothing in it says",
        details={"base": label, "other_base": other},
        hint="re-read the file and make the patch against its current text")


def _digest(content: bytes) -> bytes:
    import hashlib  # loads OpenSSL: only when a rescue runs, not at start-up

    return hashlib.sha256(content).digest()


def _why_weak(placed: Sequence[HunkResult]) -> str:
    reasons = []
    levels = sorted({LEVELS[level_of(r)] for r in placed if level_of(r) >= WHITESPACE})
    if levels:
        reasons.append("matched the current text only with " + " or ".join(levels)
                       + " ignored")
    if any(r.off_edge for r in placed):
        reasons.append("matched the current text only away from the file's start or end, "
                       "which they claim")
    return "; ".join(reasons)


def _stricter(results: Sequence[HunkResult], placed: Sequence[HunkResult]) -> bool:
    """Does each hunk placed weakly in the current text match the version more strictly: at
    a stricter level when it was loose, at the file edge it claims (and no more loosely) when
    it was off that edge?"""
    for there, here in zip(results, placed, strict=True):
        if not _weak(here):
            continue
        at_edge = here.off_edge and not there.off_edge and level_of(there) <= level_of(here)
        if level_of(here) >= WHITESPACE and level_of(there) < level_of(here):
            continue
        if not at_edge:
            return False
    return True
