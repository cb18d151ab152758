"""What a patch did to each file it modified in place, as the history log records it.

The history log (git/history.py) records, for each file a patch modified in place, a digest
of what the patch did to it (its file patches for the path, in order, and the direction) and
the sha256 of the content written. When the same patch comes again and the file still has
that content, it is a re-send, whatever its hunks look like: a deletion from a run of equal
lines, a series whose later mails changed an earlier one's lines, a hunk with no context
(applied.refuse_a_recorded_resend). Without such a record (another tool applied it, or the
file changed since) the hunk rules decide. Pure: the log comes through KnownVersions.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable

from ..change import FileChange
from ..model import FileKind, FilePatch, Patch


def modified_in_place(patch: Patch) -> dict[str, list[FilePatch]]:
    """The file patches of each path the patch modifies in place (no add, delete, rename)."""
    by_path: dict[str, list[FilePatch]] = {}
    for fp in patch.files:
        if fp.kind is FileKind.MODIFY and fp.old_path is not None \
                and fp.old_path == fp.new_path:
            by_path.setdefault(fp.old_path, []).append(fp)
    return by_path


def digest(file_patches: Iterable[FilePatch], reverse: bool) -> str:
    """What the file patches do to one file: their hunks' lines, in order, and the direction."""
    h = hashlib.sha256(b"-R\n" if reverse else b"\n")
    for fp in file_patches:
        h.update(b"\0file\n")
        for hunk in fp.hunks:
            h.update(b"\0hunk\n")
            for line in hunk.lines:
                h.update(line.kind.encode() + len(line.text).to_bytes(4, "big") + line.text)
    return h.hexdigest()


def mark_digests(patch: Patch, reverse: bool, changes: Iterable[FileChange]) -> None:
    """Give each change of a file modified in place its digest, for the history log."""
    by_path = modified_in_place(patch)
    for change in changes:
        path = change.old_path
        if path is not None and path in by_path and change.new_path == path \
                and change.after is not None:
            change.patch_digest = digest(by_path[path], reverse)
            change.after_sha256 = hashlib.sha256(change.after).hexdigest()
