"""Temporary files a killed apply left in the working tree, found and removed by --recover.

A one-file apply has no crash journal (its one rename is atomic), and a large patch stages
files while it is planned, before its journal exists; so a kill between writing a temporary
file and renaming it (or between exchanging it and unlinking the old content) can leave a
`.holon-<txid>-<n>.tmp` with nothing that points to it. The txid
names the process that made it; a file whose process is gone is a leftover.
"""

from __future__ import annotations

import os
import re
import stat
from collections.abc import Iterator

from ..core.paths import is_dot_git
from ..errors import PatchError
from .tree import Missing, Tree, split

# journal.temp_name: ".holon-<seconds>-<pid>-<8 hex>-[r]<number>.tmp"
_TEMP = re.compile(r"\.holon-\d+-(\d+)-[0-9a-f]{8}-r?\d+\.tmp")


def _alive(pid: int) -> bool:
    """Whether process ``pid`` may still write. A zombie may not: it has exited, and only
    its parent has not collected it yet (a killed apply whose parent died too can stay one
    for long where the reaper of orphans is slow)."""
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:  # another user's process: alive
        return True
    return not _zombie(pid)


def _zombie(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat", "rb") as fh:
            return fh.read().rsplit(b")", 1)[1].split()[:1] == [b"Z"]
    except (OSError, IndexError):  # no /proc (not Linux), or gone meanwhile
        return False


def _candidates(tree: Tree) -> Iterator[tuple[str, int]]:
    """(relative path, pid) of every file named like a temporary one, found without following
    links; .git (in any spelling) and the git directory under any other name are skipped."""
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
                yield rel, int(m.group(1))


def remove_leftovers(root: str, guarded: list[str] | None = None) -> list[str]:
    """Remove the temporary files of applies whose process is gone; returns their paths.
    Each is removed through descriptors opened without following links, and only if it is
    a regular file."""
    removed = []
    with Tree(root, guarded or ()) as tree:
        for rel, pid in list(_candidates(tree)):
            if _alive(pid):
                continue
            try:
                st = tree.lstat(rel)
                if st is None or not stat.S_ISREG(st.st_mode):
                    continue
                parent, name = split(rel)
                os.unlink(name, dir_fd=tree.dir_fd(parent))
            except (OSError, Missing, PatchError):
                continue  # moved, replaced or not ours to remove: leave it
            removed.append(rel)
    return sorted(removed)
