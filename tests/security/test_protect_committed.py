"""The committed `.holon/protect` holds when the working tree lacks it (issue 28, item 2).

The working-tree target used to look for a policy in the working tree first, so a sparse
checkout that leaves `.holon/` out, or a policy file deleted locally (and even staged as
deleted), let a patch write a protected path that `--cached` refused. Now HEAD's tree is
read (without pygit2 when it can be: holon_git/git/committed.py) on every target, and every
target refuses, --check and read_region included.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from gitsupport import everything
from repos.builders import git, git_env, make_repo

from holon_git import apply_patch
from holon_git.errors import PatchError
from holon_git.mcp_server.region import read_region

FILES = {"secret.env": "key=1\n", "src/a.py": "a = 1\n", ".holon/protect": "secret.env\n"}
TOUCH_SECRET = "--- a/secret.env\n+++ b/secret.env\n@@ -1 +1 @@\n-key=1\n+key=2\n"
TARGETS = {"worktree": {}, "check": {"check": True}, "index": {"target": "index"},
           "both": {"target": "both"}}


def sparse(repo: Path) -> None:
    git(repo, "sparse-checkout", "set", "--no-cone", "/*", "!/.holon/")


def deleted(repo: Path) -> None:
    (repo / ".holon" / "protect").unlink()


def deleted_and_staged(repo: Path) -> None:
    git(repo, "rm", "-q", ".holon/protect")


def packed_then_deleted(repo: Path) -> None:
    git(repo, "gc", "-q", "--aggressive")
    deleted(repo)


def shared_clone_then_deleted(repo: Path) -> None:
    """A clone borrowing the objects of another repository (alternates): the pure reader
    cannot tell, so pygit2 reads HEAD."""
    origin = repo.with_name("origin")
    repo.rename(origin)
    git(repo.parent, "clone", "-q", "--shared", str(origin), str(repo))
    deleted(repo)


HOW = {f.__name__: f for f in (sparse, deleted, deleted_and_staged, packed_then_deleted,
                               shared_clone_then_deleted)}


@pytest.mark.parametrize("target", sorted(TARGETS))
@pytest.mark.parametrize("how", sorted(HOW))
def test_a_policy_missing_from_the_working_tree_still_protects(tmp_path: Path, how: str,
                                                               target: str):
    repo = make_repo(tmp_path / "r", FILES)
    HOW[how](repo)
    assert not (repo / ".holon" / "protect").exists()
    options = TARGETS[target]
    if target == "both" and how != "sparse":
        options = {"target": "index"}  # --index refuses the missing file for its own reason
    before = everything(repo)
    receipt = apply_patch(TOUCH_SECRET, repo, **options)  # type: ignore[arg-type]
    assert receipt.error is not None and receipt.error.code == "protected_path", \
        receipt.to_json()
    assert everything(repo) == before
    with pytest.raises(PatchError) as caught:
        read_region(str(repo), "secret.env")
    assert caught.value.code == "protected_path"


def test_without_a_committed_policy_nothing_is_protected_and_pygit2_stays_unloaded(
        tmp_path: Path):
    repo = make_repo(tmp_path / "r", {"secret.env": "key=1\n"})
    git(repo, "gc", "-q")
    code = ("import sys; from holon_git import apply_patch; "
            f"r = apply_patch({TOUCH_SECRET!r}, {str(repo)!r}); "
            "print(r.ok, 'pygit2' in sys.modules)")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, env=git_env(),
                          text=True)
    assert done.stdout.strip() == "True False", done.stderr
    assert (repo / "secret.env").read_text() == "key=2\n"
