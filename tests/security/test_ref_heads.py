"""--ref reads which branch is checked out as git does (issue 42, items 4, 5, 13 and 17).

Item 4: opened from the git directory (`--repo .git`, or a working directory inside `.git`),
the repository has no working tree of its own, and `--ref main` moved the branch the main
tree has checked out, leaving its index and files behind; `git branch -f` refuses. Item 5: a
linked worktree's HEAD written as a symbolic link (`core.preferSymlinkRefs`) or as
`ref:refs/heads/X` (no space) was not read as naming the branch, so `--ref X` from another
working tree moved it. Item 13: a branch name that is not UTF-8 ended in a traceback. Item 17:
`--ref NEW --base REV` for the unborn branch checked out here said the branch exists.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest
from clisupport import holon
from gitsupport import applied, everything, refused
from repos.builders import git, git_env

MODIFY = "--- a/f.txt\n+++ b/f.txt\n@@ -1,3 +1,3 @@\n one\n-two\n+TWO\n three\n"


@pytest.fixture
def repo_files() -> dict[str, str | bytes]:
    """What the shared `repo` fixture (conftest.py) commits for this module."""
    return {"f.txt": "one\ntwo\nthree\n"}


def _git_refuses_to_move(where: Path, branch: str) -> bool:
    """Does `git branch -f BRANCH HEAD` run in ``where`` refuse (moving nothing)?"""
    run = subprocess.run(["git", "branch", "-f", branch, "HEAD"], cwd=where, env=git_env(),
                         capture_output=True, text=True)
    return run.returncode != 0 and "cannot force update" in run.stderr


@pytest.mark.parametrize("where", [".git", ".git/refs/heads"], ids=["dot_git", "inside"])
def test_the_main_trees_branch_is_held_when_opened_from_its_git_directory(repo: Path,
                                                                          where: str):
    err = refused(repo / where, MODIFY, "uncommitted_changes", ref="main", message="m",
                  state=lambda: (everything(repo), git(repo, "for-each-ref")))
    assert err.details == {"ref": "refs/heads/main", "worktree": str(repo),
                           "state": "checked out"}
    assert _git_refuses_to_move(repo / where, "main")


def test_from_the_git_directory_another_branch_still_moves(repo: Path):
    git(repo, "branch", "side")
    applied(repo / ".git", MODIFY, ref="side", message="not checked out anywhere")
    assert git(repo, "show", "side:f.txt") == "one\nTWO\nthree\n"
    assert (repo / "f.txt").read_text() == "one\ntwo\nthree\n"


def test_a_linked_worktrees_admin_directory_holds_its_branch(repo: Path, tmp_path: Path):
    git(repo, "worktree", "add", "-q", "-b", "side", str(tmp_path / "linked"))
    admin = repo / ".git" / "worktrees" / "linked"
    err = refused(admin, MODIFY, "uncommitted_changes", ref="side", message="m",
                  state=lambda: (everything(tmp_path / "linked"), git(repo, "for-each-ref")))
    assert err.details["worktree"] == str(tmp_path / "linked")


def test_a_bare_repositorys_head_branch_still_moves(repo: Path, tmp_path: Path):
    bare = tmp_path / "bare.git"
    git(tmp_path, "clone", "-q", "--bare", str(repo), str(bare))
    applied(bare, MODIFY, ref="main", message="no working tree holds it")
    assert git(bare, "show", "main:f.txt") == "one\nTWO\nthree\n"


def _symlinked_head(admin: Path, branch: str) -> None:
    """HEAD as git writes it with core.preferSymlinkRefs: a link whose text is the ref."""
    (admin / "HEAD").unlink()
    os.symlink(f"refs/heads/{branch}", admin / "HEAD")


def _head_without_space(admin: Path, branch: str) -> None:
    (admin / "HEAD").write_text(f"ref:refs/heads/{branch}\n")


def _head_with_blanks(admin: Path, branch: str) -> None:
    (admin / "HEAD").write_text(f"ref: \t refs/heads/{branch}  \n")


@pytest.mark.parametrize("write_head", [_symlinked_head, _head_without_space, _head_with_blanks],
                         ids=["symlink", "no_space", "blanks"])
def test_a_linked_worktrees_head_is_read_as_git_reads_it(repo: Path, tmp_path: Path,
                                                         write_head):
    linked = tmp_path / "linked"
    git(repo, "worktree", "add", "-q", "-b", "side", str(linked))
    write_head(repo / ".git" / "worktrees" / "linked", "side")
    assert git(linked, "symbolic-ref", "HEAD").strip() == "refs/heads/side"  # git reads it
    err = refused(repo, MODIFY, "uncommitted_changes", ref="side", message="m",
                  state=lambda: (everything(linked), everything(repo),
                                 git(repo, "for-each-ref")))
    assert err.details["worktree"] == str(linked)
    assert _git_refuses_to_move(repo, "side")


def test_git_writes_a_symlinked_head_with_prefer_symlink_refs(repo: Path, tmp_path: Path):
    """The symlink case as git itself makes it, not only as the test writes it."""
    linked = tmp_path / "linked"
    git(repo, "-c", "core.preferSymlinkRefs=true", "worktree", "add", "-q", "-b", "side",
        str(linked))
    if not (repo / ".git" / "worktrees" / "linked" / "HEAD").is_symlink():
        pytest.skip("this git writes no symbolic-link HEAD")
    refused(repo, MODIFY, "uncommitted_changes", ref="side", message="m",
            state=lambda: (everything(linked), git(repo, "for-each-ref")))


NOT_UTF8 = os.fsdecode(b"topic-\xff")


def test_a_branch_name_that_is_not_utf8_is_a_usage_error(repo: Path):
    err = refused(repo, MODIFY, "usage_error", ref=NOT_UTF8, message="m")
    assert "not UTF-8" in err.message and "\\xff" in err.message
    assert err.details["fields"] == ["ref"]
    refused(repo, MODIFY, "usage_error", ref="topic", base=NOT_UTF8, message="m")
    refused(repo, MODIFY, "usage_error", ref="x\ud800", message="a lone surrogate")


def test_a_branch_name_that_is_not_utf8_on_the_command_line(repo: Path, tmp_path: Path):
    patch = tmp_path / "p.diff"
    patch.write_text(MODIFY)
    before = everything(repo)
    ran = holon(repo, "--ref", NOT_UTF8, "-m", "m", str(patch))
    assert ran.returncode == 2, ran.stderr
    assert "error: usage_error: --ref 'topic-\\xff' is not UTF-8" in ran.stderr
    assert "Traceback" not in ran.stderr
    assert everything(repo) == before


def test_base_for_the_unborn_branch_checked_out_here_does_not_say_it_exists(repo: Path):
    git(repo, "checkout", "-q", "--orphan", "fresh")
    err = refused(repo, MODIFY, "usage_error", ref="fresh", base="main", message="m",
                  state=lambda: (everything(repo), git(repo, "for-each-ref")))
    assert "exists" not in err.message
    assert "has no commit yet and is checked out here" in err.message
    assert "drop --base" in err.hint


def test_this_working_trees_symlinked_head_holds_its_branch(repo: Path):
    """libgit2 follows a symbolic-link HEAD to the commit and sees no branch: the branch it
    names is still checked out here, as git reads it."""
    _symlinked_head(repo / ".git", "main")
    assert git(repo, "symbolic-ref", "HEAD").strip() == "refs/heads/main"
    err = refused(repo, MODIFY, "uncommitted_changes", ref="main", message="m",
                  state=lambda: (everything(repo), git(repo, "for-each-ref")))
    assert "symbolic link" in err.message
    assert _git_refuses_to_move(repo, "main")
    git(repo, "-c", "core.preferSymlinkRefs=false", "symbolic-ref", "HEAD", "refs/heads/main")
    applied(repo, MODIFY, ref="main", message="as the hint says")
    assert (repo / "f.txt").read_text() == "one\nTWO\nthree\n"  # moved with its tree
