"""--ref refuses a branch another working tree holds, as `git branch -f` does (issue 35, items 2
and 3).

Item 2: the "checked out elsewhere" check looked at the main working tree only when the common
directory was named `.git`, so from a linked worktree of a `--separate-git-dir` or
`core.worktree` repository `--ref main` moved the branch checked out in the main tree; that
tree then showed the patch reversed as staged. Item 3: a branch being rebased (HEAD detached by
`git rebase`) or bisected counts as checked out for git; `--ref` committed onto it and
`git rebase --abort` dropped the commit. Each case is refused with `uncommitted_changes`,
nothing changed, where git's own `git branch -f` refuses too.
"""

from __future__ import annotations

import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest
from gitsupport import applied, everything, refused
from layouts import Layout, core_worktree, separate
from repos.builders import git, git_env

MODIFY = "--- a/f.txt\n+++ b/f.txt\n@@ -1,3 +1,3 @@\n one\n-two\n+TWO\n three\n"


@pytest.fixture
def repo_files() -> dict[str, str | bytes]:
    """What the shared `repo` fixture (conftest.py) commits for this module."""
    return {"f.txt": "one\ntwo\nthree\n", "g.txt": "g\n"}


def tip(where: Path, branch: str = "main") -> str:
    return git(where, "rev-parse", branch).strip()


def everything_and_tips(where: Path, layout: Layout | None = None) -> Callable[[], object]:
    return lambda: (everything(where), layout.state() if layout else None,
                    git(where, "for-each-ref"))


@pytest.mark.parametrize("make", [separate, core_worktree], ids=["separate", "core_worktree"])
def test_a_main_tree_whose_git_dir_is_not_dot_git_holds_its_branch(tmp_path: Path,
                                                                   make: Callable[[Path], Layout]):
    layout = make(tmp_path / "sentinel")
    linked = tmp_path / "sentinel" / "linked"
    git(layout.tree, "worktree", "add", "-q", "-b", "side", str(linked), env=layout.env)
    main_tip = tip(linked)
    err = refused(linked, MODIFY, "uncommitted_changes", ref="main", message="m",
                  state=everything_and_tips(linked, layout))
    assert err.details["state"] == "checked out"
    assert tip(linked) == main_tip
    assert "cannot force update" in _stderr_of_branch_f(linked)  # git refuses it too
    applied(linked, MODIFY, ref="side", message="its own branch still moves")


def _stderr_of_branch_f(where: Path, branch: str = "main") -> str:
    """What `git branch -f BRANCH HEAD` says here (it moves nothing when it refuses)."""
    return subprocess.run(["git", "branch", "-f", branch, "HEAD"], cwd=where, env=git_env(),
                          capture_output=True, text=True).stderr


def _commits(repo: Path) -> None:
    for n in (2, 3):
        (repo / "g.txt").write_text(f"g{n}\n")
        git(repo, "commit", "-q", "-am", f"g{n}")


def rebase_interactive(repo: Path) -> None:
    """`git rebase -i` stopped at an `edit`: HEAD detached, rebase-merge/head-name."""
    git(repo, "-c", "sequence.editor=sed -i s/^pick/edit/", "rebase", "-q", "-i", "HEAD~1")


def rebase_apply(repo: Path) -> None:
    """`git rebase --apply` stopped on a conflict: rebase-apply/head-name."""
    git(repo, "branch", "other", "HEAD~1")
    git(repo, "checkout", "-q", "other")
    (repo / "g.txt").write_text("other\n")
    git(repo, "commit", "-q", "-am", "other")
    git(repo, "checkout", "-q", "main")
    git(repo, "rebase", "--apply", "other", check=False)
    assert (repo / ".git" / "rebase-apply" / "head-name").is_file()


def bisect(repo: Path) -> None:
    """`git bisect start BAD GOOD`: HEAD detached on a commit between, BISECT_START."""
    git(repo, "bisect", "start", "HEAD", "HEAD~2")


@pytest.mark.parametrize("how", [rebase_interactive, rebase_apply, bisect],
                         ids=["rebase_i", "rebase_apply", "bisect"])
def test_a_branch_being_rebased_or_bisected_counts_as_checked_out(repo: Path, tmp_path: Path,
                                                                  how: Callable[[Path], None]):
    _commits(repo)
    how(repo)
    assert git(repo, "symbolic-ref", "-q", "HEAD", check=False) == ""  # detached
    main_tip = tip(repo)
    expected = "being bisected" if how is bisect else "being rebased"
    err = refused(repo, MODIFY, "uncommitted_changes", ref="main", message="m",
                  state=everything_and_tips(repo))
    assert err.details["state"] == expected and err.details["worktree"] == str(repo)
    assert "cannot force update" in _stderr_of_branch_f(repo)  # git refuses it too
    linked = tmp_path / "linked"  # and from another working tree of the repository
    git(repo, "worktree", "add", "-q", "-b", "side", str(linked), "HEAD")
    refused(linked, MODIFY, "uncommitted_changes", ref="main", message="m",
            state=everything_and_tips(linked))
    assert tip(repo) == main_tip


def test_a_branch_rebase_update_refs_will_move_is_held_too(repo: Path):
    """`git rebase -i --update-refs` lists in rebase-merge/update-refs the other branches it
    will move when it ends: git counts them as checked out."""
    (repo / "g.txt").write_text("g2\n")
    git(repo, "commit", "-q", "-am", "g2")
    git(repo, "branch", "stacked")
    (repo / "g.txt").write_text("g3\n")
    git(repo, "commit", "-q", "-am", "g3")
    git(repo, "-c", "sequence.editor=sed -i s/^pick/edit/", "rebase", "-q", "-i",
        "--update-refs", "HEAD~2")
    assert "refs/heads/stacked" in (repo / ".git" / "rebase-merge" / "update-refs").read_text()
    err = refused(repo, MODIFY, "uncommitted_changes", ref="stacked", message="m",
                  state=everything_and_tips(repo))
    assert err.details["state"] == "being rebased"
    assert "cannot force update" in _stderr_of_branch_f(repo, "stacked")


def test_once_the_rebase_is_over_the_branch_moves_again(repo: Path):
    _commits(repo)
    rebase_interactive(repo)
    git(repo, "rebase", "--abort")
    receipt = applied(repo, MODIFY, ref="main", message="m")
    assert tip(repo) == receipt.extra["commit"]
