"""The ``ref`` target (--ref BRANCH): apply to a branch's tree in the object database and advance
the branch with a new commit. No working tree or index is read or written, so it works in bare
repositories; the branch moves by compare-and-swap (git/commit.py BranchUpdate).

The branch checked out in this repository's working tree is the exception: as git's
``receive.denyCurrentBranch=updateInstead`` does for a push, its index and working tree move
with it, in the same transaction, and only where they are clean for the paths the patch
touches (``CheckedOutBranchTarget``); otherwise the patch is refused (``uncommitted_changes``).
"""

from __future__ import annotations

from ..core.change import FileChange, Plan, SourceFile, removed_paths
from ..core.model import FileKind, Mail, Patch
from ..core.policy import Protection
from ..errors import PatchError
from ..fs.gitdir_guard import GitDirGuard, mode_below, refuse_made_git_dirs
from ..fs.signals import FORWARD, HeldSignals, checkpoint
from ..git.branches import Tip, head_commit, named_tip, tree_of
from ..git.commit import BranchUpdate
from ..git.location import git_directories
from ..git.objects import PlannedBlobs, require_objects
from ..git.protect import repo_protection
from ..git.repository import GitRepo, open_repository
from ..git.stage import Stage
from ..git.versions import RepositoryVersions
from ..git.worktrees import Holder, head_ref, holder_of
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
    # opened from its git directory (--repo .git, or a directory inside it), this repository
    # has no working tree of its own here, but its HEAD's branch is still checked out in the
    # working tree of that git directory: git refuses to move it, and so does this
    holder = holder_of(git.git_dir, tip.ref, own_head=git.work_tree is None)
    if holder is None and not tip.checked_out and head_ref(git.git_dir) == tip.ref:
        raise _unreadable_head(tip.ref)
    if holder is not None:
        raise _held(tip.ref, commit.ref, holder)
    return RefTarget(git, tip, commit)


def _unreadable_head(ref: str) -> PatchError:
    """This working tree's HEAD names ``ref`` as git reads it, but libgit2 did not see a
    branch there: a HEAD that is a symbolic link (core.preferSymlinkRefs), which libgit2
    follows to the commit. Moved from the object database alone, the branch would leave this
    working tree and its index behind; moving them with it needs the HEAD libgit2 reads."""
    return PatchError(
        "uncommitted_changes", f"{ref} is checked out in this working tree through a HEAD "
        "that is a symbolic link (core.preferSymlinkRefs), which git's library reads as a "
        "detached HEAD; moving the branch from here would leave this working tree and its "
        "index behind", details={"ref": ref, "state": "checked out"},
        hint="make HEAD a plain file ('git -c core.preferSymlinkRefs=false symbolic-ref HEAD "
        f"{ref}') and apply again")


def _held(ref: str, asked: str, holder: Holder) -> PatchError:
    """A branch another working tree holds (git/worktrees.py) is refused, as `git branch -f`
    refuses it: moved from here, that tree's index would hold the patch reversed, or a
    rebase or bisect there would put the branch back without the commit."""
    details: dict[str, object] = {"ref": ref, "worktree": holder.tree, "state": holder.how}
    if holder.how == "checked out":
        return PatchError(
            "uncommitted_changes", f"{ref} is checked out in the working tree at "
            f"{holder.tree}; moving it from here would leave that working tree and its index "
            "behind", details=details,
            hint=(f"apply there (--repo {holder.tree})" if holder.placed else
                  f"apply in the working tree whose git directory is {holder.tree}")
            + f", where --ref {asked} moves the branch with its index and working tree")
    command = "rebase" if holder.how == "being rebased" else "bisect"
    return PatchError(
        "uncommitted_changes", f"{ref} is {holder.how} in the working tree at {holder.tree}; "
        f"git counts it as checked out there: the {command} sets the branch again when it "
        "ends, dropping this commit", details=details,
        hint=("finish the rebase there first ('git rebase --continue', or '--abort')"
              if command == "rebase" else "end the bisect there first ('git bisect reset')")
        + ", then apply again")


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
                                   commit.on_ref_update, commit.author_date)
        self.planned = PlannedBlobs(self.git.repo)
        self.earlier: list[tuple[Mail, list[FileChange]]] = []  # commit_first

    def close(self) -> None:
        self.branch.abort()

    def prepare(self, patch: Patch, stage: bool) -> OnPlanned | None:
        """With ``stage``, each new content goes to the object database as soon as its file
        is planned."""
        return self.planned.take if stage else None

    def read(self, path: str) -> SourceFile | None:
        self.guard.check(path)
        return self.stage.read(path)

    def commit_first(self, earlier: list[tuple[Mail, list[FileChange]]]) -> None:
        self.earlier = earlier

    def known_versions(self) -> RepositoryVersions:
        """The three-way rescue's versions: ours is the branch's text; the patch's index
        line, HEAD and the history log are the bases."""
        return RepositoryVersions(lambda: self.git, self.git.git_dir, worktree_form=False,
                                  protection=self.protection)

    def protection(self) -> Protection:
        """The policy in force now: git config, HEAD's .holon/protect, and the branch's own
        (for a branch --base creates, the base's). A branch or base from before a rule was
        committed does not lift it: its rules add to HEAD's, never replace them."""
        head = tree_of(self.git.repo, head_commit(self.git.repo))
        return repo_protection(self.git, head, self.base_tree)

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
        if self.earlier:
            from .series import commit_earlier  # a series of mails only

            commit_earlier(self.git.repo, self.branch, self.base_tree, self.earlier,
                           _content)
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



def _content(change: FileChange) -> bytes:
    """A change's new content, which the branch stores as it is (no working tree)."""
    assert change.after is not None
    return change.after
