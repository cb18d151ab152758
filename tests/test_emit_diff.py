"""--emit-diff: the canonical git diff of what was applied, compared with git's own diff."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from gitsupport import applied, git_apply, refused, twin
from repos.builders import git, index_entries, make_bare_repo, make_crlf_repo, snapshot

from holon_git import apply_patch

SCRIPT = "#!/bin/sh\necho a\necho b\necho c\necho d\necho hi\n"
FILES = {"f.txt": "".join(f"{i}\n" for i in range(1, 31)), "keep.txt": "keep\n",
         "run.sh": SCRIPT, "m.py": "def f():\n    x = 1\n    y = 2\n    z = 3\n    return x\n"}
# Wrong line numbers, short context: the emitted diff must carry the true ones and full context.
PATCH = """\
--- a/f.txt
+++ b/f.txt
@@ -3,3 +3,3 @@
 1
-2
+two
 3
@@ -40,2 +40,3 @@
 21
+21.5
 22
--- a/m.py
+++ b/m.py
@@ -1,2 +1,2 @@
     y = 2
-    z = 3
+    z = 4
--- /dev/null
+++ b/new.txt
@@ -0,0 +1 @@
+new
--- a/keep.txt
+++ /dev/null
@@ -1 +0,0 @@
-keep
diff --git a/run.sh b/bin/run.sh
similarity index 80%
rename from run.sh
rename to bin/run.sh
--- a/run.sh
+++ b/bin/run.sh
@@ -5,2 +5,2 @@
 echo d
-echo hi
+echo hello
"""


@pytest.fixture
def repo_files() -> dict[str, str | bytes]:
    """What the shared `repo` fixture (conftest.py) commits for this module."""
    return FILES


@pytest.fixture
def repo_executable() -> set[str]:
    return {"run.sh"}


def without_similarity(diff: bytes) -> bytes:
    # git and libgit2 estimate a rename's similarity differently; everything else must agree.
    return re.sub(rb"(?m)^similarity index \d+%\n", b"", diff)


def test_index_diff_equals_git_diff_cached(repo: Path):
    receipt = applied(repo, PATCH, target="both", emit_diff=True)
    assert receipt.diff is not None
    ours = receipt.diff
    theirs = git(repo, "diff", "--cached", "-M", "HEAD").encode()
    assert without_similarity(ours) == without_similarity(theirs)
    assert b"@@ -1,5 +1,5 @@\n 1\n-2\n+two\n" in ours, "true line numbers and full context"
    assert re.search(rb"(?m)^index [0-9a-f]{7}\.\.[0-9a-f]{7} 100755$", ours), "real index line"


def test_ref_diff_equals_git_diff_of_the_commit(tmp_path: Path):
    bare = make_bare_repo(tmp_path / "b.git", FILES, executable={"run.sh"})
    receipt = applied(bare, PATCH, ref="main", message="edit", emit_diff=True)
    theirs = git(bare, "diff", "-M", "main~1", "main").encode()
    assert receipt.diff is not None
    assert without_similarity(receipt.diff) == without_similarity(theirs)


def test_worktree_diff_replays_to_the_same_result(repo: Path):
    other = twin(repo)
    receipt = applied(repo, PATCH, emit_diff=True)
    assert receipt.diff is not None
    git_apply(other, receipt.diff)  # strict git apply: exact line numbers, exact context
    assert snapshot(other) == snapshot(repo)
    git_apply(repo, receipt.diff, "-R", "--check")


def test_check_emits_the_diff_and_writes_nothing(repo: Path):
    files, entries = snapshot(repo), index_entries(repo)
    checked = applied(repo, PATCH, target="both", check=True, emit_diff=True)
    assert snapshot(repo) == files and index_entries(repo) == entries
    done = applied(repo, PATCH, target="both", emit_diff=True)
    assert checked.diff == done.diff


def test_a_refused_patch_emits_nothing(repo: Path):
    stale = PATCH.replace("-keep", "-kept")
    refused(repo, stale, "content_mismatch", emit_diff=True)
    receipt = apply_patch(stale, repo, emit_diff=True)
    assert receipt.diff is None


def test_diff_is_not_part_of_the_json_receipt(repo: Path):
    receipt = applied(repo, PATCH, emit_diff=True)
    assert "diff" not in receipt.to_dict() and b"+two" not in receipt.to_json().encode()


def test_without_emit_diff_there_is_no_diff(repo: Path):
    assert applied(repo, PATCH).diff is None


def test_pure_rename(repo: Path):
    patch = ("diff --git a/m.py b/lib/m.py\nsimilarity index 100%\nrename from m.py\n"
             "rename to lib/m.py\n")
    receipt = applied(repo, patch, target="both", emit_diff=True)
    assert receipt.diff == git(repo, "diff", "--cached", "-M", "HEAD").encode()


def test_crlf_index_diff_is_of_the_blobs(tmp_path: Path):
    repo = make_crlf_repo(tmp_path / "crlf", {"doc.txt": "one\ntwo\nthree\n"})
    edit = "--- a/doc.txt\n+++ b/doc.txt\n@@ -1,3 +1,3 @@\n one\n-two\n+TWO\n three\n"
    receipt = applied(repo, edit, target="both", emit_diff=True)
    assert receipt.diff == git(repo, "diff", "--cached").encode()
    assert b"\r" not in receipt.diff
