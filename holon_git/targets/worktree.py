"""The working-tree target: all files of a plan change together, or none do.

Writing happens in three steps, after the pre-image of every deleted file is saved as a blob
(targets/objects.py). Stage: every new content goes to a temporary sibling file, fsync'd
(directories created as needed; many files are fsync'd together by a thread pool). Check: every
pre-image is still what was planned against. Commit: removals, then renames of the staged files
over their targets. Any failure, Ctrl-C included, undoes what was done from the pre-images held
in memory.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Callable
from contextlib import suppress
from dataclasses import dataclass
from typing import TypeVar

from ..errors import PatchError
from ..plan import EXECUTABLE, REGULAR, FileChange, Plan, SourceFile
from .fsops import Missing, Tree, identity

T = TypeVar("T")
_READ_FLAGS = os.O_RDONLY | os.O_NOFOLLOW | getattr(os, "O_CLOEXEC", 0)
_PARALLEL_SYNC = 16  # from this many files on, staged files are fsync'd by a thread pool
_SYNC_THREADS = 32
_FILE_FLAGS = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | getattr(os, "O_CLOEXEC", 0)


def _each(call: Callable[[T], None], items: list[T]) -> None:
    """call(item) for every item; by a thread pool when there are many (fsync releases the
    GIL, and concurrent fsyncs share the journal's commits). Raises the first failure after
    every call has finished."""
    if len(items) < _PARALLEL_SYNC:
        for item in items:
            call(item)
        return
    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(max_workers=_SYNC_THREADS) as pool:
        list(pool.map(call, items))


def _split(rel: str) -> tuple[str, str]:
    parent, _, name = rel.rpartition("/")
    return parent, name


@dataclass
class _Done:
    path: str
    before: SourceFile | None  # None: nothing was at path before


class WorktreeTarget:
    name = "worktree"

    def __init__(self, root: str, durable: bool = True) -> None:
        self.root = os.path.abspath(root)
        self.tree = Tree(self.root)
        self.durable = durable  # False: no fsync (library opt-out, api.apply_patch)

    def close(self) -> None:
        self.tree.close()

    def read(self, path: str) -> SourceFile | None:
        got = self.tree.read(path)
        if got is None:
            return None
        content, st = got
        mode = EXECUTABLE if st.st_mode & stat.S_IXUSR else REGULAR
        return SourceFile(content, mode, identity(st))

    def protected_patterns(self) -> list[str]:
        from .protect import worktree_patterns

        return worktree_patterns(self.root)

    # -- writing -----------------------------------------------------------------------------
    def write(self, plan: Plan) -> dict[str, object]:
        saved: list[dict[str, object]] = []
        if any(change.action == "delete" for change in plan.changes):
            from .objects import save_deleted

            saved = save_deleted(self.root, plan.changes)  # before anything is deleted
        self.write_changes(plan.changes)
        return {"deleted_blobs": saved}

    def write_changes(self, changes: list[FileChange]) -> _Transaction:
        """Write all of ``changes`` or none; the returned transaction can still undo them
        (the index target does, if its commit point fails)."""
        txn = _Transaction(self.tree, self.durable)
        try:
            txn.run(changes)
        except BaseException as exc:
            problems = txn.rollback()
            if isinstance(exc, OSError):
                raise PatchError(
                    "io_error", f"writing failed: {exc.strerror or exc}",
                    path=txn.current, details={"rollback_problems": problems} if problems else {},
                ) from exc
            raise
        return txn


class _Transaction:
    def __init__(self, tree: Tree, durable: bool = True) -> None:
        self.tree = tree
        self.durable = durable
        self.created_dirs: list[str] = []
        self.staged: dict[str, str] = {}  # path -> temporary name in the same directory
        self.done: list[_Done] = []
        self.current: str | None = None  # path being worked on, for error messages

    def run(self, changes: list[FileChange]) -> None:
        removals = [c for c in changes if c.action in ("delete", "rename")]
        writes = [c for c in changes if c.action != "delete"]
        sync_each = len(writes) < _PARALLEL_SYNC
        for change in writes:
            self.current = change.path
            self._stage(change, sync_each and self.durable)
        if not sync_each and self.durable:
            self._sync_staged()
        self._check(changes)
        for change in removals:
            assert change.old_path is not None and change.before is not None
            self.current = change.old_path
            parent, name = _split(change.old_path)
            os.unlink(name, dir_fd=self.tree.dir_fd(parent))
            self.done.append(_Done(change.old_path, change.before))
        for change in writes:
            self.current = change.path
            self._commit(change)
        if self.durable:
            self._sync_dirs({_split(c.path)[0] for c in changes}
                            | {_split(c.old_path)[0] for c in removals if c.old_path})
        self._prune([c.old_path for c in removals if c.old_path])
        self.current = None

    def _perm(self, change: FileChange) -> int | None:
        if change.before is None or change.before.token is None:
            return None
        return change.before.token[4] & 0o7777

    def _write_temp(self, path: str, content: bytes, perm: int | None,
                    sync: bool = True) -> str:
        parent, _ = _split(path)
        fd_dir = self.tree.dir_fd(parent, create=True, created=self.created_dirs)
        temp = f".holon-{os.urandom(6).hex()}.tmp"  # not secrets: its import costs 5 ms
        fd = os.open(temp, _FILE_FLAGS, 0o666, dir_fd=fd_dir)
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
                os.unlink(temp, dir_fd=fd_dir)
            raise
        os.close(fd)
        return temp

    def _stage(self, change: FileChange, sync: bool) -> None:
        assert change.after is not None
        self.staged[change.path] = self._write_temp(change.path, change.after, self._perm(change),
                                                    sync)

    def _sync_staged(self) -> None:
        """fsync every staged file, many at once: the disk then flushes them together, which
        on a large patch takes a fraction of the time of one fsync after another."""
        failed: list[str] = []

        def sync(item: tuple[str, str]) -> None:
            path, temp = item
            try:
                fd = os.open(temp, _READ_FLAGS, dir_fd=self.tree.dir_fd(_split(path)[0]))
                try:
                    os.fsync(fd)
                finally:
                    os.close(fd)
            except OSError:
                failed.append(path)
                raise

        try:
            _each(sync, list(self.staged.items()))
        finally:
            self.current = failed[0] if failed else self.current

    def _check(self, changes: list[FileChange]) -> None:
        """Refuse if anything changed on disk since the plan read it."""
        for change in changes:
            if change.before is not None and change.old_path is not None:
                st = self.tree.lstat(change.old_path)
                if st is None or identity(st) != change.before.token:
                    raise PatchError("stale_file", f"{change.old_path!r} changed on disk while "
                                     "the patch was being applied", path=change.old_path)
            if change.action in ("add", "rename") and self.tree.lstat(change.path) is not None:
                raise PatchError("already_exists", f"{change.path!r} appeared on disk while "
                                 "the patch was being applied", path=change.path)

    def _commit(self, change: FileChange) -> None:
        parent, name = _split(change.path)
        fd = self.tree.dir_fd(parent)
        os.rename(self.staged[change.path], name, src_dir_fd=fd, dst_dir_fd=fd)
        del self.staged[change.path]
        before = change.before if change.action == "modify" else None
        self.done.append(_Done(change.path, before))

    def _sync_dirs(self, dirs: set[str]) -> None:
        def sync(fd: int) -> None:
            with suppress(OSError):
                os.fsync(fd)

        fds = []
        for rel in dirs:
            with suppress(OSError, Missing):
                fds.append(self.tree.dir_fd(rel))
        _each(sync, fds)

    def _prune(self, removed: list[str]) -> None:
        """Remove directories a deletion or rename left empty, as git does."""
        for path in removed:
            parent = _split(path)[0]
            while parent:
                up, name = _split(parent)
                try:
                    os.rmdir(name, dir_fd=self.tree.dir_fd(up))
                except (OSError, Missing):  # not empty, or pruned already with a deeper path
                    break
                self.tree.forget(parent)
                parent = up

    def rollback(self) -> list[str]:
        """Undo everything, newest first; returns what could not be undone."""
        problems: list[str] = []
        for done in reversed(self.done):
            try:
                parent, name = _split(done.path)
                if done.before is None:
                    os.unlink(name, dir_fd=self.tree.dir_fd(parent))
                else:
                    perm = done.before.token[4] & 0o7777 if done.before.token else None
                    temp = self._write_temp(done.path, done.before.content, perm)
                    fd = self.tree.dir_fd(parent)
                    os.rename(temp, name, src_dir_fd=fd, dst_dir_fd=fd)
            except (OSError, PatchError) as exc:
                problems.append(f"{done.path}: {exc}")
        for path, temp in self.staged.items():
            with suppress(OSError, PatchError):
                os.unlink(temp, dir_fd=self.tree.dir_fd(_split(path)[0]))
        for rel in reversed(self.created_dirs):
            up, name = _split(rel)
            with suppress(OSError, PatchError):
                os.rmdir(name, dir_fd=self.tree.dir_fd(up))
                self.tree.forget(rel)
        return problems
