"""Plan a whole patch in memory: every hunk of every file matched, nothing written.

The planner reads pre-images through a callable the target supplies, so it works the same for
the working tree, the index and a commit. Any failure raises a located PatchError; a Plan
exists only when the entire patch would apply. Every file patch is planned before it raises,
so the refusal carries every other one (``PatchError.more``): one round tells what to fix.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

from ...errors import PatchError, first_of, let_go
from ..change import FileChange, Plan, Reader, SourceFile
from ..model import FileKind, FilePatch, Patch
from ..place.match import one_search_budget
from ..threeway import KnownVersions
from . import applied
from .expect import check_expected, expected_digests
from .files import plan_file


def plan_patch(patch: Patch, read: Reader, *, reverse: bool = False,
               expect_sha256: Mapping[str, str] | None = None,
               progress: Callable[[str, int, int], None] | None = None,
               keep_preimages: bool = True,
               on_planned: Callable[[FileChange], None] | None = None,
               three_way: KnownVersions | None = None, every_refusal: bool = True,
               reject: bool = False, record: bool = True,
               history: KnownVersions | None = None) -> Plan:
    """Match every hunk against the pre-images ``read`` returns; raise the first refusal,
    with (``every_refusal``, the default) every other refusal of the patch in its ``more``,
    in patch order: each file patch is planned, except those of a path a refused one
    changes first (they apply to what it leaves: its refusal names them). False stops at
    the first refusal (--no-atomic).

    ``expect_sha256`` maps paths to the sha256 (hex) their pre-image must have, "" for "must
    not exist"; it is checked before anything else (expect.py). ``progress`` is
    called as ``progress("planning", files_done, files_total)`` after each file.
    ``keep_preimages=False`` drops each pre-image's content once its file is planned (its
    mode and token stay), for a target that can read it again: a large patch then never
    holds every old file in memory at once. ``on_planned(change)`` is called with each file's
    change as soon as it is planned (a target may stage it then, and let go of its content),
    its history log digest marked first when the plan is to be recorded.
    Every search of the call (each file patch, each version the rescue tries, each pass of
    the last rungs) spends from one budget (match.one_search_budget): past it, the file
    patch searching then and every one after it are refused with search_too_costly.
    ``three_way`` supplies a file's other versions and a merge for the three-way rescue of a
    file patch whose old side is not in the current text (threeway.py); None turns it off.
    ``reject`` (--reject): a file patch refused for some of its hunks applies without them
    (files.plan_file), and the plan holds the ``.rej`` files that list them (reject.py).
    ``record=False``: nothing will write the plan (--check), so its changes are not given the
    digests the history log records (resend.py; hashing loads OpenSSL, which a --check's
    start-up need not). ``history``: the versions whose history log tells a re-send, when
    ``three_way`` is None (--no-3way: no merge, but re-sends are still refused); default
    ``three_way``'s. A file patch the parser held refused (``FilePatch.unsupported``: a
    binary one, a mode change alone, a path with a tab) is refused before anything is read.
    """
    held = [fp.unsupported for fp in patch.files if fp.unsupported is not None]
    if held:  # a file patch holon-git reads but does not apply (parse/left_out.py)
        raise first_of(held)
    with one_search_budget():
        return _plan_within_budget(patch, read, reverse, expect_sha256, progress,
                                   keep_preimages, on_planned, three_way, every_refusal, reject,
                                   record, history)


def _plan_within_budget(patch: Patch, read: Reader, reverse: bool,
                        expect_sha256: Mapping[str, str] | None,
                        progress: Callable[[str, int, int], None] | None, keep_preimages: bool,
                        on_planned: Callable[[FileChange], None] | None,
                        three_way: KnownVersions | None, every_refusal: bool, reject: bool,
                        record: bool, history: KnownVersions | None) -> Plan:
    check_expected(expected_digests(expect_sha256 or {}), read, every=every_refusal)
    log = applied.NO_LOG
    history = three_way if history is None else history
    planning_read = read
    if history is not None:
        kept: dict[str, SourceFile | None] = {}
        log = applied.refuse_a_recorded_resend(patch, _keeping(read, kept), reverse, history,
                                               RECORDED_FILES)
        planning_read = _reusing(read, kept)
        if record and on_planned is not None and len(patch.files) <= RECORDED_FILES:
            from .resend import digests_first

            # the history log's digests, taken before the target stages (and may let go
            # of) each new content; those the re-send check took are not taken again
            on_planned = digests_first(patch, reverse, on_planned, log.digests)
    try:
        plan = _plan_patch(patch, planning_read, reverse, progress, keep_preimages, on_planned,
                           three_way, log, every_refusal, reject)
    except PatchError as err:
        # a merge conflict while the whole patch, reversed, applies: its change is in (one
        # refusal, for the whole patch)
        refusal = applied.after_conflict(err, reverse, lambda: _reverse_applies(patch, read,
                                                                                reverse))
        if refusal is None:
            raise
        raise refusal from None
    left_out = set()
    if reject:
        from .reject import reject_files

        plan.rejects = reject_files(plan.receipt_files, read, reverse)
        left_out = {path for change in plan.receipt_files if change.rejected
                    for path in (change.old_path, change.new_path)}
        written = [c for c in plan.changes if not _unchanged(c)]
        if len(written) != len(plan.changes):
            plan.file_patches, plan.changes = plan.receipt_files, written
    if record and history is not None and len(plan.changes) <= RECORDED_FILES:
        from .resend import mark_digests

        # a file the patch was applied to only in part is no record of the patch
        mark_digests(patch, reverse, [c for c in plan.changes if c.path not in left_out],
                     log.digests)
    return plan


def _keeping(read: Reader, kept: dict[str, SourceFile | None]) -> Reader:
    """``read``, keeping what it read in ``kept``."""
    def keep(path: str) -> SourceFile | None:
        kept[path] = got = read(path)
        return got

    return keep


def _reusing(read: Reader, kept: dict[str, SourceFile | None]) -> Reader:
    """``read``, answering each path's first read with what ``kept`` holds of it (the re-send
    check read the file already, with nothing written since: a large file is read once per
    plan, not twice), and letting go of it then."""
    if not kept:
        return read

    def reuse(path: str) -> SourceFile | None:
        if path in kept:
            return kept.pop(path)
        return read(path)

    return reuse


def _unchanged(change: FileChange) -> bool:
    """A file patch whose every hunk --reject left out: nothing to write to the file."""
    before = change.before
    return (change.kind is FileKind.MODIFY and bool(change.rejected) and before is not None
            and change.after == before.content and change.mode == before.mode)


RECORDED_FILES = 64  # the history log records patches of at most this many files


def _reverse_applies(patch: Patch, read: Reader, reverse: bool) -> bool:
    """Would the patch, reversed, apply to the current text (no rescue)?"""
    try:
        _plan_patch(patch.reversed(), read, not reverse, None, True, None, None, applied.NO_LOG,
                    False, False)
    except PatchError:
        return False
    return True


def _plan_patch(patch: Patch, read: Reader, reverse: bool,
                progress: Callable[[str, int, int], None] | None, keep_preimages: bool,
                on_planned: Callable[[FileChange], None] | None,
                three_way: KnownVersions | None, log: applied.LogSays, every_refusal: bool,
                reject: bool) -> Plan:
    """``log``: what the history log says of the patch (applied.refuse_a_recorded_resend)."""
    if shares_a_path(patch.files):
        from .sequence import plan_sequence  # only then: start-up counts

        # the three-way rescue knows the target's versions of a path: only a file patch
        # that reads the target's own file (not an earlier file patch's result) may use it
        changes, steps = plan_sequence(
            patch, read, lambda fp, reader, earlier: plan_file(
                fp, reader, reverse, _versions_for(three_way, earlier, reverse), log, reject),
            progress,
            every_refusal)
        for change in changes:
            if not keep_preimages and change.before is not None:
                change.before = SourceFile(None, change.before.mode, change.before.token)
        return Plan(changes, list(patch.diagnostics), patch.format, steps)
    changes = []
    refusals: list[PatchError] = []
    total = len(patch.files)
    for done, fp in enumerate(patch.files, 1):
        try:
            change = plan_file(fp, read, reverse, three_way, log, reject)
        except PatchError as err:
            if not every_refusal:
                raise
            let_go(err)  # kept until every file is planned: not the frames it was raised in
            refusals.append(err)
            changes.clear()  # nothing will be written: hold no planned content
        else:
            if not refusals:
                if not keep_preimages and change.before is not None:
                    change.before = SourceFile(None, change.before.mode, change.before.token)
                if on_planned is not None:
                    on_planned(change)
                changes.append(change)
        if progress is not None:
            progress("planning", done, total)
    if refusals:
        raise first_of(refusals)
    return Plan(changes, list(patch.diagnostics), patch.format)


def _versions_for(three_way: KnownVersions | None, earlier: tuple[FilePatch, ...] | None,
                  reverse: bool) -> KnownVersions | None:
    """The versions the rescue may merge a file patch of a sequence from: the target's, for
    one that reads the target's own file; for an edit after other edits of its file, the
    target's versions with those edits replayed on them (replayed.py); else none."""
    if three_way is None or earlier is None:
        return None
    if not earlier:
        return three_way
    from .replayed import ReplayedVersions  # edits by their text only

    return ReplayedVersions(three_way, earlier, reverse)


def shares_a_path(files: list[FilePatch]) -> bool:
    """Does a path appear in more than one file patch (so they apply in sequence)?"""
    named = [path for fp in files for path in fp.paths]
    return len(named) != len(set(named))
