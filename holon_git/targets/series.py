"""A series of git format-patch mails committed as git am commits them: one commit for each
mail, each the parent of the next, and the branch moved once, to the last (the target's own
commit of the whole plan). Here: the commits before the last, as objects only."""

from __future__ import annotations

from collections.abc import Callable

from ..core.change import FileChange
from ..core.model import Mail
from ..git.commit import BranchUpdate
from ..git.libgit2 import pygit2
from ..git.objects import PlannedBlobs
from ..git.stage import Stage


def commit_earlier(repo: pygit2.Repository, branch: BranchUpdate, base_tree: pygit2.Oid | None,
                   earlier: list[tuple[Mail, list[FileChange]]],
                   blob_content: Callable[[FileChange], bytes]) -> None:
    """For each mail before the last: the tree ``base_tree`` becomes with its changes (those
    of the mails up to it, planned from the same pre-images as the whole series; their
    blobs as ``blob_content`` gives them), committed with the mail's message, author and
    date on top of the commit before it."""
    blobs = PlannedBlobs(repo)
    for mail, changes in earlier:
        stage = Stage.from_tree(repo, base_tree, "HEAD")
        stage.apply(changes, blobs.all_ids({c.path: blob_content(c) for c in changes
                                            if c.after is not None}))
        branch.commit_earlier(stage.write_tree(), mail.message, mail.author, mail.date)
