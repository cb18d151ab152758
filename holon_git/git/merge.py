"""libgit2's three-way merge of whole files, on blobs kept in memory: neither a --check nor a
refused merge writes any object anywhere."""

from __future__ import annotations

from typing import Any

from ..core.threeway import Merged
from .libgit2 import pygit2

_SIMPLIFY_ALNUM = 4  # GIT_MERGE_FILE_SIMPLIFY_ALNUM: git merge-file's XDL_MERGE_ZEALOUS_ALNUM
_REGULAR = 0o100644


def merge_texts(base: bytes, ours: bytes, theirs: bytes, marker_size: int = 7) -> Merged:
    """libgit2's three-way file merge (git_merge_file_from_index, as `git merge-file`), on
    blobs kept in memory; the result read as bytes, whatever their encoding."""
    check_error, C, ffi = pygit2.errors.check_error, pygit2.C, pygit2.ffi
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
    ObjectType = pygit2.enums.ObjectType  # noqa: N806 -- the enum, by its name
    class MemoryObjects(pygit2.OdbBackend):
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
