"""The working-tree target: files read safely below the root (fs/tree.py), and a plan written
as one transaction, all files or none (fs/transaction.py).

The write machinery (the transaction, the crash journal, the signal holds, the loose objects
of the history log) is imported when something is written, not before: a --check, which
every pre-commit hook runs, needs none of it.
"""

from __future__ import annotations

import os
import stat
from typing import TYPE_CHECKING

from ..core.change import EXECUTABLE, REGULAR, FileChange, Plan, SourceFile
from ..core.model import FileKind, Patch
from ..core.policy import Protection
from ..errors import PatchError
from ..fs.gitdir_guard import refuse_made_git_dirs
from ..fs.tree import Tree, identity, split
from ..git import history
from ..git.location import JOURNAL_DIR, git_directories
from ..git.protect import worktree_protection
from ..git.versions import RepositoryVersions
from .base import OnPlanned, Target

if TYPE_CHECKING:
    from ..fs.transaction import Transaction


def _read_error(exc: OSError, path: str | None) -> PatchError:
    return PatchError("io_error", f"reading {path or 'the working tree'} failed: "
                      f"{exc.strerror or exc}", path=path,
                      hint="the filesystem refused a read; nothing was changed")


def _written(plan: Plan) -> list[FileChange]:
    """What a plan writes to the working tree: its changes, and --reject's *.rej files in the
    same transaction (no change of the patch's: not in the history log, nor for -N)."""
    if not plan.rejects:
        return plan.changes
    return [*plan.changes, *(rejects.change for rejects in plan.rejects)]


class WorktreeTarget(Target):
    name = "worktree"
    # the plan may drop pre-images: the transaction reads each again (checking its identity)
    # into the journal, so a large patch never holds every old file in memory at once
    needs_planned_preimages = False

    def __init__(self, root: str, git_dir: str | None = None, durable: bool = False,
                 gitfile: str | None = None, intent_to_add: bool = False) -> None:
        self.root = os.path.abspath(root)
        # -N: new files go into the index as intended to be added, once written
        self.intent_to_add = intent_to_add
        self.git_dir = git_dir  # where the crash journal goes; None outside a repository
        # no path may lead into these, whatever their names (fs/tree.py compares identities)
        self.guarded = git_directories(git_dir, gitfile)
        self.durable = durable  # True: fsync files, directories and journal (power loss)
        # paths the patch deletes or renames away: a file there may become a directory, and
        # a directory they empty may become a file (see read)
        self.removals: frozenset[str] = frozenset()
        self.early: Transaction | None = None  # staging while the plan runs (a large patch)
        try:
            if git_dir is not None and os.path.lexists(os.path.join(git_dir, JOURNAL_DIR)):
                # only then: a plain apply (or --check) need not load the journal code
                from ..fs.journal_dir import refuse_if_pending

                refuse_if_pending(git_dir)
            self.tree = Tree(self.root, self.guarded)
        except OSError as exc:
            raise _read_error(exc, None) from exc

    def close(self) -> None:
        if self.early is not None:  # planned and staged, but never written: remove it
            self.early.abandon()
            self.early = None
        self.tree.close()

    def prepare(self, patch: Patch, stage: bool) -> OnPlanned | None:
        """Before planning: learn the paths the patch removes (so ``read`` sees past them);
        with ``stage`` and many files, return a callback that stages each planned change at
        once, so the new contents never all sit in memory."""
        self.removals = frozenset(patch.removed_paths())
        if not stage:  # a --check: the write machinery stays unloaded
            return None
        from ..fs import signals, transaction

        files = [(fp.kind, fp.old_path, fp.path) for fp in patch.files]
        if sum(kind is not FileKind.DELETE for kind, _, _ in files) < transaction.PARALLEL_STAGING:
            return None
        # a Ctrl-C while the transaction claims its directory is raised once it is ours to
        # remove (close() abandons it), not left behind for --recover
        with signals.HeldSignals(at_end=signals.RAISE):
            txn = self.early = self._transaction(alone=True)
        txn.stages_early = True
        txn.numbers = transaction.entry_numbers(files)
        txn.removed = set(self.removals)

        def stage_now(change: FileChange) -> None:
            try:
                txn.stage_planned(change)
            except OSError as exc:  # a stager's failure names the file it was writing
                raise PatchError("io_error", f"writing failed: {exc.strerror or exc}",
                                 path=txn.current or change.path) from exc

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
        return worktree_protection(self.root, self.git_dir)

    def validate(self, plan: Plan) -> None:
        """A patch may not make a directory a git directory (fs/gitdir_guard.py)."""
        refuse_made_git_dirs((c.path for c in _written(plan) if c.kind is not FileKind.DELETE),
                             self._mode_of)

    def _mode_of(self, rel: str) -> int | None:
        try:
            st = self.tree.lstat(rel)
        except PatchError:  # a link on the way, or into a git directory: refused elsewhere
            return None
        return None if st is None else st.st_mode

    # -- writing -----------------------------------------------------------------------------
    def write(self, plan: Plan) -> dict[str, object]:
        from ..fs import signals, transaction
        from ..git import loose, objects

        saved: list[dict[str, object]] = []
        kept: list[tuple[str, str, str, str, str, str]] = []
        txn, self.early = self.early or self._transaction(alone=True), None
        with signals.HeldSignals(terminate=True) as held:

            def save() -> None:
                """After staging (the new contents are out of memory by then) and before
                anything is deleted or replaced. Deleted files go in as loose objects
                (git/loose.py); a Ctrl-C in pygit2's import, for a repository loose.py does
                not write, is held, too."""
                nonlocal saved, kept
                if any(change.kind is FileKind.DELETE for change in plan.changes):
                    saved = objects.save_deleted(self.git_dir, plan.changes, txn.old_content)
                    held.checkpoint()
                kept = loose.keep_preimages(self.git_dir, plan.changes, txn.old_content, saved)

            try:
                txn.run(_written(plan), held.checkpoint, before_removals=save)
                held.checkpoint()
                txn.commit()
            except BaseException as exc:
                error = transaction.undone(txn, exc)
                if error is exc:
                    raise
                raise error from exc
        extra: dict[str, object] = {"deleted_blobs": saved}
        if kept and self.git_dir is not None:
            unwritten = history.record(self.git_dir, kept)
            if unwritten:  # the apply stands; its re-send guard and -R record do not
                extra["history_not_written"] = unwritten
        if self.intent_to_add and self.git_dir is not None:
            extra.update(self._mark_intent_to_add(plan))
        return extra

    def _mark_intent_to_add(self, plan: Plan) -> dict[str, object]:
        """-N: record the files the patch created as intended to be added (``git add -N``,
        which leaves a path the index has alone). After the write, so a failure cannot undo
        it: the receipt says what git said instead."""
        from ..git.command import run_git

        created = [c.path for c in plan.changes if c.kind in (FileKind.ADD, FileKind.RENAME)]
        if not created:
            return {"intent_to_add": []}
        try:
            run_git(self.root, "--literal-pathspecs", "add", "--intent-to-add", "--", *created)
        except PatchError as err:
            return {"intent_to_add": [], "intent_to_add_failed": err.message}
        return {"intent_to_add": created}

    def known_versions(self) -> RepositoryVersions | None:
        """The file's other versions for the three-way rescue (none outside a repository):
        compared with the file on disk, so blobs are smudged as a checkout would."""
        if self.git_dir is None:
            return None
        return RepositoryVersions.of_worktree(self.root, self.git_dir, self.protection)

    def _transaction(self, alone: bool = False) -> Transaction:
        from ..fs.transaction import Transaction

        return Transaction(self.tree, self.git_dir, self.durable, alone)

    def write_changes(self, changes: list[FileChange]) -> Transaction:
        """Write all of ``changes`` or none, leaving the journal in force: the caller (the
        index target) calls ``commit()`` after its own commit point, or ``rollback()``.
        A Ctrl-C during the write is raised when it returns, for the caller to undo."""
        from ..fs import signals, transaction

        txn = self._transaction()
        with signals.HeldSignals(terminate=True, at_end=signals.RAISE) as held:
            try:
                txn.run(changes, held.checkpoint)
            except BaseException as exc:
                error = transaction.undone(txn, exc)
                if error is exc:
                    raise
                raise error from exc
        return txn
