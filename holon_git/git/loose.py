"""Writing a blob as a loose object without loading pygit2 (which costs a plain working-tree
apply more than everything else it does): zlib at git's default loose-object level, the
object's id hashed as git does, the file written under a temporary name and renamed into
place, read-only. Used to keep the pre-images of an apply for the history log (history.py):
``keep_preimages``; and to save deleted files' content (objects.save_deleted).

Only plain repositories are written: one whose object format is not SHA-1 or SHA-256 as this
module reads it, or that is shared (core.sharedRepository: group permissions git would set),
is left alone (None): its apply is simply not recorded, and its deleted files are saved
through pygit2.
"""

from __future__ import annotations

import hashlib
import os
import re
import zlib
from collections.abc import Callable, Mapping, Sequence
from contextlib import suppress

from ..core.change import EXECUTABLE, FileChange
from ..core.model import FileKind
from .history import MAX_FILES, deletion_proof, preimage_proof

_LOOSE_LEVEL = 1  # core.loosecompression's default
_SHA256 = re.compile(rb"^\s*objectformat\s*=\s*sha256\s*$", re.I | re.M)
_UNUSUAL = re.compile(rb"^\s*(sharedrepository|objectformat)\s*=", re.I | re.M)


def common_dir(git_dir: str) -> str:
    """The directory holding objects and config: a linked worktree's ``commondir``."""
    try:
        with open(os.path.join(git_dir, "commondir"), encoding="utf-8") as fh:
            named = fh.read().strip()
    except (OSError, ValueError):
        return git_dir
    return os.path.normpath(os.path.join(git_dir, named)) if named else git_dir


def _hash_name(common: str) -> str | None:
    """'sha1' or 'sha256', the repository's object format; None when unsure."""
    try:
        with open(os.path.join(common, "config"), "rb") as fh:
            config = fh.read(1 << 20)
    except OSError:
        return None
    if _SHA256.search(config):
        shared = re.search(rb"^\s*sharedrepository\s*=", config, re.I | re.M)
        return None if shared else "sha256"
    return None if _UNUSUAL.search(config) else "sha1"


class Store:
    """A repository's object directory, as this module writes it."""

    def __init__(self, objects: str, algorithm: str) -> None:
        self.objects = objects
        self.algorithm = algorithm  # 'sha1' or 'sha256'

    @classmethod
    def of(cls, git_dir: str) -> Store | None:
        """The store of the repository at ``git_dir``; None when it is one this module does
        not write."""
        common = common_dir(git_dir)
        algorithm = _hash_name(common)
        if algorithm is None:
            return None
        return cls(os.environ.get("GIT_OBJECT_DIRECTORY") or os.path.join(common, "objects"),
                   algorithm)

    def write(self, content: bytes) -> str:
        """The id of ``content`` as a blob, written as a loose object unless that file
        exists. Raises OSError when the object directory refuses the write."""
        header = b"blob %d\0" % len(content)
        digest = hashlib.new(self.algorithm, header)
        digest.update(content)
        oid = digest.hexdigest()
        folder = os.path.join(self.objects, oid[:2])
        final = os.path.join(folder, oid[2:])
        if os.path.exists(final):
            return oid
        compressor = zlib.compressobj(_LOOSE_LEVEL)
        data = compressor.compress(header) + compressor.compress(content) + compressor.flush()
        temp = os.path.join(folder, f"tmp_obj_holon_{os.getpid()}_{oid[:12]}")
        flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW
        try:
            fd = os.open(temp, flags, 0o444)
        except FileNotFoundError:  # the first object of its fan-out directory
            with suppress(FileExistsError):
                os.mkdir(folder, 0o777)
            fd = os.open(temp, flags, 0o444)
        try:
            try:
                view = memoryview(data)
                while view:
                    view = view[os.write(fd, view):]
            finally:
                os.close(fd)
            # the same id is the same bytes: replacing a copy another process wrote is harmless
            os.rename(temp, final)
        except BaseException:
            with suppress(OSError):
                os.unlink(temp)
            raise
        return oid


def write_blob(git_dir: str, content: bytes) -> str | None:
    """The id of ``content`` as a blob of the repository at ``git_dir``, written as a loose
    object unless that file exists; None when the repository is one this does not write.
    Raises OSError when the object directory refuses the write."""
    store = Store.of(git_dir)
    return None if store is None else store.write(content)


def keep_preimages(git_dir: str | None, changes: list[FileChange],
                   old_content: Callable[[FileChange], bytes],
                   saved: Sequence[Mapping[str, object]] = ()
                   ) -> list[tuple[str, str, str, str, str, str]]:
    """For the history log (history.py): each modified, renamed or deleted path with its
    pre-image's blob id (``saved``: the deleted files' blobs, written already), the others
    written as loose objects now; for a file modified in place, also the digest of what the
    patch did to it (``FileChange.patch_digest``) and the sha256 of its new content; for a
    deleted file, its mode; for every one, the proof that the blob is that path's pre-image
    (history.deletion_proof, history.preimage_proof). Empty
    outside a repository, for a patch of more than MAX_FILES files, or when a blob cannot be
    written (the log is best effort)."""
    if git_dir is None or len(changes) > MAX_FILES:
        return []
    written = {str(d["path"]): str(d["blob"]) for d in saved if d.get("blob")}
    kept: list[tuple[str, str, str, str, str, str]] = []
    store: Store | None = None
    try:
        for change in changes:
            if change.kind is FileKind.ADD or change.before is None or change.old_path is None:
                continue
            content = old_content(change)
            blob = written.get(change.old_path)
            if blob is None:
                store = store or Store.of(git_dir)
                if store is None:
                    return []
                blob = store.write(content)
            deleted = ""
            if change.kind is FileKind.DELETE:
                deleted = "100755" if change.before.mode == EXECUTABLE else "100644"
                proof = deletion_proof(change.old_path, deleted, content)
            else:
                proof = preimage_proof(change.old_path, content)
            kept.append((change.old_path, blob, change.patch_digest, change.after_sha256,
                         deleted, proof))
    except OSError:
        return []
    return kept
