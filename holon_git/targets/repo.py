"""Finding the repository a command runs in, the way git does, without importing pygit2."""

from __future__ import annotations

import os
from typing import NamedTuple

from ..errors import PatchError

JOURNAL_DIR = "holon-apply"  # crash journals of working-tree applies, in the git dir


class Location(NamedTuple):
    work_tree: str | None  # None for a bare repository
    git_dir: str | None  # None outside any repository


def _is_git_dir(path: str) -> bool:
    return (
        os.path.isfile(os.path.join(path, "HEAD"))
        and os.path.isdir(os.path.join(path, "objects"))
        and os.path.isdir(os.path.join(path, "refs"))
    )


def _gitfile_target(dot_git: str) -> str | None:
    """A '.git' file (worktrees, submodules) says 'gitdir: PATH'."""
    try:
        with open(dot_git, encoding="utf-8") as fh:
            first = fh.readline().strip()
    except OSError:
        return None
    if not first.startswith("gitdir:"):
        return None
    target = first[len("gitdir:"):].strip()
    return os.path.normpath(os.path.join(os.path.dirname(dot_git), target))


def locate(start: str | os.PathLike[str] = ".") -> Location:
    """Where the work tree and git dir are, honouring GIT_DIR and GIT_WORK_TREE."""
    start = os.path.abspath(start)
    env_dir, env_tree = os.environ.get("GIT_DIR"), os.environ.get("GIT_WORK_TREE")
    if env_dir:
        git_dir = os.path.abspath(env_dir)
        return Location(os.path.abspath(env_tree) if env_tree else start, git_dir)
    path = start
    while True:
        dot_git = os.path.join(path, ".git")
        if os.path.isdir(dot_git) and _is_git_dir(dot_git):
            return Location(os.path.abspath(env_tree) if env_tree else path, dot_git)
        if os.path.isfile(dot_git):
            target = _gitfile_target(dot_git)
            if target:
                return Location(os.path.abspath(env_tree) if env_tree else path, target)
        if _is_git_dir(path):
            return Location(os.path.abspath(env_tree) if env_tree else None, path)
        parent = os.path.dirname(path)
        if parent == path:
            return Location(None, None)
        path = parent


def root_of(location: Location, start: str | os.PathLike[str]) -> str:
    """The directory a working-tree apply writes under, for the ``location`` found from
    ``start``. Outside any repository this is ``start`` itself, as with ``git apply``; a bare
    repository has no working tree and is refused.
    """
    if location.git_dir is None:
        return os.path.abspath(start)
    if location.work_tree is None:
        raise PatchError("not_a_repository", f"{location.git_dir} is a bare repository with no "
                         "working tree", hint="apply to a branch with --ref (or --commit)")
    return location.work_tree
