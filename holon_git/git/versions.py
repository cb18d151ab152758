"""The three-way rescue's git half: a file's other versions, and libgit2's merge of three texts.

A target hands the plan a ``RepositoryVersions`` (core.threeway.KnownVersions); nothing here
runs (nor is pygit2 loaded) unless a file patch's old side is missing from the current text.
The versions, tried in this order: the blob the patch's ``index OLD..NEW`` line names (what
`git apply -3` uses), the index, HEAD, the pre-images of this tool's recent applies to the
path (history.py), newest first, then the path's last few versions in HEAD's newest commits
(an agent's patch written before it committed its own earlier steps). The merge runs in an
in-memory object database, so a --check (or a refused merge) writes nothing anywhere.

A base is only a version recorded for that very path: its index entry, its blob at HEAD, a
pre-image this tool logged for it (when the log line proves it, and it is no protected
path's content: ``_logged_blob``), its blob in one of HEAD's newest commits, or the blob the
patch's index line names when that blob is the path's blob in one of the newest
``MAX_HISTORY_COMMITS`` commits of HEAD's history (compared with those blobs' ids, never
looked up in the object database: a guessed prefix must not reach a protected file, another
branch or an unreachable object). A path the target protects has no other version at all.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any

from ..core.model import FilePatch
from ..core.policy import Protection, check_protected_path
from ..core.threeway import Merged, Version
from ..errors import PatchError
from . import history
from .libgit2 import pygit2

if TYPE_CHECKING:
    from .recent import RecentHistory

# commits of HEAD's history searched (newest first) for the blob a patch's index line names
MAX_HISTORY_COMMITS = 1000
# the path's versions in HEAD's newest commits a base may be, at most, and commits searched
RECENT_VERSIONS = 3
RECENT_COMMITS = 50
# other versions of a file the rescue is given, at most, and bytes of them in all
MAX_VERSIONS = 16
MAX_VERSION_BYTES = 64 << 20
_REGULAR = (0o100644, 0o100755)
_PREFIX = re.compile(r"[0-9a-f]{4,64}")


class RepositoryVersions:
    """``open_git()`` gives the GitRepo (opened on first use); ``worktree_form``: versions are
    compared with working-tree bytes, so blobs are smudged as a checkout would (and recorded
    pre-images, which are working-tree bytes, kept as they are); otherwise with blobs."""

    def __init__(self, open_git: Callable[[], Any], git_dir: str | None, *,
                 worktree_form: bool,
                 protection: Callable[[], Protection] | None = None,
                 logged: bool = False) -> None:
        self._open_git = open_git
        self._git: Any = None
        self.git_dir = git_dir
        self.worktree_form = worktree_form
        self.logged = logged and git_dir is not None  # the target records its applies
        self._protection_of = protection  # the target's rules, read when first needed
        self._protection: Protection | None = None
        self._log: history.Log | None = None  # read once per apply, decoded per path
        self._recent: RecentHistory | None = None
        self._index: Any = None  # the index file, read when the rescue first needs it
        self._holders: dict[str, list[str]] | None = None  # blob -> paths at HEAD, in index

    @classmethod
    def of_worktree(cls, root: str, git_dir: str,
                    protection: Callable[[], Protection] | None = None) -> RepositoryVersions:
        """For the working-tree target: the repository found from ``root``, opened when the
        rescue first needs it; versions compared with the files' bytes on disk."""

        def open_git() -> Any:
            from .repository import open_repository

            return open_repository(root)

        return cls(open_git, git_dir, worktree_form=True, protection=protection, logged=True)

    @property
    def git(self) -> Any:
        if self._git is None:
            self._git = self._open_git()
        return self._git

    @property
    def recent(self) -> RecentHistory:
        """HEAD's recent history, read once for this call (recent.py: one budget for all
        the file patches the rescue asks about)."""
        if self._recent is None:
            from .recent import RecentHistory  # the rescue runs rarely: start-up counts

            self._recent = RecentHistory(self.git.repo)
        return self._recent

    # -- the versions ---------------------------------------------------------------------------
    def versions(self, fp: FilePatch, path: str) -> Iterator[Version]:
        """The path's other versions, in order, at most MAX_VERSIONS of them and
        MAX_VERSION_BYTES in all (the first is always given): a file with a long history
        in the log must not make the rescue try every one (each is planned against, and a
        large file many times over is time and memory). One blob is held at a time."""
        if self._protected(path):
            return  # a protected file's versions are never a base, nor shown through one
        size = 0
        for count, version in enumerate(self._all_versions(fp, path)):
            if count >= MAX_VERSIONS or (count and size + len(version.content)
                                         > MAX_VERSION_BYTES):
                return
            size += len(version.content)
            yield version

    def _all_versions(self, fp: FilePatch, path: str) -> Iterator[Version]:
        git = self.git
        index_oid, head_oid = self._index_blob(path), self._head_blob(path)
        logged = list(history.entries(self._entries(path), path)) if self.git_dir else []
        given: set[str] = set()  # blob ids of the named, index and HEAD versions
        if fp.blob_ids is not None and fp.blob_ids[0].strip("0"):
            named = self._named_blob(fp.blob_ids[0], path, [index_oid, head_oid], logged)
            found = self._blob(named) if named is not None else None
            if found is not None:
                named_id, data = found
                given.add(named_id)
                same = tuple(label for label, oid in (("index", index_oid), ("HEAD", head_oid))
                             if oid == named_id)
                yield Version(f"patch index line {fp.blob_ids[0]}",
                              self._from_blob(path, data), named_id, named=True, also=same)
        for label, oid in (("index", index_oid), ("HEAD", head_oid)):
            found = self._blob(oid) if oid is not None and oid not in given else None
            if found is not None:
                given.add(found[0])
                yield Version(label, self._from_blob(path, found[1]), found[0])
        for entry in logged:  # a logged pre-image is given even when HEAD has it: recorded
            found = self._logged_blob(entry)
            if found is None:
                continue
            content = found[1] if self.worktree_form else git.to_blob(path, found[1])
            yield Version(f"blob {entry.blob} recorded {history.when(entry.time)}", content,
                          entry.blob, recorded=True)
            given.add(entry.blob)
        for commit, oid in self._recent_blobs(path, given):
            found = self._blob(oid)
            if found is not None:
                yield Version(f"{path} at commit {commit[:12]}",
                              self._from_blob(path, found[1]), found[0])

    def _recent_blobs(self, path: str, given: set[str]) -> Iterator[tuple[str, str]]:
        """(commit, blob) of the path's last RECENT_VERSIONS versions before HEAD's, newest
        first, from the newest RECENT_COMMITS commits of HEAD's history: the versions an
        agent's patch may have been written against before a commit of its own earlier
        steps (a cumulative patch whose first hunk was committed meanwhile)."""
        seen, found = set(given), 0
        for commit, oid, mode in self.recent.entries(path, pygit2.enums.SortMode.TOPOLOGICAL,
                                                     RECENT_COMMITS):
            if found >= RECENT_VERSIONS:
                return
            if oid in seen or mode not in _REGULAR:
                continue
            seen.add(oid)
            found += 1
            yield commit, oid

    def recorded(self, path: str) -> bool:
        return self.git_dir is not None and self._open().holds(path)

    def records_applies(self) -> bool:
        """The target logs its applies, and can: its pre-images can be written (loose.py
        writes none for a repository it does not support)."""
        if not self.logged:
            return False
        from .loose import Store

        assert self.git_dir is not None
        return Store.of(self.git_dir) is not None

    def applied(self, path: str, patch: str, after: str = "") -> bool:
        return self.git_dir is not None and self._open().holds(path, patch, after)

    def _entries(self, path: str) -> list[history.Entry]:
        """The history log's entries for ``path``, oldest first."""
        if self.git_dir is None:
            return []
        return self._open().entries(path)

    def _open(self) -> history.Log:
        if self._log is None:
            assert self.git_dir is not None
            self._log = history.open_log(self.git_dir)
        return self._log

    def _rules(self) -> Protection:
        """The target's protection, read once (none given: only the policy file's own)."""
        if self._protection is None:
            self._protection = Protection() if self._protection_of is None \
                else self._protection_of()
        return self._protection

    def _protected(self, path: str) -> bool:
        if self._protection_of is None:
            return False
        try:
            check_protected_path(path, self._rules())
        except PatchError:
            return True
        return False

    def _logged_blob(self, entry: history.Entry) -> tuple[str, bytes] | None:
        """(id, content) of a logged pre-image's blob, only when the entry proves it is the
        path's own (history.proven: the log is anyone's to write who can write the git
        directory, and a blob id is no secret) and it is no protected path's content at HEAD
        or in the index (a writer who had it could prove it): a forged line naming another
        path's blob, a stash's or a protected file's would make the merge's outcome tell
        whether a hunk guessed its lines."""
        found = self._blob(entry.blob)
        if found is None or not history.proven(entry, found[1]):
            return None
        from .protect import holders, protected_among  # the rescue runs rarely

        if self._holders is None:  # HEAD's tree walked once, whatever the number of entries
            self._holders = holders(self.git, self._rules())
        if protected_among(self._holders.get(found[0], []), self._rules()):
            return None
        return found

    def _named_blob(self, prefix: str, path: str, known: list[str | None],
                    logged: list[history.Entry]) -> str | None:
        """The full id of the blob a patch's index line names (``prefix``), if it is one of
        the path's own versions: one of ``known`` (its index entry, its blob at HEAD), a
        pre-image ``logged`` for it that its entry proves (``_logged_blob``), or its blob in
        one of the newest MAX_HISTORY_COMMITS commits of HEAD's history; None otherwise (the
        line then names no base)."""
        if not _PREFIX.fullmatch(prefix):
            return None
        for oid in known:
            if oid is not None and oid.startswith(prefix):
                return oid
        for entry in logged:
            if entry.blob.startswith(prefix) and self._logged_blob(entry) is not None:
                return entry.blob
        for _, oid, mode in self.recent.entries(path, pygit2.enums.SortMode.TIME,
                                                MAX_HISTORY_COMMITS):
            if oid.startswith(prefix) and mode in _REGULAR:
                return oid
        return None

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
            if self._index is None:  # read once per call, not once per file patch
                if not os.path.exists(self.git.index_path):
                    return None
                self._index = pygit2.Index(self.git.index_path)
            entry = self._index[path]
        except (KeyError, ValueError, OSError, pygit2.GitError):
            return None
        return str(entry.id) if int(entry.mode) in _REGULAR else None

    def _head_blob(self, path: str) -> str | None:
        from .branches import head_commit  # the rescue runs rarely: start-up counts

        try:
            commit = head_commit(self.git.repo)
            if commit is None:
                return None
            entry = self.git.repo[commit].peel(pygit2.Tree)[path]
        except (KeyError, ValueError, pygit2.GitError):
            return None
        return str(entry.id) if int(entry.filemode) in _REGULAR else None

    # -- the merge --------------------------------------------------------------------------------
    def merge(self, base: bytes, ours: bytes, theirs: bytes, marker_size: int) -> Merged:
        from .merge import merge_texts

        return merge_texts(base, ours, theirs, marker_size)
