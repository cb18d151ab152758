"""The ``ref`` target (--ref BRANCH): apply to a branch's tree in the object database and advance
the branch with a new commit. No working tree or index is read or written, so it works in bare
repositories; the branch moves by compare-and-swap (commit.BranchUpdate).
"""

from __future__ import annotations

from collections.abc import Callable

from ..model import Diagnostic, Patch
from ..plan import FileChange, Plan, SourceFile, removed_paths
from ..policy import Protection
from . import CommitSpec
from .commit import BranchUpdate, named_tip, tree_of
from .gitdiff import Side, plan_sides
from .gitdir_guard import GitDirGuard
from .gitrepo import open_repository, require_objects
from .interrupts import checkpoint
from .lock import interrupts_deferred
from .protect import repo_protection
from .repo import git_directories
from .stage import PlannedBlobs, Stage
from .versions import RepositoryVersions


class RefTarget:
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
        self.branch = BranchUpdate(self.git, self.tip, commit)
        self.planned = PlannedBlobs(self.git.repo)

    def close(self) -> None:
        self.branch.abort()

    def prepare(self, patch: Patch, stage: bool) -> Callable[[FileChange], None] | None:
        """With ``stage``, each new content goes to the object database as soon as its file
        is planned."""
        return self.planned.take if stage else None

    def read(self, path: str) -> SourceFile | None:
        self.guard.check(path)
        return self.stage.read(path)

    @property
    def three_way(self) -> RepositoryVersions:
        """The three-way rescue's versions: ours is the branch's text; the patch's index
        line, HEAD and the history log are the bases."""
        return RepositoryVersions(lambda: self.git, self.git.git_dir, worktree_form=False)

    def protection(self) -> Protection:
        return repo_protection(self.git, self.base_tree)

    def validate(self, plan: Plan) -> None:
        removed = removed_paths(plan.changes)
        for change in plan.changes:
            if change.action in ("add", "rename"):
                self.stage.check_free(change.path, removed)
        plan.diagnostics.extend(self.branch.ids.notes)
        if self.tip.checked_out and self.git.work_tree is not None:
            plan.diagnostics.append(Diagnostic(
                "checked_out_branch", f"{self.tip.ref} is checked out here; its working tree "
                "and index were not updated, so they now show the new commit's changes as "
                "undone"))

    def diff_sides(self, plan: Plan) -> list[Side]:
        return plan_sides(plan)

    def write(self, plan: Plan) -> dict[str, object]:
        blob_ids = self.planned.all_ids({c.path: c.after for c in plan.changes
                                         if c.after is not None})
        self.stage.apply(plan.changes, blob_ids)
        tree_id = self.stage.write_tree()
        commit_id = self.branch.create_commit(tree_id)
        self.branch.run_hook()
        checkpoint()  # a Ctrl-C held since the write began stops it here: nothing moved yet
        with interrupts_deferred():
            self.branch.lock()
            require_objects(self.git.repo, [*blob_ids.values(), tree_id, commit_id])
            self.branch.commit(commit_id)
        return self.branch.result(commit_id, tree_id)

