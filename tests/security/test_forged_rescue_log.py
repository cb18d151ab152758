"""A history-log line is a rescue base only when it proves the path's own pre-image (issue 42,
item 2).

The attack: a line `{"time": <now>, "path": "x.txt", "blob": "<blob id of protected
secret.txt>"}` appended to the history log (anyone who can write `.git` can) made `--check` and
MCP `check_patch` answer `merge_conflict` when a hunk for `x.txt` guessed a secret line right
and `context_not_found` when wrong: an oracle for protected lines. Now a logged pre-image is a
base only when its line carries the proof this tool writes (the sha256 of the path and the
content), and never when its blob is a protected path's content; every guess gets the same
answer.
"""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest
from repos.builders import git

from holon_git import apply_patch
from holon_git.git import history
from holon_git.mcp_server.calls import answer
from holon_git.mcp_server.tools import CHECK, check_arguments

SECRET = "".join(f"secret {i}\n" for i in range(1, 6)) + "PASSWORD=swordfish\n"
NOTES = "".join(f"note {i}\n" for i in range(1, 9))


@pytest.fixture
def repo_files() -> dict[str, str | bytes]:
    return {"x.txt": NOTES, "secret.txt": SECRET, "other.txt": SECRET.replace("secret", "other"),
            ".holon/protect": "secret.txt\n"}


def guess(line: str, path: str = "x.txt") -> str:
    """A hunk for ``path`` that misses it; ``line`` is the guess of a secret line."""
    return (f"--- a/{path}\n+++ b/{path}\n@@ -3,3 +3,3 @@\n secret 3\n-{line}\n+changed\n"
            " secret 5\n")


def forge(repo: Path, path: str, blob: str, **more: object) -> None:
    line = {"time": round(time.time(), 3), "path": path, "blob": blob, **more}
    with open(repo / ".git" / history.LOG_NAME, "a") as log:
        log.write(json.dumps(line) + "\n")


def blob_of(repo: Path, spec: str) -> str:
    return git(repo, "rev-parse", spec).strip()


def answers(repo: Path, path: str = "x.txt") -> set[str]:
    codes = set()
    for line in ("secret 4", "wrong 4"):
        receipt = apply_patch(guess(line, path), repo, check=True)
        assert receipt.error is not None
        assert "swordfish" not in receipt.to_json()
        codes.add(receipt.error.code)
        result = answer(CHECK, check_arguments(CHECK, {"patch": guess(line, path)}), str(repo))
        codes.add(result.structured["error"]["code"])
    return codes


def test_a_protected_blob_logged_for_another_path_is_no_base(repo: Path):
    forge(repo, "x.txt", blob_of(repo, "HEAD:secret.txt"))
    assert answers(repo) == {"context_not_found"}


def test_a_forged_proof_is_no_base(repo: Path):
    secret = blob_of(repo, "HEAD:secret.txt")
    forge(repo, "x.txt", secret, proof="0" * 64)
    forge(repo, "x.txt", secret, deleted="100644", proof="0" * 64)
    assert answers(repo) == {"context_not_found"}


def test_another_paths_blob_and_a_stash_are_no_base(repo: Path):
    forge(repo, "x.txt", blob_of(repo, "HEAD:other.txt"))
    (repo / "x.txt").write_text(SECRET)
    git(repo, "stash")
    forge(repo, "x.txt", blob_of(repo, "stash@{0}:x.txt"))
    assert apply_patch(guess("secret 4"), repo, check=True).error.code == "context_not_found"
    assert apply_patch(guess("other 4"), repo, check=True).error.code == "context_not_found"


def test_a_proof_of_protected_content_is_still_no_base(repo: Path):
    """A writer who had the protected content could prove it: still never a base."""
    secret = blob_of(repo, "HEAD:secret.txt")
    forge(repo, "x.txt", secret, proof=history.preimage_proof("x.txt", SECRET.encode()))
    assert answers(repo) == {"context_not_found"}


def test_a_genuine_logged_pre_image_is_still_a_base(repo: Path):
    """The path's own pre-image, logged by an apply, still rescues a patch written against
    it (the merge of a later edit)."""
    edit = "--- a/x.txt\n+++ b/x.txt\n@@ -1,3 +1,3 @@\n-note 1\n+NOTE 1\n note 2\n note 3\n"
    assert apply_patch(edit, repo).ok
    (repo / "x.txt").write_text((repo / "x.txt").read_text().replace("note 8", "NOTE 8"))
    stale = "--- a/x.txt\n+++ b/x.txt\n@@ -1,3 +1,3 @@\n-note 1\n+first\n note 2\n note 3\n"
    receipt = apply_patch(stale, repo, check=True)
    assert receipt.error is not None and receipt.error.code == "merge_conflict", \
        receipt.to_json()
    entries = history.read(str(repo / ".git"))
    assert entries[-1].proof == history.preimage_proof("x.txt", NOTES.encode())


def test_an_index_line_naming_the_forged_blob_is_no_base(repo: Path):
    """The patch's `index` line names the blob the forged line logged: before, a logged
    blob was one of the path's own versions for that line too."""
    secret = blob_of(repo, "HEAD:secret.txt")
    forge(repo, "x.txt", secret)
    codes = set()
    for line in ("secret 4", "wrong 4"):
        patch = (f"diff --git a/x.txt b/x.txt\nindex {secret[:12]}..1234567 100644\n"
                 + guess(line))
        receipt = apply_patch(patch, repo, check=True)
        assert receipt.error is not None and "swordfish" not in receipt.to_json()
        codes.add(receipt.error.code)
    assert codes == {"context_not_found"}
