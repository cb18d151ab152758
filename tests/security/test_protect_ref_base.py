"""--ref takes the protect policy in force now, whatever the base (issue 35, item 6).

`--ref NEW --base OLD` read `.holon/protect` from OLD: a base from before the rule was
committed planned protected paths (and a refusal quoted their lines). The rules are now git
config's, HEAD's `.holon/protect` and the branch's own (the base's, for a new branch): a
branch or base from before a rule adds nothing and lifts nothing.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from gitsupport import applied, refused
from repos.builders import git

SECRET = "key=hunter2\n"
TOUCH = "--- a/secret.env\n+++ b/secret.env\n@@ -1 +1 @@\n-key=hunter2\n+key=leaked\n"
MISS = "--- a/secret.env\n+++ b/secret.env\n@@ -1,2 +1,2 @@\n-key=other\n-x\n+key=y\n+x\n"
OPEN = "--- a/open.txt\n+++ b/open.txt\n@@ -1 +1 @@\n-open\n+changed\n"


@pytest.fixture
def repo_files() -> dict[str, str | bytes]:
    """What the shared `repo` fixture (conftest.py) commits for this module: no policy yet
    (the test commits it, so the first commit, `old`, is from before it)."""
    return {"secret.env": SECRET, "open.txt": "open\n"}


@pytest.fixture
def repo(repo: Path) -> Path:
    """The shared repository, its first commit tagged `old`, then `.holon/protect` committed
    on main (HEAD)."""
    git(repo, "tag", "old")
    git(repo, "branch", "before-the-rule")
    (repo / ".holon").mkdir()
    (repo / ".holon" / "protect").write_text("secret.env\n")
    git(repo, "add", ".holon/protect")
    git(repo, "commit", "-q", "-m", "protect secret.env")
    return repo


def bare_clone(repo: Path) -> Path:
    bare = repo.with_name("bare.git")
    git(repo.parent, "clone", "-q", "--bare", str(repo), str(bare))
    return bare


@pytest.mark.parametrize("where", ["worktree", "bare"])
@pytest.mark.parametrize("check", [False, True], ids=["apply", "check"])
@pytest.mark.parametrize("patch", [TOUCH, MISS], ids=["matching", "not_matching"])
def test_a_base_from_before_the_rule_does_not_lift_it(repo: Path, where: str, check: bool,
                                                       patch: str):
    target = repo if where == "worktree" else bare_clone(repo)
    err = refused(target, patch, "protected_path", ref="new", base="old", message="m",
                  check=check)
    assert "hunter2" not in str(err.to_dict())
    assert git(target, "branch", "--list", "new") == ""


def test_a_branch_from_before_the_rule_does_not_lift_it(repo: Path):
    refused(repo, TOUCH, "protected_path", ref="before-the-rule", message="m")


def test_the_branchs_own_rule_still_holds(repo: Path):
    """Rules add up: one the branch committed, which HEAD does not have, still holds there."""
    git(repo, "checkout", "-q", "-b", "side")
    (repo / ".holon" / "protect").write_text("secret.env\nopen.txt\n")
    git(repo, "commit", "-q", "-am", "protect open.txt too")
    git(repo, "checkout", "-q", "main")
    refused(repo, OPEN, "protected_path", ref="side", message="m")
    refused(repo, OPEN, "protected_path", ref="new", base="side", message="m")


def test_an_open_path_still_applies_on_the_old_base(repo: Path):
    receipt = applied(repo, OPEN, ref="new", base="old", message="m")
    assert git(repo, "show", "new:open.txt") == "changed\n"
    assert git(repo, "rev-parse", "new~1").strip() == git(repo, "rev-parse", "old").strip()
    assert receipt.extra["ref"] == "refs/heads/new"
