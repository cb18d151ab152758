"""The three-way rescue's git half: a file's other versions, and libgit2's merge of three texts.

A target hands the plan a ``RepositoryVersions`` (core.threeway.KnownVersions); nothing here
runs (nor is pygit2 loaded) unless a file patch's old side is missing from the current text.
The versions, tried in this order: the blob the patch's ``index OLD..NEW`` line names (what
`git apply -3` uses), the index, HEAD, then the pre-images of this tool's recent applies to
the path (history.py), newest first. The merge runs in an in-memory object database, so a
--check (or a refused merge) writes nothing anywhere.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Iterator
from typing import Any

from ..core.model import FilePatch
from ..core.threeway import Merged, Version
from . import history
from .libgit2 import pygit2


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

    @classmethod
    def of_worktree(cls, root: str, git_dir: str) -> RepositoryVersions:
        """For the working-tree target: the repository found from ``root``, opened when the
        rescue first needs it; versions compared with the files' bytes on disk."""

        def open_git() -> Any:
            from .repository import open_repository

            return open_repository(root)

        return cls(open_git, git_dir, worktree_form=True)

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
        for label, blob_id in (("index", self._index_blob(path)),
                               ("HEAD", self._head_blob(path))):
            found = self._blob(blob_id) if blob_id is not None else None
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

    def records(self, path: str) -> list[tuple[str, str]]:
        if self.git_dir is None:
            return []
        return [(e.patch, e.after) for e in reversed(self._entries())
                if e.path == path and e.patch and e.after]

    def _entries(self) -> list[history.Entry]:
        if self._log is None:
            self._log = history.read(self.git_dir) if self.git_dir is not None else []
        return self._log

    def _from_blob(self, path: str, data: bytes) -> bytes:
        return self.git.to_worktree(path, data) if self.worktree_form else data

    def _blob(self, name: str) -> tuple[str, bytes] | None:
        """(full id, content) of the blob ``name`` (an id or an unambiguous prefix)."""
        try:
            obj = self.git.repo[name]
        except (KeyError, ValueError, pygit2.GitError):
            return None
        if obj.type != pygit2.enums.ObjectType.BLOB:
            return None
        return str(obj.id), obj.data

    def _index_blob(self, path: str) -> str | None:
        try:
            if not os.path.exists(self.git.index_path):
                return None
            entry = pygit2.Index(self.git.index_path)[path]
        except (KeyError, ValueError, OSError, pygit2.GitError):
            return None
        return str(entry.id) if int(entry.mode) in (0o100644, 0o100755) else None

    def _head_blob(self, path: str) -> str | None:
        from .branches import head_commit  # the rescue runs rarely: start-up counts

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
        from .merge import merge_texts

        return merge_texts(base, ours, theirs, marker_size)
