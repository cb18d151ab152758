"""Where ``--emit-diff FILE`` writes, when FILE is inside the working tree.

The working tree is the repository's, and the patch (or whoever wrote the repository) may
have put a symbolic link where FILE is, or on the way to it: following it would write the
diff over a file outside (~/.bashrc) or into the git directory. Inside the working tree FILE
is reached as a patch path is (normalized, walked without following links, never into the
git directory under any name), checked before anything is applied, and written to a fresh
temporary file renamed over it (a hard-linked FILE is replaced, not written through). A FILE
outside the working tree is the user's to name and is opened as given.
"""

from __future__ import annotations

import os
import stat
import time
from dataclasses import dataclass, field

from ..errors import PatchError
from ..paths import normalize
from .fsops import Missing, Tree, split
from .journal import temp_name
from .repo import git_directories, locate


@dataclass(frozen=True)
class DiffDestination:
    path: str  # as given
    root: str | None = None  # the working tree, when the file is inside it
    rel: str | None = None  # its path there
    guarded: list[str] = field(default_factory=list)


def _inside(absolute: str, root: str) -> str | None:
    """``absolute``'s path below ``root`` (None when it is not below it): the rest after the
    shortest leading path that *is* the root (compared by identity, so another spelling of
    the root, as the user may have reached it, counts; a link inside the tree that leads
    back to it does not, as the rest then still holds that link)."""
    try:
        root_st = os.stat(root)
    except OSError:
        return None
    parts = absolute.strip(os.sep).split(os.sep)
    for count in range(len(parts)):
        prefix = os.sep + os.sep.join(parts[:count])
        try:
            st = os.stat(prefix)
        except OSError:
            continue
        if (st.st_dev, st.st_ino) == (root_st.st_dev, root_st.st_ino):
            return "/".join(parts[count:])
    return None


def diff_destination(name: str, repo: str) -> DiffDestination:
    """Check FILE before the apply; raises a coded PatchError when it is inside the working
    tree and reached through a link, in the git directory, or not a regular file."""
    absolute = os.path.abspath(name)
    location = locate(repo)
    root = location.work_tree if location.git_dir is not None else os.path.abspath(repo)
    if root is None:
        return DiffDestination(name)
    rel = _inside(absolute, root)
    if rel is None:
        return DiffDestination(name)
    clean = normalize(rel)
    guarded = git_directories(location.git_dir, location.gitfile)
    with Tree(root, guarded) as tree:
        st = tree.lstat(clean)
    if st is not None and not stat.S_ISREG(st.st_mode):
        raise PatchError("not_a_regular_file", f"--emit-diff {name}: {clean!r} is not a "
                         "regular file", path=clean)
    return DiffDestination(name, root, clean, guarded)


def write_diff(destination: DiffDestination, diff: bytes) -> None:
    """Write ``diff`` to the destination; OSError or PatchError when it cannot."""
    if destination.rel is None or destination.root is None:
        with open(destination.path, "wb") as fh:
            fh.write(diff)
        return
    parent, name = split(destination.rel)
    txid = f"{int(time.time())}-{os.getpid()}-{os.urandom(4).hex()}"
    temp = temp_name(txid, 0)  # --recover knows the name, should a kill leave it
    with Tree(destination.root, destination.guarded) as tree:
        try:
            tree.dir_fd(parent)
        except Missing:
            raise FileNotFoundError(f"no directory {parent!r}") from None
        st = tree.lstat(destination.rel)  # refused again if a link appeared since the check
        if st is not None and not stat.S_ISREG(st.st_mode):
            raise PatchError("not_a_regular_file", f"{destination.rel!r} is not a regular "
                             "file", path=destination.rel)
        tree.write_new(parent, temp, diff, None, sync=False)
        with tree.opened(parent) as fd:
            try:
                os.rename(temp, name, src_dir_fd=fd, dst_dir_fd=fd)
            except OSError:
                os.unlink(temp, dir_fd=fd)
                raise
