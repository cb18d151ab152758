"""Where a plan is read from and written to. The only package that touches disk or git.

Targets (docs/targets.md): ``worktree`` (files only), ``index`` (--cached: the index only),
``both`` (--index: working tree and index), ``ref`` (--ref: a branch in the object database
only). ``index`` and ``both`` can also commit (--commit); ``ref`` always does.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol

from ..plan import Plan, SourceFile
from ..policy import Protection

TARGETS = ("worktree", "index", "both", "ref")


@dataclass(frozen=True)
class CommitSpec:
    """What to commit with, and where: the current branch, or ``ref`` (a branch name)."""

    message: str
    author: str | None = None  # "Name <email>"; default: git's author rules
    ref: str | None = None
    # Called after the commit object exists and before the branch is compare-and-swapped;
    # lets tests (and cautious automation) observe or provoke a concurrent update.
    on_ref_update: Callable[[], None] | None = None


class Target(Protocol):
    name: str

    def read(self, path: str) -> SourceFile | None: ...

    def write(self, plan: Plan) -> dict[str, object]: ...

    def close(self) -> None: ...

    def protection(self) -> Protection: ...

    # Optional: validate(plan) refuses a plan before anything is written (also with --check);
    # diff_sides(plan) gives the contents --emit-diff compares (see gitdiff.Side);
    # prepare(patch, stage), called before planning: the target may learn the paths the
    # patch deletes or renames away, so read() sees past them (a removed file on the way to
    # an added path, a directory the removals empty at one), and, when ``stage`` (a write),
    # return a callback the plan calls with each change as soon as it is planned, to write
    # its new content out then (or None); needs_planned_preimages (default True) False lets
    # the plan drop the pre-images' contents once each file is planned.


def open_target(name: str, repo: str = ".", *, check: bool = False,
                commit: CommitSpec | None = None, durable: bool = False) -> Target:
    if name == "worktree":
        from .repo import locate, root_of
        from .worktree import WorktreeTarget

        location = locate(repo)
        return WorktreeTarget(root_of(location, repo), location.git_dir, durable,
                              location.gitfile)
    if name in ("index", "both"):
        from .index import BothTarget, IndexTarget

        if name == "index":
            return IndexTarget(repo, check=check, commit=commit)
        return BothTarget(repo, check=check, commit=commit, durable=durable)
    if name == "ref":
        from .refs import RefTarget

        assert commit is not None and commit.ref is not None
        return RefTarget(repo, commit)
    raise ValueError(f"unknown target {name!r}")
