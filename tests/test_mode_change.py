"""'old mode 100644' / 'new mode 100755' with a content change: the content applies and the
file takes the new mode, as `git apply` gives it, on every target (the working tree's execute
bits through the transaction; the entry mode in the index, a commit and a branch); -R gives
the old mode back."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest
from clisupport import holon
from gitsupport import applied, git_apply, twin
from repos.builders import git


@pytest.fixture
def repo_files() -> dict[str, str]:
    return {"run.sh": "echo one\necho two\n", "f.txt": "a\n"}


MODE_AND_CONTENT = ("diff --git a/run.sh b/run.sh\nold mode 100644\nnew mode 100755\n"
                    "index 1111111..2222222\n--- a/run.sh\n+++ b/run.sh\n"
                    "@@ -1,2 +1,2 @@\n echo one\n-echo two\n+echo TWO\n")
RENAMED = ("diff --git a/run.sh b/bin/run\nold mode 100644\nnew mode 100755\n"
           "similarity index 80%\nrename from run.sh\nrename to bin/run\n--- a/run.sh\n"
           "+++ b/bin/run\n@@ -1,2 +1,2 @@\n echo one\n-echo two\n+echo TWO\n")


def _executable(path: Path) -> bool:
    return bool(path.stat().st_mode & stat.S_IXUSR)


def _entry_mode(repo: Path, path: str, tree: str | None = None) -> str:
    """The mode of ``path``'s entry in the index, or in ``tree`` (a commit or branch)."""
    listed = git(repo, "ls-tree", tree, "--", path) if tree else \
        git(repo, "ls-files", "-s", "--", path)
    return listed.split()[0]


@pytest.mark.parametrize("patch,path", [(MODE_AND_CONTENT, "run.sh"), (RENAMED, "bin/run")])
def test_the_working_tree_file_takes_the_new_mode_as_git_gives_it(repo: Path, patch: str,
                                                                    path: str):
    other = twin(repo)
    receipt = applied(repo, patch)
    git_apply(other, patch)
    assert _executable(repo / path) and _executable(other / path)
    assert os.stat(repo / path).st_mode == os.stat(other / path).st_mode
    assert (repo / path).read_text() == (other / path).read_text() == "echo one\necho TWO\n"
    assert receipt.files[0].ignored_metadata == [
        line for line in receipt.files[0].ignored_metadata if "mode" not in line]
    applied(repo, patch, reverse=True)
    assert not _executable(repo / "run.sh")
    assert (repo / "run.sh").read_text() == "echo one\necho two\n"


@pytest.mark.parametrize("target,flag", [("index", "--cached"), ("both", "--index")])
def test_the_index_entry_takes_the_new_mode(repo: Path, target: str, flag: str):
    other = twin(repo)
    applied(repo, MODE_AND_CONTENT, target=target)
    git_apply(other, MODE_AND_CONTENT, flag)
    assert _entry_mode(repo, "run.sh") == _entry_mode(other, "run.sh") == "100755"
    assert _executable(repo / "run.sh") == _executable(other / "run.sh") == (target == "both")
    applied(repo, MODE_AND_CONTENT, target=target, reverse=True)
    assert _entry_mode(repo, "run.sh") == "100644"
    assert not _executable(repo / "run.sh")


def test_a_commit_and_a_branch_take_the_new_mode(repo: Path):
    receipt = applied(repo, MODE_AND_CONTENT, commit=True, message="exec")
    assert _entry_mode(repo, "run.sh", "HEAD") == "100755" and _executable(repo / "run.sh")
    assert receipt.extra["commit"] == git(repo, "rev-parse", "HEAD").strip()
    applied(repo, MODE_AND_CONTENT, commit=True, message="back", reverse=True)
    assert _entry_mode(repo, "run.sh", "HEAD") == "100644"
    git(repo, "branch", "side", "HEAD~2")
    applied(repo, MODE_AND_CONTENT, ref="side", message="exec on side")
    assert _entry_mode(repo, "run.sh", "side") == "100755"
    applied(repo, MODE_AND_CONTENT, ref="side", message="back on side", reverse=True)
    assert _entry_mode(repo, "run.sh", "side") == "100644"


def test_ref_of_the_checked_out_branch_moves_the_mode_with_its_index_and_files(repo: Path):
    applied(repo, MODE_AND_CONTENT, ref="main", message="exec")
    assert _entry_mode(repo, "run.sh", "main") == _entry_mode(repo, "run.sh") == "100755"
    assert _executable(repo / "run.sh") and git(repo, "status", "--porcelain") == ""
    applied(repo, MODE_AND_CONTENT, ref="main", message="back", reverse=True)
    assert _entry_mode(repo, "run.sh", "main") == _entry_mode(repo, "run.sh") == "100644"
    assert not _executable(repo / "run.sh") and git(repo, "status", "--porcelain") == ""


def test_the_command_line_applies_the_mode(repo: Path):
    done = holon(repo, "--emit-diff", "-", "-", stdin=MODE_AND_CONTENT)
    assert done.returncode == 0, done.stderr
    assert _executable(repo / "run.sh")
    assert git(repo, "diff", "--summary") == " mode change 100644 => 100755 run.sh\n"
    assert done.stdout == git(repo, "diff")  # --emit-diff says so as git diff does
