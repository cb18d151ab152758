"""Reading branches: HEAD, the branch to advance (its tip, for the compare-and-swap), and the
tree a commit has."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..errors import PatchError
from .libgit2 import pygit2
from .repository import git_error


@dataclass(frozen=True)
class Tip:
    ref: str  # full name, refs/heads/...
    old: pygit2.Oid | None  # None: the branch is unborn (no commit yet) or is to be created
    checked_out: bool  # HEAD points at it
    base: pygit2.Oid | None = None  # --base: the commit a branch to be created starts from

    @property
    def parent(self) -> pygit2.Oid | None:
        """The commit the patch applies on and the new commit's parent (None: a root
        commit)."""
        return self.base if self.base is not None else self.old


def lookup(repo: pygit2.Repository, name: str) -> Any:
    try:
        return repo.lookup_reference(name)
    except KeyError:
        return None
    except (pygit2.GitError, ValueError) as exc:
        raise git_error(exc, f"reading {name}") from exc


def head_branch(repo: pygit2.Repository) -> str | None:
    head = lookup(repo, "HEAD")
    if head is None or head.type != pygit2.enums.ReferenceType.SYMBOLIC:
        return None
    return str(head.target)


def ref_value(repo: pygit2.Repository, name: str) -> pygit2.Oid | None:
    ref = lookup(repo, name)
    if ref is None:
        return None
    if ref.type == pygit2.enums.ReferenceType.SYMBOLIC:
        raise PatchError("usage_error", f"{name} is a symbolic reference; name the branch it "
                         "points to")
    return ref.target


def current_tip(repo: pygit2.Repository) -> Tip:
    """The branch HEAD is on; a detached HEAD is refused (there is no branch to advance)."""
    branch = head_branch(repo)
    if branch is None:
        raise PatchError("detached_head", "HEAD is detached, so there is no branch to commit to")
    if not branch.startswith("refs/heads/"):
        raise PatchError("detached_head", f"HEAD points at {branch}, which is not a branch")
    return Tip(branch, ref_value(repo, branch), True)


def named_tip(repo: pygit2.Repository, name: str, base: str | None = None) -> Tip:
    """--ref NAME: 'main' or 'refs/heads/main'. Only HEAD's unborn branch may be missing,
    unless ``base`` (--base REV) names the commit a new branch starts from."""
    full = name if name.startswith("refs/") else f"refs/heads/{name}"
    if not full.startswith("refs/heads/") or not pygit2.reference_is_valid_name(full):
        raise PatchError("usage_error", f"--ref {name!r} does not name a branch",
                         hint="pass a branch name such as 'main' or 'refs/heads/main'")
    old = ref_value(repo, full)
    on_head = head_branch(repo)
    if base is not None:
        if old is not None:
            raise PatchError("usage_error", f"--base {base!r}: {full} exists already; --base "
                             "(base=) only creates a branch",
                             hint=f"drop --base to commit onto {full}, or name a new branch")
        if on_head == full:
            # the unborn branch HEAD is on: it does not exist yet, but it is checked out
            # here; made at --base it would move under this working tree and its index,
            # which would then hold the base's files as removed
            raise PatchError("usage_error", f"--base {base!r}: {full} has no commit yet and "
                             "is checked out here; creating it at another commit would leave "
                             "this working tree and its index behind",
                             hint=f"drop --base to make the first commit of {full} here, or "
                             "name a branch that is not checked out")
        return Tip(full, None, False, resolve_commit(repo, base))
    if old is None and on_head != full:
        raise PatchError("usage_error", f"there is no branch {full}",
                         hint="name an existing branch, or create this one with --base REV "
                         "(the commit it starts from)")
    return Tip(full, old, on_head == full)


def resolve_commit(repo: pygit2.Repository, rev: str) -> pygit2.Oid:
    """The commit ``rev`` names (a branch, tag, commit id or any revision git reads)."""
    try:
        return repo.revparse_single(rev).peel(pygit2.Commit).id
    except (KeyError, ValueError, pygit2.GitError, pygit2.InvalidSpecError):
        raise PatchError("usage_error", f"--base {rev!r} does not name a commit",
                         hint="name a branch, tag or commit id, e.g. --base main") from None


def is_branch_name(ref: str) -> bool:
    """A full branch name (``refs/heads/...``) that git would accept."""
    return ref.startswith("refs/heads/") and bool(pygit2.reference_is_valid_name(ref))


def head_commit(repo: pygit2.Repository) -> pygit2.Oid | None:
    """The commit HEAD resolves to (branch or detached); None while its branch is unborn."""
    branch = head_branch(repo)
    if branch is not None:
        return ref_value(repo, branch) if branch.startswith("refs/") else None
    head = lookup(repo, "HEAD")
    return head.target if head is not None else None


def tree_of(repo: pygit2.Repository, commit_id: pygit2.Oid | None) -> pygit2.Oid | None:
    if commit_id is None:
        return None
    try:
        return repo[commit_id].peel(pygit2.Tree).id
    except (KeyError, pygit2.GitError, ValueError) as exc:
        raise git_error(exc, f"reading the tree of {commit_id}") from exc
