"""Deleted content is never lost: every deleted file's pre-image goes to the object database.

`git cat-file -p <blob>` brings a deleted file back. pygit2 is imported here, and only when a
plan deletes something, so a plain apply does not pay for it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..errors import PatchError
from ..plan import FileChange

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
    deleted = [c for c in changes if c.action == "delete" and c.before is not None]
    if not deleted:
        return []
    if git_dir is None:
        return [{"path": c.old_path, "blob": None, "note": NOT_IN_REPOSITORY} for c in deleted]
    import pygit2

    from .gitrepo import open_git_dir, write_blob

    try:
        repo = open_git_dir(git_dir)
        saved = []
        for change in deleted:
            assert change.before is not None
            content = change.before.data if content_of is None else content_of(change)
            saved.append({"path": change.old_path, "blob": str(write_blob(repo, content))})
        return saved
    except (pygit2.GitError, OSError) as exc:
        raise PatchError("io_error", f"could not save the deleted content to the object "
                         f"database of {git_dir}: {exc}",
                         hint="the object database refused a write; nothing was changed") from exc
