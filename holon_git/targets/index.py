"""The index targets: ``index`` (--cached) and ``both`` (--index), optionally committing.

Order of events (docs/targets.md):
1. take ``index.lock`` (O_EXCL), then read the index: fresh, so a concurrent `git add` that
   finished before us is kept and one that starts after us fails on the lock;
2. plan against the index blobs (``index``) or the working tree checked against the index
   (``both``); new blobs go to the object database;
3. with --commit: build the commit's tree from HEAD's tree plus the patch, create the commit
   object, lock the branch and compare-and-swap it (``head_moved`` if it moved);
4. write the working-tree files (``both``; undoable until the commit point);
5. commit point, with Ctrl-C held: move the branch, rename the new index over the lock.
Any failure before the commit point undoes the files and leaves index and branch as they were.
"""

from __future__ import annotations

import hashlib
import os
from contextlib import suppress
from dataclasses import replace
from typing import Any

from ..core.change import FileChange, Plan, SourceFile, removed_paths
from ..core.model import FileKind, Mail, Patch
from ..core.policy import Protection
from ..errors import PatchError
from ..fs.gitdir_guard import GitDirGuard, mode_below, refuse_made_git_dirs
from ..fs.lock import IndexLock
from ..fs.signals import FORWARD, HeldSignals, checkpoint
from ..git import history
from ..git.branches import current_tip, head_commit, tree_of
from ..git.commit import BranchUpdate
from ..git.location import git_directories
from ..git.loose import keep_preimages
from ..git.objects import PlannedBlobs, blob_id, require_objects
from ..git.protect import repo_protection
from ..git.repository import GitRepo, open_repository
from ..git.stage import Entry, Stage, load_index, write_index
from ..git.versions import RepositoryVersions
from .base import CommitSpec, OnPlanned, Side, Target, plan_sides
from .worktree import WorktreeTarget


class IndexTarget(Target):
    """--cached: pre-images are index blobs; only the index (and the branch) change."""

    name = "index"
    # the write needs blob ids only, not the pre-images' contents: the plan may drop them
    needs_planned_preimages = False

    def __init__(self, repo: str, *, check: bool = False,
                 commit: CommitSpec | None = None) -> None:
        self.git: GitRepo = open_repository(repo)
        self.guard = GitDirGuard(self.git.work_tree,
                                 git_directories(self.git.git_dir, self.git.gitfile))
        self.planned = PlannedBlobs(self.git.repo)
        self.lock: IndexLock | None = None
        self.scratch: str | None = None
        self.branch: BranchUpdate | None = None
        self.head_stage: Stage | None = None
        self.branch_tree: Any = None  # the branch's tree, which the commit's starts from
        self.earlier: list[tuple[Mail, list[FileChange]]] = []  # commit_first
        try:
            self._require_work_tree()
            if not check:
                # a signal between the lock's creation and this assignment would leave the
                # lock with no one to release it: it is acted on once close() can
                with HeldSignals(at_end=FORWARD):
                    self.lock = IndexLock(self.git.index_path)
            self.index = self._load_index()
            self.stage = Stage(self.git.repo, self.index, "index")
            self.head_tree = tree_of(self.git.repo, head_commit(self.git.repo))
            if commit is not None:
                tip = current_tip(self.git.repo)
                self.branch = BranchUpdate(self.git, tip, commit.message, commit.author,
                                           commit.on_ref_update, commit.author_date)
                self.branch_tree = tree_of(self.git.repo, tip.old)
                self.head_stage = Stage.from_tree(self.git.repo, self.branch_tree, "HEAD")
        except BaseException:
            self.close()
            raise

    def _require_work_tree(self) -> None:
        """--cached needs an index but no working tree."""

    def _load_index(self) -> Any:
        if self.lock is None:
            return load_index(self.git.index_path)
        self.scratch = self.lock.scratch_path()  # set first: close() removes it
        return load_index(self.git.index_path, copy_to=self.scratch)

    def close(self) -> None:
        if self.branch is not None:
            self.branch.abort()
        if self.scratch is not None:
            with suppress(OSError):
                os.unlink(self.scratch)
            self.scratch = None
        if self.lock is not None:
            self.lock.release()

    # -- planning -----------------------------------------------------------------------------
    def read(self, path: str) -> SourceFile | None:
        self.guard.check(path)
        return self.stage.read(path)

    def protection(self) -> Protection:
        return repo_protection(self.git, self.head_tree)

    def validate(self, plan: Plan) -> None:
        """Refusals the planner cannot see: file/directory collisions and, for a commit,
        staged changes on a touched path (the commit must hold the patch and nothing else)."""
        removed = removed_paths(plan.changes)
        refuse_made_git_dirs((c.path for c in plan.changes if c.kind is not FileKind.DELETE),
                             mode_below(self.git.work_tree, self.stage.mode_of),
                             every_folder=True)
        for change in plan.changes:
            if change.kind in (FileKind.ADD, FileKind.RENAME):
                self.stage.check_free(change.path, removed)
        if self.head_stage is None or self.branch is None:
            return
        for change in plan.changes:
            for path in dict.fromkeys(p for p in (change.old_path, change.new_path) if p):
                if self.stage.entry(path) != self.head_stage.entry(path):
                    raise PatchError("index_mismatch", f"{path!r} has staged changes that are "
                                     "not in HEAD; the commit would include them", path=path,
                                     hint="commit or unstage (git restore --staged) that "
                                     "path first")
            if change.kind in (FileKind.ADD, FileKind.RENAME):
                self.head_stage.check_free(change.path, removed)

    def prepare(self, patch: Patch, stage: bool) -> OnPlanned | None:
        """With ``stage``, each new content goes to the object database as soon as its file
        is planned."""
        return self.planned.take if stage else None

    def commit_first(self, earlier: list[tuple[Mail, list[FileChange]]]) -> None:
        assert self.branch is not None, "a series is committed by --commit or --ref"
        self.earlier = earlier

    def known_versions(self) -> RepositoryVersions:
        """The three-way rescue's versions: ours is the index text, so HEAD is the usual
        base."""
        return RepositoryVersions(lambda: self.git, self.git.git_dir,
                                  worktree_form=self.name == "both", protection=self.protection,
                                  logged=self.name == "both")

    # -- contents -------------------------------------------------------------------------------
    def blob_content(self, change: FileChange) -> bytes:
        """The blob to store for a change's new content."""
        assert change.after is not None
        return change.after

    def old_blob(self, change: FileChange) -> tuple[bytes, int] | None:
        if change.before is None:
            return None
        return change.before.data, change.before.mode

    def diff_sides(self, plan: Plan) -> list[Side]:
        sides = []
        for change, side in zip(plan.changes, plan_sides(plan), strict=True):
            old = self.old_blob(change)
            new = self.blob_content(change) if change.after is not None else None
            sides.append(side._replace(old=old[0] if old else None, new=new,
                                       old_mode=old[1] if old else side.old_mode))
        return sides

    # -- writing ------------------------------------------------------------------------------
    def write_worktree(self, plan: Plan, blobs: dict[str, bytes]) -> Any:
        """Nothing to do for --cached; the ``both`` target writes files here."""
        return None

    def worktree_stats(self, plan: Plan) -> dict[str, os.stat_result] | None:
        return None

    def record_history(self, plan: Plan) -> dict[str, object]:
        """After the working tree was written: the pre-images go to the history log; the
        receipt's field when they could not (``history_not_written``)."""
        kept = keep_preimages(self.git.git_dir, plan.changes,
                              lambda change: change.before.data)  # type: ignore[union-attr]
        unwritten = history.record(self.git.git_dir, kept)
        return {"history_not_written": unwritten} if unwritten else {}

    def write(self, plan: Plan) -> dict[str, object]:
        assert self.lock is not None and self.scratch is not None, "opened with check=True"
        contents = {c.path: self.blob_content(c) for c in plan.changes if c.after is not None}
        blob_ids = self.planned.all_ids(contents)
        extra: dict[str, object] = {}
        commit_id = tree_id = None
        if self.branch is not None and self.head_stage is not None:
            if self.earlier:
                from .series import commit_earlier  # a series of mails only

                commit_earlier(self.git.repo, self.branch, self.branch_tree, self.earlier,
                               self.blob_content)
            self.head_stage.apply(plan.changes, blob_ids)
            tree_id = self.head_stage.write_tree()
            commit_id = self.branch.create_commit(tree_id)
            extra = self.branch.result(commit_id, tree_id)
            self.branch.run_hook()
            self.branch.lock()
        files = None
        branch_moved = False
        try:
            files = self.write_worktree(plan, contents)
            self.stage.apply(plan.changes, blob_ids, self.worktree_stats(plan))
            write_index(self.index)
            require_objects(self.git.repo, [*blob_ids.values(), tree_id, commit_id])
            checkpoint()  # a Ctrl-C held since the write began stops it here, undone below
            if files is not None:
                files.mark_commit_point(*self._commit_point(commit_id))
            with HeldSignals(at_end=FORWARD):
                if commit_id is not None and self.branch is not None:
                    self.branch.commit(commit_id)
                    branch_moved = True
                self.lock.commit(self.scratch)
                self.scratch = None
                if files is not None:  # the working tree's crash journal is not needed now
                    with suppress(OSError):
                        files.commit()
            if files is not None:
                extra = {**extra, **self.record_history(plan)}
        except BaseException as exc:
            if self.scratch is None:  # past the commit point: a Ctrl-C held over it
                raise
            if branch_moved and self.branch is not None and commit_id is not None \
                    and self.branch.revert(commit_id):
                branch_moved = False  # the branch is back: undo the rest as before the move
            if branch_moved:
                raise PatchError("io_error", f"committed {commit_id} but could not update the "
                                 f"index: {exc}", hint="run 'git reset' to make the index "
                                 "match the new commit") from exc
            if self.branch is not None:
                self.branch.abort(exc)
            if files is not None:
                files.rollback()
            if isinstance(exc, OSError):
                raise PatchError("io_error", f"writing the index failed: {exc}") from exc
            raise
        return extra


    def _commit_point(self, commit_id: Any) -> tuple[str, str, str | None, str | None, str]:
        """What the working tree's crash journal records to recognise, after a kill, that
        the new index or commit is in place (then --recover keeps the new files)."""
        assert self.scratch is not None and self.lock is not None
        with open(self.scratch, "rb") as fh:
            digest = hashlib.sha256(fh.read()).hexdigest()
        ref = self.branch.tip.ref if self.branch is not None else None
        return (self.lock.index_path, digest, ref, str(commit_id) if commit_id else None,
                self.scratch)


class BothTarget(IndexTarget):
    """--index: the working tree and the index together, as `git apply --index`.

    A touched path must be the same in both (its working-tree bytes, cleaned as `git add`
    would, hash to the index blob); otherwise the patch is refused with ``index_mismatch`` so
    nothing staged is overwritten. Modified files keep their working-tree bytes (CRLF stays
    CRLF) and the index gets the cleaned blob; added files are written as a checkout would
    write them.
    """

    name = "both"
    # the working tree's undo compares them with the files on disk
    needs_planned_preimages = True

    def __init__(self, repo: str, *, check: bool = False,
                 commit: CommitSpec | None = None, durable: bool = False) -> None:
        self.durable = durable
        self.entries: dict[str, Entry] = {}
        self.untracked: set[str] = set()
        self.worktree: Any = None
        super().__init__(repo, check=check, commit=commit)

    def _require_work_tree(self) -> None:
        if self.git.work_tree is None:
            raise PatchError("not_a_repository", f"{self.git.git_dir} is a bare repository "
                             "with no working tree",
                             hint="apply with --cached, or to a branch with --ref")
        self.worktree = WorktreeTarget(self.git.work_tree, self.git.git_dir, self.durable,
                                       self.git.gitfile)
        self.filemode = self.git.config_bool("core.filemode", True)

    def close(self) -> None:
        if self.worktree is not None:
            self.worktree.close()
        super().close()

    def prepare(self, patch: Patch, stage: bool) -> OnPlanned | None:
        """The working tree learns the removals; nothing is staged while planning, as the
        working-tree write needs the new contents themselves."""
        return self.worktree.prepare(patch, stage=False)

    def read(self, path: str) -> SourceFile | None:
        on_disk = self.worktree.read(path)
        entry = self.stage.entry(path)
        if entry is None:
            if on_disk is not None:
                self.untracked.add(path)
            return on_disk
        if on_disk is None:
            raise PatchError("index_mismatch", f"{path!r} is in the index but missing from the "
                             "working tree", path=path)
        self.git.refuse_unsupported_filters(path)
        if blob_id(self.git.to_blob(path, on_disk.content)) != entry.id:
            raise PatchError("index_mismatch", f"{path!r} differs between the working tree "
                             "and the index", path=path)
        if self.filemode and on_disk.mode != entry.mode:
            raise PatchError("index_mismatch", f"{path!r} has mode {on_disk.mode:o} in the "
                             f"working tree but {entry.mode:o} in the index", path=path)
        self.entries[path] = entry
        return SourceFile(on_disk.content, entry.mode, on_disk.token)

    def validate(self, plan: Plan) -> None:
        for change in plan.changes:
            source = change.old_path if change.before is not None else None
            if source is not None and source in self.untracked:
                raise PatchError("index_mismatch", f"{source!r} is in the working tree but "
                                 "not in the index", path=source,
                                 hint="'git add' the file first, or apply without --index")
            if change.after is not None:
                self.git.refuse_unsupported_filters(change.path)
        super().validate(plan)

    def blob_content(self, change: FileChange) -> bytes:
        assert change.after is not None
        return self.git.to_blob(change.path, change.after)

    def old_blob(self, change: FileChange) -> tuple[bytes, int] | None:
        entry = self.entries.get(change.old_path or "")
        if change.before is None or entry is None:
            return None
        return self.stage.blob(entry.id), entry.mode

    def write_worktree(self, plan: Plan, blobs: dict[str, bytes]) -> Any:
        changes = [
            replace(c, after=self.git.to_worktree(c.path, blobs[c.path]))
            if c.kind is FileKind.ADD else c
            for c in plan.changes
        ]
        return self.worktree.write_changes(changes)

    def worktree_stats(self, plan: Plan) -> dict[str, os.stat_result] | None:
        stats = {}
        for change in plan.changes:
            if change.after is not None:
                st = self.worktree.tree.lstat(change.path)
                if st is not None:
                    stats[change.path] = st
        return stats


class CheckedOutBranchTarget(BothTarget):
    """--ref naming the branch checked out in this working tree: the branch, its index and its
    working tree move together, as git's ``receive.denyCurrentBranch=updateInstead`` moves
    them for a push. Every path the patch touches must be clean: the same in the working
    tree, the index and the branch's commit (no untracked file where the patch adds one);
    otherwise ``uncommitted_changes`` and nothing is written. Paths it does not touch may
    hold any changes: they stay as they are, staged or not."""

    name = "ref"

    def _dirty(self, err: PatchError) -> PatchError:
        assert self.branch is not None
        branch = self.branch.tip.ref
        return PatchError("uncommitted_changes", f"{branch} is checked out here, and "
                          f"{err.message}", path=err.path, details={"ref": branch})

    def read(self, path: str) -> SourceFile | None:
        try:
            got = super().read(path)
        except PatchError as err:
            if err.code == "index_mismatch":
                raise self._dirty(err) from None
            raise
        if path in self.untracked:
            raise self._dirty(PatchError("index_mismatch", f"{path!r} is in the working tree "
                                         "but not committed", path=path))
        return got

    def validate(self, plan: Plan) -> None:
        try:
            super().validate(plan)
        except PatchError as err:
            if err.code == "index_mismatch":
                raise self._dirty(err) from None
            raise
