"""What a plan is made of: each file's pre-image as a target read it, each hunk's place and
tolerances, each file's change, and the plan itself (what a target writes and the receipt
reports). Data only; planning is core/plan/, placement core/place/.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from ..errors import PatchError
from .model import Diagnostic, FileKind, Hunk, display_name, known_path

REGULAR = 0o100644
EXECUTABLE = 0o100755


@dataclass(slots=True)
class SourceFile:
    """A file's pre-image as a target read it."""

    # None once the plan has let go of it (plan_patch(keep_preimages=False)): the target
    # reads it again, checking the token, when it needs it
    content: bytes | None
    mode: int = REGULAR
    token: Any = None  # target-specific identity, re-checked before writing

    @property
    def data(self) -> bytes:
        """The content, which a reader always supplies (planning code reads it here)."""
        if self.content is None:
            raise ValueError("the pre-image was released after planning")
        return self.content


Reader = Callable[[str], "SourceFile | None"]


@dataclass(slots=True)
class HunkResult:
    index: int  # 1-based
    hinted_line: int | None  # old_start as written
    applied_line: int  # 1-based line in the pre-image where the old side was found
    tolerances: list[str] = field(default_factory=list)
    by_line_number: bool = False  # several copies matched; the one at the hinted line won
    by_anchor: bool = False  # several copies matched; the one after the '@@ text' line won
    # placed away from its line number while its new side sits elsewhere in the file (not
    # in the receipt: the plan asks the history log whether this tool applied it there)
    new_side_elsewhere: bool = False
    # placed by its context away from a file edge it claims by git's rules (match_beginning,
    # match_end: place/edges.py): weaker evidence, like a loose match (not in the receipt: the
    # plan asks the file's other versions whether one places it at that edge, rescue.py)
    off_edge: bool = False
    # its change was in the file already; the rest of the patch was merged (rescue.py)
    already_applied: bool = False

    @property
    def offset(self) -> int | None:
        return None if self.hinted_line is None else self.applied_line - self.hinted_line

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "index": self.index,
            "hinted_line": self.hinted_line,
            "applied_line": self.applied_line,
            "offset": self.offset,
            "tolerances": self.tolerances,
        }
        if self.by_line_number:
            out["by_line_number"] = True
        if self.by_anchor:
            out["by_anchor"] = True
        if self.already_applied:
            out["already_applied"] = True
        return out


@dataclass(slots=True)
class RejectedHunk:
    """A hunk --reject left out of its file patch (core/plan/reject.py): its number in the
    file patch, the hunk as the patch has it, and its refusal."""

    index: int  # 1-based
    hunk: Hunk
    error: PatchError

    # the receipt's names (its "rejects" list each hunk as index, patch_line and code)
    @property
    def patch_line(self) -> int | None:
        return self.hunk.patch_line

    @property
    def code(self) -> str:
        return self.error.code


@dataclass(slots=True)
class FileChange:
    """One file's planned change. After a working-tree write ``after`` is None (the new
    content is on disk), and so is ``before.content`` unless --emit-diff needed it or the
    patch has one file (its pre-image is kept for the undo rather than read again)."""

    kind: FileKind
    old_path: str | None
    new_path: str | None
    before: SourceFile | None
    after: bytes | None  # None for a delete
    mode: int | None
    hunks: list[HunkResult] = field(default_factory=list)
    ignored_metadata: list[str] = field(default_factory=list)
    diagnostics: list[Diagnostic] = field(default_factory=list)
    added_lines: int = 0
    removed_lines: int = 0
    three_way: dict[str, str] | None = None  # merged from this base (the rescue)
    patch_digest: str = ""  # what the patch did to the file, for the history log (resend.py)
    after_sha256: str = ""  # of ``after``, taken with the digest (``after`` may be let go)
    rejected: list[RejectedHunk] = field(default_factory=list)  # --reject: hunks left out
    edit: int | None = None  # the edit (1-based) this change made, for edits by their text

    @property
    def path(self) -> str:
        return known_path(self.old_path, self.new_path)

    # The receipt's names for what the planner keeps otherwise (docs/receipt.md): every field
    # of a file in the JSON receipt is an attribute of the same name and value.
    @property
    def action(self) -> str:
        """``kind``'s value: modify, add, delete or rename."""
        return self.kind.value

    @property
    def rejected_hunks(self) -> list[int]:
        """--reject: the numbers of the hunks left out (``rejected``)."""
        return [left_out.index for left_out in self.rejected]

    @property
    def display_name(self) -> str:
        return display_name(self.kind, self.old_path, self.new_path)


@dataclass(slots=True)
class RejectFile:
    """--reject: the ``*.rej`` file written beside a file with the hunks left out of it, in
    git's format (core/plan/reject.py), and its write (an add, or a modify replacing the file
    there, as git replaces it)."""

    path: str  # the .rej file
    file: str  # the file whose hunks it holds
    hunks: list[RejectedHunk]
    change: FileChange

    @property
    def replaced(self) -> bool:
        return self.change.kind is FileKind.MODIFY

    def to_dict(self) -> dict[str, Any]:
        return {"path": self.path, "file": self.file, "replaced": self.replaced,
                "hunks": [{"index": h.index, "patch_line": h.hunk.patch_line,
                           "code": h.error.code} for h in self.hunks]}


@dataclass
class Plan:
    changes: list[FileChange]  # what the target writes: one change per path
    diagnostics: list[Diagnostic] = field(default_factory=list)
    format: str = "unified"
    # When file patches were applied in sequence (a path in several of them): one entry per
    # file patch as it was planned, for the receipt; ``changes`` holds the net change per path.
    file_patches: list[FileChange] | None = None
    # --reject: the *.rej files the target writes with the changes (never in ``changes``:
    # they are no change the patch makes, for the history log or -N)
    rejects: list[RejectFile] = field(default_factory=list)

    @property
    def receipt_files(self) -> list[FileChange]:
        return self.file_patches if self.file_patches is not None else self.changes


def removed_paths(changes: Iterable[FileChange]) -> set[str]:
    """The paths these changes delete or rename away."""
    return {c.old_path for c in changes
            if c.kind in (FileKind.DELETE, FileKind.RENAME) and c.old_path is not None}
