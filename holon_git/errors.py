"""The one error type holon-git raises, and the catalogue of its stable codes."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from .quoting import quote_path, requote, safe

# code -> default one-line recovery hint naming the rule that failed.
# docs/errors.md documents every code; a test keeps the two in step.
HINTS: dict[str, str] = {
    "patch_too_large": "one patch may hold at most 100,000 file patches, 1,000,000 hunks "
    "and 10,000,000 lines (docs/patch-format.md); split the change into several patches",
    "empty_patch": "the input holds no file patch: start each file with '--- a/path' and "
    "'+++ b/path' (or 'diff --git a/path b/path')",
    "patch_parse_error": "the text is not a patch holon-git reads: send a unified diff "
    "('--- a/PATH', '+++ b/PATH', '@@' hunks) or one whole '*** Begin Patch' ... "
    "'*** End Patch' envelope",
    "missing_file_header": "each file patch needs '--- old_path' immediately followed by "
    "'+++ new_path' before its first '@@' hunk",
    "invalid_hunk_header": "a hunk header reads '@@ -old_start,old_count +new_start,new_count @@'",
    "malformed_hunk": "every hunk body line starts with ' ' (context), '-' (remove) or "
    "'+' (add); re-emit the hunk with each line's prefix",
    "truncated_patch": "the patch ends inside a hunk, as if it was cut off (an output limit); "
    "re-emit the whole patch, ending every hunk as its header counts say",
    "hunk_kind_mismatch": "an added file (--- /dev/null) has only '+' lines; a deleted file "
    "(+++ /dev/null) has only '-' lines",
    "missing_hunks": "a file patch needs at least one '@@' hunk (only git's empty-file "
    "add/delete and renames may have none)",
    "unsupported_git_patch_feature": "binary, copy, symlink, submodule and mode-only changes "
    "are outside the V1 subset; send a text diff",
    "rename_path_mismatch": "a rename names two different paths: 'rename from OLD' and "
    "'rename to NEW' (an envelope: '*** Move File: OLD -> NEW')",
    "file_path_mismatch": "'---' and '+++' name different files; to rename, use 'diff --git' "
    "with 'rename from' and 'rename to'",
    "inconsistent_header": "the 'diff --git', 'rename from'/'rename to', mode and '---'/'+++' "
    "lines of one file patch must name the same files; regenerate the header (git diff writes "
    "it consistently)",
    "duplicate_file_patch": "a path's file patches must apply one after the other: add a path "
    "once, and change a path only while it exists",
    "invalid_path": "paths are repository-relative, non-empty, use '/' and hold no control "
    "characters",
    "path_escape": "paths must stay inside the repository and outside .git/",
    "symlink_in_path": "holon-git does not write through symbolic links; patch the link's "
    "target path instead",
    "not_a_regular_file": "only regular files can be patched",
    "context_not_found": "re-read the file and re-emit the hunk with context lines copied "
    "exactly from it",
    "indentation_mismatch": "the hunk matched only with whitespace ignored and its "
    "indentation does not map to the file's one way; re-emit the hunk with the file's exact "
    "indentation (tabs as tabs)",
    "ambiguous_context": "the hunk's old lines occur more than once; add surrounding context "
    "lines until they are unique, or set the hunk header's line number to the copy meant",
    "ambiguous_repeat": "the file may or may not have this change: the lines the hunk adds "
    "repeat the lines beside them, so a re-send and a new insertion look the same; if the edit "
    "is not in yet, send the hunk again with a context line that tells the places apart",
    "already_applied": "the file already contains the hunk's new lines; drop this hunk or "
    "check which version you edited",
    "not_applied": "the file has the hunk's old lines, not its new ones: the patch is not "
    "applied here, so it cannot be reversed; check which patch and file you meant",
    "partly_applied": "some hunks of the patch are already in the file and others are not, "
    "and no version it was written against merges it; send only the hunks not in the file "
    "yet, against its current text",
    "search_too_costly": "the hunk's lines repeat throughout the file, so finding where it "
    "goes would take too long; give it a context line that occurs in few places (a line near "
    "the change that is not repeated), or fewer context lines",
    "overlapping_edits": "two hunks of one file change the same lines; merge them into one hunk",
    "merge_conflict": "the file changed since the version the patch was written against, and "
    "the patch's edit conflicts with that change; re-read the file and re-emit the hunk "
    "against its current text",
    "whitespace_error": "the lines the patch adds have whitespace errors (trailing "
    "whitespace, a space before a tab in the indentation, blank lines at the end of a file); "
    "remove them, or apply with --whitespace=fix (or warn)",
    "content_mismatch": "a deletion must list the file's whole current content as '-' lines",
    "already_exists": "the path already exists; patch it as a modification instead of an "
    "addition",
    "not_found": "no such file here: check that the patch is for this repository and that its "
    "paths are from the top of it (a patch without 'diff --git' headers: from the directory "
    "you apply in; see -p and --directory); to create the file, use '--- /dev/null'",
    "stale_file": "the file changed since the patch was made; re-read it and regenerate the "
    "patch",
    "io_error": "the filesystem refused a write; every change was rolled back",
    "unrecovered_journal": "an interrupted apply left a crash journal: run 'git holon-apply "
    "--recover' to restore the files it was changing, then apply again",
    "journal_invalid": "a crash journal under .git/holon-apply/ is not one holon-git wrote "
    "(malformed, a symbolic link, or naming paths outside the working tree); inspect it, "
    "then remove that journal directory by hand",
    "not_a_repository": "run inside a git repository or pass --repo PATH",
    "unsafe_repository": "the repository is owned by another user, so git refuses it too; "
    "if you trust it, run 'git config --global --add safe.directory PATH' as git advises",
    "index_mismatch": "the index and the working tree (or, for a commit, the index and HEAD) "
    "differ at this path; stage or discard that difference first, or apply with --cached",
    "uncommitted_changes": "--ref moves the checked-out branch together with its index and "
    "working tree only where they match the branch; commit or stash (git stash) the changes "
    "to this path first, or apply to the working tree without --ref",
    "index_locked": "another git process holds the index lock; wait for it to finish, or "
    "remove the index.lock file if no git process is running",
    "head_moved": "the branch moved while the patch was being applied and nothing was "
    "committed; apply the patch again on top of the new commit",
    "ref_locked": "another process is updating the branch; retry, or remove its stale .lock "
    "file if no git process is running",
    "identity_unknown": "tell git who you are, as 'git commit' asks: git config user.name "
    "'Your Name' and git config user.email you@example.com (add --global for every "
    "repository), or pass --author 'Name <email>'",
    "detached_head": "HEAD is detached; check out a branch, or name the branch with --ref",
    "config_unreadable": "fix the git configuration the message names (run 'git config "
    "--get-all KEY' to see git's own complaint); a non-UTF-8 value of a key holon-git must "
    "read as text is refused too",
    "protected_path": "the path is protected by git config holon.protect or .holon/protect; "
    "leave it out of the patch",
    "unsupported_filter": "the path has a filter driver or working-tree-encoding attribute "
    "holon-git cannot run; apply to the working tree alone (then 'git add' runs the filter), "
    "or with --cached, or --ref onto a branch that is not checked out: none of them converts",
    "git_error": "libgit2 refused the operation (an unsupported repository feature or a "
    "damaged repository); nothing was changed",
    "usage_error": "see 'git holon-apply -h'",
    "invalid_tool_input": "call ApplyPatch with the unified diff as its input: the raw diff "
    "text for a custom tool, {\"patch\": \"--- a/PATH\\n+++ b/PATH\\n@@ ...\"} for a JSON tool",
    "invalid_edit": "each edit names a path and the text to replace as the file holds it "
    "(old_str, or a SEARCH section); an empty old text only creates a file "
    "(docs/edits.md, docs/blocks.md)",
    "repo_not_served": "the MCP server works only in the repositories it was started with "
    "(--repo) that lie inside the client's roots; name one of those as `repo`",
    "binary_file": "read_region shows text files only; a patch cannot change a binary file "
    "either",
    "hook_exists": "a different hook is already installed there; merge it by hand, or "
    "replace it with install-hooks --force",
    "holon_output_missing": "a Holon run output folder needs manifest.json, diff.patch (or "
    "patch.diff), and summary.md for --commit",
    "holon_output_invalid": "manifest.json must be a JSON object with a string \"status\"; "
    "summary.md must be UTF-8 with a subject line; diff.patch and patch.diff may not disagree",
    "holon_run_unsuccessful": "the run's manifest status is not success; review its output "
    "and apply with --force if the patch is wanted anyway",
}


# The command line's exit status for each outcome.
EXIT_OK, EXIT_REFUSED, EXIT_USAGE = 0, 1, 2


@dataclass
class PatchError(Exception):
    """A refusal: stable code, what went wrong, how to fix it, and where; and the exit status
    the command line ends with (2 for ``usage_error``, 1 for a refusal, unless given)."""

    code: str
    message: str
    hint: str = ""
    patch_line: int | None = None
    path: str | None = None
    hunk: int | None = None
    details: dict[str, Any] = field(default_factory=dict)
    exit_status: int = 0  # 0: from the code
    # The other refusals of the same apply, in patch order, when every file patch was
    # planned (an atomic apply or a --check: the receipt's ``errors`` after this one).
    more: list[PatchError] = field(default_factory=list, repr=False, compare=False)

    def __post_init__(self) -> None:
        if self.code not in HINTS:
            raise ValueError(f"unregistered error code {self.code!r}")
        if not self.hint:
            self.hint = HINTS[self.code]
        # a path that is not UTF-8, which the message wrote as {path!r}, as git quotes it
        self.message = requote(self.message)
        if not self.exit_status:
            self.exit_status = EXIT_USAGE if self.code == "usage_error" else EXIT_REFUSED
        super().__init__(self.message)

    def located(self, *, path: str | None = None, hunk: int | None = None,
                patch_line: int | None = None) -> PatchError:
        """Fill in location fields that are still unknown; returns self for re-raising."""
        if self.path is None:
            self.path = path
        if self.hunk is None:
            self.hunk = hunk
        if self.patch_line is None:
            self.patch_line = patch_line
        return self

    def where(self, *, with_patch_line: bool = True) -> str:
        """'hunk 2 of src/x.py (patch line 14)': the known parts of the location, or ''."""
        parts = []
        if self.hunk is not None:
            parts.append(f"hunk {self.hunk}")
        if self.path is not None:
            parts.append(("of " if parts else "") + quote_path(self.path, terminal=True))
        if with_patch_line and self.patch_line is not None:
            parts.append(f"(patch line {self.patch_line})")
        return " ".join(parts)

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"code": self.code, "message": self.message, "hint": self.hint}
        for key in ("patch_line", "path", "hunk"):
            value = getattr(self, key)
            if value is not None:
                out[key] = value
        if self.details:
            out["details"] = self.details
        return safe(out)  # a path that is not UTF-8 is quoted, as git quotes it

    def __str__(self) -> str:
        return f"{self.code}: {self.message}"


def first_of(errors: Sequence[PatchError]) -> PatchError:
    """The first of several refusals, carrying the others in ``more`` (flattened, in order):
    what an apply that planned every file patch raises."""
    first, *rest = [one for err in errors for one in (err, *err.more)]
    for err in (first, *rest):
        err.more = []
    first.more = rest
    return first


def let_go(err: BaseException | None) -> None:
    """Drop the tracebacks of a refusal (and of those it was raised from) that a caller
    caught and goes past: a frame that raised a refusal it held in a local is a reference
    cycle, which keeps that try's file and indexes alive until the cycle collector runs
    (paused during an apply), so every version the rescue tried would stay in memory."""
    while err is not None:
        err.__traceback__ = None
        err = err.__context__
