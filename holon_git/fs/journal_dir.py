"""Where crash journals live, and finding the unrecovered ones, without the write machinery.

Every apply that writes the working tree checks first that no earlier apply was interrupted
(``refuse_if_pending``); --recover (holon_git/recover.py) reads the journals back through
the same safe opens: nothing there is followed through a symbolic link or opened if it is not
a directory or a regular file.
"""

from __future__ import annotations

import errno
import fcntl
import os
import stat
from typing import Any

from ..errors import PatchError
from ..git.location import JOURNAL_DIR

JOURNAL_FILE = "journal.json"
_DIR_FLAGS = os.O_RDONLY | os.O_DIRECTORY | getattr(os, "O_CLOEXEC", 0)


def invalid(txid: str, why: str, **details: Any) -> PatchError:
    return PatchError("journal_invalid", f"the crash journal {txid} cannot be trusted: {why}",
                      details={"journal": txid, **details})


def open_base(git_dir: str) -> int | None:
    path = os.path.join(git_dir, JOURNAL_DIR)
    try:
        return os.open(path, _DIR_FLAGS | os.O_NOFOLLOW)
    except FileNotFoundError:
        return None
    except OSError as exc:
        if exc.errno in (errno.ELOOP, errno.ENOTDIR):
            raise invalid(JOURNAL_DIR, f"{path} is not a directory (a symbolic link?)") \
                from None
        raise


def try_lock(base_fd: int, txid: str) -> int | None:
    """The journal directory's fd, locked; None if a live process holds it. Anything but a
    directory there is refused (journal_invalid)."""
    try:
        fd = os.open(txid, _DIR_FLAGS | os.O_NOFOLLOW, dir_fd=base_fd)
    except FileNotFoundError:
        return None  # removed by its apply just now
    except OSError as exc:
        if exc.errno in (errno.ELOOP, errno.ENOTDIR):
            raise invalid(txid, f"{JOURNAL_DIR}/{txid} is not a directory (a symbolic "
                          "link?)") from None
        raise
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError as exc:
        os.close(fd)
        if exc.errno in (errno.EWOULDBLOCK, errno.EAGAIN, errno.EACCES):
            return None
        raise
    return fd


def has_record(fd: int) -> bool:
    try:
        os.stat(JOURNAL_FILE, dir_fd=fd, follow_symlinks=False)
    except FileNotFoundError:
        return False
    return True


def read_file(dir_fd: int, name: str, txid: str) -> bytes | None:
    """A journal file's bytes (None if absent); a link or anything but a regular file there
    is refused, unopened (a FIFO would block)."""
    try:
        fd = os.open(name, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK
                     | getattr(os, "O_CLOEXEC", 0), dir_fd=dir_fd)
    except FileNotFoundError:
        return None
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise invalid(txid, f"its {name} is a symbolic link") from None
        raise
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise invalid(txid, f"its {name} is not a regular file")
        chunks = []
        while chunk := os.read(fd, 1 << 20):
            chunks.append(chunk)
        return b"".join(chunks)
    finally:
        os.close(fd)


def pending(git_dir: str | None) -> list[str]:
    """Ids of unrecovered journals: a journal.json whose owner is gone. Writes nothing."""
    if git_dir is None:
        return []
    base_fd = open_base(git_dir)
    if base_fd is None:
        return []
    found = []
    try:
        for txid in sorted(os.listdir(base_fd)):
            fd = try_lock(base_fd, txid)
            if fd is None:
                continue
            try:
                if has_record(fd):
                    found.append(txid)
            finally:
                os.close(fd)
    finally:
        os.close(base_fd)
    return found


def refuse_if_pending(git_dir: str | None) -> None:
    found = pending(git_dir)
    if found:
        raise PatchError(
            "unrecovered_journal",
            f"an earlier apply was interrupted and left {len(found)} journal(s) under "
            f"{os.path.join(git_dir or '', JOURNAL_DIR)}; the working tree may be half changed",
            details={"journals": found},
        )
