"""The three-way rescue, run by the plan: which version of a file a file patch was written
against, and what merging it with the current text gives.

The plan calls it in two cases:

- a hunk's old side is nowhere in the current text (``context_not_found``), or only where its
  indentation maps to the file's in no one way (``indentation_mismatch``): the first other
  version the whole file patch applies to is the base;
- every hunk was placed, but some only at a loose level (``whitespace`` or ``punctuation``),
  or by their context away from a file edge they claim by git's rules (a hunk starting at
  line 1 with context, or with context and none after its changes: match_beginning and
  match_end): a version where each of those hunks matches at a stricter level, or at its
  edge, is better evidence of the place the patch meant than a look-alike block or a copy
  of the context that the agent's own edit moved off the edge, so it is the base and the
  merge decides.

Base = that version, ours = the current text, theirs = base + the file patch, merged by the
target's three-way text merge (threeway.KnownVersions, libgit2). Only the ``three_way``
outcome is written: a clean merge, or a refusal (``merge_conflict``; ``already_applied`` when
the current text already holds the patch's change). When no version takes the file patch, the
planner's last rungs (salvage.py) may still place it by the lines the model got right.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from ..errors import PatchError
from .match import LEVELS, WHITESPACE
from .model import Diagnostic, FilePatch
from .threeway import KnownVersions, Version, conflict_error, conflicts, marker_size_for

if TYPE_CHECKING:
    from .plan import FileChange, HunkResult


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
    applies to; None when none takes it (the planner's last rungs, salvage.py, may then)."""
    return _merge_from(fp, change, ours, three_way, reverse, None)


def rescue_loose(fp: FilePatch, change: FileChange, ours: bytes, three_way: KnownVersions,
                 reverse: bool, placed: list[HunkResult]) -> FileChange | None:
    """Every hunk was placed in ``ours`` (``placed``), some only at a loose level or off a file
    edge they claim: merge from the first version where each of those matches at a stricter
    level or at its edge (_stricter); None (the placement stands) when no version does. A
    conflicting merge is refused even when it conflicts over the very lines the loose hunks
    matched (the agent re-indented them): the patch was written against that version, and
    git's merge is the judge of two edits."""
    return _merge_from(fp, change, ours, three_way, reverse, placed)


def _merge_from(fp: FilePatch, change: FileChange, ours: bytes, three_way: KnownVersions,
                reverse: bool, loose: list[HunkResult] | None) -> FileChange | None:
    from .plan import _apply_hunks

    assert fp.old_path is not None
    tried = {ours}
    for version in three_way.versions(fp, fp.old_path):
        if version.content in tried:
            continue
        tried.add(version.content)
        try:
            theirs, results, notes = _apply_hunks(fp, version.content, reverse)
        except PatchError:
            continue
        if loose is not None and not _stricter(results, loose):
            continue
        size = marker_size_for(version.content, ours, theirs)
        merged = three_way.merge(version.content, ours, theirs, size)
        if merged.clean and merged.content == ours:  # e.g. a patch against HEAD, re-sent
            raise _applied(version, reverse, "merged with the current text it changes nothing")
        if not merged.clean and _holds_change(three_way, version.content, ours, theirs, size):
            raise _applied(version, reverse, "the current text holds its change already (undone "
                           "and done again by merging, it gives the current text back)")
        if not merged.clean:
            raise conflict_error(conflicts(merged.content, size), ours, version.label)
        for result in results:
            result.tolerances.append("three_way")
        change.after, change.hunks = merged.content, results
        change.three_way = {"base": version.label}
        if version.blob is not None:
            change.three_way["blob"] = version.blob
        change.diagnostics.extend(notes)
        why = "did not match the current text" if loose is None else _why_weak(loose)
        change.diagnostics.append(Diagnostic(
            "three_way", f"the hunks {why}; merged from {version.label}, where they apply",
            fp.patch_line))
        return change
    return None


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


def _holds_change(three_way: KnownVersions, base: bytes, ours: bytes, theirs: bytes,
                  size: int) -> bool:
    """Does the current text already hold the patch's change (a re-send after the rescue
    merged it, when the lines around it changed too)? Undoing the change (theirs -> base)
    merges cleanly into ours and changes it, and redoing it on that result gives ours back."""
    undone = three_way.merge(theirs, ours, base, size)
    if not undone.clean or undone.content == ours:
        return False
    redone = three_way.merge(base, undone.content, theirs, size)
    return redone.clean and redone.content == ours


def _applied(version: Version, reverse: bool, why: str) -> PatchError:
    code = "not_applied" if reverse else "already_applied"
    return PatchError(code, f"the patch was written against {version.label}; {why}: "
                      + ("its edit is not in the file" if reverse
                         else "its edit is already there"))


def decide_repeat(fp: FilePatch, change: FileChange, ours: bytes, three_way: KnownVersions,
                  reverse: bool, refusal: PatchError) -> FileChange:
    """A hunk refused because its added lines repeat their neighbours (already_applied or,
    with -R, not_applied: the file reads the same applied or not). The history log can tell:
    when the newest pre-image this tool recorded for the path, with the (forward) patch
    applied, gives exactly the current text, this tool applied this patch and nothing
    changed the file since. Then a re-send is refused saying so, and -R is no re-send (a
    -R through this tool would have been recorded after it): it restores that pre-image.
    Otherwise ``refusal`` stands."""
    from .plan import HunkResult, _apply_hunks

    assert fp.old_path is not None
    newest = next((v for v in three_way.versions(fp, fp.old_path) if v.recorded), None)
    if newest is None:
        raise refusal
    forward = fp.reversed() if reverse else fp
    try:
        result, placed, notes = _apply_hunks(forward, newest.content, False)
    except PatchError:
        raise refusal from None
    if result != ours:
        raise refusal
    if not reverse:
        raise PatchError("already_applied", f"this tool applied this patch to "
                         f"{fp.old_path!r}: the newest pre-image it recorded for the path "
                         f"({newest.label}) with the patch applied is the file as it is now "
                         "(the added lines repeat their neighbours, but the history log tells)",
                         details={"history": newest.label})
    hunks, moved = [], 0
    for result_line, hunk, done in zip(placed, fp.hunks, forward.hunks, strict=True):
        hunks.append(HunkResult(result_line.index, hunk.old_start,
                                result_line.applied_line + moved, list(result_line.tolerances)))
        moved += done.added - done.removed
    change.after, change.hunks = newest.content, hunks
    change.diagnostics.extend(notes)
    change.diagnostics.append(Diagnostic(
        "undone_from_history", "the lines the reversed patch puts back repeat their "
        f"neighbours; the history log shows this tool applied the patch to {newest.label}, "
        "and the file is still its result: that pre-image was restored", fp.patch_line))
    return change


def refuse_if_applied_before(fp: FilePatch, ours: bytes, three_way: KnownVersions,
                             reverse: bool) -> None:
    """A hunk was placed away from its line number while its new side sits elsewhere,
    farther from it (a re-send after an edit moved a hint-placed copy more than half-way to
    another): refuse if the history log shows this tool applied this very file patch to the
    path (one recorded pre-image, patched, is the next recorded one, or the current file).
    Without such a record nothing tells a re-send from a fresh patch, and it applies."""
    from .plan import _apply_hunks

    assert fp.old_path is not None
    later = ours
    for version in three_way.versions(fp, fp.old_path):
        if not version.recorded:
            continue
        try:
            result = _apply_hunks(fp, version.content, reverse)[0]
        except PatchError:
            result = None
        if result == later:
            code = "not_applied" if reverse else "already_applied"
            raise PatchError(code, f"this tool applied this patch to {fp.old_path!r} before "
                             f"(to {version.label}); its old lines, found now away from its "
                             "line number, are another copy, and its new lines are elsewhere "
                             "in the file", details={"history": version.label})
        later = version.content

