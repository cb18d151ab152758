"""The ``ref`` target (--ref BRANCH): apply to a branch's tree in the object database and advance
the branch with a new commit. No working tree or index is read or written, so it works in bare
repositories; the branch moves by compare-and-swap (git/commit.py BranchUpdate).

The branch checked out in this repository's working tree is the exception: as git's
``receive.denyCurrentBranch=updateInstead`` does for a push, its index and working tree move
with it, in the same transaction, and only where they are clean for the paths the patch
touches (``CheckedOutBranchTarget``); otherwise the patch is refused (``uncommitted_changes``).
"""

from __future__ import annotations

from ..core.change import Plan, SourceFile, removed_paths
from ..core.model import FileKind, Patch
from ..core.policy import Protection
from ..errors import PatchError
from ..fs.gitdir_guard import GitDirGuard, mode_below, refuse_made_git_dirs
from ..fs.signals import FORWARD, HeldSignals, checkpoint
from ..git.branches import Tip, checked_out_elsewhere, named_tip, tree_of
from ..git.commit import BranchUpdate
from ..git.location import git_directories
from ..git.objects import PlannedBlobs, require_objects
from ..git.protect import repo_protection
from ..git.repository import GitRepo, open_repository
from ..git.stage import Stage
from ..git.versions import RepositoryVersions
from .base import CommitSpec, OnPlanned, Target


def open_ref_target(repo: str, commit: CommitSpec, *, check: bool = False,
                    durable: bool = False) -> Target:
    """The target for --ref: the object database only, or, for the branch checked out in
    this working tree, the branch with its index and working tree."""
    assert commit.ref is not None
    git = open_repository(repo)
    tip = named_tip(git.repo, commit.ref, commit.base)
    if tip.checked_out and git.work_tree is not None:
        from .index import CheckedOutBranchTarget

        return CheckedOutBranchTarget(repo, check=check, commit=commit, durable=durable)
    elsewhere = checked_out_elsewhere(git.git_dir, tip.ref)
    if elsewhere is not None:
        raise PatchError("uncommitted_changes", f"{tip.ref} is checked out in the working tree "
                         f"at {elsewhere}; moving it from here would leave that working tree "
                         "and its index behind", details={"ref": tip.ref, "worktree": elsewhere},
                         hint=f"apply there (--repo {elsewhere}), where --ref {commit.ref} "
                         "moves the branch with its index and working tree")
    return RefTarget(git, tip, commit)


class RefTarget(Target):
    name = "ref"
    needs_planned_preimages = False  # the commit needs blob ids only

    def __init__(self, git: GitRepo, tip: Tip, commit: CommitSpec) -> None:
        self.git = git
        self.guard = GitDirGuard(self.git.work_tree,
                                 git_directories(self.git.git_dir, self.git.gitfile))
        self.tip = tip
        self.base_tree = tree_of(self.git.repo, self.tip.parent)
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

