"""--reject: the ``*.rej`` file beside each file whose hunks were left out, in git's format.

``git apply --reject`` writes ``PATH.rej`` (PATH the file patch's new name) as one line,
``diff a/PATH b/PATH<TAB>(rejected hunks)``, then each rejected hunk as the patch has it:
its ``@@`` line and its body (apply.c, write_out_one_reject). A file there already is
replaced. Here the hunk is written from the patch as read, which is the text as written for
a hunk that needed no repair: the ``@@`` line as git writes it (a count of 1 left out), the
lines with their own endings, ``\\ No newline at end of file`` after a line without one. A
hunk the parser repaired is written repaired (a blank context line with its space); an
envelope hunk as the envelope has it (``@@ text``, ``*** End of File``). With -R the hunk is
written as the patch has it, not reversed, as git writes it. File patches of one path in
sequence share its ``.rej``, each with its own header line (git keeps only the last one's).
"""

from __future__ import annotations

from collections.abc import Sequence

from ...errors import PatchError
from ..change import REGULAR, FileChange, Reader, RejectFile
from ..model import ADD, CONTEXT, REMOVE, FileKind, Hunk, Patch

SUFFIX = ".rej"
_PREFIX = {CONTEXT: b" ", REMOVE: b"-", ADD: b"+"}
_NO_NEWLINE = b"\\ No newline at end of file\n"


def reject_files(steps: Sequence[FileChange], read: Reader,
                 reverse: bool) -> list[RejectFile]:
    """The ``.rej`` file of each path ``steps`` (one change per file patch) left hunks out
    of, read through ``read`` (so a link, a directory or a git directory there is refused as
    any write there is) and written whole: an add, or a modify of the file there."""
    owners: dict[str, list[FileChange]] = {}
    for change in steps:
        if change.rejected:
            owners.setdefault(change.path + SUFFIX, []).append(change)
    out = []
    for path, changes in owners.items():
        file = changes[0].path
        try:
            existing = read(path)
        except PatchError as err:
            err.message = f"the hunks rejected from {file!r} go to {path!r}: {err.message}"
            raise err.located(path=path) from None
        content = b"".join(map(_section, changes, [reverse] * len(changes)))
        change = (FileChange(FileKind.ADD, None, path, None, content, REGULAR)
                  if existing is None else
                  FileChange(FileKind.MODIFY, path, path, existing, content, REGULAR))
        out.append(RejectFile(path, file, [h for c in changes for h in c.rejected], change))
    return out


def check_reject_paths(rejects: Sequence[RejectFile], patch: Patch) -> None:
    """A .rej file may not go where a file patch of the whole ``patch`` goes (git would
    write one over the other)."""
    named = {path for fp in patch.files for path in fp.paths}
    for reject in rejects:
        if reject.path in named:
            raise PatchError(
                "already_exists", f"the hunks rejected from {reject.file!r} go to "
                f"{reject.path!r}, which the patch changes too", path=reject.file,
                hint=f"apply without --reject, or leave {reject.path} out of the patch "
                "(--exclude)")


def _section(change: FileChange, reverse: bool) -> bytes:
    """One file patch's part of a .rej file: git's header line, then its rejected hunks."""
    name = change.path.encode("utf-8", "surrogateescape")
    head = b"diff a/" + name + b" b/" + name + b"\t(rejected hunks)\n"
    return head + b"".join(hunk_text(left_out.hunk.reversed() if reverse else left_out.hunk)
                           for left_out in change.rejected)


def hunk_text(hunk: Hunk) -> bytes:
    """A hunk as a patch has it: its '@@' line, then its body lines with their prefixes."""
    header = "@@"
    if hunk.old_start is not None and hunk.new_start is not None:
        header += f" -{_span(hunk.old_start, hunk.old_count)} " \
                  f"+{_span(hunk.new_start, hunk.new_count)} @@"
    if hunk.section:
        header += f" {hunk.section}"
    out = [header.encode("utf-8", "surrogateescape") + b"\n"]
    no_newline = hunk.old_no_newline or hunk.new_no_newline
    for line in hunk.lines:
        out.append(_PREFIX[line.kind] + line.text)
        if not line.text.endswith(b"\n"):
            out.append(b"\n" + _NO_NEWLINE if no_newline else b"\n")
    if hunk.anchor_end:
        out.append(b"*** End of File\n")
    return b"".join(out)


def _span(start: int, count: int | None) -> str:
    """git's range in an '@@' line: the count left out when it is 1."""
    return str(start) if count == 1 else f"{start},{count}"
