"""Temporary files a killed apply left in the working tree, found and removed by --recover.

A one-file apply has no crash journal (its one rename is atomic), and a large patch stages
files while it is planned, before its journal exists; so a kill between writing a temporary
file and renaming it (or between exchanging it and unlinking the old content) can leave a
`.holon-<txid>-<n>.tmp` with nothing that points to it. Every apply holds its txid's
directory in the journal directory locked from before it stages its first file until it ends
(journal.Liveness): a temporary file is a leftover only when that lock can be taken (or the
directory is gone), which proves its apply dead across pid namespaces too. The pid inside
the txid is never used (an apply in another pid namespace has a pid that means nothing here).
"""

from __future__ import annotations

import os
import re
import stat
from collections.abc import Iterator

from ..core.paths import is_dot_git
from ..errors import PatchError
from .journal_dir import open_base, try_lock
from .tree import Missing, Tree, split

# journal.temp_name: ".holon-<txid>-[r]<number>.tmp", txid "<seconds>-<pid>-<8 hex>"
_TEMP = re.compile(r"\.holon-(\d{1,20}-\d{1,20}-[0-9a-f]{8})-r?\d{1,20}\.tmp")


def _alive(base_fd: int | None, txid: str) -> bool:
    """Whether the apply ``txid`` may still write: its directory in the journal directory
    is there and locked (journal.Liveness)."""
    if base_fd is None:
        return False
    try:
        fd = try_lock(base_fd, txid)
    except PatchError:  # not a directory there: no live apply holds it
        return False
    if fd is None:
        try:
            os.stat(txid, dir_fd=base_fd, follow_symlinks=False)
        except FileNotFoundError:
            return False  # no such directory: its apply is over
        return True  # locked by a live apply
    os.close(fd)
    return False


def _candidates(tree: Tree) -> Iterator[tuple[str, str]]:
    """(relative path, txid) of every file named like a temporary one, found without following
    links; .git (in any spelling) and git directories under any other name are skipped."""
    pending = [""]
    while pending:
        current = pending.pop()
        try:
            found = tree.entries(current)
        except (OSError, Missing, PatchError):
            continue  # gone, replaced, a link, or the git directory: not ours to look in
        for name, is_dir in found:
            rel = f"{current}/{name}" if current else name
            if is_dir:
                if not is_dot_git(name):
                    pending.append(rel)
                continue
            m = _TEMP.fullmatch(name)
            if m:
                yield rel, m.group(1)


def remove_leftovers(root: str, guarded: list[str] | None = None,
                     git_dir: str | None = None) -> list[str]:
    """Remove the temporary files of applies that are over (their lock in ``git_dir``'s
    journal directory can be taken); returns their paths. Each is removed through
    descriptors opened without following links, and only if it is a regular file."""
    removed = []
    base_fd = open_base(git_dir) if git_dir is not None else None
    try:
        with Tree(root, guarded or ()) as tree:
            for rel, txid in list(_candidates(tree)):
                if _alive(base_fd, txid):
                    continue
                if _remove(tree, rel):
                    removed.append(rel)
    finally:
        if base_fd is not None:
            os.close(base_fd)
    return sorted(removed)


def _remove(tree: Tree, rel: str) -> bool:
    try:
        st = tree.lstat(rel)
        if st is None or not stat.S_ISREG(st.st_mode):
            return False
        parent, name = split(rel)
        os.unlink(name, dir_fd=tree.dir_fd(parent))
    except (OSError, Missing, PatchError):
        return False  # moved, replaced or not ours to remove: leave it
    return True
