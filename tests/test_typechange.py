"""A file and a directory trading places in one patch (git's type changes): delete `p` and
add `p/inner.txt`, or delete everything below `p/` and add a file `p`. git apply takes both;
so does every target here, all or nothing, with the patch git itself writes. Anything else in
the way is still refused.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from repos.builders import git, git_state, make_repo, repo_and_git_patch, snapshot

from holon_git import apply_patch, check_patch
from holon_git.fs import journal_dir

FILE_TO_DIR = ({"p": "a file\n", "k": "keep\n"},
               {"p/inner.txt": "now a directory\n", "p/deep/more.txt": "more\n", "k": "keep\n"})
DIR_TO_FILE = ({"p/inner.txt": "a directory\n", "p/deep/more.txt": "more\n", "k": "keep\n"},
               {"p": "now a file\n", "k": "keep\n"})
CASES = pytest.mark.parametrize("old, new", [FILE_TO_DIR, DIR_TO_FILE],
                                ids=["file-to-dir", "dir-to-file"])


def applied_by_git(tmp_path: Path, repo: Path, patch: bytes, *args: str) -> Path:
    twin = tmp_path / "git-twin"
    shutil.copytree(repo, twin, symlinks=True)
    git(twin, "update-index", "-q", "--refresh", check=False)  # the copy has new stat data
    git(twin, "apply", *args, input=patch)
    return twin


@CASES
def test_working_tree(tmp_path: Path, old: dict, new: dict) -> None:
    repo, patch = repo_and_git_patch(tmp_path / "r", old, new)
    want = snapshot(applied_by_git(tmp_path, repo, patch))
    assert check_patch(patch, repo).ok
    receipt = apply_patch(patch, repo)
    assert receipt.ok, receipt.error
    assert snapshot(repo) == want
    assert not journal_dir.pending(str(repo / ".git"))


@CASES
@pytest.mark.parametrize("target, git_args", [("index", ["--cached"]), ("both", ["--index"])])
def test_index_targets(tmp_path: Path, old: dict, new: dict, target: str,
                       git_args: list[str]) -> None:
    repo, patch = repo_and_git_patch(tmp_path / "r", old, new)
    twin = applied_by_git(tmp_path, repo, patch, *git_args)
    assert apply_patch(patch, repo, target=target).ok
    assert git(repo, "write-tree") == git(twin, "write-tree")
    assert snapshot(repo) == snapshot(twin)


@CASES
def test_commit_and_ref(tmp_path: Path, old: dict, new: dict) -> None:
    repo, patch = repo_and_git_patch(tmp_path / "r", old, new)
    twin = applied_by_git(tmp_path, repo, patch, "--cached")
    want = git(twin, "write-tree")
    assert apply_patch(patch, repo, ref="main", message="type change").ok
    assert git(repo, "rev-parse", "main^{tree}") == want
    git(repo, "reset", "-q", "--hard", "main~1")
    assert apply_patch(patch, repo, commit=True, message="type change").ok
    assert git(repo, "rev-parse", "HEAD^{tree}") == want
    assert git(repo, "status", "--porcelain") == ""


@CASES
def test_reversed(tmp_path: Path, old: dict, new: dict) -> None:
    repo, patch = repo_and_git_patch(tmp_path / "r", old, new)
    before = snapshot(repo)
    assert apply_patch(patch, repo).ok
    assert apply_patch(patch, repo, reverse=True).ok
    assert snapshot(repo) == before


def test_a_file_kept_on_the_way_is_still_refused(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "r", {"p": "stays\n"})
    patch = "--- /dev/null\n+++ b/p/inner.txt\n@@ -0,0 +1 @@\n+x\n"
    for target in ("worktree", "index", "both"):
        receipt = apply_patch(patch, repo, target=target)
        assert receipt.error is not None and receipt.error.code == "already_exists", target
    assert (repo / "p").read_text() == "stays\n"


@pytest.mark.parametrize("extra", ["untracked", "tracked"])
def test_a_directory_the_patch_does_not_empty_is_still_refused(tmp_path: Path, extra: str):
    files = {"p/inner.txt": "a\n"}
    if extra == "tracked":
        files["p/other.txt"] = "b\n"
    repo = make_repo(tmp_path / "r", files)
    if extra == "untracked":
        (repo / "p" / "scratch.log").write_text("not in git\n")
    before, state = snapshot(repo), git_state(repo)
    patch = ("--- a/p/inner.txt\n+++ /dev/null\n@@ -1 +0,0 @@\n-a\n"
             "--- /dev/null\n+++ b/p\n@@ -0,0 +1 @@\n+file\n")
    targets = ["worktree", "both"] + (["index"] if extra == "tracked" else [])
    for target in targets:
        receipt = apply_patch(patch, repo, target=target)
        assert receipt.error is not None and receipt.error.code in (
            "already_exists", "not_a_regular_file"), (target, receipt.error)
        assert snapshot(repo) == before and git_state(repo) == state


def test_renames_trade_a_file_and_a_directory(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "r", {"p": "one\n", "q/x": "two\n"})
    patch = ("diff --git a/p b/p/moved\nsimilarity index 100%\nrename from p\nrename to p/moved\n"
             "diff --git a/q/x b/q\nsimilarity index 100%\nrename from q/x\nrename to q\n")
    assert apply_patch(patch, repo).ok
    assert (repo / "p" / "moved").read_text() == "one\n"
    assert (repo / "q").read_text() == "two\n"
