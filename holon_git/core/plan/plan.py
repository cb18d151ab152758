"""Plan a whole patch in memory: every hunk of every file matched, nothing written.

The planner reads pre-images through a callable the target supplies, so it works the same for
the working tree, the index and a commit. Any failure raises a located PatchError; a Plan
exists only when the entire patch would apply.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

from ...errors import PatchError
from ..change import FileChange, Plan, Reader, SourceFile
from ..model import FilePatch, Patch
from ..threeway import KnownVersions
from . import applied
from .expect import check_expected, expected_digests
from .files import plan_file


def plan_patch(patch: Patch, read: Reader, *, reverse: bool = False,
               expect_sha256: Mapping[str, str] | None = None,
               progress: Callable[[str, int, int], None] | None = None,
               keep_preimages: bool = True,
               on_planned: Callable[[FileChange], None] | None = None,
               three_way: KnownVersions | None = None) -> Plan:
    """Match every hunk against the pre-images ``read`` returns; raise on the first refusal.

    ``expect_sha256`` maps paths to the sha256 (hex) their pre-image must have, "" for "must
    not exist"; it is checked before anything else (expect.py). ``progress`` is
    called as ``progress("planning", files_done, files_total)`` after each file.
    ``keep_preimages=False`` drops each pre-image's content once its file is planned (its
    mode and token stay), for a target that can read it again: a large patch then never
    holds every old file in memory at once. ``on_planned(change)`` is called with each file's
    change as soon as it is planned (a target may stage it then, and let go of its content).
    ``three_way`` supplies a file's other versions and a merge for the three-way rescue of a
    file patch whose old side is not in the current text (threeway.py); None turns it off.
    """
    check_expected(expected_digests(expect_sha256 or {}), read)
    if three_way is not None:
        applied.refuse_a_recorded_resend(patch, read, reverse, three_way)
    try:
        plan = _plan_patch(patch, read, reverse, progress, keep_preimages, on_planned,
                           three_way)
    except PatchError as err:
        refusal = applied.after_conflict(err, reverse, lambda: _reverse_applies(patch, read,
                                                                                reverse))
        if refusal is None:
            raise
        raise refusal from None
    if three_way is not None and len(plan.changes) <= RECORDED_FILES:
        from .resend import mark_digests

        mark_digests(patch, reverse, plan.changes)
    return plan


RECORDED_FILES = 64  # the history log records patches of at most this many files


def _reverse_applies(patch: Patch, read: Reader, reverse: bool) -> bool:
    """Would the patch, reversed, apply to the current text (no rescue)?"""
    try:
        _plan_patch(patch.reversed(), read, not reverse, None, True, None, None)
    except PatchError:
        return False
    return True


def _plan_patch(patch: Patch, read: Reader, reverse: bool,
                progress: Callable[[str, int, int], None] | None, keep_preimages: bool,
                on_planned: Callable[[FileChange], None] | None,
                three_way: KnownVersions | None) -> Plan:
    if shares_a_path(patch.files):
        from .sequence import plan_sequence  # only then: start-up counts

        # the three-way rescue knows the target's versions of a path: only a file patch
        # that reads the target's own file (not an earlier file patch's result) may use it
        changes, steps = plan_sequence(
            patch, read, lambda fp, reader, untouched: plan_file(
                fp, reader, reverse, three_way if untouched else None), progress)
        for change in changes:
            if not keep_preimages and change.before is not None:
                change.before = SourceFile(None, change.before.mode, change.before.token)
        return Plan(changes, list(patch.diagnostics), patch.format, steps)
    changes = []
    total = len(patch.files)
    for fp in patch.files:
        change = plan_file(fp, read, reverse, three_way)
        if not keep_preimages and change.before is not None:
            change.before = SourceFile(None, change.before.mode, change.before.token)
        if on_planned is not None:
            on_planned(change)
        changes.append(change)
        if progress is not None:
            progress("planning", len(changes), total)
    return Plan(changes, list(patch.diagnostics), patch.format)


def shares_a_path(files: list[FilePatch]) -> bool:
    """Does a path appear in more than one file patch (so they apply in sequence)?"""
    named = [path for fp in files for path in fp.paths]
    return len(named) != len(set(named))
