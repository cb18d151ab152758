"""The crash journal of a working-tree apply: enough to put every file back after a hard kill.

Layout: ``<git dir>/holon-apply/<id>/`` holds the old file of every path the apply changes
and ``journal.json`` (what each path held before and will hold after, and the temporary names
the apply stages under). An old file is kept by a hard link, ``pre-<entry number>``: the
replace (a rename over it, or an unlink) then leaves its inode to the journal, unchanged, and
nothing is read, hashed or copied. The link is named by the old file's inode, size and
modification time (``before_stat``), as the staged file is by ``after_stat`` (below). Where a
link cannot be made (the git directory on another filesystem, a filesystem without hard
links, a file someone else owns), the old content is copied into ``preimages``, all such
contents concatenated, with its sha256 (``before_sha``). All of it is written (and, for a
durable apply, fsync'd), and journal.json is renamed into place, before the first file of
the working tree is replaced.

What a path will hold is proven one of two ways. A file staged before the journal is
written is named by its inode, size and modification time (``after_stat``): the commit
renames that very file into place, so a path showing them holds the apply's new content,
and any later edit (a write moves the modification time; an editor's save makes a new
inode) shows as someone else's. Hashing the new contents would cost a large patch as much
as hashing the old ones. Only a file staged after the journal (into a directory the apply
makes, which the journal must name first) carries the sha256 of its content
(``after_sha``). Journals of versions 1 (before ``after_stat``) and 2 (before ``before_stat``)
are still read.
Removing journal.json is the apply's commit point; a journal that still has one after its
process died is *unrecovered* (journal_dir.py finds those), and ``git holon-apply --recover``
restores every path to its old content (holon_git/recover.py).

The process that owns a journal holds an exclusive ``flock`` on its directory for the whole
transaction. The kernel drops it when the process dies, however it dies, so a journal whose
directory can be locked is one nobody is working on. The directory is made and locked when
the transaction starts (``Liveness``), before it stages its first temporary file, also when
no journal is ever written (one file, or a large patch staging while it plans): --recover
takes temporary files for leftovers only when that lock can be taken (fs/leftovers.py), a
proof of death that holds across pid namespaces, unlike a process id.
"""

from __future__ import annotations

import fcntl
import json
import os
import stat
import time
from collections.abc import Callable, Iterable
from contextlib import suppress
from dataclasses import dataclass, field

from ..git.location import JOURNAL_DIR
from .journal_check import check_record
from .journal_dir import JOURNAL_FILE
from .tree import identity

PREIMAGES = "preimages"
COMMIT_POINT = "commit-point.json"  # --index/--commit: how to tell the git side went through
VERSION = 3
READ_VERSIONS = (1, 2, 3)  # a journal an older holon-git left behind is still recovered
_DIR_FLAGS = os.O_RDONLY | os.O_DIRECTORY | getattr(os, "O_CLOEXEC", 0)
_FILE_FLAGS = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_CLOEXEC", 0)


def sha256(data: bytes) -> str:
    import hashlib

    return hashlib.sha256(data).hexdigest()


def linked_name(number: int) -> str:
    """The name entry ``number``'s old file is linked under in the journal directory."""
    return f"pre-{number}"


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
    """One path of the transaction. What was at path is kept by ``before_stat`` (a link) or
    ``before_sha`` (a copy); what will be there is proven by ``after_sha`` or by
    ``after_stat`` (see the module's docstring); neither: nothing was, or will be, there."""

    path: str
    before_sha: str | None  # sha256 of the old content copied into the preimages file
    after_sha: str | None  # sha256 of the new content, for a file staged after the journal
    perm: int | None = None  # permission bits of the old file
    offset: int = 0  # where the old content starts in the preimages file
    size: int = 0
    after_stat: list[int] | None = None  # file_stat() of the file staged before the journal
    before_stat: list[int] | None = None  # file_stat() of the old file, linked (linked_name)

    @property
    def is_old(self) -> bool:
        """Something was at path (kept by a link or a copy)."""
        return self.before_sha is not None or self.before_stat is not None

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
                "after_stat": self.after_stat, "before_stat": self.before_stat,
                "perm": self.perm, "offset": self.offset, "size": self.size}


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


def link_old(dir_fd: int, name: str, journal_fd: int, number: int,
             token: tuple[int, ...]) -> os.stat_result | None:
    """Link the file ``name`` of the directory ``dir_fd`` into the journal as entry
    ``number``'s old file, if it is the file with identity ``token`` (fs/tree.py's
    ``identity``), this user's own and linked nowhere else. Its stat when linked; None where
    no link can be made (another filesystem, one without hard links, the file another user's
    or with links of its own): copy it instead. Raises FileNotFoundError, or ValueError
    (another file), when the file is not the one read.

    Once the commit has replaced the file, the journal's link is its only name: recovery
    copies a link's content into the working tree only then (read_linked's callers), so
    that a link planted in a forged journal to a file of this user's elsewhere (which has a
    name of its own) is never copied out."""
    linked = linked_name(number)
    try:
        os.link(name, linked, src_dir_fd=dir_fd, dst_dir_fd=journal_fd, follow_symlinks=False)
    except FileNotFoundError:
        raise
    except OSError:
        return None  # EXDEV, EPERM, EMLINK, EOPNOTSUPP...: the copy keeps it
    try:
        st = os.stat(linked, dir_fd=journal_fd, follow_symlinks=False)
        if identity(st) != token:
            raise ValueError(f"{name!r} is not the file that was read")
        if st.st_uid != os.geteuid() or st.st_nlink != 2:  # see above, and read_linked
            os.unlink(linked, dir_fd=journal_fd)
            return None
    except BaseException:
        with suppress(OSError):
            os.unlink(linked, dir_fd=journal_fd)
        raise
    return st


def read_linked(journal_fd: int, number: int) -> tuple[bytes, os.stat_result] | None:
    """What entry ``number``'s link holds, and its stat; None unless it is a regular file of
    this user's (a link made by anyone else, to a file they could not read, must not be
    copied out). Whether it still holds the old content is the caller's to check: its stat
    is the ``before_stat`` the journal names unless it was written to in place since."""
    try:
        fd = os.open(linked_name(number), os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK
                     | getattr(os, "O_CLOEXEC", 0), dir_fd=journal_fd)
    except OSError:
        return None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode) or st.st_uid != os.geteuid():
            return None
        chunks = []
        while chunk := os.read(fd, max(st.st_size + 1, 1 << 16)):
            chunks.append(chunk)
    finally:
        os.close(fd)
    content = b"".join(chunks)
    return (content, st) if len(content) == st.st_size else None


def _empty(dir_fd: int) -> None:
    """Best effort: remove every file of a journal directory."""
    with suppress(OSError):
        for child in os.listdir(dir_fd):
            with suppress(OSError):
                os.unlink(child, dir_fd=dir_fd)


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


class Liveness:
    """A transaction's claim on its id: ``<git dir>/holon-apply/<txid>/``, made and held
    flock'd from before its first temporary file is staged until it ends; its journal, if
    one is written, goes in it (``Journal.create(held=...)``)."""

    def __init__(self, git_dir: str, txid: str, base_fd: int, fd: int) -> None:
        self.git_dir, self.txid, self.base_fd, self.fd = git_dir, txid, base_fd, fd

    @classmethod
    def take(cls, git_dir: str, txid: str) -> Liveness | None:
        """Best effort: None when the directory cannot be made (a read-only git directory);
        the apply then goes on as before, only unprovable as alive."""
        for _ in range(5):
            try:
                base_fd = _make_base(git_dir)
            except OSError:
                return None
            try:
                os.mkdir(txid, 0o700, dir_fd=base_fd)
                fd = os.open(txid, _DIR_FLAGS | os.O_NOFOLLOW, dir_fd=base_fd)
            except FileNotFoundError:  # the base removed by another apply's cleanup just now
                os.close(base_fd)
                continue
            except OSError:
                remove_dir(base_fd, txid)
                os.close(base_fd)
                remove_base(git_dir)
                return None
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except OSError:
                os.close(fd)
                remove_dir(base_fd, txid)
                os.close(base_fd)
                remove_base(git_dir)
                return None
            return cls(git_dir, txid, base_fd, fd)
        return None

    def release(self) -> None:
        """Give the claim up and remove its (empty) directory; never raises."""
        if self.fd < 0:
            return
        with suppress(OSError):
            os.close(self.fd)
        self.fd = -1
        remove_dir(self.base_fd, self.txid)
        with suppress(OSError):
            os.close(self.base_fd)
        remove_base(self.git_dir)


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
               sync: bool = True, held: Liveness | None = None,
               link: Callable[[int], None] | None = None) -> Journal:
        """Write the journal (fsync'd with ``sync``); on failure nothing is left behind.
        ``link(dir_fd)`` is called first, with the journal directory, to link the old files
        it can (``linked_name``); then ``preimages`` is consumed, before the record is
        written, so a generator may fill in the entries' checksums and offsets as it reads
        each old content the links did not keep. ``held``: the transaction's claim (its
        directory, locked), which the journal then takes over; on failure the claim stays,
        with nothing in it."""
        if held is not None and held.fd >= 0:
            try:
                cls._write(held.fd, held.base_fd, record, preimages, sync, link)
            except BaseException:
                _empty(held.fd)
                raise
            journal = cls(git_dir, held.base_fd, held.fd, record, sync)
            held.fd = -1  # the journal holds it now
            return journal
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
            cls._write(fd, base_fd, record, preimages, sync, link)
        except BaseException:
            if fd >= 0:
                os.close(fd)
            remove_dir(base_fd, record.txid)
            os.close(base_fd)
            remove_base(git_dir)
            raise
        return cls(git_dir, base_fd, fd, record, sync)

    @staticmethod
    def _write(fd: int, base_fd: int, record: Record, preimages: Iterable[bytes],
               sync: bool, link: Callable[[int], None] | None) -> None:
        if link is not None:
            link(fd)
        _write_file(PREIMAGES, fd, preimages, sync)
        _write_file(JOURNAL_FILE + ".tmp", fd, [record.to_json()], sync)
        os.rename(JOURNAL_FILE + ".tmp", JOURNAL_FILE, src_dir_fd=fd, dst_dir_fd=fd)
        if sync:
            os.fsync(fd)
            os.fsync(base_fd)

    def preimage(self, entry: Entry) -> bytes:
        """An entry's old content, read back from its link or from the preimages file (for
        an undo), and checked to be what was saved."""
        if entry.before_stat is not None:
            number = next(n for n, e in enumerate(self.record.entries) if e is entry)
            got = read_linked(self.fd, number)
            if got is None or file_stat(got[1]) != entry.before_stat:
                raise OSError(f"the journal's link to the old {entry.path!r} is damaged")
            return got[0]
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
