"""The log of this tool's recent applies: for each path changed, its pre-image's blob id.

``<git dir>/holon-apply-history`` holds one JSON object a line, ``{"time", "path", "blob"}``
(plus, for a modified file, ``"patch"``: the digest of what the patch did to it, and
``"after"``: the sha256 of the file it wrote; core/plan/applied.py refuses the same patch again
while the file is still that; for a deleted file, ``"deleted"``: its mode, so that -R of a
patch that deleted it without its content, an envelope's '*** Delete File', restores it, and
``"proof"``: the sha256 of the path, that mode and the content deleted, which -R checks
against the blob before it writes a byte of it: ``deletion_proof``),
appended after every successful working-tree (or --index) write of at most ``MAX_FILES``
files. Only its newest ``MAX_ENTRIES`` lines are read (within its last ``MAX_BYTES``), and the
file is cut to its newest ``MAX_ENTRIES`` entries once it passes ``COMPACT_AT`` bytes: the cap
keeps the newest entries. The three-way rescue (versions.py) reads it to
find the version of a file an agent last saw.

Every apply asks it about the paths it changes, so a path's entries are looked up in those
lines by the path as this tool writes it (``"path": <JSON string>``) and only the lines that
hold it are decoded (``Log.entries``): an apply does not decode the whole log. Whether this
tool applied a given patch to a path (and wrote a given content) is asked of the lines that
hold the path, the patch's digest and the content's sha256 as this tool writes them, newest
first, until one decodes as a well-formed entry (``Log.holds``): a file an agent patches again
and again is not decoded entry by entry either.

It is beside, not inside, the crash journals' directory (``holon-apply/``), so it is never
taken for a pending journal, and is best effort: a failure to write it never fails an apply.

The log is input from disk, so it is read as hostile: its last ``MAX_BYTES`` (the newest
lines), opened without following a symbolic link; a line that is not a well-formed entry (a
time that is not a finite number of seconds in range, a path that is not a normalized
repository path, a blob id that is not 40 or 64 hex digits, a field of the wrong type) is
skipped. Appends and the compaction hold one exclusive lock, the flock of ``LOCK_NAME``
(never replaced, unlike the log a compaction renames a new file over), so no concurrent append
is lost (``_append``). Only a writer of the git directory can take it: the lock file is open to
those who may write the directory and no one else (a lock a mere reader of ``.git`` could take
held every apply's entry off, silently: the git directory's own flock was one).
"""

from __future__ import annotations

import json
import os
import re
import stat
import time
from collections.abc import Iterable, Iterator
from contextlib import suppress
from typing import NamedTuple

LOG_NAME = "holon-apply-history"
MAX_ENTRIES = 200
MAX_FILES = 64  # larger patches are not recorded
MAX_BYTES = 256 << 10  # of the log read, at most
COMPACT_AT = 64 << 10  # a log grown past this is cut to its newest MAX_ENTRIES
MAX_TIME = 1 << 40  # seconds: an entry's time past this (year 36812) is forged
LOCK_NAME = "holon-apply-history.flock"  # the appends' lock; not *.lock: it stays there
# seconds an append waits for the lock before giving up: the lock is held for one append (and
# at times a compaction of at most MAX_BYTES: milliseconds), so only a stopped holder makes it
# give up, and the apply is not kept waiting on one
LOCK_WAIT = 2.0
_BLOB = re.compile(r"[0-9a-f]{40}([0-9a-f]{24})?")
_SHA256 = re.compile(r"[0-9a-f]{64}")
DELETED_MODES = ("100644", "100755")
_FLAGS = os.O_NOFOLLOW | getattr(os, "O_CLOEXEC", 0)


class Entry(NamedTuple):
    time: float
    path: str
    blob: str
    patch: str = ""  # digest of the file patches for the path (core/plan/resend.py), if known
    after: str = ""  # sha256 of the file as written, if known
    deleted: str = ""  # the apply deleted the file: its mode ("100644", "100755")
    # deletion_proof(path, deleted, content) for a deletion, else preimage_proof(path,
    # content), if known: what proves the blob is the path's own (``proven``)
    proof: str = ""


def _valid(raw: object) -> Entry | None:
    if not isinstance(raw, dict):
        return None
    when, path, blob = raw.get("time"), raw.get("path"), raw.get("blob")
    if not (isinstance(when, int | float) and not isinstance(when, bool)
            and isinstance(path, str) and isinstance(blob, str)):
        return None
    if not 0 <= when <= MAX_TIME or when != when:  # NaN, inf, 1e20, a huge integer
        return None
    if not _BLOB.fullmatch(blob) or not path or path.startswith("/") or "\0" in path \
            or any(part in ("", ".", "..") for part in path.split("/")):
        return None
    patch, after = raw.get("patch", ""), raw.get("after", "")
    if not (isinstance(patch, str) and isinstance(after, str)
            and _SHA256.fullmatch(patch) and _SHA256.fullmatch(after)):
        patch = after = ""
    deleted, proof = raw.get("deleted", ""), raw.get("proof", "")
    if deleted not in DELETED_MODES:
        deleted = ""
    if not (isinstance(proof, str) and _SHA256.fullmatch(proof)):
        proof = ""
    return Entry(float(when), path, blob, patch, after, deleted, proof)


def deletion_proof(path: str, mode: str, content: bytes) -> str:
    """What a deletion's entry records to prove its blob: the sha256 of the path, its mode
    and the content deleted. The log is anyone's to write who can write the git directory,
    and a blob id is no secret (`git ls-tree` shows a protected file's); a line naming
    another blob for the path cannot carry the proof without that blob's content, so -R
    (targets/saved.py) never writes content the line's author could not already read."""
    import hashlib

    digest = hashlib.sha256(b"holon-git saved deletion\0")
    digest.update(path.encode("utf-8", "surrogateescape") + b"\0" + mode.encode() + b"\0")
    digest.update(content)
    return digest.hexdigest()


def preimage_proof(path: str, content: bytes) -> str:
    """What a modified (or renamed) file's entry records to prove its blob is that path's
    pre-image: the sha256 of the path and the content. The three-way rescue takes a logged
    blob as a base only with it (``proven``): a forged line naming another blob (a protected
    file's, another path's, a stash's) would otherwise make a merge's outcome tell whether a
    hunk guessed that blob's lines."""
    import hashlib

    digest = hashlib.sha256(b"holon-git pre-image\0")
    digest.update(path.encode("utf-8", "surrogateescape") + b"\0")
    digest.update(content)
    return digest.hexdigest()


def proven(entry: Entry, content: bytes) -> bool:
    """Does ``entry``'s proof show that ``content`` (its blob's) is its path's own pre-image
    (a deletion's by deletion_proof, any other by preimage_proof)?"""
    if not entry.proof:
        return False
    if entry.deleted:
        return entry.proof == deletion_proof(entry.path, entry.deleted, content)
    return entry.proof == preimage_proof(entry.path, content)


class Log:
    """The newest lines of the log (``lines``, raw), for looking up one path's entries."""

    def __init__(self, lines: bytes) -> None:
        self.lines = lines
        self._by_path: dict[str, list[Entry]] = {}

    def entries(self, path: str) -> list[Entry]:
        """The well-formed entries for ``path``, oldest first: only the lines that hold the
        path as this tool writes it are decoded (an entry written otherwise, by hand, is not
        this tool's and is not looked for)."""
        found = self._by_path.get(path)
        if found is None:
            found = self._by_path[path] = list(_decoded(self.lines, _needle(path), path))
        return found

    def holds(self, path: str, patch: str = "", after: str = "") -> bool:
        """Is there a well-formed entry for ``path`` (with this ``patch`` digest, and this
        ``after`` sha256, when given)? The lines that hold the path and those values, as this
        tool writes them, are decoded newest first until one is: a path applied to again and
        again (an agent's file) is not decoded entry by entry at every apply."""
        known = self._by_path.get(path)
        if known is not None:
            return any(e.patch == patch and e.after == after if after else
                       e.patch == patch if patch else True for e in known)
        # sought by the rarest of them (a sha256 of the content written is all but unique)
        also = [field for field in (_field("after", after), _field("patch", patch), _needle(path))
                if field]
        data, needle = self.lines, also.pop(0)
        at = data.rfind(needle)
        while at >= 0:
            start = data.rfind(b"\n", 0, at) + 1
            stop = data.find(b"\n", at)
            line = data[start : len(data) if stop < 0 else stop]
            if all(field in line for field in also):
                entry = _decode(line)
                if entry is not None and entry.path == path and (
                        not patch or entry.patch == patch) and (not after or entry.after == after):
                    return True
            at = data.rfind(needle, 0, start)
        return False


def _needle(path: str) -> bytes:
    return b'"path": ' + json.dumps(path).encode("ascii")


def _field(name: str, value: str) -> bytes:
    """A field as record() writes it ("" for no value); the values sought are hex digits."""
    return f'"{name}": "{value}"'.encode("ascii") if value else b""


def _decoded(data: bytes, needle: bytes, path: str) -> Iterator[Entry]:
    at = data.find(needle)
    while at >= 0:
        start = data.rfind(b"\n", 0, at) + 1
        end = data.find(b"\n", at)
        end = len(data) if end < 0 else end
        entry = _decode(data[start:end])
        if entry is not None and entry.path == path:
            yield entry
        at = data.find(needle, end)


def _decode(line: bytes) -> Entry | None:
    try:
        return _valid(json.loads(line))
    except (ValueError, RecursionError):  # not JSON, not UTF-8, or absurdly nested
        return None


def open_log(git_dir: str) -> Log:
    """The log's newest lines, not decoded; an empty log when it is missing or unreadable."""
    return Log(_newest_lines(git_dir))


def read(git_dir: str) -> list[Entry]:
    """The well-formed entries of the newest MAX_ENTRIES lines, oldest first; [] when the
    log is missing or unreadable (every line decoded: the compaction, and tests)."""
    return [entry for line in _newest_lines(git_dir).splitlines()
            if (entry := _decode(line)) is not None]


def _newest_lines(git_dir: str) -> bytes:
    """The log's last MAX_ENTRIES whole lines, within its last MAX_BYTES."""
    try:
        fd = os.open(os.path.join(git_dir, LOG_NAME), os.O_RDONLY | os.O_NONBLOCK | _FLAGS)
    except OSError:
        return b""
    try:
        with os.fdopen(fd, "rb") as fh:
            st = os.fstat(fh.fileno())
            if not stat.S_ISREG(st.st_mode):
                return b""  # a FIFO or a device planted there is not read
            start = max(st.st_size - MAX_BYTES, 0)
            fh.seek(start)
            data = fh.read(MAX_BYTES)
    except OSError:
        return b""
    if start:  # the newest whole lines: the first one read may be cut
        data = data[data.find(b"\n") + 1:]
    cut = len(data) - 1 if data.endswith(b"\n") else len(data)
    for _ in range(MAX_ENTRIES):
        cut = data.rfind(b"\n", 0, cut)
        if cut < 0:
            return data
    return data[cut + 1:]


def when(seconds: float) -> str:
    """An entry's time for a person (entries' times are validated: finite, in range)."""
    try:
        return time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(seconds))
    except (OverflowError, OSError, ValueError):  # beyond this platform's time_t
        return f"at {seconds:.0f} s"


def entries(log: list[Entry], path: str) -> Iterator[Entry]:
    """The entries of ``log`` (oldest first, as read) for ``path``, newest first, each
    pre-image once."""
    seen: set[str] = set()
    for entry in reversed(log):
        if entry.path == path and entry.blob not in seen:
            seen.add(entry.blob)
            yield entry


def record(git_dir: str, changed: Iterable[tuple[str, ...]]) -> str | None:
    """Append (path, pre-image blob id, patch digest, sha256 after, deleted mode, proof of
    the blob: deletion_proof or preimage_proof) entries (the last four may be "" or left
    out); compact to the newest MAX_ENTRIES when the log has grown. Best effort: None when
    written (or nothing was to be), else why it was not (the receipt says so:
    ``history_not_written``)."""
    now = round(time.time(), 3)

    def entry(path: str, blob: str, patch: str = "", after: str = "",
              deleted: str = "", proof: str = "") -> dict[str, object]:
        fields: dict[str, object] = {"time": now, "path": path, "blob": blob}
        if patch and after:
            fields.update(patch=patch, after=after)
        if deleted:
            fields["deleted"] = deleted
        if proof:
            fields["proof"] = proof
        return fields

    lines = b"".join(json.dumps(entry(*change)).encode() + b"\n"
                     for change in changed)
    if not lines:
        return None
    try:
        return _append(git_dir, lines)
    except OSError as exc:
        return f"cannot write {LOG_NAME}: {exc.strerror or exc}"


def _append(git_dir: str, lines: bytes) -> str | None:
    """Append under the history's lock (``_locked``), compacting the log (still under the
    lock) once it is large. The lock is taken by every append and every compaction, so the
    log is never replaced between an append's open and its write, and no append is dropped
    for a race: only when another process holds the lock for LOCK_WAIT seconds (stopped).
    None when written, else why not."""
    lock = _locked(git_dir)
    if isinstance(lock, str):
        return lock
    try:
        return _append_locked(git_dir, lines)
    finally:
        os.close(lock)  # releases the lock


def _lock_mode(git_dir: str) -> int:
    """The lock file's permissions: read and write for those who may write the git
    directory (its owner, and its group or everyone when the directory lets them write, as
    in a shared repository), nothing for anyone else: a reader cannot open it, so cannot lock
    it (flock asks for no write access, only an open file)."""
    mode = os.stat(git_dir).st_mode
    return (0o600 | (0o060 if mode & stat.S_IWGRP else 0)
            | (0o006 if mode & stat.S_IWOTH else 0))


def _locked(git_dir: str) -> int | str:
    """The lock file, open and flock'd (the caller closes it to unlock); or, when it could
    not be taken, why. A lock file open to more than those who may write the git directory
    (made by hand, or before the directory's permissions changed) is replaced first; one
    replaced while this process waited on it is taken again by its new name."""
    path = os.path.join(git_dir, LOCK_NAME)
    allowed = _lock_mode(git_dir)
    deadline = time.monotonic() + LOCK_WAIT
    for _ in range(8):
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_NONBLOCK | _FLAGS, allowed)
        try:
            st = os.fstat(fd)
            if not stat.S_ISREG(st.st_mode):
                return f"{LOCK_NAME} is not a regular file"
            if stat.S_IMODE(st.st_mode) & ~allowed:
                os.unlink(path)  # readable by some who cannot write here: a new one
                continue
            if st.st_uid == os.geteuid() and stat.S_IMODE(st.st_mode) != allowed:
                os.fchmod(fd, allowed)  # the umask took the group's write a shared one needs
            if not _lock(fd, deadline):
                return (f"another process held the history log's lock ({LOCK_NAME}) for "
                        f"{LOCK_WAIT:g} s")
            try:
                now = os.lstat(path)
            except FileNotFoundError:
                continue
            if (now.st_dev, now.st_ino) == (st.st_dev, st.st_ino):
                taken, fd = fd, -1
                return taken
        finally:
            if fd >= 0:
                os.close(fd)
    return f"{LOCK_NAME} kept being replaced"


def _append_locked(git_dir: str, lines: bytes) -> str | None:
    """The append itself; an append that finds the log replaced (by an older holon-git's
    compaction, which took other locks) appends to the new one."""
    log = os.path.join(git_dir, LOG_NAME)
    for _ in range(8):  # the file replaced by an older holon-git's compaction: the new one
        fd = os.open(log, os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_NONBLOCK | _FLAGS,
                     0o666)
        try:
            st = os.fstat(fd)
            if not stat.S_ISREG(st.st_mode):
                return f"{LOG_NAME} is not a regular file"  # a FIFO or device is not written
            try:
                now = os.lstat(log)
            except FileNotFoundError:
                continue
            if (now.st_dev, now.st_ino) != (st.st_dev, st.st_ino):
                continue
            os.write(fd, lines)
            if os.fstat(fd).st_size > COMPACT_AT:
                _compact(git_dir)
            return None
        finally:
            os.close(fd)
    return f"{LOG_NAME} kept being replaced"


def _lock(fd: int, deadline: float) -> bool:
    """Take the exclusive lock of ``fd``, waiting until ``deadline`` at most."""
    import fcntl

    while True:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            return True
        except BlockingIOError:
            if time.monotonic() > deadline:
                return False
            time.sleep(0.001)


def _compact(git_dir: str) -> None:
    """Cut the log to its newest MAX_ENTRIES; the caller holds the lock of the file read."""
    kept = read(git_dir)
    temp = os.path.join(git_dir, f"{LOG_NAME}.{os.getpid()}.tmp")
    body = b"".join(json.dumps({k: v for k, v in e._asdict().items() if v != ""}).encode()
                    + b"\n" for e in kept)
    with suppress(FileNotFoundError):
        os.unlink(temp)  # left by a killed compaction of a process with this pid
    fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | _FLAGS, 0o666)
    try:
        os.write(fd, body)
    finally:
        os.close(fd)
    try:
        os.replace(temp, os.path.join(git_dir, LOG_NAME))
    except OSError:
        os.unlink(temp)
        raise
