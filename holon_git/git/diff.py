"""--emit-diff: the canonical git diff of what was applied, produced by libgit2's diff.

A plan's changes become pairs of contents (``Side``); a target whose write stores something
other than what the plan holds (the index stores cleaned blobs) gives its own sides
(targets/base.py ``diff_sides``).

Each changed file's old and new contents are stored in a throwaway object database (an
in-memory repository over a temporary loose-object directory: nothing touches the target
repository), placed in a pair of trees, and diffed with libgit2, renames detected within
that pair only so the pairing is always the one that was applied. Output is sorted by path,
as git sorts it.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..core.plan import REGULAR, Plan
from .libgit2 import pygit2


@dataclass(frozen=True)
class Side:
    old_path: str | None
    new_path: str | None
    old: bytes | None  # None: the file did not exist
    new: bytes | None
    old_mode: int = REGULAR
    new_mode: int = REGULAR


def plan_sides(plan: Plan) -> list[Side]:
    """The sides of a plan as its target read and wrote them."""
    sides = []
    for change in plan.changes:
        before = change.before
        old_mode = before.mode if before is not None else REGULAR
        sides.append(Side(
            change.old_path if before is not None else None,
            change.new_path if change.after is not None else None,
            before.data if before is not None else None,
            change.after,
            old_mode,
            change.mode if change.mode is not None else old_mode,
        ))
    return sides


def render_diff(sides: list[Side]) -> bytes:
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
