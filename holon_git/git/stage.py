"""A set of git entries (path -> blob id, mode) as a pre-image source and edit destination.

Backed by a pygit2.Index: either a copy of the real index file or a tree read into memory, so
large repositories cost C time, not Python time. Symbolic links and submodules are refused,
and directory/file collisions are checked here because libgit2's index_add would resolve them
by silently dropping entries.
"""

from __future__ import annotations

import os
import shutil
import stat
from bisect import bisect_left
from collections.abc import Collection, Iterator
from dataclasses import dataclass

from ..core.change import FileChange, SourceFile
from ..core.model import FileKind
from ..errors import PatchError
from .libgit2 import pygit2
from .repository import BLOB, EXEC, LINK, git_error, refuse_special


@dataclass(frozen=True)
class Entry:
    id: pygit2.Oid
    mode: int


def _parents(path: str) -> list[str]:
    parts = path.split("/")
    return ["/".join(parts[:i]) for i in range(1, len(parts))]


class Stage:
    def __init__(self, repo: pygit2.Repository, index: pygit2.Index, label: str) -> None:
        self.repo = repo
        self.index = index
        self.label = label  # "index", "HEAD", "refs/heads/main": for messages
        self.odb = repo.odb
        self._sorted: list[bytes] | None = None  # the entries' paths, sorted; apply() edits

    @classmethod
    def from_tree(cls, repo: pygit2.Repository, tree_id: pygit2.Oid | None,
                  label: str) -> Stage:
        index = pygit2.Index()
        if tree_id is not None:
            index.read_tree(repo[tree_id])
        return cls(repo, index, label)

    # -- reading ------------------------------------------------------------------------------
    def _get(self, path: str) -> Entry | None:
        if path not in self.index:  # a C look-up; most asked-for paths (parents) are absent
            return None
        try:
            entry = self.index[path]
        except KeyError:
            return None
        return Entry(entry.id, int(entry.mode))

    def _conflicted(self, path: str) -> bool:
        conflicts = self.index.conflicts
        return conflicts is not None and path in conflicts

    def entry(self, path: str) -> Entry | None:
        """The regular-file entry at ``path``; None if absent; refuses links and submodules,
        also on the way to ``path``."""
        for parent in _parents(path):
            above = self._get(parent)
            if above is not None:
                if above.mode in (BLOB, EXEC):
                    return None  # a file where a directory would be: nothing at path
                refuse_special(parent, above.mode, inside=True)
        found = self._get(path)
        if found is None:
            if self._conflicted(path):
                raise PatchError("index_mismatch", f"{path!r} has unresolved merge conflicts "
                                 f"in the {self.label}", path=path,
                                 hint="resolve the conflict and 'git add' the file first")
            return None
        refuse_special(path, found.mode)
        return found

    def read(self, path: str) -> SourceFile | None:
        found = self.entry(path)
        if found is None:
            return None
        return SourceFile(self.blob(found.id), found.mode, found)

    def blob(self, oid: pygit2.Oid) -> bytes:
        # The object database directly: no object wrapper to look up and copy out of,
        # which makes reading a thousand blobs about twice as fast.
        try:
            kind, data = self.odb.read(oid)
        except (KeyError, pygit2.GitError) as exc:
            raise git_error(exc, f"reading blob {oid}") from exc
        if kind != pygit2.enums.ObjectType.BLOB:
            raise git_error(ValueError(f"object {oid} is not a blob"), f"reading blob {oid}")
        return data

    def check_free(self, path: str, removed: Collection[str] = ()) -> None:
        """``path`` can be created: no file on the way, no directory at it, once the entries
        in ``removed`` are gone (a file may become a directory and back, as in git)."""
        for parent in _parents(path):
            above = self._get(parent)
            if above is not None:
                refuse_special(parent, above.mode, inside=True)
                if parent in removed:
                    return  # nothing can be below a file
                raise PatchError("already_exists", f"{parent!r} is a file in the "
                                 f"{self.label}, not a directory", path=path)
        if any(p not in removed for p in self._paths_below(path)):
            raise PatchError("already_exists", f"{path!r} is a directory in the {self.label}",
                             path=path)

    def mode_of(self, path: str) -> int | None:
        """What the stage holds at ``path``, as an st_mode: a file's (a link's) mode, a
        directory's when entries lie below it, None for nothing (fs/gitdir_guard.py)."""
        found = self._get(path)
        if found is not None:
            return stat.S_IFLNK if found.mode == LINK else stat.S_IFREG
        return stat.S_IFDIR if next(self._paths_below(path), None) is not None else None

    def _paths_below(self, path: str) -> Iterator[str]:
        """The entries below ``path`` as a directory (a binary search of the sorted paths)."""
        if self._sorted is None:
            self._sorted = sorted(entry_paths(self.index))
        paths, prefix = self._sorted, os.fsencode(path + "/")
        at = bisect_left(paths, prefix)
        while at < len(paths) and paths[at].startswith(prefix):
            yield os.fsdecode(paths[at])
            at += 1

    # -- editing ------------------------------------------------------------------------------
    def apply(self, changes: list[FileChange], blobs: dict[str, pygit2.Oid],
              stats: dict[str, os.stat_result] | None = None) -> None:
        """Remove and add entries as git mv/rm/add would; ``blobs`` maps new paths to ids."""
        self._sorted = None
        modes = {}
        for change in changes:
            if change.kind in (FileKind.DELETE, FileKind.RENAME):
                assert change.old_path is not None
                before = self.entry(change.old_path)
                modes[change.path] = before.mode if before else BLOB
                self.index.remove(change.old_path)
        for change in changes:
            if change.kind is FileKind.DELETE:
                continue
            if change.kind is FileKind.MODIFY:
                before = self.entry(change.path)
                mode = before.mode if before else BLOB
                if change.mode in (BLOB, EXEC):  # a swap in sequence may change it
                    mode = change.mode
            elif change.kind is FileKind.RENAME and change.mode in (BLOB, EXEC):
                mode = change.mode  # the renamed file's, or its 'new mode'
            else:
                mode = modes.get(change.path, EXEC if change.mode == EXEC else BLOB)
            add_entry(self.index, change.path, blobs[change.path], mode,
                      (stats or {}).get(change.path))

    def write_tree(self) -> pygit2.Oid:
        try:
            return self.index.write_tree(self.repo)
        except pygit2.GitError as exc:
            raise git_error(exc, "writing the tree") from exc


def entry_paths(index: pygit2.Index) -> list[bytes]:
    """The paths of an index's entries, as bytes. Read through libgit2 directly: pygit2's
    entry objects cost about fifteen times as much, which tells in a large index."""
    try:
        C, string, raw = pygit2.C, pygit2.ffi.string, index._index
        return [string(C.git_index_get_byindex(raw, at).path)
                for at in range(C.git_index_entrycount(raw))]
    except (AttributeError, TypeError):
        return [os.fsencode(entry.path) for entry in index]


def add_entry(index: pygit2.Index, path: str, oid: pygit2.Oid, mode: int,
              st: os.stat_result | None = None) -> None:
    """Add an entry, with the file's stat data when it was written to the working tree (as
    git does, so `git status` need not re-hash it). pygit2's IndexEntry carries no stat data,
    hence the direct libgit2 call; without it the entry is added plainly."""
    if st is not None:
        try:
            check_error, C, ffi = pygit2.errors.check_error, pygit2.C, pygit2.ffi
            centry = ffi.new("git_index_entry *")
            ffi.buffer(ffi.addressof(centry, "id"))[:] = oid.raw
            centry.mode = mode
            centry.ctime.seconds = int(st.st_ctime_ns // 1_000_000_000) & 0xFFFFFFFF
            centry.ctime.nanoseconds = int(st.st_ctime_ns % 1_000_000_000)
            centry.mtime.seconds = int(st.st_mtime_ns // 1_000_000_000) & 0xFFFFFFFF
            centry.mtime.nanoseconds = int(st.st_mtime_ns % 1_000_000_000)
            centry.dev = st.st_dev & 0xFFFFFFFF
            centry.ino = st.st_ino & 0xFFFFFFFF
            centry.uid = st.st_uid & 0xFFFFFFFF
            centry.gid = st.st_gid & 0xFFFFFFFF
            centry.file_size = st.st_size & 0xFFFFFFFF
            c_path = ffi.new("char[]", path.encode("utf-8", "surrogateescape"))
            centry.path = c_path
            check_error(C.git_index_add(index._index, centry))
            return
        except (AttributeError, TypeError):
            pass
    index.add(pygit2.IndexEntry(path, oid, mode))


def load_index(path: str, copy_to: str | None = None) -> pygit2.Index:
    """The index file at ``path`` (an empty index when there is none). With ``copy_to``, a
    copy of it is made there and loaded: the one the apply edits and writes (a scratch file
    beside the lock), so the real index is untouched until the lock is committed."""
    try:
        if copy_to is None:
            return pygit2.Index(path) if os.path.exists(path) else pygit2.Index()
        if os.path.exists(path):
            shutil.copyfile(path, copy_to)
        return pygit2.Index(copy_to)
    except OSError as exc:
        raise PatchError("io_error", f"cannot read the index {path}: {exc}") from exc
    except pygit2.GitError as exc:
        raise git_error(exc, f"reading the index {path}") from exc


def write_index(index: pygit2.Index) -> None:
    """Write a loaded index back to its file."""
    try:
        index.write()
    except pygit2.GitError as exc:
        raise git_error(exc, "writing the index") from exc
