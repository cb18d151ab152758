"""Finding the repository a command runs in, the way git does, without importing pygit2.

GIT_DIR (a git directory, or a file saying 'gitdir: PATH') and GIT_WORK_TREE are honoured,
then core.worktree in the repository's config; a discovered repository must pass git's
ownership check (ownership.py).
"""

from __future__ import annotations

import os
import time
from functools import lru_cache
from typing import NamedTuple

from ..errors import PatchError
from .libgit2 import pygit2
from .ownership import ensure_valid_ownership

JOURNAL_DIR = "holon-apply"  # crash journals of working-tree applies, in the git dir (fs/)
_TRUE = ("1", "true", "yes", "on")


class Location(NamedTuple):
    work_tree: str | None  # None for a bare repository
    git_dir: str | None  # None outside any repository
    gitfile: str | None = None  # the file that pointed to git_dir ('.git' in a worktree)


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
            first = fh.readline(4096).strip()
    except (OSError, UnicodeDecodeError):
        return None
    if not first.startswith("gitdir:"):
        return None
    target = first[len("gitdir:"):].strip()
    return os.path.normpath(os.path.join(os.path.dirname(dot_git), target))


@lru_cache(maxsize=64)
def common_dir(git_dir: str) -> str:
    """The directory a linked worktree's git dir shares with the main one (``commondir``);
    the git dir itself otherwise. (Remembered per process: git writes ``commondir`` once,
    when it adds the worktree.)"""
    try:
        with open(os.path.join(git_dir, "commondir"), encoding="utf-8") as fh:
            shared = fh.readline(4096).strip()
    except (OSError, UnicodeDecodeError):
        return git_dir
    return os.path.normpath(os.path.join(git_dir, shared)) if shared else git_dir


def git_directories(git_dir: str | None, gitfile: str | None = None) -> list[str]:
    """What no patch may write into: the git dir, its common dir and the file pointing to
    it (whatever their names, wherever they are)."""
    if git_dir is None:
        return []
    found = [git_dir]
    shared = common_dir(git_dir)
    if shared != git_dir:
        found.append(shared)
    if gitfile is not None:
        found.append(gitfile)
    return found


_SETTLED_NS = 2_000_000_000  # a file older than this cannot change unseen (its mtime shows it)
_mentions: dict[tuple[object, ...], bool] = {}  # config file identity -> names a work tree?


def _mentions_work_tree(path: str) -> bool:
    """Whether the config file may set core.worktree. Agents apply many patches from one
    process: the answer is remembered while the file keeps its identity and is old enough
    for its mtime to show a change (a stat instead of a read)."""
    try:
        st = os.stat(path)
    except OSError:
        return False
    key = (path, st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns)
    if key in _mentions:
        return _mentions[key]
    try:
        with open(path, "rb") as fh:
            answer = b"worktree" in fh.read(1 << 20).lower()
    except OSError:
        return False
    now = time.time_ns()
    if now - st.st_mtime_ns >= _SETTLED_NS and now - st.st_ctime_ns >= _SETTLED_NS:
        if len(_mentions) > 64:
            _mentions.clear()
        _mentions[key] = answer
    return answer


def _configured_work_tree(git_dir: str) -> tuple[bool, str | None]:
    """(core.bare, core.worktree) from the repository's config, when it names a work tree;
    the common case, a config that does not, costs a stat (and core.bare is left to the
    caller, as before)."""
    if not _mentions_work_tree(os.path.join(git_dir, "config")):
        return False, None
    bare = (_config_value(git_dir, "core.bare") or "").lower() in _TRUE
    configured = _config_value(git_dir, "core.worktree")
    if not configured:
        return bare, None
    return bare, os.path.normpath(os.path.join(git_dir, os.path.expanduser(configured)))


def _config_value(git_dir: str, name: str) -> str | None:
    try:
        config = pygit2.Config(os.path.join(git_dir, "config"))
        value = config[name]
    except (KeyError, pygit2.GitError, OSError, ValueError):
        return None
    return value if isinstance(value, str) else None


def _explicit(env_dir: str, env_tree: str | None, start: str) -> Location:
    """GIT_DIR given: no discovery and, as in git, no ownership check."""
    git_dir, gitfile = os.path.abspath(env_dir), None
    if os.path.isfile(git_dir):
        target = _gitfile_target(git_dir)
        if target is not None:
            git_dir, gitfile = target, git_dir
    if env_tree:
        return Location(os.path.abspath(env_tree), git_dir, gitfile)
    bare, configured = _configured_work_tree(git_dir)
    if bare:
        return Location(None, git_dir, gitfile)
    return Location(configured or start, git_dir, gitfile)


def _found(work_tree: str | None, git_dir: str, gitfile: str | None,
           env_tree: str | None) -> Location:
    """A discovered repository: git's ownership check, then the work tree it configures."""
    ensure_valid_ownership(gitfile, work_tree, git_dir)
    if env_tree:
        return Location(os.path.abspath(env_tree), git_dir, gitfile)
    bare, configured = _configured_work_tree(git_dir)
    if configured and not bare:
        return Location(configured, git_dir, gitfile)
    return Location(work_tree, git_dir, gitfile)


def locate(start: str | os.PathLike[str] = ".") -> Location:
    """Where the work tree and git dir are, honouring GIT_DIR, GIT_WORK_TREE and
    core.worktree; refuses (unsafe_repository) a discovered repository of another user."""
    start = os.path.abspath(start)
    env_dir, env_tree = os.environ.get("GIT_DIR"), os.environ.get("GIT_WORK_TREE")
    if env_dir:
        return _explicit(env_dir, env_tree, start)
    path = start
    while True:
        dot_git = os.path.join(path, ".git")
        if os.path.isdir(dot_git) and _is_git_dir(dot_git):
            return _found(path, dot_git, None, env_tree)
        if os.path.isfile(dot_git):
            target = _gitfile_target(dot_git)
            if target:
                return _found(path, target, dot_git, env_tree)
        if _is_git_dir(path):
            return _found(None, path, None, env_tree)
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


def subdirectory(start: str | os.PathLike[str] = ".") -> str:
    """Where ``start`` is below the top of its working tree, as git's prefix ('src/app'; ''
    at the top, in a bare repository, outside any repository or outside the work tree)."""
    location = locate(start)
    if location.git_dir is None or location.work_tree is None:
        return ""
    relative = os.path.relpath(os.path.abspath(start), location.work_tree)
    relative = relative.replace(os.sep, "/")
    if relative in (".", "..") or relative.startswith(("../", "/", ".git/")) or \
            relative == ".git":
        return ""
    return relative
