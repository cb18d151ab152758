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

from collections.abc import Callable, Iterable, Mapping
from types import MappingProxyType

from ..change import FileChange
from ..model import FileKind, FilePatch, Patch

EMPTY: Mapping[str, str] = MappingProxyType({})


def modified_in_place(patch: Patch) -> dict[str, list[FilePatch]]:
    """The file patches of each path the patch modifies in place (no add, delete, rename)."""
    by_path: dict[str, list[FilePatch]] = {}
    for fp in patch.files:
        if fp.kind is FileKind.MODIFY and fp.old_path is not None \
                and fp.old_path == fp.new_path:
            by_path.setdefault(fp.old_path, []).append(fp)
    return by_path


def digest(file_patches: Iterable[FilePatch], reverse: bool) -> str:
    """What the file patches do to one file, and where: their hunks' headers as written
    (line numbers, an envelope's '@@' anchor) and lines, in order, and the direction. The
    same edit sent for a second copy of a block differs in its line numbers (or anchor): not
    a re-send; the very same patch again is."""
    import hashlib  # loads OpenSSL: not at start-up, which a --check need not pay

    h = hashlib.sha256(b"-R\n" if reverse else b"\n")
    for fp in file_patches:
        h.update(b"\0file\n")
        for hunk in fp.hunks:
            where = (hunk.old_start, hunk.old_count, hunk.new_start, hunk.new_count,
                     hunk.anchor_text, hunk.anchor_end)
            h.update(b"\0hunk\n" + repr(where).encode("utf-8", "surrogateescape") + b"\n")
            for line in hunk.lines:
                h.update(line.kind.encode() + len(line.text).to_bytes(4, "big") + line.text)
    return h.hexdigest()


def mark_digests(patch: Patch, reverse: bool, changes: Iterable[FileChange],
                 known: Mapping[str, str] = EMPTY) -> None:
    """Give each change of a file modified in place its digest, for the history log (a
    change marked already, before it went to be staged, is left as it is). ``known``: the
    digests taken already (the re-send check's), by path: a patch is digested once."""
    by_path = modified_in_place(patch)
    for change in changes:
        _mark(by_path, reverse, change, known)


def digests_first(patch: Patch, reverse: bool, then: Callable[[FileChange], None],
                  known: Mapping[str, str] = EMPTY) -> Callable[[FileChange], None]:
    """An on_planned callback that marks each change's digest and then calls ``then``: a
    target that stages a change as soon as it is planned may let go of its content (and does
    so in other threads), so the digest is taken before."""
    by_path = modified_in_place(patch)

    def marked(change: FileChange) -> None:
        _mark(by_path, reverse, change, known)
        then(change)

    return marked


def _mark(by_path: dict[str, list[FilePatch]], reverse: bool, change: FileChange,
          known: Mapping[str, str]) -> None:
    path = change.old_path
    if change.patch_digest or path is None or path not in by_path or change.new_path != path:
        return
    after = change.after
    if after is not None:
        import hashlib

        change.after_sha256 = hashlib.sha256(after).hexdigest()
        change.patch_digest = known.get(path) or digest(by_path[path], reverse)
