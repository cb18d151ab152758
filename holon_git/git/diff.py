"""--emit-diff: the canonical git diff of what was applied, produced by libgit2's diff.

The sides come from the target (targets/base.py ``Side``, ``diff_sides``): a plan's changes as
pairs of contents, as the target read and wrote them.

Each changed file's old and new contents are stored in a throwaway object database (an
in-memory repository over a temporary loose-object directory: nothing touches the target
repository), placed in a pair of trees, and diffed with libgit2, renames detected within
that pair only so the pairing is always the one that was applied. Output is sorted by path,
as git sorts it.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from .libgit2 import pygit2


def render_diff(sides: Iterable[Any]) -> bytes:
    import tempfile  # only --emit-diff needs it: start-up counts

    with tempfile.TemporaryDirectory(prefix="holon-diff-") as objects:
        odb = pygit2.Odb()
        odb.add_backend(pygit2.OdbBackendLoose(objects, 1, False), 1)
        repo = pygit2.Repository()
        repo.set_odb(odb)

        def tree(path: str | None, content: bytes | None, mode: int) -> pygit2.Oid:
            index = pygit2.Index()
            if path is not None and content is not None:
                index.add(pygit2.IndexEntry(path, repo.create_blob(content), mode))
            return index.write_tree(repo)

        pieces = []
        for side in sides:
            old = tree(side.old_path, side.old, side.old_mode)
            new = tree(side.new_path, side.new, side.new_mode)
            diff = repo.diff(repo[old], repo[new], context_lines=3)
            if side.old_path and side.new_path and side.old_path != side.new_path:
                diff.find_similar(pygit2.enums.DiffFind.FIND_RENAMES, rename_threshold=1)
            data = b"".join(patch.data for patch in diff)  # bytes: any encoding survives
            if data:
                pieces.append((side.new_path or side.old_path or "", data))
        return b"".join(piece for _, piece in sorted(pieces, key=lambda item: item[0]))
