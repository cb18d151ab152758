"""-R of a deletion that does not hold the deleted content (an envelope's '*** Delete File'):
the content comes back from the blob this tool saved when it deleted the file.

Every working-tree (and --index) apply saves a deleted file's content as a blob and records
it in the history log (git/history.py) with the file's mode. Reversing such a deletion looks
up the newest deletion of that path there and reads the blob; the reversed patch then adds
exactly that content (and is refused like any addition if the path exists again). When the
log has no such deletion, or git's garbage collection has pruned the blob, the patch is
refused with what to do instead.

The log is hostile input (anyone who can write the git directory can write it), and here its
blob is written out whole, where `cat` and MCP's read_region show it. So the newest deletion
entry must prove its blob: its ``proof`` is the sha256 of the path, the mode and the content
deleted (history.deletion_proof), which only a writer who had that content can give; and the
content may not be a protected path's blob at HEAD or in the index (a protected file's
content is never written under another name). An entry without a proof (a forged line, or
one written before proofs were recorded) restores nothing.
"""

from __future__ import annotations

import io
import time
from collections.abc import Callable
from dataclasses import replace

from ..core.change import EXECUTABLE, SourceFile
from ..core.model import REMOVE, Diagnostic, FileKind, FilePatch, Hunk, HunkLine, Patch
from ..errors import PatchError
from ..git import history
from ..git.location import locate
from ..git.protect import protected_paths_holding
from ..git.repository import open_git_dir


def _needs_content(fp: FilePatch) -> bool:
    return fp.kind is FileKind.DELETE and not fp.check_deleted_content


def restore_deleted(patch: Patch, repo: str) -> Patch:
    """The patch with each deletion that lacks its content given the content this tool saved
    when it deleted the file (unchanged when there is none to give)."""
    if not any(_needs_content(fp) for fp in patch.files):
        return patch
    git_dir = locate(repo).git_dir
    log = history.read(git_dir) if git_dir is not None else []
    return replace(patch, files=[_with_content(fp, log, git_dir, repo) if _needs_content(fp)
                                 else fp for fp in patch.files])


def _unknown(fp: FilePatch, why: str) -> PatchError:
    return PatchError(
        "usage_error", f"cannot reverse the deletion of {fp.path!r}: the patch does not hold "
        f"the deleted content, and {why}",
        hint="restore the file from the blob id in the receipt of the apply that deleted it "
        "('git cat-file -p <id> > PATH'), or from git ('git restore PATH')",
        patch_line=fp.patch_line, path=fp.path)


def _with_content(fp: FilePatch, log: list[history.Entry], git_dir: str | None,
                  repo: str) -> FilePatch:
    assert fp.old_path is not None
    saved = next((entry for entry in history.entries(log, fp.old_path) if entry.deleted), None)
    if git_dir is None or saved is None:
        raise _unknown(fp, "this repository's history log records no deletion of it by "
                       "holon-git")
    try:
        content = open_git_dir(git_dir)[saved.blob].data
    except (KeyError, ValueError, AttributeError):  # AttributeError: not a blob
        raise _unknown(fp, f"the blob {saved.blob} saved when it was deleted is gone (pruned "
                       "by git gc)") from None
    if saved.proof != history.deletion_proof(fp.old_path, saved.deleted, content):
        raise _unknown(fp, f"the history log's newest deletion entry for it (blob "
                       f"{saved.blob}) does not prove that holon-git saved that blob for this "
                       "path: a line it did not write, or one from before deletions were "
                       "proven; nothing is restored from it")
    if protected_paths_holding(repo, saved.blob):
        raise PatchError(
            "protected_path", f"cannot reverse the deletion of {fp.path!r}: the content "
            f"the history log names for it (blob {saved.blob}) is a protected path's",
            hint="a protected file's content is never written under another name; restore "
            "the file from git ('git restore PATH') if it is meant to hold it",
            patch_line=fp.patch_line, path=fp.path)
    when = time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(saved.time))
    note = Diagnostic("restored_deleted_content", f"the deleted content is the blob "
                      f"{saved.blob} holon-git saved when it deleted the file ({when})",
                      fp.patch_line)
    return replace(deletion_of(fp, content), executable=saved.deleted == "100755",
                   diagnostics=[*fp.diagnostics, note])


def deletion_of(fp: FilePatch, content: bytes) -> FilePatch:
    """The deletion ``fp`` with ``content`` as its one hunk of removed lines."""
    lines = io.BytesIO(content).readlines()  # split at b"\n" only, as the patch model does
    hunks = [Hunk(1, len(lines), 0, 0, [HunkLine(REMOVE, line) for line in lines],
                  patch_line=fp.patch_line,
                  old_no_newline=not content.endswith(b"\n"))] if lines else []
    return replace(fp, hunks=hunks, check_deleted_content=True)


def with_current_content(patch: Patch, read: Callable[[str], SourceFile | None]) -> Patch:
    """The patch with each deletion that lacks its content given the file's current content
    (as ``read``, a target's, returns it), for --stat and --numstat to count its lines."""
    files = []
    for fp in patch.files:
        current = read(fp.path) if _needs_content(fp) else None
        # the mode too: --summary names it (' delete mode 100755 run.sh'), as git's does
        files.append(fp if current is None else replace(
            deletion_of(fp, current.data), executable=current.mode == EXECUTABLE))
    return replace(patch, files=files)
