"""The three-way rescue's git half: a file's other versions, and libgit2's merge of three texts.

A target hands the plan a ``RepositoryVersions`` (threeway.KnownVersions); nothing here runs
(nor is pygit2 imported) unless a file patch's old side is missing from the current text.
The versions, tried in this order: the blob the patch's ``index OLD..NEW`` line names (what
`git apply -3` uses), the index, HEAD, then the pre-images of this tool's recent applies to
the path (history.py), newest first. The merge runs in an in-memory object database, so a
--check (or a refused merge) writes nothing anywhere.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from typing import Any

from ..model import FilePatch
from ..threeway import Merged, Version
from . import history

_SIMPLIFY_ALNUM = 4  # GIT_MERGE_FILE_SIMPLIFY_ALNUM: git merge-file's XDL_MERGE_ZEALOUS_ALNUM
_REGULAR = 0o100644


class RepositoryVersions:
    """``open_git()`` gives the GitRepo (opened on first use); ``worktree_form``: versions are
    compared with working-tree bytes, so blobs are smudged as a checkout would (and recorded
    pre-images, which are working-tree bytes, kept as they are); otherwise with blobs."""

    def __init__(self, open_git: Callable[[], Any], git_dir: str | None, *,
                 worktree_form: bool) -> None:
        self._open_git = open_git
        self._git: Any = None
        self.git_dir = git_dir
        self.worktree_form = worktree_form
        self._log: list[history.Entry] | None = None  # read once per apply

    @property
    def git(self) -> Any:
        if self._git is None:
            self._git = self._open_git()
        return self._git

    # -- the versions ---------------------------------------------------------------------------
    def versions(self, fp: FilePatch, path: str) -> Iterator[Version]:
        git = self.git
        if fp.blob_ids is not None and fp.blob_ids[0].strip("0"):
            found = self._blob(fp.blob_ids[0])
            if found is not None:
                oid, data = found
                yield Version(f"patch index line {fp.blob_ids[0]}",
                              self._from_blob(path, data), oid)
        for label, oid in (("index", self._index_blob(path)), ("HEAD", self._head_blob(path))):
            found = self._blob(oid) if oid is not None else None
            if found is not None:
                yield Version(label, self._from_blob(path, found[1]), found[0])
        if self.git_dir is None:
            return
        for entry in history.entries(self._entries(), path):
            found = self._blob(entry.blob)
            if found is None:
                continue
            when = time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(entry.time))
            content = found[1] if self.worktree_form else git.to_blob(path, found[1])
            yield Version(f"blob {entry.blob} recorded {when}", content, entry.blob,
                          recorded=True)

    def recorded(self, path: str) -> bool:
        return self.git_dir is not None and any(e.path == path for e in self._entries())

    def _entries(self) -> list[history.Entry]:
        if self._log is None:
            self._log = history.read(self.git_dir) if self.git_dir is not None else []
        return self._log

    def _from_blob(self, path: str, data: bytes) -> bytes:
        return self.git.to_worktree(path, data) if self.worktree_form else data

    def _blob(self, name: str) -> tuple[str, bytes] | None:
        """(full id, content) of the blob ``name`` (an id or an unambiguous prefix)."""
        import pygit2

        try:
            obj = self.git.repo[name]
        except (KeyError, ValueError, pygit2.GitError):
            return None
        if obj.type != pygit2.enums.ObjectType.BLOB:
            return None
        return str(obj.id), obj.data

    def _index_blob(self, path: str) -> str | None:
        import os

        import pygit2

        try:
            if not os.path.exists(self.git.index_path):
                return None
            entry = pygit2.Index(self.git.index_path)[path]
        except (KeyError, ValueError, OSError, pygit2.GitError):
            return None
        return str(entry.id) if int(entry.mode) in (0o100644, 0o100755) else None

    def _head_blob(self, path: str) -> str | None:
        import pygit2

        from .commit import head_commit

        try:
            commit = head_commit(self.git.repo)
            if commit is None:
                return None
            entry = self.git.repo[commit].peel(pygit2.Tree)[path]
        except (KeyError, ValueError, pygit2.GitError):
            return None
        return str(entry.id) if int(entry.filemode) in (0o100644, 0o100755) else None

    # -- the merge --------------------------------------------------------------------------------
    def merge(self, base: bytes, ours: bytes, theirs: bytes, marker_size: int) -> Merged:
        return merge_texts(base, ours, theirs, marker_size)


def merge_texts(base: bytes, ours: bytes, theirs: bytes, marker_size: int = 7) -> Merged:
    """libgit2's three-way file merge (git_merge_file_from_index, as `git merge-file`), on
    blobs kept in memory; the result read as bytes, whatever their encoding."""
    import pygit2
    from pygit2.errors import check_error
    from pygit2.ffi import C, ffi

    backend = _MemoryObjects()
    repo = pygit2.Repository()
    odb = pygit2.Odb()
    odb.add_backend(backend, 1)
    repo.set_odb(odb)
    path = ffi.new("char[]", b"file")
    entries = []
    for content in (base, ours, theirs):
        entry = ffi.new("git_index_entry *")
        ffi.buffer(ffi.addressof(entry.id))[:] = backend.put(content)
        entry.mode = _REGULAR
        entry.path = path
        entries.append(entry)
    options = ffi.new("git_merge_file_options *")
    options.version = 1
    options.flags = _SIMPLIFY_ALNUM
    options.marker_size = marker_size
    result = ffi.new("git_merge_file_result *")
    check_error(C.git_merge_file_from_index(result, repo._repo, *entries, options))
    try:
        return Merged(bool(result.automergeable), bytes(ffi.buffer(result.ptr, result.len)))
    finally:
        C.git_merge_file_result_free(result)


def _memory_backend_class() -> type:
    import pygit2
    from pygit2.enums import ObjectType

    class MemoryObjects(pygit2.OdbBackend):  # type: ignore[misc]
        """An object database backend holding a few blobs in a dict."""

        def __init__(self) -> None:
            super().__init__()
            self.blobs: dict[bytes, bytes] = {}

        def put(self, content: bytes) -> bytes:
            raw = pygit2.hash(content).raw
            self.blobs[raw] = content
            return raw

        def read_cb(self, oid: Any) -> tuple[int, bytes]:
            return ObjectType.BLOB, self.blobs[oid.raw]

        def read_header_cb(self, oid: Any) -> tuple[int, int]:
            return ObjectType.BLOB, len(self.blobs[oid.raw])

        def exists_cb(self, oid: Any) -> bool:
            return oid.raw in self.blobs

        def refresh_cb(self) -> None:
            pass

    return MemoryObjects


def _MemoryObjects() -> Any:  # noqa: N802 -- builds the class on first use (pygit2 import)
    global _memory_class
    if _memory_class is None:
        _memory_class = _memory_backend_class()
    return _memory_class()


_memory_class: type | None = None
