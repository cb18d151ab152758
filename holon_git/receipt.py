"""The receipt: what was (or would be) applied, how, and why not. Stable JSON (docs/receipt.md)."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from .core.change import FileChange, Plan, RejectFile
from .core.model import Diagnostic
from .errors import PatchError
from .quoting import safe
from .version import __version__

RECEIPT_VERSION = 1
APPLIED, CHECKED, REFUSED = "applied", "checked", "refused"
PARTIAL = "partial"  # --no-atomic only: some files were written before a refusal


def _file_dict(change: FileChange) -> dict[str, Any]:
    out: dict[str, Any] = {
        "action": change.action,
        "old_path": change.old_path,
        "new_path": change.new_path,
        "added_lines": change.added_lines,
        "removed_lines": change.removed_lines,
        "hunks": [hunk.to_dict() for hunk in change.hunks],
        "ignored_metadata": change.ignored_metadata,
        "diagnostics": [d.to_dict() for d in change.diagnostics],
    }
    if change.edit is not None:
        out["edit"] = change.edit
    if change.three_way is not None:
        out["three_way"] = change.three_way
    if change.rejected:
        out["rejected_hunks"] = change.rejected_hunks
    return out


@dataclass
class Receipt:
    """One vocabulary with the JSON (docs/receipt.md): each field of ``to_dict()`` is an
    attribute of the same name and value, at every level (files, hunks, errors, rejects);
    those a target or option adds (``commit``, ``deleted_blobs``, ...) read ``extra``."""

    status: str  # applied | checked | refused | partial
    target: str = "worktree"
    format: str = "unified"
    reverse: bool = False
    atomic: bool = True
    files: list[FileChange] = field(default_factory=list)
    # Non-atomic runs: the file patches not applied (the refused one first), as in "files".
    unapplied_files: list[dict[str, Any]] = field(default_factory=list)
    diagnostics: list[Diagnostic] = field(default_factory=list)
    # the refusal; when the whole patch was planned, the first of them, the others in its
    # ``more`` (``errors``)
    error: PatchError | None = None
    extra: dict[str, Any] = field(default_factory=dict)  # target results: commit id, ...
    diff: bytes | None = None  # with emit_diff: the git diff of what was applied (not in JSON)
    reject: bool = False  # --reject: refused hunks left out and written to *.rej files
    rejects: list[RejectFile] = field(default_factory=list)  # those files

    @property
    def ok(self) -> bool:
        return self.error is None

    @property
    def receipt_version(self) -> int:
        return RECEIPT_VERSION

    @property
    def tool(self) -> str:
        return f"holon-git {__version__}"

    # What a target or option adds to the receipt (``extra``; None or empty when absent).
    @property
    def commit(self) -> str | None:
        """--commit, --ref: the new commit's id."""
        return self.extra.get("commit")

    @property
    def tree(self) -> str | None:
        """--commit, --ref: the new commit's tree id."""
        return self.extra.get("tree")

    @property
    def ref(self) -> str | None:
        """--commit, --ref: the branch's full name."""
        return self.extra.get("ref")

    @property
    def parent(self) -> str | None:
        """--commit, --ref: the parent commit's id (None for a first commit)."""
        return self.extra.get("parent")

    @property
    def commits(self) -> list[str]:
        """--commit, --ref of a series of git format-patch mails: every commit made, the
        first first (empty for one commit)."""
        return list(self.extra.get("commits", []))

    @property
    def deleted_blobs(self) -> list[dict[str, Any]]:
        """Working-tree applies: each deleted file's saved pre-image, ``{"path", "blob"}``."""
        return list(self.extra.get("deleted_blobs", []))

    @property
    def intent_to_add(self) -> list[str]:
        """-N: the files the patch created, marked intended to be added."""
        return list(self.extra.get("intent_to_add", []))

    @property
    def intent_to_add_failed(self) -> str | None:
        """-N: git's message when it refused to mark them."""
        return self.extra.get("intent_to_add_failed")

    @property
    def history_not_written(self) -> str | None:
        """Why the history log did not record this apply (None when it did, or when the
        target records nothing)."""
        return self.extra.get("history_not_written")

    @property
    def attempts(self) -> int | None:
        """--retry: how many times the patch was planned and committed."""
        return self.extra.get("attempts")

    @property
    def holon_output(self) -> dict[str, Any] | None:
        """--holon-output: the run's directory, manifest status and patch file."""
        return self.extra.get("holon_output")

    @property
    def errors(self) -> list[PatchError]:
        """Every refusal, in patch order: ``error`` first (empty when none)."""
        return [] if self.error is None else [self.error, *self.error.more]

    @classmethod
    def from_plan(cls, plan: Plan, status: str, **kwargs: Any) -> Receipt:
        return cls(status, format=plan.format, files=plan.receipt_files,
                   diagnostics=plan.diagnostics, **kwargs)

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "receipt_version": RECEIPT_VERSION,
            "tool": f"holon-git {__version__}",
            "status": self.status,
            "target": self.target,
            "format": self.format,
            "reverse": self.reverse,
            "atomic": self.atomic,
            "files": [_file_dict(change) for change in self.files],
            "diagnostics": [d.to_dict() for d in self.diagnostics],
        }
        if not self.atomic:
            out["unapplied_files"] = self.unapplied_files
        if self.reject:
            out["rejects"] = [reject.to_dict() for reject in self.rejects]
        out.update(self.extra)
        out["error"] = self.error.to_dict() if self.error else None
        out["errors"] = [err.to_dict() for err in self.errors]
        return safe(out)  # a path that is not UTF-8 is quoted, as git quotes it

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), indent=2, ensure_ascii=False)
