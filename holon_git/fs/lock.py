"""git's lock-file protocol for the index.

``index.lock`` is created with O_EXCL: whoever creates it owns the index until the lock is
renamed over ``index`` (commit) or removed (abort). holon-git removes only a lock it created,
or one a holon-git process that is gone left (``remove_dead_lock``, for --recover): while it
holds the lock, the lock file says so, ``holon-apply lock <pid> <start> <boot>``: its process
id, when that process started (``/proc/<pid>/stat``'s start time) and the boot it ran in, so
that a process id used again since, or a reboot, is not taken for the holder. git writes the
new index into its own lock at once, so a lock git holds never reads as one of ours.
"""

from __future__ import annotations

import os
import re
import secrets
import stat
from contextlib import suppress

from ..errors import PatchError

_LOCK_FLAGS = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_CLOEXEC", 0)
_MARK = re.compile(rb"holon-apply lock ([1-9][0-9]{0,9}) ([0-9]{1,20}|-) ([0-9a-f-]{1,64})\n")
_MARK_MAX = 128  # bytes: a lock file longer than this is not one of ours


def _started(pid: int) -> str:
    """When process ``pid`` started (clock ticks since boot, from /proc), or "-" if unknown."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as fh:
            fields = fh.read(4096).rsplit(b")", 1)[1].split()
        return fields[19].decode("ascii")  # field 22 of the file: the 20th after the name
    except (OSError, IndexError, UnicodeDecodeError):
        return "-"


def _boot() -> str:
    try:
        with open("/proc/sys/kernel/random/boot_id", "rb") as fh:
            return fh.read(64).strip().decode("ascii") or "-"
    except (OSError, UnicodeDecodeError):
        return "-"


def _mark() -> bytes:
    pid = os.getpid()
    return f"holon-apply lock {pid} {_started(pid)} {_boot()}\n".encode()


def is_ours(content: bytes) -> bool:
    """Is this what a lock file holds while holon-git holds it (empty: an older holon-git)?"""
    return content == b"" or _MARK.fullmatch(content) is not None


def _holder_gone(content: bytes) -> bool:
    """Is the holon-git process the lock file names gone? Only a lock of ours can say;
    when in doubt (no /proc, a process of another user), the holder is taken as alive."""
    found = _MARK.fullmatch(content)
    if found is None:
        return False
    pid, started, boot = int(found[1]), found[2].decode(), found[3].decode()
    if pid == os.getpid():
        return False
    if boot != "-" and _boot() not in ("-", boot):
        return True  # written before the machine restarted
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    except OSError:  # another user's process: alive
        return False
    return started != "-" and _started(pid) not in ("-", started)  # the pid used again


def read_lock_file(path: str) -> tuple[os.stat_result, bytes] | None:
    """A lock file's status and what it says (nothing for anything but a regular file),
    read without following a link or waiting on a FIFO; None when it cannot be opened."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK
                     | getattr(os, "O_CLOEXEC", 0))
    except OSError:
        return None
    try:
        st = os.fstat(fd)
        return st, os.read(fd, _MARK_MAX + 1) if stat.S_ISREG(st.st_mode) else b""
    finally:
        os.close(fd)


def remove_dead_lock(index_path: str) -> bool:
    """Remove ``index_path``.lock if a holon-git process that is gone left it (its
    ``holon-apply lock`` line proves it ours and its process dead); True if removed. A lock
    that changed between the check and the removal (a new holder) is put back."""
    path = index_path + ".lock"
    read = read_lock_file(path)
    if read is None:
        return False
    st, content = read
    if not content or not _holder_gone(content):
        return False
    aside = f"{path}.holon-{secrets.token_hex(6)}"  # renamed first: the check holds for it
    try:
        os.rename(path, aside)
    except OSError:
        return False
    try:
        moved = os.lstat(aside)
    except OSError:
        return False
    if (moved.st_dev, moved.st_ino) != (st.st_dev, st.st_ino):
        with suppress(OSError):  # a lock taken meanwhile: back in place, unless another is
            os.link(aside, path)
        with suppress(OSError):
            os.unlink(aside)
        return False
    os.unlink(aside)
    return True


class IndexLock:
    def __init__(self, index_path: str) -> None:
        self.index_path = index_path
        self.path = index_path + ".lock"
        self.held = False
        try:
            fd = os.open(self.path, _LOCK_FLAGS, 0o666)
        except FileExistsError:
            raise PatchError(
                "index_locked", f"{self.path} exists: another git process is using the index",
                hint=f"wait for the other git command to finish; if none is running, remove "
                f"{self.path}") from None
        except OSError as exc:
            raise PatchError("io_error", f"cannot create {self.path}: {exc.strerror}") from exc
        self.held = True
        try:  # who holds it, so that --recover can tell a lock a killed apply left
            os.write(fd, _mark())
        except OSError:
            pass  # an empty lock is still a lock
        finally:
            os.close(fd)

    def scratch_path(self) -> str:
        """A private file name next to the index, for libgit2 to write the new index to."""
        return f"{self.index_path}.holon-{secrets.token_hex(6)}"

    def commit(self, new_index: str) -> None:
        """Make ``new_index`` (a complete, written file) the index, atomically, and unlock."""
        fd = os.open(new_index, os.O_RDONLY | getattr(os, "O_CLOEXEC", 0))
        try:
            os.fsync(fd)
        finally:
            os.close(fd)
        os.replace(new_index, self.path)  # the lock file now holds the new index
        os.replace(self.path, self.index_path)
        self.held = False
        with suppress(OSError):
            dir_fd = os.open(os.path.dirname(self.index_path) or ".", os.O_RDONLY)
            try:
                os.fsync(dir_fd)
            finally:
                os.close(dir_fd)

    def release(self) -> None:
        if self.held:
            self.held = False
            with suppress(FileNotFoundError):
                os.unlink(self.path)
