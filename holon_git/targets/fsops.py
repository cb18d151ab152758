"""Symlink-proof file access below a root directory.

Every path is walked one component at a time through directory file descriptors opened with
O_NOFOLLOW, so a symbolic link anywhere on the way is seen and refused, also when it appears
between planning and writing.
"""

from __future__ import annotations

import errno
import os
import stat
from collections.abc import Callable, Iterator
from contextlib import suppress

from ..errors import PatchError

_DIR_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | getattr(os, "O_CLOEXEC", 0)
_NEW_FILE_FLAGS = (os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW
                   | getattr(os, "O_CLOEXEC", 0))


class Missing(Exception):
    """A directory on the way does not exist."""


class Tree:
    """Directory descriptors below ``root``, opened safely and cached by relative path."""

    def __init__(self, root: str) -> None:
        self.root = os.path.abspath(root)
        self._fds: dict[str, int] = {"": os.open(self.root, _DIR_FLAGS)}

    def close(self) -> None:
        for fd in self._fds.values():
            with suppress(OSError):
                os.close(fd)
        self._fds.clear()

    def __enter__(self) -> Tree:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def forget(self, rel_dir: str) -> None:
        """Drop cached descriptors at or below a directory that was removed."""
        for key in [k for k in self._fds if k == rel_dir or k.startswith(rel_dir + "/")]:
            with suppress(OSError):
                os.close(self._fds.pop(key))

    def _symlink_error(self, rel: str, parent_fd: int, name: str) -> PatchError:
        target = os.readlink(name, dir_fd=parent_fd)
        resolved = os.path.realpath(os.path.join(self.root, os.path.dirname(rel), target))
        inside = resolved == self.root or resolved.startswith(self.root + os.sep)
        if not inside:
            return PatchError("path_escape", f"{rel!r} is a symbolic link to {target!r}, "
                              "outside the repository", path=rel)
        return PatchError("symlink_in_path", f"{rel!r} is a symbolic link", path=rel)

    def dir_fd(self, rel_dir: str, create: bool = False,
               created: list[str] | None = None) -> int:
        """Descriptor of a directory below root; raises Missing, or makes it when ``create``."""
        fd = self._fds.get(rel_dir)
        if fd is not None:
            return fd
        parent, _, name = rel_dir.rpartition("/")
        parent_fd = self.dir_fd(parent, create, created)
        try:
            st = os.stat(name, dir_fd=parent_fd, follow_symlinks=False)
        except FileNotFoundError:
            if not create:
                raise Missing(rel_dir) from None
            os.mkdir(name, 0o777, dir_fd=parent_fd)
            if created is not None:
                created.append(rel_dir)
            st = os.stat(name, dir_fd=parent_fd, follow_symlinks=False)
        if stat.S_ISLNK(st.st_mode):
            raise self._symlink_error(rel_dir, parent_fd, name)
        if not stat.S_ISDIR(st.st_mode):
            raise PatchError("already_exists", f"{rel_dir!r} is a file, not a directory",
                             path=rel_dir)
        fd = os.open(name, _DIR_FLAGS, dir_fd=parent_fd)
        self._fds[rel_dir] = fd
        return fd

    def revalidate(self) -> None:
        """Refuse if a directory opened earlier is no longer at its path (swapped for a
        symbolic link or another directory since it was opened): writes through the old
        descriptor would land somewhere the patch did not name."""
        for rel in sorted(self._fds, key=len):
            if not rel:
                continue
            parent, _, name = rel.rpartition("/")
            parent_fd = self._fds.get(parent)
            if parent_fd is None:
                continue
            try:
                st = os.stat(name, dir_fd=parent_fd, follow_symlinks=False)
            except FileNotFoundError:
                st = None
            if st is not None and stat.S_ISLNK(st.st_mode):
                raise self._symlink_error(rel, parent_fd, name)
            held = os.fstat(self._fds[rel])
            if st is None or (st.st_dev, st.st_ino) != (held.st_dev, held.st_ino):
                raise PatchError("stale_file", f"directory {rel!r} was moved or replaced while "
                                 "the patch was being applied", path=rel)

    def write_new(self, rel_dir: str, name: str, content: bytes, perm: int | None,
                  created: list[str] | None = None, sync: bool = True) -> None:
        """Write ``content`` to a new file ``name`` in ``rel_dir`` (made if missing) and fsync
        it (unless the caller syncs later); a leftover of the same name (from an interrupted
        run) is replaced."""
        fd_dir = self.dir_fd(rel_dir, create=True, created=created)
        try:
            fd = os.open(name, _NEW_FILE_FLAGS, 0o666, dir_fd=fd_dir)
        except FileExistsError:  # rare: names are unique to a process and a transaction
            os.unlink(name, dir_fd=fd_dir)
            fd = os.open(name, _NEW_FILE_FLAGS, 0o666, dir_fd=fd_dir)
        try:
            if perm is not None:
                os.fchmod(fd, perm)
            view = memoryview(content)
            while view:
                view = view[os.write(fd, view):]
            if sync:
                os.fsync(fd)
        except BaseException:
            os.close(fd)
            with suppress(OSError):
                os.unlink(name, dir_fd=fd_dir)
            raise
        os.close(fd)

    def files_below(self, rel_dir: str) -> Iterator[str]:
        """Every entry but directories below a directory (symbolic links included, not
        followed), relative to it, as found; each directory is opened with O_NOFOLLOW."""

        def walk(fd: int, prefix: str) -> Iterator[str]:
            try:
                with os.scandir(fd) as entries:
                    listed = [(e.name, e.is_dir(follow_symlinks=False)) for e in entries]
                for name, is_dir in listed:
                    if is_dir:
                        yield from walk(os.open(name, _DIR_FLAGS, dir_fd=fd), f"{prefix}{name}/")
                    else:
                        yield prefix + name
            finally:
                os.close(fd)

        parent, name = split(rel_dir)
        yield from walk(os.open(name, _DIR_FLAGS, dir_fd=self.dir_fd(parent)), "")

    def lstat(self, rel: str) -> os.stat_result | None:
        """The entry at ``rel`` (not followed), None if it or a parent is missing; a symlink
        on the way or at the end is refused."""
        parent, _, name = rel.rpartition("/")
        try:
            fd = self.dir_fd(parent)
        except Missing:
            return None
        try:
            st = os.stat(name, dir_fd=fd, follow_symlinks=False)
        except FileNotFoundError:
            return None
        if stat.S_ISLNK(st.st_mode):
            raise self._symlink_error(rel, fd, name)
        return st

    def read(self, rel: str) -> tuple[bytes, os.stat_result] | None:
        st = self.lstat(rel)
        if st is None:
            return None
        if not stat.S_ISREG(st.st_mode):
            raise PatchError("not_a_regular_file", f"{rel!r} is not a regular file", path=rel)
        parent, _, name = rel.rpartition("/")
        fd = os.open(name, os.O_RDONLY | os.O_NOFOLLOW | getattr(os, "O_CLOEXEC", 0),
                     dir_fd=self.dir_fd(parent))
        try:
            st = os.fstat(fd)
            # One read of the size fstat gives, plus a byte: the buffer is the content (a
            # fixed 1 MB buffer shrunk to a small file left the heap fragmented by a large
            # patch's thousand reads), and a short read of a regular file is its end.
            wanted = st.st_size + 1
            chunks = []
            while chunk := os.read(fd, wanted):
                chunks.append(chunk)
                if len(chunk) < wanted:
                    break
                wanted = 1 << 16  # it grew since fstat: read on to the end
            return b"".join(chunks), st
        finally:
            os.close(fd)


def split(rel: str) -> tuple[str, str]:
    """A relative path's parent directory ("" at the root) and name."""
    parent, _, name = rel.rpartition("/")
    return parent, name


def identity(st: os.stat_result) -> tuple[int, int, int, int, int]:
    """What must not change between reading a file and replacing it."""
    return (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns, st.st_mode)


# -- replacing a file --------------------------------------------------------------------------
# A rename over an existing file makes ext4 (auto_da_alloc) start writing the new file's data
# out at once, about 0.2 ms a file here; exchanging the two names (renameat2 RENAME_EXCHANGE,
# just as atomic) and unlinking the old file does not. Python has no renameat2, and loading
# ctypes for it costs about 3 ms, so a process turns to it only once it has replaced enough
# files to win that back. Where the call or the filesystem lacks it, a plain rename is used.
_RENAME_EXCHANGE = 2
_PAYS_OFF_AFTER = 16  # files replaced in this process
_replaced = 0
_renameat2: Callable[..., int] | None = None
_unavailable = False


def _load_renameat2() -> Callable[..., int] | None:
    global _unavailable
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        call = libc.renameat2
    except (ImportError, OSError, AttributeError):
        _unavailable = True
        return None
    call.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_int, ctypes.c_char_p,
                     ctypes.c_uint]
    call.restype = ctypes.c_int

    def renameat2(src: bytes, dst: bytes, dir_fd: int) -> int:
        return 0 if call(dir_fd, src, dir_fd, dst, _RENAME_EXCHANGE) == 0 else ctypes.get_errno()

    return renameat2


def exchange_pays_off(files: int) -> bool:
    """Count ``files`` about to be replaced; True once the exchange is worth loading."""
    global _replaced, _renameat2
    _replaced += files
    if _renameat2 is None and not _unavailable and _replaced >= _PAYS_OFF_AFTER:
        _renameat2 = _load_renameat2()
    return _renameat2 is not None


def exchange(temp: str, name: str, dir_fd: int) -> bool:
    """Swap two existing entries of one directory atomically; False (nothing done) where
    this system or filesystem cannot, and the caller renames instead."""
    global _renameat2, _unavailable
    if _renameat2 is None:
        return False
    failed = _renameat2(os.fsencode(temp), os.fsencode(name), dir_fd)
    if not failed:
        return True
    if failed in (errno.EINVAL, errno.ENOSYS, errno.EOPNOTSUPP):
        _renameat2, _unavailable = None, True
        return False
    raise OSError(failed, os.strerror(failed), name)
