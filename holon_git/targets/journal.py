"""The crash journal of a working-tree apply: enough to put every file back after a hard kill.

Layout: ``<git dir>/holon-apply/<id>/`` holds ``preimages`` (the old contents of every file
the apply changes, concatenated) and ``journal.json`` (what each path held before and will
hold after, and the temporary names the apply stages under). Both are written (and, for a
durable apply, fsync'd), and journal.json is renamed into place, before the first byte is
written to the working tree.
Removing journal.json is the apply's commit point; a journal that still has one after its
process died is *unrecovered*, and ``git holon-apply --recover`` restores every path to its
old content.

The process that owns a journal holds an exclusive ``flock`` on its directory for the whole
transaction. The kernel drops it when the process dies, however it dies, so a journal whose
directory can be locked is one nobody is working on.
"""

from __future__ import annotations

import errno
import fcntl
import os
import stat
import time
from collections.abc import Collection, Iterable
from contextlib import suppress
from dataclasses import asdict, dataclass, field
from typing import Any

from ..errors import PatchError
from .fsops import Missing, Tree, split
from .journal_check import invalid
from .repo import JOURNAL_DIR

JOURNAL_FILE = "journal.json"
PREIMAGES = "preimages"
COMMIT_POINT = "commit-point.json"  # --index/--commit: how to tell the git side went through
VERSION = 1
_DIR_FLAGS = os.O_RDONLY | os.O_DIRECTORY | getattr(os, "O_CLOEXEC", 0)
_FILE_FLAGS = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_CLOEXEC", 0)


def sha256(data: bytes) -> str:
    import hashlib

    return hashlib.sha256(data).hexdigest()


def temp_name(txid: str, number: int, kind: str = "") -> str:
    """The temporary file name entry ``number`` stages (kind "") or restores (kind "r") under,
    in the directory of its path; fixed in advance so a recovery can find leftovers."""
    return f".holon-{txid}-{kind}{number}.tmp"


@dataclass
class Entry:
    """One path of the transaction."""

    path: str
    before_sha: str | None  # None: nothing was at path
    after_sha: str | None  # None: nothing will be at path
    perm: int | None = None  # permission bits of the old file
    offset: int = 0  # where the old content starts in the preimages file
    size: int = 0


@dataclass
class Record:
    txid: str
    entries: list[Entry]
    new_dirs: list[str] = field(default_factory=list)  # directories the apply may create
    root: str = ""
    pid: int = 0
    created: float = 0.0

    def to_json(self) -> bytes:
        import json

        data = asdict(self)
        data["version"] = VERSION
        return json.dumps(data, indent=1).encode()

    @classmethod
    def from_json(cls, raw: bytes, txid: str | None = None) -> Record:
        """A record read back, checked (journal_check.py); raises journal_invalid."""
        from .journal_check import check_record

        data = check_record(raw, txid if txid is not None else _txid_of(raw), VERSION)
        data.pop("version")
        data["entries"] = [Entry(**entry) for entry in data["entries"]]
        return cls(**data)


def _txid_of(raw: bytes) -> str:
    import json

    try:
        data = json.loads(raw)
    except (ValueError, RecursionError):
        return "?"
    found = data.get("txid") if isinstance(data, dict) else None
    return found if isinstance(found, str) else "?"


def _write_file(name: str, dir_fd: int, chunks: Iterable[bytes], sync: bool = True) -> None:
    fd = os.open(name, _FILE_FLAGS, 0o600, dir_fd=dir_fd)
    try:
        for chunk in chunks:
            view = memoryview(chunk)
            while view:
                view = view[os.write(fd, view):]
        if sync:
            os.fsync(fd)
    finally:
        os.close(fd)


def _remove_dir(parent_fd: int, name: str) -> None:
    """Best effort: a leftover directory without journal.json is ignored by everyone. An
    empty one is removed without opening it (near the descriptor limit, opening it may be
    what failed)."""
    try:
        os.rmdir(name, dir_fd=parent_fd)
        return
    except OSError:
        pass
    with suppress(OSError):
        fd = os.open(name, _DIR_FLAGS | os.O_NOFOLLOW, dir_fd=parent_fd)
        try:
            for child in os.listdir(fd):
                with suppress(OSError):
                    os.unlink(child, dir_fd=fd)
        finally:
            os.close(fd)
        os.rmdir(name, dir_fd=parent_fd)


def _make_base(git_dir: str) -> int:
    """Open <git dir>/holon-apply, making it; another apply may remove it when it is empty,
    so try again if it vanishes in between."""
    base = os.path.join(git_dir, JOURNAL_DIR)
    for attempt in range(5):
        with suppress(FileExistsError):
            os.mkdir(base, 0o777)
        try:
            return os.open(base, _DIR_FLAGS | os.O_NOFOLLOW)
        except FileNotFoundError:
            if attempt == 4:
                raise
    raise AssertionError("unreachable")


def _remove_base(git_dir: str) -> None:
    """Best effort: leave .git as it was when no other journal is there."""
    with suppress(OSError):
        os.rmdir(os.path.join(git_dir, JOURNAL_DIR))


class Journal:
    """A journal this process owns (and holds locked) while its transaction runs."""

    def __init__(self, git_dir: str, base_fd: int, fd: int, record: Record,
                 sync: bool = True) -> None:
        self.git_dir = git_dir
        self.sync = sync  # fsync what it writes (durable applies); a kill needs none of it
        self.base_fd = base_fd  # <git dir>/holon-apply
        self.txid = record.txid
        self.fd = fd  # the journal directory, flock'd
        self.record = record

    @classmethod
    def create(cls, git_dir: str, record: Record, preimages: Iterable[bytes],
               sync: bool = True) -> Journal:
        """Write the journal (fsync'd with ``sync``); on failure nothing is left behind.
        ``preimages`` is consumed before the record is written, so a generator may fill in
        the entries' checksums and offsets as it reads each old content."""
        for attempt in range(5):
            try:
                base_fd = _make_base(git_dir)
            except BaseException:
                _remove_base(git_dir)
                raise
            try:
                os.mkdir(record.txid, 0o700, dir_fd=base_fd)
                break
            except BaseException as exc:
                os.close(base_fd)
                # FileNotFoundError: removed by another apply's cleanup just now
                if attempt == 4 or not isinstance(exc, FileNotFoundError):
                    _remove_base(git_dir)
                    raise
        fd = -1
        try:
            fd = os.open(record.txid, _DIR_FLAGS | os.O_NOFOLLOW, dir_fd=base_fd)
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            _write_file(PREIMAGES, fd, preimages, sync)
            _write_file(JOURNAL_FILE + ".tmp", fd, [record.to_json()], sync)
            os.rename(JOURNAL_FILE + ".tmp", JOURNAL_FILE, src_dir_fd=fd, dst_dir_fd=fd)
            if sync:
                os.fsync(fd)
                os.fsync(base_fd)
        except BaseException:
            if fd >= 0:
                os.close(fd)
            _remove_dir(base_fd, record.txid)
            os.close(base_fd)
            _remove_base(git_dir)
            raise
        return cls(git_dir, base_fd, fd, record, sync)

    def preimage(self, entry: Entry) -> bytes:
        """An entry's old content, read back from the preimages file (for an undo)."""
        fd = os.open(PREIMAGES, os.O_RDONLY | os.O_NOFOLLOW | getattr(os, "O_CLOEXEC", 0),
                     dir_fd=self.fd)
        try:
            chunks, offset, left = [], entry.offset, entry.size
            while left:
                chunk = os.pread(fd, left, offset)
                if not chunk:
                    break
                chunks.append(chunk)
                offset += len(chunk)
                left -= len(chunk)
        finally:
            os.close(fd)
        content = b"".join(chunks)
        if entry.before_sha is None or sha256(content) != entry.before_sha:
            raise OSError(f"the journal's copy of {entry.path!r} is damaged")
        return content

    def mark_commit_point(self, index_path: str, index_sha256: str, ref: str | None,
                          commit: str | None, scratch: str | None = None) -> None:
        """For an apply that also writes the index (and a branch): once the new index or the
        new commit is in place, the working tree is already all new and must stay so; record
        how --recover can tell (the index's checksum, the branch's new commit)."""
        import json

        data = json.dumps({"index": index_path, "index_sha256": index_sha256, "ref": ref,
                           "commit": commit, "scratch": scratch}).encode()
        _write_file(COMMIT_POINT + ".tmp", self.fd, [data], self.sync)
        os.rename(COMMIT_POINT + ".tmp", COMMIT_POINT, src_dir_fd=self.fd, dst_dir_fd=self.fd)
        if self.sync:
            os.fsync(self.fd)

    def commit(self) -> None:
        """Forget the journal: the transaction is done (or fully undone). Removing journal.json
        is the one step that counts; an OSError there leaves the journal in force."""
        os.unlink(JOURNAL_FILE, dir_fd=self.fd)
        if self.sync:
            with suppress(OSError):
                os.fsync(self.fd)
        self.release()
        _remove_dir(self.base_fd, self.txid)
        with suppress(OSError):
            os.close(self.base_fd)
        _remove_base(self.git_dir)

    def release(self) -> None:
        """Stop holding the journal, leaving it for --recover (the undo could not finish)."""
        if self.fd >= 0:
            with suppress(OSError):
                os.close(self.fd)
            self.fd = -1


def new_record(root: str) -> Record:
    txid = f"{int(time.time())}-{os.getpid()}-{os.urandom(4).hex()}"
    return Record(txid, [], root=root, pid=os.getpid(), created=time.time())


# -- finding and recovering unrecovered journals ------------------------------------------------


@dataclass
class Recovery:
    """What --recover did."""

    journals: list[str] = field(default_factory=list)  # recovered journal ids
    restored: list[str] = field(default_factory=list)  # paths given back their old content
    removed: list[str] = field(default_factory=list)  # paths the apply had created
    busy: list[str] = field(default_factory=list)  # journals of applies still running
    # journals whose index or branch had already moved: the apply went through, and the
    # working tree (all new) was left as it is
    completed: list[str] = field(default_factory=list)
    # temporary files killed applies left with no journal pointing to them (a one-file
    # apply, or a large patch staging while planning), removed (targets/leftovers.py)
    temporaries: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, object]:
        return asdict(self)


def _open_base(git_dir: str) -> int | None:
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


def _try_lock(base_fd: int, txid: str) -> int | None:
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


def _has_record(fd: int) -> bool:
    try:
        os.stat(JOURNAL_FILE, dir_fd=fd, follow_symlinks=False)
    except FileNotFoundError:
        return False
    return True


def _read_file(dir_fd: int, name: str, txid: str) -> bytes | None:
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
    base_fd = _open_base(git_dir)
    if base_fd is None:
        return []
    found = []
    try:
        for txid in sorted(os.listdir(base_fd)):
            fd = _try_lock(base_fd, txid)
            if fd is None:
                continue
            try:
                if _has_record(fd):
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


@dataclass
class _Loaded:
    """A journal locked and read back, checked, before --recover acts on any."""

    txid: str
    fd: int
    record: Record | None  # None: no journal.json (died before touching the tree)
    mark: dict[str, Any] | None = None  # its commit-point record, if any
    preimages: bytes = b""

    @property
    def order(self) -> tuple[float, str]:
        return (self.record.created if self.record else 0.0, self.txid)


def _load(fd: int, txid: str, git_dir: str) -> _Loaded:
    from .journal_check import check_commit_point, check_preimage_ranges

    if not _has_record(fd):
        return _Loaded(txid, fd, None)
    raw = _read_file(fd, JOURNAL_FILE, txid)
    record = Record.from_json(raw or b"", txid)
    preimages = _read_file(fd, PREIMAGES, txid)
    if preimages is None:
        if any(entry.before_sha is not None for entry in record.entries):
            raise invalid(txid, f"its {PREIMAGES} file is missing")
        preimages = b""
    check_preimage_ranges(record.entries, len(preimages), txid)
    raw_mark = _read_file(fd, COMMIT_POINT, txid)
    mark = None if raw_mark is None else check_commit_point(raw_mark, txid, git_dir)
    return _Loaded(txid, fd, record, mark, preimages)


def _check_paths(tree: Tree, record: Record) -> None:
    """The disk-side path policy for every path a journal names, before anything changes:
    no symbolic link on the way, nothing in the git directory under another name."""
    for rel in [entry.path for entry in record.entries] + list(record.new_dirs):
        try:
            tree.lstat(rel)
        except PatchError as err:
            if err.code in ("path_escape", "symlink_in_path"):
                raise invalid(record.txid, f"it names {rel!r}: {err.message}", path=rel,
                              refused=err.code) from None


def recover(git_dir: str, root: str, guarded: list[str] | None = None) -> Recovery:
    """Restore every path of every unrecovered journal to its old content, newest journal
    first, and remove the journals. Safe to run again if it is itself interrupted. Every
    journal is read back and checked before the first change (journal_invalid)."""
    result = Recovery()
    base_fd = _open_base(git_dir)
    if base_fd is None:
        return result
    guarded = guarded if guarded is not None else [git_dir]
    locked: list[_Loaded] = []
    try:
        for txid in sorted(os.listdir(base_fd)):
            fd = _try_lock(base_fd, txid)
            if fd is None:
                result.busy.append(txid)
                continue
            locked.append(_Loaded(txid, fd, None))  # closed below, whatever happens next
            locked[-1] = _load(fd, txid, git_dir)
        with Tree(root, guarded) as tree:
            for loaded in locked:
                if loaded.record is not None:
                    _check_paths(tree, loaded.record)
        for loaded in sorted(locked, key=lambda item: item.order, reverse=True):
            if loaded.record is not None:
                if _past_commit_point(loaded.mark, git_dir):
                    result.completed.append(loaded.txid)
                else:
                    with Tree(root, guarded) as tree:
                        _restore(tree, loaded.record, loaded.preimages, result)
                    result.journals.append(loaded.txid)
                os.unlink(JOURNAL_FILE, dir_fd=loaded.fd)
            _remove_dir(base_fd, loaded.txid)
    finally:
        for loaded in locked:
            os.close(loaded.fd)
        os.close(base_fd)
    _remove_base(git_dir)
    return result


def _past_commit_point(mark: dict[str, Any] | None, git_dir: str) -> bool:
    """True if the apply's index or branch update went through (see mark_commit_point);
    ``mark`` was checked to name this repository's index, a branch and a commit id."""
    if mark is None:
        return False
    try:
        with open(mark["index"], "rb") as fh:
            if sha256(fh.read()) == mark["index_sha256"]:
                return True
    except OSError:
        pass
    if mark.get("ref") and mark.get("commit"):
        import subprocess

        done = subprocess.run(["git", "--git-dir", git_dir, "rev-parse", "--verify", "-q",
                               mark["ref"]], capture_output=True, text=True, check=False)
        if done.stdout.strip() == mark["commit"]:
            _finish_index(mark)
            return True
    return False


def _finish_index(mark: dict) -> None:
    """The branch moved but the process died before the new index replaced the old one:
    put the new index (in the lock file or the scratch file) in place and unlock."""
    index, lock, scratch = mark["index"], mark["index"] + ".lock", mark.get("scratch")

    def holds_new(path: str) -> bool:
        try:
            fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | getattr(os, "O_CLOEXEC", 0))
        except OSError:
            return False
        try:
            chunks = []
            while chunk := os.read(fd, 1 << 20):
                chunks.append(chunk)
        except OSError:
            return False
        finally:
            os.close(fd)
        return sha256(b"".join(chunks)) == mark["index_sha256"]

    if holds_new(lock):
        os.replace(lock, index)
    elif scratch and holds_new(scratch) and os.path.isfile(lock) \
            and not os.path.islink(lock) and os.path.getsize(lock) == 0:  # our empty lock
        os.replace(scratch, lock)
        os.replace(lock, index)


def _current(tree: Tree, entry: Entry, new_dirs: Collection[str] = ()) -> str | None:
    """The sha256 of what is at the entry's path; None for nothing, which includes a file
    on the way (a type change made it a file again) and a directory where the transaction
    had yet to add its file or had made one in place of a removed file."""
    try:
        got = tree.read(entry.path)
    except PatchError as err:
        if err.code == "already_exists" or (err.code == "not_a_regular_file" and (
                entry.before_sha is None or entry.path in new_dirs)):
            return None
        raise
    return None if got is None else sha256(got[0])


def _remove_temps(tree: Tree, path: str, txid: str, number: int) -> None:
    """Remove an entry's temporary files: in its directory, or in one above it when it was
    staged there (its directory was a removed file)."""
    parent = split(path)[0]
    while True:
        try:
            fd = tree.dir_fd(parent)
        except (Missing, PatchError):
            fd = None
        if fd is not None:
            for leftover in (temp_name(txid, number), temp_name(txid, number, "r")):
                with suppress(FileNotFoundError):
                    os.unlink(leftover, dir_fd=fd)
        if not parent:
            return
        parent = split(parent)[0]


def _restore(tree: Tree, record: Record, preimages: bytes, result: Recovery) -> None:
    # First make sure every path holds something this transaction put there: its old
    # content, its new content, or nothing. Anything else is someone's later edit.
    conflicts = []
    for entry in record.entries:
        try:
            now = _current(tree, entry, record.new_dirs)
        except PatchError:
            now = "?"
        if now not in (None, entry.before_sha, entry.after_sha):
            conflicts.append(entry.path)
    if conflicts:
        raise PatchError(
            "stale_file",
            f"cannot recover journal {record.txid}: {', '.join(map(repr, conflicts[:5]))} "
            "changed after the interrupted apply",
            hint="move those edits aside (or commit them), then run "
            "'git holon-apply --recover' again",
            path=conflicts[0], details={"journal": record.txid, "paths": conflicts},
        )
    touched: set[str] = set()
    # In three passes, so a file and a directory may trade places (git's type changes):
    # what the transaction added goes first, then the directories it made, then old contents
    # come back.
    for number, entry in enumerate(record.entries):
        _remove_temps(tree, entry.path, record.txid, number)
        if entry.before_sha is None and _current(tree, entry) is not None:
            parent, name = split(entry.path)
            os.unlink(name, dir_fd=tree.dir_fd(parent))
            result.removed.append(entry.path)
            touched.add(parent)
    for rel in sorted(record.new_dirs, key=lambda d: d.count("/"), reverse=True):
        up, name = split(rel)
        with suppress(OSError, Missing, PatchError):
            os.rmdir(name, dir_fd=tree.dir_fd(up))
            tree.forget(rel)
    for number, entry in enumerate(record.entries):
        if entry.before_sha is None or _current(tree, entry) == entry.before_sha:
            continue
        old = preimages[entry.offset:entry.offset + entry.size]
        if sha256(old) != entry.before_sha:
            raise PatchError("io_error", f"journal {record.txid} is damaged: the saved "
                             f"content of {entry.path!r} does not match its checksum",
                             path=entry.path)
        parent, name = split(entry.path)
        temp = temp_name(record.txid, number, "r")
        tree.write_new(parent, temp, old, entry.perm)
        fd = tree.dir_fd(parent)
        os.rename(temp, name, src_dir_fd=fd, dst_dir_fd=fd)
        result.restored.append(entry.path)
        touched.add(parent)
    for rel in touched:
        with suppress(OSError, Missing, PatchError):
            os.fsync(tree.dir_fd(rel))
