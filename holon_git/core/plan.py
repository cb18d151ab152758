"""Plan a whole patch in memory: every hunk of every file matched, nothing written.

The planner reads pre-images through a callable the target supplies, so it works the same for
the working tree, the index and a commit. Any failure raises a located PatchError; a Plan
exists only when the entire patch would apply.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from functools import cached_property
from typing import TYPE_CHECKING, Any

from ..errors import PatchError
from . import paths
from .match import (
    KEYS,
    LEVELS,
    WHITESPACE,
    Found,
    Matches,
    RunningFile,
    choose,
    equal_level,
    key_ws,
    near_miss,
    split_lines,
    telling_levels,
)
from .model import (
    ADD,
    CONTEXT,
    KIND_OF_PREFIX,
    REMOVE,
    Diagnostic,
    FileKind,
    FilePatch,
    Hunk,
    HunkLine,
    PackedLines,
    Patch,
    display_name,
    known_path,
    new_side,
    sides,
)
from .splice import dominant_eol, new_window
from .threeway import KnownVersions

if TYPE_CHECKING:
    from .reindent import FileIndent

REGULAR = 0o100644
EXECUTABLE = 0o100755
_SHA256_HEX = re.compile(r"[0-9a-f]{64}")


@dataclass(slots=True)
class SourceFile:
    """A file's pre-image as a target read it."""

    # None once the plan has let go of it (plan_patch(keep_preimages=False)): the target
    # reads it again, checking the token, when it needs it
    content: bytes | None
    mode: int = REGULAR
    token: Any = None  # target-specific identity, re-checked before writing

    @property
    def data(self) -> bytes:
        """The content, which a reader always supplies (planning code reads it here)."""
        if self.content is None:
            raise ValueError("the pre-image was released after planning")
        return self.content


Reader = Callable[[str], "SourceFile | None"]


@dataclass(slots=True)
class HunkResult:
    index: int  # 1-based
    hinted_line: int | None  # old_start as written
    applied_line: int  # 1-based line in the pre-image where the old side was found
    tolerances: list[str] = field(default_factory=list)
    by_line_number: bool = False  # several copies matched; the one at the hinted line won
    by_anchor: bool = False  # several copies matched; the one after the '@@ text' line won
    # placed away from its line number while its new side sits elsewhere in the file (not
    # in the receipt: the plan asks the history log whether this tool applied it there)
    new_side_elsewhere: bool = False
    # placed by its context away from a file edge it claims by git's rules (match_beginning,
    # match_end: _edge_claims): weaker evidence, like a loose match (not in the receipt: the
    # plan asks the file's other versions whether one places it at that edge, rescue.py)
    off_edge: bool = False

    @property
    def offset(self) -> int | None:
        return None if self.hinted_line is None else self.applied_line - self.hinted_line

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "index": self.index,
            "hinted_line": self.hinted_line,
            "applied_line": self.applied_line,
            "offset": self.offset,
            "tolerances": self.tolerances,
        }
        if self.by_line_number:
            out["by_line_number"] = True
        if self.by_anchor:
            out["by_anchor"] = True
        return out


@dataclass(slots=True)
class FileChange:
    """One file's planned change. After a working-tree write ``after`` is None (the new
    content is on disk), and so is ``before.content`` unless --emit-diff needed it or the
    patch has one file (its pre-image is kept for the undo rather than read again)."""

    kind: FileKind
    old_path: str | None
    new_path: str | None
    before: SourceFile | None
    after: bytes | None  # None for a delete
    mode: int | None
    hunks: list[HunkResult] = field(default_factory=list)
    ignored_metadata: list[str] = field(default_factory=list)
    diagnostics: list[Diagnostic] = field(default_factory=list)
    added: int = 0
    removed: int = 0
    three_way: dict[str, str] | None = None  # merged from this base (the rescue)
    patch_digest: str = ""  # what the patch did to the file, for the history log (resend.py)
    after_sha256: str = ""  # of ``after``, taken with the digest (``after`` may be let go)

    @property
    def path(self) -> str:
        return known_path(self.old_path, self.new_path)

    @property
    def display_name(self) -> str:
        return display_name(self.kind, self.old_path, self.new_path)


@dataclass
class Plan:
    changes: list[FileChange]  # what the target writes: one change per path
    diagnostics: list[Diagnostic] = field(default_factory=list)
    format: str = "unified"
    # When file patches were applied in sequence (a path in several of them): one entry per
    # file patch as it was planned, for the receipt; ``changes`` holds the net change per path.
    file_patches: list[FileChange] | None = None

    @property
    def receipt_files(self) -> list[FileChange]:
        return self.file_patches if self.file_patches is not None else self.changes


def removed_paths(changes: Iterable[FileChange]) -> set[str]:
    """The paths these changes delete or rename away."""
    return {c.old_path for c in changes
            if c.kind in (FileKind.DELETE, FileKind.RENAME) and c.old_path is not None}


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
        from .resend import refuse_a_recorded_resend

        refuse_a_recorded_resend(patch, read, reverse, three_way)
    try:
        plan = _plan_patch(patch, read, reverse, progress, keep_preimages, on_planned,
                           three_way)
    except PatchError as err:
        if err.code != "merge_conflict" or not _reverse_applies(patch, read, reverse):
            raise
        code = "not_applied" if reverse else "already_applied"
        raise PatchError(code, f"merged from {err.details.get('base')}, the patch conflicts "
                         "with the current text, but the whole patch, reversed, applies to it: "
                         + ("its edit is not there" if reverse else "its edit is there already"),
                         path=err.path, patch_line=err.patch_line) from None
    if three_way is not None and len(plan.changes) <= RECORDED_FILES:
        from .resend import mark_digests

        mark_digests(patch, reverse, plan.changes)
    return plan


RECORDED_FILES = 64  # the history log records patches of at most this many files


def _reverse_applies(patch: Patch, read: Reader, reverse: bool) -> bool:
    """Would the patch, reversed, apply to the current text (no rescue)? A merge that
    conflicts while the undo applies means the change is in: a re-sent series whose later
    file patches changed the lines around the earlier ones' (git merge-file conflicts on
    changes next to each other, where the reversed series places every hunk)."""
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
        if existing.data == content:
            code = "not_applied" if reverse else "already_applied"
            raise PatchError(code, f"{path!r} already exists with this content")
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
            _refuse_if_deleted_already(fp, three_way)
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
    from .advice import deletion_mismatch  # a refusal only

    raise deletion_mismatch(path, old, current, near_miss(current, old, 0) if old else {})


def _refuse_if_deleted_already(fp: FilePatch, three_way: KnownVersions) -> None:
    """A missing file that another known version (the index, HEAD, a pre-image this tool
    recorded when it deleted it) held with exactly the lines the patch deletes: a re-sent
    deletion."""
    old = [line.text for hunk in fp.hunks for line in hunk.lines if line.kind != ADD]
    for version in three_way.versions(fp, fp.path):
        lines = split_lines(version.content)
        if len(lines) == len(old) and any(
                all(key(a) == key(b) for a, b in zip(old, lines, strict=True)) for key in KEYS):
            raise PatchError("already_applied", f"cannot delete {fp.path!r}: it does not "
                             f"exist, and it held exactly these lines in {version.label}: "
                             "the deletion is done already")


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
                 three_way: KnownVersions | None = None) -> FileChange:
    assert fp.old_path is not None and fp.new_path is not None
    existing = read(fp.old_path)
    if fp.kind is FileKind.RENAME:
        target = read(fp.new_path)
        if target is not None:
            code = "already_exists"
            if existing is None:
                code = "not_applied" if reverse else "already_applied"
            raise PatchError(code, f"cannot rename {fp.old_path!r} to {fp.new_path!r}: the "
                             "destination already exists", path=fp.new_path)
    if fp.plus_path_typo is not None:
        _confirm_plus_path_typo(fp, read, existing)
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
            change.after, change.hunks, notes = _apply_hunks(fp, existing.data, reverse,
                                                             seek_elsewhere=seek)
        except PatchError as err:
            if three_way is not None and err.code in ("context_not_found",
                                                      "indentation_mismatch"):
                from .rescue import rescue

                merged = rescue(fp, change, existing.data, three_way, reverse)
                if merged is not None:
                    return merged
            if err.code in ("context_not_found", "indentation_mismatch") or (
                    err.code == "ambiguous_context" and fp.unidiff_zero):
                return _salvaged(fp, change, existing.data, reverse, seek, three_way)
            if three_way is None or "repeats" not in err.details:
                raise
            from .rescue import decide_repeat

            return decide_repeat(fp, change, existing.data, three_way, reverse, err)
        if three_way is not None and any(r.new_side_elsewhere for r in change.hunks):
            from .rescue import refuse_if_applied_before

            refuse_if_applied_before(fp, existing.data, three_way, reverse)
        if three_way is not None:
            from .rescue import rescue_loose, weakly_placed

            if weakly_placed(change.hunks) and rescue_loose(
                    fp, change, existing.data, three_way, reverse, change.hunks) is not None:
                return change  # merged from a version where the hunks match more strictly
        change.diagnostics.extend(notes)
    return change


def _salvaged(fp: FilePatch, change: FileChange, content: bytes, reverse: bool, seek: bool,
              three_way: KnownVersions | None) -> FileChange:
    """Every level failed and no other version took the file patch: plan it again with the
    rungs of salvage.py (the lines the model got right) for the hunks no level places; their
    refusal, when they place none either."""
    change.after, change.hunks, notes = _apply_hunks(fp, content, reverse, "lines", seek,
                                                     salvage=True)
    if three_way is not None and any(r.new_side_elsewhere for r in change.hunks):
        from .rescue import refuse_if_applied_before

        refuse_if_applied_before(fp, content, three_way, reverse)
    change.diagnostics.extend(notes)
    return change


# A file is searched on its bytes while hunks x size stays under this: each hunk's search
# reads the whole file (in C), where the line search splits and indexes it once.
BYTES_FIRST_BUDGET = 8 << 20


def _apply_hunks(fp: FilePatch, content: bytes, reverse: bool, matching: str = "auto",
                 seek_elsewhere: bool = False, salvage: bool = False
                 ) -> tuple[bytes, list[HunkResult], list[Diagnostic]]:
    """The file patch's hunks applied to ``content``: the new content, where each hunk went,
    and the notes; raises the first hunk's refusal, located.

    ``matching``: "auto" places on the file's bytes first (exact.py) and falls back to the
    line search for anything unusual; "lines" uses the line search only; "exhaustive" also
    lists every copy of an old side before deciding (the reference the tests compare with).
    ``salvage``: a hunk no level places goes through the rungs of salvage.py.
    """
    if matching == "auto" and not salvage and _bytes_first(fp, content):
        from .exact import ByteFile, Unusual

        try:
            return _apply_on(ByteFile(content), fp, content, reverse, seek_elsewhere)
        except (Unusual, PatchError):
            pass  # the line search decides, and words any refusal
    running = RunningFile(split_lines(content))
    running.exhaustive = matching == "exhaustive"
    try:
        return _apply_on(running, fp, content, reverse, seek_elsewhere, salvage)
    except PatchError as err:
        from .advice import advise  # a refusal only: say what most likely went wrong

        raise advise(err, fp, running.original) from None


def _bytes_first(fp: FilePatch, content: bytes) -> bool:
    return (content.endswith(b"\n") and len(fp.hunks) * len(content) <= BYTES_FIRST_BUDGET
            and not any(h.anchor_text or h.anchor_end or h.old_no_newline or h.new_no_newline
                        or h.unfinished for h in fp.hunks))


def _apply_on(running: RunningFile, fp: FilePatch, content: bytes, reverse: bool,
              seek_elsewhere: bool = False, salvage: bool = False
              ) -> tuple[bytes, list[HunkResult], list[Diagnostic]]:
    applier = _HunkApplier(running, content, reverse)
    applier.seek_elsewhere = seek_elsewhere
    applier.hunks = fp.hunks
    results = []
    for number, hunk in enumerate(fp.hunks, 1):
        try:
            try:
                results.append(applier.apply(hunk, number))
            except PatchError as err:
                if not salvage:
                    raise
                results.append(_apply_salvaged(applier, fp, hunk, number, err))
        except PatchError as err:
            raise err.located(hunk=number, patch_line=hunk.patch_line) from None
    return running.content(), results, applier.diagnostics


def _apply_salvaged(applier: _HunkApplier, fp: FilePatch, hunk: Hunk, number: int,
                    refusal: PatchError) -> HunkResult:
    """The one place the rungs below the ladder (salvage.py) join it: the hunk rewritten by
    the rung that places it, applied by the ordinary rules (already-applied checks
    included), and said in its tolerances and a diagnostic; else ``refusal``."""
    from .salvage import AlreadyThere, salvage_hunk

    delta = sum(h.added - h.removed for h in fp.hunks[: number - 1])
    try:
        rewritten, found = salvage_hunk(applier.running, hunk, refusal, drift=applier.drift,
                                        delta=delta, zero_context=fp.unidiff_zero)
    except AlreadyThere as there:
        raise applier._applied_error(f"read without the lines that are not in the file, the "
                                     f"hunk's new lines are already at line {there.at + 1}, "
                                     "where it goes") from None
    result = applier.apply(rewritten, number)
    result.hinted_line = hunk.old_start
    result.tolerances.append(found.rung)
    applier.diagnostics.append(Diagnostic(found.rung, f"hunk {number}: {found.message}",
                                          hunk.patch_line))
    return result


def _kept_run(hunk: Hunk) -> int | None:
    """Where a deletion's new side lies in its old side as one run of the same lines: after
    the removed lines when they open the hunk, at 0 when they close it; None otherwise (added
    lines, or removed lines between context)."""
    kinds = [line.kind for line in hunk.lines if line.kind in (CONTEXT, REMOVE, ADD)]
    if ADD in kinds:
        return None
    removed = kinds.count(REMOVE)
    if kinds[:removed] == [REMOVE] * removed:
        return removed
    if kinds[len(kinds) - removed:] == [REMOVE] * removed:
        return 0
    return None


_FEW = 64  # copies of a new side's rarest line sought in the whole file, at most


class _HunkApplier:
    """Applies the hunks of one file in order, carrying the drift between hint and match."""

    def __init__(self, running: RunningFile, content: bytes, reverse: bool) -> None:
        self.running = running
        self.content = content
        self.reverse = reverse
        self.drift = 0
        self.diagnostics: list[Diagnostic] = []
        self._sits: dict[tuple[int, int], bool] = {}  # (claim, levels): the new side is there
        # a hunk was placed away from its line number while its new side sits elsewhere,
        # farther from it: a re-send after a large shift looks so (_refuse_if_nearer)
        self.new_side_elsewhere = False
        self.seek_elsewhere = False  # look for that at all (the history log can answer)
        self.hunks: Sequence[Hunk] = ()  # the file patch's hunks (punctuation evidence)

    @cached_property
    def eol(self) -> bytes | None:
        """The file's usual line ending; needed only when a tolerance matched or a line must
        gain an ending, so most files are never scanned for it."""
        return dominant_eol(self.content)

    @cached_property
    def indent_style(self) -> FileIndent:
        """How the file indents (read only when a hunk matched with whitespace ignored)."""
        from .reindent import indent_style

        return indent_style(self.content)

    @cached_property
    def typographic(self) -> frozenset[str]:
        """The file's typographic characters (read only when a hunk matched loosely)."""
        from .punctuation import typographic_characters

        return typographic_characters(self.content)

    @cached_property
    def smartened(self) -> dict[str, str]:
        """Typographic characters a transport put into the whole file patch, to ASCII
        (punctuation.py; read only for a hunk adding a non-ASCII line)."""
        from .punctuation import smartened_mapping

        return smartened_mapping(self.hunks, self.typographic)

    def fill_eol(self) -> bytes:
        return self.eol or b"\n"

    def apply(self, hunk: Hunk, number: int) -> HunkResult:
        running = self.running
        self._sits.clear()
        self.new_side_elsewhere = False
        lines: Sequence[HunkLine] = hunk.lines  # a packed body stays packed unless needed
        old, new = sides(lines)
        raw_hint = None
        if hunk.old_start is not None:
            raw_hint = max(hunk.old_start - (1 if old else 0), 0)
        hints = [raw_hint, None if raw_hint is None else raw_hint + self.drift]
        at_end = (hunk.old_no_newline or hunk.new_no_newline or hunk.anchor_end
                  or hunk.unfinished)
        tolerances: list[str] = []
        by_anchor = False
        last_line = running.last_line()
        # a hunk with no context says nothing about the file's line endings (see below)
        no_context = not old and running.length > 0
        if not old and hunk.anchor_end and last_line and not last_line.endswith(b"\n"):
            # Appending after a last line that has no line ending: that line gains one, so it
            # joins the hunk as context (and is found at the end like any other).
            lines = [HunkLine(CONTEXT, last_line), *lines]
            old, new = [last_line], [last_line, *new]
        if not old:
            claims = self._edge_claims(hunk, lines, new)
            if running.length:
                self._refuse_if_applied(hunk, new, claims)
            if running.length and not hunk.anchor_end:
                raise PatchError("ambiguous_context", "the hunk has no context or removed "
                                 "lines, so nothing anchors it in a non-empty file",
                                 hint="add a few unchanged lines around the insertion as "
                                 "context (in an envelope, '*** End of File' after the hunk "
                                 "appends it at the end)")
            start = running.length  # an empty file, or after the last line
            original, level, by_hint = running.to_original(start, 0), 0, False
            assert original is not None
        else:
            near = hints[1]
            found = running.search(old, at_end, near=near)
            if not found and 0 < hunk.optional_tail < len(old):
                lines = list(lines)[: len(lines) - hunk.optional_tail]
                old, new = sides(lines)
                found = running.search(old, at_end, near=near)
                tolerances.append("trailing_blank_lines_as_separator")
            if not found:
                refusal = self._not_found(hunk, number, new, old, hints[1])
                if hunk.unfinished and refusal.code == "context_not_found" \
                        and running.search(old):
                    raise _cut_off(hunk)  # found, but not where a cut-off hunk may end
                raise refusal
            if new != old:
                hinted = self._hint_claims(hunk, hints[1], new)
                hinted += self._anchor_claims(hunk, new, found)
                edges = [at for at in self._edge_claims(hunk, lines, new) if at not in hinted]
                hinted_old = None if hints[1] is None else running.to_current(hints[1])
                self._refuse_if_applied(hunk, new, [*hinted, *edges], old, found, edges,
                                        hinted_old=hinted_old)
            if not new and raw_hint is not None and len(old) < running.length:
                found = _at_hint_only(found, hints)
            if hunk.anchor_text and len(some := found.some(2)) == 1:
                from .anchor import refuse_copy_before_anchor

                refuse_copy_before_anchor(running.lines(), some[0], len(old), hunk.anchor_text)
            try:
                candidate, by_hint = choose(found, hints)
            except PatchError as err:
                if not hunk.anchor_text or err.code != "ambiguous_context":
                    raise
                from .anchor import copy_after_anchor

                candidate, anchor_line = copy_after_anchor(
                    running.lines(), found.candidates, hunk.anchor_text, err)
                by_hint, by_anchor = False, True
                self.diagnostics.append(Diagnostic(
                    "placed_by_anchor", f"hunk {number}: its old lines occur "
                    f"{len(found.candidates)} times; the first copy after line "
                    f"{anchor_line + 1}, which matches its '@@ {hunk.anchor_text}' line, was "
                    "used", hunk.patch_line))
            if candidate.original is None:
                earlier = running.hunks_in_current(candidate.start, len(old))
                raise _overlapping(earlier, number)
            start, original, level = candidate.start, candidate.original, found.level
            if new != old:  # the new side where this match would put it
                self._refuse_if_applied(hunk, new, [start, start + len(old) - len(new)], old,
                                        Found([candidate], level))
                if hints[1] is not None:
                    self._refuse_if_nearer(hunk, new, old, Found([candidate], level), hints[1],
                                           by_hint)
        if level:
            tolerances.append(LEVELS[level])
        size = len(old)
        off_edge = bool(old) and not _at_claimed_edges(hunk, lines, start, size,
                                                        running.length)
        window = running.window(start, size)
        if level >= WHITESPACE:  # the added lines are written the file's way
            self._refuse_if_applied_strictly(old, new, at_end)
            from .reindent import adapt_added_lines

            lines, rewritten = adapt_added_lines(list(lines), window, level, original + 1,
                                                 self.indent_style, self.typographic)
            tolerances.extend(rewritten)
            new = new_side(lines)
        if new != old and not all(line.isascii() for line in new) and self.smartened:
            from .punctuation import normalize_with

            lines, changed = normalize_with(lines, self.smartened)
            if changed:
                new = new_side(lines)
                if "punctuation_normalized" not in tolerances:
                    tolerances.append("punctuation_normalized")
        added_eol = self.eol if level else None
        if no_context and self._endings_differ(lines):
            # Its added lines take the file's usual ending, as under a tolerance: an LF
            # envelope's append to a CRLF file writes CRLF lines (and the reverse).
            added_eol = self.eol
            if LEVELS[1] not in tolerances:
                tolerances.append(LEVELS[1])
        if hunk.blank_context_lines:
            tolerances.append("blank_context_line")
        if hunk.unprefixed_context_lines:
            tolerances.append("unprefixed_context_line")
        at_end_now = start + size == running.length
        # an empty file does not "lack" a final newline: only a last line can
        last = running.last_line()
        had_newline = last is None or last.endswith(b"\n")
        final_newline = had_newline
        if hunk.old_no_newline != hunk.new_no_newline:
            final_newline = hunk.old_no_newline
        new = new_window(
            window, lines,
            added_eol=added_eol,
            fill_eol=self.fill_eol,
            at_end=at_end_now,
            final_newline=final_newline,
            new=new,
        )
        running.replace(start, size, new, number)
        if raw_hint is not None:
            self.drift = original - raw_hint
        if by_hint:
            self.diagnostics.append(Diagnostic(
                "placed_by_line_number",
                f"hunk {number}: its old lines occur more than once; the copy at the hinted "
                f"line {original + 1} was used", hunk.patch_line))
        hinted = hunk.old_start
        return HunkResult(number, hinted, original + 1, tolerances, by_hint, by_anchor,
                          self.new_side_elsewhere, off_edge)

    def _endings_differ(self, lines: Sequence[HunkLine]) -> bool:
        """Does an added line end other than the file's usual way (LF in a CRLF file, or
        CRLF in an LF file)?"""
        eol = self.eol
        return eol is not None and any(
            line.kind == ADD and line.text.endswith(b"\n")
            and line.text.endswith(b"\r\n") != (eol == b"\r\n") for line in lines)

    def _refuse_if_applied_strictly(self, old: list[bytes], new: list[bytes],
                                    at_end: bool) -> None:
        """A hunk found only with blanks or punctuation ignored, whose new side the file
        already has under a strict level: the patch was applied (a re-send), and the loose
        copy is another place that merely looks alike. Never edit that one."""
        strict = range(min(WHITESPACE, telling_levels(old, new)))
        if new and new != old and self.running.search(new, at_end, levels=strict):
            raise self._applied_error("the hunk's new lines are already in the file; its old "
                                      "lines match elsewhere only with whitespace or "
                                      "punctuation ignored")

    def _refuse_if_nearer(self, hunk: Hunk, new: list[bytes], old: list[bytes],
                          found: Found, hint: int, by_hint: bool) -> None:
        """Where does the new side sit, seen from the hinted line (item 7e)?

        The old side was found (not by the line number) away from the hinted line: if the
        new side sits nearer to it, the hunk was applied there, and the match is another
        copy that an edit since moved away from it. A hunk placed by its line number among
        copies, re-sent after an unrelated edit above, must not edit the next copy. A fresh
        hunk is refused so only when the file already holds its new text nearer its line
        number than its old text. When the new side sits elsewhere, farther, the file alone
        cannot tell: the hunk is marked, and the plan asks the history log (rescue.py)."""
        running = self.running
        center = running.to_current(hint)
        (candidate,) = found.candidates
        if center is None or not new:
            return
        radius = 0 if by_hint else abs(candidate.start - center)
        levels = found.level + 1
        if len(old) == len(new):  # only the levels that tell the new side from the old
            levels = equal_level(old, new, levels)
        claims: list[int] = []
        if radius:
            claims = sorted({at for level in range(levels)
                             for at in running.starts_near(new, level, center, radius) or ()},
                            key=lambda at: abs(at - center))
            self._refuse_if_applied(
                hunk, new, claims, old, found,
                where=f"nearer its line number ({center + 1}) than its old lines, at line "
                f"{candidate.start + 1}: an edit since moved the lines, and the old lines "
                "there are another copy")
        if not self.seek_elsewhere:
            return
        farther: set[int] = set()
        for level in range(levels):
            # a new side made of lines repeated throughout the file is not sought everywhere
            starts = running.starts_near(new, level, center, running.length + 1, _FEW)
            if starts is None:
                return
            farther.update(starts)
        if self._first_applied(hunk, new, sorted(farther - set(claims)), old, found, ()):
            self.new_side_elsewhere = True

    def _anchor_claims(self, hunk: Hunk, new: list[bytes], found: Found) -> list[int]:
        """An envelope hunk's '@@ <text>' says where it goes: after the one line matching the
        text. Where its new side sits first after that line (before any copy of its old
        side), the hunk claims to be: a re-sent hunk is found there, not at another copy."""
        if not hunk.anchor_text or not new:
            return []
        from .anchor import claim_after_anchor

        return claim_after_anchor(self.running, new, [c.start for c in found.candidates],
                                  hunk.anchor_text)

    def _applied_error(self, message: str) -> PatchError:
        if self.reverse:
            return PatchError("not_applied", "the file has the hunk's old lines where the hunk "
                              "goes, not its new ones: the patch is not applied, so there is "
                              "nothing to reverse")
        return PatchError("already_applied", message)

    def _hint_claims(self, hunk: Hunk, hint: int | None, new: list[bytes]) -> list[int]:
        """Where the hunk's line numbers say its new side goes, in the current file: the
        hinted old line (drift-corrected) and the new side's own line number."""
        claims = []
        if hint is not None:
            at = self.running.to_current(hint)
            if at is not None:
                claims.append(at)
        if hunk.new_start is not None:
            claims.append(max(hunk.new_start - (1 if new else 0), 0) + self.drift)
        return claims

    def _edge_claims(self, hunk: Hunk, lines: Sequence[HunkLine],
                     new: list[bytes]) -> list[int]:
        """git's match_beginning and match_end: a hunk whose context runs out at the file's
        start or end claims that edge. A hunk with no context at all (diff -U0) claims none:
        git cannot tell it from one in the middle either."""
        kinds = _edge_kinds(lines)
        if kinds is None:
            return []
        _, last, has_context = kinds
        claims = []
        if hunk.anchor_end or (has_context and last != CONTEXT):
            claims.append(self.running.length - len(new))
        if hunk.old_start == 0 or (hunk.old_start == 1 and has_context):
            claims.append(0)
        return claims

    def _refuse_if_applied(self, hunk: Hunk, new: list[bytes], claims: Iterable[int],
                           old: Sequence[bytes] = (), matches: Matches | None = None,
                           edges: Sequence[int] = (),
                           where: str = "where the hunk goes",
                           hinted_old: int | None = None) -> None:
        """Refuse when the hunk's new side already sits at a place the hunk claims.

        New lines that lie inside a match of the old side and equal its lines there say
        nothing (a deletion's new side is part of its old side), so they do not count. An
        edge claim (``edges``) counts only where the new side there overlaps a match of the
        old side: a hunk whose context was cut short in the middle of a file does not claim
        the file's end. A hunk that changes whether the file ends with a newline sits only at
        the end, with the ending its new side has (the comparison levels ignore a missing
        final newline). Only the matches near a claim where the new side sits are sought.

        The new side is compared no more loosely than the old side was found: an apply at a
        level writes the new side so that it matches there, and a looser level would take a
        fresh hunk's new lines for lines that only look like them (a deletion's trailing
        context '    )' for the ')' before it, with indentation ignored). A hunk with no old
        side was never placed loosely.
        """
        found = self._first_applied(hunk, new, claims, old, matches, edges, hinted_old)
        if found is None:
            return
        at, beside = found
        if beside is not None:
            raise self._repeat_error(at, beside)
        raise self._applied_error(f"the hunk's new lines are already at line {at + 1}, {where}")

    def _first_applied(self, hunk: Hunk, new: list[bytes], claims: Iterable[int],
                       old: Sequence[bytes], matches: Matches | None,
                       edges: Sequence[int], hinted_old: int | None = None
                       ) -> tuple[int, int | None] | None:
        """The first claim where the new side counts as sitting (see _refuse_if_applied),
        and where a copy of the old side overlaps it at a place the hunk could go (its added
        lines repeat their neighbours), if one does.

        A new side inside a match of the old side says nothing, unless that match is off the
        hinted line (``hinted_old``), the old side is not there, the new side sits at a
        hinted claim, and not as the very lines the deletion keeps (``_kept_run``): a deletion
        among lines that repeat (a blank line out of a run of blanks), re-sent, looks so, and
        the file cannot tell it from a fresh one."""
        if not new or not claims:
            return None
        running = self.running
        ending = None if hunk.old_no_newline == hunk.new_no_newline else not hunk.new_no_newline
        wanted = olds = None
        loosest = WHITESPACE if matches is None else matches.level + 1
        size, telling = len(new), min(telling_levels(old, new), loosest)

        def match_at(start: int) -> bool:
            return matches is not None and matches.at(start) is not None

        for at in dict.fromkeys(claims):
            if ending is not None and (at + size != running.length or ending != (
                    running.last_line() or b"").endswith(b"\n")):
                continue
            sits = self._sits.get((at, telling))
            if sits is None:
                sits = self._sits[at, telling] = running.sits_at(at, new, telling) is not None
            if not sits:
                continue
            if wanted is None:
                wanted, olds = [key_ws(line) for line in new], [key_ws(line) for line in old]
            assert olds is not None
            inside = [m for m in range(at + size - len(olds), at + 1)
                      if olds[at - m : at - m + size] == wanted and match_at(m)]
            if inside:
                if hinted_old is None or hinted_old in inside or at != hinted_old \
                        or match_at(hinted_old) or _kept_run(hunk) in {at - m for m in inside}:
                    continue
                return at, inside[0]
            if at in edges and not any(map(match_at, range(at - len(olds) + 1, at + size))):
                continue  # an edge the new side would reach only away from the old side
            beside = next((m for m in range(at - len(olds) + 1, at + size)
                           if match_at(m) and self._could_go(hunk, m, len(olds))), None)
            return at, beside
        return None

    def _could_go(self, hunk: Hunk, start: int, size: int) -> bool:
        """Could a fresh hunk go at this match of its old side, by its own edge claims (a
        hunk whose context runs out at the file's end or start matches only there)?"""
        return _at_claimed_edges(hunk, hunk.lines, start, size, self.running.length)

    def _repeat_error(self, at: int, beside: int) -> PatchError:
        """The file holds the hunk's new lines where it goes, and its old lines overlapping
        them at a place it could go too: the lines the hunk adds equal the lines beside them
        (a fifth blank line after four). Applied or not, the file reads the same; so the hunk
        is refused, saying so (the plan may tell more from the history log: rescue.py)."""
        details = {"repeats": {"new_lines_at": at + 1, "old_lines_at": beside + 1}}
        if self.reverse:
            return PatchError(
                "not_applied", f"the reversed hunk's new lines are already at line {at + 1}, "
                f"where it goes, and its old lines are there too, at line {beside + 1}: the "
                "lines it would put back repeat the lines beside them, so nothing in the file "
                "tells whether the patch is applied",
                hint="the lines repeat their neighbours, so nothing in the file tells whether "
                "the patch is applied; if it is, undo it with a hunk whose context tells the "
                "places apart", details=details)
        return PatchError(
            "already_applied", f"the hunk's new lines are already at line {at + 1}, where the "
            f"hunk goes, but its old lines are there too, at line {beside + 1}: the lines it "
            "adds repeat the lines beside them, so a re-sent patch and a new insertion of "
            "those lines look the same",
            hint="the file may or may not hold your edit: the added lines equal their "
            "neighbours, so a re-send and a new insertion look the same; if the edit is not in "
            "yet, add a context line that tells the places apart", details=details)

    def _not_found(self, hunk: Hunk, number: int, new: list[bytes], old: list[bytes],
                   hint: int | None) -> PatchError:
        at_end = (hunk.old_no_newline or hunk.new_no_newline or hunk.anchor_end
                  or hunk.unfinished)
        running = self.running
        for start in running.find_original(old, at_end):
            earlier = running.hunks_in_original(start, len(old))
            if earlier:
                return _overlapping(earlier, number)
        if new and new != old and running.search(new, at_end):
            return self._applied_error("the hunk's new lines are already in the file and its "
                                       "old lines are not")
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


def _cut_off(hunk: Hunk) -> PatchError:
    """A hunk the input ended inside (Hunk.unfinished) whose old side does not reach the end
    of the file: lines after it may be missing."""
    return PatchError(
        "truncated_patch", f"the patch ends inside this hunk, after a change line, with "
        f"{hunk.old_count} old lines in its header but fewer in its body; the hunk's lines do "
        "not reach the end of the file, so the rest of it looks cut off",
        details={"header": [hunk.old_count, hunk.new_count]})


def _at_hint_only(found: Matches, hints: Sequence[int | None]) -> Found:
    """A hunk that only removes lines, with no context (diff -U0), leaves nothing behind to
    recognise it by: sent again, it would remove the next copy of its lines. So when it has
    a line number, it is placed only where that number (or the drift-corrected one) says
    (unless it removes the whole file, which has no second copy)."""
    at_hint = [c for h in sorted({h for h in hints if h is not None})
               if (c := found.at_original(h)) is not None]
    if not at_hint:
        lines = ", ".join(str((c.original if c.original is not None else c.start) + 1)
                          for c in found.candidates[:10])
        raise PatchError("ambiguous_context", "the hunk only removes lines and has no context; "
                         f"its line number does not hold them (they are at line {lines}), so "
                         "nothing says which lines are meant",
                         hint="add a few unchanged lines around the removed lines as context")
    return Found(sorted(at_hint), found.level)


def _overlapping(earlier: list[int], number: int) -> PatchError:
    hunks = [*earlier, number]
    named = ", ".join(map(str, earlier))
    return PatchError("overlapping_edits", f"hunk {number} changes lines that hunk"
                      f"{'s' if len(earlier) > 1 else ''} {named} of this file also "
                      "change", details={"hunks": hunks})


def _at_claimed_edges(hunk: Hunk, lines: Sequence[HunkLine], start: int, size: int,
                      length: int) -> bool:
    """Is a match of the hunk's old side (``size`` lines at ``start`` of a file of ``length``
    lines) at each file edge the hunk claims by git's rules (see _HunkApplier._edge_claims)?"""
    kinds = _edge_kinds(lines)
    if kinds is None:
        return True
    _, last, has_context = kinds
    if (hunk.anchor_end or (has_context and last != CONTEXT)) and start + size != length:
        return False
    return not (hunk.old_start == 0 or (hunk.old_start == 1 and has_context)) or start == 0


def _edge_kinds(lines: Sequence[HunkLine]) -> tuple[str, str, bool] | None:
    """(first line's kind, last line's kind, whether any line is context) of a hunk body."""
    if isinstance(lines, PackedLines):
        packed = lines.packed
        if not packed:
            return None
        body = packed[:-1] if packed.endswith(b"\n") else packed
        cut = body.rfind(b"\n")
        first, last = packed[:1], body[cut + 1 : cut + 2]
        has_context = packed.startswith(b" ") or b"\n " in packed
        return KIND_OF_PREFIX[first], KIND_OF_PREFIX[last], has_context
    if not lines:
        return None
    return lines[0].kind, lines[-1].kind, any(line.kind == CONTEXT for line in lines)
