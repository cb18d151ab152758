"""The three-way rescue shows nothing a caller could not read (issue 28, item 1).

The attack: a patch for an ordinary file whose `index OLD..` line names the blob of another
file (a protected one, one on another branch, one deleted from history, an unreachable
object), with a hunk that misses the ordinary file but matches that blob. The rescue used to
take the blob as the merge base, and the `merge_conflict` refusal listed its lines: through
`check_patch` over MCP, which never writes, any blob could be read by guessing prefixes.

Now a base is only a version recorded for that path (its index entry, its blob at HEAD or in
HEAD's history, this tool's history log), and a conflict shows only lines of the current file
and of the patch itself.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from repos.builders import git, snapshot

from holon_git import apply_patch
from holon_git.core.model import FileKind, FilePatch
from holon_git.git.versions import RepositoryVersions
from holon_git.mcp_server.calls import answer
from holon_git.mcp_server.tools import CHECK, check_arguments
from holon_git.targets.worktree import WorktreeTarget

SECRET = "# production settings\nAPI_KEY=hunter2-xyz\nDB_PASSWORD=swordfish\n"
NOTES = "".join(f"note {i}\n" for i in range(1, 9))
LEAKS = ("hunter2", "swordfish")


def probe(blob: str, path: str = "notes.txt") -> str:
    """A patch for ``path`` that misses it but matches SECRET, naming ``blob`` as its base."""
    return (f"diff --git a/{path} b/{path}\nindex {blob}..1234567 100644\n--- a/{path}\n"
            f"+++ b/{path}\n@@ -1 +1 @@\n-# production settings\n+# staging settings\n")


def shown(receipt_json: str) -> None:
    for secret in LEAKS:
        assert secret not in receipt_json


@pytest.fixture
def repo_files() -> dict[str, str]:
    """What the shared `repo` fixture commits here."""
    return {"notes.txt": NOTES, "secret.env": SECRET, ".holon/protect": "secret.env\n"}


def blob_of(repo: Path, spec: str) -> str:
    return git(repo, "rev-parse", spec).strip()


def check_over_mcp(repo: Path, patch: str) -> dict:
    arguments = check_arguments(CHECK, {"patch": patch})
    result = answer(CHECK, arguments, str(repo))
    shown(result.text)
    shown(json.dumps(result.structured))
    return result.structured


def test_a_protected_file_is_not_read_through_check_patch(repo: Path):
    before = snapshot(repo)
    for length in (4, 7, 40):
        structured = check_over_mcp(repo, probe(blob_of(repo, "HEAD:secret.env")[:length]))
        assert structured["error"]["code"] == "context_not_found"
    assert snapshot(repo) == before


@pytest.mark.parametrize("where", ["other_branch", "deleted", "unreachable"])
def test_blobs_that_are_not_this_paths_versions_are_no_base(repo: Path, where: str):
    if where == "other_branch":
        git(repo, "checkout", "-qb", "other")
        (repo / "notes.txt").write_text(SECRET)
        git(repo, "commit", "-qam", "other")
        blob = blob_of(repo, "HEAD:notes.txt")
        git(repo, "checkout", "-q", "main")
    elif where == "deleted":  # in HEAD's history, but at another path
        (repo / "old.env").write_text(SECRET + "x\n")
        git(repo, "add", "old.env")
        git(repo, "commit", "-qm", "oops")
        blob = blob_of(repo, "HEAD:old.env")
        git(repo, "rm", "-q", "old.env")
        git(repo, "commit", "-qm", "remove the secret")
    else:
        blob = git(repo, "hash-object", "-w", "--stdin", input=(SECRET + "y\n").encode()).strip()
    (repo / "notes.txt").write_text(NOTES.replace("note 2", "note two"))
    git(repo, "branch", "-q", "side")  # --ref onto a branch not checked out: its own tree
    before = snapshot(repo)
    for options in ({"check": True}, {}, {"target": "index"}, {"ref": "side", "message": "m"}):
        receipt = apply_patch(probe(blob[:8]), repo, **options)
        assert receipt.error is not None and receipt.error.code == "context_not_found", options
        shown(receipt.to_json())
    assert snapshot(repo) == before
    check_over_mcp(repo, probe(blob[:8]))


def test_the_paths_own_history_is_a_base_but_its_lines_are_not_shown(repo: Path):
    """notes.txt once held a token, removed since: the patch names that old version as its
    base (it is the path's blob in HEAD's history), and conflicts with the current text; the
    refusal shows the patch's lines and the current file's, never the token."""
    old = "n1\nn2\nn3\nTOKEN=hunter2-xyz\nn5\nn6\n"
    (repo / "notes.txt").write_text(old)
    git(repo, "commit", "-qam", "notes with a token")
    blob = blob_of(repo, "HEAD:notes.txt")
    (repo / "notes.txt").write_text("n1\nCHANGED\nn6\n")
    git(repo, "commit", "-qam", "token removed")
    patch = (f"diff --git a/notes.txt b/notes.txt\nindex {blob[:7]}..1234567 100644\n"
             "--- a/notes.txt\n+++ b/notes.txt\n@@ -2,2 +2,2 @@\n n2\n-n3\n+N3\n")
    before = snapshot(repo)
    receipt = apply_patch(patch, repo)
    assert receipt.error is not None and receipt.error.code == "merge_conflict"
    assert receipt.error.details["base"] == f"patch index line {blob[:7]}"
    assert receipt.error.details["patch_lines"] == ["n2", "N3"]
    assert receipt.error.details["base_lines_not_shown"] == 2  # the token and n5
    shown(receipt.to_json())
    structured = check_over_mcp(repo, patch)
    assert structured["error"]["code"] == "merge_conflict"
    assert snapshot(repo) == before


def test_an_index_line_naming_an_older_version_of_the_path_still_merges(repo: Path):
    """The legitimate case the rule keeps: the patch was written against the path's blob two
    commits back; the current text changed elsewhere; the merge is clean."""
    blob = blob_of(repo, "HEAD:notes.txt")
    for edit in ("note 7", "note 8"):
        (repo / "notes.txt").write_text((repo / "notes.txt").read_text().replace(edit, "x"))
        git(repo, "commit", "-qam", edit)
    patch = (f"diff --git a/notes.txt b/notes.txt\nindex {blob[:7]}..1234567 100644\n"
             "--- a/notes.txt\n+++ b/notes.txt\n@@ -1,8 +1,8 @@\n note 1\n-note 2\n+note 2!\n"
             " note 3\n note 4\n note 5\n note 6\n note 7\n note 8\n")
    receipt = apply_patch(patch, repo)
    assert receipt.ok, receipt.error
    assert receipt.files[0].three_way == {"base": f"patch index line {blob[:7]}", "blob": blob}
    assert (repo / "notes.txt").read_text() == NOTES.replace("note 2", "note 2!").replace(
        "note 7", "x").replace("note 8", "x")


def test_a_protected_path_has_no_versions(repo: Path):
    target = WorktreeTarget(str(repo), str(repo / ".git"))
    try:
        versions = target.known_versions()
        assert versions is not None
        fp = FilePatch(FileKind.MODIFY, "secret.env", "secret.env", [],
                       blob_ids=(blob_of(repo, "HEAD:secret.env")[:7], "1234567"))
        assert list(versions.versions(fp, "secret.env")) == []
        fp = FilePatch(FileKind.MODIFY, "notes.txt", "notes.txt", [])
        assert [v.label for v in versions.versions(fp, "notes.txt")] == ["index"]  # = HEAD
        assert isinstance(versions, RepositoryVersions)
    finally:
        target.close()
