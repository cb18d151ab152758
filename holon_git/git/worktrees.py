"""Which working tree of a repository holds a branch, as git counts it before it moves one
(`git branch -f` refuses such a branch: git's ``branch_checked_out``).

A branch is held by a working tree when that tree's HEAD points at it, when a rebase there is
rewriting it (HEAD detached by `git rebase`: ``rebase-merge/head-name`` or
``rebase-apply/head-name``, and the branches ``rebase --update-refs`` will move), or when a
bisect there started from it (``BISECT_START``): `git rebase --abort` and `git bisect reset`
put such a branch back where they found it, dropping whatever moved it meanwhile.

The working trees are the main one (unless the repository is bare: ``core.bare``), whatever
its git directory is called (``.git``, a ``--separate-git-dir``, a ``core.worktree`` layout),
and every linked one (``worktrees/<name>`` of the common directory). All of it is read from
the git directories' files, as git reads them; an unreadable file holds nothing.
"""

from __future__ import annotations

import os
from typing import NamedTuple

from .libgit2 import pygit2
from .location import common_dir

_READ = 4096  # bytes of a HEAD, head-name or BISECT_START file read: a ref name fits


class Holder(NamedTuple):
    tree: str  # the working tree, or the git directory of a main one that names no tree
    how: str  # "checked out", "being rebased", "being bisected"
    placed: bool = True  # ``tree`` is the working tree itself


def holder_of(git_dir: str, ref: str, *, own_head: bool = False) -> Holder | None:
    """The working tree of this repository that holds ``ref`` (a full branch name), other
    than by this working tree's own HEAD (``git_dir``'s, the caller's concern, unless
    ``own_head``); None if none does. This working tree's rebase or bisect of ``ref`` counts.

    ``own_head`` is for a repository opened from its git directory (``--repo .git``, or a
    working directory inside it): git counts the HEAD there too, as the working tree of that
    git directory holds it (a bare repository has none, so nothing is held there)."""
    here = os.path.realpath(git_dir)
    for admin, tree in _worktrees(common_dir(git_dir)):
        placed = os.path.realpath(tree) != os.path.realpath(admin)
        mine = os.path.realpath(admin) == here and not own_head
        if not mine and head_ref(admin) == ref:
            return Holder(tree, "checked out", placed)
        if ref in _rebased(admin):
            return Holder(tree, "being rebased", placed)
        if _bisected(admin) == ref:
            return Holder(tree, "being bisected", placed)
    return None


def _worktrees(common: str) -> list[tuple[str, str]]:
    """(git directory, working tree) of the main working tree, unless the repository is
    bare, and of each linked one."""
    found = []
    main = _main_tree(common)
    if main is not None:
        found.append((common, main))
    try:
        names = sorted(os.listdir(os.path.join(common, "worktrees")))
    except OSError:
        names = []
    for name in names:
        admin = os.path.join(common, "worktrees", name)
        gitfile = _first_line(os.path.join(admin, "gitdir"))
        if gitfile:
            found.append((admin, os.path.dirname(gitfile)))
    return found


def _main_tree(common: str) -> str | None:
    """The main working tree of the repository whose common directory is ``common``; None
    when the repository is bare. As git: bare when core.bare says so (true: a repository
    that does not say is not bare, as git sees it from a linked worktree); otherwise it is
    core.worktree when set, else the directory holding a git directory named ``.git``, and
    for any other name (``git init --separate-git-dir``, which records no tree) git names
    the git directory itself."""
    bare = worktree = None
    for name in ("config", "config.worktree"):
        path = os.path.join(common, name)
        if not os.path.isfile(path):
            continue
        try:
            config = pygit2.Config(path)
            if "core.bare" in config:
                bare = config.get_bool("core.bare")
            if "core.worktree" in config:
                worktree = str(config["core.worktree"])
        except (pygit2.GitError, ValueError, KeyError):
            continue
    if bare:
        return None
    if worktree:
        return os.path.normpath(os.path.join(common, worktree))
    common = os.path.normpath(common)
    return os.path.dirname(common) if os.path.basename(common) == ".git" else common


def head_ref(admin: str) -> str:
    """The ref the HEAD of the git directory ``admin`` points at ("" when it is detached or
    unreadable), read as git's files backend reads it: a symbolic link whose text is a ref
    name (``core.preferSymlinkRefs``) names that ref; otherwise the file's first line,
    ``ref:`` then any blanks then the name (git writes one space; it reads none or several)."""
    path = os.path.join(admin, "HEAD")
    try:
        target = os.readlink(path)
    except OSError:
        target = ""  # not a link (or gone): the file is read
    if target.startswith("refs/"):
        return target.strip()
    line = _first_line(path)  # a link that names no ref is followed, as git follows it
    return line[len("ref:"):].strip() if line.startswith("ref:") else ""


def _rebased(admin: str) -> set[str]:
    """The branches a rebase in progress in the git directory ``admin`` rewrites."""
    apply = os.path.join(admin, "rebase-apply")
    if os.path.isdir(apply):
        if os.path.exists(os.path.join(apply, "applying")):
            return set()  # git am, which rewrites no branch
        names = [_first_line(os.path.join(apply, "head-name"))]
    elif os.path.isdir(merge := os.path.join(admin, "rebase-merge")):
        names = [_first_line(os.path.join(merge, "head-name"))]
        try:  # rebase --update-refs: each ref, its old and its new commit, a line each
            with open(os.path.join(merge, "update-refs"), encoding="utf-8") as fh:
                names += [line.strip() for line in fh.read(1 << 20).splitlines()]
        except (OSError, UnicodeDecodeError):
            pass
    else:
        return set()
    return {name for name in names if name.startswith("refs/heads/")}


def _bisected(admin: str) -> str | None:
    """The branch a bisect in progress in ``admin`` started from (BISECT_START holds its
    short name, or a commit id when it started detached: then no branch)."""
    start = _first_line(os.path.join(admin, "BISECT_START"))
    if not start:
        return None
    return start if start.startswith("refs/") else f"refs/heads/{start}"


def _first_line(path: str) -> str:
    try:
        with open(path, encoding="utf-8") as fh:
            return fh.readline(_READ).strip()
    except (OSError, UnicodeDecodeError):
        return ""
