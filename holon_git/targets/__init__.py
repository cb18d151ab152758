"""Where a plan is read from and written to. The only package that touches disk or git."""

from __future__ import annotations

from typing import Protocol

from ..plan import Plan, SourceFile

TARGETS = ("worktree",)


class Target(Protocol):
    name: str

    def read(self, path: str) -> SourceFile | None: ...

    def write(self, plan: Plan) -> dict[str, object]: ...

    def close(self) -> None: ...


def open_target(name: str, repo: str = ".") -> Target:
    if name == "worktree":
        from .repo import locate, work_tree_root
        from .worktree import WorktreeTarget

        return WorktreeTarget(work_tree_root(repo), locate(repo).git_dir)
    raise ValueError(f"unknown target {name!r}")
