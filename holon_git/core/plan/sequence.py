"""File patches in sequence: one input that names a path in several file patches.

They apply in order, each to the path as the file patches before it left it: repeated
'---'/'+++' blocks, a `git format-patch` series of mails, a rename followed by an edit of the
new name, a delete followed by an add (as Codex writes). Renames name the file as it was
before the whole input when a file patch before them replaced it: `git diff -M -B` writes a
swap as 'rename b -> a' then 'rename a -> b' (git apply's table of previous patches, whose
renames read the original tree). Planning goes through an overlay over the target's reader;
the target then gets one net change per path, so it still writes all or nothing.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass

from ...errors import PatchError, first_of, let_go
from ..change import FileChange, Reader, SourceFile
from ..model import Diagnostic, FileKind, FilePatch, Patch

# plan_file(file patch, reader, what it reads: () the target's own file; the edits by their
# text that changed it since (only edits: core/plan/edits.py), whose versions the rescue can
# replay them on; None an earlier file patch's result otherwise)
PlanFile = Callable[["FilePatch", "Reader", "tuple[FilePatch, ...] | None"], "FileChange"]


@dataclass
class _State:
    """A path as the file patches so far left it."""

    source: SourceFile | None  # its content and mode now; None: no file there
    by: FilePatch | None = None  # the file patch that left it so; None: the target's own
    origin: str | None = None  # the path whose original file this is (renames follow it)
    # the edits by their text that made it from the target's own file, in order (``by`` the
    # last); empty when ``by`` is None or another kind of file patch
    edits: tuple[FilePatch, ...] = ()


class Overlay:
    """The paths an input names, as its file patches leave them one after the other."""

    def __init__(self, read: Reader, files: list[FilePatch]) -> None:
        self.read_target = read
        self.original: dict[str, SourceFile | None] = {}
        self.now: dict[str, _State] = {}
        # paths a file patch created over a file that a later rename takes away: that file,
        # and the file patch that replaced it
        self.replaced: dict[str, tuple[_State, FilePatch]] = {}
        self.renamed_later = Counter(fp.old_path for fp in files if fp.kind is FileKind.RENAME)

    def state(self, path: str) -> _State:
        known = self.now.get(path)
        if known is None:
            source = self.read_target(path)
            self.original[path] = source
            known = self.now[path] = _State(source, None, path if source is not None else None)
        return known

    def plan(self, fp: FilePatch, plan_file: PlanFile) -> FileChange:
        """Plan one file patch on the overlay, then record what it leaves."""
        if fp.kind is FileKind.RENAME:
            self.renamed_later[fp.old_path] -= 1
        source_path = fp.old_path if fp.kind is not FileKind.ADD else None
        dest = fp.new_path if fp.kind in (FileKind.ADD, FileKind.RENAME) else None
        replaced = (self.replaced.get(source_path)
                    if source_path is not None and fp.kind is FileKind.RENAME else None)
        from_replaced = replaced is not None
        source = (replaced[0] if replaced is not None
                  else self.state(source_path) if source_path is not None else None)
        replacing = None
        if dest is not None:
            present = self.state(dest)
            if present.source is not None and self.renamed_later[dest] > 0 \
                    and dest not in self.replaced:
                replacing = present
            elif present.source is not None and present.by is not None:
                raise PatchError(
                    "duplicate_file_patch", f"{dest!r} exists after the file patch at line "
                    f"{present.by.patch_line}; the file patch at line {fp.patch_line} cannot "
                    f"{fp.kind.value} it again", patch_line=fp.patch_line, path=dest,
                    details={"earlier_file_patch": present.by.patch_line})

        def read(path: str) -> SourceFile | None:
            if source is not None and path == source_path:
                return source.source
            if replacing is not None and path == dest:
                return None
            return self.state(path).source

        earlier: tuple[FilePatch, ...] | None = (
            () if source is None or source.by is None
            else source.edits if source.edits and fp.edit is not None else None)
        try:
            change = plan_file(fp, read, earlier)
        except PatchError as err:
            raise self._after_earlier(err, fp, source) from None
        self._record(fp, change, source, from_replaced, replacing)
        return change

    def _after_earlier(self, err: PatchError, fp: FilePatch,
                       source: _State | None) -> PatchError:
        """Name the earlier file patch a refused one was applied after."""
        state = source if source is not None else self.now.get(fp.path)
        path = fp.old_path if source is not None else fp.path
        if state is not None and state.by is not None:
            err.message += f" (in {path!r} as {_named(state.by)} left it)"
            if state.by.edit is not None:
                err.details.setdefault("earlier_edit", state.by.edit)
            else:
                err.details.setdefault("earlier_file_patch", state.by.patch_line)
        return err

    def _record(self, fp: FilePatch, change: FileChange, source: _State | None,
                from_replaced: bool, replacing: _State | None) -> None:
        if from_replaced:
            assert fp.old_path is not None
            change.diagnostics.append(Diagnostic(
                "sequenced_file_patch", f"renames {fp.old_path!r} as it was before the file "
                f"patch at line {self.replaced[fp.old_path][1].patch_line} replaced it (a swap "
                "or rotation, as git diff -M -B writes it)", fp.patch_line))
        elif source is not None and source.by is not None:
            change.diagnostics.append(Diagnostic(
                "sequenced_file_patch", f"applied to {fp.old_path!r} as {_named(source.by)} "
                "left it", fp.patch_line or None))
        if replacing is not None:
            change.diagnostics.append(Diagnostic(
                "sequenced_file_patch", f"replaces {fp.new_path!r}, whose file a later file "
                "patch renames away", fp.patch_line))
        after = (None if change.after is None
                 else SourceFile(change.after, change.mode if change.mode is not None else 0))
        if change.kind in (FileKind.DELETE, FileKind.RENAME):
            assert fp.old_path is not None
            if from_replaced:
                del self.replaced[fp.old_path]
            else:
                self.now[fp.old_path] = _State(None, fp)
        if change.kind is not FileKind.DELETE:
            origin = source.origin if source is not None else None
            chain: tuple[FilePatch, ...] = ()
            if fp.edit is not None and change.kind is FileKind.MODIFY and source is not None \
                    and (source.by is None or source.edits):
                chain = (*source.edits, fp)
            self.now[change.path] = _State(after, fp, origin, chain)
            if replacing is not None:
                self.replaced[change.path] = (replacing, fp)

    def net_changes(self) -> list[FileChange]:
        """One change per path, from the target's file to what the last file patch left: a
        path whose file moved to another (and is gone) is a rename."""
        moved_to: dict[str, str] = {}  # new path -> original path it descends from
        for path, state in self.now.items():
            origin = state.origin
            if state.source is not None and origin is not None and origin != path \
                    and self.original.get(path) is None and self.now[origin].source is None \
                    and origin not in moved_to.values():
                moved_to[path] = origin
        changes = []
        for path, state in self.now.items():
            before, now = self.original[path], state.source
            if path in moved_to:
                origin = moved_to[path]
                assert now is not None
                changes.append(FileChange(FileKind.RENAME, origin, path, self.original[origin],
                                          now.data, now.mode))
            elif path in moved_to.values() or (before is None and now is None):
                continue
            elif before is None:
                assert now is not None
                changes.append(FileChange(FileKind.ADD, None, path, None, now.data, now.mode))
            elif now is None:
                changes.append(FileChange(FileKind.DELETE, path, None, before, None, None))
            elif now.data != before.data or now.mode != before.mode:
                changes.append(FileChange(FileKind.MODIFY, path, path, before, now.data, now.mode))
        return changes


def _named(fp: FilePatch) -> str:
    """How a message names an earlier file patch: an edit by its number, else by its line."""
    if fp.edit is not None:
        return f"edit {fp.edit}"
    return f"the file patch at line {fp.patch_line}"


def plan_sequence(patch: Patch, read: Reader, plan_file: PlanFile,
                  progress: Callable[[str, int, int], None] | None = None,
                  every_refusal: bool = True) -> tuple[list[FileChange], list[FileChange]]:
    """(net changes for the target, one change per file patch for the receipt).

    Raises the first refusal; with ``every_refusal`` after planning every file patch it can,
    carrying the others (``PatchError.more``). A file patch of a path that a refused one
    changes before it (or that one it was not planned for changes) is not planned: it would
    apply to what the refused one leaves. The refusal names those file patches instead
    (``details.not_planned``: their patch lines), so they are not reported as refused too.
    """
    overlay = Overlay(read, patch.files)
    steps = []
    refusals: list[PatchError] = []
    blocked: dict[str, PatchError] = {}  # path -> the refusal whose file patch changes it
    for done, fp in enumerate(patch.files, 1):
        blocker = next((blocked[path] for path in fp.paths if path in blocked), None)
        if blocker is not None:
            blocker.details.setdefault("not_planned", []).append(fp.patch_line)
            blocked.update(dict.fromkeys(fp.paths, blocker))
        else:
            try:
                change = overlay.plan(fp, plan_file)
            except PatchError as err:
                if not every_refusal:
                    raise
                let_go(err)
                refusals.append(err)
                blocked.update(dict.fromkeys(fp.paths, err))
            else:
                change.before, change.after = None, None  # the net changes hold what is written
                steps.append(change)
        if progress is not None:
            progress("planning", done, len(patch.files))
    if refusals:
        for refusal in refusals:
            _name_not_planned(refusal)
        raise first_of(refusals)
    return overlay.net_changes(), steps


def _name_not_planned(err: PatchError) -> None:
    later = err.details.get("not_planned")
    if not later:
        return
    if len(later) == 1:
        err.message += (f"; the later file patch at patch line {later[0]} was not planned: "
                        "it changes the same path, after this one")
    else:
        err.message += (f"; the later file patches at patch lines "
                        f"{', '.join(map(str, later))} were not planned: they change the same "
                        "paths, after this one")
