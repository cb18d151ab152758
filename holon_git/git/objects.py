"""Blobs in the object database: new contents written as they are planned, the objects an
apply wrote checked before anything names them, and deleted content saved
(until git gc prunes it: docs/envelope.md, "Saved deletions").

Every deleted file's pre-image goes to the object database (`git cat-file -p <blob>` brings
it back): as a loose object written in pure Python (loose.py), the blob id git itself would
give it; pygit2 loads only for a repository loose.py does not write (shared, or an object
format it does not know), so a working-tree apply that deletes files does not pay for its
import (about 60 ms, more than the rest of a small apply).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..core.change import FileChange
from ..core.model import FileKind
from ..errors import PatchError
from . import loose
from .libgit2 import loaded, pygit2
from .repository import git_error, open_git_dir

NOT_IN_REPOSITORY = "not inside a git repository: the deleted content was not saved"


def save_deleted(git_dir: str | None, changes: list[FileChange],
                 content_of: Callable[[FileChange], bytes] | None = None,
                 ) -> list[dict[str, Any]]:
    """Write the pre-image of every deleted file as a blob in the repository ``git_dir``;
    ``content_of(change)`` supplies it when the plan no longer holds it.

    Returns one entry per deleted file: {"path", "blob"} with the blob id, or with blob None
    and a "note" outside a git repository (``git_dir`` None). Raises io_error when the
    object database refuses the write, so the caller can stop before deleting anything.
    """
    deleted = [c for c in changes if c.kind is FileKind.DELETE and c.before is not None]
    if not deleted:
        return []
    if git_dir is None:
        return [{"path": c.old_path, "blob": None, "note": NOT_IN_REPOSITORY} for c in deleted]
    try:
        store = loose.Store.of(git_dir)
        repo = None if store is not None else open_git_dir(git_dir)
        saved = []
        for change in deleted:
            assert change.before is not None
            content = change.before.data if content_of is None else content_of(change)
            blob = store.write(content) if store is not None else str(write_blob(repo, content))
            saved.append({"path": change.old_path, "blob": blob})
        return saved
    except Exception as exc:
        # (naming pygit2.GitError would import pygit2: only when it is loaded can it raise)
        if not (isinstance(exc, OSError) or (loaded() and isinstance(exc, pygit2.GitError))):
            raise
        raise PatchError("io_error", f"could not save the deleted content to the object "
                         f"database of {git_dir}: {exc}",
                         hint="the object database refused a write; nothing was changed") from exc


def write_blob(repo: pygit2.Repository, content: bytes) -> pygit2.Oid:
    """The blob id of ``content``, written to the object database unless it is there already.

    libgit2 creates a blob through a write stream: it compresses the whole content into a
    temporary file and only then finds that the object exists (and throws the file away).
    Hashing first, as git does, makes a content the repository already has cost a hash and a
    look-up. (git would also refresh the existing object's mtime, which only matters to a
    `git gc` pruning that same object, unreachable and weeks old, during this apply.)
    """
    oid = pygit2.hash(content)
    if repo.odb.exists(oid):
        return oid
    return repo.create_blob(content)


def require_objects(repo: pygit2.Repository, ids: Any) -> None:
    """Refuse if an object this apply wrote (or found unreferenced and reused) is gone.

    Until the index or the branch names them, new objects are unreachable, and a concurrent
    `git gc --prune=now` deletes unreachable objects whatever their age. Checked after the
    new index is written under its lock and before it (or the branch) moves: an index or a
    branch naming a pruned object would be a damaged repository. (A gc between this check
    and the rename remains possible: git documents that window for --prune=now.)"""
    try:
        odb = repo.odb
        missing = [str(oid) for oid in dict.fromkeys(ids) if oid is not None
                   and not odb.exists(oid)]
    except (pygit2.GitError, OSError) as exc:
        raise git_error(exc, "checking the objects this apply wrote") from exc
    if missing:
        raise PatchError(
            "git_error", f"{len(missing)} object(s) this apply wrote were removed before the "
            f"index or branch could name them ({missing[0]}): a concurrent "
            "'git gc --prune=now'?", details={"missing": missing[:20]},
            hint="nothing was changed; apply again once the garbage collection has finished")


def blob_id(content: bytes) -> Any:
    """The id ``content`` has as a blob (nothing is written)."""
    return pygit2.hash(content)


class PlannedBlobs:
    """New contents written to the object database as each file is planned (--cached, --ref),
    so the plan never holds them all. A refused or interrupted patch leaves only objects
    nothing refers to, which git's gc removes, as a failed `git apply --cached` does."""

    def __init__(self, repo: pygit2.Repository) -> None:
        self.repo = repo
        self.ids: dict[str, pygit2.Oid] = {}

    def take(self, change: FileChange) -> None:
        if change.after is None:
            return
        self.ids[change.path] = self.create(change.after)
        change.after = None  # in the object database now; the plan lets go of it

    def create(self, content: bytes) -> pygit2.Oid:
        try:
            return write_blob(self.repo, content)
        except pygit2.GitError as exc:
            raise git_error(exc, "writing blobs") from exc

    def all_ids(self, contents: dict[str, bytes]) -> dict[str, pygit2.Oid]:
        """The ids of the blobs taken while planning and of ``contents`` (path -> bytes)."""
        return {**self.ids, **{path: self.create(data) for path, data in contents.items()}}
