"""The crash journal of a working-tree apply: enough to put every file back after a hard kill.

Layout: ``<git dir>/holon-apply/<id>/`` holds ``preimages`` (the old contents of every file
the apply changes, concatenated) and ``journal.json`` (what each path held before and will
hold after, and the temporary names the apply stages under). Both are written (and, for a
durable apply, fsync'd), and journal.json is renamed into place, before the first file of
the working tree is replaced.

What a path will hold is proven one of two ways. A file staged before the journal is
written is named by its inode, size and modification time (``after_stat``): the commit
renames that very file into place, so a path showing them holds the apply's new content,
and any later edit (a write moves the modification time; an editor's save makes a new
inode) shows as someone else's. Hashing the new contents would cost a large patch as much
as hashing the old ones. Only a file staged after the journal (into a directory the apply
makes, which the journal must name first) carries the sha256 of its content
(``after_sha``). Version 1 journals, written before ``after_stat`` existed, are still read.
Removing journal.json is the apply's commit point; a journal that still has one after its
process died is *unrecovered* (journal_dir.py finds those), and ``git holon-apply --recover``
restores every path to its old content (holon_git/recover.py).

The process that owns a journal holds an exclusive ``flock`` on its directory for the whole
transaction. The kernel drops it when the process dies, however it dies, so a journal whose
directory can be locked is one nobody is working on.
"""

from __future__ import annotations

import fcntl
import json
import os
import time
from collections.abc import Iterable
from contextlib import suppress
from dataclasses import dataclass, field

from ..git.location import JOURNAL_DIR
from .journal_check import check_record
from .journal_dir import JOURNAL_FILE

PREIMAGES = "preimages"
COMMIT_POINT = "commit-point.json"  # --index/--commit: how to tell the git side went through
VERSION = 2
READ_VERSIONS = (1, 2)  # a journal an older holon-git left behind is still recovered
_DIR_FLAGS = os.O_RDONLY | os.O_DIRECTORY | getattr(os, "O_CLOEXEC", 0)
_FILE_FLAGS = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_CLOEXEC", 0)


def sha256(data: bytes) -> str:
    import hashlib

    return hashlib.sha256(data).hexdigest()


def temp_name(txid: str, number: int, kind: str = "") -> str:
    """The temporary file name entry ``number`` stages (kind "") or restores (kind "r") under,
    in the directory of its path; fixed in advance so a recovery can find leftovers."""
    return f".holon-{txid}-{kind}{number}.tmp"


def file_stat(st: os.stat_result) -> list[int]:
    """What ``after_stat`` records of a staged file: inode, size, modification time (ns).
    Not the device: a filesystem may be mounted under another device number after a reboot,
    and the inode of a renamed file never leaves its filesystem."""
    return [st.st_ino, st.st_size, st.st_mtime_ns]


@dataclass(slots=True)
class Entry:
    """One path of the transaction. What will be at path is proven by ``after_sha`` or by
    ``after_stat`` (see the module's docstring); neither: nothing will be there."""

    path: str
    before_sha: str | None  # None: nothing was at path
    after_sha: str | None  # sha256 of the new content, for a file staged after the journal
    perm: int | None = None  # permission bits of the old file
    offset: int = 0  # where the old content starts in the preimages file
    size: int = 0
    after_stat: list[int] | None = None  # file_stat() of the file staged before the journal

    @property
    def is_new(self) -> bool:
        """Something will be at path."""
        return self.after_sha is not None or self.after_stat is not None

    def holds_new(self, content_sha: str | None, st: os.stat_result | None) -> bool:
        """Whether a file with this content (or, for ``after_stat``, this stat) is the new
        content this entry stages."""
        if self.after_stat is not None:
            return st is not None and file_stat(st) == self.after_stat
        return self.after_sha is not None and content_sha == self.after_sha

    def to_dict(self) -> dict[str, object]:
        return {"path": self.path, "before_sha": self.before_sha, "after_sha": self.after_sha,
                "after_stat": self.after_stat, "perm": self.perm, "offset": self.offset,
                "size": self.size}


@dataclass
class Record:
    txid: str
    entries: list[Entry]
    new_dirs: list[str] = field(default_factory=list)  # directories the apply may create
    root: str = ""
    pid: int = 0
    created: float = 0.0

    def to_json(self) -> bytes:
        """Compact, built field by field (asdict's deep copies and indentation cost a large
        patch's journal more than its write)."""
        return json.dumps({"version": VERSION, "txid": self.txid,
                           "entries": [entry.to_dict() for entry in self.entries],
                           "new_dirs": self.new_dirs, "root": self.root, "pid": self.pid,
                           "created": self.created}, separators=(",", ":")).encode()

    @classmethod
    def from_json(cls, raw: bytes, txid: str | None = None) -> Record:
        """A record read back, checked (journal_check.py); raises journal_invalid."""
        data = check_record(raw, txid if txid is not None else _txid_of(raw), READ_VERSIONS)
        data.pop("version")
        data["entries"] = [Entry(**entry) for entry in data["entries"]]
        return cls(**data)


def _txid_of(raw: bytes) -> str:
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


def remove_dir(parent_fd: int, name: str) -> None:
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


def remove_base(git_dir: str) -> None:
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
                remove_base(git_dir)
                raise
            try:
                os.mkdir(record.txid, 0o700, dir_fd=base_fd)
                break
            except BaseException as exc:
                os.close(base_fd)
                # FileNotFoundError: removed by another apply's cleanup just now
                if attempt == 4 or not isinstance(exc, FileNotFoundError):
                    remove_base(git_dir)
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
            remove_dir(base_fd, record.txid)
            os.close(base_fd)
            remove_base(git_dir)
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
        remove_dir(self.base_fd, self.txid)
        with suppress(OSError):
            os.close(self.base_fd)
        remove_base(self.git_dir)

    def release(self) -> None:
        """Stop holding the journal, leaving it for --recover (the undo could not finish)."""
        if self.fd >= 0:
            with suppress(OSError):
                os.close(self.fd)
            self.fd = -1


def new_record(root: str) -> Record:
    txid = f"{int(time.time())}-{os.getpid()}-{os.urandom(4).hex()}"
    return Record(txid, [], root=root, pid=os.getpid(), created=time.time())
