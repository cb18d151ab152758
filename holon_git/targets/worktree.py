"""The working-tree target: files read safely below the root (fsops.py), and a plan written
as one transaction, all files or none (transaction.py, imported only when something is
written: a --check needs neither it nor the crash journal).
"""

from __future__ import annotations

import os
import stat
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING

from ..errors import PatchError
from ..model import Patch
from ..plan import EXECUTABLE, REGULAR, FileChange, Plan, SourceFile
from ..policy import Protection
from .fsops import Tree, identity, split
from .repo import JOURNAL_DIR, git_directories

if TYPE_CHECKING:
    from .transaction import Transaction
    from .versions import RepositoryVersions


def keep_preimages(git_dir: str | None, changes: list[FileChange],
                   old_content: Callable[[FileChange], bytes],
                   saved: Sequence[Mapping[str, object]] = ()) -> list[tuple[str, str]]:
    """For the history log (history.py): each modified, renamed or deleted path with its
    pre-image's blob id (``saved``: the deleted files' blobs, written already), the others
    written as loose objects now. Empty outside a repository, for a patch of more than
    MAX_FILES files, or when a blob cannot be written (the log is best effort)."""
    from .history import MAX_FILES

    if git_dir is None or len(changes) > MAX_FILES:
        return []
    from .loose import write_blob

    written = {str(d["path"]): str(d["blob"]) for d in saved if d.get("blob")}
    kept: list[tuple[str, str]] = []
    try:
        for change in changes:
            if change.action == "add" or change.before is None or change.old_path is None:
                continue
            blob = written.get(change.old_path) or write_blob(git_dir, old_content(change))
            if blob is None:
                return []
            kept.append((change.old_path, blob))
    except OSError:
        return []
    return kept


def _read_error(exc: OSError, path: str | None) -> PatchError:
    return PatchError("io_error", f"reading {path or 'the working tree'} failed: "
                      f"{exc.strerror or exc}", path=path,
                      hint="the filesystem refused a read; nothing was changed")


class WorktreeTarget:
    name = "worktree"
    # the plan may drop pre-images: the transaction reads each again (checking its identity)
    # into the journal, so a large patch never holds every old file in memory at once
    needs_planned_preimages = False

    def __init__(self, root: str, git_dir: str | None = None, durable: bool = False,
                 gitfile: str | None = None) -> None:
        self.root = os.path.abspath(root)
        self.git_dir = git_dir  # where the crash journal goes; None outside a repository
        # no path may lead into these, whatever their names (fsops.Tree compares identities)
        self.guarded = git_directories(git_dir, gitfile)
        self.durable = durable  # True: fsync files, directories and journal (power loss)
        # paths the patch deletes or renames away: a file there may become a directory, and
        # a directory they empty may become a file (see read)
        self.removals: frozenset[str] = frozenset()
        self.early: Transaction | None = None  # staging while the plan runs (a large patch)
        try:
            if git_dir is not None and os.path.lexists(os.path.join(git_dir, JOURNAL_DIR)):
                from .journal import refuse_if_pending

                refuse_if_pending(git_dir)
            self.tree = Tree(self.root, self.guarded)
        except OSError as exc:
            raise _read_error(exc, None) from exc

    def close(self) -> None:
        if self.early is not None:  # planned and staged, but never written: remove it
            self.early.abandon()
            self.early = None
        self.tree.close()

    def prepare(self, patch: Patch, stage: bool) -> Callable[[FileChange], None] | None:
        """Before planning: learn the paths the patch removes (so ``read`` sees past them);
        with ``stage`` and many files, return a callback that stages each planned change at
        once, so the new contents never all sit in memory."""
        self.removals = frozenset(patch.removed_paths())
        if not stage:  # a --check: the write machinery stays unloaded
            return None
        from .transaction import PARALLEL_STAGING, entry_numbers

        files = [(fp.kind.value, fp.old_path, fp.path) for fp in patch.files]
        if sum(action != "delete" for action, _, _ in files) < PARALLEL_STAGING:
            return None
        txn = self.early = self._transaction(alone=True)
        txn.numbers = entry_numbers(files)
        txn.removed = set(self.removals)

        def stage_now(change: FileChange) -> None:
            try:
                txn.stage_planned(change)
            except OSError as exc:
                raise PatchError("io_error", f"writing failed: {exc.strerror or exc}",
                                 path=change.path) from exc

        return stage_now

    def read(self, path: str) -> SourceFile | None:
        try:
            got = self.tree.read(path)
        except PatchError as err:
            if err.code in ("already_exists", "not_a_regular_file") and self._gone(path):
                return None  # nothing will be in the way once the patch's removals are done
            raise
        except OSError as exc:
            raise _read_error(exc, path) from exc
        if got is None:
            return None
        content, st = got
        mode = EXECUTABLE if st.st_mode & stat.S_IXUSR else REGULAR
        return SourceFile(content, mode, identity(st))

    def _gone(self, path: str) -> bool:
        """Whether the patch's removals clear the way to ``path``: a file on the way that it
        removes (a directory takes its place), or a directory at ``path`` all of whose files
        it removes (a file takes its place, as in git's type changes)."""
        if not self.removals:
            return False
        parent = split(path)[0]
        while parent:
            if parent in self.removals:
                st = self.tree.lstat(parent)
                return st is not None and stat.S_ISREG(st.st_mode)
            parent = split(parent)[0]
        st = self.tree.lstat(path)
        if st is None or not stat.S_ISDIR(st.st_mode):
            return False
        try:
            return all(f"{path}/{rel}" in self.removals for rel in self.tree.files_below(path))
        except OSError as exc:
            raise _read_error(exc, path) from exc

    def protection(self) -> Protection:
        from .protect import worktree_protection

        return worktree_protection(self.root, self.git_dir)

    # -- writing -----------------------------------------------------------------------------
    def write(self, plan: Plan) -> dict[str, object]:
        from .interrupts import DeferredSignals
        from .transaction import undone

        saved: list[dict[str, object]] = []
        kept: list[tuple[str, str]] = []
        txn, self.early = self.early or self._transaction(alone=True), None
        with DeferredSignals() as signals:

            def save() -> None:
                """After staging (the new contents are out of memory by then) and before
                anything is deleted or replaced; a Ctrl-C in pygit2's import is held, too."""
                nonlocal saved, kept
                if any(change.action == "delete" for change in plan.changes):
                    from .objects import save_deleted

                    saved = save_deleted(self.git_dir, plan.changes, txn.old_content)
                    signals.checkpoint()
                kept = keep_preimages(self.git_dir, plan.changes, txn.old_content, saved)

            try:
                txn.run(plan.changes, signals.checkpoint, before_removals=save)
                signals.checkpoint()
                txn.commit()
            except BaseException as exc:
                error = undone(txn, exc)
                if error is exc:
                    raise
                raise error from exc
        if kept and self.git_dir is not None:
            from .history import record

            record(self.git_dir, kept)
        return {"deleted_blobs": saved}

    @property
    def three_way(self) -> RepositoryVersions | None:
        """The file's other versions for the three-way rescue (none outside a repository)."""
        if self.git_dir is None:
            return None
        from .versions import RepositoryVersions

        def open_git() -> object:
            from .gitrepo import open_repository

            return open_repository(self.root)

        return RepositoryVersions(open_git, self.git_dir, worktree_form=True)

    def _transaction(self, alone: bool = False) -> Transaction:
        from .transaction import Transaction

        return Transaction(self.tree, self.git_dir, self.durable, alone)

    def write_changes(self, changes: list[FileChange]) -> Transaction:
        """Write all of ``changes`` or none, leaving the journal in force: the caller (the
        index target) calls ``commit()`` after its own commit point, or ``rollback()``.
        A Ctrl-C during the write is raised when it returns, for the caller to undo."""
        from .interrupts import DeferredSignals
        from .transaction import undone

        txn = self._transaction()
        with DeferredSignals(redeliver=True) as signals:
            try:
                txn.run(changes, signals.checkpoint)
            except BaseException as exc:
                error = undone(txn, exc)
                if error is exc:
                    raise
                raise error from exc
        return txn
