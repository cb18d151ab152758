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

from . import paths
from .errors import PatchError
from .match import KEYS, LEVELS, WHITESPACE, RunningFile, choose, near_miss, split_lines
from .model import (
    ADD,
    CONTEXT,
    Diagnostic,
    FileKind,
    FilePatch,
    Hunk,
    HunkLine,
    Patch,
    new_side,
    sides,
)
from .splice import dominant_eol, new_window

if TYPE_CHECKING:
    from .reindent import FileIndent

REGULAR = 0o100644
EXECUTABLE = 0o100755
_SHA256_HEX = re.compile(r"[0-9a-f]{64}")


@dataclass
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


@dataclass
class HunkResult:
    index: int  # 1-based
    hinted_line: int | None  # old_start as written
    applied_line: int  # 1-based line in the pre-image where the old side was found
    tolerances: list[str] = field(default_factory=list)
    by_line_number: bool = False  # several copies matched; the one at the hinted line won
    by_anchor: bool = False  # several copies matched; the one after the '@@ text' line won

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


@dataclass
class FileChange:
    """One file's planned change. After a working-tree write ``after`` is None (the new
    content is on disk), and so is ``before.content`` unless --emit-diff needed it or the
    patch has one file (its pre-image is kept for the undo rather than read again)."""

    action: str  # modify | add | delete | rename
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

    @property
    def path(self) -> str:
        path = self.new_path if self.new_path is not None else self.old_path
        assert path is not None
        return path


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
            if c.action in ("delete", "rename") and c.old_path is not None}


def plan_patch(patch: Patch, read: Reader, *, reverse: bool = False,
               expect_sha256: Mapping[str, str] | None = None,
               progress: Callable[[str, int, int], None] | None = None,
               keep_preimages: bool = True,
               on_planned: Callable[[FileChange], None] | None = None) -> Plan:
    """Match every hunk against the pre-images ``read`` returns; raise on the first refusal.

    ``expect_sha256`` maps paths to the sha256 (hex) their pre-image must have, "" for "must
    not exist"; it is checked before anything else (see check_expected). ``progress`` is
    called as ``progress("planning", files_done, files_total)`` after each file.
    ``keep_preimages=False`` drops each pre-image's content once its file is planned (its
    mode and token stay), for a target that can read it again: a large patch then never
    holds every old file in memory at once. ``on_planned(change)`` is called with each file's
    change as soon as it is planned (a target may stage it then, and let go of its content).
    """
    check_expected(expect_sha256 or {}, read)
    if shares_a_path(patch.files):
        from .sequence import plan_sequence  # only then: start-up counts

        changes, steps = plan_sequence(
            patch, read, lambda fp, reader: plan_file(fp, reader, reverse), progress)
        for change in changes:
            if not keep_preimages and change.before is not None:
                change.before = SourceFile(None, change.before.mode, change.before.token)
        return Plan(changes, list(patch.diagnostics), patch.format, steps)
    changes = []
    total = len(patch.files)
    for fp in patch.files:
        change = plan_file(fp, read, reverse)
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


def plan_file(fp: FilePatch, read: Reader, reverse: bool) -> FileChange:
    try:
        if fp.kind is FileKind.ADD:
            return _plan_add(fp, read)
        if fp.kind is FileKind.DELETE:
            return _plan_delete(fp, read)
        return _plan_modify(fp, read, reverse)
    except PatchError as err:
        raise err.located(path=fp.path, patch_line=fp.patch_line) from None


def _change(fp: FilePatch, before: SourceFile | None, after: bytes | None,
            mode: int | None) -> FileChange:
    return FileChange(
        fp.kind.value, fp.old_path, fp.new_path, before, after, mode,
        ignored_metadata=list(fp.ignored_metadata), diagnostics=list(fp.diagnostics),
        added=sum(h.added for h in fp.hunks), removed=sum(h.removed for h in fp.hunks),
    )


def _plan_add(fp: FilePatch, read: Reader) -> FileChange:
    path = fp.path
    lines = [line for hunk in fp.hunks for line in hunk.lines]
    ends_newline = not (fp.hunks and fp.hunks[-1].new_no_newline)
    content = b"".join(new_window([], lines, added_eol=None, fill_eol=lambda: b"\n", at_end=True,
                                  final_newline=ends_newline))
    existing = read(path)
    if existing is not None:
        if existing.data == content:
            raise PatchError("already_applied", f"{path!r} already exists with this content")
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


def _plan_delete(fp: FilePatch, read: Reader) -> FileChange:
    path = fp.path
    existing = read(path)
    if existing is None:
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
    details = near_miss(current, old, 0) if old else {}
    raise PatchError(
        "content_mismatch",
        f"cannot delete {path!r}: the patch lists {len(old)} line(s) but the file has "
        f"{len(current)} line(s) that differ",
        details=details,
    )


def _plan_modify(fp: FilePatch, read: Reader, reverse: bool) -> FileChange:
    assert fp.old_path is not None and fp.new_path is not None
    existing = read(fp.old_path)
    if fp.kind is FileKind.RENAME:
        target = read(fp.new_path)
        if target is not None:
            code = "already_applied" if existing is None else "already_exists"
            raise PatchError(code, f"cannot rename {fp.old_path!r} to {fp.new_path!r}: the "
                             "destination already exists", path=fp.new_path)
    if existing is None:
        if fp.create_if_missing:
            return _plan_created(fp, read)
        if fp.header_paths is not None:
            raise _missing(fp, fp.old_path, "modify")
        raise PatchError("not_found", f"{fp.old_path!r} does not exist", path=fp.old_path)
    change = _change(fp, existing, existing.data, existing.mode)
    if fp.hunks:
        running = RunningFile(split_lines(existing.data))
        applier = _HunkApplier(running, existing.data, reverse)
        for number, hunk in enumerate(fp.hunks, 1):
            try:
                change.hunks.append(applier.apply(hunk, number))
            except PatchError as err:
                raise err.located(hunk=number, patch_line=hunk.patch_line) from None
        change.after = b"".join(running.lines())
        change.diagnostics.extend(applier.diagnostics)
    return change


class _HunkApplier:
    """Applies the hunks of one file in order, carrying the drift between hint and match."""

    def __init__(self, running: RunningFile, content: bytes, reverse: bool) -> None:
        self.running = running
        self.content = content
        self.reverse = reverse
        self.drift = 0
        self.diagnostics: list[Diagnostic] = []

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

    def fill_eol(self) -> bytes:
        return self.eol or b"\n"

    def apply(self, hunk: Hunk, number: int) -> HunkResult:
        running = self.running
        lines: Sequence[HunkLine] = hunk.lines  # a packed body stays packed unless needed
        old, new = sides(lines)
        raw_hint = None
        if hunk.old_start is not None:
            raw_hint = max(hunk.old_start - (1 if old else 0), 0)
        hints = [raw_hint, None if raw_hint is None else raw_hint + self.drift]
        at_end = hunk.old_no_newline or hunk.new_no_newline or hunk.anchor_end
        tolerances: list[str] = []
        by_anchor = False
        last_line = running.last_line()
        if not old and hunk.anchor_end and last_line and not last_line.endswith(b"\n"):
            # Appending after a last line that has no line ending: that line gains one, so it
            # joins the hunk as context (and is found at the end like any other).
            lines = [HunkLine(CONTEXT, last_line), *lines]
            old, new = [last_line], [last_line, *new]
        if not old:
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
            found = running.search(old, at_end)
            if not found.candidates and 0 < hunk.optional_tail < len(old):
                lines = list(lines)[: len(lines) - hunk.optional_tail]
                old, new = sides(lines)
                found = running.search(old, at_end)
                tolerances.append("trailing_blank_lines_as_separator")
            if not found.candidates:
                raise self._not_found(hunk, new, old, hints[1])
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
                raise PatchError("overlapping_edits", "the hunk's old lines include lines an "
                                 "earlier hunk of this file changed")
            start, original, level = candidate.start, candidate.original, found.level
        if level:
            tolerances.append(LEVELS[level])
        size = len(old)
        window = running.window(start, size)
        if level >= WHITESPACE:  # the added lines are written the file's way
            self._refuse_if_applied_strictly(old, new, at_end)
            from .reindent import adapt_added_lines

            lines, rewritten = adapt_added_lines(list(lines), window, level, original + 1,
                                                 self.indent_style)
            tolerances.extend(rewritten)
            new = new_side(lines)
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
            added_eol=self.eol if level else None,
            fill_eol=self.fill_eol,
            at_end=at_end_now,
            final_newline=final_newline,
            new=new,
        )
        running.replace(start, size, new)
        if raw_hint is not None:
            self.drift = original - raw_hint
        if by_hint:
            self.diagnostics.append(Diagnostic(
                "placed_by_line_number",
                f"hunk {number}: its old lines occur more than once; the copy at the hinted "
                f"line {original + 1} was used", hunk.patch_line))
        hinted = hunk.old_start
        return HunkResult(number, hinted, original + 1, tolerances, by_hint, by_anchor)

    def _refuse_if_applied_strictly(self, old: list[bytes], new: list[bytes],
                                    at_end: bool) -> None:
        """A hunk found only with blanks or punctuation ignored, whose new side the file
        already has under a strict level: the patch was applied (a re-send), and the loose
        copy is another place that merely looks alike. Never edit that one."""
        if new and new != old and self.running.search(new, at_end,
                                                      levels=range(WHITESPACE)).candidates:
            raise PatchError("already_applied", "the hunk's new lines are already in the file; "
                             "its old lines match elsewhere only with whitespace or "
                             "punctuation ignored")

    def _not_found(self, hunk: Hunk, new: list[bytes], old: list[bytes],
                   hint: int | None) -> PatchError:
        at_end = hunk.old_no_newline or hunk.new_no_newline or hunk.anchor_end
        if new and new != old and self.running.search(new, at_end).candidates:
            if self.reverse:
                return PatchError("already_applied", "the file has the hunk's old lines, not its "
                                  "new ones: the patch is not applied, so there is nothing to "
                                  "reverse", hint="check that this patch was applied to this "
                                  "file before reversing it")
            return PatchError("already_applied", "the hunk's new lines are already in the file "
                              "and its old lines are not")
        details = near_miss(self.running.lines(), old, hint)
        diff = details.get("first_difference")
        message = "the hunk's old lines were not found"
        if diff:
            message += (f"; nearest match at line {details['nearest_line']}, first difference "
                        f"at line {diff['line']}: expected {diff['expected']!r}, found "
                        + ("the end of the file" if diff["found"] is None
                           else repr(diff["found"])))
        return PatchError("context_not_found", message, details=details)
