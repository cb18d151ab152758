"""The git directory, whatever its name, for the targets that write no files.

``--cached``, ``--commit --cached`` and ``--ref`` change only the index and the object
database, but a path they record is written to the working tree by the next checkout: one
that leads into the git directory (``.cfg/hooks/pre-commit`` in a dotfiles layout,
``gitstore/config`` after ``git init --separate-git-dir=gitstore .``) would plant a hook or a
config there. So each path is walked in the working tree as a checkout would walk it, and
refused (``path_escape``) if a directory on the way, or the file itself, is the git directory,
its common directory or the file pointing to it (compared by device and inode, like
fsops.Tree for the working-tree target).
"""

from __future__ import annotations

import os
import stat

from ..errors import PatchError
from .fsops import identities


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
            self.clear.add(current)
