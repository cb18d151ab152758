"""A working-tree write as one transaction: all files of a plan change together, or none do.

Writing happens in four steps. Journal: in a repository, the old contents (read again from
disk, each checked to be the file the plan read, since the plan does not keep them) and the
plan go to a crash journal under .git/holon-apply/ (journal.py). Stage: every new content
goes to a temporary sibling file (directories created as needed). A large patch is staged
earlier: by a few threads while the plan is still running (``stage_planned``; the plan does
not wait for them), the rest before the journal, which then names each staged file by its
inode, size and mtime rather than hashing it; only files of directories the apply makes
wait for the journal, which names those directories first. Check: every pre-image is still
what was planned against, and no directory on the way was swapped; then the pre-image of
every deleted file is saved as a blob (git/objects.py). Commit: removals, then renames of
the staged files over their targets; removing the journal is the commit point. Any
failure, Ctrl-C included, undoes what was done from the journal's copies (in memory when
there is no journal); a hard kill leaves the journal, and `git holon-apply --recover` undoes
from it. One modified or added file in an existing directory needs no journal: its rename
is atomic by itself.

Like git, the default fsyncs nothing: a killed process loses nothing the kernel already has,
and the journal covers it. A durable apply (--fsync) also fsyncs the journal, the staged
files (many together, by a thread pool) and their directories, against a power loss.
"""

from __future__ import annotations

import os
import stat
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from contextlib import suppress
from dataclasses import dataclass
from typing import TYPE_CHECKING, TypeVar

from ..core.change import EXECUTABLE, FileChange, SourceFile, removed_paths
from ..core.model import FileKind
from ..errors import PatchError
from . import journal, umask
from . import tree as fstree
from .tree import Missing, Tree, identity, split

if TYPE_CHECKING:
    from concurrent.futures import Future, ThreadPoolExecutor

T = TypeVar("T")
_READ_FLAGS = os.O_RDONLY | os.O_NOFOLLOW | getattr(os, "O_CLOEXEC", 0)
_PARALLEL_SYNC = 16  # from this many files on, staged files are fsync'd by a thread pool
PARALLEL_STAGING = _PARALLEL_SYNC  # and staged by one, as soon as each is planned
_SYNC_THREADS = 32
_STAGE_THREADS = 4  # creating files is mostly the filesystem's CPU time: a few cores' worth
_BATCH = 256 << 10  # bytes of new content planned before they are handed to the stagers
_BATCH_FILES = 32  # ... or this many files
# New content handed to the stagers and not yet written: past this, the plan waits for the
# oldest batch (a slow disk must not let a large patch's new contents pile up in memory).
_IN_FLIGHT = 8 << 20


def _each(call: Callable[[T], None], items: list[T], threads: int = _SYNC_THREADS) -> None:
    """call(item) for every item; by a thread pool when there are many (the system calls
    release the GIL; concurrent fsyncs share the journal's commits, and file creations
    overlap). Raises the first failure after every call has finished."""
    if len(items) < _PARALLEL_SYNC:
        for item in items:
            call(item)
        return
    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(max_workers=threads) as pool:
        list(pool.map(call, items))


@dataclass
class _Done:
    path: str
    before: SourceFile | None  # None: nothing was at path before


def undone(txn: Transaction, exc: BaseException) -> BaseException:
    """Roll back; the exception to raise (OSError becomes a coded io_error)."""
    problems = txn.rollback()
    if isinstance(exc, OSError):
        return PatchError(
            "io_error", f"writing failed: {exc.strerror or exc}", path=txn.current,
            details={"rollback_problems": problems} if problems else {},
        )
    return exc


def entry_numbers(changes: Iterable[tuple[FileKind, str | None, str]]) -> dict[str, int]:
    """Each path's journal entry number from (kind, old path, path) in patch order: the
    path a change deletes or renames away, then the path it writes. It names the path's
    temporary files, so it is the same whether they are staged before or after the journal."""
    entries = []
    for kind, old_path, path in changes:
        if kind in (FileKind.DELETE, FileKind.RENAME):
            assert old_path is not None
            entries.append(old_path)
        if kind is not FileKind.DELETE:
            entries.append(path)
    return {path: number for number, path in enumerate(entries)}


def _executable_perm() -> int:
    """rwx as the umask allows, as git gives a checked-out executable (the umask read
    without setting it: umask.py)."""
    return 0o777 & ~umask.current()


class Transaction:
    def __init__(self, tree: Tree, git_dir: str | None, durable: bool = True,
                 alone: bool = False) -> None:
        self.tree = tree
        self.git_dir = git_dir
        self.durable = durable
        # alone: nothing else (an index, a branch) commits with this transaction, so a change
        # to one path, whose own rename is atomic, needs no journal
        self.alone = alone
        self.record = journal.new_record(tree.root)
        self.journal: journal.Journal | None = None
        # held from before the first temporary file is staged: --recover proves this apply
        # alive by it (fs/leftovers.py); the journal takes it over when one is written
        self.live = journal.Liveness.take(git_dir, self.record.txid) if git_dir else None
        self.numbers: dict[str, int] = {}  # path -> its entry number (names its temp files)
        self.created_dirs: list[str] = []
        self.staged: dict[str, str] = {}  # path -> temporary name in its staging directory
        self.removed: set[str] = set()  # paths deleted or renamed away
        self.done: list[_Done] = []
        self.preimages: dict[str, bytes] = {}  # old contents kept here when there is no journal
        self.current: str | None = None  # path being worked on, for error messages
        # a large patch: staged while planning (stage_planned), and all but the files of
        # new directories staged before the journal; a small one is staged after it, so a
        # kill leaves no temporary file without a journal that names it
        self.stages_early = False
        self.after_stat: dict[str, list[int]] = {}  # path -> journal.file_stat of its staged file
        self.unsynced: list[str] = []  # staged without fsync: a durable write syncs them together
        self.batch: list[FileChange] = []  # planned, to be handed to the stagers together
        self.batch_size = 0
        self.pool: ThreadPoolExecutor | None = None  # the stagers (a large patch)
        self.sent: deque[tuple[Future[None], int]] = deque()  # batches handed over, and sizes
        self.in_flight = 0  # bytes of the batches handed over and not known to be written
        self.failed_at: list[str] = []  # paths the stagers could not write
        self.executable_perm = _executable_perm()

    def run(self, changes: list[FileChange], checkpoint: Callable[[], None],
            before_removals: Callable[[], None] | None = None) -> None:
        """Everything up to the commit point: afterwards the new tree is in place and only
        the journal says it might still be undone. ``before_removals`` runs once everything
        is staged and checked, before the first file is removed or replaced."""
        removals = [c for c in changes if c.kind in (FileKind.DELETE, FileKind.RENAME)]
        self.removed = removed_paths(changes)
        self.numbers = entry_numbers((c.kind, c.old_path, c.path) for c in changes)
        self.wait_staged()
        writes = [c for c in changes if c.kind is not FileKind.DELETE]
        new_dirs = self._missing_dirs([c.path for c in changes])
        if self._alone_file(changes, new_dirs):
            self._stage_all(writes, checkpoint)
        else:
            if self.stages_early:
                # the rest of a large patch staged while planning is staged before the
                # journal, too, which then names each file rather than hashing it; those
                # whose directory the apply makes wait for the journal, which names the
                # directory first (a kill before the journal leaves only temporary files)
                made = set(new_dirs)
                self._stage_all([c for c in writes if c.path not in self.staged
                                 and self._stage_dir(c.path) not in made], checkpoint)
            self._write_journal(changes, new_dirs)
            self._stage_all([c for c in writes if c.path not in self.staged], checkpoint)
        self._stop_stagers()
        if self.unsynced:
            self._sync_staged(self.unsynced)
            checkpoint()
        self._check(changes)
        checkpoint()
        if before_removals is not None:
            before_removals()
        for change in removals:
            assert change.old_path is not None and change.before is not None
            self.current = change.old_path
            parent, name = split(change.old_path)
            os.unlink(name, dir_fd=self.tree.dir_fd(parent))
            self.done.append(_Done(change.old_path, change.before))
        # before the renames: a directory the removals emptied may be where a file goes
        self._prune([c.old_path for c in removals if c.old_path])
        exchange = fstree.exchange_pays_off(sum(c.kind is FileKind.MODIFY for c in writes))
        for change in writes:
            self.current = change.path
            self._commit(change, exchange)
        if self.durable:
            self._sync_dirs({split(c.path)[0] for c in changes}
                            | {split(c.old_path)[0] for c in removals if c.old_path})
        self.current = None

    def _stage_all(self, changes: list[FileChange], checkpoint: Callable[[], None]) -> None:
        """Stage ``changes`` now: one by one (fsync'd each, if durable) when they are few,
        else by the stagers (fsync'd together later)."""
        if len(changes) < _PARALLEL_SYNC:
            for change in changes:
                checkpoint()
                self.current = change.path
                self._stage(change, self.durable)
            return
        self._stage_many(changes)
        checkpoint()

    def mark_commit_point(self, index_path: str, index_sha256: str, ref: str | None,
                          commit: str | None, scratch: str | None = None) -> None:
        if self.journal is not None:
            self.journal.mark_commit_point(index_path, index_sha256, ref, commit, scratch)

    def commit(self) -> None:
        if self.journal is not None:
            self.journal.commit()
            self.journal = None
        self._release()

    def _release(self) -> None:
        """Give up the claim on the transaction's id (nothing of it is left to stage)."""
        if self.live is not None:
            self.live.release()
            self.live = None

    def _alone_file(self, changes: list[FileChange], new_dirs: list[str]) -> bool:
        """One modified or added file in an existing directory, committing alone: its rename
        is the whole commit, so it needs no journal (a kill leaves the old or the new file,
        at worst beside an unused temporary file). A deletion may empty a directory, which
        is pruned after the unlink: that takes the journal. Its old content is kept for the
        undo."""
        if not (self.alone and len(changes) == 1 and not new_dirs
                and changes[0].kind in (FileKind.MODIFY, FileKind.ADD)):
            return False
        change = changes[0]
        if change.before is not None and change.kind is FileKind.MODIFY:
            self.preimages[change.path] = self._preimage(change.path, change.before)
        return True

    def _write_journal(self, changes: list[FileChange], new_dirs: list[str]) -> None:
        entries: list[journal.Entry] = []
        olds: list[tuple[int, journal.Entry, SourceFile]] = []

        def add(path: str, before: SourceFile | None, after: FileChange | None) -> None:
            entry = journal.Entry(path, None, None)
            if after is not None:
                entry.after_stat = self.after_stat.get(path)
                if entry.after_stat is None:  # staged after the journal: hashed instead
                    assert after.after is not None
                    entry.after_sha = journal.sha256(after.after)
            if before is not None:
                entry.perm = before.token[4] & 0o7777 if before.token else None
                olds.append((len(entries), entry, before))
            entries.append(entry)

        for change in changes:
            if change.kind in (FileKind.DELETE, FileKind.RENAME):
                assert change.old_path is not None
                add(change.old_path, change.before, None)
            if change.kind is not FileKind.DELETE:
                add(change.path, change.before if change.kind is FileKind.MODIFY else None,
                    change)
        self.record.entries = entries
        self.record.new_dirs = new_dirs
        if self.git_dir is None:  # no journal: the undo needs the old contents in memory
            for _, entry, before in olds:
                self.preimages[entry.path] = self._preimage(entry.path, before)
            return

        def link(journal_fd: int) -> None:
            """Keep each old file by a hard link where one can be made."""
            for number, entry, before in olds:
                if before.token is not None:
                    self._link(journal_fd, number, entry, before.token)

        def preimages() -> Iterator[bytes]:
            """Each old content no link keeps, read (again) as it goes into the journal."""
            offset = 0
            for _, entry, before in olds:
                if entry.before_stat is not None:
                    continue
                content = self._preimage(entry.path, before)
                entry.before_sha = journal.sha256(content)
                entry.offset, entry.size = offset, len(content)
                offset += len(content)
                yield content

        self.journal = journal.Journal.create(self.git_dir, self.record, preimages(),
                                              sync=self.durable, held=self.live, link=link)

    def _link(self, journal_fd: int, number: int, entry: journal.Entry,
              token: tuple[int, ...]) -> None:
        """Link the old file into the journal (``before_stat``), or leave it to be copied."""
        self.current = entry.path
        parent, name = split(entry.path)
        try:
            with self.tree.opened(parent) as dir_fd:
                st = journal.link_old(dir_fd, name, journal_fd, number, token)
        except (FileNotFoundError, ValueError, Missing):
            raise PatchError("stale_file", f"{entry.path!r} changed on disk while the patch "
                             "was being applied", path=entry.path) from None
        if st is None:
            return
        if self.durable:  # as the copies are: the old content is on disk before any change
            fd = os.open(journal.linked_name(number), _READ_FLAGS, dir_fd=journal_fd)
            try:
                os.fsync(fd)
            finally:
                os.close(fd)
        entry.before_stat = journal.file_stat(st)

    def _preimage(self, path: str, before: SourceFile) -> bytes:
        """The old content the plan was made against: kept by the plan, or read again now
        (refused as stale if the file is no longer the one the plan read)."""
        if before.content is not None:
            return before.content
        got = self.tree.read(path)
        if got is None or identity(got[1]) != before.token:
            raise PatchError("stale_file", f"{path!r} changed on disk while the patch was being "
                             "applied", path=path)
        return got[0]

    def old_content(self, change: FileChange) -> bytes:
        """A changed file's old content, before anything is removed (deleted blobs)."""
        assert change.old_path is not None and change.before is not None
        return self._preimage(change.old_path, change.before)

    def _undo_content(self, path: str, before: SourceFile) -> bytes:
        """The old content to put back: from the plan, memory, or the journal."""
        if before.content is not None:
            return before.content
        if path in self.preimages:
            return self.preimages[path]
        assert self.journal is not None
        return self.journal.preimage(self.record.entries[self.numbers[path]])

    def _missing_dirs(self, paths: list[str]) -> list[str]:
        """Directories to create: missing, or where a file the patch removes is now. One
        walk per path finds the first that is not there; every one below it is made."""
        missing: set[str] = set()
        for path in paths:
            parent = split(path)[0]
            if not parent or parent in missing:
                continue
            try:
                self.tree.dir_fd(parent)
                continue
            except Missing as gone:
                top = gone.args[0]
            except PatchError as err:
                if self._stage_dir(path) == parent:
                    raise  # not a file this patch removes: in the way
                top = err.path or parent
            at = parent
            while at and at not in missing:
                missing.add(at)
                if at == top:
                    break
                at = split(at)[0]
        return sorted(missing)

    def _stage_dir(self, path: str) -> str:
        """Where ``path``'s new content is staged: its directory, unless a file the patch
        removes stands where that directory must be made; then above that file, to be
        moved into the directory once the file is gone."""
        parent = split(path)[0]
        at = parent
        while at:
            if at in self.removed:
                parent = split(at)[0]
            at = split(at)[0]
        return parent

    def _perm(self, change: FileChange) -> int | None:
        if change.before is None or change.before.token is None:
            return self.executable_perm if change.mode == EXECUTABLE else None
        perm = change.before.token[4] & 0o7777
        if change.mode is None or change.mode == change.before.mode:
            return perm
        # a net change of file patches in sequence (a swap of an executable and a plain
        # file): the new mode's executable bits, where the file is readable
        return perm | (perm & 0o444) >> 2 if change.mode == EXECUTABLE else perm & ~0o111

    def _temp(self, path: str, kind: str = "") -> str:
        return journal.temp_name(self.record.txid, self.numbers[path], kind)

    def _stage(self, change: FileChange, sync: bool) -> None:
        assert change.after is not None
        temp = self._temp(change.path)
        st = self.tree.write_new(self._stage_dir(change.path), temp, change.after,
                                 self._perm(change), self.created_dirs, sync=sync)
        self.after_stat[change.path] = journal.file_stat(st)
        self.staged[change.path] = temp
        if self.durable and not sync:
            self.unsynced.append(change.path)
        if self.alone:  # written: nothing later needs it in memory (an index target does)
            change.after = None

    def stage_planned(self, change: FileChange) -> None:
        """Take a change as soon as it is planned (a large patch): every few hundred
        kilobytes of them go to the stagers, a few threads that write them while the plan
        goes on, so the new contents never all sit in memory and the plan does not wait
        for the disk. Only into directories that exist: one that must be made waits for
        the staging after the journal, which records it. A batch the stagers could not
        write is raised here, at the next change planned (or by ``wait_staged``)."""
        self._collect(wait=False)
        if change.kind is FileKind.DELETE or change.after is None:
            return
        try:
            self.tree.dir_fd(self._stage_dir(change.path))
        except (Missing, PatchError):
            return
        self.batch.append(change)
        self.batch_size += len(change.after)
        if self.batch_size >= _BATCH or len(self.batch) >= _BATCH_FILES:
            self._send()

    def _send(self) -> None:
        batch, size = self.batch, self.batch_size
        self.batch, self.batch_size = [], 0
        self.sent.append((self._stagers().submit(self._stage_batch, batch), size))
        self.in_flight += size
        while self.in_flight > _IN_FLIGHT:  # the disk is far behind: wait for the oldest
            self._collect(wait=True, count=1)

    def _stagers(self) -> ThreadPoolExecutor:
        if self.pool is None:
            from concurrent.futures import ThreadPoolExecutor

            self.pool = ThreadPoolExecutor(_STAGE_THREADS, thread_name_prefix="holon-stage")
        return self.pool

    def _stage_batch(self, batch: list[FileChange]) -> None:
        for change in batch:
            try:
                self._stage(change, False)
            except BaseException:
                self.failed_at.append(change.path)
                raise

    def _collect(self, wait: bool, count: int | None = None) -> None:
        """Forget the batches written (all, or ``count``, waiting for them with ``wait``);
        raise the first failure."""
        while self.sent and (wait or self.sent[0][0].done()) and count != 0:
            future, size = self.sent.popleft()
            self.in_flight -= size
            count = None if count is None else count - 1
            failure = future.exception()
            if failure is not None:
                self.current = self.failed_at[0] if self.failed_at else self.current
                raise failure

    def wait_staged(self) -> None:
        """Wait until every batch handed to the stagers is written; raise the first failure
        (after all of them have finished, so nothing is still being written)."""
        try:
            self._collect(wait=True)
        except BaseException:
            self._stop_stagers()
            raise

    def _stop_stagers(self) -> None:
        """Wait for whatever the stagers are still writing, and end their threads."""
        if self.pool is not None:
            self.pool.shutdown(wait=True, cancel_futures=True)
            self.pool = None
        self.sent.clear()
        self.in_flight = 0

    def abandon(self) -> None:
        """Remove what was staged while planning, when the plan was refused or interrupted."""
        self.batch = []
        self._stop_stagers()
        self.rollback()

    def _stage_many(self, writes: list[FileChange]) -> None:
        """Stage by the stagers; directories are made first, here, in order."""
        for change in writes:
            self.current = change.path
            self.tree.dir_fd(self._stage_dir(change.path), create=True,
                             created=self.created_dirs)
        failed: list[str] = []

        def stage(change: FileChange) -> None:
            try:
                self._stage(change, False)
            except BaseException:
                failed.append(change.path)
                raise

        try:
            list(self._stagers().map(stage, writes))
        finally:
            self.current = failed[0] if failed else self.current

    def _sync_staged(self, paths: list[str]) -> None:
        """fsync these staged files, many at once: the disk then flushes them together,
        which on a large patch takes a fraction of the time of one fsync after another."""
        failed: list[str] = []

        def sync(path: str) -> None:
            try:
                with self.tree.opened(self._stage_dir(path)) as dir_fd:
                    fd = os.open(self.staged[path], _READ_FLAGS, dir_fd=dir_fd)
                try:
                    os.fsync(fd)
                finally:
                    os.close(fd)
            except OSError:
                failed.append(path)
                raise

        try:
            _each(sync, paths)
        finally:
            self.current = failed[0] if failed else self.current
        self.unsynced = []

    def _check(self, changes: list[FileChange]) -> None:
        """Refuse if anything changed on disk since the plan read it."""
        self.tree.revalidate()
        for change in changes:
            if change.before is not None and change.old_path is not None:
                st = self.tree.lstat(change.old_path)
                if st is None or identity(st) != change.before.token:
                    raise PatchError("stale_file", f"{change.old_path!r} changed on disk while "
                                     "the patch was being applied", path=change.old_path)
            if change.kind in (FileKind.ADD, FileKind.RENAME) and self._in_the_way(change.path):
                raise PatchError("already_exists", f"{change.path!r} appeared on disk while "
                                 "the patch was being applied", path=change.path)

    def _in_the_way(self, path: str) -> bool:
        """Something is at ``path`` that the removals will not clear. A directory holding
        removed files passes here: if anything else is left in it, the rename fails."""
        if self._stage_dir(path) != split(path)[0]:
            return False  # a removed file is where its directory goes: nothing can be in it
        st = self.tree.lstat(path)
        if st is None:
            return False
        return not (stat.S_ISDIR(st.st_mode)
                    and any(r.startswith(path + "/") for r in self.removed))

    def _commit(self, change: FileChange, exchange: bool) -> None:
        parent, name = split(change.path)
        staged_in = self._stage_dir(change.path)
        with self.tree.opened(parent, create=staged_in != parent,
                              created=self.created_dirs) as fd, \
                self.tree.opened(staged_in) as from_fd:
            temp = self.staged[change.path]
            before = change.before if change.kind is FileKind.MODIFY else None
            if exchange and before is not None and fstree.exchange(temp, name, fd):
                # the new content is in place; the temporary name now holds the old one
                self.done.append(_Done(change.path, before))
                os.unlink(temp, dir_fd=fd)
            else:
                os.rename(temp, name, src_dir_fd=from_fd, dst_dir_fd=fd)
                self.done.append(_Done(change.path, before))
        del self.staged[change.path]

    def _sync_dirs(self, dirs: set[str]) -> None:
        def sync(rel: str) -> None:
            with suppress(OSError, Missing, PatchError), self.tree.opened(rel) as fd:
                os.fsync(fd)

        _each(sync, sorted(dirs))

    def _prune(self, removed: list[str]) -> None:
        """Remove directories a deletion or rename left empty, as git does."""
        for path in removed:
            parent = split(path)[0]
            while parent:
                up, name = split(parent)
                try:
                    os.rmdir(name, dir_fd=self.tree.dir_fd(up))
                except (OSError, Missing):  # not empty, or pruned already with a deeper path
                    break
                self.tree.forget(parent)
                parent = up

    def rollback(self) -> list[str]:
        """Undo everything, newest first; returns what could not be undone. The journal goes
        only when everything was undone; otherwise it stays for --recover."""
        self._stop_stagers()  # nothing may still be staging while the staged files go
        problems: list[str] = []
        for done in reversed(self.done):
            try:
                parent, name = split(done.path)
                if done.before is None:
                    os.unlink(name, dir_fd=self.tree.dir_fd(parent))
                else:
                    if done.path in self.created_dirs:  # made where this file was: empty now
                        with suppress(OSError, Missing):
                            os.rmdir(name, dir_fd=self.tree.dir_fd(parent))
                            self.tree.forget(done.path)
                    perm = done.before.token[4] & 0o7777 if done.before.token else None
                    temp = self._temp(done.path, "r")
                    content = self._undo_content(done.path, done.before)
                    self.tree.write_new(parent, temp, content, perm)
                    fd = self.tree.dir_fd(parent)
                    os.rename(temp, name, src_dir_fd=fd, dst_dir_fd=fd)
            except (OSError, PatchError, Missing) as exc:
                problems.append(f"{done.path}: {exc}")
        for path, temp in self.staged.items():
            with suppress(OSError, PatchError, Missing):
                os.unlink(temp, dir_fd=self.tree.dir_fd(self._stage_dir(path)))
        for rel in reversed(self.created_dirs):
            up, name = split(rel)
            with suppress(OSError, PatchError, Missing):
                os.rmdir(name, dir_fd=self.tree.dir_fd(up))
                self.tree.forget(rel)
        if self.journal is not None:
            if problems:
                self.journal.release()
                problems.append("run 'git holon-apply --recover' to finish the undo")
            else:
                try:
                    self.journal.commit()
                except OSError as exc:
                    self.journal.release()
                    problems.append(f"the crash journal could not be removed ({exc}); "
                                    "run 'git holon-apply --recover'")
            self.journal = None
        self._release()
        return problems
