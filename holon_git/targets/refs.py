"""The ``ref`` target (--ref BRANCH): apply to a branch's tree in the object database and advance
the branch with a new commit. No working tree or index is read or written, so it works in bare
repositories; the branch moves by compare-and-swap (git/commit.py BranchUpdate).
"""

from __future__ import annotations

from ..core.change import Plan, SourceFile, removed_paths
from ..core.model import Diagnostic, FileKind, Patch
from ..core.policy import Protection
from ..fs.gitdir_guard import GitDirGuard, mode_below, refuse_made_git_dirs
from ..fs.signals import FORWARD, HeldSignals, checkpoint
from ..git.branches import named_tip, tree_of
from ..git.commit import BranchUpdate
from ..git.location import git_directories
from ..git.objects import PlannedBlobs, require_objects
from ..git.protect import repo_protection
from ..git.repository import open_repository
from ..git.stage import Stage
from ..git.versions import RepositoryVersions
from .base import CommitSpec, OnPlanned, Target


class RefTarget(Target):
    name = "ref"
    needs_planned_preimages = False  # the commit needs blob ids only

    def __init__(self, repo: str, commit: CommitSpec) -> None:
        assert commit.ref is not None
        self.git = open_repository(repo)
        self.guard = GitDirGuard(self.git.work_tree,
                                 git_directories(self.git.git_dir, self.git.gitfile))
        self.tip = named_tip(self.git.repo, commit.ref)
        self.base_tree = tree_of(self.git.repo, self.tip.old)
        self.stage = Stage.from_tree(self.git.repo, self.base_tree, self.tip.ref)
        self.branch = BranchUpdate(self.git, self.tip, commit.message, commit.author,
                                   commit.on_ref_update)
        self.planned = PlannedBlobs(self.git.repo)

    def close(self) -> None:
        self.branch.abort()

    def prepare(self, patch: Patch, stage: bool) -> OnPlanned | None:
        """With ``stage``, each new content goes to the object database as soon as its file
        is planned."""
        return self.planned.take if stage else None

    def read(self, path: str) -> SourceFile | None:
        self.guard.check(path)
        return self.stage.read(path)

    def known_versions(self) -> RepositoryVersions:
        """The three-way rescue's versions: ours is the branch's text; the patch's index
        line, HEAD and the history log are the bases."""
        return RepositoryVersions(lambda: self.git, self.git.git_dir, worktree_form=False,
                                  protection=self.protection)

    def protection(self) -> Protection:
        return repo_protection(self.git, self.base_tree)

    def validate(self, plan: Plan) -> None:
        removed = removed_paths(plan.changes)
        refuse_made_git_dirs((c.path for c in plan.changes if c.kind is not FileKind.DELETE),
                             mode_below(self.git.work_tree, self.stage.mode_of),
                             every_folder=True)
        for change in plan.changes:
            if change.kind in (FileKind.ADD, FileKind.RENAME):
                self.stage.check_free(change.path, removed)
        plan.diagnostics.extend(self.branch.ids.notes)
        if self.tip.checked_out and self.git.work_tree is not None:
            plan.diagnostics.append(Diagnostic(
                "checked_out_branch", f"{self.tip.ref} is checked out here; its working tree "
                "and index were not updated, so they now show the new commit's changes as "
                "undone"))

    def write(self, plan: Plan) -> dict[str, object]:
        blob_ids = self.planned.all_ids({c.path: c.after for c in plan.changes
                                         if c.after is not None})
        self.stage.apply(plan.changes, blob_ids)
        tree_id = self.stage.write_tree()
        commit_id = self.branch.create_commit(tree_id)
        self.branch.run_hook()
        checkpoint()  # a Ctrl-C held since the write began stops it here: nothing moved yet
        with HeldSignals(at_end=FORWARD):
            self.branch.lock()
            require_objects(self.git.repo, [*blob_ids.values(), tree_id, commit_id])
            self.branch.commit(commit_id)
        return self.branch.result(commit_id, tree_id)

