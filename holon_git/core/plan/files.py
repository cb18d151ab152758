"""One file patch planned: the file it names read, checked and changed in memory.

An added file must not exist (or exist with exactly its content: applied.py); a deleted one
must hold the lines the patch deletes; a modified or renamed one gets the file patch's hunks
(hunks.py). When a target supplies the file's other versions (``three_way``), a refusal of the
hunks may be rescued by a three-way merge (rescue.py), and the history log may tell a re-send
from a fresh patch (applied.py).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from ...errors import PatchError, let_go
from ..change import (
    EXECUTABLE,
    REGULAR,
    FileChange,
    HunkResult,
    Reader,
    RejectedHunk,
    SourceFile,
)
from ..model import ADD, Diagnostic, FileKind, FilePatch
from ..place.edges import claimed_edges
from ..place.match import KEYS, LEVELS, near_miss, split_lines
from ..place.splice import new_window
from ..threeway import KnownVersions
from . import applied
from .hunks import apply_hunks, hunks_already_in


def plan_file(fp: FilePatch, read: Reader, reverse: bool,
              three_way: KnownVersions | None = None,
              log: applied.LogSays = applied.NO_LOG, reject: bool = False) -> FileChange:
    """The change ``fp`` makes to the files ``read`` returns; raises its refusal, located.

    ``log``: what the history log says of the patch (files._decide_repeat asks it).
    ``reject`` (--reject): a file patch refused for a hunk (not for the file: its existence,
    a re-send the history log records, a merge's verdict on hunks that all place) applies
    without its refused hunks, which the change lists in ``rejected`` (_without_refused)."""
    try:
        if fp.kind is FileKind.ADD:
            return _plan_add(fp, read, reverse)
        if fp.kind is FileKind.DELETE:
            return _plan_delete(fp, read, None if reverse else three_way)
        change = _plan_modify(fp, read, reverse, three_way, log, reject)
    except PatchError as err:
        if fp.edit is not None:
            _name_edit(err, fp.edit)
        raise err.located(path=fp.path, patch_line=fp.patch_line or None) from None
    for left_out in change.rejected:
        if fp.edit is not None:
            _name_edit(left_out.error, fp.edit)
        left_out.error.located(path=fp.path)
    return change


def _name_edit(err: PatchError, edit: int) -> None:
    """A refusal of an edit by its text says which edit it is (receipts name edits by their
    1-based number in the input)."""
    err.details.setdefault("edit", edit)
    if not err.patch_line:  # a JSON edit has no line in its input: its number names it
        err.patch_line = None
    if not err.message.startswith(f"edit {edit}:"):
        err.message = f"edit {edit}: {err.message}"


def _change(fp: FilePatch, before: SourceFile | None, after: bytes | None,
            mode: int | None) -> FileChange:
    applying = [h for number, h in enumerate(fp.hunks, 1) if number not in fp.left_out]
    metadata = list(fp.ignored_metadata)
    if fp.new_mode is not None and after is not None:
        # 'old mode'/'new mode': the file takes the new mode, as git apply gives it (the
        # working tree's execute bits, the index's and a commit's entry mode)
        mode = fp.new_mode
        metadata = [line for line in metadata if not line.startswith(("old mode ", "new mode "))]
    return FileChange(
        fp.kind, fp.old_path, fp.new_path, before, after, mode,
        ignored_metadata=metadata, diagnostics=list(fp.diagnostics),
        added_lines=sum(h.added for h in applying),
        removed_lines=sum(h.removed for h in applying), edit=fp.edit,
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
    how = ("an edit with no old text creates it" if fp.edit is not None
           else "the file was created, as git apply does for a traditional diff")
    change.diagnostics.append(Diagnostic(
        "missing_file_created", f"{fp.path!r} does not exist and the hunk has no old lines: "
        + how, fp.patch_line or None))
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
        change.removed_lines = len(split_lines(existing.data))
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


def _confirm_plus_path_typo(fp: FilePatch, read: Reader, existing: SourceFile | None) -> None:
    """'diff --git' and '---' name the path, '+++' another: a typo only when the path exists
    and the other does not; otherwise the header is refused, as it was written."""
    typo = fp.plus_path_typo
    assert typo is not None
    if existing is not None and read(typo) is None:
        return
    state = (f"{typo!r} exists" if existing is not None
             else f"{fp.path!r} does not exist")
    raise PatchError("inconsistent_header", f"'diff --git' and '---' name {fp.path!r} and "
                     f"'+++' names {typo!r} without 'rename from'/'rename to'; {state}, so "
                     "'+++' is no typo to overlook", path=fp.path)


def _plan_modify(fp: FilePatch, read: Reader, reverse: bool,
                 three_way: KnownVersions | None = None,
                 log: applied.LogSays = applied.NO_LOG, reject: bool = False) -> FileChange:
    assert fp.old_path is not None and fp.new_path is not None
    existing = read(fp.old_path)
    if fp.plus_path_typo is not None:
        _confirm_plus_path_typo(fp, read, existing)
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
    if not fp.hunks:
        return change
    try:
        return _patch_content(fp, change, existing.data, reverse, three_way, log)
    except PatchError as err:
        if not reject or (err.hunk is None and err.code not in HUNK_VERDICTS):
            raise
        return _without_refused(fp, existing, reverse, three_way, err, log)


def _patch_content(fp: FilePatch, change: FileChange, ours: bytes, reverse: bool,
                   three_way: KnownVersions | None, log: applied.LogSays) -> FileChange:
    """``change`` with the file patch's hunks applied to the current text (``ours``): placed
    there, or, with the file's other versions, merged from the version they were written
    against when they do not apply here, or apply only weakly (rescue.py); refused when the
    history log shows this very file patch applied to the path and every hunk's change is
    in the file already (applied.refuse_a_logged_resend), or when a context-less hunk went
    by line numbers that another version of the file reads otherwise, or that nothing
    checks (rescue.confirm_numbers)."""
    changed = _placed_content(fp, change, ours, reverse, three_way, log)
    if changed.three_way is None and changed.after != ours:  # placed here, not merged
        applied.refuse_a_logged_resend(fp, ours, reverse, log, changed.hunks)
        if _by_numbers_alone(fp, changed, ours, reverse):
            from .rescue import confirm_numbers  # a -U0 hunk by its numbers only

            confirm_numbers(fp, changed, ours, three_way, reverse)
    return changed


def _placed_content(fp: FilePatch, change: FileChange, ours: bytes, reverse: bool,
                    three_way: KnownVersions | None, log: applied.LogSays) -> FileChange:
    assert fp.old_path is not None
    try:
        # a hunk's new side is sought in the whole file only when the history log
        # could then say whether this tool applied it there (applied.HunkCheck)
        seek = three_way is not None and three_way.recorded(fp.old_path)
        change.after, change.hunks, notes = apply_hunks(fp, ours, reverse, seek_elsewhere=seek)
        if three_way is not None and not reverse and _maybe_stale(fp, change.hunks, ours):
            from .stale import stale_version  # a hunk placed other than as it says

            if stale_version(fp, change.hunks, ours, reverse, three_way) is not None:
                # the stale reading is one the evidence allows: weighed by the judge, whose
                # refusal is a merge from that version (rescue.py)
                placed = change.hunks
                try:
                    change.after, change.hunks, notes = apply_hunks(
                        fp, ours, reverse, seek_elsewhere=seek, stale=True)
                except PatchError as judged:
                    if judged.code != "context_not_found":
                        raise
                    from .rescue import rescue_stale

                    return rescue_stale(fp, change, ours, three_way, reverse, placed, judged)
    except PatchError as err:
        if applied.hunk_in_file(err, reverse):
            from .rescue import rescue_partly_applied

            return rescue_partly_applied(fp, change, ours, three_way, reverse, err)
        unplaced = err.code in ("context_not_found", "indentation_mismatch")
        if three_way is not None and unplaced:
            from .rescue import rescue

            merged = rescue(fp, change, ours, three_way, reverse)
            if merged is not None:
                return merged
        if err.code == "ambiguous_context" and three_way is not None and fp.edit is None:
            from .rescue import rescue_copies

            merged = rescue_copies(fp, change, ours, three_way, reverse)
            if merged is not None:
                return merged  # merged from a version whose numbers tell the copies apart
        if err.code == "ambiguous_context" and not (reverse or fp.unidiff_zero):
            from ..place.salvage.zero import line_numbers_hold  # a refused hunk only

            if line_numbers_hold(split_lines(ours), fp.hunks):
                fp = replace(fp, unidiff_zero=True)  # its -U0 insertions go by their numbers
        # An edit by its text (core/plan/edits.py) carries no line numbers and no section
        # text, so only its old text's lines go down the last rungs: the judge weighs the
        # edit read both ways its changed lines may sit (salvage/hunk.py); an edit found a
        # wrong number of times stays refused (it has no -U0 insertion to place by number).
        by_numbers = err.code == "ambiguous_context" and fp.unidiff_zero and fp.edit is None
        if unplaced or by_numbers:
            if fp.edit is None and three_way is not None and _bare_by_another_blob(fp, ours):
                from .rescue import rescue_bare

                merged = rescue_bare(fp, change, ours, three_way, reverse)
                if merged is not None:
                    return merged  # merged from the blob its numbers were read off
            try:
                return _salvaged(fp, change, ours, reverse, seek, three_way)
            except PatchError as salvaged:
                # a rung placed it where its added lines repeat their neighbours: decided
                # as any such hunk is (the -R of a -U0 patch among repeated lines)
                if three_way is None or salvaged.code != "ambiguous_repeat":
                    raise
                err = salvaged
        elif three_way is None or err.code != "ambiguous_repeat":
            raise
        return _decide_repeat(fp, change, ours, three_way, reverse, err, log)
    if three_way is not None and any(r.new_side_elsewhere for r in change.hunks):
        applied.refuse_if_applied_before(fp, ours, three_way, reverse, apply_hunks)
    # a hunk with no tolerance, off no edge, is placed strongly: no three-way code to load
    if three_way is not None and any(r.off_edge or r.tolerances for r in change.hunks):
        from .rescue import rescue_loose, weakly_placed

        if weakly_placed(change.hunks) and rescue_loose(
                fp, change, ours, three_way, reverse, change.hunks) is not None:
            return change  # merged from a version where the hunks match more strictly
    if three_way is not None and _leans_on_numbers(fp, change.hunks, ours):
        from .rescue import rescue_numbers

        if rescue_numbers(fp, change, ours, three_way, reverse, change.hunks) is not None:
            return change  # merged from the version the line numbers were written for
    change.diagnostics.extend(notes)
    return change


def _maybe_stale(fp: FilePatch, placed: Sequence[HunkResult], ours: bytes) -> bool:
    """Before any other version is read: might the repository show the file patch stale
    (stale.py)? It has no index line, and a hunk was placed away from its line number, at a
    tolerant level, or away from a file edge it claims (stale.placed_otherwise)."""
    if fp.edit is not None or (fp.blob_ids is not None and fp.blob_ids[0].strip("0")):
        return False
    if not any(result.offset or result.tolerances or any(claimed_edges(
            fp.hunks[result.index - 1], fp.hunks[result.index - 1].lines)) for result in placed):
        return False  # the common case: every hunk exactly where it says, claiming no edge
    from .stale import placed_otherwise

    return any(placed_otherwise(fp, result, ours) for result in placed)


def _leans_on_numbers(fp: FilePatch, placed: Sequence[HunkResult], ours: bytes) -> bool:
    """Does a placement in ``ours`` lean on line numbers another version may own (issue 43):
    a hunk placed by its line number among copies, or an index line naming a blob other than
    ``ours`` (the numbers, and which copy they chose, are that blob's)?"""
    return any(result.by_line_number for result in placed) or _names_another_blob(fp, ours)


def _by_numbers_alone(fp: FilePatch, change: FileChange, ours: bytes, reverse: bool) -> bool:
    """Was a hunk with no context line and with line numbers placed (an insertion by its
    number, the ``unidiff_zero`` rung; removed lines where they occur) with nothing saying
    the numbers are ``ours``'s: no --unidiff-zero, no index line naming ``ours``, no other
    hunk exactly at its own number (place/numbers.py)? A hunk whose removed lines are the
    whole file reads no number (no place to choose, no neighbour to change). Undoing (-R)
    asks it of an insertion by number only."""
    if fp.numbers_given or fp.edit is not None:
        return False
    from ..place.numbers import bare, numbers_of  # a -U0 hunk only

    if reverse:
        if not any("unidiff_zero" in r.tolerances for r in change.hunks):
            return False
    elif not any(bare(hunk) and hunk.old_start is not None
                 and b"".join(hunk.old_lines) != ours for hunk in fp.hunks):
        return False
    return not numbers_of(fp, ours).current


def _bare_by_another_blob(fp: FilePatch, ours: bytes) -> bool:
    """Has the file patch a hunk with no context line (which only its line numbers place)
    while its index line names another blob than ``ours`` (numbers read off that blob),
    and does it not trust the numbers as given (--unidiff-zero)?"""
    from ..place.numbers import bare  # a refused hunk only

    return (not fp.numbers_given and any(map(bare, fp.hunks))
            and _names_another_blob(fp, ours))


def _names_another_blob(fp: FilePatch, ours: bytes) -> bool:
    """Does the file patch's index line name a blob other than ``ours``?"""
    if fp.blob_ids is None or not fp.blob_ids[0].strip("0"):
        return False
    import hashlib  # loads OpenSSL: only for a patch with an index line

    blob = hashlib.sha1(b"blob %d\0" % len(ours) + ours, usedforsecurity=False).hexdigest()
    return not blob.startswith(fp.blob_ids[0].lower())


# Refusals of a whole file patch that are verdicts on some of its hunks: a merge conflict
# (the file changed since the version the patch was written against) and partly_applied (some
# hunks' change is in already); --reject rejects the hunks that do not place on their own.
HUNK_VERDICTS = ("merge_conflict", "partly_applied")

# Hunks rejected one pass at a time (each with the rescue's say) before the rest that no rung
# places alone are rejected together: a file patch of many broken hunks stays fast.
ONE_BY_ONE = 8


def _without_refused(fp: FilePatch, existing: SourceFile, reverse: bool,
                     three_way: KnownVersions | None, refusal: PatchError,
                     log: applied.LogSays) -> FileChange:
    """--reject: the file patch planned again, as a whole (rescue and last rungs included),
    without each hunk refused so far, until the rest applies; every hunk is judged on its
    own, as git apply --reject judges them, and by every rule of an ordinary apply. A merge
    conflict (the rescue found the version the patch was written against, and the file
    changed since) rejects the hunks whose old lines are not in the file: the last rungs
    never place what that version's merge refused; ``partly_applied`` rejects the hunks whose
    change is in already. A refusal of the file stands."""
    assert fp.old_path is not None
    rejected: dict[int, RejectedHunk] = {}
    while True:
        if refusal.hunk is not None and refusal.hunk not in rejected:
            hunk = fp.hunks[refusal.hunk - 1]
            rejected[refusal.hunk] = RejectedHunk(refusal.hunk, hunk, refusal)
            if len(rejected) > ONE_BY_ONE:
                # many refused: each pass plans the whole file patch again, so the hunks
                # that no rung places on their own are rejected in one go (the rescue
                # then takes only the rest, never those)
                alone: list[RejectedHunk] = []
                rest = replace(fp, left_out=frozenset(rejected))
                apply_hunks(rest, existing.data, reverse, "lines", salvage=True, rejected=alone)
                rejected.update((left_out.index, left_out) for left_out in alone)
        elif refusal.code in HUNK_VERDICTS:
            unplaced: list[RejectedHunk] = []
            rest = replace(fp, left_out=frozenset(rejected))
            apply_hunks(rest, existing.data, reverse, "lines", rejected=unplaced)
            if not unplaced:  # every hunk places: the merge's verdict is the file's
                raise refusal
            rejected.update((left_out.index, left_out) for left_out in unplaced)
        else:
            raise refusal
        let_go(refusal)
        rest = replace(fp, left_out=frozenset(rejected))
        change = _change(rest, existing, existing.data, existing.mode)
        try:
            change = _patch_content(rest, change, existing.data, reverse, three_way, log)
        except PatchError as err:
            refusal = err
            continue
        change.rejected = sorted(rejected.values(), key=lambda left_out: left_out.index)
        return change


def _salvaged(fp: FilePatch, change: FileChange, ours: bytes, reverse: bool, seek: bool,
              three_way: KnownVersions | None) -> FileChange:
    """Every level failed and no other version took the file patch: plan it again with the
    ladder's last rungs (place/salvage/: the lines the model got right) for the hunks no
    level places; their refusal, when they place none either. A hunk whose change is in the
    file makes the patch applied only when every hunk's is (as the last rungs read them);
    else no version took the patch to merge it from: the refusal of a hunk that is not in and
    places on no rung, or ``partly_applied``."""
    clean = three_way is not None and _unchanged(fp, ours, three_way)
    try:
        change.after, change.hunks, notes = apply_hunks(fp, ours, reverse, "lines", seek,
                                                        salvage=True, clean=clean)
    except PatchError as later:
        if not applied.hunk_in_file(later, reverse):
            raise
        there, other = hunks_already_in(fp, ours, reverse, salvage=True)
        if applied.wholly_in(fp, there):
            raise
        raise (other or applied.partly_applied_error(fp, there, reverse)) from None
    if three_way is not None and any(r.new_side_elsewhere for r in change.hunks):
        applied.refuse_if_applied_before(fp, ours, three_way, reverse, apply_hunks)
    change.diagnostics.extend(notes)
    return change


def _unchanged(fp: FilePatch, ours: bytes, three_way: KnownVersions) -> bool:
    """Does the file equal its index and HEAD versions (and the blob the patch's index line
    names, when the repository has it)? Then nothing says it changed since the patch was
    written, and a blank line missing or extra next to a change is the model's slip."""
    assert fp.old_path is not None
    seen = False
    for version in three_way.versions(fp, fp.old_path):
        if not (version.named or version.label in ("index", "HEAD")):
            break
        if version.content != ours:
            return False
        # the index version is given once: as the named blob when the index line names it
        seen = seen or "index" in (version.label, *version.also)
    return seen


def _decide_repeat(fp: FilePatch, change: FileChange, ours: bytes, three_way: KnownVersions,
                   reverse: bool, refusal: PatchError, log: applied.LogSays) -> FileChange:
    """A hunk whose added lines repeat their neighbours: the file cannot tell whether its
    change is in. Asked in turn: the history log (a re-send must change nothing), a merge
    from the version the patch was written against (the agent's other edits since are
    evidence of what the patch meant), the line numbers (applied.py's rules)."""
    decided = applied.repeat_by_history(fp, change, ours, three_way, reverse,
                                        _replay_as_applied, log)
    if decided is not None:
        return decided
    from .rescue import rescue_repeat

    merged = rescue_repeat(fp, change, ours, three_way, reverse, refusal)
    if merged is not None:
        return merged
    return applied.repeat_by_line_numbers(fp, change, ours, three_way, reverse, refusal,
                                          _replay_exact, log)


def _replay_as_applied(fp: FilePatch, content: bytes, reverse: bool
                       ) -> tuple[bytes, list[HunkResult], list[Diagnostic]]:
    """The patch replayed on a recorded pre-image as this tool applied it there: by the
    ladder; or, when a hunk's added lines repeat their neighbours, where its line numbers fit
    exactly (as repeat_by_line_numbers applied it); or, a hunk with no context (-U0), by the
    last rungs too (as _salvaged applied it). The history log's evidence is then the replay
    giving the current text exactly, byte for byte."""
    try:
        return apply_hunks(fp, content, reverse)
    except PatchError as err:
        if err.code not in ("ambiguous_repeat", "ambiguous_context"):
            raise
        let_go(err)
    return _replay_exact(fp, content, reverse)


def _replay_exact(fp: FilePatch, content: bytes, reverse: bool
                  ) -> tuple[bytes, list[HunkResult], list[Diagnostic]]:
    """The hunks applied with a hunk whose added lines repeat their neighbours let through
    where its line numbers fit the file exactly (applied.repeat_by_line_numbers decides when);
    a -U0 patch's hunks with no context go by their numbers too (the last rung that places
    them, as _salvaged does)."""
    try:
        return apply_hunks(fp, content, reverse, exact_repeats=True)
    except PatchError as err:
        if err.code != "ambiguous_context" or not fp.unidiff_zero:
            raise
        let_go(err)
    return apply_hunks(fp, content, reverse, "lines", salvage=True, exact_repeats=True)
