"""git's lock-file protocol for the index.

``index.lock`` is created with O_EXCL: whoever creates it owns the index until the lock is
renamed over ``index`` (commit) or removed (abort). holon-git removes only a lock it created.
"""

from __future__ import annotations

import os
import secrets
from contextlib import suppress

from ..errors import PatchError

_LOCK_FLAGS = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_CLOEXEC", 0)


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
        os.close(fd)
        self.held = True

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
