"""Plan a whole patch in memory: every hunk of every file matched, nothing written.

The planner reads pre-images through a callable the target supplies, so it works the same for
the working tree, the index and a commit. Any failure raises a located PatchError; a Plan
exists only when the entire patch would apply.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import replace

from ...errors import PatchError
from .. import paths
from ..change import EXECUTABLE, REGULAR, FileChange, Plan, Reader, SourceFile
from ..model import ADD, Diagnostic, FileKind, FilePatch, Patch
from ..place.match import KEYS, LEVELS, near_miss, split_lines
from ..place.splice import new_window
from ..threeway import KnownVersions
from . import applied
from .hunks import apply_hunks

_SHA256_HEX = re.compile(r"[0-9a-f]{64}")


def plan_patch(patch: Patch, read: Reader, *, reverse: bool = False,
               expect_sha256: Mapping[str, str] | None = None,
               progress: Callable[[str, int, int], None] | None = None,
               keep_preimages: bool = True,
               on_planned: Callable[[FileChange], None] | None = None,
               three_way: KnownVersions | None = None) -> Plan:
    """Match every hunk against the pre-images ``read`` returns; raise on the first refusal.

    ``expect_sha256`` maps paths to the sha256 (hex) their pre-image must have, "" for "must
    not exist"; it is checked before anything else (see check_expected). ``progress`` is
    called as ``progress("planning", files_done, files_total)`` after each file.
    ``keep_preimages=False`` drops each pre-image's content once its file is planned (its
    mode and token stay), for a target that can read it again: a large patch then never
    holds every old file in memory at once. ``on_planned(change)`` is called with each file's
    change as soon as it is planned (a target may stage it then, and let go of its content).
    ``three_way`` supplies a file's other versions and a merge for the three-way rescue of a
    file patch whose old side is not in the current text (threeway.py); None turns it off.
    """
    check_expected(expect_sha256 or {}, read)
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


def check_expected(expect_sha256: Mapping[str, str], read: Reader) -> None:
    """Stale-file check: every listed path's pre-image hashes to the expected sha256 hex digest
    ("" asserts the path does not exist), or the whole patch is refused with ``stale_file``."""
    if not expect_sha256:
        return
    import hashlib  # loads OpenSSL: only when asked for

    for raw_path, raw_expected in expect_sha256.items():
        path = paths.normalize(raw_path)
        expected = raw_expected.strip().lower()
        if expected and not _SHA256_HEX.fullmatch(expected):
            raise PatchError("usage_error", f"expected sha256 for {raw_path!r} is not 64 hex "
                             f"digits: {raw_expected!r}", path=path,
                             hint="give the sha256 as 64 hex digits, or '' for 'must not "
                             "exist' (PATH=HEX)")
        existing = read(path)
        actual = "" if existing is None else hashlib.sha256(existing.data).hexdigest()
        if actual != expected:
            state = "does not exist" if existing is None else f"has sha256 {actual}"
            wanted = "not to exist" if not expected else f"to have sha256 {expected}"
            raise PatchError("stale_file", f"{path!r} {state}; the patch expects it {wanted}",
                             path=path,
                             details={"path": path, "expected": expected, "actual": actual})


def plan_file(fp: FilePatch, read: Reader, reverse: bool,
              three_way: KnownVersions | None = None) -> FileChange:
    try:
        if fp.kind is FileKind.ADD:
            return _plan_add(fp, read, reverse)
        if fp.kind is FileKind.DELETE:
            return _plan_delete(fp, read, None if reverse else three_way)
        return _plan_modify(fp, read, reverse, three_way)
    except PatchError as err:
        raise err.located(path=fp.path, patch_line=fp.patch_line) from None


def _change(fp: FilePatch, before: SourceFile | None, after: bytes | None,
            mode: int | None) -> FileChange:
    return FileChange(
        fp.kind, fp.old_path, fp.new_path, before, after, mode,
        ignored_metadata=list(fp.ignored_metadata), diagnostics=list(fp.diagnostics),
        added=sum(h.added for h in fp.hunks), removed=sum(h.removed for h in fp.hunks),
    )


def _plan_add(fp: FilePatch, read: Reader, reverse: bool = False) -> FileChange:
    path = fp.path
    lines = [line for hunk in fp.hunks for line in hunk.lines]
    ends_newline = not (fp.hunks and fp.hunks[-1].new_no_newline)
    content = b"".join(new_window([], lines, added_eol=None, fill_eol=lambda: b"\n", at_end=True,
                                  final_newline=ends_newline))
    existing = read(path)
    if existing is not None:
        applied.refuse_if_added(path, existing.data, content, reverse)
        raise PatchError("already_exists", f"cannot add {path!r}: it already exists")
    return _change(fp, None, content, EXECUTABLE if fp.executable else REGULAR)


def _missing(fp: FilePatch, path: str, doing: str) -> PatchError:
    """The refusal for a file patch whose file does not exist: ``not_found``, or, when a
    traditional diff named two files and git's rules chose this one, both names."""
    if fp.header_paths is not None:
        old, new = fp.header_paths
        return PatchError(
            "file_path_mismatch", f"'---' names {old!r} and '+++' names {new!r}; git's rules "
            f"choose {path!r}, which does not exist", path=path,
            hint="name the file to patch in both '---' and '+++' (to rename, use 'diff --git' "
            "with 'rename from' and 'rename to')",
            details={"old_header_path": old, "new_header_path": new, "chosen": path})
    return PatchError("not_found", f"cannot {doing} {path!r}: it does not exist", path=path)


def _plan_created(fp: FilePatch, read: Reader) -> FileChange:
    """A traditional diff's hunk with no old lines, for a file that does not exist: created,
    as git apply does (it patches the file instead when the file exists)."""
    change = _plan_add(replace(fp, kind=FileKind.ADD, old_path=None), read)
    change.diagnostics.append(Diagnostic(
        "missing_file_created", f"{fp.path!r} does not exist and the hunk has no old lines: "
        "the file was created, as git apply does for a traditional diff", fp.patch_line))
    return change


def _plan_delete(fp: FilePatch, read: Reader,
                 three_way: KnownVersions | None = None) -> FileChange:
    path = fp.path
    existing = read(path)
    if existing is None:
        if three_way is not None and fp.check_deleted_content:
            applied.refuse_if_deleted_already(fp, three_way)
        raise _missing(fp, path, "delete")
    if not fp.check_deleted_content:  # envelope '*** Delete File': whatever the file holds
        change = _change(fp, existing, None, None)
        change.removed = len(split_lines(existing.data))
        return change
    old = [line.text for hunk in fp.hunks for line in hunk.lines if line.kind != ADD]
    current = split_lines(existing.data)
    change = _change(fp, existing, None, None)
    for level, key in enumerate(KEYS):
        same_length = len(old) == len(current)
        if same_length and all(key(a) == key(b) for a, b in zip(old, current, strict=True)):
            if level:
                change.diagnostics.append(Diagnostic(
                    "tolerance", f"deletion body matched the file with {LEVELS[level]} "
                    "tolerance", fp.patch_line))
            return change
    from ..advice import deletion_mismatch  # a refusal only

    raise deletion_mismatch(path, old, current, near_miss(current, old, 0) if old else {})


def _plan_modify(fp: FilePatch, read: Reader, reverse: bool,
                 three_way: KnownVersions | None = None) -> FileChange:
    assert fp.old_path is not None and fp.new_path is not None
    existing = read(fp.old_path)
    if fp.kind is FileKind.RENAME:
        target = read(fp.new_path)
        if target is not None:
            applied.refuse_if_renamed(fp, existing is not None, reverse)
            raise PatchError("already_exists", f"cannot rename {fp.old_path!r} to "
                             f"{fp.new_path!r}: the destination already exists", path=fp.new_path)
    if existing is None:
        if fp.create_if_missing:
            return _plan_created(fp, read)
        if fp.header_paths is not None:
            raise _missing(fp, fp.old_path, "modify")
        raise PatchError("not_found", f"{fp.old_path!r} does not exist", path=fp.old_path)
    change = _change(fp, existing, existing.data, existing.mode)
    if fp.hunks:
        try:
            # a hunk's new side is sought in the whole file only when the history log
            # could then say whether this tool applied it there (_refuse_if_nearer)
            seek = three_way is not None and three_way.recorded(fp.old_path)
            change.after, change.hunks, notes = apply_hunks(fp, existing.data, reverse,
                                                             seek_elsewhere=seek)
        except PatchError as err:
            if three_way is None:
                raise
            if err.code in ("context_not_found", "indentation_mismatch"):
                from .rescue import rescue

                return rescue(fp, change, existing.data, three_way, reverse, err)
            if "repeats" not in err.details:
                raise
            return applied.decide_repeat(fp, change, existing.data, three_way, reverse, err,
                                         apply_hunks)
        if three_way is not None and any(r.new_side_elsewhere for r in change.hunks):
            applied.refuse_if_applied_before(fp, existing.data, three_way, reverse, apply_hunks)
        if three_way is not None:
            from .rescue import rescue_loose, weakly_placed

            if weakly_placed(change.hunks) and rescue_loose(
                    fp, change, existing.data, three_way, reverse, change.hunks) is not None:
                return change  # merged from a version where the hunks match more strictly
        change.diagnostics.extend(notes)
    return change
