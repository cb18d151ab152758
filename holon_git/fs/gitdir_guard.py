"""The git directory, whatever its name, for the targets that write no files.

``--cached``, ``--commit --cached`` and ``--ref`` change only the index and the object
database, but a path they record is written to the working tree by the next checkout: one
that leads into the git directory (``.cfg/hooks/pre-commit`` in a dotfiles layout,
``gitstore/config`` after ``git init --separate-git-dir=gitstore .``) would plant a hook or a
config there. So each path is walked in the working tree as a checkout would walk it, and
refused (``path_escape``) if a directory on the way, or the file itself, is the git directory,
its common directory or the file pointing to it (compared by device and inode, like
fs/tree.py for the working-tree target), or a directory on the way is any other git directory
(a nested bare repository under any name: HEAD, objects and refs, tree.is_git_dir).
"""

from __future__ import annotations

import os
import stat
from collections.abc import Callable, Iterable

from ..errors import PatchError
from .tree import identities, is_git_dir


class GitDirGuard:
    def __init__(self, work_tree: str | None, guarded: list[str]) -> None:
        self.work_tree = work_tree  # None (a bare repository): nothing is checked out
        self.dirs, self.files = identities(guarded)
        self.clear: set[str] = set()  # directories walked and found not to be guarded
        if work_tree is not None:
            try:
                st = os.stat(work_tree)
            except OSError:
                self.work_tree = None  # no working tree on disk: nothing to land in
            else:
                if (st.st_dev, st.st_ino) in self.dirs:
                    raise PatchError("path_escape", f"the working tree {work_tree} is the git "
                                     "directory itself")

    def check(self, path: str) -> None:
        """Refuse ``path`` if a checkout of it would write into the git directory."""
        if self.work_tree is None:
            return
        parts = path.split("/")
        if not self.files:  # the file itself can only be the git directory's pointer file
            parts = parts[:-1]
        current = ""
        for name in parts:
            current = f"{current}/{name}" if current else name
            if current in self.clear:
                continue
            try:
                # every component before this one is a real directory (checked below), so
                # this lstat follows no link
                st = os.lstat(os.path.join(self.work_tree, current))
            except OSError:
                return  # missing: nothing below it is on disk either
            found = (st.st_dev, st.st_ino)
            if found in (self.dirs if stat.S_ISDIR(st.st_mode) else self.files):
                raise PatchError("path_escape", f"{path!r} would be checked out into the "
                                 "repository's git directory, whatever its name", path=path)
            if not stat.S_ISDIR(st.st_mode):
                return  # a file or link on the way: a checkout replaces it, never follows it
            if self._nested_git_dir(current):
                raise PatchError("path_escape", f"{path!r} would be checked out into "
                                 f"{current!r}, a git directory (HEAD, objects and refs), "
                                 "whatever its name", path=path)
            self.clear.add(current)

    def _nested_git_dir(self, current: str) -> bool:
        assert self.work_tree is not None
        try:
            fd = os.open(os.path.join(self.work_tree, current),
                         os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | getattr(os, "O_CLOEXEC", 0))
        except OSError:
            return False
        try:
            return is_git_dir(fd)
        finally:
            os.close(fd)


def refuse_made_git_dirs(paths: Iterable[str], mode_of: Callable[[str], int | None],
                         every_folder: bool = False) -> None:
    """Refuse written ``paths`` that would make a directory a git directory: give it the
    ``HEAD``, ``objects/`` or ``refs`` it lacks of the three (one patch, or several, each
    adding a part: a bare repository planted under any name, whose config and hooks git
    would run in it). ``mode_of(rel)``: the st_mode of what is at ``rel`` now (not
    followed), None if nothing. ``every_folder``: also refuse a path written into a folder
    that is one already (for the index and a branch, whose folders no walk on disk checks:
    a bare repository's tree)."""
    gets: dict[str, set[str]] = {}
    for path in paths:
        parts = path.split("/")
        for at in range(1, len(parts)):
            following, last = parts[at], at == len(parts) - 1
            named = gets.setdefault("/".join(parts[:at]), set()) if every_folder else None
            if (following == "HEAD" and last) or following == "refs" or \
                    (following == "objects" and not last):
                (named if named is not None else
                 gets.setdefault("/".join(parts[:at]), set())).add(following)
    for folder, named in gets.items():
        have = set(named)
        for part in ("HEAD", "objects", "refs"):
            if part in have:
                continue
            mode = mode_of(f"{folder}/{part}")
            if mode is None or not (part == "refs" or (
                    stat.S_ISDIR(mode) if part == "objects"
                    else stat.S_ISREG(mode) or stat.S_ISLNK(mode))):
                break  # one missing: not a git directory, whatever the others are
            have.add(part)
        if len(have) == 3:
            raise PatchError("path_escape", f"the patch would make {folder!r} a git directory "
                             "(HEAD, objects and refs), whose config and hooks git runs",
                             path=folder, hint="a repository is not patched into the tree; "
                             "leave HEAD, objects/ and refs out of the patch")


def mode_below(root: str | None,
               recorded: Callable[[str], int | None] | None = None
               ) -> Callable[[str], int | None]:
    """``mode_of`` for refuse_made_git_dirs: what ``recorded`` (the index or a tree) holds at
    a path, else what is on disk under ``root`` (None: no working tree)."""

    def mode_of(rel: str) -> int | None:
        found = recorded(rel) if recorded is not None else None
        if found is not None or root is None:
            return found
        try:
            return os.lstat(os.path.join(root, rel)).st_mode
        except OSError:
            return None

    return mode_of
