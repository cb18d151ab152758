"""Opening a target by name. The index and ref targets' modules are imported when one of them
is opened: a working-tree apply, the common case, does not load them."""

from __future__ import annotations

from ..git.location import locate, root_of
from .base import CommitSpec, Target
from .worktree import WorktreeTarget

TARGETS = ("worktree", "index", "both", "ref")


def open_target(name: str, repo: str = ".", *, check: bool = False,
                commit: CommitSpec | None = None, durable: bool = False,
                intent_to_add: bool = False) -> Target:
    if name == "worktree":
        location = locate(repo)
        return WorktreeTarget(root_of(location, repo), location.git_dir, durable,
                              location.gitfile, intent_to_add=intent_to_add)
    if name in ("index", "both"):
        from .index import BothTarget, IndexTarget

        if name == "index":
            return IndexTarget(repo, check=check, commit=commit)
        return BothTarget(repo, check=check, commit=commit, durable=durable)
    if name == "ref":
        from .refs import open_ref_target

        assert commit is not None and commit.ref is not None
        return open_ref_target(repo, commit, check=check, durable=durable)
    raise ValueError(f"unknown target {name!r}")
