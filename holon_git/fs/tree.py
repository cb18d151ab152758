"""Symlink-proof file access below a root directory.

Every path is walked one component at a time through directory file descriptors opened with
O_NOFOLLOW, so a symbolic link anywhere on the way is seen and refused, also when it appears
between planning and writing. A directory that is the repository's git directory (or its
common directory), whatever its name, is refused as a way out (``guarded``): compared by
device and inode, so neither a dotfiles layout (``.cfg``), a ``--separate-git-dir`` inside
the tree nor a case-insensitive spelling reaches it.

Descriptors are bounded: the most recently used directories stay open (an LRU of at most
``max_open``: an eighth of the descriptor limit, at most 1,024); one evicted is opened again
by walking down from the nearest open ancestor, and must then be the very directory it was
(same device and inode), or the walk is refused as ``stale_file``. Code that keeps a
descriptor while it opens others, or uses one from several threads, holds it with
``opened()``, which keeps it from being evicted.
"""

from __future__ import annotations

import errno
import os
import stat
import threading
from collections import OrderedDict
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager, suppress

from ..errors import PatchError

_DIR_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | getattr(os, "O_CLOEXEC", 0)
_NEW_FILE_FLAGS = (os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW
                   | getattr(os, "O_CLOEXEC", 0))
MAX_OPEN_DIRS = 1024  # directory descriptors a tree keeps open, at most
_FD_SHARE = 8  # ... and no more than this fraction of the process's descriptor limit
_NEAR_ANCESTORS = 16  # prefixes of a path tried before the open descriptors are searched

Identity = tuple[int, int]  # (st_dev, st_ino)


class Missing(Exception):
    """A directory on the way does not exist."""


def max_open_dirs() -> int:
    """How many directory descriptors a tree may hold: an eighth of RLIMIT_NOFILE (32 under
    macOS's default of 256, 128 under Linux's usual 1024), at most MAX_OPEN_DIRS, leaving the
    rest to files, the journal and git. A patch touching more directories re-opens the least
    recently used ones (each phase of a write visits them again), so a generous limit is
    used: under a low one, that costs time, never correctness."""
    try:
        limit = os.sysconf("SC_OPEN_MAX")
    except (ValueError, OSError, AttributeError):
        limit = -1
    if limit <= 0:
        return MAX_OPEN_DIRS
    return max(2, min(MAX_OPEN_DIRS, limit // _FD_SHARE))


def identities(paths: Iterable[str]) -> tuple[frozenset[Identity], frozenset[Identity]]:
    """The (directories, files) among ``paths``, by identity; missing ones are skipped."""
    dirs: set[Identity] = set()
    files: set[Identity] = set()
    for path in paths:
        try:
            st = os.stat(path)
        except OSError:
            continue
        (dirs if stat.S_ISDIR(st.st_mode) else files).add((st.st_dev, st.st_ino))
    return frozenset(dirs), frozenset(files)


class Tree:
    """Directory descriptors below ``root``, opened safely and cached by relative path.
    ``guarded``: paths (the git directory and the like) no walk may enter or touch."""

    def __init__(self, root: str, guarded: Iterable[str] = (),
                 max_open: int | None = None) -> None:
        self.root = os.path.abspath(root)
        self._guarded_dirs, self._guarded_files = identities(guarded)
        self._max_open = max_open or max_open_dirs()
        self._lock = threading.RLock()
        self._pins: dict[str, int] = {}
        # the root is the user's to name (--repo may be a link to the repository); only what
        # lies below it is walked without following links
        fd = os.open(self.root, _DIR_FLAGS & ~os.O_NOFOLLOW)
        st = os.fstat(fd)
        if (st.st_dev, st.st_ino) in self._guarded_dirs:
            os.close(fd)
            raise PatchError("path_escape", f"the working tree {self.root} is the git "
                             "directory itself", hint="point GIT_WORK_TREE (or "
                             "core.worktree) at the working tree, not at the git directory")
        self._fds: OrderedDict[str, int] = OrderedDict({"": fd})  # least recently used first
        self._known: dict[str, Identity] = {"": (st.st_dev, st.st_ino)}  # every dir opened

    def close(self) -> None:
        with self._lock:
            for fd in self._fds.values():
                with suppress(OSError):
                    os.close(fd)
            self._fds.clear()

    def __enter__(self) -> Tree:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @property
    def open_count(self) -> int:
        """Directory descriptors held now."""
        return len(self._fds)

    def forget(self, rel_dir: str) -> None:
        """Drop what is known of a directory that was removed, and of everything below it."""
        with self._lock:
            below = rel_dir + "/"
            for key in [k for k in self._known if k == rel_dir or k.startswith(below)]:
                del self._known[key]
                fd = self._fds.pop(key, None)
                if fd is not None:
                    with suppress(OSError):
                        os.close(fd)

    def _symlink_error(self, rel: str, parent_fd: int, name: str) -> PatchError:
        target = os.readlink(name, dir_fd=parent_fd)
        root = os.path.realpath(self.root)  # the root itself may be reached through a link
        resolved = os.path.realpath(os.path.join(root, os.path.dirname(rel), target))
        inside = resolved == root or resolved.startswith(root + os.sep)
        if not inside:
            return PatchError("path_escape", f"{rel!r} is a symbolic link to {target!r}, "
                              "outside the repository", path=rel)
        return PatchError("symlink_in_path", f"{rel!r} is a symbolic link", path=rel)

    def _git_dir_error(self, rel: str) -> PatchError:
        return PatchError("path_escape", f"{rel!r} is the repository's git directory (or "
                          "inside it), whatever its name", path=rel)

    def dir_fd(self, rel_dir: str, create: bool = False,
               created: list[str] | None = None) -> int:
        """Descriptor of a directory below root; raises Missing, or makes it when ``create``.
        It stays open until the tree next opens a directory and evicts it: use it at once,
        or hold it with ``opened()``."""
        with self._lock:
            fd = self._fds.get(rel_dir)
            if fd is not None:
                self._fds.move_to_end(rel_dir)
                return fd
            return self._walk(rel_dir, create, created)

    @contextmanager
    def opened(self, rel_dir: str, create: bool = False,
               created: list[str] | None = None) -> Iterator[int]:
        """``dir_fd``, held open (not evicted) until the block ends; safe across threads."""
        with self._lock:
            fd = self.dir_fd(rel_dir, create, created)
            self._pins[rel_dir] = self._pins.get(rel_dir, 0) + 1
        try:
            yield fd
        finally:
            with self._lock:
                left = self._pins.pop(rel_dir) - 1
                if left:
                    self._pins[rel_dir] = left
                self._evict()

    def _walk(self, rel_dir: str, create: bool, created: list[str] | None) -> int:
        """Open ``rel_dir`` from its nearest open ancestor, one component at a time."""
        current = self._open_ancestor(rel_dir)
        fd = self._fds[current]
        self._fds.move_to_end(current)
        rest = rel_dir[len(current) + 1:] if current else rel_dir
        for name in rest.split("/"):
            current = f"{current}/{name}" if current else name
            fd = self._open_child(fd, current, name, create, created)
            self._fds[current] = fd
            self._evict(keep=current)
        return fd

    def _open_ancestor(self, rel_dir: str) -> str:
        """The deepest ancestor of ``rel_dir`` with an open descriptor ("" at worst): among
        its nearest few prefixes (a usual tree), else among the open descriptors, which are
        bounded (a path of thousands of components has thousands of prefixes)."""
        cut = len(rel_dir)
        for _ in range(_NEAR_ANCESTORS):
            cut = rel_dir.rfind("/", 0, cut)
            if cut < 0:
                return ""
            if rel_dir[:cut] in self._fds:
                return rel_dir[:cut]
        found = ""
        for key in self._fds:
            if len(found) < len(key) < cut and rel_dir.startswith(key) \
                    and rel_dir[len(key)] == "/":
                found = key
        return found

    def _open_child(self, parent_fd: int, rel: str, name: str, create: bool,
                    created: list[str] | None) -> int:
        try:
            fd = os.open(name, _DIR_FLAGS, dir_fd=parent_fd)
        except FileNotFoundError:
            if not create:
                raise Missing(rel) from None
            os.mkdir(name, 0o777, dir_fd=parent_fd)
            if created is not None:
                created.append(rel)
            fd = self._open_existing(parent_fd, rel, name)
        except OSError as exc:
            if exc.errno not in (errno.ELOOP, errno.ENOTDIR):
                raise
            fd = self._open_existing(parent_fd, rel, name)
        st = os.fstat(fd)
        found = (st.st_dev, st.st_ino)
        known = self._known.get(rel)
        if found in self._guarded_dirs or (known is not None and known != found):
            os.close(fd)
            if found in self._guarded_dirs:
                raise self._git_dir_error(rel)
            raise PatchError("stale_file", f"directory {rel!r} was moved or replaced while "
                             "the patch was being applied", path=rel)
        self._known[rel] = found
        return fd

    def _open_existing(self, parent_fd: int, rel: str, name: str) -> int:
        """Open what is at ``name``, refusing a link or a non-directory with a coded error."""
        st = os.stat(name, dir_fd=parent_fd, follow_symlinks=False)
        if stat.S_ISLNK(st.st_mode):
            raise self._symlink_error(rel, parent_fd, name)
        if not stat.S_ISDIR(st.st_mode):
            raise PatchError("already_exists", f"{rel!r} is a file, not a directory",
                             path=rel)
        return os.open(name, _DIR_FLAGS, dir_fd=parent_fd)

    def _evict(self, keep: str = "") -> None:
        """Close the least recently used descriptors beyond the bound (never the root, one
        held by ``opened()``, or ``keep``)."""
        excess = len(self._fds) - self._max_open
        if excess <= 0:
            return
        for rel in list(self._fds):
            if excess <= 0:
                break
            if rel and rel != keep and rel not in self._pins:
                with suppress(OSError):
                    os.close(self._fds.pop(rel))
                excess -= 1

    def revalidate(self) -> None:
        """Refuse if a directory opened earlier is no longer at its path (swapped for a
        symbolic link or another directory since it was opened): writes through the old
        descriptor would land somewhere the patch did not name."""
        with self._lock:
            for rel in sorted(self._known, key=lambda k: k.count("/")):
                if not rel:
                    continue
                parent, _, name = rel.rpartition("/")
                try:
                    parent_fd = self.dir_fd(parent)
                except Missing:
                    parent_fd = -1
                try:
                    st = os.stat(name, dir_fd=parent_fd, follow_symlinks=False) \
                        if parent_fd >= 0 else None
                except FileNotFoundError:
                    st = None
                if st is not None and stat.S_ISLNK(st.st_mode):
                    raise self._symlink_error(rel, parent_fd, name)
                if st is None or (st.st_dev, st.st_ino) != self._known.get(rel):
                    raise PatchError("stale_file", f"directory {rel!r} was moved or replaced "
                                     "while the patch was being applied", path=rel)

    def write_new(self, rel_dir: str, name: str, content: bytes, perm: int | None,
                  created: list[str] | None = None, sync: bool = True) -> os.stat_result:
        """Write ``content`` to a new file ``name`` in ``rel_dir`` (made if missing) and fsync
        it (unless the caller syncs later); a leftover of the same name (from an interrupted
        run) is replaced. Returns the new file's stat. Safe to call from several threads."""
        with self.opened(rel_dir, create=True, created=created) as fd_dir:
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
                st = os.fstat(fd)
            except BaseException:
                os.close(fd)
                with suppress(OSError):
                    os.unlink(name, dir_fd=fd_dir)
                raise
            os.close(fd)
            return st

    def entries(self, rel_dir: str) -> list[tuple[str, bool]]:
        """(name, is a directory) of each entry of a directory reached through the tree
        (symbolic links are entries, never followed)."""
        with self.opened(rel_dir) as fd:
            listing = os.open(".", _DIR_FLAGS, dir_fd=fd)  # its own position to read from
        try:
            with os.scandir(listing) as found:
                return [(e.name, e.is_dir(follow_symlinks=False)) for e in found]
        finally:
            os.close(listing)

    def files_below(self, rel_dir: str) -> Iterator[str]:
        """Every entry but directories below a directory (symbolic links included, not
        followed), relative to it, as found; each directory is reached through the tree, so
        without following links and holding a bounded number of descriptors, at any depth."""
        pending = [rel_dir]
        while pending:
            current = pending.pop()
            for name, is_dir in self.entries(current):
                path = f"{current}/{name}" if current else name
                if is_dir:
                    pending.append(path)
                else:
                    yield path[len(rel_dir) + 1:] if rel_dir else path

    def lstat(self, rel: str) -> os.stat_result | None:
        """The entry at ``rel`` (not followed), None if it or a parent is missing; a symlink
        on the way or at the end is refused."""
        parent, _, name = rel.rpartition("/")
        try:
            with self.opened(parent) as fd:
                return self._lstat_in(fd, rel, name)
        except Missing:
            return None

    def _lstat_in(self, fd: int, rel: str, name: str) -> os.stat_result | None:
        try:
            st = os.stat(name, dir_fd=fd, follow_symlinks=False)
        except FileNotFoundError:
            return None
        if stat.S_ISLNK(st.st_mode):
            raise self._symlink_error(rel, fd, name)
        if (st.st_dev, st.st_ino) in (self._guarded_dirs if stat.S_ISDIR(st.st_mode)
                                      else self._guarded_files):
            raise self._git_dir_error(rel)
        return st

    def read(self, rel: str) -> tuple[bytes, os.stat_result] | None:
        """A regular file's content and stat; None if it or a parent is missing. The
        directory is held (``opened``) throughout: staging threads may open others."""
        parent, _, name = rel.rpartition("/")
        try:
            with self.opened(parent) as dir_fd:
                st = self._lstat_in(dir_fd, rel, name)
                if st is None:
                    return None
                if not stat.S_ISREG(st.st_mode):
                    raise PatchError("not_a_regular_file", f"{rel!r} is not a regular file",
                                     path=rel)
                fd = os.open(name, os.O_RDONLY | os.O_NOFOLLOW | getattr(os, "O_CLOEXEC", 0),
                             dir_fd=dir_fd)
        except Missing:
            return None
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
