"""--ref (targets/refs.py): the checked-out branch moves with its index and working tree, as
git's receive.denyCurrentBranch=updateInstead; --base creates a branch; flags that conflict."""

from __future__ import annotations

from pathlib import Path

from clisupport import holon
from gitsupport import applied, everything, git_apply, head, refused, twin
from repos.builders import git, index_entries, make_bare_repo, make_repo, snapshot, tree_entries

BASE = "".join(f"line {i}\n" for i in range(1, 21))
FILES = {"f.txt": BASE, "keep.txt": "untouched\n", "other.txt": "other\n"}
MODIFY = "--- a/f.txt\n+++ b/f.txt\n@@ -5,3 +5,3 @@\n line 5\n-line 6\n+line six\n line 7\n"
ADD = "--- /dev/null\n+++ b/src/new.py\n@@ -0,0 +1 @@\n+print('new')\n"
DELETE = "--- a/keep.txt\n+++ /dev/null\n@@ -1 +0,0 @@\n-untouched\n"
PATCH = MODIFY + ADD + DELETE


def make(tmp_path: Path) -> Path:
    return make_repo(tmp_path / "repo", FILES)


def test_the_checked_out_branch_moves_with_its_index_and_working_tree(tmp_path: Path):
    repo = make(tmp_path)
    by_git = twin(repo)
    git_apply(by_git, PATCH, "--index")
    git(by_git, "commit", "-q", "-m", "by git")
    parent = head(repo)
    receipt = applied(repo, PATCH, ref="main", message="bot: fix")
    assert receipt.target == "ref" and receipt.parent == parent
    assert head(repo) == head(repo, "main") == receipt.commit
    assert head(repo, "HEAD^{tree}") == head(by_git, "HEAD^{tree}")
    assert snapshot(repo) == snapshot(by_git) and index_entries(repo) == index_entries(by_git)
    assert git(repo, "status", "--porcelain") == ""
    assert not receipt.diagnostics


def test_changes_to_paths_the_patch_does_not_touch_stay_as_they_were(tmp_path: Path):
    repo = make(tmp_path)
    (repo / "other.txt").write_text("edited, unstaged\n")
    (repo / "notes.txt").write_text("untracked\n")
    git(repo, "add", "notes.txt")
    applied(repo, MODIFY, ref="main", message="m")
    assert git(repo, "status", "--porcelain") == "A  notes.txt\n M other.txt\n"
    assert (repo / "f.txt").read_text() == BASE.replace("line 6\n", "line six\n")
    assert "notes.txt" not in tree_entries(repo, "main")


def test_a_touched_path_that_is_not_clean_is_refused(tmp_path: Path):
    repo = make(tmp_path)
    (repo / "f.txt").write_text(BASE + "more\n")  # modified in the working tree
    err = refused(repo, MODIFY, "uncommitted_changes", ref="main", message="m")
    assert err.path == "f.txt" and "refs/heads/main is checked out here" in err.message
    git(repo, "add", "f.txt")  # staged
    refused(repo, MODIFY, "uncommitted_changes", ref="main", message="m")
    git(repo, "reset", "-q", "--hard")
    (repo / "src").mkdir()
    (repo / "src" / "new.py").write_text("mine\n")  # untracked, where the patch adds a file
    err = refused(repo, ADD, "uncommitted_changes", ref="main", message="m")
    assert err.path == "src/new.py"
    git(repo, "rm", "-q", "--cached", "keep.txt")  # a deletion staged by hand
    refused(repo, DELETE, "uncommitted_changes", ref="main", message="m")


def test_check_needs_no_message_and_writes_nothing(tmp_path: Path):
    repo = make(tmp_path)
    before = everything(repo)
    receipt = applied(repo, PATCH, ref="main", check=True)
    assert receipt.status == "checked" and everything(repo) == before
    done = holon(repo, "--ref", "main", "--check", "-", stdin=PATCH)
    assert done.returncode == 0 and done.stdout.startswith("Would apply 3 files"), done.stderr
    bare = make_bare_repo(tmp_path / "b.git", FILES)
    assert holon(bare, "--ref", "main", "--check", "-", stdin=PATCH).returncode == 0


def test_commit_and_ref_together_are_a_usage_error(tmp_path: Path):
    repo = make(tmp_path)
    refused(repo, MODIFY, "usage_error", commit=True, ref="main", message="m")
    done = holon(repo, "--commit", "--ref", "main", "-m", "m", "-", stdin=MODIFY)
    assert done.returncode == 2
    assert "--commit" in done.stderr and "--ref" in done.stderr


def test_base_creates_the_branch_at_a_revision(tmp_path: Path):
    repo = make(tmp_path)
    start = head(repo)
    git(repo, "commit", "-q", "--allow-empty", "-m", "later")
    before = snapshot(repo)
    receipt = applied(repo, MODIFY, ref="topic", base=start, message="topic fix")
    assert head(repo, "topic") == receipt.commit and receipt.parent == start
    assert git(repo, "rev-parse", "topic~1") == start + "\n"
    assert snapshot(repo) == before  # not checked out: nothing else moved
    done = holon(repo, "--ref", "t2", "--base", "main~1", "-m", "m", "-", stdin=MODIFY)
    assert done.returncode == 0 and head(repo, "t2~1") == start, done.stderr


def test_base_misuses_are_usage_errors(tmp_path: Path):
    repo = make(tmp_path)
    git(repo, "branch", "topic")
    err = refused(repo, MODIFY, "usage_error", ref="topic", base="main", message="m")
    assert "exists already" in err.message
    refused(repo, MODIFY, "usage_error", ref="new", base="no-such-rev", message="m")
    refused(repo, MODIFY, "usage_error", base="main")  # without --ref
    err = refused(repo, MODIFY, "usage_error", ref="new", message="m")  # no --base
    assert "--base" in err.hint


def test_a_branch_checked_out_in_another_worktree_is_refused(tmp_path: Path):
    repo = make(tmp_path)
    git(repo, "branch", "side")
    other = tmp_path / "other"
    git(repo, "worktree", "add", "-q", str(other), "side")
    err = refused(repo, MODIFY, "uncommitted_changes", ref="side", message="m")
    assert str(other) in err.message and f"--repo {other}" in err.hint
    receipt = applied(other, MODIFY, ref="side", message="there")  # there, it moves with both
    assert head(other) == receipt.commit and git(other, "status", "--porcelain") == ""
    err = refused(other, MODIFY.replace("line 6", "line 7"), "uncommitted_changes", ref="main",
                  message="m")  # and the main worktree's branch from the other one
    assert str(repo) in err.message
